"""Printing Monte Carlo results honestly: an estimate with its error, and claims that hold on any machine.

A Markov chain amplifies a one-ulp difference in a BLAS kernel into a different chain, so a Monte Carlo estimate
is a property of the method only up to its Monte Carlo error. The kit's rule (NOTEBOOK_GUIDE.md, "Stochastic
results"):

* an estimate is printed with its standard error, ``estimate(0.5834, 0.0213)`` -> ``"0.58 ± 0.02"``, and with no
  more digits than the error supports: the error to one significant digit (two when they are 10-19), the value
  to the same decimal place;
* the standard error comes from independent repetitions (chains, trajectories, data sets): ``chain_mean``;
* what a notebook concludes from estimates is stated as a ``claim``, a sentence printed with ✔ when the
  estimates support it in this run and ✘ when they do not. nbval masks every ``value ± error`` pair (the
  sanitize file in ``tests/``) and compares the claims, so a stored output is the method's, not the CPU's;
* a claim gives its ``margin``: how far the evidence lies beyond the claim's threshold (in standard errors where
  the claim is about estimates). The claim-robustness test (``make claims``) reruns every notebook with its seeds
  shifted and prints each claim's worst margin; with ``KGSLAB_CLAIM_LOG`` set to a file name, every claim is
  appended to that file as one JSON line.
"""
import json
import math
import numbers
import os

import numpy as np

from ._validation import as_bool, as_float_array, as_scalar

__all__ = ["error_digits", "estimate", "chain_mean", "claim"]


def error_digits(standard_error):
    """Decimal places that a standard error supports: one significant digit, two when they are 10-19."""
    standard_error = as_scalar(standard_error, "standard_error", low=0.0)
    if standard_error == 0:
        return 0
    exponent = math.floor(math.log10(standard_error))
    leading = standard_error / 10.0**exponent
    if round(leading) >= 10:          # 0.0996 rounds up to 0.10: one more digit to the left
        exponent += 1
        leading = 1.0
    digits = -exponent + (1 if round(leading, 6) < 2 else 0)
    return max(digits, 0)


def estimate(value, standard_error, *, signed=False):
    """``value ± standard_error`` with only the digits the error supports, e.g. ``"0.58 ± 0.02"``.

    ``signed=True`` always writes the sign of the value (for differences). A zero error (an exact result)
    prints the value with four significant figures and "± 0".
    """
    value = as_scalar(value, "value")
    signed = as_bool(signed, "signed")
    digits = error_digits(standard_error)
    sign = "+" if signed else ""
    if float(standard_error) == 0:
        return f"{value:{sign}.4g} ± 0"
    return f"{value:{sign}.{digits}f} ± {float(standard_error):.{digits}f}"


def chain_mean(values):
    """Mean over independent repetitions (axis 0) and its standard error, std / sqrt(n) with ddof = 1.

    ``values`` has one row per independent chain (or trajectory, or data set); the other axes are kept, so a
    (chains, test points) array gives a mean and an error per test point.
    """
    values = as_float_array(values, "values")
    if values.ndim == 0 or values.shape[0] < 2:
        raise ValueError(f"values must have at least two independent repetitions along axis 0, got shape "
                         f"{values.shape}")
    return values.mean(axis=0), values.std(axis=0, ddof=1) / math.sqrt(values.shape[0])


def claim(statement, holds, *, margin=None):
    """Print ``✔ statement`` when ``holds`` is true in this run, else ``✘ not supported by this run: statement``.

    Write a claim with a margin (several standard errors), so that it holds on any machine; nbval compares the
    line, so a claim that flips on another CPU fails the test instead of going unnoticed. Returns nothing, so a
    claim at the end of a cell adds no ``True`` to its output.

    ``margin`` (optional) measures how far this run's evidence lies beyond the claim's threshold, positive when
    the claim holds: for ``gain > 2 * se`` it is ``gain / se - 2`` standard errors. It is not printed (its value
    is the run's); the claim-robustness test reads it from ``KGSLAB_CLAIM_LOG`` and reports each claim's worst.
    """
    if not isinstance(statement, str) or not statement:
        raise TypeError(f"statement must be a non-empty string, got {statement!r}")
    # A verdict from a truthy string ("False") or a NaN would print a tick for nothing: only booleans count.
    flags = np.asarray(holds)
    if flags.dtype != bool or flags.size == 0:
        raise TypeError(f"holds must be True / False or an array of them, got {holds!r:.60}")
    holds = bool(np.all(flags))
    if margin is not None:
        # +-inf is allowed: an exact difference (standard error 0) lies infinitely many errors from the threshold
        if isinstance(margin, bool) or not isinstance(margin, numbers.Real) or math.isnan(margin):
            raise TypeError(f"margin must be a real number (not NaN), got {margin!r:.60}")
        margin = float(margin)
        # a margin on the wrong side of zero is a mis-written margin, not a close call
        if (holds and margin < 0) or (not holds and margin > 0):
            raise ValueError(f"margin must be >= 0 when the claim holds and <= 0 when it does not, got margin "
                             f"{margin:.3g} with holds={holds}")
    log = os.environ.get("KGSLAB_CLAIM_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as file:
            file.write(json.dumps({"statement": statement, "holds": holds, "margin": margin}) + "\n")
    print(f"✔ {statement}" if holds else f"✘ not supported by this run: {statement}")

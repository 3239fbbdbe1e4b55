"""Running a sampler until its answers are converged, and what a run reports when it cannot say.

The two samplers (the kernel Gibbs sampler, `kgslab.kgs`; the kernel billiard, `kgslab.billiard`) take a number
of draws per chain or "auto" (`as_n_draws`).  "auto" hands a function extend(n), which runs every chain n more
draws and returns all draws so far, to `run_until_converged`: it grows the run until `kgslab.diagnostics.summarise`
says every monitored answer has Monte Carlo error below target_error and R-hat below target_rhat, or a cap is
reached (a ConvergenceWarning then says how far it is).  A run too short to diagnose (under 4 draws per chain:
R-hat splits each chain in two) reports NaN diagnostics and converged=False (`reported`).

The paper's stopping rule for the billiard (seed 002, eq. 8, Hoeffding): P(mean of n fractions - p+ >= epsilon)
<= exp(-2 n epsilon^2) = eta, so n = ln(1/eta) / (2 epsilon^2) bounces (`hoeffding_bounces`; epsilon = 0.05 and
eta = 0.01 give n = 922, the paper's "about 1000"), and the deviation it allows after n (`hoeffding_epsilon`).
Notebook 09's Exercise 9.3 asks for `hoeffding_bounces`.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ._validation import as_float_array, as_positive_int, as_scalar
from .diagnostics import Convergence, stopping_targets, summarise

# The kit's samplers also use as_n_draws, check_targets and reported; a user calls run_until_converged.
__all__ = ["run_until_converged", "hoeffding_bounces", "hoeffding_epsilon"]


def as_n_draws(value, name):
    """A number of draws per chain: a positive integer, or "auto" (run until converged)."""
    if isinstance(value, str):
        if value != "auto":
            raise ValueError(f"{name} must be a positive integer or 'auto', got {value!r}")
        return value
    return as_positive_int(value, name)


def check_targets(target_error, target_rhat, max_draws, name="max_draws"):
    """Validate the stopping targets of an "auto" run (a bad target could make it run for ever)."""
    target_error, target_rhat = stopping_targets(target_error, target_rhat)
    max_draws = as_positive_int(max_draws, name, minimum=8)
    return target_error, target_rhat, max_draws


def run_until_converged(extend, *, first: int, max_draws: int, target_error: float = 0.01,
                        target_rhat: float = 1.01, what: str = "the sampler", settled=None,
                        projected: bool = False) -> Convergence:
    """Call extend(n) (n more draws per chain; returns all draws so far, (n_chains, n_draws, k)) until converged.

    Starts with `first` draws per chain and grows the run by half each round, so the diagnostics cost little
    next to the sampling.  With `projected`, a round instead grows the run to the length at which the largest
    MC error would reach the target (errors fall as 1 / sqrt(draws)), plus a tenth, at least by a quarter
    and at most four-fold: fewer rounds of diagnostics.  At `max_draws` per chain it stops with a
    ConvergenceWarning that says how far the answers are from the targets.
    """
    if not callable(extend):
        raise TypeError(f"extend must be a function extend(n) returning all draws so far, got {extend!r}")
    first = as_positive_int(first, "first")
    target_error, target_rhat, max_draws = check_targets(target_error, target_rhat, max_draws)
    if not isinstance(what, str):
        raise TypeError(f"what must name the sampler (str), got {what!r}")
    draws = extend(first)
    total = first
    while True:
        result = summarise(draws, target_error, target_rhat, settled)
        if result.converged:
            return result
        if total >= max_draws:
            warnings.warn(
                f"{what} stopped at its cap of {max_draws} draws per chain before converging: largest Monte "
                f"Carlo error {np.max(result.mc_error):.3g} (target {target_error}), largest R-hat "
                f"{np.max(result.rhat):.4f} (target {target_rhat}); raise the cap or treat the answers as rough.",
                ConvergenceWarning, stacklevel=3)
            return result
        more = max(total // 2, 1)
        if projected:
            needed = 1.1 * total * (np.max(result.mc_error) / target_error) ** 2
            more = int(np.clip(needed - total, max(total // 4, 1), 3 * total))
        more = min(max_draws - total, more)
        draws = extend(more)
        total += more


def reported(result: Convergence | None, n_quantities: int) -> dict:
    """rhat, ess, mc_error and converged of a run for its result tuple; NaN and False when it has no diagnostics."""
    if result is None:
        unavailable = np.full(n_quantities, np.nan)
        return {"rhat": unavailable, "ess": unavailable.copy(), "mc_error": unavailable.copy(), "converged": False}
    return {"rhat": result.rhat, "ess": result.ess, "mc_error": result.mc_error, "converged": bool(result.converged)}


def hoeffding_bounces(epsilon: float = 0.05, eta: float = 0.01) -> int:
    """Bounces n for which eq. (8) guarantees P(|estimate - p+| >= epsilon) <= eta: n = ln(1/eta) / (2 eps^2).

    >>> hoeffding_bounces(0.05, 0.01)   # the paper's "n of about 1000"
    922
    """
    epsilon = as_scalar(epsilon, "epsilon", low=0.0, high=1.0, low_open=True)
    eta = as_scalar(eta, "eta", low=0.0, high=1.0, low_open=True, high_open=True)
    return int(math.ceil(math.log(1.0 / eta) / (2.0 * epsilon ** 2)))


def _holds_booleans(value) -> bool:
    """True for a bool, a boolean array, or a list with a bool among its items."""
    if isinstance(value, (bool, np.bool_)):
        return True
    try:
        items = np.asarray(value, dtype=object)
    except (TypeError, ValueError):
        return False   # ragged: as_float_array says what is wrong
    return getattr(value, "dtype", None) == bool or any(isinstance(item, (bool, np.bool_))
                                                        for item in items.ravel().tolist())


def hoeffding_epsilon(n_bounces, eta: float = 0.01):
    """The deviation Hoeffding's bound allows for a mean of n samples in [0, 1] at confidence 1 - eta.

    Seed 002, eq. (8), solved for epsilon (`hoeffding_bounces` read the other way).  Array-friendly.
    """
    eta = as_scalar(eta, "eta", low=0.0, high=1.0, low_open=True, high_open=True)
    if _holds_booleans(n_bounces):   # True is no number of bounces, though numpy would read it as 1
        raise TypeError(f"n_bounces must be a number of bounces (or an array of them), got {n_bounces!r:.60}")
    n_bounces = as_float_array(n_bounces, "n_bounces")
    if np.any(n_bounces <= 0):
        raise ValueError(f"n_bounces must be > 0, got {float(np.min(n_bounces)):g}")
    return np.sqrt(np.log(1.0 / eta) / (2.0 * n_bounces))

"""Describing and comparing values: what a check says about a result, by type as well as by value.

A verdict tells a student what came back and how it differs from what was expected, in a line, never a wall of
numbers (`describe_value`, `describe_type`).  `allclose` is the comparison most checks use: an array where the
reference returns an array, a tuple where it returns a tuple, real numbers only, then the values.  A comparison
returns None (right), a sentence, or a `Problem` naming the mistake it recognised; `diagnose` then looks for the
case's declared `Mistake` the wrong result matches, or a constant factor, so the words naming a mistake are
formatted once, for every check alike.
"""

from __future__ import annotations

import inspect
import numbers
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .cases import Case, non_negative, require

__all__ = ["Problem", "allclose"]


@dataclass
class Problem:
    """What a comparison found wrong: how the result differs (`text`) and, when recognised, which mistake it is.

    A `compare` returns None (right), a sentence (wrong, no mistake recognised) or a Problem; `diagnose` and the
    verdict format the mistake's words once, for every comparison alike.
    """

    text: str
    mistake: str | None = None
    words: str | None = None


# ---- describing values ------------------------------------------------------------------------

def describe_type(value) -> str:
    if isinstance(value, np.ndarray):
        return f"a numpy array of dtype {value.dtype} and shape {value.shape}"
    if isinstance(value, bool):
        return "a bool"
    return f"{'an' if type(value).__name__[0] in 'aeiou' else 'a'} {type(value).__name__}"


def describe_value(value) -> str:
    """A short description of a value: its shape and a few entries, never a wall of numbers."""
    if isinstance(value, np.ndarray) and value.ndim > 0:
        if value.dtype.kind in "fc":
            head = np.array2string(value.ravel()[:4], precision=4, suppress_small=True)
        else:
            head = str(value.ravel()[:4].tolist())
        more = " ..." if value.size > 4 else ""
        return f"array of shape {value.shape}: {head}{more}"
    if isinstance(value, list):
        text = repr(value[:4])[:-1] + (", ...]" if len(value) > 4 else "]")
        return f"list of {len(value)} items {text}"[:120]
    if isinstance(value, tuple):
        return "(" + ", ".join(describe_value(part) for part in value) + ")"
    if isinstance(value, float):
        return f"{value:.6g}"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


# ---- comparing results ------------------------------------------------------------------------

def is_real_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool) or \
        isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf"


def allclose(rtol: float = 1e-6, atol: float = 1e-8) -> Callable[[Any, Any], str | None]:
    """A comparison for numbers, arrays and tuples of them, by type as well as by value.

    Returns None when `got` matches `expected`, else a sentence saying how it
    differs, naming the type the student returned when that is the problem:
    an array is expected where the reference returns an array (a list is not
    one), a tuple where it returns a tuple, and a real number where it returns
    a number; strings, complex numbers and booleans are never numbers.
    """
    rtol, atol = non_negative(rtol, "rtol"), non_negative(atol, "atol")

    def compare(expected, got):
        problem = compare_parts(expected, got)
        if problem and isinstance(expected, tuple) and isinstance(got, tuple) and len(got) == len(expected) == 2 \
                and compare_parts(expected[::-1], got) is None:
            return (f"the two parts of the result are the other way round: expected ({describe_value(expected[0])}, "
                    f"{describe_value(expected[1])}) in this order")
        return problem

    def compare_parts(expected, got):
        if isinstance(expected, tuple):
            if not isinstance(got, tuple):
                return f"expected a tuple of {len(expected)} values, got {describe_type(got)}: {describe_value(got)}"
            if len(got) != len(expected):
                return f"expected a tuple of {len(expected)} values, got a tuple of {len(got)}"
            for position, (want, have) in enumerate(zip(expected, got)):
                problem = compare_parts(want, have)
                if problem:
                    return f"in part {position + 1} of the result: {problem}"
            return None
        if isinstance(expected, np.ndarray) and expected.ndim > 0:
            if not isinstance(got, np.ndarray):
                convert = ".toarray()" if hasattr(got, "toarray") else "np.array(...)"
                return (f"expected a numpy array of shape {expected.shape}, got {describe_type(got)}: "
                        f"{describe_value(got)} (convert it with {convert})")
        elif is_real_number(expected) or isinstance(expected, np.ndarray):
            if not is_real_number(got):
                return f"expected a single real number, got {describe_type(got)}: {describe_value(got)}"
        if isinstance(got, np.ndarray) and got.dtype.kind not in "iuf":
            kind = {"c": "complex numbers", "b": "booleans", "U": "strings", "O": "Python objects"}
            return (f"expected real numbers, got {describe_type(got)} "
                    f"(an array of {kind.get(got.dtype.kind, got.dtype.kind)})")
        have = np.asarray(got, dtype=float)
        want = np.asarray(expected, dtype=float)
        if have.shape != want.shape:
            return f"expected shape {want.shape}, got shape {have.shape}"
        if not np.all(np.isfinite(have) | np.isnan(want) & np.isnan(have)):
            return "the result contains NaN or infinite values" + (
                " where the reference has numbers" if not np.all(np.isfinite(have) | np.isnan(want)) else "")
        if np.any(np.isnan(want) & ~np.isnan(have)):
            return (f"expected NaN where nothing is defined (e.g. an error rate over no points), got numbers: "
                    f"{describe_value(got)}")
        if not np.allclose(have, want, rtol=rtol, atol=atol, equal_nan=True):
            worst = float(np.max(np.abs(have - want)))
            return (f"values differ (largest difference {worst:.3g})\n"
                    f"      expected {describe_value(expected)}\n      got      {describe_value(got)}")
        return None

    return compare


def _flat(value) -> np.ndarray | None:
    try:
        if isinstance(value, tuple):
            return np.concatenate([np.ravel(np.asarray(part, dtype=float)) for part in value])
        return np.ravel(np.asarray(value, dtype=float))
    except (TypeError, ValueError):
        return None


def constant_factor(expected, got) -> float | None:
    """c when the whole of `got` is c times `expected` (at least two non-zero entries, c not close to 1), else None.

    A single number is always some multiple of another, so it never has a constant factor.
    """
    if isinstance(got, (bool, np.bool_)) or isinstance(got, np.ndarray) and got.dtype.kind not in "iuf":
        return None
    want, have = _flat(expected), _flat(got)
    if want is None or have is None or want.shape != have.shape or not np.all(np.isfinite(have)):
        return None
    big = np.abs(want) > 1e-8 * max(float(np.max(np.abs(want), initial=0.0)), 1e-300)
    if np.count_nonzero(big) < 2:
        return None
    factor = float(np.median(have[big] / want[big]))
    if abs(factor - 1) < 1e-3 or not np.allclose(have, factor * want, rtol=1e-5, atol=1e-10):
        return None
    return factor



# ---- recognising the mistake ------------------------------------------------------------------

def takes_case(compare: Callable) -> bool:
    """True when `compare` takes the case as a keyword (compare(expected, got, case=...))."""
    try:
        return "case" in inspect.signature(compare).parameters
    except (TypeError, ValueError):
        return False


def as_problem(found) -> Problem | None:
    """A comparison's answer as a Problem (None stays None; a sentence becomes a Problem without a mistake)."""
    if found is None or isinstance(found, Problem):
        return found
    require(isinstance(found, str), "compare's result", "None, a sentence (str) or a Problem", found)
    return Problem(found)


def diagnose(case: Case, expected, got, compare: Callable, problem: Problem) -> Problem:
    """The case's declared mistake the wrong result matches (its result, else its factor), or a constant factor."""
    if problem.mistake is not None or problem.words is not None:
        return problem
    for mistake in case.mistakes:
        if mistake.factor is None and mistake.result is not None and as_problem(
                compare_on(compare, mistake.result, got, case)) is None:
            return Problem(problem.text, mistake.id, mistake.words)
    factor = constant_factor(expected, got)
    if factor is not None:
        for mistake in case.mistakes:
            if mistake.factor is not None and np.isclose(factor, mistake.factor, rtol=1e-3):
                return Problem(problem.text, mistake.id,
                               f"your values are all off by a factor close to {factor:.4g}: {mistake.words}")
        return Problem(problem.text, None, f"your values are all off by one constant factor, about {factor:.4g}.")
    return problem


def compare_on(compare: Callable, expected, got, case: Case):
    """compare(expected, got), with ``case=`` when the comparison takes it."""
    if takes_case(compare):
        return compare(expected, got, case=case)
    return compare(expected, got)

"""The check-and-fall-back mechanism behind every exercise cell.

A student writes a function; the next cell hands it to a check:

    ridge = check.exercise_1_primal(ridge)

The check runs the student's function and the kit's reference implementation
on a few small cases and prints a verdict a student can act on:

* not attempted yet (the function still raises NotImplementedError),
* an error or a wrong answer on a named case, with the expected and received
  values summarised and a hint,
* correct on every case.

It returns the student's function when it passed, otherwise the reference, so
a notebook runs top to bottom with every exercise blank and a student stuck
on one exercise still sees the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

__all__ = ["Case", "run_exercise", "allclose"]


@dataclass
class Case:
    """One test case: the arguments to call with and a description a student can read."""

    label: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)


def _summary(value) -> str:
    """A short description of a value: its shape and a few entries, never a wall of numbers."""
    if isinstance(value, (np.ndarray, list)) and np.ndim(value) > 0:
        array = np.asarray(value)
        if array.dtype.kind in "fc":
            head = np.array2string(array.ravel()[:4], precision=4, suppress_small=True)
        else:
            head = str(array.ravel()[:4].tolist())
        more = " ..." if array.size > 4 else ""
        return f"array of shape {array.shape}: {head}{more}"
    if isinstance(value, tuple):
        return "(" + ", ".join(_summary(part) for part in value) + ")"
    if isinstance(value, float):
        return f"{value:.6g}"
    return repr(value)


def allclose(rtol: float = 1e-6, atol: float = 1e-8) -> Callable[[Any, Any], str | None]:
    """A comparison for numbers, arrays and tuples of them.

    Returns None when `got` matches `expected`, else a sentence saying how it differs.
    """

    def compare(expected, got):
        if isinstance(expected, tuple):
            if not isinstance(got, tuple) or len(got) != len(expected):
                return f"expected a tuple of {len(expected)} values, got {_summary(got)}"
            for position, (want, have) in enumerate(zip(expected, got)):
                problem = compare(want, have)
                if problem:
                    return f"in part {position + 1} of the result: {problem}"
            return None
        try:
            have = np.asarray(got, dtype=float)
        except (TypeError, ValueError):
            return f"expected numbers, got {_summary(got)}"
        want = np.asarray(expected, dtype=float)
        if have.shape != want.shape:
            return f"expected shape {want.shape}, got shape {have.shape}"
        if not np.all(np.isfinite(have)):
            return "the result contains NaN or infinite values"
        if not np.allclose(have, want, rtol=rtol, atol=atol):
            worst = float(np.max(np.abs(have - want)))
            return (f"values differ (largest difference {worst:.3g})\n"
                    f"      expected {_summary(expected)}\n      got      {_summary(got)}")
        return None

    return compare


def run_exercise(title: str, student: Callable, reference: Callable, cases: list[Case], *,
                 compare: Callable[[Any, Any], str | None] | None = None, hint: str = "") -> Callable:
    """Check `student` against `reference` on `cases`; print a verdict; return the function to use."""
    compare = compare or allclose()
    name = getattr(student, "__name__", "your function")
    fallback = "  -> Using the kit's reference implementation for now, so the rest of the notebook runs."
    for number, case in enumerate(cases, start=1):
        expected = reference(*case.args, **case.kwargs)
        try:
            got = student(*case.args, **case.kwargs)
        except NotImplementedError:
            print(f"{title}: not attempted yet ({name} still raises NotImplementedError).")
            print(f"  That's fine: write {name} above and run this cell again when you are ready.")
            print(fallback)
            return reference
        except Exception as err:  # the student's code may fail in any way; report it, don't crash
            print(f"{title}: ✘ {name} raised {type(err).__name__} on test {number} ({case.label}): {err}")
            if hint:
                print(f"  Hint: {hint}")
            print(fallback)
            return reference
        problem = compare(expected, got)
        if problem:
            print(f"{title}: ✘ not yet right on test {number} ({case.label}): {problem}")
            if hint:
                print(f"  Hint: {hint}")
            print(fallback)
            return reference
    tests = {1: "the test", 2: "both tests"}.get(len(cases), f"all {len(cases)} tests")
    print(f"{title}: ✔ correct on {tests}. Using your {name}.")
    return student

"""Conceptual diagnoses for a wrong result: what typical mistake it matches ("off by a factor close to l").

A check's cases know the usual mistakes of their exercise (gamma without the factor l, the two errors swapped,
a sum where a mean is meant).  `Diagnosed` is a `compare` for `Exercise`: besides saying how the student's result
differs from the reference's, it says which mistake's result it matches, in words (never the solution's code),
so that a first wrong attempt gets a hint about the idea and not the line to type.

The cases function registers, for each case, the results the mistakes would give
(``compare.expect(expected, [(result_of_mistake, "what that mistake is"), ...])``); the compare finds them again
by the reference's result, which the check recomputes from the same inputs.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .core import allclose


def _key(value) -> bytes:
    """A fingerprint of a reference result (numbers, arrays and tuples of them)."""
    if isinstance(value, tuple):
        return b"|".join(_key(part) for part in value)
    array = np.asarray(value, dtype=float)
    return repr(array.shape).encode() + np.round(array, 10).tobytes()


def _flat(value) -> np.ndarray | None:
    try:
        if isinstance(value, tuple):
            return np.concatenate([np.ravel(np.asarray(part, dtype=float)) for part in value])
        return np.ravel(np.asarray(value, dtype=float))
    except (TypeError, ValueError):
        return None


def scale_factor(expected, got) -> float | None:
    """c when got = c * expected throughout (c not close to 1), else None."""
    want, have = _flat(expected), _flat(got)
    if want is None or have is None or want.shape != have.shape or not np.all(np.isfinite(have)):
        return None
    big = np.abs(want) > 1e-8 * max(float(np.max(np.abs(want), initial=0.0)), 1e-300)
    if not np.any(big):
        return None
    ratios = have[big] / want[big]
    factor = float(np.median(ratios))
    if abs(factor - 1) < 1e-3 or not np.allclose(have, factor * want, rtol=1e-5, atol=1e-10):
        return None
    return factor


class Diagnosed:
    """`compare` that names the mistake a wrong result matches; `expect` registers each case's mistakes."""

    def __init__(self, base: Callable[[Any, Any], str | None] | None = None,
                 factors: dict[str, float] | None = None):
        self.base = base or allclose(rtol=1e-6)
        self.mistakes: dict[bytes, list[tuple[Any, str]]] = {}
        self.factors: dict[bytes, list[tuple[float, str]]] = {}

    def expect(self, expected, mistakes=(), factors=()) -> None:
        """For the case whose reference result is `expected`: [(mistake's result, words)], [(factor, words)]."""
        self.mistakes[_key(expected)] = list(mistakes)
        self.factors[_key(expected)] = list(factors)

    def diagnose(self, expected, got) -> str | None:
        for value, words in self.mistakes.get(_key(expected), []):
            if self.base(value, got) is None:
                return words
        factor = scale_factor(expected, got)
        if factor is not None:
            for known, words in self.factors.get(_key(expected), []):
                if np.isclose(factor, known, rtol=1e-3):
                    return f"your values are off by a factor close to {factor:.4g}: {words}"
            return f"your values are off by a constant factor, about {factor:.4g}."
        return None

    def __call__(self, expected, got) -> str | None:
        problem = self.base(expected, got)
        if problem is None:
            return None
        diagnosis = self.diagnose(expected, got)
        return f"{problem}\n  What it looks like: {diagnosis}" if diagnosis else problem

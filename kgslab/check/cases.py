"""What a check is built from: its cases (`Case`), each with the known mistakes a wrong result may match (`Mistake`).

A check runs the student's function and the kit's reference on a few small cases; a case says what to call with,
in words a student can read, and which mistakes its wrong results are known to come from, so that a verdict can
name the mistake rather than only the numbers.  The argument checks here (`require`, `non_negative`) are for the
kit's own check code: a failing one is a bug in a check, never the student's.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Case", "Mistake"]


def require(holds: bool, name: str, expected: str, value) -> None:
    """TypeError naming the argument of the kit's own check code (a bug in a check, never the student's)."""
    if not holds:
        text = repr(value)
        raise TypeError(f"{name} must be {expected}, got {text if len(text) <= 60 else text[:57] + '...'}")


def non_negative(value, name: str) -> float:
    """`value` as a float, or a clear error: a real number, finite and >= 0."""
    require(isinstance(value, numbers.Real) and not isinstance(value, bool), name, "a real number", value)
    if not 0 <= float(value) < float("inf"):
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return float(value)


@dataclass
class Mistake:
    """A known mistake of one case: the result it gives (or the constant factor it is off by) -> the words naming it.

    `id` is a short stable name ("gamma-without-l") that grading records and a class report counts; `words` say
    what the mistake is, in terms of the idea (never the solution's line).  Give `result` (what the mistaken
    function returns on the case, computed by the check) or `factor` (the whole result is off by that factor).
    """

    id: str
    words: str
    result: Any = None
    factor: float | None = None

    def __post_init__(self):
        require(isinstance(self.id, str) and bool(self.id), "id", "a short name of the mistake (str)", self.id)
        require(isinstance(self.words, str) and bool(self.words), "words", "a sentence naming the mistake (str)",
                self.words)
        require(self.factor is None or isinstance(self.factor, numbers.Real), "factor", "None or a number",
                self.factor)


@dataclass
class Case:
    """One test case: the arguments to call with, a description a student can read, and its known mistakes."""

    label: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    mistakes: list = field(default_factory=list)
    memory_limit: float | None = None
    """Megabytes the student's function may allocate on this case (peak, numpy arrays included), or None."""

    def __post_init__(self):
        require(isinstance(self.label, str), "label", "a sentence describing the case (str)", self.label)
        require(self.memory_limit is None or isinstance(self.memory_limit, numbers.Real) and self.memory_limit > 0,
                "memory_limit", "None or a number of megabytes > 0", self.memory_limit)
        require(isinstance(self.args, tuple), "args", "a tuple of positional arguments", self.args)
        require(isinstance(self.kwargs, dict) and all(isinstance(k, str) for k in self.kwargs), "kwargs",
                "a dict of keyword arguments", self.kwargs)
        require(isinstance(self.mistakes, (list, tuple)) and all(isinstance(m, Mistake) for m in self.mistakes),
                "mistakes", "a list of Mistake", self.mistakes)

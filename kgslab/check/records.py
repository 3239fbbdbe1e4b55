"""What a check found, as data: its `Verdict`, and the record of each check's last run (`LAST_RUNS`).

A check's verdict is data before it is text: the cases that failed and the mistakes they matched, which the
grader stores in a test cell's metadata (`Verdict.metadata`) and a class report counts.  Each check that runs in
a notebook keeps its last run under its name (`LastRun` in `LAST_RUNS`): the autograded test cell after it
(``Exercise.grade``), ``check.why`` and the fall-backs the parent serves to a check's child read it.

That record lives in the student's kernel, which the submission controls, so no course grade rests on it: the
grader runs each graded function again outside the kernel and decides from its own verdict (`kgslab.grader`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

__all__ = ["Verdict", "LastRun"]


@dataclass
class Verdict:
    """A check's verdict as data: what grading records (cell metadata) and a class report counts.

    `status` is "passed", "failed", "blank" (not attempted) or "open" (the kit's reference handed back);
    `cases_failed` the labels of the failing cases; `mistakes` one entry per failing case,
    ``{"case": label, "mistake": id or None, "words": the check's own words}``; `summary` the verdict's first
    line without the title; `text` all of it as printed; `result` the function to use from here on.
    """

    exercise: str | None
    title: str
    status: str
    summary: str
    text: str = ""
    cases_failed: list = field(default_factory=list)
    mistakes: list = field(default_factory=list)
    result: Callable | None = field(default=None, repr=False, compare=False)

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def metadata(self, points: float, max_points: float) -> dict:
        """The verdict in the form the grader stores in the test cell's metadata (``kgslab.verdict``)."""
        return {"exercise": self.exercise, "passed": self.passed, "points": float(points),
                "max_points": float(max_points), "cases_failed": list(self.cases_failed),
                "mistakes": [dict(entry) for entry in self.mistakes]}


@dataclass
class LastRun:
    """What the last run of one check found: the student's own function, whether it passed, and its verdict."""

    title: str
    student: Callable | None
    passed: bool
    verdict: str
    outcome: Verdict | None = None


LAST_RUNS: dict[str, LastRun] = {}
"""The last run of every check that ran in this process, by the check's name (``"nb01_exercise_1_primal"``)."""

"""One exercise's check, as a notebook uses it: ``f = check.nbNN_exercise_X(f)`` checks f; ``.grade()`` is its test.

An `Exercise` holds what a check needs (its title, the kit's reference, its cases, its comparison, its hints,
the kit functions closed while the student's function runs, the hidden cases drawn at grading time, the worked
reasoning) and runs it (`verdicts.run_exercise`).  Hints come in two tiers: a failed check prints the conceptual
hint; the code-level hint is printed only on request (`show_hint`, ``check.hint(...)``) and never while nbgrader
grades.  The worked reasoning (`show_worked`, ``check.why(...)``) opens once the student's own function has passed.

``.grade()`` is the autograded test cell after a check: silent when the check's last run passed on the
student's own function, otherwise one line for a student at work, or an AssertionError while nbgrader runs it.
It reads the kernel's record (`records`), which is never what a course's grade rests on (`kgslab.grader`).
"""

from __future__ import annotations

import numbers
from typing import Callable

from . import closed as _closed
from .cases import Case, require
from .records import LAST_RUNS, Verdict
from .time_limit import grading_mode
from .verdicts import judge, run_exercise

__all__ = ["Exercise"]


def _reference_name(key: str, reference: Callable) -> str:
    """The name a student reads when calling the reference: its public dotted name, else the check's attribute."""
    module, name = getattr(reference, "__module__", "") or "", getattr(reference, "__name__", "")
    if module.startswith("kgslab.") and not name.startswith("_") and not module.startswith("kgslab.check"):
        return f"{module}.{name}"
    return f"kgslab.check.{key}._reference"


def _points(points: int) -> str:
    return f"{points} point" if points == 1 else f"{points} points"


class Exercise:
    """One exercise's check: ``f = check.nbNN_exercise_X(f)`` checks f; ``.grade()`` is its graded test.

    `cases` is a function returning the list of Case (built when the check
    runs); `points` are the autograded points of its test cell; `closed` the
    dotted names of the public kit functions that compute the same answer
    (closed while the student's function runs, with the reference); `hidden`
    an optional function of a numpy Generator returning grading cases of other
    sizes and shapes (`kgslab.check.hidden`); `worked` the worked reasoning
    (markdown) that `check.why` shows once the student's own function has
    passed, and never before: it explains the answer.
    """

    def __init__(self, key: str, title: str, reference: Callable, cases: Callable[[], list[Case]], *,
                 points: int, compare: Callable | None = None, hint: str = "", code_hint: str = "",
                 closed: tuple = (), hidden: Callable | None = None, worked: str = ""):
        require(isinstance(key, str) and bool(key), "key", "the exercise's name (str)", key)
        require(isinstance(title, str), "title", "the exercise's title (str)", title)
        require(callable(reference), "reference", "the kit's reference function", reference)
        require(callable(cases), "cases", "a function returning the list of Case", cases)
        require(isinstance(points, numbers.Integral) and not isinstance(points, bool) and points >= 0, "points",
                 "a whole number of points >= 0", points)
        require(compare is None or callable(compare), "compare", "None or a function compare(expected, got)",
                 compare)
        require(isinstance(hint, str), "hint", "a sentence (str)", hint)
        require(isinstance(code_hint, str), "code_hint", "a sentence (str)", code_hint)
        require(isinstance(worked, str), "worked", "the worked reasoning as markdown (str)", worked)
        require(isinstance(closed, (tuple, list)) and all(isinstance(n, str) for n in closed), "closed",
                 "a tuple of dotted names of kit functions", closed)
        # The reference and the closed names are private attributes: every copy imports `check`, and tab
        # completion on a check must offer neither the answer (its `?`) nor the module and name where the kit
        # keeps it (a `??` away).  (This comment, unlike a docstring, is not what `?` shows.)
        self._closed = frozenset(_closed.close(closed))
        reference_name = _reference_name(key, reference)
        if not reference_name.startswith("kgslab.check."):
            _closed.close([reference_name])            # wherever the kit holds it, not only in this check
        reference = _closed.guard_function(reference, reference_name)
        self._closed |= {_closed.closed_name(reference)}
        require(hidden is None or callable(hidden), "hidden", "None or a function hidden(rng) -> list of Case",
                 hidden)
        self.hidden = hidden
        self.key, self.title, self._reference, self.cases = key, title, reference, cases
        self.points, self.compare, self.hint, self.code_hint = points, compare, hint, code_hint
        self._worked = worked                              # private: tab completion must not offer it
        self.__name__ = key
        self.__doc__ = f"{title}: check a student's function against the kit's reference ({_points(points)})."

    def __call__(self, student: Callable) -> Callable:
        result = run_exercise(self.title, student, self._reference, self.cases(), compare=self.compare,
                              hint=self.hint, key=self.key, code_hint=bool(self.code_hint), closed=self._closed)
        last = LAST_RUNS.get(self.key)
        if self._worked and last is not None and last.passed and not grading_mode():
            print(f"  Why it works: check.why(\"{self.key}\").")
        return result

    def judge(self, student: Callable, *, cases: list[Case] | None = None, outcomes: list[dict] | None = None,
              time_limit: float | None = None) -> Verdict:
        """The check's `Verdict` on `student` (or on `outcomes` computed elsewhere), printed and recorded nowhere."""
        return judge(self.title, student, self._reference, cases if cases is not None else self.cases(),
                     compare=self.compare, hint=self.hint, key=self.key, code_hint=bool(self.code_hint),
                     closed=self._closed, outcomes=outcomes, time_limit=time_limit)

    def __repr__(self) -> str:
        return f"<check {self.key}: {self.title}, {self.points} points>"

    def grade(self) -> None:
        """The autograded test: passes only when the check last ran on the student's own function and passed.

        During nbgrader's autograde or validate a failure raises AssertionError
        (the test cell scores 0); for a student at work it prints one line.
        """
        last = LAST_RUNS.get(self.key)
        if last is None:
            problem = "its check cell has not been run"
        elif not last.passed:
            problem = last.outcome.summary if last.outcome is not None else "its check did not pass"
        else:
            return
        if grading_mode():
            raise AssertionError(f"{self.title} ({_points(self.points)}): not passed: {problem}")
        print(f"Graded test ({_points(self.points)}): not passed yet: {problem}")


def show_worked(exercise: Exercise) -> None:
    """Show an exercise's worked reasoning once the student's own function has passed its check.

    Before that (a blank, a failure, the kit's fall-back in use) it says what opens it, and shows nothing of
    the reasoning: it explains the answer the exercise asks for.  While nbgrader grades it is off.
    """
    last = LAST_RUNS.get(exercise.key)
    if grading_mode():
        print(f"{exercise.title}: the worked reasoning is off while the notebook is graded.")
    elif not exercise._worked:
        print(f"{exercise.title}: no worked reasoning beyond the text above.")
    elif last is None or not last.passed or last.student is None:
        print(f"{exercise.title}: the worked reasoning opens here once your own function passes its check "
              f"(run the check cell again after a change).")
    else:
        text = f"**Why it works ({exercise.title}).** {exercise._worked.strip()}"
        try:
            from IPython import get_ipython
            from IPython.display import Markdown, display
        except ImportError:
            get_ipython = None
        if get_ipython is None or get_ipython() is None:   # a plain Python session: the markdown as text
            print(text)
        else:
            display(Markdown(text))


def show_hint(exercise: Exercise) -> None:
    """Print an exercise's code-level hint (the second tier); while nbgrader grades, print that hints are off."""
    if grading_mode():
        print(f"{exercise.title}: hints are off while the notebook is graded.")
    elif exercise.code_hint:
        print(f"{exercise.title}, code-level hint: {exercise.code_hint}")
    else:
        print(f"{exercise.title}: no code-level hint; the check's message and the equation cited above are the hint.")

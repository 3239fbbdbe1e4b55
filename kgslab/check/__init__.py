"""Exercise checks: ``f = check.nbNN_exercise_X(f)`` tries a student's function and falls back to the reference.

One naming scheme: ``nbNN_exercise_<number>`` with NN the notebook and the
number the handout's (``nb04_exercise_5a`` is Exercise 5a of the coursework,
in notebook 04; ``nb07_exercise_5c`` part (c) of the exam question 5; in the
papers' notebooks 08-10, the notebook's own exercise number:
``nb10_exercise_2`` is Exercise 10.2).  Each check is an `Exercise`; its
``.grade()`` is the autograded test nbgrader runs (see `exercise`).

The mechanism is in a few modules, one per concern: `cases` (a check's cases
and their known mistakes), `values` (describing and comparing results),
`inputs` (changed inputs), `time_limit`, `memory_limit`, `running` (the
student's calls, in a child process where the system can fork), `records`
(verdicts as data, each check's last run), `fallback` (the reference handed
back), `verdicts` (`judge`, `run_exercise`) and `exercise` (`Exercise`, the
hints); each notebook's checks live in a module of their
own (`nb01_duality`, ...), re-exported here so a notebook only needs
``from kgslab import check``.  Which modules those are is the kit's one list of
notebooks (`kgslab._notebook_list`).
"""

import importlib as _importlib

from .cases import Case
from .exercise import Exercise, show_hint, show_worked
from .fallback import reference_of as _reference_of
from .time_limit import GRADING_TIME_LIMIT, TIME_LIMIT, grading_mode
from .values import allclose
from .verdicts import run_exercise
from .._notebook_list import NOTEBOOKS as _NOTEBOOKS


def _export_checks() -> None:
    """Re-export each notebook's checks (its check module's ``__all__``), the notebooks as kgslab._notebook_list
    lists them: a new notebook's checks arrive with its line there."""
    for notebook in _NOTEBOOKS:
        module = _importlib.import_module(f"{__name__}.{notebook.check}")
        globals().update({name: getattr(module, name) for name in module.__all__})


_export_checks()


def exercises() -> dict:
    """Every check by name, in notebook order: {'nb01_exercise_1_primal': Exercise, ...}."""
    found = {name: value for name, value in globals().items() if isinstance(value, Exercise)}
    return dict(sorted(found.items()))


def _named(name, example: str) -> Exercise:
    """The check `name` names (its key, or the check itself)."""
    if isinstance(name, Exercise):
        return name
    known = exercises()
    if not isinstance(name, str) or name not in known:
        close = [key for key in known if isinstance(name, str) and name and name in key]
        raise ValueError(f"name must be the name of a check such as {example!r}"
                         f"{' (did you mean ' + ', '.join(close) + '?)' if close else ''}; got {name!r}")
    return known[name]


def hint(name) -> None:
    """Print the code-level hint of one exercise: ``check.hint("nb04_exercise_5a")`` (or pass the check itself).

    A failed check prints only the conceptual hint; this second tier is for a
    student who asks.  While nbgrader grades it prints that hints are off.
    """
    return show_hint(_named(name, "nb04_exercise_5a"))


def why(name) -> None:
    """Show the worked reasoning behind an exercise once your own function has passed its check:
    ``check.why("nb08_exercise_1")`` (or pass the check itself).  Before that it says what opens it."""
    return show_worked(_named(name, "nb08_exercise_1"))


def _stand_ins(functions, name: str) -> list[str]:
    """The names of the check's fall-backs among `functions` (the kit's reference handed back for a blank or wrong
    exercise: `fallback.reference_fallback` marks it)."""
    if not functions or not all(callable(function) for function in functions):
        raise TypeError(f"{name} takes the exercise functions a cell uses (callables, at least one); "
                        f"got {', '.join(type(function).__name__ for function in functions) or 'nothing'}")
    return [function.__name__ for function in functions if _reference_of(function) is not None]


def fallback_note(*functions) -> str:
    """'' while every one of `functions` is your own; otherwise a line that names those the check's fall-back stands
    in for, for the cell to print *instead of* its results: what an exercise asks you to find is not printed for you.

    ``print(check.fallback_note(hoeffding_bounces) or f"n = {hoeffding_bounces(0.05, 0.01)}")``
    """
    stand_ins = _stand_ins(functions, "fallback_note")
    if not stand_ins:
        return ""
    return (f"[{', '.join(stand_ins)}: the check's fall-back is in use until yours passes, so this cell does not "
            f"print what {'these exercises ask' if len(stand_ins) > 1 else 'the exercise asks'} you to find]")


def whose(*functions) -> str:
    """'your' while every one of `functions` is your own, "the kit's fall-back" while a check's fall-back stands in
    for one of them: the words a printed line or a ✔ uses for whose code produced it."""
    return "the kit's fall-back" if _stand_ins(functions, "whose") else "your"

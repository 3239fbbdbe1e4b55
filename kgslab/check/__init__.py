"""Exercise checks: ``f = check.nbNN_exercise_X(f)`` tries a student's function and falls back to the reference.

One naming scheme: ``nbNN_exercise_<number>`` with NN the notebook and the
number the handout's (``nb04_exercise_5a`` is Exercise 5a of the coursework,
in notebook 04; ``nb07_exercise_5c`` part (c) of the exam question 5; in the
papers' notebooks 08-10, the notebook's own exercise number:
``nb10_exercise_2`` is Exercise 10.2).  Each check is an `Exercise`; its
``.grade()`` is the autograded test nbgrader runs (see `core`).

The mechanism is in `core`; each notebook's checks live in a module of their
own (`nb01_duality`, ...), re-exported here so a notebook only needs
``from kgslab import check``.  A notebook's module is imported when one of its
checks is first asked for (``check.nb01_exercise_1_primal``), not with the
package: notebook 01 never needs scikit-learn, which the later notebooks'
checks import (measured: ``from kgslab import check, data`` took 1.6 CPU-s with
every module, about 0.8 with only 01's; CI starts about forty kernels on 01).
`exercises()`, `hint()` and ``dir(check)`` import every module.
"""

import importlib

from .core import GRADING_TIME_LIMIT, TIME_LIMIT, Case, Exercise, allclose, grading_mode, run_exercise, show_hint
from .core import reference_of as _reference_of

#: the module of each notebook's checks, by the prefix of their names ('nb01' -> nb01_duality)
_MODULES = {name[:4]: name for name in ("nb01_duality", "nb02_kernel_ridge", "nb03_gp", "nb04_normalise",
                                        "nb05_adatron", "nb06_bag_of_words", "nb07_perceptron", "nb08_kgs",
                                        "nb09_billiard", "nb10_kfd")}


def _load(module_name: str):
    """Import one notebook's check module and put its checks (its __all__) here, as a star import would."""
    module = importlib.import_module(f".{module_name}", __name__)
    for name in module.__all__:
        globals()[name] = getattr(module, name)
    return module


def __getattr__(name: str):
    """A notebook's check (``check.nb01_exercise_1_primal``), its module imported on first use (PEP 562)."""
    module_name = _MODULES.get(name[:4]) if name.startswith("nb") else None
    if module_name is None or not (name.startswith(f"{name[:4]}_exercise_") or name == module_name):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = _load(module_name)
    if name == module_name:
        return module
    if name not in module.__all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r} (the checks of {module_name} are "
                             f"{', '.join(module.__all__)})")
    return globals()[name]


def _load_all() -> None:
    for module_name in _MODULES.values():
        _load(module_name)


def __dir__() -> list[str]:
    _load_all()
    return sorted(globals())


def exercises() -> dict:
    """Every check by name, in notebook order: {'nb01_exercise_1_primal': Exercise, ...}."""
    _load_all()
    found = {name: value for name, value in globals().items() if isinstance(value, Exercise)}
    return dict(sorted(found.items()))


def hint(name) -> None:
    """Print the code-level hint of one exercise: ``check.hint("nb04_exercise_5a")`` (or pass the check itself).

    A failed check prints only the conceptual hint; this second tier is for a
    student who asks.  While nbgrader grades it prints that hints are off.
    """
    if isinstance(name, Exercise):
        return show_hint(name)
    known = exercises()
    if not isinstance(name, str) or name not in known:
        close = [key for key in known if isinstance(name, str) and name and name in key]
        raise ValueError(f"name must be the name of a check such as 'nb04_exercise_5a'"
                         f"{' (did you mean ' + ', '.join(close) + '?)' if close else ''}; got {name!r}")
    return show_hint(known[name])


def _stand_ins(functions, name: str) -> list[str]:
    """The names of the check's fall-backs among `functions` (the kit's reference handed back for a blank or wrong
    exercise: `core.reference_fallback` marks it)."""
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

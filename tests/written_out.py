"""What a student who typed out the kit's code would have: the reference's code as a function of its own.

The checks close an exercise's reference while the student's function runs
(`kgslab.check.closed`), and in the child that runs the student's function the
reference's code object is taken out (replaced by one that refuses), so a
test that stands for "a student who wrote the reference's code out" can
neither call the reference nor reuse its code object: `written_out(f)` is a
new function object with its own copy of f's code (as compiling the typed-out
text would give), f's defaults and module, which calls what f calls but is not
f.  The copies are made when this module is imported, in the test's process,
before any check forks a child.
"""

import types

from kgslab import check
from kgslab.check import closed


def _original(function):
    for cell in function.__closure__ or ():
        held = cell.cell_contents
        if isinstance(held, types.FunctionType) and getattr(held, "__name__", None) == function.__name__ \
                and not hasattr(held, "_kgslab_closed_name"):
            return held
    return function


_COPIES: dict = {}


def _is_kit(value) -> bool:
    return str(getattr(value, "__module__", "") or "").split(".")[0] == "kgslab"


def _typed(value):
    """`value` as a student's typed-out copy would have it: a kit function becomes a copy with its own code object
    (and the same copies of the kit functions and modules it reaches); a kit module, a module of such copies."""
    if isinstance(value, types.FunctionType) and _is_kit(value):
        original = _original(value)
        if id(original) not in _COPIES:
            namespace: dict = {}
            copy = types.FunctionType(original.__code__.replace(), namespace, original.__name__,
                                      original.__defaults__, original.__closure__)
            copy.__kwdefaults__ = original.__kwdefaults__
            _COPIES[id(original)] = (original, copy)
            namespace.update({key: _typed(held) for key, held in original.__globals__.items()})
        return _COPIES[id(original)][1]
    if isinstance(value, types.ModuleType) and value.__name__.split(".")[0] == "kgslab":
        if id(value) not in _COPIES:
            module = types.ModuleType(value.__name__)
            _COPIES[id(value)] = (value, module)
            vars(module).update({key: _typed(held) for key, held in list(vars(value).items())})
        return _COPIES[id(value)][1]
    return value


for _exercise in check.exercises().values():
    _typed(_exercise._reference)
    for _name in _exercise._closed:
        try:
            _typed(closed._resolve(_name)[2])
        except (ValueError, AttributeError, ImportError):
            continue


def written_out(function):
    return _typed(function)

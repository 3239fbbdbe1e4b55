"""What a student who typed out the kit's code would have: the reference's code as a function of its own.

The checks close an exercise's reference while the student's function runs
(`kgslab.check.closed`), so a test that stands for "a student who wrote the
reference's code out" cannot simply call the reference: `written_out(f)` is a
new function object with f's code, defaults and module, which calls what f
calls but is not f.
"""

import types


def _original(function):
    for cell in function.__closure__ or ():
        held = cell.cell_contents
        if isinstance(held, types.FunctionType) and getattr(held, "__name__", None) == function.__name__ \
                and not hasattr(held, "_kgslab_closed_name"):
            return held
    return function


def written_out(function):
    original = _original(function)
    copy = types.FunctionType(original.__code__, original.__globals__, original.__name__, original.__defaults__,
                              original.__closure__)
    copy.__kwdefaults__ = original.__kwdefaults__
    return copy

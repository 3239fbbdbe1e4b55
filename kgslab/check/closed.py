"""Closing an exercise's reference while the student's function runs.

Each exercise names the kit functions that compute its answer: its reference
and the public twins that give the same result by another name (for the
primal ridge exercise `kgslab.regression.ridge`, `ridge_dual` and
`kernel_ridge`).  While a check runs the student's function, and while the
grader does, those functions are *closed*: a call to one of them from code
that is not the kit's own raises `ClosedReference`,

    `kgslab.regression.ridge` is this exercise's reference: write it yourself.

and the call is remembered, so the verdict is ✘ even when the student's code
catches the error.  Functions the exercise is meant to use (a kernel, a data
loader, the student's own earlier exercises, or the kit's fall-back for them)
stay open.

How.  `close(...)` replaces each named function, in every loaded kgslab
module that holds it, by a guard of the same name and signature; a guard
without `closing(...)` around it is the function itself.  The guard looks at
its caller only: the kit's own modules (the reference calling a helper, the
fall-back after a failed check, a check computing the expected value) may
always call it; a caller whose globals are not a loaded kgslab module's (a
notebook cell, a lambda, numpy calling back) may not while it is closed.  The
guard keeps the original in a closure and publishes no ``__wrapped__``.

Where the student's function really runs (a forked child of the kernel, the
grader's child), the guards are not what holds: `take_out` removes the code of
every closed function there before the student's code runs.  Each closed
function's code object is replaced by one that only refuses, so whatever route
reaches the function object (the interpreter's object list, a guard's closure,
a default argument, a module executed again: its file is unreadable there,
`kgslab.check.confine`) finds no reference to run.  The outside libraries'
modules that do an exercise's work (`OUTSIDE`: scikit-learn's Ridge,
KernelRidge, CountVectorizer and the like) are taken out the same way: every
function of a loaded one loses its code, and the files of one not yet loaded
cannot be read.
"""

from __future__ import annotations

import builtins
import contextlib
import importlib
import importlib.util
import inspect
import os
import sys
import types
from typing import Callable, Iterable

__all__ = ["ClosedReference", "close", "closing", "refuse_if_closed", "closed_name", "take_out", "OUTSIDE",
           "outside_packages", "package_files",
           "refuse_taken_out"]


class ClosedReference(RuntimeError):
    """Raised when a student's function calls a kit function that computes the exercise's answer."""


_GUARDS: dict[int, Callable] = {}          # id(original) -> its guard (one guard per function, whatever its names)
_ORIGINALS: dict[int, Callable] = {}       # id(guard) -> the function it guards
_ACTIVE: list[frozenset[str]] = []         # the closed names of each check now running (innermost last)
_CALLS: list[list[str]] = []               # the closed names each running check saw called


def closed_name(function) -> str | None:
    """The dotted name under which `function` was closed, or None for an open function."""
    return getattr(function, "_kgslab_closed_name", None)


def _called_by_kit(frame) -> bool:
    """True when `frame` runs in one of the kit's own modules (its globals are that module's namespace)."""
    if frame is None:
        return False
    name = frame.f_globals.get("__name__", "")
    if not isinstance(name, str) or name.split(".")[0] != "kgslab":
        return False
    module = sys.modules.get(name)
    return module is not None and vars(module) is frame.f_globals


def refuse_if_closed(name: str, frame) -> None:
    """Raise ClosedReference (and remember the call) when `name` is closed and `frame` is not the kit's."""
    if _ACTIVE and name in _ACTIVE[-1] and not _called_by_kit(frame):
        _CALLS[-1].append(name)
        raise ClosedReference(f"`{name}` is this exercise's reference: write it yourself.")


def _guard(original: Callable, name: str) -> Callable:
    def guard(*args, **kwargs):
        if _ACTIVE:   # a check is running (refuse_if_closed asks the same first): only then is the caller read
            refuse_if_closed(name, sys._getframe(1))
        return original(*args, **kwargs)

    for attribute in ("__name__", "__qualname__", "__doc__", "__module__"):
        setattr(guard, attribute, getattr(original, attribute, None))
    try:
        guard.__signature__ = inspect.signature(original)
    except (TypeError, ValueError):
        pass
    guard._kgslab_closed_name = name
    _ORIGINALS[id(guard)] = original
    return guard


def _resolve(name: str):
    """(owner, attribute, value) for a dotted name such as 'kgslab.regression.ridge' or 'kgslab.kfd.KFD.fit'."""
    parts = name.split(".")
    for split in range(len(parts) - 1, 0, -1):
        try:
            owner = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for part in parts[split:-1]:
            owner = getattr(owner, part)
        return owner, parts[-1], getattr(owner, parts[-1])
    raise ValueError(f"closed must name kit functions such as 'kgslab.regression.ridge', got {name!r}")


def guard_function(function: Callable, name: str) -> Callable:
    """The guard of `function` under `name`, put in its place in every loaded kgslab module that holds it.

    Made once per function; a guard is returned as it is.
    """
    if closed_name(function):
        return function
    if id(function) not in _GUARDS:
        _GUARDS[id(function)] = _guard(function, name)
    guard = _GUARDS[id(function)]
    for module_name, module in list(sys.modules.items()):
        if module_name.split(".")[0] == "kgslab" and module is not None:
            for key, held in list(vars(module).items()):
                if held is function:
                    setattr(module, key, guard)
    return guard


def close(names: Iterable[str]) -> list[str]:
    """Put a guard in place of each named kit function (a method too: 'kgslab.kfd.KFD.fit').

    Returns the names under which the guards answer (a function already closed
    under another name keeps that name).
    """
    answered = []
    for name in names:
        owner, attribute, value = _resolve(name)
        if not callable(value):
            raise ValueError(f"closed must name kit functions; {name} is {type(value).__name__}")
        guard = guard_function(value, name)
        setattr(owner, attribute, guard)
        answered.append(closed_name(guard))
    return answered


@contextlib.contextmanager
def closing(names: Iterable[str]):
    """Close `names` while the block runs; yields the list that collects the closed names called."""
    calls: list[str] = []
    _ACTIVE.append(frozenset(names))
    _CALLS.append(calls)
    try:
        yield calls
    finally:
        _ACTIVE.pop()
        _CALLS.pop()


# ---- taking the closed code out of a process that runs the student's code ---------------------

OUTSIDE: dict[str, tuple[str, ...]] = {
    "nb01": ("sklearn.linear_model", "sklearn.kernel_ridge", "sklearn.gaussian_process"),
    "nb02": ("sklearn.linear_model", "sklearn.kernel_ridge", "sklearn.gaussian_process"),
    "nb03": ("sklearn.gaussian_process", "sklearn.kernel_ridge"),
    "nb04_exercise_5b": ("sklearn.preprocessing",),
    "nb05": ("sklearn.svm",),
    "nb06_exercise_7_naive": ("sklearn.feature_extraction",),
    "nb06_exercise_7_sparse": ("sklearn.feature_extraction",),
    "nb07": ("sklearn.linear_model", "sklearn.svm"),
    "nb10": ("sklearn.discriminant_analysis",),
}
"""Outside packages that do an exercise's work, by exercise key or notebook prefix: taken out while the student's
function runs, as the kit's closed functions are (the exercise asks the student to write that work)."""


def outside_packages(key: str | None) -> tuple[str, ...]:
    """The outside packages taken out for exercise `key` (its own entry, else its notebook's)."""
    if not key:
        return ()
    return OUTSIDE.get(key, OUTSIDE.get(key.split("_")[0], ()))


def refuse_taken_out(name: str):
    """What a taken-out function does instead of its work: remember the call, raise ClosedReference."""
    if _CALLS:
        _CALLS[-1].append(name)
    raise ClosedReference(f"`{name}` is this exercise's reference (or does its work): write it yourself.")


def _refusing_code(code: types.CodeType, name: str) -> types.CodeType:
    """A code object with `code`'s free variables that only calls refuse_taken_out(name)."""
    free = [f"_free{index}" for index in range(len(code.co_freevars))]
    lines = ["def _outer():"] + [f"    {variable} = None" for variable in free]
    lines += ["    def _taken_out(*args, **kwargs):"]
    if free:
        lines += [f"        ({', '.join(free)},)"]
    lines += [f"        __kgslab_taken_out__({name!r})", "    return _taken_out"]
    namespace: dict = {}
    exec(compile("\n".join(lines), "<taken out>", "exec"), namespace)   # noqa: S102 -- a fixed template
    return namespace["_outer"]().__code__


def _take_out_function(function, name: str, done: set) -> None:
    """Replace the code of `function`, of what it wraps and of the functions its closure holds."""
    while isinstance(function, (staticmethod, classmethod, property)):
        function = function.__func__ if not isinstance(function, property) else function.fget
    if isinstance(function, types.MethodType):
        function = function.__func__
    if not isinstance(function, types.FunctionType) or id(function) in done:
        py_function = getattr(function, "py_func", None)           # a numba dispatcher: its Python function
        if isinstance(py_function, types.FunctionType) and id(function) not in done:
            done.add(id(function))
            _take_out_function(py_function, name, done)
        return
    done.add(id(function))
    for held in [_ORIGINALS.get(id(function)), getattr(function, "__wrapped__", None)] + \
            [cell.cell_contents for cell in function.__closure__ or () if _filled(cell)]:
        if held is not None and callable(held):
            _take_out_function(held, name, done)
    function.__code__ = _refusing_code(function.__code__, name)


def _filled(cell) -> bool:
    try:
        cell.cell_contents
        return True
    except ValueError:
        return False


def _take_out_module(module, name: str, done: set) -> None:
    """Every function and method defined in `module` loses its code."""
    for value in list(vars(module).values()):
        if isinstance(value, types.FunctionType) and value.__module__ == module.__name__:
            _take_out_function(value, name, done)
        elif isinstance(value, type) and value.__module__ == module.__name__:
            for attribute in list(vars(value).values()):
                _take_out_function(attribute, name, done)


def package_files(packages: Iterable[str]) -> list[str]:
    """The folders (or files) of outside packages, found without importing them: what a confined child may not
    read (a package not yet loaded could be loaded afresh from them, its code whole)."""
    found = []
    for package in packages:
        top, *rest = package.split(".")
        try:
            spec = importlib.util.find_spec(top)
        except (ImportError, ValueError):
            spec = None
        if spec is None or not spec.submodule_search_locations:
            continue
        base = os.path.join(list(spec.submodule_search_locations)[0], *rest)
        found += [path for path in (base, base + ".py") if os.path.exists(path)]
        cache = os.path.join(os.path.dirname(base), "__pycache__")
        if os.path.isfile(base + ".py") and os.path.isdir(cache):      # its bytecode, which import reads first
            stem = os.path.basename(base) + "."
            found += [os.path.join(cache, entry) for entry in os.listdir(cache) if entry.startswith(stem)]
    return found


def take_out(names: Iterable[str], packages: Iterable[str] = ()) -> list[str]:
    """In a process that will run the student's code: take out the closed functions `names` and the outside
    `packages` (those loaded); returns the packages' files, which the caller makes unreadable (`confine`).

    Never call it in a process that goes on to do anything else: the kit's own references stop working in it.
    """
    builtins.__kgslab_taken_out__ = refuse_taken_out
    done: set = set()
    for name in names:
        try:
            _, _, value = _resolve(name)
        except (ValueError, AttributeError, ImportError):
            continue
        _take_out_function(value, name, done)
    packages = list(packages)
    for package in packages:
        for module_name, module in list(sys.modules.items()):
            if module is not None and (module_name == package or module_name.startswith(package + ".")):
                _take_out_module(module, package, done)
    return package_files(packages)

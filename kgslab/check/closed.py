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

This is a rule for honest use, not a sandbox: code that digs into the guard's
closure or the kit's internals can reach the original.  The grader reports
such code to the instructor (`kgslab.check.flags`).
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import sys
from typing import Callable, Iterable

__all__ = ["ClosedReference", "close", "closing", "refuse_if_closed", "closed_name", "remove"]


class ClosedReference(RuntimeError):
    """Raised when a student's function calls a kit function that computes the exercise's answer."""


_GUARDS: dict[int, Callable] = {}          # id(original) -> its guard (one guard per function, whatever its names)
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


def _stub(name: str) -> Callable:
    def stub(*args, **kwargs):
        refuse_if_closed(name, None)
        raise ClosedReference(f"`{name}` is this exercise's reference: write it yourself.")

    stub._kgslab_closed_name = name
    return stub


def _replace_everywhere(value, replacement) -> None:
    for module_name, module in list(sys.modules.items()):
        if module_name.split(".")[0] == "kgslab" and module is not None:
            for key, held in list(vars(module).items()):
                if held is value:
                    setattr(module, key, replacement)


def remove(names: Iterable[str], reference: Callable | None = None) -> None:
    """Replace the named functions (and the guard `reference`) by stubs that always refuse, wherever a loaded
    kgslab module holds them.

    For the grader's child only, which never needs the exercise's reference
    (the expected values are computed in the grader's own process): there the
    original is not reachable through a guard's closure at all.
    """
    for name in names:
        try:
            owner, attribute, value = _resolve(name)
        except (ValueError, AttributeError, ImportError):
            continue
        setattr(owner, attribute, _stub(name))
        _replace_everywhere(value, getattr(owner, attribute))
    if reference is not None:
        _replace_everywhere(reference, _stub(closed_name(reference) or "the reference"))

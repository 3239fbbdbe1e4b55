"""Detecting changed inputs: a function that changes its caller's data in place is told so, and not adopted.

Every call of a check gets its own deep copy of the case's arguments; after the student's function returns, what
it was given is compared with the pristine case (`changed_inputs`).  A changed input is a verdict of its own,
since a function that spoils its caller's matrix gives wrong answers later in the notebook, not where it ran.
"""

from __future__ import annotations

import inspect

import numpy as np

from .cases import Case

__all__: list[str] = []


def unchanged(before, after) -> bool:
    """True when `after` (what the student's function was given) still equals its pristine copy.

    A random generator handed to the function is there to be drawn from: its state moving on is no change.
    """
    if isinstance(before, np.random.Generator):
        return isinstance(after, np.random.Generator)
    if isinstance(before, np.ndarray):
        if not isinstance(after, np.ndarray) or before.shape != after.shape or before.dtype != after.dtype:
            return False
        try:
            return bool(np.array_equal(before, after, equal_nan=before.dtype.kind in "fc"))
        except TypeError:
            return bool(np.array_equal(before, after))
    if isinstance(before, (list, tuple)):
        return type(before) is type(after) and len(before) == len(after) and \
            all(unchanged(b, a) for b, a in zip(before, after))
    if isinstance(before, dict):
        return isinstance(after, dict) and before.keys() == after.keys() and \
            all(unchanged(before[key], after[key]) for key in before)
    try:
        return bool(before == after)
    except Exception:  # an object without a usable ==: nothing we can compare
        return True


def argument_names(function, n_args: int) -> list[str]:
    """The names of the first `n_args` positional parameters of `function` (the reference's, as the exercise names
    them), "argument k" where it has none."""
    try:
        names = [p.name for p in inspect.signature(function).parameters.values()
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        names = []
    return [names[i] if i < len(names) else f"argument {i + 1}" for i in range(n_args)]


def changed_inputs(case: Case, given_args, given_kwargs, names) -> list[str]:
    """The names of the arguments the student's function changed: what it was given against the case's pristine
    arguments (positional ones named by `names`, keyword ones by their keys)."""
    changed = [name for name, before, after in zip(names, case.args, given_args) if not unchanged(before, after)]
    changed += [name for name, before in case.kwargs.items() if not unchanged(before, given_kwargs.get(name))]
    return changed

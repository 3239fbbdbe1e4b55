"""The fall-back: the kit's reference, handed back by a check whose exercise is blank or not yet right.

A check returns the student's function when it passes and otherwise the reference, so a notebook runs top to
bottom with every exercise blank.  The reference is handed back wrapped (`reference_fallback`): a later check
recognises it as the kit's and not the student's (a re-run says the exercise is still open), and what a student
reads of it (``?``, ``??``, ``help()``) says what it is and shows no answer.

When a check's child runs a student's function that calls another exercise's fall-back, the child asks the
parent for the value (`forked`): the parent computes it with the reference (`serve_reference`) only for another
exercise of the same notebook whose own check has not passed (`served_fallbacks`); any other call is refused as
a closed reference's (`refused_fallback`).
"""

from __future__ import annotations

import inspect
import sys
from typing import Callable

from . import closed, forked, plain, records

__all__: list[str] = []


def reference_fallback(reference: Callable, student_name: str, key: str | None) -> Callable:
    """The reference, wrapped so that a later check recognises it as the kit's and not the student's.

    What a student reads of it (``?``, Shift-Tab, ``help()``, ``??``) says what it is and gives no answer: its own
    docstring, not the reference's (which states the equation and a worked example), no ``__wrapped__``
    (``inspect.getsource`` and IPython's ``??`` would follow it to the reference's source), only the reference's
    signature (the exercise's own parameters).  `reference_of` gives the kit the reference back.
    """

    closed_as = closed.closed_name(reference)

    def fallback(*args, **kwargs):
        if forked.calls.active and isinstance(key, str):   # in a check's child: the parent computes it
            return forked.calls.ask(key, args, kwargs)
        if closed_as:
            closed.refuse_if_closed(closed_as, sys._getframe(1))
        return reference(*args, **kwargs)

    fallback.__name__ = fallback.__qualname__ = student_name
    fallback.__doc__ = (f"The kit's fall-back for {student_name}: the check handed it back because your "
                        f"{student_name} is blank or not yet right, so that the rest of the notebook runs. It is in "
                        f"use until your {student_name} passes its check.")
    fallback.__signature__ = _signature_or_none(reference)
    fallback._kgslab_reference = key or True
    fallback._kgslab_stands_in_for = reference
    return fallback


def reference_of(function) -> Callable | None:
    """The reference a check's fall-back (`reference_fallback`) stands in for; None for any other function."""
    return getattr(function, "_kgslab_stands_in_for", None)


def is_kit_reference(student, reference) -> bool:
    """True when what a check was handed is the reference itself or a check's fall-back, not the student's code."""
    return student is reference or getattr(student, "_kgslab_reference", None) is not None


def _signature_or_none(function):
    try:
        return inspect.signature(function)
    except (TypeError, ValueError):
        return None


def served_fallbacks(key: str | None) -> Callable[[dict, int], dict]:
    """The parent's side of the fall-back calls from a check's child: another exercise of the same notebook whose
    check has not passed (its fall-back is in use) is computed with the kit's reference; nothing else is."""
    def serve(message: dict, index: int) -> dict:
        from kgslab import check

        asked = message.get("key")
        known = check.exercises()
        last = records.LAST_RUNS.get(asked) if isinstance(asked, str) else None
        if not (isinstance(asked, str) and asked in known and key and asked != key
                and asked.split("_")[0] == key.split("_")[0] and not (last and last.passed)):
            return refused_fallback(asked, known)
        return serve_reference(known[asked], message)

    return serve


def refused_fallback(asked, known: dict) -> dict:
    """The reply to a fall-back call the parent does not serve: the exercise's own reference, or one whose student
    function is in use, is a closed reference's call."""
    exercise = known.get(asked) if isinstance(asked, str) else None
    name = closed.closed_name(exercise._reference) if exercise is not None else None
    return {"kind": "closed", "value": name or f"the kit's fall-back for {asked!r}"}


def serve_reference(exercise, message: dict) -> dict:
    """The reference of `exercise` (an `Exercise`) on a call message's arguments (plain data only), as a reply message."""
    try:
        args, kwargs = plain.loads(message.get("args"))
        value = exercise._reference(*args, **kwargs)
    except BaseException as error:  # noqa: BLE001 -- the student's arguments may make the reference fail
        return {"kind": "raised", "value": [type(error).__name__, str(error)[:500]]}
    try:
        return {"kind": "returned", "value": plain.dumps(value)}
    except plain.Unsendable as error:
        return {"kind": "raised", "value": ["TypeError", f"the fall-back's result cannot cross: {error}"]}

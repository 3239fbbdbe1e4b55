"""Running the student's function on a check's cases: each case's outcome as plain data.

Every call gets its own deep copy of the case's arguments, so no case can spoil another and a changed input can
be told (`inputs`).  While the function runs, what it prints and the warnings it raises are captured, the
exercise's references are closed (`closed`: calling one is an outcome of its own, which no ``except`` can turn
into a pass), and the case's memory limit watches its allocations (`memory_limit`).

Where the operating system can fork, the calls run in a child process (`forked`) that takes the exercise's
references out and confines itself before any of the student's code runs (`take_out_and_confine`), and is killed
at the time limit: a hard stop, under a bare ``except:`` or inside C code.  Without fork they run here under the
soft limit (`time_limit.soft_limit`).  Either way a run stops at the first case that does not return, and what
comes back is plain data (`plain`), which the verdict reads (`verdicts`).
"""

from __future__ import annotations

import contextlib
import copy
import io
import time
import warnings
from typing import Callable

from . import closed as _closed
from . import fallback, forked, plain
from .cases import Case
from .inputs import argument_names, changed_inputs
from .memory_limit import OverMemory, peak_traced, stop_over
from .time_limit import OutOfTime, soft_limit
from .values import describe_type

__all__: list[str] = []

WARNING_MARK = "\x00warning\x00 "
"""Starts a captured line that is a warning the function raised, not a line it printed (`verdicts` says which)."""

PRINTED_LINES_SHOWN = 3
"""How many of the lines a function printed (and of its warnings) a verdict shows."""


def call_student(student, args, kwargs, budget: float | None, closed: frozenset = frozenset(),
                 memory_limit: float | None = None):
    """Call the student's function with the output captured, the time limit, the memory limit (megabytes, while
    tracemalloc traces) and the exercise's references closed; return (kind, value, printed).  kind "closed"
    (value: the name called) wins over any other outcome, so catching the ClosedReference error earns nothing."""
    buffer = io.StringIO()
    calls: list[str] = []
    try:
        with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer), \
                warnings.catch_warnings(record=True) as warned:
            warnings.simplefilter("always")
            try:
                with _closed.closing(closed) as calls, \
                        (soft_limit(budget) if budget is not None else contextlib.nullcontext()), \
                        stop_over(memory_limit):
                    value = student(*args, **kwargs)
            finally:        # a warning is not a printed line: say which one it was
                for caught in warned[:PRINTED_LINES_SHOWN]:
                    buffer.write(f"{WARNING_MARK}{caught.category.__name__}: {str(caught.message)[:200]}\n")
        kind = "returned"
    except OutOfTime:
        kind, value = "timeout", None
    except OverMemory:
        kind, value = "memory", None
    except NotImplementedError as err:
        kind, value = "blank", err
    except BaseException as err:  # noqa: BLE001 -- the student's code may fail in any way, sys.exit() included
        kind, value = "raised", err
    if calls:
        return "closed", calls[0], buffer.getvalue()
    return kind, value, buffer.getvalue()


def run_one_case(student, case: Case, reference, closed, budget: float | None) -> dict:
    """Run the student's function on one case; its outcome as plain data (what crosses back from a child)."""
    given_args, given_kwargs = copy.deepcopy((case.args, case.kwargs))   # one copy: objects shared stay shared
    with peak_traced(case.memory_limit) as peak:
        kind, got, printed = call_student(student, given_args, given_kwargs, budget, closed, case.memory_limit)
    outcome = {"kind": kind, "printed": printed[-20000:]}
    if case.memory_limit is not None:
        outcome["peak_mb"] = peak.megabytes
    if kind == "closed":
        outcome["value"] = got
    elif kind == "raised":
        outcome["value"] = [type(got).__name__, str(got)[:2000]]
    elif kind == "returned":
        outcome["changed"] = changed_inputs(case, given_args, given_kwargs,
                                            argument_names(reference, len(case.args)))
        try:
            outcome["value"] = plain.dumps(got)
        except plain.Unsendable as err:
            outcome.update(kind="unreadable", value=f"{describe_type(got)} ({err})")
    return outcome


def take_out_and_confine(closed, key: str | None, home: str | None = None) -> dict:
    """In a child that runs the student's code, before it does: the exercise's closed functions and outside
    packages lose their code (`closed.take_out`), cached source lines are forgotten, and the process is confined
    (`confine`).  Returns which defences hold."""
    import linecache

    from . import confine

    hidden = _closed.take_out(closed, _closed.outside_packages(key))
    linecache.clearcache()
    return confine.confine(home, hidden=hidden).as_dict()


def student_outcomes(student: Callable, cases: list[Case], reference: Callable, time_limit: float, closed,
                     key: str | None = None) -> list[dict]:
    """The outcome of every case, up to the first that did not return: in a forked child that is killed at the
    time limit (a hard stop), or, without fork, in this process under the soft limit."""
    if forked.available():
        from . import confine

        confine.prepare(_closed.package_files(_closed.outside_packages(key)))   # the rules, worked out once here
        return forked.run_forked(lambda index: run_one_case(student, cases[index], reference, closed, None),
                                 len(cases), time_limit, prepare=lambda: take_out_and_confine(closed, key),
                                 serve=fallback.served_fallbacks(key))
    outcomes, spent = [], 0.0
    for case in cases:
        started = time.perf_counter()
        outcomes.append(run_one_case(student, case, reference, closed, max(time_limit - spent, 1e-3)))
        spent += time.perf_counter() - started
        if outcomes[-1]["kind"] != "returned":
            break
    return outcomes

"""The check-and-fall-back mechanism behind every exercise cell.

A student writes a function; the next cell hands it to a check:

    ridge_primal = check.nb01_exercise_1_primal(ridge_primal)

The check runs the student's function and the kit's reference implementation
on a few small cases and prints a verdict a student can act on:

* not attempted yet (the function still raises NotImplementedError),
* an error, a time-out, a changed input, a result of the wrong type or a wrong
  value, on every case it happens on (a run stops at the first case that does
  not return), with the expected and received values summarised, the known
  mistake the result matches in words (a `Mistake` declared next to its case,
  or a `Problem` a comparison names; formatted here, once) and a hint,
* correct on every case.

It returns the student's function when it passed, otherwise the reference, so
a notebook runs top to bottom with every exercise blank and a student stuck
on one exercise still sees the rest.

A tick is only ever earned by the student's own code:

* every call (the reference's and the student's, case by case) gets its own
  deep copy of the inputs, so no case can spoil another;
* a function that changes an input in place is told so, and is not adopted;
* results are compared by type as well as by value (an array where an array
  is meant, a tuple where a tuple is meant, real numbers only);
* the student's calls run in a forked child process (`forked`) that is killed
  at the time limit (`TIME_LIMIT` seconds for the whole check,
  `GRADING_TIME_LIMIT` while nbgrader grades), so an endless loop ends in a
  verdict, not a hung notebook, even under a bare ``except:`` or inside C code;
  only plain data comes back (`plain`);
* the exercise's reference and its public twins are closed while the student's
  function runs (`closed`): calling them is a ✘ that says so;
* what the student's function prints is captured and summarised (first lines
  and a count), and the verdict is printed last;
* ``sys.exit()`` and ``KeyboardInterrupt`` inside the function give a verdict;
* a check handed the reference back (a re-run after a fall-back) says the
  exercise is still open.

Hints come in two tiers.  A failed check prints the conceptual hint: which
equation, which quantity is off and how (never a line of the solution).  The
code-level hint is printed only on request, ``check.hint("nb04_exercise_5a")``,
and never while nbgrader grades, so one wrong attempt does not reveal the answer.

Grading.  Every check records its verdict under its name, as data (`Verdict`:
the cases that failed and the mistakes they matched; `judge` returns it without
printing, and ``Verdict.metadata`` is what the grader stores in a test cell).  The locked test
cell after a check, ``check.nb01_exercise_1_primal.grade()``, reads that
record: for a student at work (and nbgrader's validate) it is silent when the
exercise passes and prints one line, or raises while nbgrader runs it, when it
does not.  That record lives in the student's kernel, which the submission
controls, so it is never what a course's grade rests on: in the course
``python -m kgslab.assignments`` writes, `kgslab.grader` runs each graded
function again outside the kernel and writes the test cell's outcome from its
own verdict.  Since a failing exercise is replaced by the reference, later
exercises are graded on their own code, never on an earlier mistake.
"""

from __future__ import annotations

import contextlib
import copy
import ctypes
import inspect
import io
import numbers
import os
import signal
import sys
import threading
import tracemalloc
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from . import closed as _closed
from . import forked, plain, virtual_time

__all__ = ["Case", "Mistake", "Problem", "Verdict", "Exercise", "Record", "run_exercise", "judge", "allclose",
           "grading_mode", "TIME_LIMIT", "GRADING_TIME_LIMIT"]

TIME_LIMIT = 5.0
"""Seconds the student's function may take over all the cases of one check, while a student works."""

GRADING_TIME_LIMIT = 20.0
"""The same during nbgrader's autograde and validate (a busy grading machine must not cost points);
below nbgrader's own 30 s cell time-out, so an endless loop still ends in a verdict."""

_PRINTED_LINES_SHOWN = 3


def grading_mode() -> str | None:
    """'autograde' or 'validate' while nbgrader runs the notebook, else None.

    nbgrader sets the environment variable NBGRADER_EXECUTION for the kernel it
    starts (its FAQ: "Can I modify the notebook behavior during autograding or
    validation?").
    """
    return os.environ.get("NBGRADER_EXECUTION") or None


@dataclass
class Mistake:
    """A known mistake of one case: the result it gives (or the constant factor it is off by) -> the words naming it.

    `id` is a short stable name ("gamma-without-l") that grading records and a class report counts; `words` say
    what the mistake is, in terms of the idea (never the solution's line).  Give `result` (what the mistaken
    function returns on the case, computed by the check) or `factor` (the whole result is off by that factor).
    """

    id: str
    words: str
    result: Any = None
    factor: float | None = None

    def __post_init__(self):
        _require(isinstance(self.id, str) and bool(self.id), "id", "a short name of the mistake (str)", self.id)
        _require(isinstance(self.words, str) and bool(self.words), "words", "a sentence naming the mistake (str)",
                 self.words)
        _require(self.factor is None or isinstance(self.factor, numbers.Real), "factor", "None or a number",
                 self.factor)


@dataclass
class Problem:
    """What a comparison found wrong: how the result differs (`text`) and, when recognised, which mistake it is.

    A `compare` returns None (right), a sentence (wrong, no mistake recognised) or a Problem; the check's core
    formats the mistake's words once, for every comparison alike.
    """

    text: str
    mistake: str | None = None
    words: str | None = None


@dataclass
class Case:
    """One test case: the arguments to call with, a description a student can read, and its known mistakes."""

    label: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    mistakes: list = field(default_factory=list)
    memory_limit: float | None = None
    """Megabytes the student's function may allocate on this case (peak, numpy arrays included), or None."""

    def __post_init__(self):
        _require(isinstance(self.label, str), "label", "a sentence describing the case (str)", self.label)
        _require(self.memory_limit is None or isinstance(self.memory_limit, numbers.Real) and self.memory_limit > 0,
                 "memory_limit", "None or a number of megabytes > 0", self.memory_limit)
        _require(isinstance(self.args, tuple), "args", "a tuple of positional arguments", self.args)
        _require(isinstance(self.kwargs, dict) and all(isinstance(k, str) for k in self.kwargs), "kwargs",
                 "a dict of keyword arguments", self.kwargs)
        _require(isinstance(self.mistakes, (list, tuple)) and all(isinstance(m, Mistake) for m in self.mistakes),
                 "mistakes", "a list of Mistake", self.mistakes)


def _require(holds: bool, name: str, expected: str, value) -> None:
    """TypeError naming the argument of the kit's own check code (a bug in a check, never the student's)."""
    if not holds:
        text = repr(value)
        raise TypeError(f"{name} must be {expected}, got {text if len(text) <= 60 else text[:57] + '...'}")


def _non_negative(value, name: str) -> float:
    _require(isinstance(value, numbers.Real) and not isinstance(value, bool), name, "a real number", value)
    if not 0 <= float(value) < float("inf"):
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return float(value)


# ---- describing values ------------------------------------------------------------------------

def describe_type(value) -> str:
    if isinstance(value, np.ndarray):
        return f"a numpy array of dtype {value.dtype} and shape {value.shape}"
    if isinstance(value, bool):
        return "a bool"
    return f"{'an' if type(value).__name__[0] in 'aeiou' else 'a'} {type(value).__name__}"


def describe_value(value) -> str:
    """A short description of a value: its shape and a few entries, never a wall of numbers."""
    if isinstance(value, np.ndarray) and value.ndim > 0:
        if value.dtype.kind in "fc":
            head = np.array2string(value.ravel()[:4], precision=4, suppress_small=True)
        else:
            head = str(value.ravel()[:4].tolist())
        more = " ..." if value.size > 4 else ""
        return f"array of shape {value.shape}: {head}{more}"
    if isinstance(value, list):
        text = repr(value[:4])[:-1] + (", ...]" if len(value) > 4 else "]")
        return f"list of {len(value)} items {text}"[:120]
    if isinstance(value, tuple):
        return "(" + ", ".join(describe_value(part) for part in value) + ")"
    if isinstance(value, float):
        return f"{value:.6g}"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


# ---- comparing results ------------------------------------------------------------------------

def is_real_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool) or \
        isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf"


def allclose(rtol: float = 1e-6, atol: float = 1e-8) -> Callable[[Any, Any], str | None]:
    """A comparison for numbers, arrays and tuples of them, by type as well as by value.

    Returns None when `got` matches `expected`, else a sentence saying how it
    differs, naming the type the student returned when that is the problem:
    an array is expected where the reference returns an array (a list is not
    one), a tuple where it returns a tuple, and a real number where it returns
    a number; strings, complex numbers and booleans are never numbers.
    """
    rtol, atol = _non_negative(rtol, "rtol"), _non_negative(atol, "atol")

    def compare(expected, got):
        problem = compare_parts(expected, got)
        if problem and isinstance(expected, tuple) and isinstance(got, tuple) and len(got) == len(expected) == 2 \
                and compare_parts(expected[::-1], got) is None:
            return (f"the two parts of the result are the other way round: expected ({describe_value(expected[0])}, "
                    f"{describe_value(expected[1])}) in this order")
        return problem

    def compare_parts(expected, got):
        if isinstance(expected, tuple):
            if not isinstance(got, tuple):
                return f"expected a tuple of {len(expected)} values, got {describe_type(got)}: {describe_value(got)}"
            if len(got) != len(expected):
                return f"expected a tuple of {len(expected)} values, got a tuple of {len(got)}"
            for position, (want, have) in enumerate(zip(expected, got)):
                problem = compare_parts(want, have)
                if problem:
                    return f"in part {position + 1} of the result: {problem}"
            return None
        if isinstance(expected, np.ndarray) and expected.ndim > 0:
            if not isinstance(got, np.ndarray):
                convert = ".toarray()" if hasattr(got, "toarray") else "np.array(...)"
                return (f"expected a numpy array of shape {expected.shape}, got {describe_type(got)}: "
                        f"{describe_value(got)} (convert it with {convert})")
        elif is_real_number(expected) or isinstance(expected, np.ndarray):
            if not is_real_number(got):
                return f"expected a single real number, got {describe_type(got)}: {describe_value(got)}"
        if isinstance(got, np.ndarray) and got.dtype.kind not in "iuf":
            kind = {"c": "complex numbers", "b": "booleans", "U": "strings", "O": "Python objects"}
            return (f"expected real numbers, got {describe_type(got)} "
                    f"(an array of {kind.get(got.dtype.kind, got.dtype.kind)})")
        have = np.asarray(got, dtype=float)
        want = np.asarray(expected, dtype=float)
        if have.shape != want.shape:
            return f"expected shape {want.shape}, got shape {have.shape}"
        if not np.all(np.isfinite(have) | np.isnan(want) & np.isnan(have)):
            return "the result contains NaN or infinite values" + (
                " where the reference has numbers" if not np.all(np.isfinite(have) | np.isnan(want)) else "")
        if np.any(np.isnan(want) & ~np.isnan(have)):
            return (f"expected NaN where nothing is defined (e.g. an error rate over no points), got numbers: "
                    f"{describe_value(got)}")
        if not np.allclose(have, want, rtol=rtol, atol=atol, equal_nan=True):
            worst = float(np.max(np.abs(have - want)))
            return (f"values differ (largest difference {worst:.3g})\n"
                    f"      expected {describe_value(expected)}\n      got      {describe_value(got)}")
        return None

    return compare


def _flat(value) -> np.ndarray | None:
    try:
        if isinstance(value, tuple):
            return np.concatenate([np.ravel(np.asarray(part, dtype=float)) for part in value])
        return np.ravel(np.asarray(value, dtype=float))
    except (TypeError, ValueError):
        return None


def constant_factor(expected, got) -> float | None:
    """c when the whole of `got` is c times `expected` (at least two non-zero entries, c not close to 1), else None.

    A single number is always some multiple of another, so it never has a constant factor.
    """
    if isinstance(got, (bool, np.bool_)) or isinstance(got, np.ndarray) and got.dtype.kind not in "iuf":
        return None
    want, have = _flat(expected), _flat(got)
    if want is None or have is None or want.shape != have.shape or not np.all(np.isfinite(have)):
        return None
    big = np.abs(want) > 1e-8 * max(float(np.max(np.abs(want), initial=0.0)), 1e-300)
    if np.count_nonzero(big) < 2:
        return None
    factor = float(np.median(have[big] / want[big]))
    if abs(factor - 1) < 1e-3 or not np.allclose(have, factor * want, rtol=1e-5, atol=1e-10):
        return None
    return factor


# ---- detecting changed inputs -----------------------------------------------------------------

def _unchanged(before, after) -> bool:
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
            all(_unchanged(b, a) for b, a in zip(before, after))
    if isinstance(before, dict):
        return isinstance(after, dict) and before.keys() == after.keys() and \
            all(_unchanged(before[key], after[key]) for key in before)
    try:
        return bool(before == after)
    except Exception:  # an object without a usable ==: nothing we can compare
        return True


def _argument_names(function, n_args) -> list[str]:
    try:
        names = [p.name for p in inspect.signature(function).parameters.values()
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        names = []
    return [names[i] if i < len(names) else f"argument {i + 1}" for i in range(n_args)]


def _changed_inputs(case: Case, given_args, given_kwargs, names) -> list[str]:
    changed = [name for name, before, after in zip(names, case.args, given_args) if not _unchanged(before, after)]
    changed += [name for name, before in case.kwargs.items() if not _unchanged(before, given_kwargs.get(name))]
    return changed


# ---- the time limit ---------------------------------------------------------------------------

class _OutOfTime(BaseException):
    """Raised inside the student's function when the time limit is reached.

    A BaseException, so that a student's ``except Exception`` does not swallow
    it.  Only used where there is no fork (Windows): a bare ``except:`` swallows
    it, which is why the check prefers a child process it can kill.
    """


@contextlib.contextmanager
def _time_limit(seconds: float):
    """Raise _OutOfTime in this thread once `seconds` have passed.

    In the main thread (a notebook kernel runs cells there) a SIGALRM timer
    interrupts even a sleep; elsewhere (another thread, or Windows) a timer
    thread sets an asynchronous exception, which stops any Python loop.
    """
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        def alarm(signum, frame):
            raise _OutOfTime()

        previous = signal.signal(signal.SIGALRM, alarm)
        signal.setitimer(signal.ITIMER_REAL, max(seconds, 1e-3))
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        return
    target = ctypes.c_ulong(threading.get_ident())
    lock = threading.Lock()
    done = threading.Event()

    def fire():
        with lock:
            if not done.is_set():
                ctypes.pythonapi.PyThreadState_SetAsyncExc(target, ctypes.py_object(_OutOfTime))

    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        with lock:
            done.set()
            ctypes.pythonapi.PyThreadState_SetAsyncExc(target, None)  # drop one that has not fired yet
        timer.cancel()


class _OverMemory(BaseException):
    """Raised inside the student's function once its allocations pass the case's memory limit (`_memory_limit`)."""


class _memory_limit:
    """Stop the block (raise _OverMemory in it) as soon as tracemalloc's peak passes `megabytes`.

    So a function that allocates too much gets its verdict when it allocates, not after the slow work it would do
    with the memory: on a busy machine that work could run into the time limit first (06's dense count matrix did).
    A profile function (`sys.setprofile`, this thread only) reads the peak each time a function returns, C
    functions such as numpy's included, and raises there: at the allocation itself, whatever the machine's speed.
    It raises again at every later return, so an ``except:`` that swallows it does not get the function to return.
    """

    def __init__(self, megabytes: float | None):
        self.bytes = None if megabytes is None else megabytes * 1e6

    def _watch(self, frame, event, arg):
        if event in ("c_return", "return") and tracemalloc.get_traced_memory()[1] > self.bytes:
            raise _OverMemory()

    def __enter__(self):
        self.previous = sys.getprofile()
        if self.bytes is not None and tracemalloc.is_tracing():
            sys.setprofile(self._watch)
        return self

    def __exit__(self, *failed):
        sys.setprofile(self.previous)
        return False


# ---- records for grading ----------------------------------------------------------------------

@dataclass
class Verdict:
    """A check's verdict as data: what grading records (cell metadata) and a class report counts.

    `status` is "passed", "failed", "blank" (not attempted) or "open" (the kit's reference handed back);
    `cases_failed` the labels of the failing cases; `mistakes` one entry per failing case,
    ``{"case": label, "mistake": id or None, "words": the check's own words}``; `summary` the verdict's first
    line without the title; `text` all of it as printed; `result` the function to use from here on.
    """

    exercise: str | None
    title: str
    status: str
    summary: str
    text: str = ""
    cases_failed: list = field(default_factory=list)
    mistakes: list = field(default_factory=list)
    result: Callable | None = field(default=None, repr=False, compare=False)

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def metadata(self, points: float, max_points: float) -> dict:
        """The verdict in the form the grader stores in the test cell's metadata (``kgslab.verdict``)."""
        return {"exercise": self.exercise, "passed": self.passed, "points": float(points),
                "max_points": float(max_points), "cases_failed": list(self.cases_failed),
                "mistakes": [dict(entry) for entry in self.mistakes]}


@dataclass
class Record:
    """What the last run of one check found: the student's own function, whether it passed, and its verdict."""

    title: str
    student: Callable | None
    passed: bool
    verdict: str
    outcome: Verdict | None = None


_RECORDS: dict[str, Record] = {}


def reference_fallback(reference: Callable, student_name: str, key: str | None) -> Callable:
    """The reference, wrapped so that a later check recognises it as the kit's and not the student's.

    What a student reads of it (``?``, Shift-Tab, ``help()``, ``??``) says what it is and gives no answer: its own
    docstring, not the reference's (which states the equation and a worked example), no ``__wrapped__``
    (``inspect.getsource`` and IPython's ``??`` would follow it to the reference's source), only the reference's
    signature (the exercise's own parameters).  `reference_of` gives the kit the reference back.
    """

    closed_as = _closed.closed_name(reference)

    def fallback(*args, **kwargs):
        if forked.calls.active and isinstance(key, str):   # in a check's child: the parent computes it
            return forked.calls.ask(key, args, kwargs)
        if closed_as:
            _closed.refuse_if_closed(closed_as, sys._getframe(1))
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


def _signature_or_none(function):
    try:
        return inspect.signature(function)
    except (TypeError, ValueError):
        return None


def _is_kit_reference(student, reference) -> bool:
    return student is reference or getattr(student, "_kgslab_reference", None) is not None


# ---- the check --------------------------------------------------------------------------------

_WARNED = "\x00warning\x00 "


def _printed_summary(text: str) -> list[str]:
    warned = [line[len(_WARNED):] for line in text.splitlines() if line.startswith(_WARNED)]
    lines = [line for line in text.splitlines() if not line.startswith(_WARNED)]
    said = [f"  Your function raised a warning: {line[:160]}" for line in dict.fromkeys(warned)]
    if not lines:
        return said
    shown = [f"  | {line[:120]}" for line in lines[:_PRINTED_LINES_SHOWN]]
    more = f" (first {_PRINTED_LINES_SHOWN} shown)" if len(lines) > _PRINTED_LINES_SHOWN else ""
    return said + [f"  Your function printed {len(lines)} line{'s' if len(lines) != 1 else ''}{more}:"] + shown


def _call_student(student, args, kwargs, budget: float | None, closed: frozenset = frozenset(),
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
                        (_time_limit(budget) if budget is not None else contextlib.nullcontext()), \
                        _memory_limit(memory_limit):
                    value = student(*args, **kwargs)
            finally:        # a warning is not a printed line: say which one it was
                for caught in warned[:_PRINTED_LINES_SHOWN]:
                    buffer.write(f"{_WARNED}{caught.category.__name__}: {str(caught.message)[:200]}\n")
        if calls:
            return "closed", calls[0], buffer.getvalue()
        return "returned", value, buffer.getvalue()
    except _OutOfTime:
        if calls:
            return "closed", calls[0], buffer.getvalue()
        return "timeout", None, buffer.getvalue()
    except _OverMemory:
        if calls:
            return "closed", calls[0], buffer.getvalue()
        return "memory", None, buffer.getvalue()
    except NotImplementedError as err:
        if calls:
            return "closed", calls[0], buffer.getvalue()
        return "blank", err, buffer.getvalue()
    except BaseException as err:  # noqa: BLE001 -- the student's code may fail in any way, sys.exit() included
        if calls:
            return "closed", calls[0], buffer.getvalue()
        return "raised", err, buffer.getvalue()


def run_one_case(student, case: Case, reference, closed, budget: float | None) -> dict:
    """Run the student's function on one case; its outcome as plain data (what crosses back from a child)."""
    given_args, given_kwargs = copy.deepcopy(case.args), copy.deepcopy(case.kwargs)
    # stand-ins that take a known time (06's timing exercise) take it on a virtual clock, exact under any load
    with virtual_time.for_arguments(student, given_args, given_kwargs):
        if case.memory_limit is not None:
            tracemalloc.start()
        try:
            kind, got, printed = _call_student(student, given_args, given_kwargs, budget, closed, case.memory_limit)
        finally:
            peak = 0
            if case.memory_limit is not None:
                peak = tracemalloc.get_traced_memory()[1]
                tracemalloc.stop()
    outcome = {"kind": kind, "printed": printed[-20000:]}
    if case.memory_limit is not None:
        outcome["peak_mb"] = peak / 1e6
    if kind == "closed":
        outcome["value"] = got
    elif kind == "raised":
        outcome["value"] = [type(got).__name__, str(got)[:2000]]
    elif kind == "returned":
        outcome["changed"] = _changed_inputs(case, given_args, given_kwargs,
                                             _argument_names(reference, len(case.args)))
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


def _served_fallbacks(key: str | None) -> Callable[[dict, int], dict]:
    """The parent's side of the fall-back calls from a check's child: another exercise of the same notebook whose
    check has not passed (its fall-back is in use) is computed with the kit's reference; nothing else is."""
    def serve(message: dict, index: int) -> dict:
        from kgslab import check

        asked = message.get("key")
        known = check.exercises()
        record = _RECORDS.get(asked) if isinstance(asked, str) else None
        if not (isinstance(asked, str) and asked in known and key and asked != key
                and asked.split("_")[0] == key.split("_")[0] and not (record and record.passed)):
            return refused_fallback(asked, known)
        return serve_reference(known[asked], message)

    return serve


def refused_fallback(asked, known: dict) -> dict:
    """The reply to a fall-back call the parent does not serve: the exercise's own reference, or one whose student
    function is in use, is a closed reference's call."""
    exercise = known.get(asked) if isinstance(asked, str) else None
    name = _closed.closed_name(exercise._reference) if exercise is not None else None
    return {"kind": "closed", "value": name or f"the kit's fall-back for {asked!r}"}


def serve_reference(exercise: "Exercise", message: dict) -> dict:
    """The reference of `exercise` on a call message's arguments (plain data only), as a reply message."""
    try:
        args, kwargs = plain.loads(message.get("args"))
        value = exercise._reference(*args, **kwargs)
    except BaseException as error:  # noqa: BLE001 -- the student's arguments may make the reference fail
        return {"kind": "raised", "value": [type(error).__name__, str(error)[:500]]}
    try:
        return {"kind": "returned", "value": plain.dumps(value)}
    except plain.Unsendable as error:
        return {"kind": "raised", "value": ["TypeError", f"the fall-back's result cannot cross: {error}"]}


def _student_outcomes(student, cases, reference, time_limit: float, closed, key: str | None = None) -> list[dict]:
    """The outcome of every case, up to the first that did not return: in a forked child that is killed at the
    time limit (a hard stop), or, without fork, in this process under the soft limit."""
    if forked.available():
        from . import confine

        confine.prepare(_closed.package_files(_closed.outside_packages(key)))   # the rules, worked out once here
        return forked.run_forked(lambda index: run_one_case(student, cases[index], reference, closed, None),
                                 len(cases), time_limit, prepare=lambda: take_out_and_confine(closed, key),
                                 serve=_served_fallbacks(key))
    import time

    outcomes, spent = [], 0.0
    for case in cases:
        started = time.perf_counter()
        outcomes.append(run_one_case(student, case, reference, closed, max(time_limit - spent, 1e-3)))
        spent += time.perf_counter() - started
        if outcomes[-1]["kind"] != "returned":
            break
    return outcomes


def _with_case(compare: Callable) -> bool:
    """True when `compare` takes the case as a keyword (compare(expected, got, case=...))."""
    try:
        return "case" in inspect.signature(compare).parameters
    except (TypeError, ValueError):
        return False


def _as_problem(found) -> Problem | None:
    if found is None or isinstance(found, Problem):
        return found
    _require(isinstance(found, str), "compare's result", "None, a sentence (str) or a Problem", found)
    return Problem(found)


def _diagnose(case: Case, expected, got, compare: Callable, problem: Problem) -> Problem:
    """The case's declared mistake the wrong result matches (its result, else its factor), or a constant factor."""
    if problem.mistake is not None or problem.words is not None:
        return problem
    for mistake in case.mistakes:
        if mistake.factor is None and mistake.result is not None and _as_problem(
                _call_compare(compare, mistake.result, got, case)) is None:
            return Problem(problem.text, mistake.id, mistake.words)
    factor = constant_factor(expected, got)
    if factor is not None:
        for mistake in case.mistakes:
            if mistake.factor is not None and np.isclose(factor, mistake.factor, rtol=1e-3):
                return Problem(problem.text, mistake.id,
                               f"your values are all off by a factor close to {factor:.4g}: {mistake.words}")
        return Problem(problem.text, None, f"your values are all off by one constant factor, about {factor:.4g}.")
    return problem


def _call_compare(compare, expected, got, case):
    if _with_case(compare):
        return compare(expected, got, case=case)
    return compare(expected, got)


def judge(title: str, student: Callable, reference: Callable, cases: list[Case], *,
          compare: Callable | None = None, hint: str = "", key: str | None = None, time_limit: float | None = None,
          code_hint: bool = False, closed=(), outcomes: list[dict] | None = None) -> Verdict:
    """Check `student` against `reference` on `cases` and return the `Verdict` (nothing printed, nothing recorded).

    The arguments are `run_exercise`'s.  Every case that returned is compared (every failing one is reported);
    the first case that did not return (an error, a time-out, ...) ends the run, as it ends the student's calls.
    """
    _require(isinstance(title, str), "title", "the exercise's title (str)", title)
    _require(callable(reference), "reference", "the kit's reference function", reference)
    _require(isinstance(cases, (list, tuple)) and bool(cases) and all(isinstance(case, Case) for case in cases), "cases",
             "a non-empty list of Case", cases)
    _require(compare is None or callable(compare), "compare", "None or a function compare(expected, got)", compare)
    _require(isinstance(hint, str), "hint", "a sentence (str)", hint)
    _require(key is None or isinstance(key, str), "key", "None or the exercise's name (str)", key)
    _require(isinstance(code_hint, bool), "code_hint", "True or False", code_hint)
    if time_limit is not None and _non_negative(time_limit, "time_limit") == 0:
        raise ValueError("time_limit must be > 0 seconds, got 0")
    compare = compare or allclose()
    closed = frozenset(closed) | ({_closed.closed_name(reference)} - {None})
    name = getattr(student, "__name__", "your function")
    if time_limit is None:
        time_limit = GRADING_TIME_LIMIT if grading_mode() else TIME_LIMIT
    fallback_note = "  -> Using the kit's reference implementation for now, so the rest of the notebook runs."
    lines: list[str] = []

    def verdict(status: str, summary: str, result: Callable, failed_cases=(), found=(), tail: str = "") -> Verdict:
        text = "\n".join(lines + [f"{title}: {summary}" + (f"\n{tail}" if tail else "")])
        return Verdict(key, title, status, summary.splitlines()[0], text, list(failed_cases), list(found), result)

    if not callable(student):
        return verdict("failed", f"✘ expected a function, got {describe_type(student)}.",
                       reference_fallback(reference, "the reference", key), tail=fallback_note)
    if _is_kit_reference(student, reference):
        kit = student if getattr(student, "_kgslab_reference", None) else reference_fallback(reference, name, key)
        return verdict("open", f"still open. {name} is the kit's reference (it fell back earlier), not your code.",
                       kit, tail=f"  Run the cell that defines {name} again, then this cell.")

    fallback = reference_fallback(reference, name, key)
    ask = (f"  For a code-level hint run check.hint(\"{key}\")." if code_hint and key and not grading_mode()
           else "")
    failed = "\n".join(filter(None, [f"  Hint: {hint}" if hint else "", ask, fallback_note]))
    if outcomes is None:
        outcomes = _student_outcomes(student, cases, reference, time_limit, closed, key)
    wrong: list[tuple[str, str, Problem]] = []          # (where, label, problem) of every case with a wrong result

    def stop(summary: str, case: Case, status: str = "failed", mistake: str | None = None, words: str = "",
             tail: str = failed) -> Verdict:
        if wrong:                                       # the wrong results before the case that stopped the run
            summary = f"{summary}\n" + "\n".join(_wrong_lines(wrong))
        found = [{"case": label, "mistake": p.mistake, "words": p.words or p.text} for _, label, p in wrong]
        found.append({"case": case.label, "mistake": mistake, "words": words or summary.splitlines()[0]})
        return verdict(status, summary, fallback, [label for _, label, _ in wrong] + [case.label], found, tail)

    for number, (case, outcome) in enumerate(zip(cases, outcomes), start=1):
        where = f"on test {number} ({case.label})"
        kind, got = outcome["kind"], outcome.get("value")
        lines.extend(_printed_summary(outcome.get("printed", "")))
        if kind == "blank":
            return verdict("blank", f"not attempted yet ({name} still raises NotImplementedError).", fallback,
                           [case.label for case in cases],
                           [{"case": case.label, "mistake": "not-attempted", "words": "not attempted yet"}],
                           f"  That's fine: write {name} above and run this cell again when you are ready.\n"
                           f"{fallback_note}")
        if kind == "closed":
            return stop(f"✘ {name} called `{got}` {where}: that is this exercise's reference (or computes the same "
                        f"answer), closed while your function runs. Write it yourself.", case, mistake="closed")
        if kind == "timeout":
            return stop(f"✘ {name} did not finish within the time limit of {time_limit:g} s {where}: an endless "
                        f"loop? The cases are small; a correct function takes well under a second.", case,
                        mistake="time-limit")
        if kind == "garbled":
            return stop(f"✘ {name} wrote something other than its result on the checker's own channel {where} "
                        f"({str(got)[:60]!r}): what a function prints is captured, but a file descriptor of the "
                        f"checker's is not its to write.", case, mistake="garbled")
        if kind == "crashed":
            return stop(f"✘ {name} ended the Python process {where} (os._exit, or a crash in C code).", case,
                        mistake="crashed")
        peak = outcome.get("peak_mb")
        if kind == "memory" or kind == "returned" and case.memory_limit is not None and peak is not None \
                and peak > case.memory_limit and not outcome.get("changed"):
            limit = case.memory_limit or 0.0                    # "memory": stopped when the peak passed the limit
            peak = float(peak if peak is not None else limit)
            return stop(f"✘ {name} allocated {peak:.0f} MB {where}, more than the {limit:g} MB this case "
                        f"needs: a matrix with a column for every word of the vocabulary should be sparse (only "
                        f"its non-zero entries stored).", case, mistake="memory")
        if kind == "raised":
            error, message = got
            what = {"SystemExit": "called sys.exit() or exit() (SystemExit)",
                    "KeyboardInterrupt": "was interrupted (KeyboardInterrupt)"}.get(error)
            what = what or f"raised {error}"
            detail = f": {message}" if message and error != "SystemExit" else ""
            return stop(f"✘ {name} {what} {where}{detail}", case, mistake="raised")
        if kind == "unreadable":
            return stop(f"✘ {name} returned {got} {where}, which the check cannot read: return numbers, numpy "
                        f"arrays, strings, or tuples and lists of them.", case, mistake="wrong-type")
        changed = outcome["changed"]
        if changed:
            names = ", ".join(f"`{argument}`" for argument in changed)
            return stop(f"✘ {name} changed its input {names} in place {where}. The caller's data must stay as it "
                        f"was: work on a copy (e.g. K = K.copy()) or build a new array (K = K / ... rather than "
                        f"K /= ...).", case, mistake="changed-input", tail=fallback_note)
        got = plain.loads(got)
        args, kwargs = copy.deepcopy(case.args), copy.deepcopy(case.kwargs)
        with virtual_time.for_arguments(reference, args, kwargs):
            expected = reference(*args, **kwargs)
        problem = _as_problem(_call_compare(compare, expected, got, case))
        if problem is not None:
            wrong.append((where, case.label, _diagnose(case, expected, got, compare, problem)))
    if wrong:
        found = [{"case": label, "mistake": p.mistake, "words": p.words or p.text.splitlines()[0]}
                 for _, label, p in wrong]
        if len(wrong) == 1:
            summary = f"✘ not yet right {wrong[0][0]}: " + "\n".join(_wrong_lines(wrong, single=True))
        else:
            summary = f"✘ not yet right on {len(wrong)} of the {len(cases)} tests:\n" + "\n".join(_wrong_lines(wrong))
        return verdict("failed", summary, fallback, [label for _, label, _ in wrong], found, failed)
    tests = {1: "the test", 2: "both tests"}.get(len(cases), f"all {len(cases)} tests")
    return verdict("passed", f"✔ correct on {tests}. Using your {name}.", student)


def _wrong_lines(wrong, single: bool = False) -> list[str]:
    """Every wrong result, each with the words of the mistake it matches (the one place they are formatted)."""
    lines = []
    for where, _, problem in wrong:
        lines.extend((problem.text if single else f"  {where}: {problem.text}").splitlines())
        if problem.words:
            lines.append(f"  What it looks like: {problem.words}")
    return lines


def run_exercise(title: str, student: Callable, reference: Callable, cases: list[Case], *,
                 compare: Callable[[Any, Any], str | None] | None = None, hint: str = "",
                 key: str | None = None, time_limit: float | None = None,
                 code_hint: bool = False, closed=(), outcomes: list[dict] | None = None) -> Callable:
    """Check `student` against `reference` on `cases`; print a verdict; return the function to use.

    `hint` is the conceptual hint printed on a failure; `code_hint` says that a
    code-level hint exists for `key` (the verdict then says how to ask for it).
    `key` names the exercise for grading (its record, which keeps the structured
    `Verdict`); `time_limit` overrides the limit in seconds for the student's calls
    over all cases; `closed` are the dotted names of the kit functions the
    student's function may not call (`kgslab.check.closed`).  `outcomes`, when
    given, are the student's outcomes already computed elsewhere (the grader's
    child process), one per case as `run_one_case` writes them; the student's
    function is then not called.  `compare(expected, got)` (or with ``case=``)
    returns None, a sentence, or a `Problem`; a case's declared `Mistake`s name
    what a wrong result matches.  `judge` returns the same verdict as data.
    """
    found = judge(title, student, reference, cases, compare=compare, hint=hint, key=key, time_limit=time_limit,
                  code_hint=code_hint, closed=closed, outcomes=outcomes)
    print(found.text)
    if key is not None:
        _RECORDS[key] = Record(title, student if found.passed else None, found.passed, found.text, found)
    return found.result


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
        _require(isinstance(key, str) and bool(key), "key", "the exercise's name (str)", key)
        _require(isinstance(title, str), "title", "the exercise's title (str)", title)
        _require(callable(reference), "reference", "the kit's reference function", reference)
        _require(callable(cases), "cases", "a function returning the list of Case", cases)
        _require(isinstance(points, numbers.Integral) and not isinstance(points, bool) and points >= 0, "points",
                 "a whole number of points >= 0", points)
        _require(compare is None or callable(compare), "compare", "None or a function compare(expected, got)",
                 compare)
        _require(isinstance(hint, str), "hint", "a sentence (str)", hint)
        _require(isinstance(code_hint, str), "code_hint", "a sentence (str)", code_hint)
        _require(isinstance(worked, str), "worked", "the worked reasoning as markdown (str)", worked)
        _require(isinstance(closed, (tuple, list)) and all(isinstance(n, str) for n in closed), "closed",
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
        _require(hidden is None or callable(hidden), "hidden", "None or a function hidden(rng) -> list of Case",
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
        record = _RECORDS.get(self.key)
        if self._worked and record is not None and record.passed and not grading_mode():
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
        record = _RECORDS.get(self.key)
        if record is None:
            problem = "its check cell has not been run"
        elif not record.passed:
            problem = record.outcome.summary if record.outcome is not None else "its check did not pass"
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
    record = _RECORDS.get(exercise.key)
    if grading_mode():
        print(f"{exercise.title}: the worked reasoning is off while the notebook is graded.")
    elif not exercise._worked:
        print(f"{exercise.title}: no worked reasoning beyond the text above.")
    elif record is None or not record.passed or record.student is None:
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

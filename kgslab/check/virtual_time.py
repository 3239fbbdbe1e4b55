"""A virtual clock for the stand-ins of a timing exercise (notebook 06's ``kernel_timings``).

Why.  A check of a timing function needs calls that take a known time.  A stand-in that sleeps takes *at least*
that time, but on a busy machine a sleep comes back tens to hundreds of milliseconds late, so a correct
measurement lands anywhere above the design: a band wide enough for that is slow (every check run sleeps
seconds) and still fails correct work now and then.  Here a stand-in does not sleep: it moves a virtual clock
forward by its designed time (`take`), and while the student's function runs (`running`, `for_arguments`),
every clock it can read shows that virtual clock.  The clock moves only when a stand-in takes time, so a
measurement is exact whatever the load, and a check run takes no time at all.

The clocks moved, while `running`:

* ``time.perf_counter``, ``time.time``, ``time.monotonic`` and their ``_ns`` forms, ``time.clock_gettime`` and
  ``time.clock_gettime_ns`` of the wall and monotonic clocks (the module's attributes);
* ``timeit.default_timer``, and the timer that ``timeit.timeit``, ``timeit.repeat`` and ``timeit.Timer`` take
  by default (bound when timeit was imported);
* ``datetime.datetime.now``, ``.utcnow`` and ``.today`` (``datetime.datetime`` in the datetime module);
* any of these bound to a name of the function's module (``from time import perf_counter``), held in its
  closure or its default arguments, and the same for the functions of its module and of its closure.

Clocks of CPU time (``time.process_time``, ``time.thread_time``) are not moved: a stand-in takes no CPU time,
like a sleep.  Only the thread that runs the function sees the virtual time (the other threads of a notebook's
kernel keep the real clocks), and everything is put back afterwards.  Outside `running` a stand-in really
sleeps, so it still behaves as its name says anywhere else.
"""

from __future__ import annotations

import contextlib
import datetime
import threading
import time
import timeit
import types
from typing import Callable, Iterator

# The check's own machinery (its callers: the stand-ins and kgslab.check.core), not an API for notebooks or
# courses, like kgslab.check.forked: nothing is exported, and tests/check/test_virtual_time.py tests it.
__all__: list[str] = []

_FLOAT_CLOCKS = ("perf_counter", "time", "monotonic")
_REAL = {name: getattr(time, name) for name in
         _FLOAT_CLOCKS + tuple(f"{clock}_ns" for clock in _FLOAT_CLOCKS) + ("clock_gettime", "clock_gettime_ns")
         if hasattr(time, name)}
_REAL_DATETIME = datetime.datetime
# the clock ids of clock_gettime that measure elapsed time (not CPU time)
_WALL_IDS = {getattr(time, name) for name in ("CLOCK_REALTIME", "CLOCK_MONOTONIC", "CLOCK_MONOTONIC_RAW",
                                              "CLOCK_BOOTTIME", "CLOCK_TAI") if hasattr(time, name)}


class _Clock:
    """The virtual time of one `running`: each real clock's reading when it started, plus what stand-ins took."""

    def __init__(self):
        self.owner = threading.get_ident()
        self.taken_ns = 0
        self.start = {name: _REAL[name]() for name in _REAL if not name.startswith("clock_gettime")}
        self.start_id = {clock_id: _REAL["clock_gettime_ns"](clock_id) for clock_id in _WALL_IDS} \
            if "clock_gettime_ns" in _REAL else {}

    def read(self, name: str):
        if name.endswith("_ns"):
            return self.start[name] + self.taken_ns
        return self.start[name] + self.taken_ns / 1e9

    def read_id(self, clock_id: int, ns: bool):
        value = self.start_id[clock_id] + self.taken_ns
        return value if ns else value / 1e9


_ACTIVE: _Clock | None = None


def _here() -> _Clock | None:
    """The virtual clock, if one runs in this thread."""
    active = _ACTIVE
    return active if active is not None and active.owner == threading.get_ident() else None


def take(seconds: float) -> None:
    """A stand-in takes `seconds`: the virtual clock moves on by that much, or, outside `running`, a real sleep."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds < float("inf"):
        raise ValueError(f"seconds must be a finite number >= 0, got {seconds!r}")
    active = _here()
    if active is None:
        time.sleep(seconds)
    else:
        active.taken_ns += int(round(seconds * 1e9))


def _virtual(name: str) -> Callable:
    real = _REAL[name]

    def clock():
        active = _here()
        return real() if active is None else active.read(name)

    clock.__name__ = clock.__qualname__ = name
    clock.__doc__ = real.__doc__
    return clock


def _virtual_by_id(ns: bool) -> Callable:
    real = _REAL["clock_gettime_ns" if ns else "clock_gettime"]

    def clock_gettime(clock_id):
        active = _here()
        if active is None or clock_id not in active.start_id:
            return real(clock_id)
        return active.read_id(clock_id, ns)

    clock_gettime.__name__ = clock_gettime.__qualname__ = real.__name__
    clock_gettime.__doc__ = real.__doc__
    return clock_gettime


class _VirtualDatetime(_REAL_DATETIME):
    """datetime.datetime, whose now / utcnow / today read the virtual clock in the thread that runs it."""

    @classmethod
    def now(cls, tz=None):
        active = _here()
        if active is None:
            return _REAL_DATETIME.now(tz)
        return _REAL_DATETIME.fromtimestamp(active.read("time"), tz)

    @classmethod
    def today(cls):
        return cls.now()

    @classmethod
    def utcnow(cls):
        active = _here()
        if active is None:
            return _REAL_DATETIME.now(datetime.timezone.utc).replace(tzinfo=None)
        return _REAL_DATETIME.fromtimestamp(active.read("time"), datetime.timezone.utc).replace(tzinfo=None)


_VIRTUAL = {name: _virtual(name) for name in _REAL if not name.startswith("clock_gettime")}
if "clock_gettime" in _REAL:
    _VIRTUAL["clock_gettime"] = _virtual_by_id(ns=False)
if "clock_gettime_ns" in _REAL:
    _VIRTUAL["clock_gettime_ns"] = _virtual_by_id(ns=True)
# what a real clock (by identity) becomes while the virtual clock runs
_SWAP = {id(_REAL[name]): _VIRTUAL[name] for name in _REAL}
_SWAP[id(_REAL_DATETIME)] = _VirtualDatetime


def _swapped(value):
    try:
        return _SWAP.get(id(value))
    except TypeError:
        return None


class _Patches:
    """Replacements made while the virtual clock runs, each undone afterwards (unless its holder moved on)."""

    def __init__(self):
        self.undo: list[Callable[[], None]] = []

    def attribute(self, holder, name: str, value) -> None:
        old = getattr(holder, name)
        setattr(holder, name, value)
        self.undo.append(lambda: getattr(holder, name) is value and setattr(holder, name, old))

    def mapping(self, holder: dict) -> None:
        for key, value in list(holder.items()):
            new = _swapped(value)
            if new is not None and new is not value:
                holder[key] = new
                self.undo.append(lambda key=key, old=value, new=new: holder.get(key) is new and
                                 holder.__setitem__(key, old))

    def function(self, function: types.FunctionType) -> None:
        """Its default arguments and closure cells that hold a real clock."""
        defaults = function.__defaults__
        if defaults and any(_swapped(value) is not None for value in defaults):
            new = tuple(_swapped(value) or value for value in defaults)
            function.__defaults__ = new
            self.undo.append(lambda: function.__defaults__ is new and setattr(function, "__defaults__", defaults))
        if function.__kwdefaults__:
            self.mapping(function.__kwdefaults__)
        for cell in function.__closure__ or ():
            try:
                value = cell.cell_contents
            except ValueError:                  # an empty cell
                continue
            new = _swapped(value)
            if new is not None:
                cell.cell_contents = new
                self.undo.append(lambda cell=cell, old=value, new=new: cell.cell_contents is new and
                                 setattr(cell, "cell_contents", old))

    def undo_all(self) -> None:
        for step in reversed(self.undo):
            step()


def _functions_of(function) -> list[types.FunctionType]:
    """The function, the functions of its module, and those held in their closures (each once)."""
    first = []
    while not isinstance(function, types.FunctionType):
        inner = getattr(function, "__func__", None) or getattr(function, "func", None)   # a method, a partial
        if inner is None or inner is function or len(first) > 10:
            break
        first.append(function)
        function = inner
    if not isinstance(function, types.FunctionType):
        return []
    found, seen, todo = [], set(), [function]
    todo += [value for value in function.__globals__.values()
             if isinstance(value, types.FunctionType) and value.__globals__ is function.__globals__]
    while todo and len(found) < 1000:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        found.append(current)
        for cell in current.__closure__ or ():
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            if isinstance(value, types.FunctionType):
                todo.append(value)
    return found


@contextlib.contextmanager
def running(function: Callable | None = None) -> Iterator[None]:
    """Run the block on the virtual clock: `take` moves it, and the clocks `function` can read show it."""
    global _ACTIVE
    if _ACTIVE is not None:                     # already running (in this thread, or in another one: real time)
        yield
        return
    patches = _Patches()
    _ACTIVE = _Clock()
    try:
        for name, virtual in _VIRTUAL.items():
            patches.attribute(time, name, virtual)
        patches.attribute(timeit, "default_timer", _VIRTUAL["perf_counter"])
        for holder in (timeit.timeit, timeit.repeat, timeit.Timer.__init__):
            patches.function(holder)
        patches.attribute(datetime, "datetime", _VirtualDatetime)
        functions = _functions_of(function) if function is not None else []
        if functions:
            patches.mapping(functions[0].__globals__)
        for found in functions:
            patches.function(found)
        yield
    finally:
        patches.undo_all()
        _ACTIVE = None


def takes_virtual_time(value) -> bool:
    """True for a stand-in that takes its time with `take` (its class says so: ``_takes_virtual_time = True``)."""
    return bool(getattr(type(value), "_takes_virtual_time", False))


def for_arguments(function: Callable, args: tuple, kwargs: dict | None = None):
    """`running(function)` when an argument (or an item of a list, tuple or dict argument) is such a stand-in."""
    values = list(args) + list((kwargs or {}).values())
    for value in list(values):
        if isinstance(value, (list, tuple)):
            values.extend(value)
        elif isinstance(value, dict):
            values.extend(value.values())
    if any(takes_virtual_time(value) for value in values):
        return running(function)
    return contextlib.nullcontext()

"""The virtual clock of 06's stand-in kernels (`kgslab.check.virtual_time`): what it moves, and that it leaves
everything as it was.  No test here sleeps or reads a real duration (under 0.1 s in all)."""

import datetime
import threading
import time
import timeit

import pytest

from kgslab.check import virtual_time

REAL_PERF_COUNTER, REAL_DATETIME = time.perf_counter, datetime.datetime
REAL_PROCESS_TIME, REAL_THREAD_TIME = time.process_time, time.thread_time


class StandIn:
    _takes_virtual_time = True


def test_take_moves_every_clock_by_exactly_the_time_taken(monkeypatch):
    monkeypatch.setattr(time, "sleep", lambda seconds: pytest.fail("slept"))
    with virtual_time.running():
        before = [time.perf_counter(), time.time(), time.monotonic(), time.perf_counter_ns(), timeit.default_timer(),
                  time.clock_gettime(time.CLOCK_MONOTONIC), datetime.datetime.now()]
        virtual_time.take(0.25)
        virtual_time.take(0.5)
        after = [time.perf_counter(), time.time(), time.monotonic(), time.perf_counter_ns(), timeit.default_timer(),
                 time.clock_gettime(time.CLOCK_MONOTONIC), datetime.datetime.now()]
    assert after[3] - before[3] == 750_000_000
    for start, end in zip(before[:3] + before[4:6], after[:3] + after[4:6]):
        assert end - start == pytest.approx(0.75, abs=1e-6)
    assert (after[6] - before[6]).total_seconds() == pytest.approx(0.75, abs=2e-6)


def test_cpu_clocks_and_other_threads_keep_real_time():
    seen = {}

    def other_thread():
        seen["perf_counter"] = time.perf_counter()
        seen["now"] = datetime.datetime.now()

    with virtual_time.running():
        virtual_time.take(3600.0)
        thread = threading.Thread(target=other_thread)
        thread.start()
        thread.join()
        here = time.perf_counter()
        assert time.process_time is REAL_PROCESS_TIME and time.thread_time is REAL_THREAD_TIME   # CPU time: real
    assert here - seen["perf_counter"] > 3000                 # this thread is an hour ahead, the other one is not
    assert abs((datetime.datetime.now() - seen["now"]).total_seconds()) < 600


def test_everything_is_put_back():
    namespace = {}
    exec("from time import perf_counter\nimport timeit\n"
         "def f(clock=perf_counter):\n    return perf_counter, clock\n", namespace)
    defaults = timeit.repeat.__defaults__
    with virtual_time.running(namespace["f"]):
        assert time.perf_counter is not REAL_PERF_COUNTER and namespace["perf_counter"] is not REAL_PERF_COUNTER
        assert namespace["f"]() == (time.perf_counter, time.perf_counter)
        assert datetime.datetime is not REAL_DATETIME and timeit.repeat.__defaults__ != defaults
    assert time.perf_counter is REAL_PERF_COUNTER and timeit.default_timer is REAL_PERF_COUNTER
    assert namespace["perf_counter"] is REAL_PERF_COUNTER and namespace["f"]() == (REAL_PERF_COUNTER,) * 2
    assert datetime.datetime is REAL_DATETIME and timeit.repeat.__defaults__ == defaults


def test_outside_the_virtual_clock_a_stand_in_really_sleeps(monkeypatch):
    slept = []
    monkeypatch.setattr(time, "sleep", slept.append)
    virtual_time.take(0.125)
    assert slept == [0.125]


def test_only_arguments_that_are_stand_ins_start_the_virtual_clock():
    with virtual_time.for_arguments(None, ([1, 2], "text"), {"k": 3}):
        assert time.perf_counter is REAL_PERF_COUNTER
    for args, kwargs in [((StandIn(),), {}), (([StandIn()],), {}), ((), {"kernels": (StandIn(),)})]:
        with virtual_time.for_arguments(None, args, kwargs):
            assert time.perf_counter is not REAL_PERF_COUNTER
        assert time.perf_counter is REAL_PERF_COUNTER


def test_a_nested_run_keeps_the_outer_clock():
    with virtual_time.running():
        virtual_time.take(1.0)
        start = time.perf_counter()
        with virtual_time.running():
            virtual_time.take(2.0)
        assert time.perf_counter() - start == pytest.approx(2.0, abs=1e-6)
        assert time.perf_counter is not REAL_PERF_COUNTER
    assert time.perf_counter is REAL_PERF_COUNTER


@pytest.mark.parametrize("seconds", [-0.1, float("nan"), float("inf"), "1", True])
def test_a_stand_in_must_take_a_finite_time(seconds):
    with virtual_time.running(), pytest.raises(ValueError, match=r"seconds must be a finite number >= 0, got"):
        virtual_time.take(seconds)

"""The time a check gives the student's function, and the soft limit used where no child process can be killed.

A check must end in a verdict, never a hung notebook.  Where the operating system can fork (Linux, macOS), the
student's calls run in a child process that is killed at the limit (`kgslab.check.forked`): a hard stop, whatever
the function does.  Without fork (Windows) the calls run in the kernel itself under `soft_limit`, which raises
`OutOfTime` inside the function; a bare ``except:`` in the student's code can swallow that, which is why the
checks prefer the child.

The limit is `TIME_LIMIT` seconds for all the cases of one check while a student works, `GRADING_TIME_LIMIT`
while nbgrader grades (`grading_mode`), so a busy grading machine costs no points.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import threading

__all__ = ["TIME_LIMIT", "GRADING_TIME_LIMIT", "grading_mode"]

TIME_LIMIT = 5.0
"""Seconds the student's function may take over all the cases of one check, while a student works."""

GRADING_TIME_LIMIT = 20.0
"""The same during nbgrader's autograde and validate (a busy grading machine must not cost points);
below nbgrader's own 30 s cell time-out, so an endless loop still ends in a verdict."""


def grading_mode() -> str | None:
    """'autograde' or 'validate' while nbgrader runs the notebook, else None.

    nbgrader sets the environment variable NBGRADER_EXECUTION for the kernel it
    starts (its FAQ: "Can I modify the notebook behavior during autograding or
    validation?").
    """
    return os.environ.get("NBGRADER_EXECUTION") or None


def limit_in_force() -> float:
    """The seconds a check gives the student's function now: `GRADING_TIME_LIMIT` while nbgrader grades, else
    `TIME_LIMIT` (read when the check runs, so a notebook or a test may set either)."""
    return GRADING_TIME_LIMIT if grading_mode() else TIME_LIMIT


class OutOfTime(BaseException):
    """Raised inside the student's function when the soft time limit is reached.

    A BaseException, so that a student's ``except Exception`` does not swallow
    it; a bare ``except:`` does, which is why the check prefers a child process it can kill.
    """


@contextlib.contextmanager
def soft_limit(seconds: float):
    """Raise OutOfTime in this thread once `seconds` have passed.

    In the main thread (a notebook kernel runs cells there) a SIGALRM timer
    interrupts even a sleep; elsewhere (another thread, or Windows) a timer
    thread sets an asynchronous exception, which stops any Python loop.
    """
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        def alarm(signum, frame):
            raise OutOfTime()

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
                ctypes.pythonapi.PyThreadState_SetAsyncExc(target, ctypes.py_object(OutOfTime))

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

"""A student's function that never returns is stopped, whatever it does, and costs its check only.

The check runs the student's function in a forked child and kills it at the
time limit (`kgslab.check.forked`): a bare ``except:`` around ``time.sleep``,
a loop inside C code, and ``os._exit`` all end in a verdict; what the child
does to the kit never reaches the notebook; an honest check stays fast.
"""

import contextlib
import io
import os
import re
import resource
import time

import numpy as np
import pytest

from kgslab import check
from kgslab.check import core, forked

pytestmark = pytest.mark.skipif(not forked.available(), reason="needs os.fork")


def _verdict(student, monkeypatch, limit=1.0):
    monkeypatch.setattr(core, "TIME_LIMIT", limit)
    printed = io.StringIO()
    started = time.perf_counter()
    with contextlib.redirect_stdout(printed):
        returned = check.nb01_exercise_1_primal(student)
    return returned, printed.getvalue(), time.perf_counter() - started


def test_a_bare_except_around_sleep_is_stopped(monkeypatch):
    def ridge_primal(X, y, gamma):
        while True:
            try:
                time.sleep(1)
            except:  # noqa: E722 -- the point of the test
                pass

    returned, printed, seconds = _verdict(ridge_primal, monkeypatch)
    assert "did not finish within the time limit of 1 s" in printed and seconds < 30   # stopped; load's slack
    assert returned is not ridge_primal


def test_a_loop_in_c_code_is_stopped(monkeypatch):
    def ridge_primal(X, y, gamma):
        re.match(r"(a+)+$", "a" * 60 + "b")          # catastrophic backtracking, inside the C regex engine

    _, printed, seconds = _verdict(ridge_primal, monkeypatch)
    assert "did not finish" in printed and seconds < 30


def test_leaving_the_process_is_a_verdict(monkeypatch):
    def ridge_primal(X, y, gamma):
        os._exit(0)

    _, printed, _ = _verdict(ridge_primal, monkeypatch)
    assert "ended the Python process" in printed


def test_what_the_child_does_never_reaches_the_notebook(monkeypatch):
    def ridge_primal(X, y, gamma):
        core._RECORDS.clear()
        core.Exercise.grade = lambda self: None
        l, d = X.shape
        return np.linalg.solve(X.T @ X + gamma * l * np.eye(d), X.T @ y)

    grade = core.Exercise.grade
    returned, printed, _ = _verdict(ridge_primal, monkeypatch)
    assert "✔" in printed and core.Exercise.grade is grade and "nb01_exercise_1_primal" in core._RECORDS


def test_an_honest_check_stays_fast(monkeypatch):
    def ridge_primal(X, y, gamma):
        l, d = X.shape
        return np.linalg.solve(X.T @ X + gamma * l * np.eye(d), X.T @ y)

    def cpu_seconds():          # this process and its reaped children (the forked child): what a load cannot inflate
        mine, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return mine.ru_utime + mine.ru_stime + children.ru_utime + children.ru_stime

    spent = []
    for _ in range(3):
        started = cpu_seconds()
        _verdict(ridge_primal, monkeypatch, limit=5.0)
        spent.append(cpu_seconds() - started)
    assert min(spent) < 0.5, f"a check of three small cases took {min(spent):.3f} CPU seconds"

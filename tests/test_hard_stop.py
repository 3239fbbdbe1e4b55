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
from kgslab.check import exercise, forked, records, time_limit

pytestmark = pytest.mark.skipif(not forked.available(), reason="needs os.fork")


def _verdict(student, monkeypatch, limit=1.0):
    monkeypatch.setattr(time_limit, "TIME_LIMIT", limit)
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
        records.LAST_RUNS.clear()
        exercise.Exercise.grade = lambda self: None
        l, d = X.shape
        return np.linalg.solve(X.T @ X + gamma * l * np.eye(d), X.T @ y)

    grade = exercise.Exercise.grade
    returned, printed, _ = _verdict(ridge_primal, monkeypatch)
    assert "✔" in printed and exercise.Exercise.grade is grade and "nb01_exercise_1_primal" in records.LAST_RUNS


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


def _alive(pid):
    """Whether process `pid` is still running (gone, or a zombie nobody collected, counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads /proc (Linux)")
def test_a_child_whose_kernel_is_killed_ends_with_it(tmp_path):
    """A kernel killed mid-check (shut down, or a grading run stopped with kill) left its child spinning alone."""
    import signal
    import subprocess
    import sys

    record = tmp_path / "child.pid"
    script = ("import os, sys\nfrom kgslab.check import forked\n"
              "def spin(index):\n"
              "    open(sys.argv[1], 'w').write(str(os.getpid()))\n"
              "    while True:\n        pass\n"
              "forked.run_forked(spin, 1, 600)\n")
    kernel = subprocess.Popen([sys.executable, "-c", script, str(record)])
    try:
        deadline = time.monotonic() + 60
        while not (record.exists() and record.read_text()) and time.monotonic() < deadline:
            time.sleep(0.05)
        child = int(record.read_text())
        assert _alive(child)
    finally:
        kernel.send_signal(signal.SIGKILL)
        kernel.wait()
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    ended = not _alive(child)
    if not ended:
        os.kill(child, signal.SIGKILL)
    assert ended, "the child spun on after its kernel was killed"


def test_the_parents_garbage_is_not_collected_in_a_forked_check():
    """Garbage the kernel had not collected yet (a figure's font file) was collected in the check's child, whose
    inherited descriptors are closed: its finalizer printed "Exception ignored ... Bad file descriptor" under the
    student's cell (or, had the number been reused, closed another file)."""
    import subprocess
    import sys

    script = ("import gc, os\nfrom kgslab.check import forked\n"
              "gc.disable()\n"
              "class Font:\n"
              "    def __del__(self):\n"
              "        os.write(2, b'finalized in %d' % os.getpid())\n"
              "garbage = Font(); garbage.self = garbage\n"
              "del garbage\n"                                   # uncollected: a cycle, with the collector off
              "def collect(index):\n    gc.collect()\n    return {'kind': 'returned', 'child': os.getpid()}\n"
              "print(forked.run_forked(collect, 1, 60)[0]['child'])\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    child = int(done.stdout.strip().splitlines()[-1])
    assert f"finalized in {child}" not in done.stderr, done.stderr

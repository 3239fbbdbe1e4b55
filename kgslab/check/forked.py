"""Running the student's function in a forked child that is killed at the time limit.

Why a child.  The old limit was a signal raised inside the student's code, and
code can swallow it: ``while True: try: time.sleep(1) except: pass`` never
ends, and neither does a loop inside C code that never returns to Python.  A
child process can always be stopped: the checker waits for its answers until
the limit and then kills the child's whole process group.  The child is a
fork of the notebook's kernel, so the student's function runs exactly as
written, with everything the notebook defined, and only its answers come
back, one line of plain data per case (`kgslab.check.plain`): nothing it
does in the child (patching the kit, spoiling the records, printing to the
real stdout) reaches the notebook.

Where there is no fork (Windows), `available()` is False and the check runs the
student's function in the kernel with the old soft limit.

A child ends with its parent (`die_with_parent`, Linux).  A child is killed at the
limit by its parent, but a parent killed first (a kernel shut down mid-check, a
grading run stopped with kill) left it running: an endless loop then spun on,
alone, found 14 minutes later at 73% of a core.
"""

from __future__ import annotations

import ctypes
import json
import os
import select
import signal
import time
from typing import Callable

__all__ = ["available", "run_forked", "read_answers", "die_with_parent"]

_PR_SET_PDEATHSIG = 1


def available() -> bool:
    return hasattr(os, "fork") and hasattr(os, "killpg")


def die_with_parent(parent: int) -> None:
    """In a fresh fork of process `parent`: be killed when the parent ends (Linux's PR_SET_PDEATHSIG; elsewhere
    nothing), and leave now if it has already ended."""
    try:
        set_death_signal = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):         # no prctl (macOS): the parent's kill at the limit is all there is
        return
    set_death_signal(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:                # it ended before the request took effect
        os._exit(0)


def _child(write_end: int, call_one: Callable[[int], dict], n_calls: int, parent: int) -> None:
    """In the child: answer each call on one line, then leave without running any clean-up of the parent's."""
    try:
        die_with_parent(parent)
        os.setpgid(0, 0)                      # its own process group: a runaway grandchild is killed with it
        with os.fdopen(write_end, "w", encoding="utf-8") as out:
            for index in range(n_calls):
                answer = call_one(index)
                out.write(json.dumps(answer) + "\n")
                out.flush()
                if answer.get("kind") != "returned":
                    break
    finally:
        os._exit(0)


def read_answers(read_end: int, n_calls: int, budget: float, *, then: float | None = None) -> list[dict]:
    """The child's answers, one JSON line each, read from the file descriptor `read_end`.

    Stops after n_calls answers or the first whose kind is not "returned"; appends ``{"kind": "timeout"}`` when
    `budget` seconds pass without them, ``{"kind": "crashed"}`` when the child closes its end first. With `then`,
    the first line is the child's "ready" message (the grader's child: `kgslab.check.sandbox`): `budget` is the
    time allowed until it, and the answers then get `then` seconds from it.
    """
    answers: list[dict] = []
    pending, ready = b"", then is None
    deadline = time.monotonic() + budget
    while len(answers) < n_calls:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([read_end], [], [], left)[0]:
            answers.append({"kind": "timeout"})
            break
        chunk = os.read(read_end, 1 << 20)
        if not chunk:
            answers.append({"kind": "crashed"})
            break
        pending += chunk
        while b"\n" in pending and len(answers) < n_calls:
            line, pending = pending.split(b"\n", 1)
            message = json.loads(line)
            if not ready:
                ready, deadline = True, time.monotonic() + then
                continue
            answers.append(message)
        if answers and answers[-1].get("kind") != "returned":
            break
    return answers


def run_forked(call_one: Callable[[int], dict], n_calls: int, budget: float) -> list[dict]:
    """call_one(0), ..., call_one(n_calls - 1) in a forked child within `budget` seconds in all.

    Returns the answers received in order, up to the first whose kind is not
    "returned": fewer than n_calls then, or when the child ran out of time (the last entry is then ``{"kind": "timeout"}``) or ended
    without answering (``{"kind": "crashed"}``).
    """
    read_end, write_end = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        _child(write_end, call_one, n_calls, parent)
    os.close(write_end)
    try:
        answers = read_answers(read_end, n_calls, budget)
    finally:
        os.close(read_end)
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        os.waitpid(pid, 0)
    return answers

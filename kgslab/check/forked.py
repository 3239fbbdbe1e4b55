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

A child ends with its parent (`die_with_parent`, Linux): a child is killed at the
limit by its parent, and a parent killed first (a kernel shut down mid-check, a
grading run stopped with kill) must not leave an endless loop spinning on alone.
"""

from __future__ import annotations

import ctypes
import gc
import json
import os
import select
import signal
import time
from typing import Callable

__all__ = ["available", "run_forked", "read_answers", "die_with_parent", "calls", "FallbackError", "keep_only"]

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


def keep_only(*descriptors: int) -> None:
    """In a fresh fork: close every inherited file descriptor but 0-2 and `descriptors` (a kernel's sockets, a
    server's channel), so that nothing the child writes reaches anything but its own pipes.

    The parent's objects are frozen first (`gc.freeze`): garbage the parent had not collected yet (a figure's font
    file, say) is never collected in the child, whose finalizers would close descriptors closed here and print
    "Exception ignored ... Bad file descriptor" under the student's cell, or flush a parent's buffer twice.
    """
    gc.freeze()
    kept = sorted(set(descriptors))
    low = 3
    for descriptor in kept + [None]:
        os.closerange(low, descriptor if descriptor is not None else os.sysconf("SC_OPEN_MAX"))
        if descriptor is not None:
            low = descriptor + 1


def _child(write_end: int, call_one: Callable[[int], dict], n_calls: int, parent: int,
           prepare: Callable[[], None] | None) -> None:
    """In the child: answer each call on one line, then leave without running any clean-up of the parent's."""
    try:
        die_with_parent(parent)
        try:
            os.setpgid(0, 0)                  # its own process group: a runaway grandchild is killed with it
        except PermissionError:               # a graded kernel may not leave its group: the group ends with it
            pass
        with os.fdopen(write_end, "w", encoding="utf-8") as out:
            if prepare is not None:
                prepare()
            for index in range(n_calls):
                answer = call_one(index)
                out.write(json.dumps(answer) + "\n")
                out.flush()
                if answer.get("kind") != "returned":
                    break
    finally:
        os._exit(0)


MAX_LINE = 256 * 2 ** 20
"""Bytes one message from a child may take; a longer one is not read (the child is told off as garbled)."""


def _message(line: bytes) -> dict:
    """One line from the child as a message: a JSON object with a string "kind", else a "garbled" outcome."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        message = None
    if not isinstance(message, dict) or not isinstance(message.get("kind"), str):
        return {"kind": "garbled", "value": line[:80].decode("utf-8", "replace")}
    return message


def read_answers(read_end: int, n_calls: int, budget: float, *, then: float | None = None,
                 serve: Callable[[dict, int], dict] | None = None, reply_end: int | None = None,
                 greeting: dict | None = None) -> list[dict]:
    """The child's answers, one JSON line each, read from the file descriptor `read_end`.

    Stops after n_calls answers or the first whose kind is not "returned"; appends ``{"kind": "timeout"}`` when
    `budget` seconds pass without them, ``{"kind": "crashed"}`` when the child closes its end first, and
    ``{"kind": "garbled"}`` for a line that is no message (the student's code wrote on the channel). With `then`,
    the first line is the child's "ready" message (the grader's child: `kgslab.check.sandbox`; its content goes
    into `greeting`): `budget` is the time allowed until it, and the answers then get `then` seconds from it.
    A message of kind "call" (a fall-back of another exercise, `kgslab.check.fallback`) is answered on `reply_end`
    by serve(message, index of the case running), and the child goes on.
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
        if b"\n" not in pending and len(pending) > MAX_LINE:
            answers.append({"kind": "garbled", "value": "a line of more than 256 MB"})
            break
        while b"\n" in pending and len(answers) < n_calls:
            line, pending = pending.split(b"\n", 1)
            message = _message(line)
            if not ready:
                if message.get("kind") != "ready":
                    answers.append({**message, "kind": "garbled"})
                    break
                ready, deadline = True, time.monotonic() + then
                if greeting is not None:
                    greeting.update(message)
                continue
            if message["kind"] == "call":
                reply = serve(message, len(answers)) if serve is not None else \
                    {"kind": "raised", "value": ["RuntimeError", "no fall-back is served here"]}
                try:
                    os.write(reply_end, (json.dumps(reply) + "\n").encode("utf-8"))
                except (OSError, TypeError):
                    pass
                continue
            answers.append(message)
            if message["kind"] != "returned":
                break
        if answers and answers[-1].get("kind") != "returned":
            break
    return answers


def run_forked(call_one: Callable[[int], dict], n_calls: int, budget: float, *,
               prepare: Callable[[], None] | None = None,
               serve: Callable[[dict, int], dict] | None = None) -> list[dict]:
    """call_one(0), ..., call_one(n_calls - 1) in a forked child within `budget` seconds in all.

    Returns the answers received in order, up to the first whose kind is not
    "returned": fewer than n_calls then, or when the child ran out of time (the last entry is then
    ``{"kind": "timeout"}``) or ended without answering (``{"kind": "crashed"}``).  `prepare` runs in the
    child first (taking the exercise's references out and confining it: `kgslab.check.running`); the child may
    ask `serve` for another exercise's fall-back (`calls`: the child's side).
    """
    read_end, write_end = os.pipe()
    ask_read, ask_write = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:
        keep_only(write_end, ask_read)
        calls.open(write_end, ask_read)
        _child(write_end, call_one, n_calls, parent, prepare)
    os.close(write_end)
    os.close(ask_read)
    try:
        answers = read_answers(read_end, n_calls, budget, serve=serve, reply_end=ask_write)
    finally:
        os.close(read_end)
        os.close(ask_write)
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        os.waitpid(pid, 0)
    return answers


class _Calls:
    """The child's side of the fall-back calls: a message on the answers' channel, the reply on its own pipe.

    A fall-back of another exercise (the kit's code standing in for the student's function that did not pass)
    is computed by the parent, which holds the kit's references; the child, whose references are taken out,
    only asks.  The parent answers only for the exercises it was told stand in (`serve`).
    """

    def __init__(self) -> None:
        self.out = self.replies = None

    def open(self, out_fd: int, reply_fd: int) -> None:
        self.out, self.replies = out_fd, os.fdopen(reply_fd, "rb")

    @property
    def active(self) -> bool:
        return self.out is not None

    def ask(self, key: str, args: tuple, kwargs: dict):
        """The parent's answer to exercise `key`'s reference on (args, kwargs); raises what it raised."""
        from . import plain

        message = {"kind": "call", "key": key, "args": plain.dumps([list(args), dict(kwargs)])}
        os.write(self.out, (json.dumps(message) + "\n").encode("utf-8"))
        line = self.replies.readline()
        reply = json.loads(line) if line else {"kind": "raised", "value": ["RuntimeError", "no reply"]}
        if reply.get("kind") == "returned":
            return plain.loads(reply["value"])
        if reply.get("kind") == "closed":
            from . import closed

            closed.refuse_taken_out(str(reply.get("value")))
        error, text = (reply.get("value") or ["RuntimeError", "the fall-back failed"])[:2]
        raise FallbackError(f"{error}: {text}")


class FallbackError(RuntimeError):
    """The kit's fall-back for another exercise raised (in the parent, which computed it)."""


calls = _Calls()

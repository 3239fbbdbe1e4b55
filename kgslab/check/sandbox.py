"""The grader's child: a fresh Python process that runs one student function on the grading cases.

    python -m kgslab.check.sandbox      (reads one request as JSON on stdin)

Why a fresh process.  The grade must not depend on anything the submission did
in its kernel, and the student's code must not reach the grader: the parent
(`run_sandboxed`, in nbgrader's own process) starts this program with a
scrubbed environment (no NBGRADER_* variables, no course paths), in an empty
temporary directory that is removed afterwards, in a session of its own with
limits on memory and CPU, and kills it at the time limit.  The child defines
the student's program (its definitions only, `kgslab.check.submission`), binds
the names of the notebook's *other* exercises to the kit's references (so one
wrong exercise never costs another), closes the exercise's twins and replaces
its reference by a stub that refuses (this child never needs it, and a stub
holds no original to dig out), and writes one line of plain data per case
(`kgslab.check.plain`).  The parent computes the expected values and compares.

The request: ``{"key", "function", "others": {name: key}, "definitions":
[source, ...], "cases": [{"public": i} | {"args": plain text}], "reseed": int}``.  A public
case is rebuilt here by its index (it is public anyway); a hidden case
crosses as plain data, so the secret it was drawn from never reaches this
process (only the seed derived from it for this student and exercise, under
which hidden cases run: `kgslab.check.hidden`).
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile

from .forked import read_answers

__all__ = ["run_sandboxed"]

STARTUP_LIMIT = 60.0
"""Seconds the child may take to import the kit and define the student's program before its cases start."""

MEMORY_LIMIT = 3 * 2 ** 30
"""Bytes of address space the child may use (numpy and the kit need about 1 GB of it)."""


def _request_cases(exercise, specs):
    from .core import Case
    from . import plain

    public = None
    cases = []
    for spec in specs:
        if "public" in spec:
            public = public if public is not None else exercise.cases()
            cases.append(public[spec["public"]])
        else:
            args, kwargs = plain.loads(spec["args"], kit_objects=True)   # the grader's cases: kit objects allowed
            cases.append(Case(spec.get("label", "a grading case"), tuple(args), dict(kwargs)))
    return cases


def _child_main() -> None:
    request = json.loads(sys.stdin.read())
    out = sys.__stdout__
    from kgslab import check                      # installs every exercise's guards before any student code
    from kgslab.check import core, hidden

    exercise = check.exercises()[request["key"]]
    from kgslab.check import closed

    exercises = check.exercises()
    others = {name: core.reference_fallback(exercises[key].reference, name, key) for name, key in request["others"].items()}
    cases = _request_cases(exercise, request["cases"])
    own = closed.closed_name(exercise.reference)          # the twins stay guarded: other exercises' fall-backs use them
    closed.remove([own] if own and not own.startswith("kgslab.check.") else [], exercise.reference)
    exercise.reference = None                    # this child never needs it: the grader computes expected values
    namespace = {"__name__": "__student__", "__builtins__": __builtins__}
    for statement in request["definitions"]:
        try:
            exec(compile(statement, "<submission>", "exec"), namespace)   # noqa: S102 -- the point of the child
        except BaseException:  # noqa: BLE001 -- a definition that fails is left out, as the kernel would go on
            pass
    namespace.update(others)
    out.write(json.dumps({"kind": "ready"}) + "\n")
    out.flush()
    student = namespace.get(request["function"])
    for spec, case in zip(request["cases"], cases):
        if not callable(student):
            answer = {"kind": "raised", "value": ["NameError", f"no function {request['function']} is defined"],
                      "printed": ""}
            out.write(json.dumps(answer) + "\n")
            out.flush()
            break
        # A hidden case runs with the generators reseeded as when it was drawn, so that a function that seeds
        # its own generator from an argument (seed=3) meets the data the expected value was computed on.
        with hidden.reseeded(request["reseed"]) if "args" in spec else contextlib.nullcontext():
            answer = core.run_one_case(student, case, student, exercise.closed, None)
        out.write(json.dumps(answer) + "\n")
        out.flush()
        if answer["kind"] != "returned":
            break
    os._exit(0)


def _limits() -> None:
    """In the child before it starts: its own session (so the whole group can be killed) and resource limits."""
    os.setsid()
    for limit, value in ((resource.RLIMIT_AS, MEMORY_LIMIT), (resource.RLIMIT_CORE, 0)):
        try:
            resource.setrlimit(limit, (value, value))
        except (ValueError, OSError):
            pass


def _environment(home: str) -> dict:
    """Only what Python, numpy and matplotlib need: no NBGRADER_*, no course paths, no tokens."""
    return {"PATH": "/usr/bin:/bin", "HOME": home, "TMPDIR": home, "LANG": "C.UTF-8", "MPLBACKEND": "Agg",
            "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
            "PYTHONNOUSERSITE": "1", "PYTHONDONTWRITEBYTECODE": "1", "MPLCONFIGDIR": home}


def run_sandboxed(request: dict, time_limit: float) -> list[dict]:
    """Run a request in a fresh child; the outcomes, up to the first that did not return.

    The last outcome is ``{"kind": "timeout"}`` when the cases took longer than
    `time_limit` seconds in all (the child is killed), ``{"kind": "crashed"}``
    when the child ended without answering.
    """
    home = tempfile.mkdtemp(prefix="kgslab-grading-")
    child = subprocess.Popen([sys.executable, "-I", "-m", "kgslab.check.sandbox"], cwd=home, env=_environment(home),
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             preexec_fn=_limits, close_fds=True)
    try:
        child.stdin.write(json.dumps(request).encode("utf-8"))
        child.stdin.close()
        answers = read_answers(child.stdout.fileno(), len(request["cases"]), STARTUP_LIMIT, then=time_limit)
    finally:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        child.wait()
        child.stdout.close()
        shutil.rmtree(home, ignore_errors=True)
    return answers


if __name__ == "__main__":
    _child_main()

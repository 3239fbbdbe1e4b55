"""The grader's child: a fresh Python process that runs one student function on the grading cases.

    python -m kgslab.check.sandbox      (reads one request as JSON on stdin)

Why a fresh process.  The grade must not depend on anything the submission did
in its kernel, and the student's code must not reach the grader: the parent
(`run_sandboxed`, in nbgrader's own process) starts this program with a
scrubbed environment (no NBGRADER_* variables, no course paths), in an empty
temporary directory that is removed afterwards, in a session of its own with
limits on memory and CPU, and kills it at the time limit.  The child defines
the student's program (its definitions only, `kgslab.check.submission`) after
it has taken the exercise's references out and confined itself by the
operating system (`kgslab.check.confine`), binds the names of the notebook's
other exercises that did not pass their own grading to the kit's fall-backs,
which ask the parent for their values (so one wrong exercise never costs
another), and writes one line of plain data per case (`kgslab.check.plain`).
The parent computes the expected values and compares.

The request: ``{"key", "function", "others": {name: key}, "definitions":
[source, ...], "cases": [{"public": i} | {"args": plain text}], "reseed": int,
"syntax_error": text or None}``, one line on the request pipe; later lines
on it answer the child's fall-back calls.  A public
case is rebuilt here by its index (it is public anyway); a hidden case
crosses as plain data, so the secret it was drawn from never reaches this
process (only the seed derived from it for this student and exercise, under
which hidden cases run: `kgslab.check.hidden`).

One import, a fork per exercise.  Starting Python and importing numpy, scipy,
scikit-learn and the kit costs more than most exercises' cases.  So the parent
starts one *fork server* per `session()` (the grader opens one per submission),
which never runs student code and only forks.  Each request gets its own fork
of that clean process (copy-on-write: nothing one child does reaches the server
or a later child), which starts its own session, takes the limits, closes every
descriptor but its two pipes, moves into its own empty temporary folder, draws
fresh random seeds (a fresh interpreter would), takes the exercise's references
out and confines itself (`running.take_out_and_confine`) before the student's
definitions run.  Outside a session, `run_sandboxed` opens one for its single
request.

One import per grading process, too.  The servers themselves are forks of a
*zygote*: a fresh ``python -I -m kgslab.check.sandbox --zygote`` with the
scrubbed environment, started by the parent (nbgrader's process) at its first
server and kept while the parent lives.  It imports the kit and `PRELOADED`
(what every notebook's set-up cell imports, pyplot's font list among them),
then only forks servers.  Nothing ever runs in it but that, so each server
starts from the state a fresh import gives.  A zygote that has gone is started
again.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import json
import os
import random
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from .forked import die_with_parent, keep_only, read_answers

__all__ = ["run_sandboxed", "session"]

STARTUP_LIMIT = 60.0
"""Seconds the fork server may take to import the kit, and a child to define the student's program."""

MEMORY_LIMIT = 3 * 2 ** 30
"""Bytes of address space the child may use (numpy and the kit need about 1 GB of it)."""

FILE_SIZE_LIMIT = 64 * 2 ** 20
"""Bytes one file the child writes (in its own folder, the only place it may) may grow to."""

PRELOADED = ("matplotlib.pyplot", "kgslab.widgets")
"""Modules the zygote imports after the kit, before any student code exists: the set-up cells' other imports."""


def _request_cases(exercise, specs):
    from .cases import Case
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


def _child_main(request_fd: int = 0, answers_fd: int = 1) -> None:
    """One request, read as the first line of `request_fd`; one line of plain data per case on `answers_fd`.

    The request's exercise loses its references (and the outside packages that do its work) and the process is
    confined (`running.take_out_and_confine`) before any of the student's code runs; the other exercises that did
    not pass their own grading (`request["others"]`) are the kit's fall-backs, which ask the parent for their
    values on the same channel (`forked.calls`).
    """
    from kgslab import check                      # imported by the server, before any student code
    from kgslab.check import fallback, forked, hidden, running

    forked.calls.open(answers_fd, request_fd)
    out = os.fdopen(answers_fd, "w", encoding="utf-8", closefd=False)
    request = json.loads(forked.calls.replies.readline())
    exercises = check.exercises()
    exercise = exercises[request["key"]]
    others = {name: fallback.reference_fallback(exercises[key]._reference, name, key)
              for name, key in request["others"].items()}
    cases = _request_cases(exercise, request["cases"])
    closed = exercise._closed
    confinement = running.take_out_and_confine(closed, exercise.key, os.getcwd())
    exercise._reference = None                    # this child never needs it: the grader computes expected values
    out.write(json.dumps({"kind": "ready", "confinement": confinement}) + "\n")
    out.flush()
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    for statement in request["definitions"]:
        try:
            exec(compile(statement, "<submission>", "exec"), namespace)   # noqa: S102 -- the point of the child
        except BaseException:  # noqa: BLE001 -- a definition that fails is left out, as the kernel would go on
            pass
    namespace.update(others)
    student = namespace.get(request["function"])
    for spec, case in zip(request["cases"], cases):
        if not callable(student):
            problem = request.get("syntax_error")
            value = ["SyntaxError", problem] if problem else \
                ["NameError", f"no function {request['function']} is defined"]
            answer = {"kind": "raised", "value": value, "printed": ""}
            out.write(json.dumps(answer) + "\n")
            out.flush()
            break
        # A hidden case runs with the generators reseeded as when it was drawn, so that a function that seeds
        # its own generator from an argument (seed=3) meets the data the expected value was computed on.
        with hidden.reseeded(request["reseed"]) if "args" in spec else contextlib.nullcontext():
            answer = running.run_one_case(student, case, student, closed, None)
        out.write(json.dumps(answer) + "\n")
        out.flush()
        if answer["kind"] != "returned":
            break
    os._exit(0)


def _limits() -> None:
    """In the child before it starts: its own session (so the whole group can be killed) and resource limits."""
    os.setsid()
    for limit, value in ((resource.RLIMIT_AS, MEMORY_LIMIT), (resource.RLIMIT_CORE, 0),
                         (resource.RLIMIT_FSIZE, FILE_SIZE_LIMIT)):
        try:
            resource.setrlimit(limit, (value, value))
        except (ValueError, OSError):
            pass


def _environment(home: str) -> dict:
    """Only what Python, numpy and matplotlib need: no NBGRADER_*, no course paths, no tokens."""
    return {"PATH": "/usr/bin:/bin", "HOME": home, "TMPDIR": home, "LANG": "C.UTF-8", "MPLBACKEND": "Agg",
            "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
            "PYTHONNOUSERSITE": "1", "PYTHONDONTWRITEBYTECODE": "1", "MPLCONFIGDIR": home}


# ---------------------------------------------------------------------------
# The messages between the parent and the server: one JSON object a line on a Unix socket; a fork order carries
# the child's two pipe ends (its stdin and stdout) as passed file descriptors.
# ---------------------------------------------------------------------------
def _send(channel: socket.socket, message: dict, fds=()) -> None:
    data = (json.dumps(message) + "\n").encode("utf-8")
    if fds:
        socket.send_fds(channel, [data], list(fds))
    else:
        channel.sendall(data)


def _receive(channel: socket.socket, *, with_fds: bool = False):
    """One message (and the descriptors that came with it); None when the other side has gone."""
    data, fds = b"", []
    while not data.endswith(b"\n"):
        if with_fds:
            chunk, more, _, _ = socket.recv_fds(channel, 1 << 16, 2)
            fds += more
        else:
            chunk = channel.recv(1 << 16)
        if not chunk:
            for fd in fds:
                os.close(fd)
            return (None, []) if with_fds else None
        data += chunk
    message = json.loads(data)
    return (message, fds) if with_fds else message


def _ask(channel: socket.socket, message: dict, fds=()):
    """The other side's reply to one message; None when it has gone."""
    try:
        _send(channel, message, fds)
        return _receive(channel)
    except (OSError, ValueError):
        return None


def _greeted(channel: socket.socket, kind: str) -> bool:
    """Whether a process just started says `kind` on `channel` within STARTUP_LIMIT (it has imported what it needs)."""
    channel.settimeout(STARTUP_LIMIT)
    try:
        return _receive(channel) == {"kind": kind}
    except (OSError, ValueError):
        return False


def _zygote(fd: int) -> None:
    """The zygote: import the kit once, then fork one fork server per order until the parent closes the channel."""
    channel = socket.socket(fileno=fd)
    from kgslab import check                      # numpy, scipy, scikit-learn, the kit, every exercise's guards

    check.exercises()
    for module in PRELOADED:                      # third-party and kit modules only: no student code exists yet
        importlib.import_module(module)
    signal.signal(signal.SIGCHLD, _collect_servers)
    _send(channel, {"kind": "ready"})
    while True:
        order, fds = _receive(channel, with_fds=True)
        if order is None:
            os._exit(0)
        _fork_for(channel, order, fds, _forked_server, "spawned")


def _fork_for(channel: socket.socket, order: dict, fds: list, become, replied: str) -> None:
    """Fork; the fork leaves the channel and becomes become(order's home, *fds); the parent replies with its pid.

    become is called with the forking process's pid first (a child may tie its life to it: `die_with_parent`).
    """
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:
        channel.close()
        become(parent, order["home"], *fds)
    for descriptor in fds:
        os.close(descriptor)
    _send(channel, {"kind": replied, "pid": pid})


def _collect_servers(signum, frame) -> None:
    """The zygote collects each server as it ends (waited for, so that its CPU time counts as the parent's)."""
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass


def _forked_server(zygote: int, home: str, fd: int) -> None:
    """In a fork of the zygote: become what a fresh server was (own session, folder, environment), then serve.

    It outlives the zygote (its session goes on); it ends when its parent closes the channel.
    """
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)   # this server collects its own children (the reap order)
        os.setsid()
        os.chdir(home)
        os.environ.update(_environment(home))
        tempfile.tempdir = None
        _serve(socket.socket(fileno=fd))
    finally:
        os._exit(0)


def _serve(channel: socket.socket) -> None:
    """The fork server: fork one child per order until the parent closes the channel."""
    _send(channel, {"kind": "serving"})
    while True:
        order, fds = _receive(channel, with_fds=True)
        if order is None:
            os._exit(0)
        if order["kind"] == "reap":             # the parent killed the child's group: collect it
            with contextlib.suppress(ChildProcessError):
                os.waitpid(order["pid"], 0)
            _send(channel, {"kind": "reaped"})
            continue
        _fork_for(channel, order, fds, _forked_child, "forked")


def _forked_child(server: int, home: str, request_fd: int, answers_fd: int) -> None:
    """In a fork of the server: become what a fresh child was (own session, limits, folder, seeds), then run.

    It ends with its server: a grading process killed mid-request closes the server's channel, and the child
    must not run on.
    """
    try:
        die_with_parent(server)
        _limits()
        keep_only(request_fd, answers_fd)
        null = os.open(os.devnull, os.O_RDWR)
        for standard in (0, 1, 2):               # what the student's code writes on them reaches no one
            os.dup2(null, standard)
        os.close(null)
        os.chdir(home)
        os.environ.update(_environment(home))
        tempfile.tempdir = None                  # tempfile reads TMPDIR again
        import numpy as np

        np.random.seed()                         # fresh entropy, as a fresh interpreter's legacy generator has
        random.seed()
        _child_main(request_fd, answers_fd)
    finally:
        os._exit(0)


def _could_not_start() -> RuntimeError:
    return RuntimeError("kgslab's grading child could not import the kit: try "
                        f"`{sys.executable} -I -c 'import kgslab.check'` in this environment")


class _Zygote:
    """The parent's handle on its zygote: started at the first server asked for, kept while this process lives."""

    def __init__(self) -> None:
        self.process = None
        self.owner = None
        self.lock = threading.Lock()             # one order at a time on the channel, whichever thread sends it

    def _start(self) -> None:
        self.home = tempfile.mkdtemp(prefix="kgslab-grading-")
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-m", "kgslab.check.sandbox", "--zygote", str(theirs.fileno())], cwd=self.home,
            env=_environment(self.home), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, pass_fds=(theirs.fileno(),), start_new_session=True, close_fds=True)
        self.owner = os.getpid()
        theirs.close()
        self.channel = ours
        if not _greeted(self.channel, "ready"):
            self.close()
            raise _could_not_start()

    def spawn(self, home: str, channel_fd: int) -> int:
        """The pid of a new fork server in `home`, talking on `channel_fd` (a new zygote if this one has gone)."""
        with self.lock:
            return self._spawn(home, channel_fd)

    def _spawn(self, home: str, channel_fd: int) -> int:
        if self.owner != os.getpid():            # a fork of the parent: the zygote is its parent's, not its own
            self.process = None
        for attempt in range(2):
            if self.process is None:
                self._start()
            reply = _ask(self.channel, {"kind": "spawn", "home": home}, (channel_fd,))
            if reply is not None:
                return reply["pid"]
            self.close()
        raise _could_not_start()

    def close(self) -> None:
        if self.process is None or self.owner != os.getpid():
            return
        self.channel.close()                     # the zygote reads the end of its channel and leaves
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self.process = None
        shutil.rmtree(self.home, ignore_errors=True)


_ZYGOTE = _Zygote()
atexit.register(_ZYGOTE.close)


def _wait_gone(pid: int, seconds: float) -> bool:
    """Whether process `pid` (not ours to wait for: the zygote's child) has gone within `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            os.kill(pid, 0)                      # no signal: only whether it exists (the zygote collects it)
        except ProcessLookupError:
            return True
        except PermissionError:                  # the number went to another user's process: ours has gone
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)


class _ForkServer:
    """The parent's handle on one fork server: started at its first order, a child per request, then stopped."""

    def __init__(self) -> None:
        self.pid = None

    def _start(self) -> None:
        self.home = tempfile.mkdtemp(prefix="kgslab-grading-")
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.pid = _ZYGOTE.spawn(self.home, theirs.fileno())
        except RuntimeError:
            shutil.rmtree(self.home, ignore_errors=True)
            raise
        finally:
            theirs.close()
        self.channel = ours
        if not _greeted(self.channel, "serving"):
            self.close()
            raise _could_not_start()

    def fork(self, home: str, request_fd: int, answers_fd: int) -> int:
        """The pid of a new child reading `request_fd` and writing `answers_fd` (a new server if a child killed it)."""
        if self.pid is None:
            self._start()
        reply = _ask(self.channel, {"kind": "fork", "home": home}, (request_fd, answers_fd))
        if reply is None:
            self.close()
            self._start()
            reply = _ask(self.channel, {"kind": "fork", "home": home}, (request_fd, answers_fd))
        if reply is None:
            raise RuntimeError("kgslab's grading fork server stopped answering")
        return reply["pid"]

    def reap(self, pid: int) -> None:
        if self.pid is not None:
            _ask(self.channel, {"kind": "reap", "pid": pid})

    def close(self) -> None:
        if self.pid is None:
            return
        self.channel.close()                     # the server reads the end of its channel and leaves
        if not _wait_gone(self.pid, 5):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)
            _wait_gone(self.pid, 5)
        self.pid = None
        shutil.rmtree(self.home, ignore_errors=True)


class _Sessions(threading.local):
    """Each thread's open sessions, innermost last (a Dask worker may grade a submission in each of its threads)."""

    def __init__(self) -> None:
        self.servers: list[_ForkServer] = []


_SESSIONS = _Sessions()


@contextlib.contextmanager
def session():
    """One fork server for the requests made inside (a fork of the zygote), each request still gets a clean child.

    The grader opens one per submission, so nothing of one student's run can touch another's.
    """
    server = _ForkServer()
    _SESSIONS.servers.append(server)
    try:
        yield
    finally:
        _SESSIONS.servers.remove(server)
        server.close()


def _kill(pid: int) -> None:
    """The child's whole group, and the child itself in case it was killed before its setsid()."""
    for kill, target in ((os.killpg, pid), (os.kill, pid)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            kill(target, signal.SIGKILL)


def run_sandboxed(request: dict, time_limit: float, *, serve=None, greeting: dict | None = None) -> list[dict]:
    """Run a request in a fresh child; the outcomes, up to the first that did not return.

    The last outcome is ``{"kind": "timeout"}`` when the cases took longer than
    `time_limit` seconds in all (the child is killed), ``{"kind": "crashed"}``
    when the child ended without answering, ``{"kind": "garbled"}`` when it wrote
    something that is no message.  The child is a fork of the current
    `session()`'s server (outside a session: of a server started for this request).
    `serve(message, case index)` answers the child's fall-back calls
    (`forked.read_answers`); `greeting` receives the child's "ready" message,
    which says which defences hold (`confine`).
    """
    if not _SESSIONS.servers:
        with session():
            return run_sandboxed(request, time_limit, serve=serve, greeting=greeting)
    home = tempfile.mkdtemp(prefix="kgslab-grading-")
    request_read, request_write = os.pipe()
    answers_read, answers_write = os.pipe()
    try:
        pid = _SESSIONS.servers[-1].fork(home, request_read, answers_write)
    finally:
        os.close(request_read)
        os.close(answers_write)
    try:
        try:
            data = (json.dumps(request) + "\n").encode("utf-8")
            while data:
                data = data[os.write(request_write, data):]
        except BrokenPipeError:
            pass
        answers = read_answers(answers_read, len(request["cases"]), STARTUP_LIMIT, then=time_limit, serve=serve,
                               reply_end=request_write, greeting=greeting)
    finally:
        _kill(pid)
        _SESSIONS.servers[-1].reap(pid)
        os.close(answers_read)
        os.close(request_write)
        shutil.rmtree(home, ignore_errors=True)
    return answers


if __name__ == "__main__":
    if sys.argv[1:2] == ["--zygote"]:
        _zygote(int(sys.argv[2]))
    else:
        _child_main()

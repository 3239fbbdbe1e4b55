"""What the operating system stops in a confined process (kgslab.check.confine), tried as a student's code would.

Every test confines a fork of the test process (confining is for the rest of a process's life) and reports
back what each attempt did.  docs/grading.md's table of defences is these tests.
"""

import ctypes
import json
import os
import signal
import socket
import sys

import pytest

import kgslab
import kgslab.check  # noqa: F401 -- the kit loaded, as in the grader's child
from kgslab import regression
from kgslab.check import closed, confine

pytestmark = pytest.mark.skipif(not confine.probe()["landlock_abi"] or not confine.probe()["seccomp"],
                                reason="needs Linux with Landlock and the kit's seccomp filter (x86-64, arm64)")


def _in_confined_fork(attempts, *, home=None, hidden=(), kernel=False, take_out=(), packages=()):
    """{name: "allowed: ..." | "refused: ErrorType"} for each attempt, run in a fork confined first."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_end)
            if take_out or packages:
                hidden = list(hidden) + closed.take_out(take_out, packages)
            if kernel:
                state = confine.confine_kernel(home, readable=[], ports=[])
            else:
                state = confine.confine(home, hidden=list(hidden))
            results = {"_state": state.as_dict()}
            for name, attempt in attempts.items():
                try:
                    results[name] = f"allowed: {attempt()!r}"[:200]
                except BaseException as error:  # noqa: BLE001
                    results[name] = f"refused: {type(error).__name__}"
            os.write(write_end, json.dumps(results).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    data = b""
    while chunk := os.read(read_end, 1 << 16):
        data += chunk
    os.close(read_end)
    os.waitpid(pid, 0)
    return json.loads(data)


def _ptrace_attach(pid):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.restype = ctypes.c_long
    if libc.ptrace(ctypes.c_long(16), ctypes.c_long(pid), None, None) == -1:      # PTRACE_ATTACH
        raise OSError(ctypes.get_errno(), "ptrace")
    return "attached"


def _refused(results, *names):
    return [name for name in names if not results[name].startswith("refused")]


def _allowed(results, *names):
    return [name for name in names if not results[name].startswith("allowed")]


def test_a_confined_child_reads_writes_and_starts_only_what_grading_needs(tmp_path):
    import subprocess

    secret = tmp_path / "course" / "nbgrader_config.py"
    secret.parent.mkdir()
    secret.write_text('c.GradeOutsideKernel.secret = "s3cret"\n')
    home = tmp_path / "home"
    home.mkdir()
    parent = os.getpid()
    results = _in_confined_fork({
        "fork": os.fork,
        "run a program": lambda: subprocess.run(["true"]),
        "a socket": lambda: socket.socket(),
        "a pair of sockets": lambda: socket.socketpair(),
        "signal the parent": lambda: os.kill(parent, 0),
        "signal every process": lambda: os.kill(-1, 0),
        "signal itself": lambda: os.kill(os.getpid(), 0),
        "trace the parent": lambda: _ptrace_attach(parent),
        "read the course": lambda: secret.read_text(),
        "list the course": lambda: os.listdir(secret.parent),
        "read the parent's environment": lambda: open(f"/proc/{parent}/environ").read(),
        "read the solutions": lambda: open(os.path.join(os.path.dirname(os.path.dirname(kgslab.__file__)),
                                                        "solutions", "01_duality.ipynb")).read(),
        "read a loaded kit module": lambda: open(regression.__file__).read(),
        "run a loaded kit module again": lambda: __import__("runpy").run_module("kgslab.regression"),
        "write outside its folder": lambda: open(tmp_path / "planted", "w").write("x"),
        "write in its folder": lambda: open(home / "scratch", "w").write("x"),
        "import a module not loaded yet": lambda: __import__("xml.dom.minidom"),
        "start a thread": lambda: __import__("threading").Thread(target=lambda: None).start(),
        "read its own status": lambda: open("/proc/self/status").read()[:10],
        "read the kit's data": lambda: sorted(os.listdir(kgslab._resources.kit_folder("data")))[:1],
    }, home=str(home))
    assert results["_state"] == {"filesystem": "on", "processes": "on", "signals": "on", "network": "on"}
    assert _refused(results, "fork", "run a program", "a socket", "a pair of sockets", "signal the parent",
                    "signal every process", "trace the parent", "read the course", "list the course",
                    "read the parent's environment", "read a loaded kit module", "run a loaded kit module again",
                    "write outside its folder") == []
    if (tmp_path.parent / "solutions").exists() or os.path.exists(os.path.join(
            os.path.dirname(os.path.dirname(kgslab.__file__)), "solutions")):
        assert _refused(results, "read the solutions") == []
    assert _allowed(results, "signal itself", "write in its folder", "import a module not loaded yet",
                    "start a thread", "read its own status", "read the kit's data") == [], results
    assert not (tmp_path / "planted").exists()


def test_taken_out_references_run_by_no_route():
    import gc
    import inspect

    original = closed._ORIGINALS[id(regression.ridge)]
    X, y = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [1.0, 2.0, 3.0]
    results = _in_confined_fork({
        "by its name": lambda: regression.ridge(X, y, 0.1),
        "from the interpreter's objects": lambda: next(
            f for f in gc.get_objects() if getattr(f, "__qualname__", "") == "ridge"
            and getattr(f, "__module__", "") == "kgslab.regression" and not hasattr(f, "_kgslab_closed_name"))(
            X, y, 0.1),
        "from the guard's closure": lambda: inspect.getclosurevars(regression.ridge).nonlocals["original"](X, y, 0.1),
        "held before": lambda: original(X, y, 0.1),
        "an open function": lambda: float(regression.mse([1.0, 2.0], [1.0, 2.5])),
    }, take_out=["kgslab.regression.ridge"])
    assert _refused(results, "by its name", "from the interpreter's objects", "from the guard's closure",
                    "held before") == [], results
    assert all("ClosedReference" in results[name] for name in ("by its name", "held before")), results
    assert results["an open function"] == "allowed: 0.125"


def test_an_outside_package_that_does_the_work_is_taken_out_loaded_or_not():
    import sklearn.linear_model  # noqa: F401 -- loaded here: in the child its functions lose their code

    results = _in_confined_fork({
        "a loaded one": lambda: sklearn.linear_model.Ridge(alpha=1.0).fit([[0.0], [1.0]], [0.0, 1.0]),
        "one loaded or not": lambda: __import__("sklearn.discriminant_analysis", fromlist=["x"])
        .LinearDiscriminantAnalysis().fit([[0.0], [1.0], [0.1], [0.9]], [0, 1, 0, 1]),
        "another package": lambda: __import__("scipy.linalg", fromlist=["solve"]).solve([[2.0]], [4.0]).tolist(),
    }, packages=["sklearn.linear_model", "sklearn.discriminant_analysis"])
    assert _refused(results, "a loaded one", "one loaded or not") == [], results
    assert "ClosedReference" in results["a loaded one"] and results["another package"] == "allowed: [2.0]"


def test_a_graded_kernel_may_fork_but_not_run_programs_leave_its_group_or_signal_outside(tmp_path):
    import subprocess

    parent = os.getpid()
    home = tmp_path / "home"
    home.mkdir()

    def forked_child_ends():
        pid = os.fork()
        if pid == 0:
            os._exit(7)
        return os.waitpid(pid, 0)[1] >> 8

    results = _in_confined_fork({
        "fork": forked_child_ends,
        "run a program": lambda: subprocess.run(["true"]),
        "leave its process group": os.setsid,
        "signal the parent": lambda: os.kill(parent, 0),
        "write outside its folder": lambda: open(tmp_path / "planted", "w").write("x"),
        "connect to a port": lambda: socket.create_connection(("127.0.0.1", 9), timeout=1),
        "bind a port not its own": lambda: socket.socket().bind(("127.0.0.1", 9)),
    }, home=str(home), kernel=True)
    assert results["fork"] == "allowed: 7"
    assert _refused(results, "run a program", "leave its process group", "signal the parent",
                    "write outside its folder", "connect to a port", "bind a port not its own") == [], results


def test_a_missing_defence_is_said(monkeypatch):
    monkeypatch.setattr(confine, "_landlock_abi", lambda: 0)
    results = _in_confined_fork({"fork": os.fork})
    assert results["_state"]["filesystem"].startswith("off: this kernel has no Landlock")
    assert results["_state"]["processes"] == "on" and results["fork"].startswith("refused")
    state = confine.Confinement(filesystem="off: no Landlock", processes="on", signals="on", network="on")
    assert state.missing() == ["filesystem: no Landlock"]


def test_signals_a_child_may_not_send_do_not_reach_the_parent():
    received = []
    previous = signal.signal(signal.SIGUSR1, lambda *a: received.append(1))
    try:
        parent = os.getpid()
        _in_confined_fork({"signal": lambda: os.kill(parent, signal.SIGUSR1)})
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert received == []

"""The kernel nbgrader runs a submission in while it grades: an IPython kernel, confined before it starts.

    python -m kgslab.check.graded_kernel --home FOLDER -f CONNECTION_FILE

nbgrader runs every cell of a submission in a kernel (kgslab keeps its outputs for the instructor to read; the
grade is decided outside it, `kgslab.grader`).  That kernel runs the student's code as the grader's user, so it
is confined first (`confine.confine_kernel`): it reads Python's folders, the kit, its notebook's folder and its
connection file and nothing else of the course (sources, other submissions, gradebook, the config and its
secret); writes only in its own FOLDER; binds and connects only its own ports; runs no program; signals nothing
outside itself and what it forks; writes no file over `sandbox.FILE_SIZE_LIMIT`; and cannot leave its process group, so the grader ends everything it started
by killing that group (`kgslab.grader.ExecuteAndCarryOn`).  Its environment keeps what Python, the plots and the
checks need (NBGRADER_EXECUTION among them), not the grader's tokens.
"""

from __future__ import annotations

import json
import os
import sys

_KEPT = ("PATH", "LANG", "LC_ALL", "NBGRADER_EXECUTION", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
         "MKL_NUM_THREADS", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "NUMBA_CACHE_DIR", "KGSLAB_FULL", "MPLBACKEND",
         "PYTHONHASHSEED", "TZ", "IPYTHONDIR")


def main(argv: list[str]) -> None:
    home = argv[argv.index("--home") + 1]
    connection_file = argv[argv.index("-f") + 1]
    with open(connection_file, encoding="utf-8") as stream:
        info = json.load(stream)
    ports = [int(info[name]) for name in ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")
             if name in info]
    kept = {name: os.environ[name] for name in _KEPT if name in os.environ}
    os.environ.clear()
    os.environ.update(kept, HOME=home, TMPDIR=home, MPLCONFIGDIR=home, JUPYTER_RUNTIME_DIR=home)
    import resource

    from kgslab.check import confine, sandbox

    resource.setrlimit(resource.RLIMIT_FSIZE, (sandbox.FILE_SIZE_LIMIT, sandbox.FILE_SIZE_LIMIT))

    readable = [os.getcwd(), connection_file] + ([kept["IPYTHONDIR"]] if "IPYTHONDIR" in kept else [])
    state = confine.confine_kernel(home, readable=readable, ports=ports)
    os.environ["KGSLAB_CONFINEMENT"] = json.dumps(state.as_dict())
    from ipykernel import kernelapp

    kernelapp.launch_new_instance(argv=["-f", connection_file])


if __name__ == "__main__":
    main(sys.argv[1:])

"""Every notebook run top to bottom on one core: wall time and peak kernel memory against the budget
(``make bench-notebooks``).

    python benchmarks/notebooks.py [--cells] [--out benchmarks/notebooks.md] [names...]

Each student copy in notebooks/ is run blank (every exercise left as handed out) and each solution in
solutions/ as stored, with nbclient, in a fresh kernel pinned to one core (this process pins itself with
``os.sched_setaffinity`` before it starts the kernel, which inherits it) with one BLAS/OpenMP thread. The
budget is a seat of a course's JupyterHub: 30 s and 512 MB of kernel memory per notebook.

Memory is the kernel's resident set (RSS), read from /proc (Linux; psutil is not a dependency of the kit):
polled every 0.2 s, and the kernel's own high-water mark (VmHWM), which the kernel reports exactly and a poll
can miss. With ``--cells`` the high-water mark is reset before each cell (``/proc/<pid>/clear_refs``) and each
cell's own peak and time are printed: where a notebook's memory goes.

Time: the cells' wall time (kernel start-up excluded) and the kernel's CPU time. On a loaded machine the wall
time grows (the kernel waits for its core) and the CPU time does not: the table states the load average.
The table is written to benchmarks/notebooks.md (committed); it is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import datetime
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
BUDGET_SECONDS = 30.0
BUDGET_MB = 512.0
POLL_SECONDS = 0.2
LOADED = 1.5   # 1-minute load average above which a run counts as under load (the run itself adds about 1)
ONE_THREAD = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                                       "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")}


def status_mb(pid: int, field: str) -> float:
    """A memory field of /proc/<pid>/status (VmRSS, VmHWM) in MB (10^6 bytes); 0 once the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024 / 1e6
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0.0


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of the process (/proc/<pid>/stat fields 14 and 15)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (FileNotFoundError, ProcessLookupError):
        return 0.0


def reset_peak(pid: int) -> None:
    """Reset the kernel's VmHWM to its current RSS (Linux >= 4.0), so the next read is one cell's peak."""
    with open(f"/proc/{pid}/clear_refs", "w") as clear:
        clear.write("5")


class Poller(threading.Thread):
    """The largest RSS of `pid` seen by polling every POLL_SECONDS."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.peak, self.stop = pid, 0.0, threading.Event()

    def run(self):
        while not self.stop.is_set():
            self.peak = max(self.peak, status_mb(self.pid, "VmRSS"))
            self.stop.wait(POLL_SECONDS)


def kernel_pid(client: NotebookClient) -> int:
    provisioner = getattr(client.km, "provisioner", None)
    process = getattr(provisioner, "process", None) or getattr(client.km, "kernel", None)
    return process.pid


def run_notebook(path: Path, per_cell: bool = False, timeout: int = 600) -> dict:
    """Execute one notebook in a fresh kernel; its wall and CPU time and peak memory (and per cell, if asked)."""
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    cells = []
    with client.setup_kernel():
        pid = kernel_pid(client)
        start_mb, start_cpu = status_mb(pid, "VmRSS"), cpu_seconds(pid)
        poller = Poller(pid)
        poller.start()
        started = time.perf_counter()
        for index, cell in enumerate(notebook.cells):
            if cell.cell_type != "code":
                continue
            if per_cell:
                reset_peak(pid)
            cell_started = time.perf_counter()
            client.execute_cell(cell, index)
            if per_cell:
                cells.append((cell.get("id", str(index)), time.perf_counter() - cell_started,
                              status_mb(pid, "VmHWM"), status_mb(pid, "VmRSS")))
        wall = time.perf_counter() - started
        poller.stop.set()
        poller.join()
        high_water = status_mb(pid, "VmHWM")
        cpu = cpu_seconds(pid) - start_cpu
    peak = max(poller.peak, high_water) if not per_cell else max([poller.peak] + [c[2] for c in cells])
    return dict(wall=wall, cpu=cpu, polled=poller.peak, peak=peak, start=start_mb, cells=cells)


def load_average() -> float:
    return os.getloadavg()[0]


def git_commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cells", action="store_true", help="print each cell's own peak memory and time")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "notebooks.md"),
                        help="where to write the table (default benchmarks/notebooks.md; '' for none)")
    parser.add_argument("--cpu", type=int, default=0, help="the core to pin to (default 0)")
    parser.add_argument("--only", choices=("notebooks", "solutions"), help="only the student copies or the solutions")
    parser.add_argument("names", nargs="*", help="only notebooks whose name contains one of these (e.g. 08)")
    args = parser.parse_args(argv)

    os.environ.update(ONE_THREAD)   # the kernel inherits the environment and the affinity
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})
    runs = [(kind, path) for kind, folder in (("student copy, blank", "notebooks"), ("solution", "solutions"))
            for path in sorted((ROOT / folder).glob("[0-9][0-9]_*.ipynb"))
            if (not args.names or any(name in path.name for name in args.names))
            and args.only in (None, folder)]

    loads = [load_average()]
    rows = []
    header = f"| {'notebook':<28} | {'run':<19} | {'wall s':>6} | {'CPU s':>6} | {'peak MB':>7} | {'polled MB':>9} | budget |"
    print(header)
    for kind, path in runs:
        load_before = load_average()
        result = run_notebook(path, per_cell=args.cells)
        loads.append(load_average())
        # on a loaded machine the kernel waits for its core: its CPU time is then the time it would take alone
        loaded_row = max(load_before, loads[-1]) > LOADED
        seconds = result["cpu"] if loaded_row else result["wall"]
        within = seconds <= BUDGET_SECONDS and result["peak"] <= BUDGET_MB
        verdict = ("ok" if within else "OVER") + ("*" if loaded_row else "")
        row = (f"| {path.stem:<28} | {kind:<19} | {result['wall']:>6.1f} | {result['cpu']:>6.1f} | "
               f"{result['peak']:>7.0f} | {result['polled']:>9.0f} | {verdict:<6} |")
        rows.append((row, within))
        print(row, flush=True)
        for cell_id, seconds, peak, rss in result["cells"]:
            print(f"    cell {cell_id:<10} {seconds:7.2f} s  peak {peak:6.0f} MB  after {rss:6.0f} MB", flush=True)

    loaded = max(loads) > LOADED
    lines = [
        "# Notebooks on one core: time and peak kernel memory",
        "",
        f"Made by `make bench-notebooks` (benchmarks/notebooks.py) on {datetime.date.today()} at commit "
        f"{git_commit()}, {os.cpu_count()} cores, Python {sys.version.split()[0]}. Each notebook ran top to bottom "
        f"with nbclient in a fresh kernel pinned to core {args.cpu} with one BLAS thread. Budget: "
        f"{BUDGET_SECONDS:.0f} s and {BUDGET_MB:.0f} MB (10^6 bytes) per notebook.",
        "",
        "peak MB: the kernel's resident-set high-water mark (VmHWM); polled MB: the largest RSS seen polling every "
        f"{POLL_SECONDS} s. wall s: the cells (kernel start-up excluded); CPU s: the kernel's user + system time.",
        "",
        ("**Measured under load**" if loaded else "Measured on a quiet machine") +
        f": 1-minute load average {min(loads):.1f}-{max(loads):.1f} during the run "
        "(this run itself adds about 1)" + (": the wall times are inflated (the CPU times are not). A budget "
                                             "verdict marked * judges the time by the CPU time (the load average "
                                             f"was above {LOADED} during that run)." if loaded else "."),
        "",
        header,
        "| " + " | ".join("-" * n for n in (28, 19)) + " | " + " | ".join("-" * n for n in (6, 6, 7, 9)) + ":| :----: |",
    ] + [row for row, _ in rows]
    failed = [row for row, within in rows if not within]
    summary = f"{len(rows) - len(failed)} of {len(rows)} runs within the budget"
    lines += ["", summary]
    print(summary)
    if args.out and not args.names and not args.only:
        Path(args.out).write_text("\n".join(lines) + "\n")
        print("wrote", args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

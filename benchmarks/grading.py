"""Grading a class: serial nbgrader autograde against ``python -m kgslab.grade --jobs 2`` (``make bench-grading``).

    python benchmarks/grading.py [--students 40] [--jobs 2] [--rounds 1]

Builds the synthetic class of tests/grading_class.py (01: blank, solved, late,
the typical wrong variants, an exception, a cheat; the endless loop left out,
so that one submission's hard stop does not dominate the timing) up to
--students submissions, in one course (a class is graded at once: the workers'
start-up and the gradebook merge are paid once per run, as they are for a real
class).  The same submissions are graded by one ``nbgrader autograde
01_duality`` (serial: one process, one submission after another) and by
``python -m kgslab.grade --jobs N`` in a copy of the course.  On a machine
whose load drifts, --rounds R splits the class into R courses graded in
alternation, so that the drift favours neither (each round then pays the
start-up again, which lowers the speed-up).  Prints both totals, the
speed-up (goal: >= 1.8 with 2 jobs on 2 cores) and the projected time for
200 students x 10 notebooks, taking every notebook to grade like 01 (the
issue measured about 90 s per student for all ten notebooks against 4-7 s
for 01, so multiply by about 1.6 for the real ten).  Timings depend on the
machine and its load: compare the two columns, not the seconds with another run.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _timed(command: list[str], cwd: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the command and every process it waited for: workers, kernels, children)."""
    started, cpu = time.perf_counter(), _cpu()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{(done.stdout + done.stderr)[-3000:]}")
    return time.perf_counter() - started, _cpu() - cpu


def main(argv=None) -> int:
    from grading_class import STEM, class_notebooks, make_course, submit_class

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="kgslab-bench-grading-"))
    try:
        template = folder / "template"
        source, released = make_course(template)
        notebooks = {k: v for k, v in class_notebooks(source, released).items() if k != "endless_loop"}
        names = list(notebooks)
        per_round = [args.students // args.rounds + (r < args.students % args.rounds) for r in range(args.rounds)]
        serial_total = parallel_total = serial_cpu = parallel_cpu = 0.0
        start = 0
        for number, count in enumerate(per_round, start=1):
            chosen = {}
            for index in range(start, start + count):
                chosen[f"{names[index % len(names)]}_{index}"] = notebooks[names[index % len(names)]]
            start += count
            serial, parallel = folder / f"serial{number}", folder / f"parallel{number}"
            shutil.copytree(template, serial)
            submit_class(serial, chosen)
            shutil.copytree(serial, parallel)
            seconds_serial, cpu = _timed([sys.executable, "-m", "nbgrader", "autograde", STEM, "--create",
                                          "--force"], serial)
            serial_cpu += cpu
            seconds_parallel, cpu = _timed([sys.executable, "-m", "kgslab.grade", str(parallel), STEM, "--jobs",
                                            str(args.jobs), "--quiet"], ROOT)
            parallel_cpu += cpu
            serial_total += seconds_serial
            parallel_total += seconds_parallel
            print(f"round {number}: {count} submissions: serial {seconds_serial:.0f} s, --jobs {args.jobs} "
                  f"{seconds_parallel:.0f} s", flush=True)
        n = sum(per_round)
        speedup = serial_total / parallel_total
        print(f"{n} submissions of {STEM}: serial nbgrader autograde {serial_total:.0f} s "
              f"({serial_total / n:.1f} s each), python -m kgslab.grade --jobs {args.jobs} {parallel_total:.0f} s "
              f"({parallel_total / n:.1f} s each): speed-up {speedup:.2f}x (goal >= 1.8x)")
        print(f"CPU seconds per submission (the process trees, waited for): serial {serial_cpu / n:.1f}, "
              f"--jobs {args.jobs} {parallel_cpu / n:.1f}; on {args.jobs} idle cores that allows a speed-up of "
              f"about {args.jobs * serial_cpu / parallel_cpu:.2f}x (a bound, when the wall clock is loaded)")
        hours = lambda seconds: f"{seconds / 3600:.1f} h"  # noqa: E731
        print(f"200 students x 10 notebooks, each notebook grading like {STEM}: serial "
              f"{hours(2000 * serial_total / n)}, --jobs {args.jobs} {hours(2000 * parallel_total / n)} "
              f"(the ten real notebooks take about 1.6x longer than ten of {STEM})")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

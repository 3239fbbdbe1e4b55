"""Build an nbgrader course directory from solutions/ (``make assignments``).

    python -m kgslab.assignments [COURSE_DIR] [--only 01,07]

writes COURSE_DIR (default ``course/``) with

* ``source/NN_topic/NN_topic.ipynb``: each solution notebook as an nbgrader
  source (its grading metadata, points and locked test cells come from
  ``python -m kgslab.release --tag``), without its ``solution-only`` cells
  (worked answers' follow-ups), which nbgrader would otherwise copy into the
  students' release; the instructor reads them in solutions/;
* ``nbgrader_config.py``: the course id, the solution stubs the kit uses, a
  cell time-out long enough for the paper-sized cells (the checks stop an
  endless loop in a student's function long before it), kgslab's grading
  preprocessors (`kgslab.grader`: the grade is decided outside the student's
  kernel) and the course's secret for the hidden grading cases (kept when the
  course is rebuilt; the file is made readable by its owner only).

Data are found through the installed kgslab package, so nothing else is
copied.  Then, from COURSE_DIR: ``nbgrader generate_assignment 01_duality``,
release, collect, ``nbgrader autograde 01_duality``, ``nbgrader formgrader``,
``nbgrader export`` (README, "For instructors").
"""

from __future__ import annotations

import argparse
import re
import secrets
import sys
from pathlib import Path

import nbformat

from .release import SOLUTIONS, ReleaseError, _sources, drop_solution_only, read_notebook, release_notebook

COURSE_ID = "kgslab"
CELL_TIMEOUT = 600

CONFIG = '''# nbgrader configuration written by python -m kgslab.assignments
c = get_config()  # noqa: F821
c.CourseDirectory.course_id = "{course_id}"
# The stubs kgslab's own release writes, so student copies look the same either way.
c.ClearSolutions.code_stub = {{"python": "# YOUR CODE HERE\\nraise NotImplementedError()"}}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
# Some paper-sized cells take tens of seconds; each check limits a student's function on its own.
c.Execute.timeout = {timeout}
# A deleted test cell comes back (and scores from the grader's verdict), not "needs manual grade";
# kgslab.grader.RestoreDeletedCells puts it back after its check cell (nbgrader 0.9's own placement fails there).
c.OverwriteCells.add_missing_cells = True
c.Autograde.sanitize_preprocessors = [
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "kgslab.grader.RestoreDeletedCells",
    "nbgrader.preprocessors.CheckCellMetadata",
]
# The grade is decided outside the student's kernel (kgslab.grader): after the notebook runs, each graded
# function is run again in a fresh, scrubbed child process on public and secret cases, and the test cell's
# outcome is written from that verdict; the instructor's comments flag code that reached for the grade.
c.Autograde.autograde_preprocessors = [
    "kgslab.grader.ExecuteAndCarryOn",
    "kgslab.grader.GradeOutsideKernel",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "kgslab.grader.FlagsForTheInstructor",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]
# The secret the hidden grading cases are drawn from. It stays in this course directory: never release it.
c.GradeOutsideKernel.secret = "{secret}"
'''

_SECRET_LINE = re.compile(r'^c\.GradeOutsideKernel\.secret = "([0-9a-f]+)"$', re.MULTILINE)


def _course_secret(config: Path) -> str:
    """The secret of an existing course (so rebuilding keeps its hidden cases), else a new one."""
    if config.exists():
        found = _SECRET_LINE.search(config.read_text(encoding="utf-8"))
        if found:
            return found.group(1)
    return secrets.token_hex(32)


def build_course(course_dir: Path, solutions_dir: Path = SOLUTIONS, only: list[str] | None = None) -> list[str]:
    """Write the course directory; return the assignment names (one per notebook).

    Every notebook is validated as the release validates it before anything is
    written, so a solution that would leak stops the build.
    """
    sources = [path for path in _sources(solutions_dir)
               if not only or any(path.stem.startswith(prefix) for prefix in only)]
    if not sources:
        raise ReleaseError(f"no solution notebook in {solutions_dir} starts with {', '.join(only or [])}")
    for path in sources:
        notebook = read_notebook(path)
        notebook.metadata.setdefault("kgslab", {})["name"] = path.stem
        release_notebook(notebook)                     # raises on anything that could publish a solution
    course_dir.mkdir(parents=True, exist_ok=True)
    config = course_dir / "nbgrader_config.py"
    config.write_text(CONFIG.format(course_id=COURSE_ID, timeout=CELL_TIMEOUT, secret=_course_secret(config)),
                      encoding="utf-8")
    config.chmod(0o600)                                # the secret: readable by the instructor only
    for path in sources:
        target = course_dir / "source" / path.stem
        target.mkdir(parents=True, exist_ok=True)
        notebook = read_notebook(path)
        drop_solution_only(notebook, path.stem)
        nbformat.write(notebook, target / path.name)
    return [path.stem for path in sources]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kgslab.assignments", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("course_dir", nargs="?", default="course", help="where to write (default: course/)")
    parser.add_argument("--only", default="", help="comma-separated notebook prefixes, e.g. 01,07")
    args = parser.parse_args(argv)
    try:
        names = build_course(Path(args.course_dir), only=[p for p in args.only.split(",") if p] or None)
    except ReleaseError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"wrote {args.course_dir}/ with {len(names)} assignments: {', '.join(names)}")
    print(f"next: cd {args.course_dir} && nbgrader generate_assignment {names[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

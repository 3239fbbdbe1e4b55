"""Write the student notebooks (notebooks/) from the solutions (solutions/).

    python -m kgslab.release            # write notebooks/NN_*.ipynb from solutions/NN_*.ipynb
    python -m kgslab.release --check    # exit 1, naming them, when notebooks/ is stale or edited
    python -m kgslab.release --force    # overwrite student notebooks even with outputs or edits (backup kept)
    python -m kgslab.release --tag      # apply the grading layout (`kgslab.grading_layout`) to solutions/

What a release does to each solution notebook (the markers and the cell
metadata are nbgrader's, so an instructor can feed solutions/ to nbgrader as they are):

* in a code cell, every region from a line containing ``BEGIN SOLUTION`` to
  the next line containing ``END SOLUTION`` (nbgrader's rule; we write
  ``### BEGIN SOLUTION``) becomes ``# YOUR CODE HERE`` and
  ``raise NotImplementedError()``, at the indentation of the BEGIN line;
* in a markdown cell, such a region becomes ``YOUR ANSWER HERE``;
* ``BEGIN HIDDEN TESTS`` ... ``END HIDDEN TESTS`` regions are removed;
* a cell tagged ``solution-only`` (cell metadata ``"tags": ["solution-only"]``)
  is removed whole: the worked answer's follow-up, the experiment that
  confirms a written answer (the student copy must read well without it);
* every output and execution count is cleared, and the notebook's stored
  widget state is dropped.

Anything that could publish a solution is an error naming notebook and cell,
and no notebook is written until all have been validated: an END without a
BEGIN, a marker-like line nbgrader would not recognise (``# begin solution``,
``###BEGIN  SOLUTION``), a cell tagged as an nbgrader solution without markers.

The output is deterministic: the same solutions give byte-identical notebooks.
Each student notebook records a hash of its released cells, so a later release
can tell a student's edits from a stale copy and refuses to overwrite edits or
outputs unless told ``--force``.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import re
import shutil
import sys
from pathlib import Path

import nbformat

from ._notebook_files import (NOTEBOOKS, SOLUTIONS, ReleaseError, has_solution, marker, read_notebook, render,
                              solution_sources)
from ._notebook_files import BEGIN_WORDS, END_WORDS  # noqa: F401  (the marker words, for the student-copy tests)
from ._resources import backup_path
from ._validation import as_bool, as_path
from .grading_layout import nbgrader_metadata, tag


BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
CODE_STUB = ("# YOUR CODE HERE", "raise NotImplementedError()")
MARKDOWN_STUB = ("YOUR ANSWER HERE",)
CELL_TYPES = ("code", "markdown")   # the cells whose solutions are stripped (raw cells are copied as they are)

# A line that looks like a marker but is not one for nbgrader (other case, missing or doubled space) would
# leave a solution in the student copy: it is an error.
_MARKER_LIKE = re.compile(r"(begin|end)[\s_-]*(solution|hidden[\s_-]*tests?)", re.IGNORECASE)


def strip_solutions(source: str, cell_type: str, where: str = "cell") -> str:
    """Replace every BEGIN/END SOLUTION region of one cell's source by the stub; drop hidden tests.

    Marker lines are recognised as nbgrader recognises them: any line
    containing ``BEGIN SOLUTION`` (``END SOLUTION``), whatever comes before or
    after.  ``BEGIN HIDDEN TESTS`` ... ``END HIDDEN TESTS`` regions are removed
    without a stub.  Broken or marker-like lines raise ReleaseError naming `where`.

    cell_type is "code" (stub: CODE_STUB) or "markdown" (stub: MARKDOWN_STUB), as in the notebook's cell;
    anything else is refused rather than given a stub that might not suit it.
    """
    if not isinstance(source, str):
        raise TypeError(f"source must be a cell's source text (a str), got {type(source).__name__}")
    if not isinstance(cell_type, str) or cell_type not in CELL_TYPES:
        raise ValueError(f"cell_type must be one of {CELL_TYPES}, got {cell_type!r}")
    if not isinstance(where, str):
        raise TypeError(f"where must be a str naming the cell in messages, got {where!r}")
    stub = CODE_STUB if cell_type == "code" else MARKDOWN_STUB
    kept: list[str] = []
    inside = None                       # None, "solution" or "hidden"
    for number, line in enumerate(source.split("\n"), start=1):
        kind = marker(line)
        at = f"{where}, line {number}"
        if kind is None and _MARKER_LIKE.search(line):
            raise ReleaseError(f"{at}: {line.strip()!r} looks like a marker but is not one for nbgrader "
                               f"(write '{BEGIN}' / '{END}' exactly, upper case, one space)")
        if kind in ("begin", "begin hidden"):
            if inside:
                raise ReleaseError(f"{at}: a second BEGIN before the END of the region opened earlier")
            inside = "solution" if kind == "begin" else "hidden"
            if inside == "solution":
                indent = line[: len(line) - len(line.lstrip())]
                kept.extend(indent + text for text in stub)
        elif kind in ("end", "end hidden"):
            wanted = "solution" if kind == "end" else "hidden"
            if inside != wanted:
                raise ReleaseError(f"{at}: '{line.strip()}' without a matching BEGIN")
            inside = None
        elif not inside:
            kept.append(line)
    if inside:
        raise ReleaseError(f"{where}: a BEGIN {'SOLUTION' if inside == 'solution' else 'HIDDEN TESTS'} "
                           f"is never closed by its END")
    return "\n".join(kept)


SOLUTION_ONLY = "solution-only"
"""The cell tag of a cell that exists only in the solution notebook (dropped from every student copy)."""


def is_solution_only(cell) -> bool:
    """True for a cell tagged ``solution-only``."""
    return SOLUTION_ONLY in cell.get("metadata", {}).get("tags", [])


def drop_solution_only(notebook, where: str = "notebook") -> None:
    """Remove the ``solution-only`` cells of `notebook` in place.

    A graded cell (an nbgrader test or task) cannot be solution-only: the
    student copy and nbgrader's must have the same graded cells.
    """
    for index, cell in enumerate(notebook.cells):
        info = cell.get("metadata", {}).get("nbgrader", {})
        if is_solution_only(cell) and (info.get("grade") or info.get("task")):
            raise ReleaseError(f"{where}, cell {index + 1} (id {cell.get('id', '?')}): tagged "
                               f"'{SOLUTION_ONLY}' but graded; a graded cell must reach the student copy")
    notebook.cells = [cell for cell in notebook.cells if not is_solution_only(cell)]


def _has_markers(cell) -> bool:
    return cell.cell_type in ("code", "markdown") and any(marker(line) for line in cell.source.split("\n"))


def _tagged_solution(cell) -> bool:
    return bool(cell.metadata.get("nbgrader", {}).get("solution"))


# ---- the student copy ------------------------------------------------------------------------------

def cells_hash(notebook) -> str:
    """A hash of the cells' types and sources: what a student can edit."""
    digest = hashlib.sha256()
    for cell in notebook.cells:
        digest.update(json.dumps([cell.cell_type, cell.source]).encode("utf-8"))
    return digest.hexdigest()[:16]


def clear_outputs(notebook) -> None:
    """Remove what running the notebook left in it, in place: every output and execution count, run-time
    cell metadata, and the saved widget state (the solution's slider values and numbers).

    Both the student copies and the course's nbgrader sources (kgslab.assignments) go through here, so
    neither carries a solution's results."""
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        # Run-time metadata (timings, scroll state) would make releases differ run to run.
        for key in ("execution", "scrolled", "collapsed", "ExecuteTime"):
            cell.metadata.pop(key, None)
    notebook.metadata.pop("widgets", None)


def release_notebook(solution) -> nbformat.NotebookNode:
    """The student copy of one solution notebook (a new object; the input is untouched).

    Raises ReleaseError, naming the notebook and the cell, for anything that
    could publish a solution: broken or marker-like lines, and a cell tagged
    as an nbgrader solution that has no markers.
    """
    student = copy.deepcopy(solution)
    stem = student.metadata.get("kgslab", {}).get("name", "notebook")
    drop_solution_only(student, stem)
    for index, cell in enumerate(student.cells):
        where = f"{stem}, cell {index + 1} (id {cell.get('id', '?')})"
        if _tagged_solution(cell) and not has_solution(cell):
            raise ReleaseError(f"{where}: tagged as an nbgrader solution cell but has no "
                               f"'{BEGIN}' / '{END}' lines; its whole content would reach the student copy")
        if cell.cell_type in ("code", "markdown"):
            had_solution = has_solution(cell)
            stripped = strip_solutions(cell.source, cell.cell_type, where)   # also validates marker-free cells
            if _has_markers(cell):
                cell.source = stripped
            if had_solution and "nbgrader" not in cell.metadata:
                cell.metadata["nbgrader"] = nbgrader_metadata(f"{stem}-{cell.get('id', index)}", solution=True)
    clear_outputs(student)
    student.metadata["kgslab"] = {"role": "student copy, written by python -m kgslab.release",
                                  "release_hash": cells_hash(student)}
    return student


def student_state(path: Path) -> str | None:
    """Why an existing student notebook must not be overwritten, or None when it may be."""
    path = as_path(path, "path")
    try:
        notebook = read_notebook(path)
    except ReleaseError:
        return "it is not a readable notebook (a student's broken copy?)"
    if any(cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"):
        return "it has outputs (it has been run)"
    recorded = notebook.metadata.get("kgslab", {}).get("release_hash")
    if recorded is None or recorded != cells_hash(notebook):
        return "it has been edited since it was released"
    return None


def plan(solutions_dir: Path = SOLUTIONS, notebooks_dir: Path = NOTEBOOKS):
    """(solution path, student path, fresh text) for every solution notebook, in order.

    Every notebook is read and validated before the list is returned, so a
    broken one stops the release before anything is written.
    """
    solutions_dir, notebooks_dir = as_path(solutions_dir, "solutions_dir"), as_path(notebooks_dir, "notebooks_dir")
    planned = []
    for source in solution_sources(solutions_dir):
        solution = read_notebook(source)
        solution.metadata.setdefault("kgslab", {})["name"] = source.stem
        student = release_notebook(solution)
        planned.append((source, notebooks_dir / source.name, render(student)))
    return planned


def check(solutions_dir: Path = SOLUTIONS, notebooks_dir: Path = NOTEBOOKS) -> list[str]:
    """The problems that make notebooks/ differ from a fresh release (empty when up to date).

    A copy that differs is "stale" when it is still as released (a fresh
    release will update it) and "edited by a student" when it has outputs or
    edits (a release refuses it without --force).
    """
    solutions_dir, notebooks_dir = as_path(solutions_dir, "solutions_dir"), as_path(notebooks_dir, "notebooks_dir")
    problems = []
    expected = set()
    for _, target, text in plan(solutions_dir, notebooks_dir):
        expected.add(target.name)
        shown = target.relative_to(notebooks_dir.parent)
        if not target.exists():
            problems.append(f"{shown} is missing")
        elif target.read_text(encoding="utf-8") != text:
            reason = student_state(target)
            if reason:
                problems.append(f"{shown} was edited by a student: {reason}; a release keeps it unless --force "
                                f"(which keeps a backup)")
            else:
                problems.append(f"{shown} is stale (differs from a fresh release)")
    for orphan in sorted(notebooks_dir.glob("[0-9][0-9]_*.ipynb")):
        if orphan.name not in expected:
            problems.append(f"{orphan.relative_to(notebooks_dir.parent)} has no solution notebook")
    return problems


def release(solutions_dir: Path = SOLUTIONS, notebooks_dir: Path = NOTEBOOKS, force: bool = False) -> int:
    """Write the student notebooks; return the number of notebooks refused.

    All notebooks are validated first (nothing is written when one is broken);
    with `force`, a student's copy is kept as NN_name.backup-1.ipynb (then
    -2, -3, ...) before it is overwritten.
    """
    solutions_dir, notebooks_dir = as_path(solutions_dir, "solutions_dir"), as_path(notebooks_dir, "notebooks_dir")
    force = as_bool(force, "force")
    planned = plan(solutions_dir, notebooks_dir)
    notebooks_dir.mkdir(exist_ok=True)
    refused = 0
    for _, target, text in planned:
        if target.exists():
            if target.read_text(encoding="utf-8") == text:
                continue
            reason = student_state(target)
            if reason and not force:
                print(f"refused: {target.name}: {reason}; use --force to overwrite it (a backup is kept)",
                      file=sys.stderr)
                refused += 1
                continue
            if reason:
                backup = backup_path(target)
                shutil.copy2(target, backup)
                print(f"kept {target.name} ({reason}) as {backup.name}")
        target.write_text(text, encoding="utf-8")
        print(f"wrote {target.relative_to(notebooks_dir.parent)}")
    return refused


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kgslab.release", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="report stale notebooks, write nothing")
    parser.add_argument("--force", action="store_true", help="overwrite notebooks with outputs or edits")
    parser.add_argument("--tag", action="store_true", help="add nbgrader metadata to solution cells")
    args = parser.parse_args(argv)
    try:
        if args.tag:
            tag(SOLUTIONS)
        if args.check:
            problems = check(SOLUTIONS, NOTEBOOKS)
            for problem in problems:
                print(problem, file=sys.stderr)
            if problems:
                print("run `make notebooks` (python -m kgslab.release) to regenerate them", file=sys.stderr)
            return 1 if problems else 0
        return 1 if release(SOLUTIONS, NOTEBOOKS, force=args.force) else 0
    except ReleaseError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())

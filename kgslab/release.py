"""Write the student notebooks (notebooks/) from the solutions (solutions/).

    python -m kgslab.release            # write notebooks/NN_*.ipynb from solutions/NN_*.ipynb
    python -m kgslab.release --check    # exit 1, naming them, when notebooks/ is stale or edited
    python -m kgslab.release --force    # overwrite student notebooks even with outputs or edits (backup kept)
    python -m kgslab.release --tag      # apply the grading layout (nbgrader metadata, points, tests) to solutions/

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

from ._resources import backup_path, kit_folder
from ._validation import as_bool, as_path, as_scalar

# In a clone installed editable these are the repository's solutions/ and notebooks/ folders;
# from a wheel, the copies inside the installed package (kgslab/_resources.py).
SOLUTIONS = kit_folder("solutions")
NOTEBOOKS = kit_folder("notebooks")
ROOT = SOLUTIONS.parent  # the clone's root in an editable install

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
CODE_STUB = ("# YOUR CODE HERE", "raise NotImplementedError()")
MARKDOWN_STUB = ("YOUR ANSWER HERE",)

# nbgrader's own rule: any line containing these words (exact case) is a marker.
BEGIN_WORDS, END_WORDS = "BEGIN SOLUTION", "END SOLUTION"
BEGIN_HIDDEN, END_HIDDEN = "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"
# A line that looks like a marker but is not one for nbgrader (other case, missing or doubled space) would
# leave a solution in the student copy: it is an error.
_MARKER_LIKE = re.compile(r"(begin|end)[\s_-]*(solution|hidden[\s_-]*tests?)", re.IGNORECASE)


class ReleaseError(ValueError):
    """A solution notebook that cannot be released as it is (e.g. an unclosed marker)."""


def _marker(line: str) -> str | None:
    """'begin', 'end', 'begin hidden', 'end hidden' for a marker line (nbgrader's rule), else None."""
    if BEGIN_HIDDEN in line:
        return "begin hidden"
    if END_HIDDEN in line:
        return "end hidden"
    if BEGIN_WORDS in line:
        return "begin"
    if END_WORDS in line:
        return "end"
    return None


def strip_solutions(source: str, cell_type: str, where: str = "cell") -> str:
    """Replace every BEGIN/END SOLUTION region of one cell's source by the stub; drop hidden tests.

    Marker lines are recognised as nbgrader recognises them: any line
    containing ``BEGIN SOLUTION`` (``END SOLUTION``), whatever comes before or
    after.  ``BEGIN HIDDEN TESTS`` ... ``END HIDDEN TESTS`` regions are removed
    without a stub.  Broken or marker-like lines raise ReleaseError naming `where`.
    """
    stub = CODE_STUB if cell_type == "code" else MARKDOWN_STUB
    kept: list[str] = []
    inside = None                       # None, "solution" or "hidden"
    for number, line in enumerate(source.split("\n"), start=1):
        marker = _marker(line)
        at = f"{where}, line {number}"
        if marker is None and _MARKER_LIKE.search(line):
            raise ReleaseError(f"{at}: {line.strip()!r} looks like a marker but is not one for nbgrader "
                               f"(write '{BEGIN}' / '{END}' exactly, upper case, one space)")
        if marker in ("begin", "begin hidden"):
            if inside:
                raise ReleaseError(f"{at}: a second BEGIN before the END of the region opened earlier")
            inside = "solution" if marker == "begin" else "hidden"
            if inside == "solution":
                indent = line[: len(line) - len(line.lstrip())]
                kept.extend(indent + text for text in stub)
        elif marker in ("end", "end hidden"):
            wanted = "solution" if marker == "end" else "hidden"
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


def has_solution(cell) -> bool:
    """True for a cell with a solution region (nbgrader's marker rule: a line containing BEGIN SOLUTION)."""
    return cell.cell_type in ("code", "markdown") and any(
        _marker(line) in ("begin", "end") for line in cell.source.split("\n"))


def _has_markers(cell) -> bool:
    return cell.cell_type in ("code", "markdown") and any(_marker(line) for line in cell.source.split("\n"))


def _tagged_solution(cell) -> bool:
    return bool(cell.metadata.get("nbgrader", {}).get("solution"))


# ---- grading metadata (python -m kgslab.release --tag) ----------------------------------------------

WRITTEN_POINTS = 2
"""Points of a written answer (a markdown solution cell, graded by hand) unless its cell says otherwise."""

# Names the checks had before the one naming scheme; --tag rewrites them in check cells (e.g. after a merge).
_GRADE_ID = re.compile(r"[A-Za-z0-9_-]+")
_CHECK_CELL = re.compile(r"^\s*(\w+)\s*=\s*check\.(\w+)\(\s*(\w+)\s*\)\s*$")


def nbgrader_metadata(grade_id: str, *, solution=False, grade=False, locked=False, points=None) -> dict:
    """nbgrader's cell metadata (schema 3).

    nbgrader stores what it is given: a grade id with a space or points of NaN, -1 or "2" would reach the
    gradebook and break grading later, so they are refused here, naming the argument.
    """
    if not isinstance(grade_id, str) or not _GRADE_ID.fullmatch(grade_id):
        raise ValueError(f"grade_id must be letters, digits, '-' or '_' (nbgrader's cell names), got {grade_id!r}")
    solution, grade, locked = (as_bool(solution, "solution"), as_bool(grade, "grade"), as_bool(locked, "locked"))
    if grade:
        if points is None:
            raise ValueError("points must be given for a graded cell (grade=True), got None")
        as_scalar(points, "points", low=0.0)   # stored as given: 2 stays 2 in the notebook
    elif points is not None:
        raise ValueError(f"points belong to graded cells only (grade=True), got points={points!r} with grade=False")
    metadata = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3,
                "solution": solution, "task": False}
    if grade:
        metadata["points"] = points
    return metadata


def _check_call(cell):
    """(name, exercise key, argument) of a check cell, else None.

    A check cell starts with ``name = check.nbNN_exercise_X(name)``; a line or two that use the result may
    follow (the cell is locked all the same).
    """
    if cell.cell_type != "code":
        return None
    match = _CHECK_CELL.match(cell.source.split("\n", 1)[0])
    return match.groups() if match else None


def _test_source(exercise, function_name: str) -> str:
    return (f"# Autograded test, {exercise.points} point{'s' if exercise.points != 1 else ''}: {exercise.title}.\n"
            f"# It passes only on your own {function_name} (the check above records it); silent while it passes.\n"
            f"check.{exercise.key}.grade()")


def _points_text(autograded: list, written: list) -> str:
    auto, manual = sum(points for _, points in autograded), sum(written)
    lines = [f"**Points: {auto + manual}** ({auto} autograded, {manual} graded by hand). Each autograded test is "
             f"the locked cell after a check; its points go only to your own function passing that check."]
    lines += [f"- {title}: {points}" for title, points in autograded]
    if written:
        lines.append(f"- written answers: {len(written)} \u00d7 {written[0]}" if len(set(written)) == 1
                     else f"- written answers: {' + '.join(map(str, written))}")
    return "\n".join(lines)


def tag_notebook(notebook, stem: str) -> bool:
    """Apply the grading layout to one solution notebook in place; return True when anything changed.

    Idempotent: solution code cells get nbgrader solution metadata; written
    answers become manually graded answers with points; check cells are
    locked and renamed to the one naming scheme; after each check a locked
    autograded test cell (``check.<key>.grade()``) carries the exercise's
    points; a locked markdown cell after the title states the points.
    """
    from . import check as checks

    before = render(notebook)
    exercises = checks.exercises()
    cells = notebook.cells
    # The test and points cells are made afresh below (their check may be gone): drop the old ones.
    cells[:] = [cell for cell in cells if cell.metadata.get("kgslab_role") not in ("test", "points")]
    autograded, written, result = [], [], []
    for index, cell in enumerate(cells):
        cell_id = cell.get("id", f"cell{index}")
        result.append(cell)
        previous = cell.metadata.get("nbgrader", {})
        grade_id = previous.get("grade_id") or f"{stem}-{cell_id}"
        call = _check_call(cell)
        if has_solution(cell) and cell.cell_type == "code":
            cell.metadata["nbgrader"] = nbgrader_metadata(grade_id, solution=True)
        elif has_solution(cell):
            points = previous.get("points") if previous.get("grade") else WRITTEN_POINTS
            cell.metadata["nbgrader"] = nbgrader_metadata(grade_id, solution=True, grade=True, points=points)
            written.append(points)
        elif call and call[1] in exercises:
            name, key, argument = call
            exercise = exercises[key]
            cell.metadata["nbgrader"] = nbgrader_metadata(grade_id, locked=True)
            test = nbformat.v4.new_code_cell(_test_source(exercise, argument))
            test["id"] = f"{cell_id}-test"
            test.metadata["kgslab_role"] = "test"
            test.metadata["nbgrader"] = nbgrader_metadata(f"{stem}-{key}", grade=True, locked=True,
                                                          points=exercise.points)
            result.append(test)
            autograded.append((exercise.title, exercise.points))
        elif call:
            raise ReleaseError(f"{stem}, cell {index + 1}: check.{call[1]} is not a check of kgslab.check")
        elif cell.cell_type == "code" and re.search(r"\bcheck\.nb\d\d_exercise_\w+\(", cell.source):
            raise ReleaseError(f"{stem}, cell {index + 1}: a check must be the first line of its cell, "
                               f"`name = check.nbNN_exercise_X(name)`, to get its graded test")
    points = nbformat.v4.new_markdown_cell(_points_text(autograded, written))
    points["id"] = "points"
    points.metadata["kgslab_role"] = "points"
    points.metadata["nbgrader"] = nbgrader_metadata(f"{stem}-points", locked=True)
    result.insert(1, points)
    cells[:] = result
    return render(notebook) != before


def tag_solution_cells(notebook, stem: str) -> int:
    """Backward-compatible name: apply the grading layout; 1 when the notebook changed, else 0."""
    return int(tag_notebook(notebook, stem))


def notebook_points(notebook) -> tuple[float, float]:
    """(autograded, manually graded) points of a tagged notebook."""
    auto = manual = 0.0
    for cell in notebook.cells:
        grading = cell.metadata.get("nbgrader", {})
        if grading.get("grade"):
            if cell.cell_type == "code":
                auto += grading["points"]
            else:
                manual += grading["points"]
    return auto, manual


# ---- the student copy ------------------------------------------------------------------------------

def cells_hash(notebook) -> str:
    """A hash of the cells' types and sources: what a student can edit."""
    digest = hashlib.sha256()
    for cell in notebook.cells:
        digest.update(json.dumps([cell.cell_type, cell.source]).encode("utf-8"))
    return digest.hexdigest()[:16]


def clear_outputs(notebook) -> None:
    """Remove what running the notebook left in it, in place: every output and execution count, run-time
    cell metadata, and the saved widget state (the solution's slider values and numbers, 300 KB in 08).

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


def render(notebook) -> str:
    """The notebook as text, exactly as it is written to disk."""
    text = nbformat.writes(notebook, version=4)
    return text if text.endswith("\n") else text + "\n"


def read_notebook(path: Path):
    """Read a notebook; a file that is not one gives a one-line ReleaseError naming it."""
    path = as_path(path, "path")
    try:
        return nbformat.read(path, as_version=4)
    except Exception as err:  # JSON errors, validation errors, unreadable files: all named the same way
        reason = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise ReleaseError(f"{path}: not a readable notebook ({type(err).__name__}: {reason[:150]})") from None


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


def solution_sources(solutions_dir: Path) -> list[Path]:
    sources = sorted(solutions_dir.glob("[0-9][0-9]_*.ipynb"))
    if not sources:
        raise ReleaseError(f"no solution notebooks (NN_name.ipynb) in {solutions_dir}")
    return sources


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


def tag(solutions_dir: Path = SOLUTIONS) -> None:
    """Apply the grading layout to every solution notebook (idempotent; see tag_notebook)."""
    solutions_dir = as_path(solutions_dir, "solutions_dir")
    for source in solution_sources(solutions_dir):
        notebook = read_notebook(source)
        if tag_notebook(notebook, source.stem):
            source.write_text(render(notebook), encoding="utf-8")
            print(f"tagged {source.relative_to(solutions_dir.parent)}")


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

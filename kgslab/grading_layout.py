"""The grading layout of the solution notebooks (``python -m kgslab.release --tag``).

nbgrader grades a notebook by its cells' metadata.  Tagging a solution notebook, in place and idempotently:

* a code cell with a solution region gets nbgrader's solution metadata;
* a written answer (a markdown cell with a solution region) becomes a manually graded answer with points
  (`WRITTEN_POINTS` unless its cell says otherwise);
* a check cell (``name = check.nbNN_exercise_X(name)``) is locked, and after it comes a locked autograded
  test cell, ``check.<key>.grade()``, carrying the exercise's points;
* a locked markdown cell after the title states the notebook's points.

The release (`kgslab.release`) then strips the solutions; the course (`kgslab.assignments`) hands the tagged
notebooks to nbgrader.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from ._notebook_files import SOLUTIONS, ReleaseError, has_solution, read_notebook, render, solution_sources
from ._validation import as_bool, as_path, as_scalar

WRITTEN_POINTS = 2
"""Points of a written answer (a markdown solution cell, graded by hand) unless its cell says otherwise."""

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
    locked; after each check a locked
    autograded test cell (``check.<key>.grade()``) carries the exercise's
    points; a locked markdown cell after the title states the points.
    """
    from . import check as checks   # the checks load the whole kit: only when tagging

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


def tag(solutions_dir: Path = SOLUTIONS) -> None:
    """Apply the grading layout to every solution notebook (idempotent; see tag_notebook)."""
    solutions_dir = as_path(solutions_dir, "solutions_dir")
    for source in solution_sources(solutions_dir):
        notebook = read_notebook(source)
        if tag_notebook(notebook, source.stem):
            source.write_text(render(notebook), encoding="utf-8")
            print(f"tagged {source.relative_to(solutions_dir.parent)}")

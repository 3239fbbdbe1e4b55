"""Write the student notebooks (notebooks/) from the solutions (solutions/).

    python -m kgslab.release            # write notebooks/NN_*.ipynb from solutions/NN_*.ipynb
    python -m kgslab.release --check    # exit 1, naming them, when notebooks/ is stale
    python -m kgslab.release --force    # overwrite student notebooks even with outputs or edits
    python -m kgslab.release --tag      # add nbgrader metadata to the solution cells of solutions/

What a release does to each solution notebook (the markers and the cell
metadata are nbgrader's, so an instructor can also feed solutions/ to nbgrader):

* in a code cell, every region from a ``### BEGIN SOLUTION`` line to the next
  ``### END SOLUTION`` line becomes ``# YOUR CODE HERE`` and
  ``raise NotImplementedError()``, at the indentation of the BEGIN line;
* in a markdown cell, such a region becomes ``YOUR ANSWER HERE``;
* every output and execution count is cleared, and the notebook's stored
  widget state is dropped.

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
import sys
from pathlib import Path

import nbformat

from ._resources import kit_folder

# In a clone installed editable these are the repository's solutions/ and notebooks/ folders;
# from a wheel, the copies inside the installed package (kgslab/_resources.py).
SOLUTIONS = kit_folder("solutions")
NOTEBOOKS = kit_folder("notebooks")

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
CODE_STUB = ("# YOUR CODE HERE", "raise NotImplementedError()")
MARKDOWN_STUB = ("YOUR ANSWER HERE",)


class ReleaseError(ValueError):
    """A solution notebook that cannot be released as it is (e.g. an unclosed marker)."""


def strip_solutions(source: str, cell_type: str, where: str = "cell") -> str:
    """Replace every BEGIN/END SOLUTION region of one cell's source by the stub."""
    stub = CODE_STUB if cell_type == "code" else MARKDOWN_STUB
    kept: list[str] = []
    inside = False
    for line in source.split("\n"):
        marker = line.strip()
        if marker.startswith(BEGIN):
            if inside:
                raise ReleaseError(f"{where}: a second '{BEGIN}' before '{END}'")
            inside = True
            indent = line[: len(line) - len(line.lstrip())]
            kept.extend(indent + text for text in stub)
        elif marker.startswith(END):
            if not inside:
                raise ReleaseError(f"{where}: '{END}' without '{BEGIN}'")
            inside = False
        elif not inside:
            kept.append(line)
    if inside:
        raise ReleaseError(f"{where}: '{BEGIN}' is never closed by '{END}'")
    return "\n".join(kept)


def has_solution(cell) -> bool:
    return cell.cell_type in ("code", "markdown") and BEGIN in cell.source


def nbgrader_metadata(grade_id: str) -> dict:
    """nbgrader's metadata for an ungraded, manually answered solution cell."""
    return {"grade": False, "grade_id": grade_id, "locked": False, "schema_version": 3,
            "solution": True, "task": False}


def tag_solution_cells(notebook, stem: str) -> int:
    """Give every cell with solution markers nbgrader metadata; return how many were changed."""
    changed = 0
    for index, cell in enumerate(notebook.cells):
        if has_solution(cell) and not cell.metadata.get("nbgrader", {}).get("solution"):
            cell.metadata["nbgrader"] = nbgrader_metadata(f"{stem}-{cell.get('id', index)}")
            changed += 1
    return changed


def cells_hash(notebook) -> str:
    """A hash of the cells' types and sources: what a student can edit."""
    digest = hashlib.sha256()
    for cell in notebook.cells:
        digest.update(json.dumps([cell.cell_type, cell.source]).encode("utf-8"))
    return digest.hexdigest()[:16]


def release_notebook(solution) -> nbformat.NotebookNode:
    """The student copy of one solution notebook (a new object; the input is untouched)."""
    student = copy.deepcopy(solution)
    stem = student.metadata.get("kgslab", {}).get("name", "notebook")
    for index, cell in enumerate(student.cells):
        where = f"{stem}, cell {index + 1}"
        if has_solution(cell):
            cell.source = strip_solutions(cell.source, cell.cell_type, where)
            cell.metadata.setdefault("nbgrader", nbgrader_metadata(f"{stem}-{cell.get('id', index)}"))
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        # Run-time metadata (timings, scroll state) would make releases differ run to run.
        for key in ("execution", "scrolled", "collapsed", "ExecuteTime"):
            cell.metadata.pop(key, None)
    student.metadata.pop("widgets", None)
    student.metadata["kgslab"] = {"role": "student copy, written by python -m kgslab.release",
                                  "release_hash": cells_hash(student)}
    return student


def render(notebook) -> str:
    """The notebook as text, exactly as it is written to disk."""
    text = nbformat.writes(notebook, version=4)
    return text if text.endswith("\n") else text + "\n"


def student_state(path: Path) -> str | None:
    """Why an existing student notebook must not be overwritten, or None when it may be."""
    notebook = nbformat.read(path, as_version=4)
    if any(cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"):
        return "it has outputs (it has been run)"
    recorded = notebook.metadata.get("kgslab", {}).get("release_hash")
    if recorded is None or recorded != cells_hash(notebook):
        return "it has been edited since it was released"
    return None


def plan(solutions_dir: Path = SOLUTIONS, notebooks_dir: Path = NOTEBOOKS):
    """(solution path, student path, fresh text) for every solution notebook, in order."""
    for source in sorted(solutions_dir.glob("[0-9][0-9]_*.ipynb")):
        solution = nbformat.read(source, as_version=4)
        solution.metadata.setdefault("kgslab", {})["name"] = source.stem
        student = release_notebook(solution)
        yield source, notebooks_dir / source.name, render(student)


def check(solutions_dir: Path = SOLUTIONS, notebooks_dir: Path = NOTEBOOKS) -> list[str]:
    """The problems that make notebooks/ differ from a fresh release (empty when up to date)."""
    problems = []
    expected = set()
    if not any(solutions_dir.glob("[0-9][0-9]_*.ipynb")):
        return [f"no solution notebooks (NN_*.ipynb) in {solutions_dir}: nothing to check against"]
    for _, target, text in plan(solutions_dir, notebooks_dir):
        expected.add(target.name)
        if not target.exists():
            problems.append(f"{target.relative_to(notebooks_dir.parent)} is missing")
        elif target.read_text(encoding="utf-8") != text:
            problems.append(f"{target.relative_to(notebooks_dir.parent)} is stale (differs from a fresh release)")
    for orphan in sorted(notebooks_dir.glob("[0-9][0-9]_*.ipynb")):
        if orphan.name not in expected:
            problems.append(f"{orphan.relative_to(notebooks_dir.parent)} has no solution notebook")
    return problems


def release(solutions_dir: Path = SOLUTIONS, notebooks_dir: Path = NOTEBOOKS, force: bool = False) -> int:
    """Write the student notebooks; return the number of notebooks refused."""
    notebooks_dir.mkdir(exist_ok=True)
    refused = 0
    for _, target, text in plan(solutions_dir, notebooks_dir):
        if target.exists():
            if target.read_text(encoding="utf-8") == text:
                continue
            reason = student_state(target)
            if reason and not force:
                print(f"refused: {target.name}: {reason}; use --force to overwrite it", file=sys.stderr)
                refused += 1
                continue
        target.write_text(text, encoding="utf-8")
        print(f"wrote {target.relative_to(notebooks_dir.parent)}")
    return refused


def tag(solutions_dir: Path = SOLUTIONS) -> None:
    for source in sorted(solutions_dir.glob("[0-9][0-9]_*.ipynb")):
        notebook = nbformat.read(source, as_version=4)
        if tag_solution_cells(notebook, source.stem):
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
            tag()
        if args.check:
            problems = check()
            for problem in problems:
                print(problem, file=sys.stderr)
            if problems:
                print("run `make notebooks` (python -m kgslab.release) to regenerate them", file=sys.stderr)
            return 1 if problems else 0
        return 1 if release(force=args.force) else 0
    except ReleaseError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())

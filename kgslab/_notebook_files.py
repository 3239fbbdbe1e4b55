"""Solution notebooks as files, and nbgrader's marker rule: what the release and the grading layout share.

`kgslab.release` writes the student copies from the solutions, `kgslab.grading_layout` tags the solutions for
grading; both read the solutions from the same folder, the same way, and find a solution region by nbgrader's
rule (a line containing ``BEGIN SOLUTION``).
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from ._resources import kit_folder
from ._validation import as_path

# In a clone installed editable these are the repository's solutions/ and notebooks/ folders;
# from a wheel, the copies inside the installed package (kgslab/_resources.py).
SOLUTIONS = kit_folder("solutions")
NOTEBOOKS = kit_folder("notebooks")

# nbgrader's own rule: any line containing these words (exact case) is a marker.
BEGIN_WORDS, END_WORDS = "BEGIN SOLUTION", "END SOLUTION"
BEGIN_HIDDEN, END_HIDDEN = "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"


class ReleaseError(ValueError):
    """A solution notebook that cannot be released as it is (e.g. an unclosed marker)."""


def marker(line: str) -> str | None:
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


def has_solution(cell) -> bool:
    """True for a cell with a solution region (nbgrader's marker rule: a line containing BEGIN SOLUTION)."""
    return cell.cell_type in ("code", "markdown") and any(
        marker(line) in ("begin", "end") for line in cell.source.split("\n"))


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


def solution_sources(solutions_dir: Path) -> list[Path]:
    sources = sorted(solutions_dir.glob("[0-9][0-9]_*.ipynb"))
    if not sources:
        raise ReleaseError(f"no solution notebooks (NN_name.ipynb) in {solutions_dir}")
    return sources

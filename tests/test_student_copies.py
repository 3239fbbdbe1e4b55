"""No student copy answers what it asks (issue 16).

A student copy (notebooks/NN_*.ipynb, written by ``python -m kgslab.release``)
is graded coursework.  These tests read each solution notebook, collect what
only the solution may say, and look for it in the student copy and in the
hints a failed check prints:

* every code line of a solution region (stripped; comments, short lines and
  bare ``return name`` lines are skipped, since they say nothing);
* every run of seven words of a written answer (a markdown solution region)
  or of a ``solution-only`` cell, formulas left out (tests/test_student_reading.py reads those).

The test reads the released copies on disk, so a stale copy fails too (as
``python -m kgslab.release --check`` does).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from kgslab import check
from kgslab.release import BEGIN_WORDS, END_WORDS, is_solution_only, release_notebook

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))
RUN = 7               # words: a run this long from an answer is the answer, not a shared phrase
MIN_CODE_LINE = 12    # characters: shorter solution lines ("x = 0", "return K") say nothing
_TRIVIAL = re.compile(r"^(#|return \w+$|pass$|else:$|try:$|\)|\]|\})")

def _solution_regions(source: str) -> list[str]:
    """The lines inside BEGIN/END SOLUTION regions of one cell."""
    inside, lines = False, []
    for line in source.split("\n"):
        if BEGIN_WORDS in line:
            inside = True
        elif END_WORDS in line:
            inside = False
        elif inside:
            lines.append(line)
    return lines


def _words(text: str) -> list[str]:
    # Formulas ($...$) are left out: seven LaTeX tokens are notation more often than an answer (the same symbols
    # define a task and state its answer); tests/test_student_reading.py compares formulas, normalised, instead.
    return re.findall(r"[a-z0-9]+", re.sub(r"\$\$.+?\$\$|\$[^$\n]+\$", " ", text, flags=re.DOTALL).lower())


def _runs(text: str, length: int = RUN) -> set[str]:
    words = _words(text)
    return {" ".join(words[i:i + length]) for i in range(len(words) - length + 1)}


def _code_key(line: str) -> str:
    return re.sub(r"\s+", "", line)


def secrets(solution) -> tuple[set[str], set[str]]:
    """(code lines, 7-word runs) that only the solution notebook may contain."""
    code, runs = set(), set()
    for cell in solution.cells:
        if is_solution_only(cell):
            if cell.cell_type == "markdown":
                runs |= _runs(cell.source)
            else:
                lines = cell.source.split("\n")
                code |= {_code_key(line) for line in lines
                         if len(line.strip()) >= MIN_CODE_LINE and not _TRIVIAL.match(line.strip())}
                runs |= _runs(" ".join(line.split("#", 1)[1] for line in lines if "#" in line))
            continue
        region = _solution_regions(cell.source)
        if cell.cell_type == "markdown":
            runs |= _runs("\n".join(region))
        elif cell.cell_type == "code":
            code |= {_code_key(line) for line in region
                     if len(line.strip()) >= MIN_CODE_LINE and not _TRIVIAL.match(line.strip())}
    return code, runs


def leaks(secret_code: set[str], secret_runs: set[str], page: str, code_page: str | None = None) -> list[str]:
    """What of the secrets appears on a page: code lines (in `code_page`, default the page) and word runs."""
    code_page = page if code_page is None else code_page
    page_lines = {_code_key(line) for line in code_page.split("\n")}
    found = sorted(line for line in secret_code if line in page_lines)
    found += sorted(f"'{run}'" for run in secret_runs & _runs(page))
    return found


def _stem(path: Path) -> str:
    return path.name[:2]


def _released(path: Path):
    return nbformat.read(ROOT / "notebooks" / path.name, as_version=4)


@pytest.mark.parametrize("path", SOLUTIONS, ids=_stem)
def test_no_answer_in_student_copy(path):
    solution = nbformat.read(path, as_version=4)
    student = _released(path)
    code, runs = secrets(solution)
    page = "\n".join(cell.source for cell in student.cells)
    code_page = "\n".join(cell.source for cell in student.cells if cell.cell_type == "code")
    found = leaks(code, runs, page, code_page)
    assert not found, (f"{path.name}: the student copy contains {len(found)} piece(s) of the solution "
                       f"(first ones: {found[:6]})")


def expressions(code_lines: set[str]) -> set[str]:
    """The right-hand sides of a solution's assignments and returns (spaces removed), 10 characters or more."""
    found = set()
    for line in code_lines:
        match = re.match(r"^(?:return|[\w\[\],.]+(?:[-+*/@]?=))(?!=)(.+)$", line)
        if match and len(match.group(1)) >= 10:
            found.add(match.group(1))
    return found


def hint_leaks(code: set[str], runs: set[str], hint: str) -> list[str]:
    """Solution code (a whole line or an assignment's right-hand side) or answer runs inside a hint's text."""
    flat = _code_key(hint)
    found = sorted(piece for piece in code | expressions(code) if piece in flat)
    return found + sorted(f"'{run}'" for run in runs & _runs(hint))


@pytest.mark.parametrize("path", SOLUTIONS, ids=_stem)
def test_hints_on_a_failure_give_no_solution_line(path):
    """What a failed check prints (its conceptual hint) holds no code or answer of its notebook's solution."""
    code, runs = secrets(nbformat.read(path, as_version=4))
    found = {name: hint_leaks(code, runs, exercise.hint) for name, exercise in check.exercises().items()
             if name.startswith(f"nb{_stem(path)}_")}
    found = {name: where for name, where in found.items() if where}
    assert not found, f"hints printed on a failure give solution text: {found}"


def test_the_hint_test_finds_a_solution_expression_in_a_hint():
    code, runs = secrets(_solution_demo())
    assert hint_leaks(code, runs, "with d the root of the diagonal, that is K / np.outer(d, d).")
    assert hint_leaks(code, runs, "divide each entry by the product of the two norms (eq. 19).") == []


# ---- the test can fail: fooled attempts kept as tests ------------------------------------------------

def _notebook(*cells):
    notebook = nbformat.v4.new_notebook()
    notebook.cells = list(cells)
    notebook.metadata["kgslab"] = {"name": "demo"}
    return notebook


def _solution_demo():
    return _notebook(
        nbformat.v4.new_markdown_cell("Exercise: why does the evidence peak?"),
        nbformat.v4.new_markdown_cell("### BEGIN SOLUTION\nBecause the model balances the data fit against its "
                                      "complexity penalty at that width.\n### END SOLUTION"),
        nbformat.v4.new_code_cell("def f(K):\n    ### BEGIN SOLUTION\n    d = np.sqrt(np.diag(K))\n"
                                  "    return K / np.outer(d, d)\n    ### END SOLUTION"),
        nbformat.v4.new_markdown_cell("The worked answer: the data fit against its complexity penalty decides.",
                                      metadata={"tags": ["solution-only"]}),
    )


def _check_demo(student):
    code, runs = secrets(_solution_demo())
    page = "\n".join(cell.source for cell in student.cells)
    return leaks(code, runs, page, "\n".join(c.source for c in student.cells if c.cell_type == "code"))


def test_a_clean_release_of_the_demo_passes():
    assert _check_demo(release_notebook(_solution_demo())) == []


def test_the_test_finds_a_solution_code_line_left_in_a_later_cell():
    student = release_notebook(_solution_demo())
    student.cells.append(nbformat.v4.new_code_cell("    return K / np.outer(d, d)"))
    assert "returnK/np.outer(d,d)" in _check_demo(student)


def test_the_test_finds_an_answer_repeated_in_the_prose():
    student = release_notebook(_solution_demo())
    student.cells[0].source += " (Hint: the model balances the data fit against its complexity.)"
    assert any("balances the data fit against its" in found for found in _check_demo(student))


def test_the_test_finds_a_solution_only_cell_that_was_not_dropped():
    student = release_notebook(_solution_demo())
    student.cells.append(_solution_demo().cells[-1])
    assert _check_demo(student)


def test_release_drops_solution_only_cells_and_refuses_a_graded_one():
    from kgslab.release import ReleaseError
    solution = _solution_demo()
    assert len(release_notebook(solution).cells) == len(solution.cells) - 1
    solution.cells[-1].metadata["nbgrader"] = {"grade": True, "grade_id": "x", "points": 1}
    with pytest.raises(ReleaseError, match="solution-only"):
        release_notebook(solution)


def test_the_nbgrader_source_has_no_solution_only_cells(tmp_path):
    """`make assignments` writes nbgrader's source without them: generate_assignment would copy them to students."""
    from kgslab.assignments import build_course
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    nbformat.write(_solution_demo(), solutions / "01_demo.ipynb")
    assert build_course(tmp_path / "course", solutions_dir=solutions) == ["01_demo"]
    source = nbformat.read(tmp_path / "course" / "source" / "01_demo" / "01_demo.ipynb", as_version=4)
    assert len(source.cells) == 3 and not any("tags" in cell.metadata for cell in source.cells)
    assert "BEGIN SOLUTION" in source.cells[2].source          # nbgrader's source keeps the solutions

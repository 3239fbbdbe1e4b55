"""The real nbgrader (from PyPI) on the kit's notebooks: generate, validate and autograde.

For each notebook: `python -m kgslab.assignments` builds a course directory in a temporary folder,
`nbgrader generate_assignment` makes the student version, three submissions are autograded (the released
notebook left blank, the solution, and the solution with its first code exercise wrong) and
`nbgrader validate` passes the solution.  Scores: blank 0 autograded points, solution all of them, one
wrong exercise loses its own points only (no cascade into later exercises that use it).

Each notebook takes one to three minutes (it is run four times), so `make test` grades a representative
notebook (01: its later exercises call the first one) and `make test-grading` all ten
(KGSLAB_GRADING_NOTEBOOKS=all; or e.g. =01,07).
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from kgslab import assignments, grading_layout, release

pytest.importorskip("nbgrader", reason="nbgrader comes with the test extra: pip install -e '.[test]'")
from nbgrader.api import Gradebook  # noqa: E402

ALL = [path.stem for path in sorted(release.SOLUTIONS.glob("[0-9][0-9]_*.ipynb"))]
REPRESENTATIVE = ["01"]


def _selected():
    wanted = os.environ.get("KGSLAB_GRADING_NOTEBOOKS", ",".join(REPRESENTATIVE))
    if wanted == "all":
        return ALL
    prefixes = [part.strip() for part in wanted.split(",") if part.strip()]
    return [stem for stem in ALL if any(stem.startswith(prefix) for prefix in prefixes)]


def _nbgrader(course: Path, *args) -> str:
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")   # nbgrader calls alembic
    env.pop("NBGRADER_EXECUTION", None)
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env, capture_output=True,
                          text=True, timeout=1800)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{output[-3000:]}"
    return output


def _one_exercise_wrong(notebook):
    """The solution with its first code exercise returning None; the points that exercise is worth."""
    wrong = nbformat.from_dict(notebook)
    for index, cell in enumerate(wrong.cells):
        if cell.cell_type == "code" and release.has_solution(cell):
            cell.source = replace_solution(cell.source, "return None  # a wrong answer")
            test = next(later for later in wrong.cells[index + 1:] if later.metadata.get("kgslab_role") == "test")
            return wrong, test.metadata["nbgrader"]["points"]
    raise AssertionError("no code exercise")


def replace_solution(source: str, body: str) -> str:
    """`source` with the lines inside each BEGIN/END SOLUTION region replaced by `body`, at the marker's indent."""
    kept, inside = [], False
    for line in source.split("\n"):
        if "BEGIN SOLUTION" in line:
            inside, indent = True, line[: len(line) - len(line.lstrip())]
            kept += [line] + [indent + text for text in body.split("\n")]
        elif "END SOLUTION" in line:
            inside = False
            kept.append(line)
        elif not inside:
            kept.append(line)
    return "\n".join(kept)


def _submit(course: Path, student: str, stem: str, notebook) -> None:
    folder = course / "submitted" / student / stem
    folder.mkdir(parents=True)
    nbformat.write(notebook, folder / f"{stem}.ipynb")


@pytest.mark.parametrize("stem", _selected())
def test_nbgrader_generates_validates_and_autogrades(stem, tmp_path):
    course = tmp_path / "course"
    assert assignments.build_course(course, only=[stem[:2]]) == [stem]
    solution = nbformat.read(course / "source" / stem / f"{stem}.ipynb", as_version=4)
    max_auto, max_manual = grading_layout.notebook_points(solution)
    assert max_auto > 0

    _nbgrader(course, "generate_assignment", stem, "--force")
    released = nbformat.read(course / "release" / stem / f"{stem}.ipynb", as_version=4)
    released_text = nbformat.writes(released)
    assert "BEGIN SOLUTION" not in released_text and "### END" not in released_text

    wrong, wrong_points = _one_exercise_wrong(solution)
    _submit(course, "blank", stem, released)
    _submit(course, "solved", stem, solution)
    _submit(course, "onewrong", stem, wrong)
    _nbgrader(course, "autograde", stem, "--create", "--force")

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        scores = {student: gradebook.find_submission(stem, student) for student in ("blank", "solved", "onewrong")}
        assert scores["solved"].max_code_score == pytest.approx(max_auto)
        assert scores["solved"].max_written_score == pytest.approx(max_manual)
        assert scores["blank"].code_score == 0.0
        assert scores["solved"].code_score == pytest.approx(max_auto)
        assert scores["onewrong"].code_score == pytest.approx(max_auto - wrong_points)

    validated = _nbgrader(course, "validate", str(course / "submitted" / "solved" / stem / f"{stem}.ipynb"))
    assert re.search(r"Success! Your notebook passes all the tests", validated), validated[-2000:]

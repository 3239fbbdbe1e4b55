"""The grading layout (`kgslab.grading_layout`, python -m kgslab.release --tag): nbgrader metadata, tests, points."""

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from kgslab import grading_layout, release
from test_release import _solution_notebook


@pytest.fixture
def folders(tmp_path):
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    nbformat.write(_solution_notebook(), solutions / "01_demo.ipynb")
    return solutions, tmp_path / "notebooks"


def test_tagging_is_idempotent_and_gives_points(folders):
    solutions, _ = folders
    notebook = nbformat.read(solutions / "01_demo.ipynb", as_version=4)
    notebook.cells.insert(2, new_code_cell("f = check.nb01_exercise_1_primal(f)"))
    notebook.cells[2]["id"] = "chk"
    assert grading_layout.tag_notebook(notebook, "01_demo")
    text = release.render(notebook)
    assert not grading_layout.tag_notebook(notebook, "01_demo") and release.render(notebook) == text
    sources = [cell.source for cell in notebook.cells]
    assert "f = check.nb01_exercise_1_primal(f)" in sources
    test = notebook.cells[sources.index("f = check.nb01_exercise_1_primal(f)") + 1]
    assert test.source.endswith("check.nb01_exercise_1_primal.grade()")
    assert test.metadata.nbgrader["grade"] and test.metadata.nbgrader["locked"] and test.metadata.nbgrader["points"] == 2
    answer = [cell for cell in notebook.cells if cell.cell_type == "markdown" and release.has_solution(cell)][0]
    assert answer.metadata.nbgrader["grade"] and answer.metadata.nbgrader["points"] == grading_layout.WRITTEN_POINTS
    assert notebook.cells[1].source.startswith("**Points: 4** (2 autograded, 2 graded by hand)")
    assert grading_layout.notebook_points(notebook) == (2, 2)


def test_a_check_the_kit_does_not_have_is_an_error_naming_the_cell(folders):
    # The names of earlier releases (check.exercise_1_primal) are no longer translated: no notebook uses them.
    solutions, _ = folders
    notebook = nbformat.read(solutions / "01_demo.ipynb", as_version=4)
    notebook.cells.insert(2, new_code_cell("f = check.exercise_1_primal(f)"))
    with pytest.raises(release.ReleaseError, match=r"01_demo, cell 3: check.exercise_1_primal is not a check"):
        grading_layout.tag_notebook(notebook, "01_demo")


def test_repository_solutions_are_tagged_for_grading():
    for path in sorted(release.SOLUTIONS.glob("[0-9][0-9]_*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        assert not grading_layout.tag_notebook(notebook, path.stem), f"{path.name}: run python -m kgslab.release --tag"
        auto, manual = grading_layout.notebook_points(notebook)
        assert auto > 0, path.name
        for cell in notebook.cells:
            if grading_layout._check_call(cell):
                assert cell.metadata["nbgrader"]["locked"], f"{path.name}: check cell not locked"


def test_readme_points_table_matches_the_notebooks():
    readme = (release.SOLUTIONS.parent / "README.md").read_text(encoding="utf-8")
    for path in sorted(release.SOLUTIONS.glob("[0-9][0-9]_*.ipynb")):
        auto, manual = grading_layout.notebook_points(nbformat.read(path, as_version=4))
        row = f"| {path.stem} | {auto:g} | {manual:g} | {auto + manual:g} |"
        assert row in readme, f"README's points table: expected the row {row}"

"""The release pipeline: solutions/ -> notebooks/ (student copies)."""

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from kgslab import grading_layout, release

SOLUTION_CODE = """def f(x):
    \"\"\"Square x.\"\"\"
    ### BEGIN SOLUTION
    y = x * x
    return y
    ### END SOLUTION

result = f(3)"""


def test_code_region_becomes_stub_at_its_indentation():
    stripped = release.strip_solutions(SOLUTION_CODE, "code")
    assert stripped == ('def f(x):\n    """Square x."""\n    # YOUR CODE HERE\n'
                        '    raise NotImplementedError()\n\nresult = f(3)')


def test_markdown_region_becomes_your_answer_here():
    source = "Why?\n### BEGIN SOLUTION\nBecause.\n### END SOLUTION"
    assert release.strip_solutions(source, "markdown") == "Why?\nYOUR ANSWER HERE"


def test_two_regions_in_one_cell():
    source = "### BEGIN SOLUTION\na = 1\n### END SOLUTION\nb = 2\n### BEGIN SOLUTION\nc = 3\n### END SOLUTION"
    stripped = release.strip_solutions(source, "code")
    assert stripped.count("raise NotImplementedError()") == 2 and "b = 2" in stripped and "c = 3" not in stripped


@pytest.mark.parametrize("source, message", [
    ("### BEGIN SOLUTION\nx = 1", "never closed"),
    ("x = 1\n### END SOLUTION", "without a matching BEGIN"),
    ("### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION", "second"),
    ("# begin solution\nx = 1\n# end solution", "looks like a marker"),         # other case
    ("### BEGIN  SOLUTION\nx = 1\n### END SOLUTION", "looks like a marker"),     # two spaces
    ("###BEGINSOLUTION\nx = 1\n###ENDSOLUTION", "looks like a marker"),          # no space
    ("### Begin Solution\nx = 1\n### End Solution", "looks like a marker"),
    ("### BEGIN HIDDEN TESTS\nassert x", "never closed"),
])
def test_broken_markers_are_reported(source, message):
    with pytest.raises(release.ReleaseError, match=message):
        release.strip_solutions(source, "code", "nb, cell 3")


@pytest.mark.parametrize("begin, end", [("# BEGIN SOLUTION", "# END SOLUTION"),
                                        ("###BEGIN SOLUTION", "###END SOLUTION"),
                                        ("    ## BEGIN SOLUTION here", "## END SOLUTION (done)")])
def test_every_marker_nbgrader_recognises_is_recognised(begin, end):
    stripped = release.strip_solutions(f"def f():\n{begin}\n    return 42\n{end}", "code")
    assert "42" not in stripped and "raise NotImplementedError()" in stripped


def test_hidden_tests_never_reach_the_student_copy():
    source = "check.nb01_exercise_1_primal.grade()\n### BEGIN HIDDEN TESTS\nassert secret()\n### END HIDDEN TESTS\nx = 1"
    stripped = release.strip_solutions(source, "code")
    assert "secret" not in stripped and "HIDDEN" not in stripped and stripped.endswith("x = 1")
    assert "raise NotImplementedError" not in stripped


def _solution_notebook():
    code = new_code_cell(SOLUTION_CODE, execution_count=4)
    code.outputs = [new_output("stream", name="stdout", text="9\n")]
    notebook = new_notebook(cells=[new_markdown_cell("# Title"), code,
                                   new_markdown_cell("### BEGIN SOLUTION\nanswer\n### END SOLUTION")])
    for index, cell in enumerate(notebook.cells):
        cell["id"] = f"cell-{index}"
    notebook.metadata["widgets"] = {"state": "something"}
    return notebook


@pytest.fixture
def folders(tmp_path):
    solutions, notebooks = tmp_path / "solutions", tmp_path / "notebooks"
    solutions.mkdir()
    nbformat.write(_solution_notebook(), solutions / "01_demo.ipynb")
    return solutions, notebooks


def test_release_clears_outputs_and_tags_nbgrader(folders):
    solutions, notebooks = folders
    assert release.release(solutions, notebooks) == 0
    student = nbformat.read(notebooks / "01_demo.ipynb", as_version=4)
    code = student.cells[1]
    assert code.outputs == [] and code.execution_count is None
    assert "y = x * x" not in code.source and "raise NotImplementedError()" in code.source
    assert student.cells[2].source == "YOUR ANSWER HERE"
    assert code.metadata["nbgrader"]["solution"] is True
    assert "widgets" not in student.metadata
    # The solution notebook itself is left untouched.
    assert nbformat.read(solutions / "01_demo.ipynb", as_version=4).cells[1].outputs


def test_release_is_deterministic(folders):
    solutions, notebooks = folders
    release.release(solutions, notebooks)
    first = (notebooks / "01_demo.ipynb").read_bytes()
    (notebooks / "01_demo.ipynb").unlink()
    release.release(solutions, notebooks)
    assert (notebooks / "01_demo.ipynb").read_bytes() == first


def test_errors_name_notebook_and_cell(folders):
    solutions, notebooks = folders
    notebook = nbformat.read(solutions / "01_demo.ipynb", as_version=4)
    notebook.cells[1].source = "x = 1\n### END SOLUTION"
    nbformat.write(notebook, solutions / "01_demo.ipynb")
    with pytest.raises(release.ReleaseError, match=r"01_demo, cell 2 \(id cell-1\), line 2"):
        release.release(solutions, notebooks)


def test_a_cell_tagged_solution_without_markers_is_refused(folders):
    solutions, notebooks = folders
    notebook = nbformat.read(solutions / "01_demo.ipynb", as_version=4)
    notebook.cells.append(new_code_cell("def g():\n    return 'the answer'"))
    notebook.cells[-1]["id"] = "cell-3"
    notebook.cells[-1].metadata["nbgrader"] = grading_layout.nbgrader_metadata("demo-g", solution=True)
    nbformat.write(notebook, solutions / "01_demo.ipynb")
    with pytest.raises(release.ReleaseError, match="01_demo, cell 4 .*tagged as an nbgrader solution"):
        release.release(solutions, notebooks)
    assert not notebooks.exists() or not list(notebooks.iterdir())


def test_all_notebooks_are_validated_before_any_is_written(folders):
    solutions, notebooks = folders
    broken = _solution_notebook()
    broken.cells[1].source = "# begin solution\nsecret = 1"
    nbformat.write(broken, solutions / "02_broken.ipynb")
    with pytest.raises(release.ReleaseError, match="02_broken"):
        release.release(solutions, notebooks)
    assert not (notebooks / "01_demo.ipynb").exists()


def test_a_corrupted_notebook_is_named_in_one_line(folders, capsys, monkeypatch):
    solutions, notebooks = folders
    (solutions / "02_corrupt.ipynb").write_text('{"cells": [', encoding="utf-8")
    with pytest.raises(release.ReleaseError) as error:
        release.release(solutions, notebooks)
    assert "02_corrupt.ipynb: not a readable notebook" in str(error.value) and "\n" not in str(error.value)
    assert not (notebooks / "01_demo.ipynb").exists()
    monkeypatch.setattr(release, "SOLUTIONS", solutions)
    monkeypatch.setattr(release, "NOTEBOOKS", notebooks)
    assert release.main(["--check"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "02_corrupt.ipynb" in err


def test_no_solutions_is_an_error_not_up_to_date(tmp_path):
    with pytest.raises(release.ReleaseError, match="no solution notebooks"):
        release.check(tmp_path / "solutions", tmp_path / "notebooks")


def test_check_names_stale_missing_and_orphan_notebooks(folders):
    solutions, notebooks = folders
    notebooks.mkdir()
    assert release.check(solutions, notebooks) == ["notebooks/01_demo.ipynb is missing"]
    release.release(solutions, notebooks)
    assert release.check(solutions, notebooks) == []
    changed = nbformat.read(solutions / "01_demo.ipynb", as_version=4)
    changed.cells[0].source = "# New title"
    nbformat.write(changed, solutions / "01_demo.ipynb")
    assert release.check(solutions, notebooks) == [
        "notebooks/01_demo.ipynb is stale (differs from a fresh release)"]
    (notebooks / "02_orphan.ipynb").write_text("{}")
    assert "notebooks/02_orphan.ipynb has no solution notebook" in release.check(solutions, notebooks)


def test_stale_but_unedited_student_copy_is_updated(folders):
    solutions, notebooks = folders
    release.release(solutions, notebooks)
    changed = nbformat.read(solutions / "01_demo.ipynb", as_version=4)
    changed.cells[0].source = "# New title"
    nbformat.write(changed, solutions / "01_demo.ipynb")
    assert release.release(solutions, notebooks) == 0
    assert nbformat.read(notebooks / "01_demo.ipynb", as_version=4).cells[0].source == "# New title"


@pytest.mark.parametrize("what", ["outputs", "edits"])
def test_student_work_is_not_overwritten_without_force(folders, what, capsys):
    solutions, notebooks = folders
    release.release(solutions, notebooks)
    target = notebooks / "01_demo.ipynb"
    student = nbformat.read(target, as_version=4)
    if what == "outputs":
        student.cells[1].outputs = [new_output("stream", name="stdout", text="hello\n")]
    else:
        student.cells[1].source = student.cells[1].source.replace("# YOUR CODE HERE", "return x ** 2")
    nbformat.write(student, target)
    worked_on = target.read_bytes()
    changed = nbformat.read(solutions / "01_demo.ipynb", as_version=4)
    changed.cells[0].source = "# New title"
    nbformat.write(changed, solutions / "01_demo.ipynb")

    assert release.release(solutions, notebooks) == 1
    assert target.read_bytes() == worked_on
    assert "refused: 01_demo.ipynb" in capsys.readouterr().err
    assert "edited by a student" in release.check(solutions, notebooks)[0]
    assert release.release(solutions, notebooks, force=True) == 0
    assert nbformat.read(target, as_version=4).cells[0].source == "# New title"
    assert (notebooks / "01_demo.backup-1.ipynb").read_bytes() == worked_on   # --force keeps a backup


# ---- the repository's own notebooks ---------------------------------------------------------

def test_repository_notebooks_are_a_fresh_release():
    problems = release.check()
    assert not problems, "notebooks/ drifted from solutions/; run `make notebooks`:\n" + "\n".join(problems)


def test_repository_solutions_exist_and_carry_nbgrader_metadata():
    sources = sorted(release.SOLUTIONS.glob("[0-9][0-9]_*.ipynb"))
    assert sources, "no solution notebooks found"
    for path in sources:
        notebook = nbformat.read(path, as_version=4)
        marked = [cell for cell in notebook.cells if release.has_solution(cell)]
        assert marked, f"{path.name} has no exercise (no ### BEGIN SOLUTION region)"
        for cell in marked:
            assert cell.metadata.get("nbgrader", {}).get("solution"), \
                f"{path.name}: a solution cell lacks nbgrader metadata; run `make notebooks`"


def test_student_notebooks_hold_no_solutions_and_no_outputs():
    for path in sorted(release.NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        text = path.read_text(encoding="utf-8")
        assert release.BEGIN not in text and release.END not in text, path.name
        notebook = nbformat.read(path, as_version=4)
        assert all(not cell.get("outputs") for cell in notebook.cells), path.name

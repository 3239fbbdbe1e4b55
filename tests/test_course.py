"""An instructor's course directory (`python -m kgslab.assignments`): what nbgrader releases carries no solution
data, rebuilding keeps the instructor's files, and students' data stay out of git.

The nbgrader release test runs the real `nbgrader generate_assignment "*"` on all ten notebooks (8 s of CPU;
36 s on the clock on a 2-core machine shared with five other jobs, most of it waiting for sqlite's writes);
the rest take a few seconds together.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from kgslab import assignments, grading_layout, release

ROOT = Path(__file__).resolve().parents[1]
ALL = [path.stem for path in sorted(release.SOLUTIONS.glob("[0-9][0-9]_*.ipynb"))]


# ---- what a release may not carry ------------------------------------------------------------------------

def _output_texts(cell) -> list[str]:
    """Every piece of text (and image) a solution cell's outputs hold."""
    found = []
    for output in cell.get("outputs", []):
        if "text" in output:
            found.append(output["text"])
        for mime, value in output.get("data", {}).items():
            found.append(value if isinstance(value, str) else json.dumps(value))
        if output.get("output_type") == "error":
            found.extend(output.get("traceback", []))
    return found


def solution_data(solution) -> set[str]:
    """Fragments of a solution notebook's results that no release may contain: lines of its outputs (30
    characters or more, and not in any cell's source, since a prompt may quote a line of the output it asks
    for), the start of each image, and the saved widget state's values."""
    sources = "\n".join(cell.source for cell in solution.cells)
    fragments = set()
    for cell in solution.cells:
        for text in _output_texts(cell):
            if text.startswith("iVBOR"):                       # a PNG: its first bytes after the header
                fragments.add(text[40:140])
                continue
            for line in text.splitlines():
                line = line.strip()
                if len(line) >= 30 and line not in sources:
                    fragments.add(line)
    state = solution.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
    for model in state.get("state", {}).values():
        for value in model.get("state", {}).values():
            if isinstance(value, str) and len(value) >= 30 and value not in sources:
                fragments.add(value)
    return fragments


def leaks(released, solution) -> list[str]:
    """What of `solution`'s results the released notebook carries (empty when nothing)."""
    text = nbformat.writes(released)
    found = []
    if released.metadata.get("widgets"):
        found.append("saved widget state (notebook metadata 'widgets')")
    if "application/vnd.jupyter.widget" in text:
        found.append("a widget view or widget state")
    found += [f"output of cell {i + 1}" for i, cell in enumerate(released.cells)
              if cell.cell_type == "code" and (cell.outputs or cell.execution_count)]
    found += [f"solution output {fragment[:60]!r}" for fragment in sorted(solution_data(solution))
              if fragment in text]
    return found


def test_the_leak_search_finds_a_solutions_results():
    """Fooling the search: the solution itself, and a release with its widget state put back, are caught."""
    solution = nbformat.read(release.SOLUTIONS / "08_kernel_gibbs_sampler.ipynb", as_version=4)
    assert solution.metadata.get("widgets"), "solution 08 stores widget state: the case this test is about"
    assert len(leaks(solution, solution)) > 20
    student = release.release_notebook(solution)
    assert leaks(student, solution) == []
    student.metadata["widgets"] = solution.metadata["widgets"]
    assert any("widget" in leak for leak in leaks(student, solution))
    student.metadata.pop("widgets")
    printed = next(cell for cell in solution.cells if cell.cell_type == "code" and any(
        len(line) >= 30 for text in _output_texts(cell) for line in text.splitlines()))
    student.cells[-1].source += "\n# " + max((line for text in _output_texts(printed) for line in
                                               text.splitlines()), key=len).strip()
    assert leaks(student, solution), "an output line copied into a cell's source must be found"


def test_course_sources_carry_no_outputs_or_widget_state(tmp_path):
    assert assignments.build_course(tmp_path / "course") == ALL
    for stem in ALL:
        source = nbformat.read(tmp_path / "course" / "source" / stem / f"{stem}.ipynb", as_version=4)
        solution = nbformat.read(release.SOLUTIONS / f"{stem}.ipynb", as_version=4)
        assert leaks(source, solution) == [], stem
        # the sources are still the solutions, graded: every solution region and test cell is there
        assert "### BEGIN SOLUTION" in nbformat.writes(source)
        assert grading_layout.notebook_points(source) == grading_layout.notebook_points(
            release.release_notebook(solution)), stem


def _nbgrader(course: Path, *args):
    env = dict(os.environ, PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    env.pop("NBGRADER_EXECUTION", None)
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{(done.stdout + done.stderr)[-3000:]}"
    return done.stdout + done.stderr


def test_nbgraders_release_of_every_notebook_carries_no_solution_data(tmp_path):
    """The real `nbgrader generate_assignment` on all ten: no widget state, no output, no solution result."""
    pytest.importorskip("nbgrader", reason="nbgrader comes with the test extra: pip install -e '.[test]'")
    course = tmp_path / "course"
    assignments.build_course(course)
    _nbgrader(course, "generate_assignment", "*")           # every assignment, in one nbgrader process
    for stem in ALL:
        released = nbformat.read(course / "release" / stem / f"{stem}.ipynb", as_version=4)
        solution = nbformat.read(release.SOLUTIONS / f"{stem}.ipynb", as_version=4)
        assert leaks(released, solution) == [], stem
        text = nbformat.writes(released)
        assert "BEGIN SOLUTION" not in text and "HIDDEN TESTS" not in text, stem
        assert "GradeOutsideKernel.secret" not in text and _secret(course) not in text, stem


# ---- rebuilding keeps the instructor's files -------------------------------------------------------------

def _secret(course: Path) -> str:
    return assignments._SECRET_LINE.search((course / "nbgrader_config.py").read_text()).group(1)


def _loaded(course: Path):
    """The configuration nbgrader reads from the course's nbgrader_config.py (traitlets' own loader)."""
    from traitlets.config.loader import PyFileConfigLoader
    return PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config()


def test_rebuilding_keeps_hand_added_config_lines_and_the_secret(tmp_path, capsys):
    course = tmp_path / "course"
    assignments.build_course(course, only=["01"], exchange=tmp_path / "exchange")
    config = course / "nbgrader_config.py"
    secret = _secret(course)
    assert oct(config.stat().st_mode & 0o777) == "0o600"
    text = config.read_text()
    config.write_text("# my course, spring term\n" + text + "c.Execute.timeout = 1234   # mine\n"
                      "c.CourseDirectory.db_url = 'sqlite:///grades.db'\n")
    assert assignments.main([str(course), "--only", "01"]) == 0
    rebuilt = config.read_text()
    assert rebuilt.startswith("# my course, spring term\n")
    assert rebuilt.endswith("c.Execute.timeout = 1234   # mine\nc.CourseDirectory.db_url = 'sqlite:///grades.db'\n")
    assert _secret(course) == secret and rebuilt.count("GradeOutsideKernel.secret") == 1
    loaded = _loaded(course)
    assert loaded.Execute.timeout == 1234                  # the instructor's line wins over the block's
    assert loaded.CourseDirectory.db_url == "sqlite:///grades.db"
    assert loaded.Exchange.root == str((tmp_path / "exchange").resolve())   # kept without --exchange
    assert loaded.GradeOutsideKernel.secret == secret
    assert "source/01_duality/01_duality.ipynb: current" in capsys.readouterr().out


def test_a_config_without_the_kits_block_is_refused_then_backed_up_with_force(tmp_path, capsys):
    course = tmp_path / "course"
    assignments.build_course(course, only=["01"])
    config = course / "nbgrader_config.py"
    secret = _secret(course)
    old = config.read_text().replace(assignments.BLOCK_BEGIN + "\n", "").replace(assignments.BLOCK_END + "\n", "")
    old += "c.Exchange.timezone = 'Europe/London'\n"
    config.write_text(old)
    assert assignments.main([str(course), "--only", "01"]) == 2
    assert "no kgslab block" in capsys.readouterr().err and config.read_text() == old
    assert assignments.main([str(course), "--only", "01", "--force"]) == 0
    assert (course / "nbgrader_config.py.bak").read_text() == old
    assert _secret(course) == secret and assignments._split(config.read_text()) is not None


def test_an_edited_source_notebook_is_refused_then_backed_up_with_force(tmp_path, capsys):
    course = tmp_path / "course"
    assignments.build_course(course, only=["01"])
    source = course / "source" / "01_duality" / "01_duality.ipynb"
    notebook = nbformat.read(source, as_version=4)
    notebook.cells[0].source += "\n\nA note of the instructor's."
    nbformat.write(notebook, source)
    edited = source.read_text()
    assert assignments.main([str(course), "--only", "01"]) == 2
    assert "edited since the kit wrote them" in capsys.readouterr().err and source.read_text() == edited
    assert assignments.main([str(course), "--only", "01", "--force"]) == 0
    assert source.with_name("01_duality.ipynb.bak").read_text() == edited
    assert "A note of the instructor's" not in source.read_text()


def test_a_new_solution_replaces_the_kits_earlier_source_without_force(tmp_path):
    """A source the kit wrote and nobody edited is the kit's to update (a corrected solution)."""
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    original = (release.SOLUTIONS / "01_duality.ipynb").read_text()
    (solutions / "01_duality.ipynb").write_text(original)
    course = tmp_path / "course"
    assignments.build_course(course, solutions)
    corrected = nbformat.reads(original, as_version=4)
    corrected.cells[0].source += "\n\nCorrected."
    nbformat.write(corrected, solutions / "01_duality.ipynb")
    assignments.build_course(course, solutions)
    assert "Corrected." in (course / "source" / "01_duality" / "01_duality.ipynb").read_text()
    assert not list(course.rglob("*.bak*"))


# ---- students' data stay out of git ----------------------------------------------------------------------

@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="needs the git repository")
def test_course_data_and_gradebooks_are_ignored_by_git():
    ignored = ["course/gradebook.db", "course/nbgrader_config.py", "course/submitted/alice/01_duality/01_duality.ipynb",
               "course/feedback/alice/01_duality/01_duality.html", "course/.nbgrader.log", "gradebook.db",
               "gradebook_merged.db"]
    kept = ["data/results/seed_agreement.json", "solutions/01_duality.ipynb", "docs/jupyterhub.md",
            "docs/hub/nbgrader_config.py"]
    done = subprocess.run(["git", "check-ignore", "--no-index", *ignored, *kept], cwd=ROOT, capture_output=True,
                          text=True)
    assert sorted(done.stdout.split()) == sorted(ignored)


# ---- result commands write where they are told -----------------------------------------------------------

def test_output_path_defaults_to_the_repository_in_a_clone_and_to_the_current_directory_installed(
        tmp_path, monkeypatch):
    import kgslab.data
    from kgslab import _resources, papers
    monkeypatch.setattr(kgslab.data, "RESULTS_DIR", tmp_path / "results")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(_resources, "_CLONE", ROOT)
    assert papers.output_path("x.json") == tmp_path / "results" / "x.json"
    monkeypatch.setattr(_resources, "_CLONE", None)
    assert papers.output_path("x.json") == tmp_path / "x.json"
    (tmp_path / "out").mkdir()
    assert papers.output_path("x.json", tmp_path / "out") == tmp_path / "out" / "x.json"
    assert papers.output_path("x.json", "new/") == Path("new") / "x.json"
    assert papers.output_path("x.json", tmp_path / "mine.json") == tmp_path / "mine.json"
    with pytest.raises(TypeError, match="out must be a file or folder name"):
        papers.output_path("x.json", 3)


def test_every_papers_command_writes_to_out(tmp_path, monkeypatch):
    """Each paper's command with --out writes there and leaves data/results/ alone (the runs are stubbed)."""
    import numpy as np

    from kgslab.papers import bt1999, kfd2001, kgs2000

    committed = {path: path.read_bytes() for path in kgslab_results()}
    run4 = {"q_levels": np.array([0.1]), "lambdas": np.array([1.0]), "bpm": np.array([[0.1]]),
            "svm": np.array([[0.2]]), "rhat": np.array([[1.0]])}
    monkeypatch.setattr(kgs2000, "figure4_full", lambda: run4)
    monkeypatch.setattr(bt1999, "bounce_study", lambda *a, **k: {"y_test": np.ones((1, 2)), "p": np.zeros(2)})
    monkeypatch.setattr(kfd2001, "digits_experiment", lambda *a, **k: {
        "settings": {}, "noise_rates": np.zeros(1), "errors": np.zeros(1), "estimated_noise": np.zeros(1)})
    monkeypatch.setattr(kfd2001, "toy_table", lambda *a, **k: (np.zeros(1), {5000: np.zeros(1)}, {5000: np.zeros(1)}))
    kgs2000.main(["--out", str(tmp_path / "a.json")])
    bt1999.main(["figure2", "heart", "--out", str(tmp_path)])
    kfd2001.main(["digits", "--out", str(tmp_path / "sub") + "/"])
    kfd2001.main(["toy", "--out", str(tmp_path / "toy.json")])
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.json")) == [
        "a.json", "bt1999_figure2_heart.json", "sub/kfd2001_digits_full.json", "toy.json"]
    assert json.loads((tmp_path / "a.json").read_text())["bpm"] == [[0.1]]
    assert {path: path.read_bytes() for path in kgslab_results()} == committed


def kgslab_results():
    import kgslab.data
    return sorted(kgslab.data.RESULTS_DIR.glob("*.json"))


def test_the_benchmark_table_goes_to_out(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick", "--out",
                           str(tmp_path / "table.txt"), "ridge"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "table.txt").read_text().strip() == done.stdout.strip()
    assert "ratio" in done.stdout

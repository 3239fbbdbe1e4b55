"""The kit as a package: resource folders, committed results, the notebooks command, licence and provenance.

The wheel itself (built, installed in a fresh virtual environment, used from there) is tested in
tests/test_wheel.py (marked `wheel`, run by `make wheel-test`).
"""

import json
import re
import subprocess
import sys
from fnmatch import fnmatch
from pathlib import Path

import nbformat
import numpy as np
import pytest
from nbformat.v4 import new_output

from kgslab import data, release
from kgslab import notebooks as notebooks_command
from kgslab._resources import kit_folder
from kgslab._notebook_list import NOTEBOOKS
from kgslab.data import results

ROOT = Path(__file__).resolve().parents[1]


# ---- where the files are ---------------------------------------------------------------------

@pytest.mark.parametrize("name", ["data", "solutions", "notebooks"])
def test_kit_folders_are_the_clones_own_folders_in_an_editable_install(name):
    # Editable: make data / make notebooks must write into the repository, not into a copy.
    assert kit_folder(name) == ROOT / name


def test_kit_folder_rejects_other_names():
    with pytest.raises(ValueError, match="name must be one of"):
        kit_folder("tests")


def test_loaders_read_the_package_resources():
    assert data.DATA_DIR == kit_folder("data")
    assert release.SOLUTIONS == kit_folder("solutions") and release.NOTEBOOKS == kit_folder("notebooks")


def test_no_module_guesses_the_data_folder_from_its_own_path():
    # The bug this replaces: Path(__file__).parents[...] / "data" works in a clone and nowhere else.
    offenders = [str(path.relative_to(ROOT)) for path in (ROOT / "kgslab").rglob("*.py")
                 if re.search(r"__file__", path.read_text(encoding="utf-8"))]
    assert not offenders, f"locate files with kgslab._resources.kit_folder, not __file__: {offenders}"


# ---- committed result files ----------------------------------------------------------------------

@pytest.fixture
def results_dir(tmp_path, monkeypatch):
    folder = tmp_path / "results"
    (folder / "sub").mkdir(parents=True)
    monkeypatch.setattr(results, "RESULTS_DIR", folder)
    return folder


def test_load_result_reads_json_csv_and_npz(results_dir):
    (results_dir / "run.json").write_text(json.dumps({"r_hat": [1.01, 1.02], "chains": 4}))
    (results_dir / "sub" / "table.csv").write_text("q,error,method\n0.02,0.058,bpm\n0.04,0.059,svm\n")
    np.savez(results_dir / "arrays.npz", alphas=np.arange(6.0).reshape(2, 3))
    assert data.load_result("run.json") == {"r_hat": [1.01, 1.02], "chains": 4}
    table = data.load_result("sub/table.csv")
    np.testing.assert_array_equal(table["q"], [0.02, 0.04])
    assert table["error"].dtype == float and list(table["method"]) == ["bpm", "svm"]
    np.testing.assert_array_equal(data.load_result("arrays.npz")["alphas"], np.arange(6.0).reshape(2, 3))
    assert data.result_path("sub/table.csv") == results_dir / "sub" / "table.csv"


def test_a_missing_result_names_the_files_there_are(results_dir):
    (results_dir / "run.json").write_text("{}")
    with pytest.raises(FileNotFoundError, match=r"no result file 'other.json'.*run\.json"):
        data.result_path("other.json")


@pytest.mark.parametrize("name, error", [("../README.md", ValueError), ("/etc/passwd", ValueError),
                                         ("", TypeError), (3, TypeError)])
def test_result_names_stay_inside_results(results_dir, name, error):
    with pytest.raises(error, match="name must be"):
        data.result_path(name)


def test_ragged_csv_and_unknown_types_are_errors(results_dir):
    (results_dir / "bad.csv").write_text("a,b\n1,2\n3\n")
    (results_dir / "notes.txt").write_text("hello")
    with pytest.raises(ValueError, match="line 3: 1 fields, the header has 2"):
        data.load_result("bad.csv")
    with pytest.raises(ValueError, match="reads .json, .csv and .npz"):
        data.load_result("notes.txt")


# ---- release --check never passes with nothing to check --------------------------------------

def test_release_check_with_no_solutions_says_so(tmp_path):
    (tmp_path / "solutions").mkdir()
    (tmp_path / "notebooks").mkdir()
    with pytest.raises(release.ReleaseError, match="no solution notebooks"):
        release.check(tmp_path / "solutions", tmp_path / "notebooks")


# ---- python -m kgslab.notebooks DEST -------------------------------------------------------------

PACKAGED = sorted(path.name for path in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def test_the_kit_has_each_listed_notebook_of_each_kind():
    assert PACKAGED == [f"{notebook.stem}.ipynb" for notebook in NOTEBOOKS]
    assert [p.name for p in notebooks_command.packaged_notebooks("solutions")] == PACKAGED


def test_copies_the_student_notebooks_and_then_leaves_them_alone(tmp_path):
    destination = tmp_path / "home" / "kgslab"
    lines = notebooks_command.copy_notebooks(destination)
    assert [line.split()[0] for line in lines] == ["copied"] * len(NOTEBOOKS)
    assert sorted(path.name for path in destination.iterdir()) == PACKAGED
    for name in PACKAGED:
        assert (destination / name).read_bytes() == (ROOT / "notebooks" / name).read_bytes()
        assert "BEGIN SOLUTION" not in (destination / name).read_text()
    again = notebooks_command.copy_notebooks(destination)
    assert [line.split()[0] for line in again] == ["current"] * len(NOTEBOOKS)


def test_solutions_only_with_the_flag_and_into_their_own_folder(tmp_path):
    notebooks_command.copy_notebooks(tmp_path)
    assert not (tmp_path / "solutions").exists()
    notebooks_command.copy_notebooks(tmp_path, solutions=True)
    assert sorted(path.name for path in (tmp_path / "solutions").iterdir()) == PACKAGED
    assert (tmp_path / "solutions" / PACKAGED[0]).read_bytes() == (ROOT / "solutions" / PACKAGED[0]).read_bytes()


def _work_on(path: Path, how: str) -> bytes:
    """Change a copied student notebook the way a student (or an older kit) would; return its new bytes."""
    notebook = nbformat.read(path, as_version=4)
    code = next(cell for cell in notebook.cells if cell.cell_type == "code")
    if how == "run":
        code.outputs = [new_output("stream", name="stdout", text="hello\n")]
    elif how == "edited":
        code.source += "\nx = 1  # my work"
    elif how == "older release":  # a different, never-touched release: its hash matches its cells
        notebook.cells[0].source += "\n\n(an older wording)"
        notebook.metadata["kgslab"]["release_hash"] = release.cells_hash(notebook)
    path.write_text(release.render(notebook), encoding="utf-8")
    return path.read_bytes()


@pytest.mark.parametrize("how", ["run", "edited"])
def test_a_students_work_is_never_overwritten(tmp_path, how, capsys):
    notebooks_command.copy_notebooks(tmp_path)
    target = tmp_path / PACKAGED[2]
    worked_on = _work_on(target, how)
    assert notebooks_command.main([str(tmp_path)]) == 0  # a start-up script must not fail on it
    out = capsys.readouterr().out
    assert target.read_bytes() == worked_on
    assert f"kept      {PACKAGED[2]}" in out and "--force" in out and "9 current, 1 kept" in out
    assert not list(tmp_path.glob("*.backup-*"))


def test_force_replaces_and_keeps_a_backup_of_the_students_copy(tmp_path, capsys):
    notebooks_command.copy_notebooks(tmp_path)
    target = tmp_path / PACKAGED[0]
    worked_on = _work_on(target, "edited")
    assert notebooks_command.main([str(tmp_path), "--force"]) == 0
    backup = tmp_path / PACKAGED[0].replace(".ipynb", ".backup-1.ipynb")
    assert backup.read_bytes() == worked_on
    assert target.read_bytes() == (ROOT / "notebooks" / PACKAGED[0]).read_bytes()
    assert f"your copy is now {backup.name}" in capsys.readouterr().out
    _work_on(target, "edited")
    notebooks_command.main([str(tmp_path), "--force"])
    assert backup.read_bytes() == worked_on, "a second --force must not overwrite the first backup"
    assert (tmp_path / PACKAGED[0].replace(".ipynb", ".backup-2.ipynb")).exists()


def test_an_untouched_older_release_is_updated(tmp_path):
    notebooks_command.copy_notebooks(tmp_path)
    target = tmp_path / PACKAGED[1]
    _work_on(target, "older release")
    lines = notebooks_command.copy_notebooks(tmp_path)
    assert any(line.startswith(f"updated   {PACKAGED[1]}") for line in lines)
    assert target.read_bytes() == (ROOT / "notebooks" / PACKAGED[1]).read_bytes()


def test_an_edited_solution_copy_is_kept(tmp_path):
    notebooks_command.copy_notebooks(tmp_path, solutions=True)
    target = tmp_path / "solutions" / PACKAGED[0]
    target.write_text(target.read_text().replace("Ridge", "My ridge", 1))
    edited = target.read_bytes()
    lines = notebooks_command.copy_notebooks(tmp_path, solutions=True)
    assert target.read_bytes() == edited
    assert any(line.startswith(f"kept      solutions/{PACKAGED[0]}") for line in lines)


def test_a_corrupt_copy_is_kept_not_replaced(tmp_path):
    (tmp_path / PACKAGED[0]).write_text("not a notebook")
    lines = notebooks_command.copy_notebooks(tmp_path)
    assert lines[0].startswith(f"kept      {PACKAGED[0]}") and "readable" in lines[0]
    assert (tmp_path / PACKAGED[0]).read_text() == "not a notebook"


def test_a_destination_that_is_a_file_is_an_error(tmp_path, capsys):
    (tmp_path / "taken").write_text("")
    assert notebooks_command.main([str(tmp_path / "taken")]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_the_command_runs_as_a_module(tmp_path):
    run = subprocess.run([sys.executable, "-m", "kgslab.notebooks", str(tmp_path / "out")],
                         capture_output=True, text=True, check=True)
    assert run.stdout.strip().endswith(f"{len(NOTEBOOKS)} copied")


# ---- licence and provenance -----------------------------------------------------------------------

def test_licence_file_is_mit_with_a_holder_and_declared():
    licence = (ROOT / "LICENSE").read_text()
    assert licence.startswith("MIT License") and re.search(r"Copyright \(c\) \d{4} \S", licence)
    assert 'license-files = ["LICENSE"]' in (ROOT / "pyproject.toml").read_text()


def _readme_tokens() -> set[str]:
    return set(re.findall(r"`([^`\n]+)`", (ROOT / "data" / "README.md").read_text()))


def test_every_file_in_data_has_its_provenance_in_data_readme():
    tokens = _readme_tokens()
    not_data = {"README.md", "__init__.py"}
    missing = []
    for path in sorted((ROOT / "data").rglob("*")):
        relative = path.relative_to(ROOT / "data").as_posix()
        if not path.is_file() or path.name in not_data or "__pycache__" in relative:
            continue
        covered = any(token in (relative, path.name, f"data/{relative}") or ("*" in token and fnmatch(relative, token))
                      for token in tokens)
        if not covered:
            missing.append(relative)
    assert not missing, f"data/README.md does not mention (in `backticks`) {missing}"


def test_data_from_dependencies_is_covered_too():
    tokens = _readme_tokens()
    for name in data.SKY_PHOTOGRAPHS:
        assert name in tokens, f"data/README.md has no row for the photograph {name!r}"
    readme = (ROOT / "data" / "README.md").read_text()
    assert "load_digits" in readme and "Optical Recognition of Handwritten Digits" in readme
    for loader in ("digits_pair", "load_photograph", "load_docs", "load_thyroid", "load_heart", "sinc_data",
                   "linear_data", "xor_data", "separable_data", "sphere_data", "kgs_76_points", "kfd_toy_data"):
        assert loader in tokens, f"data/README.md does not say where {loader}'s data come from"


def test_make_lab_shows_the_students_only_notebooks():
    # notebooks/ holds __init__.py so that the wheel ships the folder; `make lab` (the README's command) must hide
    # every file there that is not a notebook, or a student's file browser starts with a stray Python file.
    dry_run = subprocess.run(["make", "-n", "lab"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    found = re.search(r"--ContentsManager\.hide_globs=(\[.*?\])", dry_run)
    assert found, f"make lab passes no hide_globs to JupyterLab:\n{dry_run}"
    hidden = json.loads(found.group(1))
    shown = [path.name for path in (ROOT / "notebooks").iterdir()     # (dot files: hidden by JupyterLab already)
             if path.suffix != ".ipynb" and not path.name.startswith(".")
             and not any(fnmatch(path.name, glob) for glob in hidden)]
    assert not shown, f"make lab would show these files beside the notebooks: {shown}"

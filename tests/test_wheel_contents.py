"""The wheel a student installs carries no solutions (issue 30): built here, and read file by file.

`pip wheel . --no-deps` builds it in seconds; no solution notebook (kgslab._solutions) is in it, no
notebook in it has a solution region, and `python -m kgslab.notebooks DEST --solutions` in an install
without solutions says where instructors get them.  (`make wheel-test` installs the wheel for real.)
"""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from kgslab import _resources
from kgslab import notebooks as notebooks_command
from kgslab._notebook_list import NOTEBOOKS

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory):
    folder = tmp_path_factory.mktemp("wheel")
    # built from a copy: pip builds in the source tree (build/, *.egg-info), and CI runs this module in the newest
    # and the oldest environment at the same time (.ci/run), which must not share one build folder
    source = folder / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv*", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".ipynb_checkpoints",
        "screenshots", "course"))
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "-q", "-w", str(folder)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    (wheel,) = folder.glob("kgslab-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_the_wheel_has_no_solution_notebooks(wheel_names):
    assert not [name for name in wheel_names if "_solutions" in name or name.startswith("solutions/")]
    notebooks = [name for name in wheel_names if name.endswith(".ipynb")]
    assert len(notebooks) == len(NOTEBOOKS) and all(name.startswith("kgslab/_notebooks/") for name in notebooks)
    for name in notebooks:
        text = wheel_names[name].decode("utf-8")
        assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text, name


def test_the_grader_and_the_course_secret_stay_out_of_the_release(wheel_names):
    assert "kgslab/grader.py" in wheel_names          # the instructor's nbgrader uses the same kit
    assert not [name for name in wheel_names if name.endswith("nbgrader_config.py")]


def test_asking_for_solutions_without_them_says_where_to_get_them(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(_resources, "_CLONE", None)
    assert notebooks_command.main([str(tmp_path), "--solutions"]) == 2
    error = capsys.readouterr().err
    assert "not part of the installed kit" in error and "make solutions-zip" in error
    assert not (tmp_path / "solutions").exists() or not list((tmp_path / "solutions").iterdir())

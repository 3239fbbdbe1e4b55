"""The course, command by command (docs/course.md, linked from the README), in a fresh clone (`make test-readme`).

Every bash block of docs/course.md marked ``<!-- doc-test: NAME -->`` runs as it is written, in order, in a fresh
clone of this working tree (its tracked and untracked-but-not-ignored files, committed in a new repository), with
the shell's directory and environment carried from block to block, as a reader typing them in one terminal:

* ``setup``: ``make .venv/.installed`` really builds the clone's own .venv (pip, from the package index); then
  ``make lab`` with the README's LAB_ARGS example (README.md's "Start working") serves JupyterLab;
* ``course``, then three pretend students per assignment run the ``student`` block in folders of their own with
  the hub's nbgrader_config.py (docs/hub/, pointed at the course's exchange): a blank notebook, a half-done one
  (the second half of its exercises left as released) and a solved one, for 01 and for 08 (the blocks name 01;
  for 08 the same blocks run with its name);
* ``grade``: the points are checked in the gradebook: blank 0, half-done the points of the exercises it solved,
  solved all; the feedback each student receives is checked (no grader file paths, under 500 KB);
* ``formgrader``: started on a free port, asked for its assignments over its API, stopped;
* ``rerelease``: after a corrected solution is committed, the release and the exchange carry the correction;
* ``status``: prints nothing, and `git status` of the clone is clean.

It takes minutes (the set-up's pip install, six autograded submissions): skipped unless KGSLAB_README_TEST=1,
which `make test-readme` sets.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

from kgslab._notebook_list import NOTEBOOKS

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
COURSE = ROOT / "docs" / "course.md"          # the README's "instructor at a glance" links to it
BLOCK = re.compile(r"<!-- doc-test: ([\w-]+) -->\n```bash\n(.*?)\n```", re.DOTALL)
# KGSLAB_README_ASSIGNMENTS=01 grades 01 only (a quicker run of the same blocks); the default is both.
ASSIGNMENTS = [name for name in ("01_duality", "08_kernel_gibbs_sampler")
               if name[:2] in os.environ.get("KGSLAB_README_ASSIGNMENTS", "01,08").split(",")]
STUDENTS = ["blank", "half", "solved"]
FEEDBACK_LIMIT = 500_000

slow = pytest.mark.skipif(os.environ.get("KGSLAB_README_TEST") != "1",
                          reason="minutes: run with `make test-readme` (KGSLAB_README_TEST=1)")


def readme_blocks() -> dict[str, str]:
    blocks = {}
    for name, body in BLOCK.findall(COURSE.read_text(encoding="utf-8")):
        assert name not in blocks, f"two blocks of docs/course.md are marked doc-test: {name}"
        blocks[name] = body
    return blocks


def test_the_readme_marks_the_instructor_blocks():
    assert list(readme_blocks()) == ["setup", "course", "student", "grade", "formgrader", "rerelease", "status"]


def test_the_readme_links_the_documents_it_hands_over_to():
    """The README is the front door: each document it moved its detail to exists and is linked from it."""
    readme = README.read_text(encoding="utf-8")
    for name in ("docs/course.md", "docs/grading.md", "docs/grading-a-class.md", "docs/jupyterhub.md",
                 "docs/testing.md", "docs/benchmarks.md", "CHANGELOG.md"):
        assert (ROOT / name).is_file(), name
        assert f"]({name})" in readme, f"README does not link {name}"
    for target in re.findall(r"\]\(((?:docs/|\.\./)?[\w./-]+\.(?:md|png))\)", readme):
        assert (ROOT / target).is_file(), f"README links {target}, which does not exist"
    assert "make test" in readme and "make lab" in readme
    assert len(readme.splitlines()) <= 180, "the README is the front door: detail goes in docs/"


class Shell:
    """Runs blocks as one terminal would: the directory and the exported environment carry over."""

    def __init__(self, cwd: Path, state: Path, env: dict):
        self.cwd, self.state, self.env = cwd, state, env
        state.mkdir(parents=True, exist_ok=True)
        self.times = {}

    def run(self, name: str, script: str, cwd: Path | None = None, timeout=3600) -> str:
        where = cwd or self.cwd
        carried = self.state / "env"
        text = (f"set -eo pipefail\n{'. ' + str(carried) if carried.exists() else ''}\n"
                f"cd {where}\n{script}\npwd > {self.state}/cwd\nexport -p > {self.state}/env.new\n")
        started = time.perf_counter()
        done = subprocess.run(["bash", "-c", text], env=self.env, capture_output=True, text=True, timeout=timeout)
        self.times[name] = self.times.get(name, 0.0) + time.perf_counter() - started
        print(f"docs/course.md block {name}: {time.perf_counter() - started:.0f} s", flush=True)
        output = done.stdout + done.stderr
        assert done.returncode == 0, f"docs/course.md block {name!r} failed ({done.returncode}):\n{script}\n{output[-4000:]}"
        if cwd is None:                                    # a student's shell is not the instructor's
            self.cwd = Path((self.state / "cwd").read_text().strip())
            (self.state / "env.new").replace(carried)
        return done.stdout


def fresh_clone(target: Path) -> Path:
    """A new repository holding this working tree's files as git sees them (tracked + untracked, not ignored)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    git = ["git", "-c", "user.name=doc test", "-c", "user.email=doc@test"]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "the working tree"]):
        subprocess.run(git + command, cwd=target, check=True, capture_output=True)
    return target


def half_done(source, released):
    """The solution with the second half of its graded exercises as released (stubs); the points it should get.

    An exercise is the function its check cell names; it counts as done when the cell defining it keeps its
    solution. Which cells to blank is decided from the notebook's own structure, and so are the points.
    """
    from kgslab import grading_layout, release
    tests = [(i, cell) for i, cell in enumerate(source.cells) if cell.metadata.get("kgslab_role") == "test"]
    functions = [grading_layout._check_call(source.cells[i - 1])[2] for i, _ in tests]
    blank = set(functions[(len(functions) + 1) // 2:])
    student = nbformat.from_dict(source)
    released_by_id = {cell.get("id"): cell for cell in released.cells}
    blanked = set()
    for cell in student.cells:
        defined = set(re.findall(r"^def (\w+)\(", cell.source, re.MULTILINE))
        if cell.cell_type == "code" and release.has_solution(cell) and defined & blank:
            cell.source = released_by_id[cell.get("id")].source
            blanked |= defined
    points = sum(cell.metadata["nbgrader"]["points"] for (_, cell), name in zip(tests, functions)
                 if name not in blanked)
    return student, points


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def serve(shell: Shell, command: str, path: str, read=None):
    """Start a README server command on a free port (its 8899 replaced), GET `path` with a token, stop it.

    Returns the status, or read(response) when given."""
    port, token = _free_port(), "doc-test-token"
    command = command.split("#")[0].strip().replace("--port=8899", f"--port={port}")
    if os.getuid() == 0 and command.startswith("jupyter"):
        command += " --allow-root"                   # as the README says (make lab adds it itself)
    env = dict(shell.env, JUPYTER_TOKEN=token)
    script = f". {shell.state / 'env'}\ncd {shell.cwd}\nexec {command}"
    server = subprocess.Popen(["bash", "-c", script], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              start_new_session=True)
    try:
        for _ in range(180):
            time.sleep(1)
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}?token={token}", timeout=10) as answer:
                    return read(answer) if read else answer.status
            except OSError:
                assert server.poll() is None, server.stdout.read().decode()[-3000:]
        raise AssertionError(f"{command} did not answer within 3 minutes")
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)


def formgrader_assignments(shell: Shell, block: str) -> list[str]:
    """The formgrader block's server, asked for the assignments over formgrader's API."""
    return serve(shell, block, "/formgrader/api/assignments",
                 read=lambda answer: sorted(item["name"] for item in json.load(answer)))


@slow
def test_the_readme_instructor_section_end_to_end(tmp_path):
    blocks = readme_blocks()
    clone = fresh_clone(tmp_path / "kgslab")
    env = {key: value for key, value in os.environ.items()
           if key not in ("VIRTUAL_ENV", "PYTHONPATH", "NBGRADER_EXECUTION", "KGSLAB_README_TEST",
                          "KGSLAB_README_ASSIGNMENTS")}
    env["PATH"] = os.pathsep.join(part for part in env["PATH"].split(os.pathsep)
                                  if not part.startswith(str(ROOT)))          # this clone's .venv only
    shell = Shell(clone, tmp_path / "shell", env)

    shell.run("setup", blocks["setup"])
    lab_args = re.search(r'`make lab LAB_ARGS="([^"]+)"`', README.read_text(encoding="utf-8")).group(1)
    assert lab_args == "--no-browser --port=8899"
    assert serve(shell, f'make lab LAB_ARGS="{lab_args}"', "/lab") == 200

    course = clone / "course"
    for assignment in ASSIGNMENTS:
        shell.cwd = clone
        shell.run("course", blocks["course"].replace("01_duality", assignment))
        assert shell.cwd == course
        source = nbformat.read(course / "source" / assignment / f"{assignment}.ipynb", as_version=4)
        released = nbformat.read(course / "release" / assignment / f"{assignment}.ipynb", as_version=4)
        half, half_points = half_done(source, released)
        submissions = {"blank": None, "half": half, "solved": source}
        for student in STUDENTS:
            home = tmp_path / "students" / student
            home.mkdir(parents=True, exist_ok=True)
            hub_config = (ROOT / "docs" / "hub" / "nbgrader_config.py").read_text()
            (home / "nbgrader_config.py").write_text(
                hub_config + f"\n# the doc test: this machine's exchange, and the student's name\n"
                f"c.Exchange.root = {str(course / 'exchange')!r}\nc.Exchange.cache = {str(home / '.cache')!r}\n"
                f"c.CourseDirectory.student_id = {student!r}\n")
            fetch, submit = [line for line in blocks["student"].replace("01_duality", assignment).splitlines()]
            shell.run("student", fetch, cwd=home)
            fetched = home / assignment / f"{assignment}.ipynb"
            assert fetched.is_file()
            if submissions[student] is not None:
                nbformat.write(submissions[student], fetched)
            shell.run("student", submit, cwd=home)
        shell.run("grade", blocks["grade"].replace("01_duality", assignment))

        from nbgrader.api import Gradebook
        with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
            scores = {student: gradebook.find_submission(assignment, student) for student in STUDENTS}
            full = scores["solved"].max_code_score
            got = {student: scores[student].code_score for student in STUDENTS}
        print(f"{assignment}: autograded points {got} of {full} (half-done expected {half_points})")
        assert full > 0 and got == {"blank": 0.0, "half": pytest.approx(half_points), "solved": pytest.approx(full)}
        assert 0 < half_points < full
        for student in STUDENTS:
            feedback = course / "feedback" / student / assignment / f"{assignment}.html"
            text = feedback.read_text(encoding="utf-8")
            print(f"feedback {student}/{assignment}: {feedback.stat().st_size / 1000:.0f} KB")
            assert feedback.stat().st_size < FEEDBACK_LIMIT, f"{feedback}: {feedback.stat().st_size} bytes"
            assert not re.search(r"site-packages|/kgslab/check/|\.py:\d+|File &quot;/", text), \
                f"{feedback} shows the grader's file paths"
            assert not re.search(r"<img(?![^>]* alt=\"Figure)[^>]*>", text), f"{feedback}: a figure without alt text"
            if student == "blank":                   # the grader's verdict, not a traceback
                assert "Graded outside your notebook" in text and "not attempted yet" in text
        assert (course / "exchange" / "kgslab" / "outbound" / assignment).is_dir()
        exported = (course / "grades.csv").read_text()
        assert all(student in exported for student in STUDENTS)

    listed = formgrader_assignments(shell, blocks["formgrader"])   # every assignment of the course, all of them
    assert listed == sorted(path.name for path in (course / "source").iterdir()) == [n.stem for n in NOTEBOOKS]

    solution = clone / "solutions" / "01_duality.ipynb"
    corrected = nbformat.read(solution, as_version=4)
    corrected.cells[0].source += "\n\nCorrected by the doc test."
    nbformat.write(corrected, solution)
    subprocess.run(["git", "-c", "user.name=doc test", "-c", "user.email=doc@test", "commit", "-qam", "a correction"],
                   cwd=clone, check=True)
    shell.run("rerelease", blocks["rerelease"])
    for released in (course / "release" / "01_duality" / "01_duality.ipynb",
                     course / "exchange" / "kgslab" / "outbound" / "01_duality" / "01_duality.ipynb"):
        assert "Corrected by the doc test." in released.read_text(), released

    assert shell.run("status", blocks["status"]).strip() == ""
    assert subprocess.run(["git", "status", "--porcelain", "--ignored=no"], cwd=clone, capture_output=True,
                          text=True, check=True).stdout == ""
    print("README blocks, seconds: " + ", ".join(f"{name} {seconds:.0f}" for name, seconds in shell.times.items()))

"""Issue 24's Done-when: a synthetic class of 01, graded by ``python -m kgslab.grade``, against serial nbgrader.

The class (tests/grading_class.py): 12 submissions of 01 (blank, solved, solved
but late, each typical wrong variant, two mistakes at once, an exception, an
endless loop, a cheat that calls the kit's reference).  The reference is plain
``nbgrader autograde`` run serially in a copy of the course; then, each in its
own copy of the same course (same secret, so the same hidden cases):

* ``--jobs 2``: every gradebook entry (each graded cell's auto score, manual
  score and needs-manual-grade flag, each comment, the late penalty, the
  timestamp) equals the serial run's; each student loses exactly the points of
  the exercises their variant breaks (the endless loop its own exercise only);
  a rerun grades nothing; the report's numbers are the gradebook's;
* a run killed (SIGKILL, the whole process group) once a few submissions are
  in, then rerun: the same gradebook, and the rerun grades only the rest;
* a Dask LocalCluster (two worker processes): the same gradebook.

The class is graded five times (minutes), so this runs in ``make test-grading`` (KGSLAB_GRADE_CLASS=1), not
in ``make test``; tests/test_grade_units.py has the cheap parts.  ``KGSLAB_GRADE_CLASS=short`` (``make
test-instructor``, in CI) grades a class of six (blank, solved, solved but late, two wrong variants, the cheat)
serially and with ``--jobs 2``, and compares the two gradebooks and the report, as the first test does in full.
"""

import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("nbgrader", reason="nbgrader comes with the test extra: pip install -e '.[test]'")
MODE = os.environ.get("KGSLAB_GRADE_CLASS")
if MODE not in ("1", "short"):
    pytest.skip("grades a class five times (minutes): make test-grading, or KGSLAB_GRADE_CLASS=1 (=short: a class "
                "of six, once: make test-instructor)", allow_module_level=True)
SHORT = ("blank", "solved", "late_solved", "primal_no_l", "errors_swapped", "cheat")
full_only = pytest.mark.skipif(MODE == "short", reason="the short run (KGSLAB_GRADE_CLASS=short) grades once")
from nbgrader.api import Gradebook  # noqa: E402

from grading_class import LOSES, STEM, class_notebooks, make_course, submit_class  # noqa: E402
from kgslab import check  # noqa: E402
from kgslab.grade import grade_class  # noqa: E402
from kgslab.grade.class_report import class_rows  # noqa: E402
from test_grading import _nbgrader  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def gradebook_table(course: Path) -> dict:
    """Every entry autograde writes, by (student, what): the thing compared between runs."""
    table = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for submission in gradebook.assignment_submissions(STEM):
            student = submission.student_id
            table[student, "timestamp"] = submission.timestamp
            for notebook in submission.notebooks:
                table[student, notebook.name, "late penalty"] = notebook.late_submission_penalty
                for grade in notebook.grades:
                    table[student, grade.name] = (grade.auto_score, grade.manual_score, grade.needs_manual_grade)
                for comment in notebook.comments:
                    table[student, comment.name, "comment"] = (comment.auto_comment, comment.manual_comment)
    return table


def _grade(course: Path, *args) -> str:
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env.pop("NBGRADER_EXECUTION", None)
    done = subprocess.run([sys.executable, "-m", "kgslab.grade", str(course), STEM, *args], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def _counts(output: str) -> tuple[int, int, int]:
    found = re.search(r"(\d+) graded, (\d+) skipped .*?, (\d+) failed", output)
    assert found, output
    return tuple(int(n) for n in found.groups())


@pytest.fixture(scope="module")
def synthetic_class(tmp_path_factory):
    """(an ungraded course with the class submitted, the students, the serially graded copy's gradebook)."""
    folder = tmp_path_factory.mktemp("grade_class")
    course = folder / "course"
    source, released = make_course(course)
    notebooks = class_notebooks(source, released)
    if MODE == "short":
        notebooks = {student: notebooks[student] for student in SHORT}
    students = submit_class(course, notebooks)
    assert len(students) >= (len(SHORT) if MODE == "short" else 12)
    serial = folder / "serial"
    shutil.copytree(course, serial)
    started = time.perf_counter()
    _nbgrader(serial, "autograde", STEM, "--create", "--force")       # one submission after another
    print(f"\nserial nbgrader autograde of {len(students)} submissions: {time.perf_counter() - started:.0f} s")
    return course, students, gradebook_table(serial)


def _copy(synthetic_class, tmp_path) -> Path:
    course = tmp_path / "course"
    shutil.copytree(synthetic_class[0], course)
    return course


def test_jobs_2_equals_serial_autograde_and_a_rerun_grades_nothing(synthetic_class, tmp_path):
    course, students, serial = _copy(synthetic_class, tmp_path), synthetic_class[1], synthetic_class[2]
    started = time.perf_counter()
    output = _grade(course, "--jobs", "2")
    print(f"\n--jobs 2: {time.perf_counter() - started:.0f} s; {output.strip().splitlines()[-1]}")
    assert _counts(output) == (len(students), 0, 0)
    table = gradebook_table(course)
    assert table == serial

    points = {key: float(exercise.points) for key, exercise in check.exercises().items() if key.startswith("nb01")}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student in students:
            submission = gradebook.find_submission(STEM, student)
            assert submission.code_score == pytest.approx(sum(points.values()) - sum(points[k] for k in LOSES[student]))
            penalty = submission.code_score if student.startswith("late") else 0.0
            assert submission.late_submission_penalty == pytest.approx(penalty), student
    seconds = {entry["student"]: entry["seconds"] for entry in map(json.loads, (course / "kgslab-grade" /
                                                                                f"{STEM}.jsonl").open())}
    assert seconds.get("endless_loop", 0) < 300, seconds             # its own hard stops, not the 600 s cell time-out

    again = _grade(course, "--jobs", "2", "--report")
    assert _counts(again) == (0, len(students), 0)
    assert gradebook_table(course) == serial

    # The report's numbers are the gradebook's and the verdicts'.
    rows = {row["student"]: row for row in class_rows(course, STEM)}
    with open(course / "kgslab-grade" / f"{STEM}-report.csv", encoding="utf-8") as stream:
        written = {row["student"]: row for row in csv.DictReader(stream)}
    assert set(written) == set(students) == set(rows)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student in students:
            submission = gradebook.find_submission(STEM, student)
            assert float(written[student]["autograded_points"]) == pytest.approx(submission.code_score)
            assert float(written[student]["late_penalty"]) == pytest.approx(submission.late_submission_penalty)
            for key in points:
                grade = gradebook.find_grade(f"{STEM}-{key}", STEM, STEM, student)
                assert written[student][key] == str(int(grade.score == grade.max_score)), (student, key)
    assert "gamma without the factor l" in written["primal_no_l"]["mistakes"]
    assert "swapped" in written["errors_swapped"]["mistakes"]
    assert "calls the closed reference" in written["cheat"]["flags"] and not written["solved"]["flags"]


@full_only
def test_a_run_killed_halfway_and_rerun_gives_the_same_gradebook(synthetic_class, tmp_path):
    course, students, serial = _copy(synthetic_class, tmp_path), synthetic_class[1], synthetic_class[2]
    record = course / "kgslab-grade" / f"{STEM}.jsonl"
    env = dict(os.environ, PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    run = subprocess.Popen([sys.executable, "-m", "kgslab.grade", str(course), STEM, "--jobs", "2", "--quiet"],
                           cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           start_new_session=True)
    try:
        deadline = time.monotonic() + 1800
        while time.monotonic() < deadline and run.poll() is None:
            if record.exists() and len(record.read_text().splitlines()) >= 4:
                break
            time.sleep(0.5)
    finally:
        os.killpg(run.pid, signal.SIGKILL)
        run.wait()
    killed_after = len(record.read_text().splitlines())
    assert 4 <= killed_after < len(students), killed_after

    output = _grade(course, "--jobs", "2")
    graded, skipped, failed = _counts(output)
    assert failed == 0 and skipped >= 4 and graded + skipped == len(students), output
    assert gradebook_table(course) == serial


@full_only
def test_a_dask_local_cluster_gives_the_same_gradebook(synthetic_class, tmp_path):
    distributed = pytest.importorskip("distributed")
    course, students, serial = _copy(synthetic_class, tmp_path), synthetic_class[1], synthetic_class[2]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        summary = grade_class(course, STEM, scheduler=cluster.scheduler_address, quiet=True)
    print(f"\nDask LocalCluster: {summary.line()}")
    assert sorted(summary.graded) == sorted(students) and not summary.failed
    assert gradebook_table(course) == serial

"""The cheap parts of kgslab.grade (the whole path is tests/test_grade_class.py, in make test-grading).

Hashing and the resume rule, the merge through nbgrader's Gradebook API
against a gradebook built by hand, the structured verdict the grader writes,
a dying worker in the local pool, the report's numbers against a small course
made by hand, and the command's bad input.
"""

import csv
import datetime
import json
import os
import shutil
import sys
from pathlib import Path

import nbformat
import pytest

pytest.importorskip("nbgrader", reason="nbgrader comes with the test extra: pip install -e '.[test]'")
from nbgrader.api import Gradebook  # noqa: E402

from grade_dying_worker import dies_on_the_killer  # noqa: E402
from kgslab import check  # noqa: E402
from kgslab.grade import run  # noqa: E402
from kgslab.grade.__main__ import main  # noqa: E402
from kgslab.grade.merge import merge_submission  # noqa: E402
from kgslab.grade.record import GradingRecord, folder_hash  # noqa: E402
from kgslab.grade.class_report import class_rows, exercise_rates, ranked_mistakes, write_report  # noqa: E402
from kgslab.grade.worker import read_rows  # noqa: E402
from kgslab.grader import GradeOutsideKernel  # noqa: E402

@pytest.fixture(autouse=True)
def _venv_on_path(monkeypatch):
    """nbgrader creates a gradebook with the alembic command from the environment's bin/."""
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))


# ---- hashing and resuming ----------------------------------------------------------------------------------


def test_the_hash_follows_every_file_and_name_but_not_checkpoints(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    for folder in (one, two):
        (folder / "sub").mkdir(parents=True)
        (folder / "01.ipynb").write_text("{}")
        (folder / "sub" / "data.csv").write_text("1,2")
    assert folder_hash(one) == folder_hash(two)
    (two / ".ipynb_checkpoints").mkdir()
    (two / ".ipynb_checkpoints" / "01-checkpoint.ipynb").write_text("old")
    assert folder_hash(one) == folder_hash(two)
    (two / "timestamp.txt").write_text("2026-01-01 10:00:00")
    assert folder_hash(one) != folder_hash(two)
    (two / "timestamp.txt").unlink()
    (two / "01.ipynb").write_text("{ }")
    assert folder_hash(one) != folder_hash(two)
    (two / "01.ipynb").write_text("{}")
    (two / "sub" / "data.csv").rename(two / "sub" / "other.csv")
    assert folder_hash(one) != folder_hash(two)


def test_the_record_keeps_the_latest_entry_and_ignores_a_line_cut_by_a_kill(tmp_path):
    record = GradingRecord(tmp_path, "01_duality")
    record.add({"student": "a", "hash": "h1", "status": "failed"})
    record.add({"student": "a", "hash": "h2", "status": "graded"})
    record.add({"student": "b", "hash": "h3", "status": "graded"})
    with open(record.path, "a") as stream:
        stream.write('{"student": "c", "hash": "h4", "sta')                  # the kill came mid-line
    assert {k: v["hash"] for k, v in record.entries().items()} == {"a": "h2", "b": "h3"}
    record.add({"student": "c", "hash": "h4", "status": "graded"})          # the next line is still read
    assert "c" not in record.entries()                  # appended to the cut line: the rerun grades c again


@pytest.mark.parametrize("entry, same_hash, same_grading, in_gradebook, retry, done", [
    (None, True, True, True, False, False),
    ({"status": "graded"}, True, True, True, False, True),
    ({"status": "graded"}, False, True, True, False, False),                 # the student resubmitted
    ({"status": "graded"}, True, False, True, False, False),                 # the source or config changed
    ({"status": "graded"}, True, True, False, False, False),                 # gone from the gradebook
    ({"status": "failed"}, True, True, True, False, True),                   # a failure is not retried...
    ({"status": "failed"}, True, True, True, True, False),                   # ...unless asked
    ({"status": "failed"}, True, True, False, False, False),                 # its zero row gone: written again
])
def test_the_resume_rule(entry, same_hash, same_grading, in_gradebook, retry, done):
    if entry is not None:
        entry = {**entry, "hash": "h" if same_hash else "old", "grading": "g" if same_grading else "old"}
    assert GradingRecord.is_done(entry, "h", "g", in_gradebook, retry) is done


ON_TIME, LATE, LATER = (datetime.datetime(2026, 1, 9, 12), datetime.datetime(2026, 1, 11, 12),
                        datetime.datetime(2026, 1, 13, 12))


@pytest.mark.parametrize("graded_under, due_now, submitted, affected", [
    ("2026-01-10T12:00:00", "2026-01-10T12:00:00", LATE, False),     # the same due date
    ("2026-01-10T12:00:00", "2026-01-12T12:00:00", LATE, True),      # late before, on time now: penalty goes
    ("2026-01-12T12:00:00", "2026-01-10T12:00:00", LATE, True),      # on time before, late now: penalty comes
    ("2026-01-10T12:00:00", "2026-01-11T00:00:00", LATER, True),     # late under both, by less now
    ("2026-01-10T12:00:00", "2026-01-12T12:00:00", ON_TIME, False),  # on time under both: nothing changes
    ("2026-01-10T12:00:00", None, LATE, True),                       # the due date removed
    (None, "2026-01-10T12:00:00", LATE, True),                       # a due date set after grading
    ("2026-01-10T12:00:00", "2026-01-12T12:00:00", None, False),     # no timestamp: never late to nbgrader
])
def test_a_due_date_change_regrades_the_submissions_whose_penalty_it_moves(graded_under, due_now, submitted,
                                                                           affected):
    entry = {"status": "graded", "duedate": graded_under}
    assert GradingRecord.due_date_affects(entry, due_now, submitted) is affected
    assert GradingRecord.due_date_affects({"status": "graded"}, due_now, submitted) is False  # kept no due date
    aware = submitted.replace(tzinfo=datetime.timezone.utc) if submitted else None
    assert GradingRecord.due_date_affects(entry, due_now, aware) is affected


# ---- the merge ---------------------------------------------------------------------------------------------

DUE = datetime.datetime(2026, 1, 10, 12, 0)


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """A gradebook with assignment a1 (made once: nbgrader creates a database through alembic, seconds)."""
    path = tmp_path_factory.mktemp("template") / "gradebook.db"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
        _assignment(f"sqlite:///{path}")
    return path


def _database(template, path) -> str:
    shutil.copyfile(template, path)
    return f"sqlite:///{path}"


def _assignment(db_url):
    """Assignment a1: notebook nb, a code test (2 points), a written answer (1), a solution cell."""
    with Gradebook(db_url) as gradebook:
        gradebook.add_assignment("a1", duedate=DUE)
        gradebook.add_notebook("nb", "a1")
        gradebook.add_grade_cell("test", "nb", "a1", max_score=2, cell_type="code")
        gradebook.add_grade_cell("written", "nb", "a1", max_score=1, cell_type="markdown")
        gradebook.add_solution_cell("answer", "nb", "a1")
        for name, kind in (("test", "code"), ("written", "markdown"), ("answer", "code")):
            gradebook.add_source_cell(name, "nb", "a1", cell_type=kind, source="", checksum="x")


def _worker_grades(db_url, student, score, late=False):
    """What autograde would write for `student` in a worker's gradebook."""
    with Gradebook(db_url) as gradebook:
        gradebook.update_or_create_student(student, first_name=student.title())
        when = DUE + datetime.timedelta(days=1 if late else -1)
        submission = gradebook.update_or_create_submission("a1", student, timestamp=when)
        notebook = gradebook.find_submission_notebook("nb", "a1", student)
        notebook.late_submission_penalty = score if late else 0.0
        gradebook.find_grade("test", "nb", "a1", student).auto_score = score
        gradebook.find_grade("test", "nb", "a1", student).needs_manual_grade = False
        gradebook.find_grade("written", "nb", "a1", student).needs_manual_grade = True
        gradebook.find_comment("answer", "nb", "a1", student).auto_comment = f"kgslab flags {student}"
        gradebook.db.commit()
        assert submission.timestamp == when


def _entries(db_url):
    with Gradebook(db_url) as gradebook:
        found = {}
        for submission in gradebook.assignment_submissions("a1"):
            notebook = submission.notebooks[0]
            found[submission.student_id] = (
                submission.timestamp, submission.student.first_name, notebook.late_submission_penalty,
                sorted((g.name, g.auto_score, g.manual_score, g.needs_manual_grade) for g in notebook.grades),
                sorted((c.name, c.auto_comment, c.manual_comment) for c in notebook.comments))
        return found


def test_a_merge_writes_what_autograde_wrote_and_keeps_the_instructors_grades(tmp_path, template):
    worker, course = _database(template, tmp_path / "worker.db"), _database(template, tmp_path / "course.db")
    with Gradebook(course) as gradebook:                     # the instructor graded bob's written answer already
        gradebook.add_student("bob")
        gradebook.add_submission("a1", "bob")
        gradebook.find_grade("written", "nb", "a1", "bob").manual_score = 1.0
        gradebook.find_comment("answer", "nb", "a1", "bob").manual_comment = "good"
        gradebook.db.commit()
    _worker_grades(worker, "alice", 2.0, late=True)
    _worker_grades(worker, "bob", 0.0)
    for student in ("alice", "bob"):
        merge_submission(course, "a1", student, read_rows(worker, "a1", student))
    merged, graded = _entries(course), _entries(worker)
    assert merged["alice"] == graded["alice"]
    timestamp, name, penalty, grades, comments = merged["bob"]
    assert (timestamp, name, penalty) == graded["bob"][:3]
    assert ("written", None, 1.0, True) in grades and ("test", 0.0, None, False) in grades
    assert ("answer", "kgslab flags bob", "good") in comments
    merge_submission(course, "a1", "alice", read_rows(worker, "a1", "alice"))           # idempotent
    assert _entries(course) == merged
    assert json.loads(json.dumps(read_rows(worker, "a1", "alice")))                    # plain data: it travels


# ---- the structured verdict --------------------------------------------------------------------------------

NO_L = ("import numpy as np\ndef ridge_primal(X, y, gamma):\n"
        "    return np.linalg.solve(X.T @ X + gamma * np.eye(X.shape[1]), X.T @ y)\n")


def test_the_grader_keeps_the_checks_structured_verdict():
    # The verdict is the check's own data (kgslab.check.records.Verdict): the failing case, the declared mistake by id
    # and the check's words for it; nothing is read back from the printed text.
    key = "nb01_exercise_1_primal"
    exercise = check.exercises()[key]
    judged = GradeOutsideKernel(secret="")._graded(exercise, {key: "ridge_primal"}, key, [NO_L], "alice")
    data = {**judged.metadata(0.0, 2.0), "exercise": key}
    assert not judged.passed and data["cases_failed"][0] == exercise.cases()[0].label   # every failing case: 3 here
    assert data["points"] == 0.0 and data["max_points"] == 2.0 and data["exercise"] == key
    assert [m["mistake"] for m in data["mistakes"]][:1] == ["gamma-without-l"]
    assert data["mistakes"][0]["case"] == exercise.cases()[0].label and data["mistakes"][0]["words"]
    blank = "def ridge_primal(X, y, gamma):\n    raise NotImplementedError()\n"
    judged = GradeOutsideKernel(secret="")._graded(exercise, {key: "ridge_primal"}, key, [blank], "a")
    assert judged.status == "blank" and not judged.passed
    solved = NO_L.replace("gamma * np.eye", "gamma * X.shape[0] * np.eye")
    judged = GradeOutsideKernel(secret="s")._graded(exercise, {key: "ridge_primal"}, key, [solved], "a")
    assert judged.passed and judged.metadata(2.0, 2.0) == {
        "exercise": None, "passed": True, "points": 2.0, "max_points": 2.0, "cases_failed": [], "mistakes": []}


# ---- a worker that dies ------------------------------------------------------------------------------------


def test_a_worker_that_dies_costs_its_own_submission_only():
    tasks = [{"student": name, "hash": name} for name in ("a", "b", "killer", "c", "d")]
    finished = []
    run._on_processes(2, tasks, finished.append, work=dies_on_the_killer)
    status = {result["student"]: result["status"] for result in finished}
    assert status == {"a": "graded", "b": "graded", "c": "graded", "d": "graded", "killer": "failed"}
    assert "died" in next(r["reason"] for r in finished if r["student"] == "killer")


# ---- the report against a small course made by hand ---------------------------------------------------------


def _verdict_cell(key, passed, words="", mistake=None):
    """A graded test cell as GradeOutsideKernel leaves it: the check's Verdict.metadata in the cell's metadata."""
    cell = nbformat.v4.new_code_cell(f"check.{key}.grade()")
    failed = [] if passed else ["case 1"]
    cell.metadata["kgslab"] = {"verdict": {
        "exercise": key, "passed": passed, "points": 2.0 if passed else 0.0, "max_points": 2.0, "cases_failed": failed,
        "mistakes": [{"case": case, "mistake": mistake, "words": words} for case in failed]}}
    return cell



def _small_course(tmp_path, template):
    """Three students of a1 (notebook nb): their grades, verdicts (in autograded/), a flag and timings."""
    course = tmp_path / "course"
    course.mkdir()
    (course / "nbgrader_config.py").write_text('c = get_config()\nc.CourseDirectory.course_id = "t"\n')
    db_url = _database(template, course / "gradebook.db")
    verdicts = {"ann": [True, True], "ben": [False, True], "cas": [False, False]}
    for student, (first, second) in verdicts.items():
        _worker_grades(db_url, student, 2.0 * first)
        notebook = nbformat.v4.new_notebook(cells=[
            _verdict_cell("nb01_exercise_1_primal", first, "the two arrays are swapped.", "train-test-swapped"),
            _verdict_cell("nb01_exercise_1_errors", second, "ridge_errors raised ValueError: bad")])
        folder = course / "autograded" / student / "a1"
        folder.mkdir(parents=True)
        nbformat.write(notebook, folder / "nb.ipynb")
        GradingRecord(course, "a1").add({"student": student, "status": "graded", "seconds": 10.0 + len(student)})
    with Gradebook(db_url) as gradebook:                                  # only cas keeps a flag
        for student in ("ann", "ben"):
            gradebook.find_comment("answer", "nb", "a1", student).auto_comment = None
        gradebook.db.commit()
    return course, db_url


def test_the_reports_numbers_are_the_gradebooks(tmp_path, template):
    course, db_url = _small_course(tmp_path, template)
    rows = class_rows(course, "a1")
    assert [row["student"] for row in rows] == ["ann", "ben", "cas"]
    assert exercise_rates(rows) == [("nb01_exercise_1_primal", 1, 3), ("nb01_exercise_1_errors", 2, 3)]
    assert ranked_mistakes(rows) == [
        ("nb01_exercise_1_primal", "the two arrays are swapped.", 2, ["ben", "cas"]),
        ("nb01_exercise_1_errors", "ridge_errors raised ValueError: bad", 1, ["cas"])]   # the case cut out
    html_path, csv_path = write_report(course, "a1")
    with open(csv_path, encoding="utf-8") as stream:
        written = {row["student"]: row for row in csv.DictReader(stream)}
    with Gradebook(db_url) as gradebook:
        for student, row in written.items():
            submission = gradebook.find_submission("a1", student)
            assert float(row["autograded_points"]) == submission.code_score
            assert float(row["grading_seconds"]) == 10.0 + len(student)
    assert written["cas"]["flags"] == "kgslab flags cas" and written["ann"]["flags"] == ""
    page = html_path.read_text()
    assert page.count("data:image/png;base64,") == 3 and "<script" not in page and "http" not in page
    assert "3 submissions graded; mean 0.7 of 2 autograded points; 1 with full marks; 1 flagged" in page


# ---- bad input ---------------------------------------------------------------------------------------------


def test_bad_input_gets_a_clear_error(tmp_path, capsys, template):
    with pytest.raises(SystemExit):
        main([str(tmp_path), "01_duality", "--jobs", "0"])
    assert "--jobs" in capsys.readouterr().err
    assert main([str(tmp_path), "01_duality"]) == 2
    assert "course_dir: expected an nbgrader course directory" in capsys.readouterr().err
    course, _ = _small_course(tmp_path, template)
    assert main([str(course), "02_kernel_ridge", "--quiet"]) == 2
    error = capsys.readouterr().err
    assert "'02_kernel_ridge' is not in the course's gradebook" in error and "generate_assignment" in error
    with pytest.raises(ValueError, match="jobs"):
        run.grade_class(course, "a1", jobs=0)


def test_submissions_are_found_where_nbgrader_puts_them(tmp_path, template):
    course, _ = _small_course(tmp_path, template)
    for student in ("x", "y"):
        (course / "submitted" / student / "a1").mkdir(parents=True)
    (course / "submitted" / "z" / "other").mkdir(parents=True)
    assert {k: v.name for k, v in run.find_submissions(course, "a1").items()} == {"x": "a1", "y": "a1"}

"""Every submission gets its row and reason; the class report's sections; the LMS files read back by the LMS's rules.

The course is the small one tests/test_grade_units.py builds by hand (assignment a1: a 2-point autograded test,
a 1-point written answer).  The LMS files are read back by `canvas_import` and `moodle_import` below, written from
the LMSs' documented import rules (not from kgslab.grade.export), with the csv module's RFC 4180 reader:

* Canvas, Gradebook > Import (its gradebook CSV): a header row; the student columns Student, ID, SIS User ID,
  SIS Login ID, Integration ID, Section, Root Account; a student is found by ID, else SIS User ID, else SIS Login
  ID, else Integration ID (the name alone does not find one); an optional second row whose first cell is
  "Points Possible"; every other column is an assignment, "Title (id)" an existing one, anything else a new
  one; a score is a number of points, "EX" (excused) or empty (no change).
* Moodle, Grades > Import > CSV file (grade/import/csv/classes/load_data.php and lib/csvlib.class.php): UTF-8,
  comma-separated; the header's names are trimmed and must differ; every row must have the header's number of
  fields ("csvweirdcolumns"); the column chosen in "Identify user by" must name a user on every row (an unknown
  or empty one aborts the whole import); a grade is empty or "-" (no grade) or a number, at most 100 unless
  the site raised gradepointmax ("badgrade", "gradevaluetoobig").
"""

import csv
import datetime
import io
import json
import re
import shutil

import nbformat
import pytest

pytest.importorskip("nbgrader", reason="nbgrader comes with the test extra: pip install -e '.[test]'")
from nbgrader.api import Gradebook  # noqa: E402

from kgslab.grade import run  # noqa: E402
from kgslab.grade.__main__ import main  # noqa: E402
from kgslab.grade.export import export, read_roster  # noqa: E402
from kgslab.grade.merge import FAILURE_PREFIX, merge_failure  # noqa: E402
from kgslab.grade.record import GradingRecord  # noqa: E402
from kgslab.grade.class_report import class_rows, exercise_points, failures, ranked_mistakes, write_report  # noqa: E402
from kgslab.grade.worker import unreadable  # noqa: E402
from test_grade_units import _small_course, _venv_on_path, template  # noqa: E402,F401  (fixtures)

CANVAS_STUDENT_COLUMNS = {"Student", "ID", "SIS User ID", "SIS Login ID", "Integration ID", "Section", "Root Account"}
CANVAS_FINDS_BY = ["ID", "SIS User ID", "SIS Login ID", "Integration ID"]


def canvas_import(text: str, known: dict[str, str]) -> tuple[dict[str, float], dict[str, dict[str, str]]]:
    """Canvas's reading of a gradebook CSV: ({assignment column: points possible}, {student key: {column:
    value}}); `known` maps each identifier Canvas knows (any of CANVAS_FINDS_BY's values) to the student."""
    rows = list(csv.reader(io.StringIO(text)))
    header = rows[0]
    assert "Student" in header and "Section" in header, header
    assert any(name in header for name in CANVAS_FINDS_BY), header
    assignments = [name for name in header if name not in CANVAS_STUDENT_COLUMNS]
    possible = {}
    body = rows[1:]
    if body and body[0][0] == "Points Possible":
        possible = {name: float(body[0][header.index(name)]) for name in assignments}
        body = body[1:]
    scores = {}
    for row in body:
        assert len(row) == len(header), row
        fields = dict(zip(header, row))
        ids = [fields[name] for name in CANVAS_FINDS_BY if fields.get(name)]
        student = next((known[value] for value in ids if value in known), None)
        assert student is not None, f"Canvas finds no student for {fields}"
        for name in assignments:
            value = fields[name]
            assert value == "" or value == "EX" or float(value) >= 0, (name, value)
        scores[student] = {name: fields[name] for name in assignments}
    return possible, scores


def moodle_import(text: str, identify_by: str, users: set[str], grade_columns: list[str],
                  gradepointmax: float = 100.0) -> dict[str, dict[str, float | None]]:
    """Moodle's reading of a grade import CSV: {user: {grade column: grade or None}}, or AssertionError where
    Moodle would abort the import."""
    rows = [row for row in csv.reader(io.StringIO(text)) if row]
    header = [name.strip() for name in rows[0]]
    assert len(set(header)) == len(header), f"duplicatefieldname: {header}"
    found = {}
    for row in rows[1:]:
        assert len(row) == len(header), f"csvweirdcolumns: {row}"
        fields = {name: value.strip() for name, value in zip(header, row)}
        user = fields[identify_by]
        assert user and user in users, f"usermappingerror: {identify_by} {user!r}"
        grades = {}
        for name in grade_columns:
            value = fields[name]
            if value in ("", "-"):
                grades[name] = None
            else:
                number = float(value)                              # badgrade if not a number
                assert number <= gradepointmax, f"gradevaluetoobig: {number}"
                grades[name] = number
        found[user] = grades
    return found


# ---- a submission that cannot be graded ------------------------------------------------------------------


def _failing_course(tmp_path, template):
    """The small course with a submission of nb.ipynb that is not JSON (dee) and source/a1/nb.ipynb."""
    course, db_url = _small_course(tmp_path, template)
    (course / "source" / "a1").mkdir(parents=True)
    nbformat.write(nbformat.v4.new_notebook(), course / "source" / "a1" / "nb.ipynb")
    folder = course / "submitted" / "dee" / "a1"
    folder.mkdir(parents=True)
    (folder / "nb.ipynb").write_text('{"cells": [ {"cell_type": "code", "source": "x = 1"')    # cut short
    (folder / "timestamp.txt").write_text("2026-01-09 10:00:00.000000 UTC")
    return course, db_url


def test_a_file_that_is_not_a_notebook_is_named_as_such(tmp_path, template):
    course, _ = _failing_course(tmp_path, template)
    reason = unreadable(course, "a1", "dee")
    assert reason.startswith("not a notebook: nb.ipynb: NotJSONError"), reason
    good = course / "submitted" / "eve" / "a1"
    good.mkdir(parents=True)
    nbformat.write(nbformat.v4.new_notebook(), good / "nb.ipynb")
    (good / "notes.ipynb").write_text("not json, and not one of the assignment's notebooks")
    assert unreadable(course, "a1", "eve") is None


def test_a_failure_gets_its_row_with_zero_points_and_the_reason(tmp_path, template):
    course, db_url = _failing_course(tmp_path, template)
    with Gradebook(db_url) as gradebook:        # dee had been graded before, and her written answer marked
        gradebook.update_or_create_student("dee")
        gradebook.update_or_create_submission("a1", "dee")
        gradebook.find_grade("test", "nb", "a1", "dee").auto_score = 2.0
        gradebook.find_grade("written", "nb", "a1", "dee").manual_score = 1.0
        gradebook.db.commit()
    reason = "not a notebook: nb.ipynb: NotJSONError: cut, short"
    when = datetime.datetime(2026, 1, 9, 10)
    merge_failure(db_url, "a1", "dee", reason, when)
    merge_failure(db_url, "a1", "dee", reason, when)                                       # idempotent
    with Gradebook(db_url) as gradebook:
        submission = gradebook.find_submission("a1", "dee")
        assert submission.timestamp == when
        assert gradebook.find_grade("test", "nb", "a1", "dee").score == 0.0
        assert gradebook.find_grade("written", "nb", "a1", "dee").score == 1.0          # the instructor's stays
        assert not submission.needs_manual_grade
        comments = {c.name: c.auto_comment for c in submission.notebooks[0].comments}
    assert comments == {"answer": f"{FAILURE_PREFIX} {reason}"}          # nbgrader's comment of each answer cell


def test_a_failed_submission_is_in_the_gradebook_and_a_rerun_says_it_failed(tmp_path, template, monkeypatch):
    course, db_url = _failing_course(tmp_path, template)
    # Grade only dee (the hand-made students have no submissions); the failure comes from the worker's own check,
    # before nbgrader runs, in this process.
    monkeypatch.setattr(run, "_on_processes", lambda jobs, tasks, finish: [finish(run.grade_submission(t))
                                                                           for t in tasks])
    first = run.grade_class(course, "a1", jobs=1, quiet=True)
    assert list(first.failed) == ["dee"] and first.failed["dee"].startswith("not a notebook: nb.ipynb")
    with Gradebook(db_url) as gradebook:
        submission = gradebook.find_submission("a1", "dee")
        assert submission.score == 0.0
        assert any((c.auto_comment or "").startswith(f"{FAILURE_PREFIX} not a notebook") for c in
                   submission.notebooks[0].comments)
    again = run.grade_class(course, "a1", jobs=1, quiet=True)
    assert again.skipped == [] and list(again.failed_before) == ["dee"]
    assert "1 failed before from the same files (--retry-failed tries them again)" in again.line()
    rows = class_rows(course, "a1")
    assert [row["student"] for row in rows] == ["ann", "ben", "cas", "dee"]
    assert failures(course, "a1", rows) == [("dee", first.failed["dee"])]
    page = write_report(course, "a1")[0].read_text()
    assert 'id="failures"' in page and "not a notebook: nb.ipynb" in page
    assert "4 submissions: 3 graded, 1 could not be graded (0 points); mean 0.5 of 2 autograded points" in page
    assert "<td>dee</td><td>0</td><td>0</td><td>could not be graded</td><td>no notebook to grade</td>" in page
    assert "3 with written answers still to grade by hand" in page
    # --student grades one student again, even one graded before from the same files
    one = run.grade_class(course, "a1", jobs=1, quiet=True, students=["dee"])
    assert list(one.failed) == ["dee"] and not one.failed_before
    with pytest.raises(ValueError, match="student: expected students with a submission of a1"):
        run.grade_class(course, "a1", jobs=1, quiet=True, students=["nobody"])


# ---- the class report's sections ---------------------------------------------------------------------------


def test_the_report_counts_a_mistake_once_and_keeps_not_attempted_out_of_the_ranking(tmp_path, template):
    course, db_url = _small_course(tmp_path, template)
    # ben's primal fails three cases with the same mistake; cas left primal as released
    for student, mistakes in (("ben", [("train-test-swapped", "the two arrays are swapped.")] * 3),
                              ("cas", [("not-attempted", "not attempted yet")] * 3)):
        path = course / "autograded" / student / "a1" / "nb.ipynb"
        notebook = nbformat.read(path, as_version=4)
        verdict = notebook.cells[0].metadata["kgslab"]["verdict"]
        verdict["mistakes"] = [{"case": f"case {i}", "mistake": m, "words": w} for i, (m, w) in enumerate(mistakes)]
        nbformat.write(notebook, path)
    with Gradebook(db_url) as gradebook:
        gradebook.find_grade("written", "nb", "a1", "ann").manual_score = 1.0
        gradebook.db.commit()
    rows = class_rows(course, "a1")
    assert ranked_mistakes(rows) == [                 # cas's blank primal is no mistake; ben's swap is one
        ("nb01_exercise_1_errors", "ridge_errors raised ValueError: bad", 1, ["cas"]),
        ("nb01_exercise_1_primal", "the two arrays are swapped.", 1, ["ben"])]
    assert exercise_points(rows) == [("test", pytest.approx(2 / 3), 2.0, 3)]      # ann 2, ben 0, cas 0
    html_path, csv_path = write_report(course, "a1")
    with open(csv_path, encoding="utf-8") as stream:
        written = {row["student"]: row for row in csv.DictReader(stream)}
    assert written["ben"]["mistakes"].count("swapped") == 1
    assert written["cas"]["not_attempted"] == "nb01_exercise_1_primal" and "not attempted" not in written["cas"][
        "mistakes"]
    assert written["ann"]["written_answers"] == "all 1 graded by hand"
    assert written["ben"]["written_answers"] == "0 of 1 graded by hand"
    page = html_path.read_text()
    assert "2 with written answers still to grade by hand" in page
    assert re.search(r"<td>written</td><td>1 of 3</td><td>1.00 of 1</td>", page), "written answers' state"
    assert page.count("data:image/png;base64,") == 3


# ---- the LMS files -----------------------------------------------------------------------------------------


def _graded_for_export(tmp_path, template):
    """ann: full, written graded (3 of 3); ben: 0 + 1 written, 1 late point (0 after the penalty floor);
    cas: written not graded yet; dee: could not be graded; fay: in the roster, no submission."""
    course, db_url = _small_course(tmp_path, template)
    with Gradebook(db_url) as gradebook:
        gradebook.find_grade("written", "nb", "a1", "ann").manual_score = 1.0
        gradebook.find_grade("written", "nb", "a1", "ben").manual_score = 1.0
        gradebook.find_submission_notebook("nb", "a1", "ben").late_submission_penalty = 1.0
        gradebook.db.commit()
    merge_failure(db_url, "a1", "dee", 'not a notebook: nb.ipynb: "cut", short\nline two')
    roster = tmp_path / "roster.csv"
    with open(roster, "w", newline="", encoding="utf-8-sig") as stream:      # Excel's BOM, as LMS exports have
        writer = csv.writer(stream)
        writer.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "First name", "Last name",
                         "Email address", "student_id"])
        writer.writerow(["Points Possible", "", "", "", "", "", "", "", ""])
        for student, name in (("ann", ("Ann", "Lee")), ("ben", ("Ben", 'O"Neil, Jr')), ("cas", ("Cas", "Ng")),
                              ("dee", ("Dee", "Roe")), ("fay", ("Fay", "Wu"))):
            writer.writerow([f"{name[1]}, {name[0]}", f"10{len(student)}{student}", f"S-{student}", student,
                             "Lab A, Tuesday", name[0], name[1], f"{student}@uni.example", student])
    return course, roster


def test_the_canvas_file_imports_by_canvas_rules(tmp_path, template):
    course, roster = _graded_for_export(tmp_path, template)
    done = export(course, "a1", "canvas", roster, column="Assignment 1 (4711)")
    assert done.awaiting_manual == ["cas"] and done.no_submission == ["fay"] and done.failed == ["dee"]
    known = {f"S-{s}": s for s in ("ann", "ben", "cas", "dee", "fay")}
    possible, scores = canvas_import(done.path.read_text(encoding="utf-8"), known)
    assert possible == {"Assignment 1 (4711)": 3.0}                 # the assignment's points, written included
    assert {s: row["Assignment 1 (4711)"] for s, row in scores.items()} == {
        "ann": "3", "ben": "0", "cas": "", "dee": "0", "fay": "0"}  # ben: 0 + 1 - 1 late; cas: no change yet
    header = next(csv.reader(io.StringIO(done.path.read_text(encoding="utf-8"))))
    assert header[:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


def test_the_moodle_file_imports_by_moodle_rules_with_each_exercise(tmp_path, template):
    course, roster = _graded_for_export(tmp_path, template)
    done = export(course, "a1", "moodle", roster)
    text = done.path.read_text(encoding="utf-8")
    header = next(csv.reader(io.StringIO(text)))
    assert header[-4:] == ["a1 test", "a1 written answer written", "a1", "a1 feedback"]   # cells, total, feedback
    grade_columns = [name for name in header[header.index("Email address") + 1:] if not name.endswith("feedback")]
    users = {f"{s}@uni.example" for s in ("ann", "ben", "cas", "dee", "fay")}
    read = moodle_import(text, "Email address", users, grade_columns)
    by = {user.split("@")[0]: grades for user, grades in read.items()}
    test, written, total = grade_columns
    assert by["ann"] == {test: 2.0, written: 1.0, total: 3.0}
    assert by["ben"] == {test: 0.0, written: 1.0, total: 0.0}
    assert by["cas"] == {test: 0.0, written: None, total: None}           # not graded yet: no grade, not 0
    assert by["dee"] == {test: 0.0, written: 0.0, total: 0.0}
    assert by["fay"] == {test: 0.0, written: 0.0, total: 0.0}
    feedback = {row["Email address"].split("@")[0]: row["a1 feedback"] for row in csv.DictReader(io.StringIO(text))}
    assert feedback["dee"].startswith("Autograded 0 of 2 points.") and '"cut", short line two' in feedback["dee"]
    assert "Late penalty 1 points." in feedback["ben"] and "not graded yet" in feedback["cas"]
    with pytest.raises(AssertionError, match="usermappingerror"):            # the reader does refuse a stranger
        moodle_import(text, "Email address", users - {"fay@uni.example"}, grade_columns)


def test_the_export_refuses_a_roster_it_cannot_use(tmp_path, template, capsys):
    course, roster = _graded_for_export(tmp_path, template)
    with pytest.raises(ValueError, match="roster: expected a column 'nbgrader_id'"):
        read_roster(roster, "nbgrader_id")
    plain = tmp_path / "plain.csv"
    plain.write_text("student_id,name\nann,Ann\n")
    with pytest.raises(ValueError, match=r"roster: expected a column Moodle identifies a student by"):
        export(course, "a1", "moodle", plain)
    with pytest.raises(ValueError, match="roster: Canvas's import needs the column 'Student'"):
        plain.write_text("student_id,SIS User ID,Section\nann,S-ann,\n")
        export(course, "a1", "canvas", plain)
    twice = tmp_path / "twice.csv"
    twice.write_text("student_id,Email address\nann,a@x\nann,b@x\n")
    with pytest.raises(ValueError, match="'ann' twice"):
        export(course, "a1", "moodle", twice)
    with pytest.raises(SystemExit):
        main([str(course), "a1", "--export", "canvas"])
    assert "--export: expected --roster FILE" in capsys.readouterr().err
    short = tmp_path / "short.csv"                                          # ben is graded but not in it
    shutil.copyfile(roster, short)
    lines = short.read_text(encoding="utf-8-sig").splitlines()
    short.write_text("\n".join(line for line in lines if ",ben" not in line) + "\n", encoding="utf-8")
    done = export(course, "a1", "moodle", short)
    assert done.not_in_roster == ["ben"] and "ben" not in done.students
    assert json.dumps(done.lines())

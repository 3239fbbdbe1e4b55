"""Grades to the LMS: a Canvas gradebook import CSV or a Moodle grade import CSV, from the gradebook and a roster.

``python -m kgslab.grade COURSE NN_topic --export canvas|moodle --roster FILE``

nbgrader's own ``nbgrader export`` writes one total per student and assignment
with nbgrader's names and emails, which are usually empty on a hub.  The LMS
knows its students by its own identifiers, so the roster (a CSV file; the
LMS's own gradebook export will do) supplies them: one row per student, the
column named by ``roster_id`` (default ``student_id``) holding the student's
nbgrader id (their hub user name), the other columns named as the LMS names
them.  Every value is written by the csv module (RFC 4180 quoting, UTF-8).

* Canvas ("Import" in the Gradebook): the identity columns ``Student``, ``ID``,
  ``SIS User ID``, ``SIS Login ID``, ``Integration ID``, ``Section`` that the
  roster has (Canvas matches a student by ID, then the SIS and integration
  ids; ``Student`` and ``Section`` are required headings), a ``Points
  Possible`` row, then one column for the assignment: Canvas takes one score
  per assignment, so the exercises do not get columns of their own (each would
  become a new Canvas assignment).  Name the column ``Title (id)`` with
  ``column`` to update an existing Canvas assignment; otherwise Canvas creates
  one.
* Moodle (Grades > Import > CSV file): the identity columns ``First name``,
  ``Last name``, ``ID number``, ``Email address``, ``Username`` that the roster
  has (map one of the last three in "Identify user by"), then one column per
  graded cell (the exercises and the written answers), the assignment's total,
  and a feedback column: map the exercise columns to new grade items, or the
  total to the assignment's grade item, and the feedback to its feedback.

The total is nbgrader's (``nbgrader export``'s score): every grade, manual
score before auto score, less the late penalty, not below 0.  It is left
empty, which both LMSs read as "no grade, change nothing", while a written
answer still waits for its manual grade (the total would be short of points
the student may have earned); such students are named in the result.  A
student of the roster with no submission gets 0, as nbgrader exports it; a
submission that could not be graded has 0 and the reason in the feedback.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["CANVAS_IDENTITY", "MOODLE_IDENTITY", "Exported", "read_roster", "export"]

CANVAS_IDENTITY = ["Student", "ID", "SIS User ID", "SIS Login ID", "Integration ID", "Section"]
CANVAS_MATCH = ["ID", "SIS User ID", "SIS Login ID", "Integration ID"]
MOODLE_IDENTITY = ["First name", "Last name", "ID number", "Email address", "Username"]
MOODLE_MATCH = ["ID number", "Email address", "Username"]
LMS = ("canvas", "moodle")


@dataclass
class Exported:
    """What an export wrote: the file, the students written, and those the instructor should look at."""
    path: Path
    students: list[str] = field(default_factory=list)
    not_in_roster: list[str] = field(default_factory=list)       # graded, but the LMS file cannot name them
    no_submission: list[str] = field(default_factory=list)       # in the roster, 0 points
    awaiting_manual: list[str] = field(default_factory=list)     # total left empty
    failed: list[str] = field(default_factory=list)              # 0 points, the reason in the feedback

    def lines(self) -> list[str]:
        said = [f"{self.path}: {len(self.students)} students"]
        for label, names in (("graded but not in the roster, left out", self.not_in_roster),
                             ("no submission, 0 points", self.no_submission),
                             ("written answers not graded yet, total left empty", self.awaiting_manual),
                             ("could not be graded, 0 points", self.failed)):
            if names:
                said.append(f"{label}: {', '.join(names)}")
        return said


def read_roster(path: Path, roster_id: str = "student_id") -> tuple[list[str], dict[str, dict[str, str]]]:
    """(the roster's columns, {nbgrader student id: its row}); rows without an id (Canvas's "Points Possible"
    row, a blank line) are skipped."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"roster: expected a CSV file of the class, got {str(path)!r}, which does not exist")
    with open(path, newline="", encoding="utf-8-sig") as stream:
        reader = csv.DictReader(stream)
        columns = [name.strip() for name in reader.fieldnames or []]
        if roster_id not in columns:
            raise ValueError(f"roster: expected a column {roster_id!r} holding each student's nbgrader id (or name "
                             f"the column with --roster-id), got the columns {columns}")
        rows = {}
        for row in reader:
            row = {(key or "").strip(): (value or "").strip() for key, value in row.items()}
            student = row.get(roster_id, "")
            if not student or row.get("Student") == "Points Possible":
                continue
            if student in rows:
                raise ValueError(f"roster: expected each student once, got {student!r} twice in {roster_id!r}")
            rows[student] = row
    return columns, rows


def _cells(course: Path, assignment: str, gradebook) -> list[dict]:
    """The assignment's graded cells in the notebooks' order: name, title, max points, kind."""
    import nbformat

    order = {}
    for path in sorted((Path(course) / "source" / assignment).glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if grade_id and grade_id not in order:
                order[grade_id] = len(order)
    cells = []
    for notebook in gradebook.find_assignment(assignment).notebooks:
        for cell in notebook.grade_cells:
            cells.append({"name": cell.name, "notebook": notebook.name, "max": float(cell.max_score),
                          "kind": "written" if cell.cell_type == "markdown" else "autograded"})
    cells.sort(key=lambda cell: (order.get(cell["name"], len(order)), cell["notebook"], cell["name"]))
    titles = [_title(assignment, cell) for cell in cells]
    for cell, title in zip(cells, titles):
        cell["title"] = title if titles.count(title) == 1 else f"{title} [{cell['name']}]"
    return cells


def _title(assignment: str, cell: dict) -> str:
    key = cell["name"].removeprefix(f"{assignment}-")
    if cell["kind"] == "written":
        return f"{assignment} written answer {key}"
    from kgslab import check

    exercise = check.exercises().get(key)
    return f"{assignment} {exercise.title}" if exercise is not None else f"{assignment} {key}"


def _points(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def _student_grades(gradebook, assignment: str, student: str, cells: list[dict]) -> dict:
    """{cell name: points or None (waiting for a manual grade)}, total (None if waiting), feedback, state."""
    from nbgrader.api import MissingEntry

    from .merge import FAILURE_PREFIX

    try:
        submission = gradebook.find_submission(assignment, student)
    except MissingEntry:
        return {"points": {cell["name"]: 0.0 for cell in cells}, "total": 0.0, "state": "no submission",
                "feedback": "No submission."}
    points, failure = {}, None
    for notebook in submission.notebooks:
        for grade in notebook.grades:
            waiting = grade.needs_manual_grade and grade.manual_score is None
            points[grade.name] = None if waiting else float(grade.score)
        for comment in notebook.comments:
            if (comment.auto_comment or "").startswith(FAILURE_PREFIX):
                failure = comment.auto_comment
    penalty = float(submission.late_submission_penalty or 0.0)
    waiting = any(value is None for value in points.values())
    total = None if waiting else max(0.0, float(submission.score) - penalty)
    auto = sum(points.get(c["name"]) or 0.0 for c in cells if c["kind"] == "autograded")
    auto_max = sum(c["max"] for c in cells if c["kind"] == "autograded")
    written = [c for c in cells if c["kind"] == "written"]
    said = [f"Autograded {auto:g} of {auto_max:g} points."]
    if written:
        if waiting:
            said.append("Written answers not graded yet.")
        else:
            said.append(f"Written answers {sum(points.get(c['name']) or 0.0 for c in written):g} of "
                        f"{sum(c['max'] for c in written):g} points.")
    if penalty:
        said.append(f"Late penalty {penalty:g} points.")
    if failure:
        said.append(failure)
    state = "failed" if failure else ("awaiting manual" if waiting else "graded")
    return {"points": points, "total": total, "state": state, "feedback": " ".join(said)}


def export(course, assignment: str, lms: str, roster: Path, *, roster_id: str = "student_id",
           column: str | None = None, out: Path | None = None) -> Exported:
    """Write the LMS's import file for `assignment` (see module doc); return what was written."""
    from nbgrader.api import Gradebook, MissingEntry
    from nbgrader.coursedir import CourseDirectory

    from .worker import nbgrader_config

    if lms not in LMS:
        raise ValueError(f"export: expected one of {', '.join(LMS)}, got {lms!r}")
    course = Path(course)
    columns, students = read_roster(roster, roster_id)
    identity = [name for name in (CANVAS_IDENTITY if lms == "canvas" else MOODLE_IDENTITY) if name in columns]
    match = CANVAS_MATCH if lms == "canvas" else MOODLE_MATCH
    if not any(name in identity for name in match):
        raise ValueError(f"roster: expected a column {lms.title()} identifies a student by ({' or '.join(match)}), "
                         f"got the columns {columns}")
    if lms == "canvas":
        for required in ("Student", "Section"):
            if required not in identity:
                raise ValueError(f"roster: Canvas's import needs the column {required!r} (it may be empty); got the "
                                 f"columns {columns}")
    unnamed = [student for student, row in students.items() if not any(row.get(name) for name in match)]
    if unnamed:
        raise ValueError(f"roster: expected every student to have a value in one of {match}; "
                         f"none for {', '.join(unnamed)}")
    out = Path(out) if out else course / "kgslab-grade" / f"{assignment}-{lms}.csv"
    out.parent.mkdir(parents=True, exist_ok=True)
    result = Exported(out)
    with Gradebook(CourseDirectory(config=nbgrader_config(course)).db_url) as gradebook:
        try:
            cells = _cells(course, assignment, gradebook)
        except MissingEntry:
            raise ValueError(f"assignment {assignment!r} is not in the course's gradebook") from None
        graded = sorted(s.student_id for s in gradebook.assignment_submissions(assignment))
        result.not_in_roster = [student for student in graded if student not in students]
        heading = column or assignment
        maximum = sum(cell["max"] for cell in cells)
        with open(out, "w", newline="", encoding="utf-8") as stream:
            writer = csv.writer(stream)                      # RFC 4180: quotes what needs quoting, "" inside
            if lms == "canvas":
                writer.writerow([*identity, heading])
                writer.writerow(["Points Possible", *[""] * (len(identity) - 1), f"{maximum:g}"])
            else:
                writer.writerow([*identity, *[cell["title"] for cell in cells], heading, f"{heading} feedback"])
            for student, row in students.items():
                grades = _student_grades(gradebook, assignment, student, cells)
                {"no submission": result.no_submission, "awaiting manual": result.awaiting_manual,
                 "failed": result.failed}.get(grades["state"], []).append(student)
                names = [row.get(name, "") for name in identity]
                if lms == "canvas":
                    writer.writerow([*names, _points(grades["total"])])
                else:
                    # Moodle reads a line break inside a field as the end of the row in older versions
                    feedback = " ".join(grades["feedback"].split())
                    writer.writerow([*names, *[_points(grades["points"].get(cell["name"])) for cell in cells],
                                     _points(grades["total"]), feedback])
                result.students.append(student)
    return result

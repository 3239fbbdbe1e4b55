"""A worker's grades into the course's gradebook, through nbgrader's Gradebook API.

nbgrader's issue #174 (parallel autograde) ends with instructors running
separate processes on separate gradebooks and merging them by hand.  Here the
merge is what ``nbgrader autograde`` itself writes for one student, copied
field by field from the worker's gradebook (`kgslab.grade.worker.read_rows`):
the student (names kept where the worker had none), the submission's
timestamp, each notebook's late penalty (AssignLatePenalties), each grade's
auto_score and needs_manual_grade (SaveAutoGrades: True when a manual score
existed when the run started) and each comment's auto_comment (SaveAutoGrades'
"No response.", kgslab's flags).  Manual scores and comments the instructor
wrote are never touched.  One commit per student: a kill between commits
leaves a submission that the record does not list yet, so a rerun grades and
merges it again.
"""

from __future__ import annotations

from datetime import datetime

__all__ = ["merge_submission"]


def merge_submission(db_url: str, assignment: str, student: str, rows: dict) -> None:
    """Write one student's autograde results (`rows`, from the worker's gradebook) into the gradebook at db_url."""
    from nbgrader.api import Gradebook

    with Gradebook(db_url) as gradebook:
        fields = {field: value for field, value in rows["student"].items() if value is not None}
        gradebook.update_or_create_student(student, **fields)
        when = {"timestamp": datetime.fromisoformat(rows["timestamp"])} if rows["timestamp"] else {}
        gradebook.update_or_create_submission(assignment, student, **when)
        for name, notebook in rows["notebooks"].items():
            submitted = gradebook.find_submission_notebook(name, assignment, student)
            submitted.late_submission_penalty = notebook["late_submission_penalty"]
            for cell, grade in notebook["grades"].items():
                row = gradebook.find_grade(cell, name, assignment, student)
                row.auto_score = grade["auto_score"]
                row.needs_manual_grade = grade["needs_manual_grade"]
            for cell, comment in notebook["comments"].items():
                gradebook.find_comment(cell, name, assignment, student).auto_comment = comment
        gradebook.db.commit()

"""A worker's grades into the course's gradebook, through nbgrader's Gradebook API.

Each worker grades into a gradebook of its own, so that parallel workers never
write one SQLite file at once; the merge is what ``nbgrader autograde`` itself
writes for one student, copied field by field from the worker's gradebook (`kgslab.grade.worker.read_rows`):
the student (names kept where the worker had none), the submission's
timestamp, each notebook's late penalty (AssignLatePenalties), each grade's
auto_score and needs_manual_grade (SaveAutoGrades: True when a manual score
existed when the run started) and each comment's auto_comment (SaveAutoGrades'
"No response.", kgslab's flags).  Manual scores and comments the instructor
wrote are never touched.  One commit per student: a kill between commits
leaves a submission that the record does not list yet, so a rerun grades and
merges it again.

A submission that could not be graded (`merge_failure`) still gets its row:
every grade of it 0 points and no longer waiting for a manual grade (there is
no readable notebook to grade by hand), and the reason in the comment of each
answer cell, where formgrader and the feedback show it.  A manual score the
instructor gave stays, and counts.
"""

from __future__ import annotations

from datetime import datetime

__all__ = ["merge_submission", "merge_failure", "FAILURE_PREFIX"]

FAILURE_PREFIX = "Not graded:"


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


def merge_failure(db_url: str, assignment: str, student: str, reason: str, timestamp=None) -> None:
    """Give a submission that could not be graded its row: 0 points and `reason` in each graded cell's comment."""
    from nbgrader.api import Gradebook

    with Gradebook(db_url) as gradebook:
        gradebook.update_or_create_student(student)
        when = {"timestamp": timestamp} if timestamp else {}
        submission = gradebook.update_or_create_submission(assignment, student, **when)
        for notebook in submission.notebooks:
            notebook.late_submission_penalty = 0.0
            for grade in notebook.grades:
                grade.auto_score = 0.0
                grade.needs_manual_grade = False
            for comment in notebook.comments:             # nbgrader keeps a comment per answer (solution) cell
                comment.auto_comment = f"{FAILURE_PREFIX} {reason}"
        gradebook.db.commit()

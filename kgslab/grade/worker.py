"""One submission, graded in a worker: nbgrader's own autograde, on the worker's own copy of the gradebook.

The worker (a local process or a Dask worker) keeps nbgrader imported from one
submission to the next, and grades into a private copy of the course's
gradebook (made once per worker and run from the run's snapshot with SQLite's
backup API), so workers never write to the same database.  It runs nbgrader's
``Autograde`` converter in-process, the class ``nbgrader autograde`` runs, with
the configuration that command reads in the course directory; only the
database differs.  What autograde wrote for the student (student, submission
time, late penalties, grades, comments) comes back as plain data for
`kgslab.grade.merge`, with the structured verdicts the grader left in the
autograded notebooks and the captured log.  Any error is returned as the
submission's failure, with its reason; it never reaches the other submissions.
A submitted file that is not a notebook nbformat can read is a failure named as
such ("not a notebook: NAME: ...") before nbgrader runs, whose own message
would name only the assignment and the student.
"""

from __future__ import annotations

import atexit
import io
import logging
import shutil
import sqlite3
import tempfile
import threading
import time
import traceback
from pathlib import Path

import nbformat

__all__ = ["grade_submission", "nbgrader_config", "read_rows", "read_verdicts", "copy_database", "unreadable"]

_COPIES: dict[tuple, Path] = {}          # (run, thread) -> this worker's gradebook copy
_LOCK = threading.Lock()


def nbgrader_config(course: Path):
    """The configuration ``nbgrader autograde`` reads when run in `course`: Jupyter's config folders (lowest
    priority first), then the course's own nbgrader_config.py; the course directory is the root."""
    try:            # nbgrader's own configuration system (the kit's test extra, on the instructor's side)
        from jupyter_core.paths import jupyter_config_path
        from traitlets.config import Config
        from traitlets.config.loader import ConfigFileNotFound, PyFileConfigLoader
    except ModuleNotFoundError as missing:
        raise ModuleNotFoundError("python -m kgslab.grade runs nbgrader, on the instructor's side: pip install "
                                  "nbgrader (the kit's test extra has it)") from missing

    config = Config()
    for folder in [*reversed(jupyter_config_path()), str(course)]:
        try:
            config.merge(PyFileConfigLoader("nbgrader_config.py", path=folder).load_config())
        except ConfigFileNotFound:
            continue
    if "root" not in config.CourseDirectory:
        config.CourseDirectory.root = str(Path(course).resolve())
    return config


def copy_database(source: Path, target: Path) -> None:
    """A consistent copy of a SQLite database, even while another process writes to it."""
    reading, writing = sqlite3.connect(source), sqlite3.connect(target)
    try:
        reading.backup(writing)
    finally:
        reading.close()
        writing.close()


def _own_copy(run: str, snapshot: Path) -> Path:
    """This worker's (this thread's) gradebook for the run, copied from the run's snapshot the first time."""
    key = (run, threading.get_ident())
    with _LOCK:
        if key not in _COPIES:
            folder = Path(tempfile.mkdtemp(prefix="kgslab-grade-"))
            atexit.register(shutil.rmtree, folder, True)
            copy_database(snapshot, folder / "gradebook.db")
            _COPIES[key] = folder / "gradebook.db"
        return _COPIES[key]


def unreadable(course: Path, assignment: str, student: str) -> str | None:
    """Why the submission's notebooks cannot be graded at all ("not a notebook: NAME: what nbformat said"), or
    None when every submitted notebook of the assignment's source reads as a notebook."""
    from nbgrader.coursedir import CourseDirectory

    coursedir = CourseDirectory(config=nbgrader_config(course))
    submitted = Path(coursedir.format_path(coursedir.submitted_directory, student, assignment))
    source = Path(coursedir.format_path(coursedir.source_directory, ".", assignment))
    expected = {path.name for path in source.glob("*.ipynb")}
    for path in sorted(submitted.glob("*.ipynb")):
        name = path.name
        if expected and name not in expected:
            continue                          # not one of the assignment's notebooks: nbgrader ignores it
        try:
            nbformat.read(path, as_version=4)
        except Exception as err:              # noqa: BLE001 -- NotJSONError, a bad schema, undecodable bytes
            detail = " ".join(str(err).split())[:300]
            return f"not a notebook: {name}: {type(err).__name__}: {detail}"
    return None


def _autograde(course: Path, assignment: str, student: str, database: Path) -> str:
    """``nbgrader autograde ASSIGNMENT --student STUDENT --create --force`` in-process; its log."""
    from nbgrader.converters import Autograde
    from nbgrader.coursedir import CourseDirectory

    config = nbgrader_config(course)
    config.CourseDirectory.db_url = f"sqlite:///{database}"
    coursedir = CourseDirectory(config=config)
    coursedir.assignment_id, coursedir.student_id = assignment, student
    app = Autograde(coursedir=coursedir, config=config)
    app.force, app.create_student = True, True
    text = io.StringIO()
    logger = logging.getLogger(f"kgslab.grade.worker.{threading.get_ident()}")
    logger.handlers[:] = [logging.StreamHandler(text)]
    logger.handlers[0].setFormatter(logging.Formatter("[%(levelname)s] %(message)s"))
    logger.setLevel(logging.INFO)
    logger.propagate = False                  # the progress bar, not nbgrader's log, is what the terminal shows
    app.log = logger
    try:
        app.start()
    except BaseException as err:              # noqa: BLE001 -- NbGraderException, SystemExit, anything
        raise _Failed(_reason(err, text.getvalue()), text.getvalue()) from err
    return text.getvalue()


class _Failed(Exception):
    def __init__(self, reason: str, log: str):
        super().__init__(reason)
        self.reason, self.log = reason, log


def _reason(err: BaseException, log: str) -> str:
    """One line: nbgrader's last error message, else the exception."""
    errors = [line for line in log.splitlines() if line.startswith(("[ERROR]", "[CRITICAL]"))]
    detail = [line.removeprefix("[ERROR] ").removeprefix("[CRITICAL] ").strip() for line in errors]
    detail = [line for line in detail if line and not line.startswith("Please see")]
    return (detail[-1] if detail else f"{type(err).__name__}: {err}")[:500]


def read_rows(db_url: str, assignment: str, student: str) -> dict:
    """What autograde wrote for `student` in a gradebook, as plain data (see kgslab.grade.merge)."""
    from nbgrader.api import Gradebook

    with Gradebook(db_url) as gradebook:
        person = gradebook.find_student(student)
        submission = gradebook.find_submission(assignment, student)
        notebooks = {}
        for notebook in submission.notebooks:
            notebooks[notebook.name] = {
                "late_submission_penalty": notebook.late_submission_penalty,
                "grades": {grade.name: {"auto_score": grade.auto_score,
                                        "needs_manual_grade": bool(grade.needs_manual_grade)}
                           for grade in notebook.grades},
                "comments": {comment.name: comment.auto_comment for comment in notebook.comments}}
        return {"student": {field: getattr(person, field) for field in ("first_name", "last_name", "email",
                                                                          "lms_user_id")},
                "timestamp": submission.timestamp.isoformat() if submission.timestamp else None,
                "notebooks": notebooks}


def read_verdicts(course: Path, assignment: str, student: str) -> dict[str, list[dict]]:
    """{notebook: [the structured verdict of each autograded test cell]} from the autograded notebooks."""
    from nbgrader.coursedir import CourseDirectory

    coursedir = CourseDirectory(config=nbgrader_config(course))
    folder = Path(coursedir.format_path(coursedir.autograded_directory, student, assignment))
    found = {}
    for path in sorted(folder.glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        found[path.stem] = [cell.metadata["kgslab"]["verdict"] for cell in notebook.cells
                            if "verdict" in cell.metadata.get("kgslab", {})]
    return found


def grade_submission(task: dict) -> dict:
    """Grade one submission; never raises.  `task`: course, assignment, student, hash, run, snapshot.

    Returns the task's fields with status "graded" (rows, verdicts) or "failed" (reason), the log and seconds.
    """
    started = time.perf_counter()
    result = {key: task[key] for key in ("student", "hash")}
    course, assignment, student = Path(task["course"]), task["assignment"], task["student"]
    try:
        refused = unreadable(course, assignment, student)
        if refused:
            raise _Failed(refused, refused + "\n")
        database = _own_copy(task["run"], Path(task["snapshot"]))
        log = _autograde(course, assignment, student, database)
        result.update(status="graded", rows=read_rows(f"sqlite:///{database}", assignment, student),
                      verdicts=read_verdicts(course, assignment, student), log=log)
    except _Failed as failed:
        result.update(status="failed", reason=failed.reason, log=failed.log)
    except Exception as err:                  # noqa: BLE001 -- reading the results; recorded, never raised
        result.update(status="failed", reason=f"{type(err).__name__}: {err}"[:500], log=traceback.format_exc())
    result["seconds"] = time.perf_counter() - started
    return result

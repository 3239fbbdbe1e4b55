"""Grading every submission of an assignment: on local processes or a Dask cluster, resumable, with progress.

The plan: every folder ``submitted/<student>/<assignment>/`` of the course is
one submission; those the record lists as graded from the same files by the
same grading (and still in the gradebook) are skipped, unless the assignment's
due date changed since and the submission is late under the old or the new one
(its late penalty changes: `kgslab.grade.record.GradingRecord.due_date_affects`).
``students`` limits the run to the students named, and grades them again.
The rest go to workers (`kgslab.grade.worker.grade_submission`): ``jobs`` local processes through
``concurrent.futures`` or the workers of a Dask scheduler (``scheduler``, an
address).  As each comes back, this process merges its grades into the course's
gradebook and appends it to the record, so Ctrl-C or a kill loses only the
submissions being graded at that moment.

Isolation: a submission that fails is recorded with its reason; one that hangs
holds one worker for its own hard stops (the course's ``Execute.timeout`` per
cell, after which kgslab's ExecuteAndCarryOn still grades it outside the
kernel; the grader's child at its time limit), never the others.  A failure
still gets its row in the gradebook (`kgslab.grade.merge.merge_failure`): 0
points, the reason in the comments.  A worker
process that dies (memory) breaks a local pool: the submissions that were in it
are graded again in a new pool, and one that was there at two deaths is graded
alone, then recorded as failed if its worker dies again.  On Dask the scheduler
reschedules a task whose worker died and gives up on it after the cluster's
allowed failures; it is then recorded as failed.
"""

from __future__ import annotations

import concurrent.futures
import datetime
import multiprocessing
import os
import re
import sys
import time
import uuid
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

from .merge import merge_failure, merge_submission
from .record import GradingRecord, folder_hash, grading_hash
from .worker import copy_database, grade_submission, nbgrader_config

__all__ = ["Summary", "grade_class", "find_submissions", "default_jobs"]


@dataclass
class Summary:
    """What a run did: students graded now, skipped (graded before), failed now {student: reason}, failed before
    from the same files {student: reason} (not tried again without --retry-failed), seconds."""
    assignment: str
    graded: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    failed_before: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    workers: str = ""

    def line(self) -> str:
        before = (f", {len(self.failed_before)} failed before from the same files (--retry-failed tries them "
                  f"again)" if self.failed_before else "")
        return (f"{self.assignment}: {len(self.graded)} graded, {len(self.skipped)} skipped (graded before from "
                f"the same files), {len(self.failed)} failed{before}, {self.seconds:.0f} s on {self.workers}")


def default_jobs() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:                   # macOS, Windows
        return os.cpu_count() or 1


def find_submissions(course: Path, assignment: str) -> dict[str, Path]:
    """{student: their submitted folder of `assignment`}, as nbgrader's directory structure places it."""
    from nbgrader.coursedir import CourseDirectory

    coursedir = CourseDirectory(config=nbgrader_config(course))
    marker = "KGSLABSTUDENT"
    pattern = coursedir.format_path(coursedir.submitted_directory, marker, assignment)
    prefix, suffix = pattern.split(marker, 1)
    found = {}
    for path in sorted(Path(prefix).glob("*" + suffix.replace(os.sep, "/")) if suffix else Path(prefix).glob("*")):
        if path.is_dir():
            student = str(path)[len(prefix):len(str(path)) - len(suffix)]
            if student and os.sep not in student and not student.startswith("."):
                found[student] = path
    return found


def _course_database(course: Path) -> tuple[str, Path]:
    """(db_url, path) of the course's gradebook: a SQLite file (each worker grades into a copy of it)."""
    from nbgrader.coursedir import CourseDirectory

    db_url = CourseDirectory(config=nbgrader_config(course)).db_url
    found = re.fullmatch(r"sqlite:///(.+)", db_url)
    if not found:
        raise ValueError(f"the course's gradebook (CourseDirectory.db_url) must be a SQLite file for kgslab.grade "
                         f"to give each worker its own copy; got {db_url!r}")
    return db_url, Path(found.group(1))


def _check_assignment(db_url: str, assignment: str) -> None:
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(db_url) as gradebook:
        try:
            gradebook.find_assignment(assignment)
        except MissingEntry:
            names = sorted(a.name for a in gradebook.assignments)
            raise ValueError(f"assignment {assignment!r} is not in the course's gradebook (known: {names or 'none'}):"
                             f" run `nbgrader generate_assignment {assignment}` in the course directory first")


def _in_gradebook(db_url: str, assignment: str) -> set[str]:
    from nbgrader.api import Gradebook

    with Gradebook(db_url) as gradebook:
        return {submission.student_id for submission in gradebook.assignment_submissions(assignment)}


def _due_date(db_url: str, assignment: str) -> str | None:
    """The assignment's due date in the gradebook (what nbgrader's late penalty is computed from), ISO, or None."""
    from nbgrader.api import Gradebook

    with Gradebook(db_url) as gradebook:
        due = gradebook.find_assignment(assignment).duedate
        return due.isoformat() if due else None


def _timestamp(course: Path, folder: Path):
    """The submission's time as nbgrader reads it (timestamp.txt, in UTC), or None."""
    from nbgrader.coursedir import CourseDirectory

    return CourseDirectory(config=nbgrader_config(course)).get_existing_timestamp(str(folder))


def grade_class(course, assignment: str, *, jobs: int | None = None, scheduler: str | None = None,
                force: bool = False, retry_failed: bool = False, quiet: bool = False,
                students: list[str] | None = None) -> Summary:
    """Autograde every submission of `assignment` in the nbgrader course directory `course` (see module doc);
    `students`: only these students' submissions, graded again."""
    course = Path(course).resolve()
    if not (course / "nbgrader_config.py").exists():
        raise ValueError(f"course_dir: expected an nbgrader course directory with nbgrader_config.py "
                         f"(python -m kgslab.assignments writes one), got {course}")
    if jobs is not None and (not isinstance(jobs, int) or jobs < 1):
        raise ValueError(f"jobs: expected a whole number of worker processes >= 1, got {jobs!r}")
    started = time.perf_counter()
    # nbgrader runs alembic from PATH: the environment's bin/ first, for this process and the local workers.
    bin_folder = str(Path(sys.executable).parent)
    if bin_folder not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bin_folder + os.pathsep + os.environ.get("PATH", "")
    db_url, database = _course_database(course)
    _check_assignment(db_url, assignment)
    submissions = find_submissions(course, assignment)
    if students is not None:
        missing = [name for name in students if name not in submissions]
        if missing or not students:
            raise ValueError(f"student: expected students with a submission of {assignment} in "
                             f"submitted/ (found {len(submissions)}: {', '.join(sorted(submissions)[:10]) or 'none'}"
                             f"{', ...' if len(submissions) > 10 else ''}), got {missing or students!r}")
        submissions = {name: submissions[name] for name in students}
    record = GradingRecord(course, assignment)
    grading = grading_hash(course, assignment)
    done, present = record.entries(), _in_gradebook(db_url, assignment)
    due = _due_date(db_url, assignment)
    summary = Summary(assignment)
    run = uuid.uuid4().hex
    snapshot = record.path.parent / f"{assignment}.snapshot.db"
    snapshot.parent.mkdir(parents=True, exist_ok=True)
    tasks = []
    for student, folder in submissions.items():
        digest, stamp = folder_hash(folder), _timestamp(course, folder)
        entry = done.get(student)
        if (not force and students is None
                and GradingRecord.is_done(entry, digest, grading, student in present, retry_failed)
                and not GradingRecord.due_date_affects(entry, due, stamp)):
            if entry.get("status") == "failed":
                summary.failed_before[student] = entry.get("reason") or "unknown"
            else:
                summary.skipped.append(student)
            continue
        tasks.append({"course": str(course), "assignment": assignment, "student": student, "hash": digest,
                      "run": run, "snapshot": str(snapshot),
                      "timestamp": stamp.isoformat() if stamp else None})
    copy_database(database, snapshot)                 # every worker starts from the gradebook as it is now

    stamps = {task["student"]: task["timestamp"] for task in tasks}

    def finish(result: dict) -> None:
        if result["status"] == "graded":
            merge_submission(db_url, assignment, result["student"], result["rows"])
            summary.graded.append(result["student"])
        else:
            stamp = stamps.get(result["student"])
            merge_failure(db_url, assignment, result["student"], result["reason"],
                          datetime.datetime.fromisoformat(stamp) if stamp else None)
            summary.failed[result["student"]] = result["reason"]
        _save_log(course, assignment, result)
        record.add({"student": result["student"], "hash": result["hash"], "grading": grading,
                    "status": result["status"], "reason": result.get("reason"), "seconds": round(result["seconds"], 2),
                    "duedate": due, "timestamp": stamps.get(result["student"]),
                    "finished": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")})
        bar.update(1)

    from tqdm.auto import tqdm

    bar = tqdm(total=len(tasks), desc=f"grading {assignment}", unit="submission", disable=True if quiet else None)
    try:
        if not tasks:
            summary.workers = "no workers (nothing to grade)"
        elif scheduler:
            summary.workers = _on_dask(scheduler, tasks, finish)
        else:
            jobs = jobs or default_jobs()
            summary.workers = f"{min(jobs, len(tasks))} local processes"
            _on_processes(min(jobs, len(tasks)), tasks, finish)
    finally:
        bar.close()
        snapshot.unlink(missing_ok=True)
    summary.seconds = time.perf_counter() - started
    return summary


def _save_log(course: Path, assignment: str, result: dict) -> None:
    """nbgrader's log of the submission, for the instructor: kgslab-grade/logs/NN_topic/<student>.log."""
    folder = course / "kgslab-grade" / "logs" / assignment
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{result['student']}.log").write_text(result.get("log", ""), encoding="utf-8")


def _on_processes(jobs: int, tasks: list[dict], finish, work=grade_submission) -> None:
    """work(task) for each task on `jobs` local worker processes, each result to finish(); a pool broken by a
    dying worker is replaced (module doc)."""
    deaths = {task["student"]: 0 for task in tasks}
    queue, alone = list(tasks), []
    while queue or alone:
        if queue:
            batch, width = queue, jobs
        else:                                           # suspects of two deaths: one at a time, alone
            batch, width = [alone.pop(0)], 1
        queue = []
        broken = _pool(width, batch, finish, work)
        for task in broken:
            deaths[task["student"]] += 1
            if width == 1 and len(batch) == 1 and deaths[task["student"]] >= 2:
                finish({**task, "status": "failed", "seconds": 0.0, "log": "",
                        "reason": "its worker process died while grading it, alone (out of memory?)"})
            elif deaths[task["student"]] >= 2:
                alone.append(task)
            else:
                queue.append(task)


# What every worker imports before its first submission: nbgrader, and the kit's grader and checks that nbgrader's
# autograde loads from the course's configuration (seconds of CPU each).  A fork server imports them once and
# forks each worker from that state, so a worker's first submission does not pay them again.
PRELOAD = ["kgslab.grade.worker", "nbgrader.api", "nbgrader.converters", "kgslab.grader", "kgslab.check"]


def _context():
    """The workers' start method: a fork server that preloaded PRELOAD where the platform has one (Linux,
    macOS), else a fresh interpreter each (spawn).  Never a fork of this process, which holds the course's
    gradebook connection."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        return context
    return multiprocessing.get_context("spawn")


def _pool(jobs: int, tasks: list[dict], finish, work) -> list[dict]:
    """Grade `tasks` on a pool of `jobs` processes; return those left ungraded when a worker died."""
    executor = concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=_context())
    futures = {executor.submit(work, task): task for task in tasks}
    broken = []
    try:
        for future in concurrent.futures.as_completed(futures):
            try:
                result = future.result()
            except BrokenProcessPool:
                broken.append(futures[future])
                continue
            finish(result)
    except BaseException:                                # Ctrl-C: stop the workers, keep what was merged
        executor.shutdown(wait=False, cancel_futures=True)
        for process in list(getattr(executor, "_processes", {}).values()):
            process.terminate()
        raise
    executor.shutdown(wait=True)
    return broken


def _on_dask(address: str, tasks: list[dict], finish) -> str:
    """The tasks on the workers of the Dask scheduler at `address` (they must see the course at the same path)."""
    try:
        from distributed import Client, as_completed
    except ModuleNotFoundError as missing:
        raise ModuleNotFoundError("--scheduler needs dask.distributed: pip install distributed (the kit's test "
                                  "extra has it)") from missing
    with Client(address) as client:
        workers = len(client.scheduler_info().get("workers", {}))
        futures = {client.submit(grade_submission, task, pure=False,
                                 key=f"kgslab-grade-{task['student']}-{task['run']}"): task for task in tasks}
        for future in as_completed(list(futures)):
            try:
                result = future.result()
            except Exception as err:                     # noqa: BLE001 -- KilledWorker and the like
                task = futures[future]
                result = {**task, "status": "failed", "seconds": 0.0, "log": "",
                          "reason": f"the Dask cluster gave up on it: {type(err).__name__}: {err}"[:500]}
            finish(result)
    return f"the Dask cluster at {address} ({workers} workers)"

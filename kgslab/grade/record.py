"""What has been graded from which file: the run's record, one JSON line per submission graded or failed.

A submission is graded again only when its files changed (their SHA-256), when
what grades it changed (the assignment's source or ``nbgrader_config.py``),
when the course's gradebook no longer has it, when the assignment's due date
changed and the submission is late under the old or the new date (its late
penalty changes; one on time under both keeps its grade), or when asked
(``--force``, ``--student``; a recorded failure with ``--retry-failed``).  Each line is written after its
grades are in the gradebook, so an interrupted run loses nothing already
graded, and a line cut short by a kill is ignored.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

__all__ = ["folder_hash", "grading_hash", "GradingRecord"]


def folder_hash(folder: Path) -> str:
    """SHA-256 of every file under `folder` (relative names and contents, in sorted order)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in Path(folder).rglob("*") if p.is_file()):
        if ".ipynb_checkpoints" in path.parts:
            continue
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def grading_hash(course: Path, assignment: str) -> str:
    """SHA-256 of what decides the grades: the assignment's source folder and the course's nbgrader_config.py."""
    digest = hashlib.sha256(folder_hash(Path(course) / "source" / assignment).encode())
    config = Path(course) / "nbgrader_config.py"
    if config.exists():
        digest.update(config.read_bytes())
    return digest.hexdigest()


class GradingRecord:
    """The record file of one assignment: ``COURSE_DIR/kgslab-grade/NN_topic.jsonl``."""

    def __init__(self, course: Path, assignment: str):
        self.path = Path(course) / "kgslab-grade" / f"{assignment}.jsonl"

    def entries(self) -> dict[str, dict]:
        """{student: the latest complete entry}."""
        found = {}
        if self.path.exists():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError:          # a line cut short by a kill: as if never written
                    continue
                if isinstance(entry, dict) and "student" in entry:
                    found[entry["student"]] = entry
        return found

    def add(self, entry: dict) -> None:
        """Append one entry, flushed to disk before returning."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as stream:
            stream.write(json.dumps(entry, sort_keys=True) + "\n")
            stream.flush()
            os.fsync(stream.fileno())

    @staticmethod
    def is_done(entry: dict | None, submission_hash: str, grading: str, in_gradebook: bool,
                retry_failed: bool = False) -> bool:
        """Whether a submission needs no grading now: the same files graded by the same grading, and its
        grades still in the gradebook (a failure counts as done unless `retry_failed`)."""
        if entry is None or entry.get("hash") != submission_hash or entry.get("grading") != grading:
            return False
        if entry.get("status") == "failed":
            return not retry_failed and in_gradebook
        return entry.get("status") == "graded" and in_gradebook

    @staticmethod
    def due_date_affects(entry: dict | None, due: str | None, timestamp) -> bool:
        """Whether the due date `due` (ISO or None) differs from the one `entry` was graded under and the
        submission (its `timestamp`, a datetime or None) is late under either: its late penalty changes.
        An entry without a recorded due date was graded under the current one."""
        if entry is None or "duedate" not in entry or entry["duedate"] == due or timestamp is None:
            return False
        from datetime import datetime

        def late(when: str | None) -> bool:
            return when is not None and _naive(timestamp) > _naive(datetime.fromisoformat(when))

        return late(entry["duedate"]) or late(due)


def _naive(moment):
    """A datetime in UTC without its zone (nbgrader keeps both kinds)."""
    from datetime import timezone

    return moment.astimezone(timezone.utc).replace(tzinfo=None) if moment.tzinfo else moment

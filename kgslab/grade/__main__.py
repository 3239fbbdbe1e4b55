"""python -m kgslab.grade COURSE_DIR NN_topic [--jobs N | --scheduler ADDRESS] [--student NAME] [--report]
                       [--export canvas|moodle --roster FILE] [--quiet]

Autograde every submission of an assignment (nbgrader's autograde, unchanged)
on N local worker processes (default: the cores available) or on a Dask
cluster, merge the grades into the course's gradebook.db, skip what was graded
before from the same files (unless the due date changed and moves its late
penalty), and end with a summary line.  --student grades only that student,
again.  --report also writes the class report:
COURSE_DIR/kgslab-grade/NN_topic-report.html and .csv.  --export writes the
LMS's import file from the gradebook and the roster:
COURSE_DIR/kgslab-grade/NN_topic-canvas.csv or NN_topic-moodle.csv.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .run import default_jobs, grade_class


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of worker processes >= 1, got {text!r}")
    return value


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kgslab.grade", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("course_dir", help="the nbgrader course directory (python -m kgslab.assignments writes it)")
    parser.add_argument("assignment", help="the assignment to grade, e.g. 01_duality")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--jobs", type=_jobs, default=None,
                       help=f"worker processes on this machine (default: the cores available, here {default_jobs()})")
    where.add_argument("--scheduler", default=None, help="address of a dask.distributed scheduler, e.g. "
                       "tcp://10.0.0.5:8786; its workers must see COURSE_DIR at the same path")
    parser.add_argument("--report", action="store_true", help="also write the class report (HTML and CSV)")
    parser.add_argument("--force", action="store_true", help="grade every submission again")
    parser.add_argument("--retry-failed", action="store_true", help="grade again the submissions that failed before")
    parser.add_argument("--student", action="append", default=None, metavar="NAME",
                        help="grade only this student's submission, again (repeat for several)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar (there is none in a non-terminal)")
    parser.add_argument("--export", choices=["canvas", "moodle"], default=None,
                        help="also write the LMS's grade import CSV (needs --roster)")
    parser.add_argument("--roster", default=None, metavar="FILE", help="CSV of the class with the LMS's "
                        "identifiers (the LMS's own gradebook export will do) and a column of nbgrader ids")
    parser.add_argument("--roster-id", default="student_id", metavar="COLUMN",
                        help="the roster's column holding each student's nbgrader id (default: student_id)")
    parser.add_argument("--lms-column", default=None, metavar="HEADING",
                        help="the assignment's column heading in the LMS file (Canvas: 'Title (id)' updates an "
                        "existing assignment; default: the assignment's name)")
    args = parser.parse_args(argv)
    if args.export and not args.roster:
        parser.error("--export: expected --roster FILE too (the LMS identifies students by its own ids)")
    try:
        summary = grade_class(Path(args.course_dir), args.assignment, jobs=args.jobs, scheduler=args.scheduler,
                              force=args.force, retry_failed=args.retry_failed, quiet=args.quiet,
                              students=args.student)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: the submissions graded so far are in the gradebook and the record; run the same "
              "command again to grade the rest", file=sys.stderr)
        return 130
    for student, reason in summary.failed.items():
        print(f"failed: {student}: {reason}")
    for student, reason in summary.failed_before.items():
        print(f"failed before (same files): {student}: {reason}")
    print(summary.line())
    if args.report:
        from .class_report import write_report

        html, csv = write_report(Path(args.course_dir), args.assignment)
        print(f"report: {html} and {csv}")
    status = 1 if summary.failed else 0
    if args.export:
        from .export import export

        try:
            exported = export(Path(args.course_dir), args.assignment, args.export, Path(args.roster),
                              roster_id=args.roster_id, column=args.lms_column)
        except ValueError as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
        print("export: " + "\n  ".join(exported.lines()))
        if exported.not_in_roster:
            status = 1
    return status


if __name__ == "__main__":
    raise SystemExit(main())

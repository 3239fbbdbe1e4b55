"""The class report: what the class got wrong, in one page (``python -m kgslab.grade ... --report``).

Read from what grading left behind, so it works as well after plain ``nbgrader autograde``:

* the course's gradebook: each student's autograded score, late penalty, the
  score of each autograded test cell, and the comments in which kgslab.grader
  flags code that reached for the grade (`kgslab.check.flags`);
* the autograded notebooks: the structured verdict of each test cell
  (``cell.metadata["kgslab"]["verdict"]``): whether it passed, the failing
  case, and the mistake in the check's own words;
* the run's record (`kgslab.grade.record`): seconds spent grading each
  submission, and the reason of each that could not be graded.

It writes ``COURSE_DIR/kgslab-grade/NN_topic-report.html``, one self-contained
page (plots drawn with matplotlib, embedded as PNG), and ``NN_topic-report.csv``
beside it, one row per student.  Every submission has its row: one that could
not be graded is listed with its reason under "Could not be graded" (from the
gradebook's comment that `kgslab.grade.merge.merge_failure` writes, or from
the record).  A mistake is counted once per student who made it, by the
check's words; an exercise left as released ("not attempted yet") is not a
mistake: it is counted in the exercise's own row.  Each exercise shows its mean
points from the gradebook, and each written answer how many students' answers
have been graded by hand.
"""

from __future__ import annotations

import base64
import csv
import html
import io
import statistics
from collections import Counter
from pathlib import Path

from .merge import FAILURE_PREFIX
from .record import GradingRecord
from .worker import nbgrader_config, read_verdicts

__all__ = ["class_rows", "exercise_rates", "exercise_points", "written_state", "failures", "ranked_mistakes",
           "write_report"]

FLAG_PREFIX = "kgslab flags"
NOT_ATTEMPTED = "not-attempted"          # the checks' id for a function that still raises NotImplementedError


def class_rows(course: Path, assignment: str) -> list[dict]:
    """One dict per student in the gradebook: score, max_score, penalty, tests {cell: (points, max)}, written
    {cell: (points or None while waiting for a manual grade, max)}, exercises {key: passed}, blank [keys],
    mistakes [(key, words)] (once each), flags, failure (reason or None), seconds."""
    from nbgrader.api import Gradebook
    from nbgrader.coursedir import CourseDirectory

    course = Path(course)
    seconds = {student: entry.get("seconds") for student, entry in GradingRecord(course, assignment).entries().items()
               if entry.get("status") == "graded"}
    rows = []
    with Gradebook(CourseDirectory(config=nbgrader_config(course)).db_url) as gradebook:
        for submission in sorted(gradebook.assignment_submissions(assignment), key=lambda s: s.student_id):
            student = submission.student_id
            verdicts = [v for found in read_verdicts(course, assignment, student).values() for v in found]
            comments = [comment.auto_comment or "" for notebook in submission.notebooks
                        for comment in notebook.comments]
            flags = [text for comment in comments for text in comment.splitlines() if text.startswith(FLAG_PREFIX)]
            failure = next((comment.removeprefix(FAILURE_PREFIX).strip() for comment in comments
                            if comment.startswith(FAILURE_PREFIX)), None)
            grades = [grade for notebook in submission.notebooks for grade in notebook.grades]
            tests = {grade.name: (grade.score, grade.max_score) for grade in grades if grade.cell_type == "code"}
            written = {grade.name: (None if grade.needs_manual_grade and grade.manual_score is None
                                    else float(grade.score), float(grade.max_score))
                       for grade in grades if grade.cell_type == "markdown"}
            blank = [v["exercise"] for v in verdicts
                     if any(m.get("mistake") == NOT_ATTEMPTED for m in v.get("mistakes", []))]
            rows.append({"student": student, "score": float(submission.code_score),
                         "max_score": float(submission.max_code_score),
                         "penalty": float(submission.late_submission_penalty or 0.0),
                         "tests": tests, "written": written,
                         "exercises": {v["exercise"]: bool(v["passed"]) for v in verdicts},
                         "blank": blank,
                         # counted by the check's words: a declared mistake (an id) always has the same words;
                         # once per student (a mistake the check found in three cases is one mistake)
                         "mistakes": list(dict.fromkeys(
                             (v["exercise"], m.get("words") or m.get("mistake") or "") for v in verdicts
                             for m in v.get("mistakes", []) if m.get("mistake") != NOT_ATTEMPTED)),
                         "flags": flags, "failure": failure, "seconds": seconds.get(student)})
    return rows


def exercise_rates(rows: list[dict]) -> list[tuple[str, int, int]]:
    """[(exercise, students who passed it, students graded on it)], in the notebook's order."""
    order, passed, graded = [], Counter(), Counter()
    for row in rows:
        for key, ok in row["exercises"].items():
            if key not in order:
                order.append(key)
            graded[key] += 1
            passed[key] += bool(ok)
    return [(key, passed[key], graded[key]) for key in order]


def exercise_points(rows: list[dict]) -> list[tuple[str, float, float, int]]:
    """[(test cell, mean points, max points, students)] from the gradebook, in the order first seen."""
    found: dict[str, list] = {}
    for row in rows:
        for name, (score, top) in row["tests"].items():
            found.setdefault(name, [[], top])[0].append(float(score or 0.0))
    return [(name, sum(scores) / len(scores), float(top), len(scores)) for name, (scores, top) in found.items()]


def written_state(rows: list[dict]) -> list[tuple[str, int, int, float | None, float]]:
    """[(written-answer cell, students graded by hand, students, mean of the graded or None, max points)]."""
    found: dict[str, list] = {}
    for row in rows:
        if row["failure"]:                          # no notebook to grade by hand: not counted either way
            continue
        for name, (score, top) in row["written"].items():
            found.setdefault(name, [[], 0, top])
            found[name][1] += 1
            if score is not None:
                found[name][0].append(score)
    return [(name, len(scores), count, sum(scores) / len(scores) if scores else None, float(top))
            for name, (scores, count, top) in sorted(found.items())]


def failures(course: Path, assignment: str, rows: list[dict]) -> list[tuple[str, str]]:
    """[(student, reason)]: every submission that could not be graded, from the gradebook and the record."""
    found = {row["student"]: row["failure"] for row in rows if row["failure"]}
    for student, entry in GradingRecord(course, assignment).entries().items():
        if entry.get("status") == "failed" and student not in found:
            found[student] = entry.get("reason") or "unknown"
    return sorted(found.items())


def ranked_mistakes(rows: list[dict]) -> list[tuple[str, str, int, list[str]]]:
    """[(exercise, mistake, how many students made it, who)], most common first (ties: exercise, words)."""
    who: dict[tuple[str, str], list[str]] = {}
    for row in rows:
        for found in dict.fromkeys(row["mistakes"]):          # once per student
            who.setdefault(found, []).append(row["student"])
    ranked = sorted(who.items(), key=lambda item: (-len(item[1]), item[0]))
    return [(exercise, words, len(students), students) for (exercise, words), students in ranked]


def _title(key: str) -> str:
    from kgslab import check

    exercise = check.exercises().get(key)
    return f"{exercise.title}" if exercise is not None else key


def _png(figure) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _plots(rows, rates) -> dict[str, str]:
    """The three figures as base64 PNG: score distribution, pass rate per exercise, grading time."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    plots = {}
    top = max((row["max_score"] for row in rows), default=1.0) or 1.0
    figure = Figure(figsize=(6, 3))
    axes = figure.subplots()
    axes.hist([row["score"] for row in rows], bins=[x - 0.5 for x in range(int(top) + 2)], color="#4477aa",
              edgecolor="white")
    axes.set(xlabel=f"autograded points (of {top:g})", ylabel="students", title="Score distribution")
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    plots["scores"] = _png(figure)
    figure = Figure(figsize=(6, 0.5 + 0.45 * max(len(rates), 1)))
    axes = figure.subplots()
    names = [_title(key) for key, _, _ in rates][::-1]
    shares = [100 * passed / graded if graded else 0 for _, passed, graded in rates][::-1]
    axes.barh(names, shares, color="#228833")
    axes.set(xlim=(0, 100), xlabel="% of students who passed", title="Pass rate per exercise")
    plots["exercises"] = _png(figure)
    timed = sorted((row["seconds"], row["student"]) for row in rows if row["seconds"] is not None)
    shown = timed[-TIMES_NAMED:]                       # the slowest, named: the ones to look at
    figure = Figure(figsize=(6, 0.8 + 0.22 * max(len(shown), 1)))
    axes = figure.subplots()
    axes.barh([student for _, student in shown], [seconds for seconds, _ in shown], color="#aa3377")
    title = "Grading time per submission" + (f" (the slowest {len(shown)} of {len(timed)})"
                                             if len(shown) < len(timed) else "")
    axes.set(xlabel="seconds", title=title)
    axes.tick_params(axis="y", labelsize=8)
    plots["times"] = _png(figure)
    return plots


TIMES_NAMED = 40


def _table(table_id: str, header: list[str], body: list[list]) -> str:
    cells = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    lines = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in body)
    return f'<table id="{table_id}"><thead><tr>{cells}</tr></thead><tbody>{lines}</tbody></table>'


def _written_text(row: dict) -> str:
    """'2 of 3 graded by hand' / 'all 3 graded by hand' / '' for a student's written answers."""
    if row["failure"]:
        return "no notebook to grade"
    count = len(row["written"])
    done = sum(score is not None for score, _ in row["written"].values())
    if not count:
        return ""
    return f"all {count} graded by hand" if done == count else f"{done} of {count} graded by hand"


def write_report(course: Path, assignment: str) -> tuple[Path, Path]:
    """Write the HTML page and the CSV; return their paths."""
    course = Path(course)
    rows = class_rows(course, assignment)
    rates, mistakes = exercise_rates(rows), ranked_mistakes(rows)
    folder = course / "kgslab-grade"
    folder.mkdir(parents=True, exist_ok=True)
    keys = [key for key, _, _ in rates]
    points, written, failed = exercise_points(rows), written_state(rows), failures(course, assignment, rows)
    csv_path = folder / f"{assignment}-report.csv"
    with open(csv_path, "w", newline="", encoding="utf-8") as stream:
        writer = csv.writer(stream)
        writer.writerow(["student", "autograded_points", "max_points", "late_penalty", *keys, "not_attempted",
                         "mistakes", "written_answers", "flags", "not_graded_because", "grading_seconds"])
        for row in rows:
            writer.writerow([row["student"], f"{row['score']:g}", f"{row['max_score']:g}", f"{row['penalty']:g}",
                             *[{True: 1, False: 0}.get(row["exercises"].get(key), "") for key in keys],
                             " | ".join(row["blank"]),
                             " | ".join(f"{key}: {words}" for key, words in row["mistakes"]),
                             _written_text(row), " | ".join(row["flags"]), row["failure"] or "",
                             "" if row["seconds"] is None else f"{row['seconds']:.1f}"])
    plots = _plots(rows, rates) if rows else {}
    n = len(rows)
    mean = sum(row["score"] for row in rows) / n if n else 0.0
    top = max((row["max_score"] for row in rows), default=0.0)
    timed = sorted(row["seconds"] for row in rows if row["seconds"] is not None)
    waiting = sum(any(score is None for score, _ in row["written"].values()) for row in rows)
    unreadable = sum(bool(row["failure"]) for row in rows)
    counted = (f"{n} submissions graded" if not unreadable else
               f"{n} submissions: {n - unreadable} graded, {unreadable} could not be graded (0 points)")
    elsewhere = len(failed) - unreadable          # failures the record holds and the gradebook does not
    summary = (f"{counted}; mean {mean:.1f} of {top:g} autograded points; "
               f"{sum(row['score'] == top for row in rows)} with full marks; "
               f"{sum(bool(row['flags']) for row in rows)} flagged"
               + (f"; {elsewhere} more could not be graded (not in the gradebook)" if elsewhere else "")
               + (f"; {waiting} with written answers still to grade by hand" if waiting else "")
               + (f"; grading took {min(timed):.0f}-{max(timed):.0f} s per submission "
                  f"(median {statistics.median(timed):.0f} s)" if timed else ""))
    image = ('<figure><img alt="{alt}" src="data:image/png;base64,{data}"><figcaption>{alt}</figcaption>'
             '</figure>')
    blank = Counter(key for row in rows for key in row["blank"])
    mean_points = {name.split("-", 1)[-1]: (mean_, top_) for name, mean_, top_, _ in points}
    parts = [f"<h1>Class report: {html.escape(assignment)}</h1>", f'<p id="summary">{html.escape(summary)}</p>',
             "<h2>Could not be graded</h2>",
             "<p>Each is in the gradebook with 0 points and this reason in its comments. Fix the cause (ask the "
             "student for the notebook) and grade it again with <code>--student NAME</code>.</p>"
             + _table("failures", ["student", "reason"], [list(item) for item in failed])
             if failed else '<p id="failures">None: every submission was graded.</p>',
             "<h2>Scores</h2>",
             image.format(alt=html.escape(f"Histogram of autograded points of {n} students"),
                          data=plots.get("scores", "")) if rows else "",
             "<h2>Exercises</h2>",
             "<p>Passed: the check's verdict. Not attempted: the function left as released. Mean points: the "
             "gradebook's, over every student graded.</p>",
             _table("exercises", ["exercise", "key", "passed", "graded", "pass rate", "not attempted",
                                  "mean points"],
                    [[_title(key), key, passed, graded, f"{100 * passed / graded:.0f}%", blank.get(key, 0),
                      f"{mean_points[key][0]:.2f} of {mean_points[key][1]:g}" if key in mean_points else ""]
                     for key, passed, graded in rates]),
             image.format(alt="Bar chart of the share of students who passed each exercise",
                          data=plots.get("exercises", "")) if rows else "",
             "<h2>Written answers</h2>",
             "<p>Graded by hand in formgrader; a total that includes them is final only when all are graded.</p>"
             + _table("written", ["answer", "graded by hand", "mean of those graded"],
                      [[name.split("-", 1)[-1], f"{done} of {count}",
                        "" if average is None else f"{average:.2f} of {top_:g}"]
                       for name, done, count, average, top_ in written])
             if written else '<p id="written">This assignment has no written answers.</p>',
             "<h2>Mistakes, most common first</h2>",
             "<p>Counted once per student, from the checks' verdicts; in the checks' own words. An exercise not "
             "attempted is counted in the table of exercises, not here.</p>",
             _table("mistakes", ["students", "exercise", "mistake", "who"],
                    [[count, _title(key), words, ", ".join(who)] for key, words, count, who in mistakes]),
             "<h2>Flagged submissions</h2>",
             "<p>kgslab.grader's comments in the gradebook: code that reached for the grade instead of earning it. "
             "The grade never depends on them; read the submission.</p>",
             _table("flagged", ["student", "what the grader noticed"],
                    [[row["student"], " / ".join(row["flags"])] for row in rows if row["flags"]]),
             "<h2>Grading time per submission</h2>",
             image.format(alt="Bar chart of the seconds each named submission took to grade, slowest at the top",
                          data=plots.get("times", "")) if timed else "<p>No timings recorded.</p>",
             "<h2>Students</h2>",
             _table("students", ["student", "autograded points", "late penalty", "exercises passed",
                                 "written answers", "flagged", "grading seconds"],
                    [[row["student"], f"{row['score']:g}", f"{row['penalty']:g}",
                      f"{sum(row['exercises'].values())} of {len(row['exercises'])}"
                      if not row["failure"] else "could not be graded",
                      _written_text(row), "yes" if row["flags"] else "",
                      "" if row["seconds"] is None else f"{row['seconds']:.1f}"] for row in rows])]
    style = ("body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em}"
             "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.3em .6em;"
             "text-align:left;vertical-align:top}img{max-width:100%}")
    page = (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Class report: '
            f"{html.escape(assignment)}</title><style>{style}</style></head><body>{''.join(parts)}</body></html>")
    html_path = folder / f"{assignment}-report.html"
    html_path.write_text(page, encoding="utf-8")
    return html_path, csv_path

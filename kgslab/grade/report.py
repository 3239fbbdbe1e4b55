"""The class report: what the class got wrong, in one page (``python -m kgslab.grade ... --report``).

Read from what grading left behind, so it works as well after plain ``nbgrader autograde``:

* the course's gradebook: each student's autograded score, late penalty, the
  score of each autograded test cell, and the comments in which kgslab.grader
  flags code that reached for the grade (`kgslab.check.flags`);
* the autograded notebooks: the structured verdict of each test cell
  (``cell.metadata["kgslab"]["verdict"]``): whether it passed, the failing
  case, and the mistake in the check's own words;
* the run's record (`kgslab.grade.record`): seconds spent grading each submission.

It writes ``COURSE_DIR/kgslab-grade/NN_topic-report.html``, one self-contained
page (plots drawn with matplotlib, embedded as PNG), and ``NN_topic-report.csv``
beside it, one row per student.  A mistake is counted once per student who made
it: by its id when the check names one, else by the check's words.
"""

from __future__ import annotations

import base64
import csv
import html
import io
import statistics
from collections import Counter
from pathlib import Path

from .record import Record
from .worker import nbgrader_config, read_verdicts

__all__ = ["class_rows", "exercise_rates", "ranked_mistakes", "write_report"]

FLAG_PREFIX = "kgslab flags"


def class_rows(course: Path, assignment: str) -> list[dict]:
    """One dict per graded student: score, max_score, penalty, exercises {key: passed}, mistakes, flags, seconds."""
    from nbgrader.api import Gradebook
    from nbgrader.coursedir import CourseDirectory

    course = Path(course)
    seconds = {student: entry.get("seconds") for student, entry in Record(course, assignment).entries().items()
               if entry.get("status") == "graded"}
    rows = []
    with Gradebook(CourseDirectory(config=nbgrader_config(course)).db_url) as gradebook:
        for submission in sorted(gradebook.assignment_submissions(assignment), key=lambda s: s.student_id):
            student = submission.student_id
            verdicts = [v for found in read_verdicts(course, assignment, student).values() for v in found]
            flags = [text for notebook in submission.notebooks for comment in notebook.comments
                     for text in (comment.auto_comment or "").splitlines() if text.startswith(FLAG_PREFIX)]
            tests = {grade.name: (grade.score, grade.max_score) for notebook in submission.notebooks
                     for grade in notebook.grades if grade.cell_type == "code"}
            rows.append({"student": student, "score": float(submission.code_score),
                         "max_score": float(submission.max_code_score),
                         "penalty": float(submission.late_submission_penalty or 0.0),
                         "tests": tests,
                         "exercises": {v["exercise"]: bool(v["passed"]) for v in verdicts},
                         # counted by the check's words: a declared mistake (an id) always has the same words
                         "mistakes": [(v["exercise"], m.get("words") or m.get("mistake") or "") for v in verdicts
                                      for m in v.get("mistakes", [])],
                         "flags": flags, "seconds": seconds.get(student)})
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
    figure = Figure(figsize=(6, 3))
    axes = figure.subplots()
    axes.bar(range(len(timed)), [seconds for seconds, _ in timed], color="#aa3377")
    axes.set(xlabel="submissions, fastest to slowest", ylabel="seconds", title="Grading time per submission")
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    plots["times"] = _png(figure)
    return plots


def _table(table_id: str, header: list[str], body: list[list]) -> str:
    cells = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    lines = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in body)
    return f'<table id="{table_id}"><thead><tr>{cells}</tr></thead><tbody>{lines}</tbody></table>'


def write_report(course: Path, assignment: str) -> tuple[Path, Path]:
    """Write the HTML page and the CSV; return their paths."""
    course = Path(course)
    rows = class_rows(course, assignment)
    rates, mistakes = exercise_rates(rows), ranked_mistakes(rows)
    folder = course / "kgslab-grade"
    folder.mkdir(parents=True, exist_ok=True)
    keys = [key for key, _, _ in rates]
    csv_path = folder / f"{assignment}-report.csv"
    with open(csv_path, "w", newline="", encoding="utf-8") as stream:
        writer = csv.writer(stream)
        writer.writerow(["student", "autograded_points", "max_points", "late_penalty", *keys, "mistakes", "flags",
                         "grading_seconds"])
        for row in rows:
            writer.writerow([row["student"], f"{row['score']:g}", f"{row['max_score']:g}", f"{row['penalty']:g}",
                             *[{True: 1, False: 0}.get(row["exercises"].get(key), "") for key in keys],
                             " | ".join(f"{key}: {words}" for key, words in row["mistakes"]),
                             " | ".join(row["flags"]),
                             "" if row["seconds"] is None else f"{row['seconds']:.1f}"])
    plots = _plots(rows, rates) if rows else {}
    n = len(rows)
    mean = sum(row["score"] for row in rows) / n if n else 0.0
    top = max((row["max_score"] for row in rows), default=0.0)
    timed = sorted(row["seconds"] for row in rows if row["seconds"] is not None)
    summary = (f"{n} submissions graded; mean {mean:.1f} of {top:g} autograded points; "
               f"{sum(row['score'] == top for row in rows)} with full marks; "
               f"{sum(bool(row['flags']) for row in rows)} flagged"
               + (f"; grading took {min(timed):.0f}-{max(timed):.0f} s per submission "
                  f"(median {statistics.median(timed):.0f} s)" if timed else ""))
    image = ('<figure><img alt="{alt}" src="data:image/png;base64,{data}"><figcaption>{alt}</figcaption>'
             '</figure>')
    parts = [f"<h1>Class report: {html.escape(assignment)}</h1>", f'<p id="summary">{html.escape(summary)}</p>',
             "<h2>Scores</h2>",
             image.format(alt=html.escape(f"Histogram of autograded points of {n} students"),
                          data=plots.get("scores", "")) if rows else "",
             "<h2>Pass rate per exercise</h2>",
             _table("exercises", ["exercise", "key", "passed", "graded", "pass rate"],
                    [[_title(key), key, passed, graded, f"{100 * passed / graded:.0f}%"]
                     for key, passed, graded in rates]),
             image.format(alt="Bar chart of the share of students who passed each exercise",
                          data=plots.get("exercises", "")) if rows else "",
             "<h2>Mistakes, most common first</h2>",
             "<p>Counted once per student, from the checks' verdicts; in the checks' own words.</p>",
             _table("mistakes", ["students", "exercise", "mistake", "who"],
                    [[count, _title(key), words, ", ".join(who)] for key, words, count, who in mistakes]),
             "<h2>Flagged submissions</h2>",
             "<p>kgslab.grader's comments in the gradebook: code that reached for the grade instead of earning it. "
             "The grade never depends on them; read the submission.</p>",
             _table("flagged", ["student", "what the grader noticed"],
                    [[row["student"], " / ".join(row["flags"])] for row in rows if row["flags"]]),
             "<h2>Grading time per submission</h2>",
             image.format(alt="Bar chart of the seconds each submission took to grade",
                          data=plots.get("times", "")) if timed else "<p>No timings recorded.</p>",
             "<h2>Students</h2>",
             _table("students", ["student", "autograded points", "late penalty", "exercises passed", "flagged",
                                 "grading seconds"],
                    [[row["student"], f"{row['score']:g}", f"{row['penalty']:g}",
                      f"{sum(row['exercises'].values())} of {len(row['exercises'])}", "yes" if row["flags"] else "",
                      "" if row["seconds"] is None else f"{row['seconds']:.1f}"] for row in rows])]
    style = ("body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em}"
             "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.3em .6em;"
             "text-align:left;vertical-align:top}img{max-width:100%}")
    page = (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Class report: '
            f"{html.escape(assignment)}</title><style>{style}</style></head><body>{''.join(parts)}</body></html>")
    html_path = folder / f"{assignment}-report.html"
    html_path.write_text(page, encoding="utf-8")
    return html_path, csv_path

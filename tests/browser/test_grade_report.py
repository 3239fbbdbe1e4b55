"""The class report (python -m kgslab.grade --report) in headless Chromium, its numbers against the gradebook.

A small synthetic class of 01 (tests/grading_class.py: blank, solved, gamma
without the factor l, a cheat that calls the kit's reference) is graded with
``python -m kgslab.grade --jobs 2 --report``; the page opens from disk with
nothing to fetch, its three plots load, and every number it shows (the summary,
each exercise's pass count, each student's points, the mistakes' counts, the
flagged student) is the gradebook's.  About half a minute on a quiet 2-core
machine (one generate_assignment, four autogrades).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from labdriver import SCREENSHOTS

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
STUDENTS = ("blank", "solved", "primal_no_l", "cheat")


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    pytest.importorskip("nbgrader")
    from grading_class import STEM, class_notebooks, make_course, submit_class

    course = tmp_path_factory.mktemp("report") / "course"
    source, released = make_course(course)
    notebooks = class_notebooks(source, released)
    submit_class(course, {student: notebooks[student] for student in STUDENTS})
    env = dict(os.environ, PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    done = subprocess.run([sys.executable, "-m", "kgslab.grade", str(course), STEM, "--jobs", "2", "--report"],
                          env=env, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return course, STEM


def _table(page, table_id):
    return page.eval_on_selector_all(f"#{table_id} tbody tr",
                                     "rows => rows.map(r => Array.from(r.cells).map(c => c.textContent))")


def test_the_report_page_shows_the_gradebooks_numbers(graded_class, browser):
    from nbgrader.api import Gradebook

    course, stem = graded_class
    page = browser.new_page()
    try:
        page.goto((course / "kgslab-grade" / f"{stem}-report.html").as_uri())
        assert page.title() == f"Class report: {stem}"
        widths = page.eval_on_selector_all("img", "images => images.map(i => i.complete ? i.naturalWidth : 0)")
        assert len(widths) == 3 and all(width > 100 for width in widths), widths
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "grade-report.png"), full_page=True)
        summary = page.text_content("#summary")
        students = {row[0]: row for row in _table(page, "students")}
        exercises = {row[1]: row for row in _table(page, "exercises")}
        mistakes = _table(page, "mistakes")
        flagged = _table(page, "flagged")
    finally:
        page.close()

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        scores = {s: gradebook.find_submission(stem, s).code_score for s in STUDENTS}
        top = gradebook.find_submission(stem, "solved").max_code_score
        failed = {}                       # exercise key -> students below full points on its test cell
        for student in STUDENTS:
            for grade in gradebook.find_submission_notebook(stem, stem, student).grades:
                if grade.cell_type == "code":
                    key = grade.name.split("-", 1)[1]
                    failed.setdefault(key, set())
                    if grade.score < grade.max_score:
                        failed[key].add(student)
    mean = sum(scores.values()) / len(scores)
    assert summary.startswith(f"{len(STUDENTS)} submissions graded; mean {mean:.1f} of {top:g} autograded points; "
                              f"{sum(s == top for s in scores.values())} with full marks; 1 flagged"), summary
    assert {s: float(row[1]) for s, row in students.items()} == pytest.approx(scores)
    assert set(exercises) == set(failed)
    for key, row in exercises.items():
        assert (int(row[2]), int(row[3])) == (len(STUDENTS) - len(failed[key]), len(STUDENTS)), (key, row)
    # The blank notebook attempted nothing: counted in each exercise's row, not as a mistake. Each other student
    # below full points on an exercise made exactly one mistake there; counts add up per exercise.
    for key, who in failed.items():
        assert int(exercises[key][5]) == 1, (key, exercises[key])
        title = exercises[key][0]
        rows = [row for row in mistakes if row[1] == title]
        assert sum(int(row[0]) for row in rows) == len(who - {"blank"})
        assert set(", ".join(row[3] for row in rows).split(", ")) - {""} == who - {"blank"}
    assert [row[0] for row in flagged] == ["cheat"] and "calls the closed reference" in flagged[0][1]
    assert any("gamma without the factor l" in row[2] and row[3] == "primal_no_l" for row in mistakes)

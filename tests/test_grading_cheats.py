"""Every way of earning points without the work, as a student would try it, against the real nbgrader.

Issue 30's table, rebuilt against the kit as it is now: each submission is
autograded by plain ``nbgrader autograde`` in the course directory that
``python -m kgslab.assignments`` writes, and scores 0 on the exercises it
touches.  Also: an endless loop under a bare ``except:`` costs its own exercise
only and the submission grades in under five minutes; deleted test cells come
back and score from the grader's verdict; the instructor's gradebook comment
flags a function that calls a closed reference.

`make test` runs notebook 01, `make test-grading` all ten (KGSLAB_GRADING_NOTEBOOKS, as tests/test_grading.py).
"""

import re
import time

import nbformat
import pytest

from kgslab import assignments, check, grading_layout, release
from test_grading import _nbgrader, _selected, _submit, replace_solution

pytest.importorskip("nbgrader")
from nbgrader.api import Gradebook  # noqa: E402

_DEF = re.compile(r"^def (\w+)\((.*?)\):", re.MULTILINE | re.DOTALL)


def _exercise_cells(notebook):
    """[(cell, function name, parameter names, exercise key, points)] for each code exercise, in order."""
    keys = {}
    points = {}
    for cell in notebook.cells:
        found = re.search(r"^(\w+) = check\.(nb\d\d_exercise_\w+)\(", cell.source, re.MULTILINE)
        if found:
            keys[found.group(1)] = found.group(2)
        if cell.metadata.get("kgslab_role") == "test":
            points[cell.metadata["nbgrader"]["grade_id"].split("-", 1)[1]] = cell.metadata["nbgrader"]["points"]
    found = []
    for cell in notebook.cells:
        if cell.cell_type == "code" and release.has_solution(cell):
            # the exercise's function, not a helper defined before it in the same cell (02: with_bias)
            match = next((m for m in _DEF.finditer(cell.source) if m.group(1) in keys), None)
            if match:
                parameters = [p.split("=")[0].split(":")[0].strip().lstrip("*") for p in match.group(2).split(",")]
                parameters = [p for p in parameters if p]
                key = keys[match.group(1)]
                found.append((cell, match.group(1), parameters, key, points[key]))
    return found


def _with_bodies(notebook, body, only=None):
    """A copy of `notebook` whose exercise bodies are body(name, parameters, key) (only those in `only`)."""
    changed = nbformat.from_dict(notebook)
    for cell, name, parameters, key, _ in _exercise_cells(changed):
        if only is not None and key not in only:
            continue
        cell.source = replace_solution(cell.source, body(name, parameters, key))
    return changed


def _call(parameters):
    return ", ".join(parameters)


def _public_reference(key):
    name = check.exercises()[key]._reference._kgslab_closed_name
    return name if not name.startswith("kgslab.check.") else f"kgslab.check.{key}._reference"


def _calls_the_reference(name, parameters, key):
    """The body of a function that returns what the kit's public reference (or the check's) computes."""
    target = _public_reference(key)
    if target.startswith("kgslab.check."):
        return f"from kgslab import check\nreturn check.{key}._reference({_call(parameters)})"
    module, function = target.rsplit(".", 1)
    return f"import {module}\nreturn {target}({_call(parameters)})"


def _after_setup(notebook, source):
    """A copy with a code cell of the student's after the set-up cell (the first code cell)."""
    changed = nbformat.from_dict(notebook)
    first = next(i for i, cell in enumerate(changed.cells) if cell.cell_type == "code")
    changed.cells.insert(first + 1, nbformat.v4.new_code_cell(source))
    return changed


def _literal_answers(name, parameters, key):
    """Returns the check's published answer for inputs it recognises (by the first argument's sum)."""
    import numpy as np

    exercise = check.exercises()[key]
    table = {}
    for case in exercise.cases():
        try:
            answer = exercise._reference(*case.args, **case.kwargs)
            first = case.args[0]
            table[round(float(np.sum(np.asarray(first, dtype=float))), 6)] = answer
        except Exception:  # noqa: BLE001 -- a case this cheat cannot key: it gets nothing there
            continue
    entries = ", ".join(f"{k!r}: {_literal(v)}" for k, v in table.items())
    first = parameters[0]
    return (f"import numpy as np\n"
            f"table = {{{entries}}}\n"
            f"return table.get(round(float(np.sum(np.asarray({first}, dtype=float))), 6))")


def _literal(value):
    import numpy as np

    if isinstance(value, tuple):
        return "(" + "".join(_literal(part) + ", " for part in value) + ")"
    if isinstance(value, np.ndarray):
        return f"np.array({value.tolist()!r})"
    return repr(value)


def _submissions(source, released):
    """{student: (notebook, {exercise key: points it must lose})}."""
    exercises = _exercise_cells(source)
    every = {key: points for _, _, _, key, points in exercises}
    first_key = exercises[0][3]
    blank_functions = released
    cheats = {
        "calls_reference": _with_bodies(source, _calls_the_reference),
        "wraps_check_reference": _with_bodies(source, lambda n, p, k: f"from kgslab import check\n"
                                                                        f"return check.{k}._reference({_call(p)})"),
        "environment": _after_setup(blank_functions, 'import os\nos.environ.pop("NBGRADER_EXECUTION", None)'),
        "patched_grade": _after_setup(blank_functions, "from kgslab.check import exercise\n"
                                                       "exercise.Exercise.grade = lambda *a, **k: None\n" +
                                      "".join(f"check.{key}.grade = lambda *a, **k: None\n" for key in every)),
        "patched_grading_mode": _after_setup(blank_functions, "import sys\n"
                                             "sys.modules['kgslab.check.time_limit'].grading_mode = lambda: None"),
        "forged_records": _after_setup(blank_functions, "from kgslab.check import records\n"
                                       "class Passed(dict):\n"
                                       "    def get(self, key, default=None):\n"
                                       "        return records.LastRun('x', print, True, 'passed')\n"
                                       "records.LAST_RUNS = Passed()\n"),
        "literal_answers": _with_bodies(source, _literal_answers),
    }
    wanted = {student: (notebook, every) for student, notebook in cheats.items()}
    edited = nbformat.from_dict(blank_functions)
    for cell in edited.cells:
        if re.search(rf"check\.{first_key}\(", cell.source) and cell.metadata.get("kgslab_role") != "test":
            cell.source = re.sub(rf"check\.{first_key}\((\w+)\)", rf"check.{first_key}._reference", cell.source)
            cell.metadata.pop("nbgrader", None)
            cell.metadata.pop("kgslab_role", None)
    wanted["edited_check_cell"] = (edited, every)
    loop = _with_bodies(source, lambda n, p, k: "import time\nwhile True:\n    try:\n        time.sleep(1)\n"
                                                "    except:\n        pass", only={first_key})
    wanted["bare_except_loop"] = (loop, {first_key: every[first_key]})
    no_tests = nbformat.from_dict(source)
    no_tests.cells = [cell for cell in no_tests.cells if cell.metadata.get("kgslab_role") != "test"]
    wanted["deleted_tests_solved"] = (no_tests, {})
    blank_no_tests = nbformat.from_dict(released)
    blank_no_tests.cells = [cell for cell in blank_no_tests.cells
                            if not re.search(r"check\.nb\d\d_exercise_\w+\.grade\(\)", cell.source)]
    wanted["deleted_tests_blank"] = (blank_no_tests, every)
    return wanted


def released_course(stem, tmp_path):
    """(course folder, source notebook, released notebook, autograded points) of a course of one notebook that
    `python -m kgslab.assignments` built and `nbgrader generate_assignment` released."""
    course = tmp_path / "course"
    assignments.build_course(course, only=[stem[:2]])
    source = nbformat.read(course / "source" / stem / f"{stem}.ipynb", as_version=4)
    max_auto, _ = grading_layout.notebook_points(source)
    _nbgrader(course, "generate_assignment", stem, "--force")
    released = nbformat.read(course / "release" / stem / f"{stem}.ipynb", as_version=4)
    return course, source, released, max_auto


@pytest.mark.parametrize("stem", _selected())
def test_every_cheat_scores_zero_on_what_it_touches(stem, tmp_path):
    course, source, released, max_auto = released_course(stem, tmp_path)
    secret = re.search(r'secret = "(\w+)"', (course / "nbgrader_config.py").read_text()).group(1)
    assert secret not in nbformat.writes(released)
    assert not any(secret in path.read_text(errors="ignore") for path in (course / "release").rglob("*")
                   if path.is_file())

    wanted = _submissions(source, released)
    found = {key: points for _, _, _, key, points in _exercise_cells(source)}
    assert sum(found.values()) == max_auto, f"exercises found {sorted(found)}: every autograded point must be covered"
    # Every cheat but the endless loop in one `nbgrader autograde` (as an instructor grades a class: one process,
    # each submission in its own kernel); the loop on its own, timed: its grading must end within five minutes.
    alone = "bare_except_loop"
    for student, (notebook, _) in wanted.items():
        if student != alone:
            _submit(course, student, stem, notebook)
    timings = {}
    started = time.perf_counter()
    _nbgrader(course, "autograde", stem, "--create", "--force")
    timings[f"the other {len(wanted) - 1}"] = time.perf_counter() - started
    _submit(course, alone, stem, wanted[alone][0])
    started = time.perf_counter()
    _nbgrader(course, "autograde", stem, "--create", "--force", "--student", alone)
    timings[alone] = time.perf_counter() - started
    print(f"\n{stem}: seconds per autograde: " + ", ".join(f"{k} {v:.0f}" for k, v in timings.items()))
    assert timings[alone] < 300, timings

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student, (_, loses) in wanted.items():
            submission = gradebook.find_submission(stem, student)
            assert submission.code_score == pytest.approx(max_auto - sum(loses.values())), \
                (student, submission.code_score, max_auto, loses)
            for grade in gradebook.find_submission_notebook(stem, stem, student).grades:
                if grade.cell_type == "code":           # an autograded test: never left to the instructor
                    assert not grade.needs_manual_grade, (student, grade.name)
        notebook = gradebook.find_submission_notebook(stem, stem, "calls_reference")
        comments = " ".join(comment.auto_comment or "" for comment in notebook.comments)
        assert "calls the closed reference" in comments, comments

"""Grades right both ways under the real nbgrader: ways out of Python's reach score 0, honest work scores in full.

Each submission below is what a student would try (tests/test_grading_cheats.py has the older kinds), graded
by plain ``nbgrader autograde`` in the course ``python -m kgslab.assignments`` writes, all in one nbgrader
process as an instructor grades a class:

* the reference reached without its name: the original found among the interpreter's objects (``gc``), with a
  test that tells the grader from the notebook first; the module executed again (``runpy``), also bound once at
  the top of the cell as a default argument; the original out of the guard's closure (``inspect``); a fresh
  Python started by a class body and asked by pickle;
* processes: the grading child and the kernel walk ``/proc`` to the grading process and kill it; a process that
  outlives grading and rewrites the gradebook; a line that is no message written on every file descriptor;
* a file that is no notebook: it gets its row, 0 and the reason;
* honest work: a dual built on the student's own primal, and on the kit's fall-back for a blank primal (01);
  both score their points with no flag; a syntax error is reported as one.

For 01 also the open twins: scikit-learn's Ridge and KernelRidge, and the kit's gp_posterior, for the primal
and dual.  `make test` runs 01, `make test-grading` all ten (KGSLAB_GRADING_NOTEBOOKS, as test_grading.py).
"""

import os
import re
import time

import nbformat
import pytest

from kgslab import check
from kgslab.check import closed
from test_grading import _nbgrader, _selected, _submit, replace_solution
from test_grading_cheats import _after_setup, _call, _exercise_cells, _with_bodies, released_course

pytest.importorskip("nbgrader")
from nbgrader.api import Gradebook  # noqa: E402


def _original(key):
    """(module, qualified name) of the function behind an exercise's reference guard."""
    guard = check.exercises()[key]._reference
    original = closed._ORIGINALS.get(id(guard), guard)
    return original.__module__, original.__qualname__


def _gc_body(name, parameters, key, grader_only=False):
    module, qualname = _original(key)
    test = ("import os\nif 'kgslab-grading' not in os.getcwd() and 'autograded' not in os.getcwd():\n"
            "    raise NotImplementedError()\n") if grader_only else ""
    return (f"{test}import gc\n"
            f"for found in gc.get_objects():\n"
            f"    if callable(found) and getattr(found, '__qualname__', None) == {qualname!r} \\\n"
            f"            and getattr(found, '__module__', None) == {module!r} \\\n"
            f"            and not hasattr(found, '_kgslab_closed_name'):\n"
            f"        return found({_call(parameters)})\n"
            f"raise NotImplementedError()")


def _runpy_body(name, parameters, key):
    module, qualname = _original(key)
    return f"import runpy\nreturn runpy.run_module({module!r})[{qualname!r}]({_call(parameters)})"


def _closure_body(name, parameters, key):
    return (f"import inspect\nfrom kgslab import check\n"
            f"return inspect.getclosurevars(check.{key}._reference).nonlocals['original']({_call(parameters)})")


def _garbage_body(name, parameters, key):
    return ("import os, json\n"
            "for fd in range(0, 64):\n"
            "    try:\n"
            "        os.write(fd, b'not a message\\n')\n"
            "    except OSError:\n"
            "        pass\n"
            "raise NotImplementedError()")


_KILLER = ("import os, signal\n"
           "def _kill_upwards():\n"
           "    pid = os.getppid()\n"
           "    while pid > 1:\n"
           "        try:\n"
           "            os.kill(pid, signal.SIGKILL)\n"
           "        except OSError:\n"
           "            pass\n"
           "        try:\n"
           "            pid = int(open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()[1])\n"
           "        except OSError:\n"
           "            break\n")


def _killer_body(name, parameters, key):
    return "_kill_upwards()\nraise NotImplementedError()"


_REWRITER = ("import os, sys, time\n"
             "def _rewrite_later():\n"
             "    here = os.getcwd()\n"
             "    try:\n"
             "        pid = os.fork()\n"
             "    except OSError:\n"
             "        return\n"
             "    if pid == 0:\n"
             "        try:\n"
             "            os.setsid()\n"
             "        except OSError:\n"
             "            pass\n"
             "        time.sleep(8)\n"
             "        import sqlite3\n"
             "        folder = here\n"
             "        for _ in range(6):\n"
             "            candidate = os.path.join(folder, 'gradebook.db')\n"
             "            if os.path.exists(candidate):\n"
             "                db = sqlite3.connect(candidate)\n"
             "                db.execute('update grade set auto_score = max_score')\n"
             "                db.commit()\n"
             "            folder = os.path.dirname(folder)\n"
             "        os._exit(0)\n")


def _with_cell_prefix(notebook, prefix, body, only=None):
    """The exercise cells get `prefix` (top-level code of the student's) before their function and `body` in it."""
    changed = _with_bodies(notebook, body, only)
    for cell, name, _, key, _ in _exercise_cells(changed):
        if only is None or key in only:
            cell.source = prefix + "\n" + cell.source
            break                                  # once, in the first such cell: the later ones see its names
    return changed


def _default_argument(notebook):
    """A module-level 'constant' made by runpy, bound as a default argument of the graded function."""
    changed = nbformat.from_dict(notebook)
    for cell, name, parameters, key, _ in _exercise_cells(changed):
        module, qualname = _original(key)
        cell.source = replace_solution(cell.source, f"return _ref({_call(parameters)})")
        cell.source = re.sub(rf"^def {name}\((.*?)\):",
                             lambda m: f"def {name}({m.group(1)}, _ref=_FRESH[{qualname!r}]):",
                             cell.source, count=1, flags=re.MULTILINE | re.DOTALL)
        cell.source = f"import runpy\n_FRESH = runpy.run_module({module!r})\n" + cell.source
    return changed


def _oracle(notebook):
    """A class body starts a fresh Python, where nothing is closed, and the functions ask it by pickle."""
    changed = nbformat.from_dict(notebook)
    for cell, name, parameters, key, _ in _exercise_cells(changed):
        module, qualname = _original(key)
        server = (f"import sys, pickle\\nfrom {module} import {qualname.split('.')[0]} as f\\n"
                  f"while True:\\n    a = pickle.load(sys.stdin.buffer)\\n"
                  f"    pickle.dump(f(*a), sys.stdout.buffer)\\n    sys.stdout.flush()")
        prefix = (f"class _Oracle_{name}:\n"
                  f"    import subprocess, sys\n"
                  f"    process = subprocess.Popen([sys.executable, '-c', \"{server}\"], stdin=subprocess.PIPE,\n"
                  f"                               stdout=subprocess.PIPE)\n")
        body = (f"import pickle\n"
                f"pickle.dump(({_call(parameters)},), _Oracle_{name}.process.stdin)\n"
                f"_Oracle_{name}.process.stdin.flush()\n"
                f"return pickle.load(_Oracle_{name}.process.stdout)")
        cell.source = prefix + replace_solution(cell.source, body)
    return changed


def _honest_01(source, released):
    """01 only: the dual on the student's own primal (solved, and blank), and the open twins."""
    cells = {key: cell for cell, _, _, key, _ in _exercise_cells(source)}
    dual = "l = X.shape[0]\nw = ridge_primal(X, y, gamma)\nreturn (y - X @ w) / (gamma * l)"
    own = nbformat.from_dict(source)
    for cell, _, _, key, _ in _exercise_cells(own):
        if key == "nb01_exercise_1_dual":
            cell.source = replace_solution(cell.source, dual)
    blank_primal = _with_bodies(own, lambda n, p, k: "raise NotImplementedError()", only={"nb01_exercise_1_primal"})
    primal_points = {key: points for _, _, _, key, points in _exercise_cells(source)}["nb01_exercise_1_primal"]
    twins = {
        "nb01_exercise_1_primal": "from sklearn.linear_model import Ridge\n"
                                  "return Ridge(alpha=gamma * X.shape[0], fit_intercept=False).fit(X, y).coef_",
        "nb01_exercise_1_dual": "from sklearn.kernel_ridge import KernelRidge\n"
                                "return KernelRidge(alpha=gamma * X.shape[0], kernel='linear').fit(X, y).dual_coef_",
    }
    gp = {"nb01_exercise_1_dual": "import numpy as np\nfrom kgslab.regression import gp_posterior\nl = X.shape[0]\n"
                                  "return gp_posterior(X @ X.T, np.eye(l), np.ones(l), y, gamma * l)[0]",
          "nb01_exercise_1_primal": "import numpy as np\nfrom kgslab.regression import gp_posterior\nl = X.shape[0]\n"
                                    "return gp_posterior(X @ X.T, X.T, np.ones(X.shape[1]), y, gamma * l)[0]"}
    every = {key: points for _, _, _, key, points in _exercise_cells(source)}
    sklearn_loses = {key: every[key] for key in twins}
    return {
        "honest_dual": (own, {}),
        "honest_dual_blank_primal": (blank_primal, {"nb01_exercise_1_primal": primal_points}),
        "sklearn_twins": (_with_bodies(source, lambda n, p, k: twins[k], only=set(twins)), sklearn_loses),
        "open_kit_twin": (_with_bodies(source, lambda n, p, k: gp[k], only=set(gp)), sklearn_loses),
    }


_ROUTES = {
    "gc_original": _gc_body,
    "gc_in_grader_only": lambda n, p, k: _gc_body(n, p, k, grader_only=True),
    "runpy_again": _runpy_body,
    "guard_closure": _closure_body,
}


def _routes(source):
    """Submissions that reach each exercise's reference by a route around its name, the routes spread over the
    exercises so that every route meets an exercise (and every exercise a route) in as few submissions as that
    takes; then the default argument and the fresh Python, on every exercise."""
    exercises = _exercise_cells(source)
    names = list(_ROUTES)
    rounds = max(1, -(-len(names) // len(exercises)))
    found = {}
    for turn in range(rounds):
        chosen = {key: names[(turn * len(exercises) + index) % len(names)]
                  for index, (_, _, _, key, _) in enumerate(exercises)}
        notebook = _with_bodies(source, lambda n, p, k: _ROUTES[chosen[k]](n, p, k))
        found["routes_" + "_".join(dict.fromkeys(chosen.values()))[:60]] = notebook
    found["runpy_default_argument"] = _default_argument(source)
    found["fresh_python_oracle"] = _oracle(source)
    return found


def _hostile(source):
    """Processes: the kernel kills its parent and forks one that waits and rewrites the gradebook; the first
    exercise writes a line that is no message on every descriptor, the second kills every process up from the
    child, the third forks the rewriter from the child; the others are solved and keep their points."""
    exercises = _exercise_cells(source)
    bodies = {exercises[0][3]: _garbage_body}
    if len(exercises) > 1:
        bodies[exercises[1][3]] = _killer_body
    if len(exercises) > 2:
        bodies[exercises[2][3]] = lambda n, p, k: "_rewrite_later()\nraise NotImplementedError()"
    notebook = _with_cell_prefix(source, _KILLER + _REWRITER, lambda n, p, k: bodies[k](n, p, k), only=set(bodies))
    notebook = _after_setup(notebook, _REWRITER + "_rewrite_later()\nimport os, signal\ntry:\n"
                                      "    os.kill(os.getppid(), signal.SIGKILL)\nexcept OSError:\n    pass")
    return notebook, set(bodies)


def _submissions(source, released):
    """{student: (notebook, {exercise key: points it must lose})}."""
    every = {key: points for _, _, _, key, points in _exercise_cells(source)}
    wanted = {student: (notebook, every) for student, notebook in _routes(source).items()}
    hostile, touched = _hostile(source)
    wanted["hostile_processes"] = (hostile, {key: every[key] for key in touched})
    syntax = nbformat.from_dict(source)
    cell, name, _, key, _ = _exercise_cells(syntax)[0]
    cell.source = cell.source.replace(f"def {name}(", f"def {name}((", 1)
    wanted["syntax_error"] = (syntax, {key: every[key]})
    return wanted


def _leftover(marker: str) -> list[str]:
    """Command lines of processes still running whose command line holds `marker`."""
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                line = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if marker in line:
                found.append(line)
    return found


@pytest.mark.parametrize("stem", _selected())
def test_escapes_score_zero_and_honest_work_full_marks(stem, tmp_path):
    course, source, released, max_auto = released_course(stem, tmp_path)
    wanted = _submissions(source, released)
    if stem.startswith("01"):
        wanted.update(_honest_01(source, released))
    for student, (notebook, _) in wanted.items():
        _submit(course, student, stem, notebook)
    corrupt = course / "submitted" / "not_a_notebook" / stem
    corrupt.mkdir(parents=True)
    (corrupt / f"{stem}.ipynb").write_text('{"cells": [ this is not json')
    wanted["not_a_notebook"] = (None, {key: points for _, _, _, key, points in _exercise_cells(source)})

    started = time.perf_counter()
    output = _nbgrader(course, "autograde", stem, "--create", "--force")
    print(f"\n{stem}: {len(wanted)} submissions autograded in {time.perf_counter() - started:.0f} s")
    time.sleep(10)                               # what a rewriting process would wait for: the grader's exit
    assert not _leftover(str(course)), _leftover(str(course))

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        graded = {submission.student_id for submission in gradebook.assignment_submissions(stem)}
        assert graded == set(wanted), (set(wanted) - graded, output[-3000:])
        for student, (_, loses) in wanted.items():
            submission = gradebook.find_submission(stem, student)
            assert submission.code_score == pytest.approx(max_auto - sum(loses.values())), \
                (student, submission.code_score, max_auto, loses)
        comments = {student: " ".join(comment.auto_comment or "" for comment in
                                      gradebook.find_submission_notebook(stem, stem, student).comments)
                    for student in wanted}
    assert "not a notebook" in comments["not_a_notebook"]
    if stem.startswith("01"):
        assert comments["honest_dual"].strip() == "" and comments["honest_dual_blank_primal"].strip() == "", \
            comments
    autograded = nbformat.read(course / "autograded" / "syntax_error" / stem / f"{stem}.ipynb", as_version=4)
    verdicts = [cell.metadata.get("kgslab", {}).get("verdict") for cell in autograded.cells]
    words = " ".join(entry["words"] for verdict in verdicts if verdict for entry in verdict["mistakes"])
    assert "SyntaxError" in words and "NameError" not in words, words

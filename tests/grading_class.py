"""A synthetic class for notebook 01, for tests/test_grade_class.py and benchmarks/grading.py.

Built from the kit's own course directory (`kgslab.assignments`) and nbgrader's
generate_assignment, with the helpers of tests/test_grading.py and
tests/test_grading_cheats.py: each student is the solution notebook with some
exercise bodies replaced by a typical wrong one (the mistakes 01's checks name:
gamma without the factor l, the two errors swapped, a sum for a mean, w fitted
on the test set, noise levels too narrow), or the released notebook left blank,
or an endless loop, or a cheat (calls the kit's reference), or handed in late.
"""

from __future__ import annotations

import datetime

import nbformat

from kgslab import assignments
from test_grading import _nbgrader, _submit
from test_grading_cheats import _calls_the_reference, _with_bodies

STEM = "01_duality"
PRIMAL, ERRORS, NOISE, DUAL = (f"nb01_exercise_1_{name}" for name in ("primal", "errors", "noise", "dual"))

# {key: body} replacements, each a typical wrong answer (or worse).
WRONG = {
    "primal_no_l": {PRIMAL: "return np.linalg.solve(X.T @ X + gamma * np.eye(X.shape[1]), X.T @ y)"},
    "dual_no_l": {DUAL: "return np.linalg.solve(X @ X.T + gamma * np.eye(X.shape[0]), y)"},
    "errors_swapped": {ERRORS: "train, test = [], []\nfor gamma in gammas:\n"
                               "    w = ridge_primal(X_train, y_train, gamma)\n"
                               "    train.append(np.mean((y_train - X_train @ w) ** 2))\n"
                               "    test.append(np.mean((y_test - X_test @ w) ** 2))\n"
                               "return np.array(test), np.array(train)"},
    "errors_sum": {ERRORS: "train, test = [], []\nfor gamma in gammas:\n"
                           "    w = ridge_primal(X_train, y_train, gamma)\n"
                           "    train.append(np.sum((y_train - X_train @ w) ** 2))\n"
                           "    test.append(np.sum((y_test - X_test @ w) ** 2))\n"
                           "return np.array(train), np.array(test)"},
    "noise_narrow": {NOISE: "noise_levels = np.array([1.0, 1.5, 2.0])\n"
                            "generator = np.random.default_rng(seed)\n"
                            "train_mse = np.zeros((3, len(gammas)))\ntest_mse = np.zeros((3, len(gammas)))\n"
                            "for row, noise in enumerate(noise_levels):\n"
                            "    for _ in range(n_draws):\n"
                            "        X, y, _ = data.linear_data(n=n_train + 100, d=10, noise=noise, "
                            "random_state=generator)\n"
                            "        train, test = ridge_errors(X[:n_train], y[:n_train], X[n_train:], y[n_train:], "
                            "gammas)\n"
                            "        train_mse[row] += train / n_draws\n        test_mse[row] += test / n_draws\n"
                            "return noise_levels, train_mse, test_mse"},
    "primal_raises": {PRIMAL: "return np.linalg.solve(X @ X.T, X.T @ y)"},
    "endless_loop": {PRIMAL: "while True:\n    pass"},
}
WRONG["two_mistakes"] = {**WRONG["primal_no_l"], **WRONG["errors_swapped"]}
LOSES = {"blank": {PRIMAL, ERRORS, NOISE, DUAL}, "solved": set(), "late_solved": set(), "cheat": {PRIMAL, ERRORS,
         NOISE, DUAL}, **{student: set(bodies) for student, bodies in WRONG.items()}}
DUE = datetime.datetime(2026, 1, 10, 12, 0)


def _wrong(source, bodies: dict[str, str]):
    return _with_bodies(source, lambda name, parameters, key: bodies[key], only=set(bodies))


def class_notebooks(source, released) -> dict:
    """{student: notebook}: at least 12 submissions of 01 (the Done-when list of issue 24)."""
    students = {"blank": released, "solved": source, "late_solved": source,
                "cheat": _with_bodies(source, _calls_the_reference)}
    students.update({student: _wrong(source, bodies) for student, bodies in WRONG.items()})
    return students


def make_course(path, late_penalty: bool = True):
    """A course directory for 01 with the assignment generated (due DUE, late work scores 0); (source, released)."""
    from nbgrader.api import Gradebook

    assignments.build_course(path, only=["01"])
    if late_penalty:
        with open(path / "nbgrader_config.py", "a", encoding="utf-8") as config:
            config.write('c.LateSubmissionPlugin.penalty_method = "zero"\n')
    _nbgrader(path, "generate_assignment", STEM, "--force")
    with Gradebook(f"sqlite:///{path / 'gradebook.db'}") as gradebook:
        gradebook.update_or_create_assignment(STEM, duedate=DUE)
    source = nbformat.read(path / "source" / STEM / f"{STEM}.ipynb", as_version=4)
    released = nbformat.read(path / "release" / STEM / f"{STEM}.ipynb", as_version=4)
    return source, released


def submit_class(course, notebooks: dict, copies: int = 1) -> list[str]:
    """Each notebook submitted (`copies` times: student, student_2, ...), on time except late_solved."""
    students = []
    for copy in range(copies):
        for student, notebook in notebooks.items():
            name = student if copy == 0 else f"{student}_{copy + 1}"
            _submit(course, name, STEM, notebook)
            when = DUE + datetime.timedelta(days=2 if student.startswith("late") else -1)
            (course / "submitted" / name / STEM / "timestamp.txt").write_text(when.strftime("%Y-%m-%d %H:%M:%S"))
            students.append(name)
    return students

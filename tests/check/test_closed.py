"""A wrapper of an exercise's reference earns ✘ with the reason, in every notebook's checks.

For each exercise: a student function whose body calls the check's reference
(``check.X._reference``, private but findable), and one that calls each public kit function the
exercise closes (its reference's public name and the twins that compute the
same answer), gets ✘ naming the closed function, even when it catches the
error; honest code keeps working, and so do the kit's own calls.
"""

import contextlib
import io

import numpy as np
import pytest

from kgslab import check, regression
from kgslab.check import closed, records

NOTEBOOKS = sorted({key[:4] for key in check.exercises()})


def _run(exercise, student):
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        returned = exercise(student)
    return returned, printed.getvalue(), records.LAST_RUNS[exercise.key]


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_a_wrapper_of_the_reference_fails_with_the_reason(notebook):
    for key, exercise in check.exercises().items():
        if not key.startswith(notebook):
            continue

        def wrapper(*args, **kwargs):
            return exercise._reference(*args, **kwargs)

        returned, printed, record = _run(exercise, wrapper)
        assert not record.passed, (key, printed)
        assert "✘" in printed and "is this exercise's reference" in printed, (key, printed)
        assert returned is not wrapper and returned(*exercise.cases()[0].args, **exercise.cases()[0].kwargs) \
            is not None   # the fall-back runs, so the notebook runs on


def test_catching_the_error_earns_nothing():
    def ridge_primal(X, y, gamma):
        try:
            return regression.ridge(X, y, gamma)
        except Exception:
            return np.linalg.solve(X.T @ X + gamma * len(y) * np.eye(X.shape[1]), X.T @ y)

    _, printed, record = _run(check.nb01_exercise_1_primal, ridge_primal)
    assert not record.passed and "`kgslab.regression.ridge`" in printed


def test_a_twin_is_closed_and_a_tool_stays_open():
    def ridge_primal(X, y, gamma):            # the dual's kit function gives w too: closed
        return X.T @ regression.ridge_dual(X, y, gamma)

    _, printed, record = _run(check.nb01_exercise_1_primal, ridge_primal)
    assert not record.passed and "`kgslab.regression.ridge_dual`" in printed

    def linear_fit_errors(X_train, y_train, X_test, y_test, gamma):   # 02 is meant to use the kit's ridge
        A_train, A_test = regression.with_bias(X_train), regression.with_bias(X_test)
        w = regression.ridge(A_train, y_train, gamma)
        return np.mean((y_train - A_train @ w) ** 2), np.mean((y_test - A_test @ w) ** 2)

    _, printed, record = _run(check.nb02_exercise_2, linear_fit_errors)
    assert record.passed, printed


def test_a_coursework_experiment_that_holds_the_answer_is_closed():
    from kgslab.papers import coursework

    def log_evidence(K, y, sigma2):           # the evidence curve of one sigma2 is 4a's answer
        return float(coursework.evidence_curve(K, y, [sigma2])[0][0])

    _, printed, record = _run(check.nb03_exercise_4a, log_evidence)
    assert not record.passed and "`kgslab.papers.coursework.evidence_curve`" in printed, printed


def test_the_kit_calls_its_closed_functions_outside_and_inside_a_check():
    X, y = np.eye(4), np.arange(4.0)
    assert np.allclose(regression.ridge(X, y, 0.1), regression.ridge_dual(X, y, 0.1))   # open outside a check
    with closed.closing({"kgslab.regression.ridge"}):
        regression.ridge_errors(X, y, X, y, [0.1])          # the kit's own module calls ridge: allowed
        with pytest.raises(closed.ClosedReference, match="write it yourself"):
            regression.ridge(X, y, 0.1)                      # this test is not the kit


def test_the_fallback_is_closed_for_its_own_exercise():
    blank = check.nb01_exercise_1_primal(lambda X, y, gamma: None)   # a wrong answer: the fall-back comes back

    def ridge_primal(X, y, gamma):
        return blank(X, y, gamma)

    _, printed, record = _run(check.nb01_exercise_1_primal, ridge_primal)
    assert not record.passed and "is this exercise's reference" in printed


def test_the_guard_hides_the_original():
    assert not hasattr(regression.ridge, "__wrapped__")
    assert regression.ridge.__name__ == "ridge" and "gamma" in str(__import__("inspect").signature(regression.ridge))


def test_the_kits_crossing_angle_earns_nothing_for_the_crossing_exercises():
    """08 Exercise 1 and 09 Exercise 9.1 are crossings.crossing_angle with a line round it (issue 28's read: it lived
    in versionspace, which both copies import); calling it is closed, under every name it can be reached by."""
    from kgslab import billiard_ball, circle

    def flight_times(margins, slopes):
        return billiard_ball.crossing_angle(np.maximum(margins, 0.0), slopes)

    def crossing_angles(w_outputs, v_outputs, y):
        first = circle.crossing_angle(y * w_outputs, y * v_outputs)
        return np.concatenate([first, np.mod(first + np.pi, 2 * np.pi)])

    for exercise, student in [(check.nb09_exercise_1, flight_times), (check.nb08_exercise_1, crossing_angles)]:
        _, printed, record = _run(exercise, student)
        assert not record.passed and "`kgslab.crossings.crossing_angle`" in printed, printed


@pytest.mark.parametrize("key, bias", [("nb05_exercise_6_no_bias", False), ("nb05_exercise_6_with_bias", True)])
def test_the_adatrons_private_loop_is_closed_too(key, bias):
    from kgslab import adatron as kit_adatron

    def adatron(K, y, C, eta=1.0, tol=0.005, max_iter=None):   # the kit's loop under the estimator, called directly
        alpha, b, _, _ = kit_adatron._coordinate_ascent(
            np.asarray(K, float), np.asarray(y, float),
            *kit_adatron._check_parameters(C, eta, tol, max_iter, len(y)), bias=bias)
        return (alpha, b) if bias else alpha

    _, printed, record = _run(check.exercises()[key], adatron)
    assert not record.passed and "`kgslab.adatron._coordinate_ascent`" in printed, printed


def test_a_reference_imported_by_name_before_its_first_check_is_closed_in_a_fresh_interpreter():
    # A notebook's first cell imports `check`; a student cell may then import a kit function by name at top level
    # and call it from the exercise, before the exercise's check has ever been asked for.  The name it holds must
    # already be the guard: `from kgslab import check` closes every exercise's references at once (a check module
    # imported only at its first use closed them too late: the student's name kept the original and earned ✔)
    import subprocess
    import sys

    program = "\n".join([
        "from kgslab import check",
        "from kgslab.circle import crossing_angles as kit_crossing_angles",
        "def crossing_angles(w_out, v_out, y):",
        "    return kit_crossing_angles(w_out, v_out, y)",
        "check.nb08_exercise_1(crossing_angles)",
        "print('record', check.records.LAST_RUNS['nb08_exercise_1'].passed)",
    ])
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "record False" in done.stdout and "is this exercise's reference" in done.stdout, done.stdout[-2000:]

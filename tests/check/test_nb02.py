"""Notebook 02's checks (kernel ridge regression, Exercises 2 and 3a): the solver, the table, CV and tuning.

The student's functions are written as the notebook's solution writes them (`written_out` copies of the kit's
functions); each check is fed the student's usual mistakes, which must never earn a tick and should be named in
words.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import KFold

from checking import blank, worked_reasoning_opens_only_after_a_pass
from kgslab import check, regression
from kgslab.check.fallback import reference_of
from kgslab.kernels import rbf_kernel
from kgslab.regression import cv_error, kernel_ridge, linear_fit_errors
from written_out import written_out


def verdict(exercise, student, capsys):
    """(True when the check adopted the student's function, what it printed)."""
    result = exercise(student)
    return result is student, capsys.readouterr().out


def test_notebook_02_checks_accept_right_and_refuse_wrong_answers(capsys):
    def blank(*args, **kwargs):
        raise NotImplementedError()

    def kernel_ridge_without_l(K, y, gamma):  # a classic slip: forgetting the factor l
        return np.linalg.solve(K + gamma * np.eye(len(y)), y)

    def kernel_ridge_by_student(K, y, gamma):
        return np.linalg.solve(K + gamma * len(y) * np.eye(len(y)), y)

    assert check.nb02_exercise_3a(kernel_ridge_by_student) is kernel_ridge_by_student
    assert reference_of(check.nb02_exercise_3a(kernel_ridge_without_l)) is kernel_ridge
    assert "✘" in capsys.readouterr().out
    assert reference_of(check.nb02_exercise_3a(blank)) is kernel_ridge
    assert reference_of(check.nb02_exercise_2(blank)) is linear_fit_errors
    assert reference_of(check.nb02_exercise_3a_cv(blank)) is cv_error
    assert reference_of(check.nb02_exercise_2(lambda *a: (0.0, 0.0))) is linear_fit_errors
    assert "not attempted" in capsys.readouterr().out


@pytest.mark.parametrize("exercise, mistake, words", [
    ("nb02_exercise_3a", lambda K, y, g: written_out(regression.kernel_ridge)(K, y, g / len(y)), "without the factor l"),
    ("nb02_exercise_2", lambda *a: written_out(regression.linear_fit_errors)(*a)[::-1], "swapped"),
    ("nb02_exercise_2", lambda Xa, ya, Xb, yb, g: tuple(
        np.mean((y - X @ written_out(regression.ridge)(Xa, ya, g)) ** 2) for X, y in ((Xa, ya), (Xb, yb))), "no intercept"),
    ("nb02_exercise_3a_cv", lambda X, y, L, g, n_folds=5, random_state=0: float(np.mean([
        np.mean((y[h] - rbf_kernel(X[h], X[t], L=L) @ written_out(regression.kernel_ridge)(rbf_kernel(X[t], L=L), y[t], g)) ** 2)
        for t, h in KFold(n_folds).split(X)])), "not shuffled"),
    ("nb02_exercise_3a_cv", lambda X, y, L, g, n_folds=5, random_state=0: float(np.mean([
        np.mean((y[h] - rbf_kernel(X[h], X[t], L=L) @ written_out(regression.kernel_ridge)(
            rbf_kernel(X[t], L=L), y[t], g * len(y) / len(t))) ** 2)
        for t, h in KFold(n_folds, shuffle=True, random_state=random_state).split(X)])), "uses all the points"),
    ("nb02_exercise_3a_cv", lambda *a, **k: k.get("n_folds", 5) * written_out(regression.cv_error)(*a, **k), "number of folds"),
])
def test_solver_and_error_checks_name_the_mistake(exercise, mistake, words, capsys):
    passed, out = verdict(check.exercises()[exercise], mistake, capsys)
    assert not passed and words in out, out


def linear_table(X_train, y_train, X_test, y_test, gammas=(0.0, 1e-3, 1e-1, 10.0)):
    gammas = np.array(gammas)
    return gammas, np.array([written_out(regression.linear_fit_errors)(X_train, y_train, X_test, y_test, g) for g in gammas])


def test_the_table_passes_with_the_students_own_gammas(capsys):
    for gammas in [(0.0, 1e-3, 1e-1, 10.0), (0.0, 1e-6, 1e-4, 1e-2, 1.0, 100.0)]:
        passed, out = verdict(check.nb02_exercise_2_table, lambda *a, gammas=gammas: linear_table(*a, gammas=gammas),
                              capsys)
        assert passed, out


@pytest.mark.parametrize("mistake, words", [
    (lambda *a: (linear_table(*a)[0], linear_table(*a)[1].T), "transposed"),
    (lambda *a: (linear_table(*a)[0], linear_table(*a)[1][:, ::-1]), "columns are swapped"),
    (lambda *a: linear_table(*a, gammas=(1e-3, 1e-1, 10.0, 100.0)), "least squares first"),
    (lambda *a: linear_table(*a, gammas=(0.0, 1.0, 2.0, 5.0)), "two powers of ten"),
    (lambda *a: linear_table(*a, gammas=(0.0, 10.0, 1e-1, 1e-3)), "increasing"),
    (lambda *a: (linear_table(*a)[0], linear_table(*a, gammas=(0.0, 1e-3, 1e-1, 1.0))[1]), "differ"),
])
def test_the_table_refuses_typical_mistakes(mistake, words, capsys):
    passed, out = verdict(check.nb02_exercise_2_table, mistake, capsys)
    assert not passed and words in out, out


def tune_gamma(X, y, L, gammas, n_folds=5, random_state=0):
    errors = np.array([written_out(regression.cv_error)(X, y, L, g, n_folds, random_state) for g in gammas])
    return gammas[np.argmin(errors)], errors


def tune_width(X, y, widths, gammas, n_folds=5, random_state=0):
    cv_map = np.array([tune_gamma(X, y, width, gammas, n_folds, random_state)[1] for width in widths])
    row, column = np.unravel_index(np.argmin(cv_map), cv_map.shape)
    return widths[row], gammas[column], cv_map


@pytest.mark.parametrize("exercise, student, words", [
    ("nb02_exercise_3a_tune_gamma", tune_gamma, None),
    ("nb02_exercise_3a_tune_gamma", lambda X, y, L, g, n_folds=5, random_state=0: (
        g[np.argmax(tune_gamma(X, y, L, g, n_folds, random_state)[1])], tune_gamma(X, y, L, g, n_folds, random_state)[1]),
     "largest CV error"),
    ("nb02_exercise_3a_tune_gamma", lambda X, y, L, g, n_folds=5, random_state=0: (
        float(np.argmin(tune_gamma(X, y, L, g, n_folds, random_state)[1])), tune_gamma(X, y, L, g, n_folds, random_state)[1]),
     "position"),
    ("nb02_exercise_3a_tune_gamma", lambda X, y, L, g, n_folds=5, random_state=0: tune_gamma(X, y, L, g), "differ"),
    ("nb02_exercise_3a_tune_gamma", lambda X, y, L, g, n_folds=5, random_state=0: tune_gamma(
        X, y, L, np.sort(g), n_folds, random_state), "differ"),                    # sorts the student's grid
    ("nb02_exercise_3a_tune_width", tune_width, None),
    ("nb02_exercise_3a_tune_width", lambda *a, **k: (lambda r: (r[0], r[1], r[2].T))(tune_width(*a, **k)),
     "transposed"),
    ("nb02_exercise_3a_tune_width", lambda *a, **k: (lambda r: (r[1], r[0], r[2]))(tune_width(*a, **k)), "swapped"),
])
def test_the_tuning_checks(exercise, student, words, capsys):
    passed, out = verdict(check.exercises()[exercise], student, capsys)
    if words is None:
        assert passed, out
    else:
        assert not passed and words in out, out


def test_the_worked_reasoning_opens_only_after_the_students_own_pass(capsys, monkeypatch):
    """check.why shows the reading of the (L, gamma) map once the student's own tune_width_and_gamma passed only."""
    def swapped(*args, **kwargs):
        best = tune_width(*args, **kwargs)
        return best[1], best[0], best[2]

    worked_reasoning_opens_only_after_a_pass("nb02_exercise_3a_tune_width", tune_width, (blank, swapped), capsys,
                                             monkeypatch, words="valley")
    assert "valley of low CV error bends" in check.nb02_exercise_3a_tune_width._worked

"""Notebook 01's checks (duality and ridge regression, Exercise 1): the solver, its errors and the noise study.

The student's functions are written as the notebook's solution writes them (`written_out` copies of the kit's
functions); each check is fed the student's usual mistakes, which must never earn a tick and should be named in
words.
"""

from __future__ import annotations

import numpy as np
import pytest

from kgslab import check, data, regression
from written_out import written_out

GAMMAS = 10.0 ** np.arange(-6, 4)


def verdict(exercise, student, capsys):
    """(True when the check adopted the student's function, what it printed)."""
    result = exercise(student)
    return result is student, capsys.readouterr().out


def ridge_errors(X_train, y_train, X_test, y_test, gammas):
    return written_out(regression.ridge_errors)(X_train, y_train, X_test, y_test, gammas)


def noise_study(gammas, n_train, n_draws=30, seed=0, levels=(0.1, 1.0, 3.0, 10.0), order="levels first",
                scale=1.0):
    generator = np.random.default_rng(seed)
    levels = np.array(levels)
    train, test = np.zeros((len(levels), len(gammas))), np.zeros((len(levels), len(gammas)))
    pairs = [(row, draw) for row in range(len(levels)) for draw in range(n_draws)]
    if order == "draws first":
        pairs.sort(key=lambda pair: pair[1])
    for row, _ in pairs:
        X, y, _ = data.linear_data(n=n_train + 100, d=10, noise=levels[row], random_state=generator)
        errors = ridge_errors(X[:n_train], y[:n_train], X[n_train:], y[n_train:], gammas)
        train[row] += scale * errors[0] / n_draws
        test[row] += scale * errors[1] / n_draws
    return levels, train, test


def test_the_noise_study_passes_at_the_students_own_levels(capsys):
    for levels in [(0.1, 1.0, 3.0, 10.0), (0.3, 2.0, 5.0), (0.05, 0.5, 1.0, 4.0, 20.0)]:
        passed, out = verdict(check.nb01_exercise_1_noise,
                              lambda g, n, n_draws=30, seed=0, levels=levels: noise_study(g, n, n_draws, seed, levels),
                              capsys)
        assert passed, out


@pytest.mark.parametrize("mistake, words", [
    (lambda g, n, n_draws=30, seed=0: noise_study(g, n, n_draws, seed, levels=(0.5, 1.0, 2.0)), "do not reach"),
    (lambda g, n, n_draws=30, seed=0: noise_study(g, n, n_draws, seed, levels=(0.1, 10.0)), "at least three"),
    (lambda g, n, n_draws=30, seed=0: noise_study(g, n, n_draws, seed, levels=(10.0, 1.0, 0.1)), "increasing"),
    (lambda g, n, n_draws=30, seed=0: noise_study(g, n, n_draws, seed, scale=n_draws), "factor close to 4"),
    (lambda g, n, n_draws=30, seed=0: noise_study(g, n, n_draws, seed, order="draws first"), "another order"),
    (lambda g, n, n_draws=30, seed=0: (lambda r: (r[0], r[2], r[1]))(noise_study(g, n, n_draws, seed)), "swapped"),
    (lambda g, n, n_draws=30, seed=0: noise_study(g, n, n_draws, seed + 1), "one generator"),
    (lambda g, n, n_draws=30, seed=0: noise_study(g, n, 30, seed), "differ"),       # ignores n_draws
    (lambda g, n, n_draws=30, seed=0: (np.array([0.1, 1.0, 3.0, 10.0]),) + noise_study(g, n, n_draws, seed,
                                                                                     levels=(0.2, 1, 3, 10))[1:],
     "differ"),                                                                    # claims other levels
    (lambda g, n, n_draws=30, seed=0: tuple(np.asarray(part).tolist() for part in noise_study(g, n, n_draws, seed)),
     "numpy array"),
    (lambda g, n, n_draws=30, seed=0: noise_study(g, n, n_draws, seed)[1:], "tuple of 3"),
])
def test_the_noise_study_refuses_typical_mistakes_and_names_them(mistake, words, capsys):
    passed, out = verdict(check.nb01_exercise_1_noise, mistake, capsys)
    assert not passed and words in out, out
    assert "np.random.default_rng(seed)" not in out and "For a code-level hint" in out


def test_a_hard_coded_study_from_the_notebook_run_is_refused(capsys):
    stored = noise_study(GAMMAS, 15, 30, 15)                   # what the notebook's cell computes
    passed, out = verdict(check.nb01_exercise_1_noise, lambda *args, **kwargs: stored, capsys)
    assert not passed


@pytest.mark.parametrize("exercise, mistake, words", [
    ("nb01_exercise_1_primal", lambda X, y, g: written_out(regression.ridge)(X, y, g / len(y)), "without the factor l"),
    ("nb01_exercise_1_dual", lambda X, y, g: written_out(regression.ridge_dual)(X, y, g / len(y)), "without the factor l"),
    ("nb01_exercise_1_errors", lambda *a: written_out(regression.ridge_errors)(*a)[::-1], "swapped"),
    ("nb01_exercise_1_errors", lambda *a: tuple(20 * e for e in written_out(regression.ridge_errors)(*a)), "factor close to 20"),
])
def test_solver_and_error_checks_name_the_mistake(exercise, mistake, words, capsys):
    passed, out = verdict(check.exercises()[exercise], mistake, capsys)
    assert not passed and words in out, out

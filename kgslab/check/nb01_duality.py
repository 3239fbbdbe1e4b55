"""Checks for notebook 01 (duality and ridge regression, coursework Exercise 1)."""

from __future__ import annotations

import numpy as np

from .. import regression
from .core import Case, Exercise, allclose

__all__ = ["nb01_exercise_1_primal", "nb01_exercise_1_dual", "nb01_exercise_1_errors"]


def _problem(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    return X, X @ rng.standard_normal(d) + 0.1 * rng.standard_normal(n)


def _cases():
    cases = []
    for n, d, gamma, seed in [(20, 5, 0.1, 1), (8, 12, 0.01, 2), (50, 3, 10.0, 3)]:
        X, y = _problem(n, d, seed)
        cases.append(Case(f"{n} points in R^{d}, gamma = {gamma:g}", (X, y, gamma)))
    return cases


nb01_exercise_1_primal = Exercise(
    "nb01_exercise_1_primal", "Exercise 1 (primal ridge regression)",
    regression.ridge, _cases, points=2,
    hint="the system is (X.T @ X + gamma * l * I) w = X.T @ y with l = len(y); "
         "use np.linalg.solve rather than an explicit inverse.")


nb01_exercise_1_dual = Exercise(
    "nb01_exercise_1_dual", "Exercise 1 (dual ridge regression, eq. 2)",
    regression.ridge_dual, _cases, points=2,
    hint="alpha has one entry per training point: solve (X @ X.T + gamma * l * I) alpha = y.")


def _nb01_exercise_1_errors_cases():
    """Training and test MSE for a list of gammas."""
    X, y = _problem(40, 6, 4)
    gammas = 10.0 ** np.arange(-3, 3)
    cases = [Case("20 training / 20 test points in R^6, gamma = 1e-3 ... 1e2",
                  (X[:20], y[:20], X[20:], y[20:], gammas))]
    return cases


nb01_exercise_1_errors = Exercise(
    "nb01_exercise_1_errors", "Exercise 1 (training and test errors)",
    regression.ridge_errors, _nb01_exercise_1_errors_cases, points=2,
    compare=allclose(rtol=1e-6),
    hint="return two arrays, one MSE per gamma: mean((y - X @ w)**2) on the training "
         "set and on the test set, with w fitted on the training set only.")

"""Checks for notebook 01 (duality and ridge regression, coursework Exercise 1)."""

from __future__ import annotations

import numpy as np

from .. import regression
from .core import Case, allclose, run_exercise

__all__ = ["exercise_1_primal", "exercise_1_dual", "exercise_1_errors"]


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


def exercise_1_primal(student):
    """Primal ridge regression: w solving (X'X + gamma l I) w = X'y."""
    return run_exercise("Exercise 1 (primal ridge regression)", student, regression.ridge, _cases(),
                        hint="the system is (X.T @ X + gamma * l * I) w = X.T @ y with l = len(y); "
                             "use np.linalg.solve rather than an explicit inverse.")


def exercise_1_dual(student):
    """Dual ridge regression, eq. (2): alpha = (XX' + gamma l I)^{-1} y."""
    return run_exercise("Exercise 1 (dual ridge regression, eq. 2)", student, regression.ridge_dual, _cases(),
                        hint="alpha has one entry per training point: solve (X @ X.T + gamma * l * I) alpha = y.")


def exercise_1_errors(student):
    """Training and test MSE for a list of gammas."""
    X, y = _problem(40, 6, 4)
    gammas = 10.0 ** np.arange(-3, 3)
    cases = [Case("20 training / 20 test points in R^6, gamma = 1e-3 ... 1e2",
                  (X[:20], y[:20], X[20:], y[20:], gammas))]
    return run_exercise("Exercise 1 (training and test errors)", student, regression.ridge_errors, cases,
                        compare=allclose(rtol=1e-6),
                        hint="return two arrays, one MSE per gamma: mean((y - X @ w)**2) on the training "
                             "set and on the test set, with w fitted on the training set only.")

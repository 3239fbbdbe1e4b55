"""Checks for notebook 02 (kernel ridge regression, coursework Exercises 2 and 3a).

The references are `kgslab.regression.linear_fit_errors` (Exercise 2),
`kernel_ridge` and `cv_error` (Exercise 3a).
"""

from __future__ import annotations

import numpy as np

from .. import regression
from ..data import sinc_data
from ..kernels import linear_kernel, rbf_kernel
from .core import Case, Exercise, allclose

__all__ = ["nb02_exercise_2", "nb02_exercise_3a", "nb02_exercise_3a_cv"]


def _sinc_split(n_train, n_test, seed):
    X, y = sinc_data(n_train + n_test, random_state=seed)
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def _nb02_exercise_2_cases():
    """Linear least squares and ridge regression on the sinc data: training and test MSE."""
    cases = []
    for gamma, seed in [(0.0, 1), (0.1, 2), (10.0, 3)]:
        cases.append(Case(f"30 training / 30 test sinc points, gamma = {gamma:g}",
                          _sinc_split(30, 30, seed) + (gamma,)))
    return cases


nb02_exercise_2 = Exercise(
    "nb02_exercise_2", "Exercise 2 (linear regression on sinc)",
    regression.linear_fit_errors, _nb02_exercise_2_cases, points=3,
    compare=allclose(rtol=1e-6),
    hint="append a column of ones to X (with_bias), solve (A'A + gamma l I) w = A'y with "
         "A = [X, 1] and l the number of training points, and return the two MSEs as a tuple "
         "(train_mse, test_mse).")


def _nb02_exercise_3a_cases():
    """Kernel ridge regression, eq. (5): alpha = (K + gamma l I)^{-1} y."""
    cases = []
    for n, L, gamma, seed in [(12, 0.5, 1e-3, 4), (25, 1.0, 0.1, 5)]:
        X, y = sinc_data(n, random_state=seed)
        cases.append(Case(f"{n} sinc points, RBF kernel L = {L:g}, gamma = {gamma:g}", (rbf_kernel(X, L=L), y, gamma)))
    rng = np.random.default_rng(6)
    X = rng.standard_normal((10, 3))
    cases.append(Case("10 points in R^3, linear kernel, gamma = 0.5",
                      (linear_kernel(X), X @ np.ones(3) + 0.1 * rng.standard_normal(10), 0.5)))
    return cases


nb02_exercise_3a = Exercise(
    "nb02_exercise_3a", "Exercise 3a (kernel ridge regression, eq. 5)",
    regression.kernel_ridge, _nb02_exercise_3a_cases, points=2,
    hint="alpha has one entry per training point: solve (K + gamma * l * I) alpha = y, "
         "l = len(y); no explicit inverse.")


def _nb02_exercise_3a_cv_cases():
    """5-fold cross-validation error of kernel ridge regression."""
    cases = []
    for n, L, gamma, seed in [(30, 0.5, 1e-2, 7), (40, 1.0, 1e-4, 8)]:
        X, y = sinc_data(n, random_state=seed)
        cases.append(Case(f"{n} sinc points, L = {L:g}, gamma = {gamma:g}, 5 folds", (X, y, L, gamma),
                          {"n_folds": 5, "random_state": 0}))
    cases.append(Case("30 sinc points, L = 0.5, gamma = 1e-3, 3 folds, random_state = 2",
                      sinc_data(30, random_state=9) + (0.5, 1e-3), {"n_folds": 3, "random_state": 2}))
    return cases


nb02_exercise_3a_cv = Exercise(
    "nb02_exercise_3a_cv", "Exercise 3a (cross-validation)",
    regression.cv_error, _nb02_exercise_3a_cv_cases, points=3,
    compare=allclose(rtol=1e-6),
    hint="use KFold(n_folds, shuffle=True, random_state=random_state).split(X); in each fold "
         "fit kernel_ridge on the training part (its own l) and average the held-out MSEs.")

"""Checks for notebook 02 (kernel ridge regression, coursework Exercises 2 and 3a).

The references: `linear_fit_errors` (Exercise 2) and `cv_error` (Exercise 3a)
are defined here; kernel ridge itself is `kgslab.regression.kernel_ridge`.
"""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import KFold

from .. import regression
from ..data import sinc_data
from ..kernels import linear_kernel, rbf_kernel
from .core import Case, allclose, run_exercise

__all__ = ["exercise_2", "exercise_3a", "exercise_3a_cv", "linear_fit_errors", "cv_error"]


def with_bias(X):
    """Append a column of ones to X, so that a linear fit w'x + b has an intercept b."""
    X = np.asarray(X, dtype=float)
    return np.hstack([X, np.ones((X.shape[0], 1))])


def linear_fit_errors(X_train, y_train, X_test, y_test, gamma):
    """Exercise 2's reference: (training MSE, test MSE) of ridge regression on [x, 1].

    gamma = 0 is least squares (LSR).  The intercept is penalised like the slope,
    which keeps the formula of notebook 01 unchanged.
    """
    w = regression.ridge(with_bias(X_train), y_train, gamma)
    train_mse = regression.mse(y_train, with_bias(X_train) @ w)
    test_mse = regression.mse(y_test, with_bias(X_test) @ w)
    return train_mse, test_mse


def cv_error(X, y, L, gamma, n_folds=5, random_state=0):
    """Exercise 3a's reference: the n_folds-fold cross-validation MSE of kernel ridge regression.

    Folds come from ``KFold(n_folds, shuffle=True, random_state=random_state)``;
    each fold is fitted on the other folds (eq. 5, with l = the size of that
    training part) and scored by the MSE on the held-out fold; the result is the
    mean of the fold MSEs.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    fold_errors = []
    for train, held_out in KFold(n_folds, shuffle=True, random_state=random_state).split(X):
        alpha = regression.kernel_ridge(rbf_kernel(X[train], L=L), y[train], gamma)
        prediction = rbf_kernel(X[held_out], X[train], L=L) @ alpha   # eq. (6)
        fold_errors.append(regression.mse(y[held_out], prediction))
    return float(np.mean(fold_errors))


def _sinc_split(n_train, n_test, seed):
    X, y = sinc_data(n_train + n_test, random_state=seed)
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def exercise_2(student):
    """Linear least squares and ridge regression on the sinc data: training and test MSE."""
    cases = []
    for gamma, seed in [(0.0, 1), (0.1, 2), (10.0, 3)]:
        cases.append(Case(f"30 training / 30 test sinc points, gamma = {gamma:g}",
                          _sinc_split(30, 30, seed) + (gamma,)))
    return run_exercise("Exercise 2 (linear regression on sinc)", student, linear_fit_errors, cases,
                        compare=allclose(rtol=1e-6),
                        hint="append a column of ones to X (with_bias), solve (A'A + gamma l I) w = A'y with "
                             "A = [X, 1] and l the number of training points, and return the two MSEs as a tuple "
                             "(train_mse, test_mse).")


def exercise_3a(student):
    """Kernel ridge regression, eq. (5): alpha = (K + gamma l I)^{-1} y."""
    cases = []
    for n, L, gamma, seed in [(12, 0.5, 1e-3, 4), (25, 1.0, 0.1, 5)]:
        X, y = sinc_data(n, random_state=seed)
        cases.append(Case(f"{n} sinc points, RBF kernel L = {L:g}, gamma = {gamma:g}", (rbf_kernel(X, L=L), y, gamma)))
    rng = np.random.default_rng(6)
    X = rng.standard_normal((10, 3))
    cases.append(Case("10 points in R^3, linear kernel, gamma = 0.5",
                      (linear_kernel(X), X @ np.ones(3) + 0.1 * rng.standard_normal(10), 0.5)))
    return run_exercise("Exercise 3a (kernel ridge regression, eq. 5)", student, regression.kernel_ridge, cases,
                        hint="alpha has one entry per training point: solve (K + gamma * l * I) alpha = y, "
                             "l = len(y); no explicit inverse.")


def exercise_3a_cv(student):
    """5-fold cross-validation error of kernel ridge regression."""
    cases = []
    for n, L, gamma, seed in [(30, 0.5, 1e-2, 7), (40, 1.0, 1e-4, 8)]:
        X, y = sinc_data(n, random_state=seed)
        cases.append(Case(f"{n} sinc points, L = {L:g}, gamma = {gamma:g}, 5 folds", (X, y, L, gamma),
                          {"n_folds": 5, "random_state": 0}))
    cases.append(Case("30 sinc points, L = 0.5, gamma = 1e-3, 3 folds, random_state = 2",
                      sinc_data(30, random_state=9) + (0.5, 1e-3), {"n_folds": 3, "random_state": 2}))
    return run_exercise("Exercise 3a (cross-validation)", student, cv_error, cases, compare=allclose(rtol=1e-6),
                        hint="use KFold(n_folds, shuffle=True, random_state=random_state).split(X); in each fold "
                             "fit kernel_ridge on the training part (its own l) and average the held-out MSEs.")

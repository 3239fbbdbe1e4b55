"""The coursework's experiments (seed 004, Exercises 1-3): references for the student's experiment functions.

Notebooks 01 and 02 ask the student to run the handout's experiments with functions of their own; the checks
compare them with these.  Each builds on the basic solvers of `kgslab.regression` and does what the handout asks:

* Exercise 1: ridge regression's training and test MSE against gamma, averaged over fresh data sets, for several
  noise levels ("try different values for the noise n_i"): `noise_study`.
* Exercise 2: least squares (gamma = 0) and ridge regression of a straight line through the sinc data, as a
  table of (gamma, training MSE, test MSE): `linear_regression_table`.
* Exercise 3a: 5-fold cross-validation of kernel ridge regression over gamma at a fixed width L (`tune_gamma`),
  and over a grid of (L, gamma) ("note that in fact we can also tune L in this way"): `tune_width_and_gamma`.

The student chooses the noise levels and the ridge parameters of the first two; the defaults here are the
kit's choice (the fall-back when the student's function is still open).
"""

from __future__ import annotations

import numpy as np

from .._validation import as_float_array, as_matrix, as_positive_int, as_scalar, as_vector, check_random_state_kind
from ..data import linear_data
from ..kernels import rbf_kernel
from ..regression import linear_fit_errors, ridge_errors

__all__ = ["NOISE_TEST_POINTS", "noise_study", "linear_regression_table", "tune_gamma", "tune_width_and_gamma"]

NOISE_TEST_POINTS = 100
"""Exercise 1: every data set of the noise study has this many test points after its training points."""


def _grid(values, name: str, *, positive: bool = False) -> np.ndarray:
    grid = as_float_array(values, name, ndim=1)
    if positive and np.any(grid <= 0):
        raise ValueError(f"{name} must all be > 0, got {float(np.min(grid)):.6g}")
    if not positive and np.any(grid < 0):
        raise ValueError(f"{name} must all be >= 0, got {float(np.min(grid)):.6g}")
    return grid


def noise_study(gammas, n_train, n_draws=30, seed=0, *, noise_levels=(0.1, 1.0, 3.0, 10.0)):
    """Exercise 1: mean training and test MSE of ridge regression against gamma, for several noise levels.

    One generator ``rng = np.random.default_rng(seed)`` for the whole study.  For each noise level in turn, and
    n_draws times for each: draw ``X, y, _ = data.linear_data(n=n_train + 100, d=10, noise=noise,
    random_state=rng)`` (a fresh w as well), fit on the first n_train points and measure both errors
    (`regression.ridge_errors`) on them and on the other 100.  Returns ``(noise_levels, train_mse, test_mse)``:
    the levels as a float array and two arrays of shape (len(noise_levels), len(gammas)), means over the draws.
    """
    gammas = _grid(gammas, "gammas")
    noise_levels = _grid(noise_levels, "noise_levels")
    n_train = as_positive_int(n_train, "n_train")
    n_draws = as_positive_int(n_draws, "n_draws")
    check_random_state_kind(seed, "seed")
    rng = np.random.default_rng(seed)
    train_mse = np.zeros((len(noise_levels), len(gammas)))
    test_mse = np.zeros_like(train_mse)
    for row, noise in enumerate(noise_levels):
        for _ in range(n_draws):
            X, y, _ = linear_data(n=n_train + NOISE_TEST_POINTS, d=10, noise=float(noise), random_state=rng)
            train, test = ridge_errors(X[:n_train], y[:n_train], X[n_train:], y[n_train:], gammas)
            train_mse[row] += train / n_draws
            test_mse[row] += test / n_draws
    return noise_levels, train_mse, test_mse


def linear_regression_table(X_train, y_train, X_test, y_test, *, gammas=(0.0, 1e-6, 1e-3, 1e-1, 1.0, 10.0)):
    """Exercise 2: least squares (gamma = 0, first row) and ridge regression of a line y = w x + b.

    Returns ``(gammas, errors)``: the gammas as a float array and errors of shape (len(gammas), 2), each row
    (training MSE, test MSE) of `regression.linear_fit_errors` at that gamma.
    """
    gammas = _grid(gammas, "gammas")
    errors = np.array([linear_fit_errors(X_train, y_train, X_test, y_test, gamma) for gamma in gammas])
    return gammas, errors


def _cv_errors(X, y, L, gammas, n_folds, random_state) -> np.ndarray:
    """`regression.cv_error` for every gamma at once: one eigendecomposition of each fold's Gram matrix.

    alpha = U (Lambda + gamma l I)^{-1} U' y for all gammas from K = U Lambda U' (eq. 5), so a grid of gammas
    costs one O(l^3) step per fold instead of one per gamma.  Directions whose eigenvalue (plus gamma l) is at
    the rounding level are dropped, as `regression.kernel_ridge` does for a numerically singular system.
    """
    from sklearn.model_selection import KFold

    fold_errors = np.zeros((n_folds, len(gammas)))
    for fold, (train, held_out) in enumerate(KFold(n_folds, shuffle=True, random_state=random_state).split(X)):
        eigenvalues, eigenvectors = np.linalg.eigh(rbf_kernel(X[train], L=L))
        n_points = len(train)
        rounding = n_points * np.finfo(float).eps * np.max(np.abs(eigenvalues))
        shifted = eigenvalues[None, :] + n_points * gammas[:, None]            # (n_gammas, l)
        inverse = np.where(shifted > rounding, 1.0 / np.where(shifted > rounding, shifted, 1.0), 0.0)
        alphas = (inverse * (eigenvectors.T @ y[train])[None, :]) @ eigenvectors.T   # one alpha per row
        predictions = alphas @ rbf_kernel(X[held_out], X[train], L=L).T        # eq. (6), (n_gammas, n_held_out)
        fold_errors[fold] = np.mean((predictions - y[held_out][None, :]) ** 2, axis=1)
    return fold_errors.mean(axis=0)


def tune_gamma(X, y, L, gammas, n_folds=5, random_state=0):
    """Exercise 3a: the n_folds-fold CV error of kRR (RBF width L) for each gamma, and the gamma that minimises it.

    Returns ``(best_gamma, cv_errors)``: cv_errors[j] = `regression.cv_error`(X, y, L, gammas[j], n_folds,
    random_state) (the same folds for every gamma), best_gamma the first gamma with the smallest error.
    """
    X = as_matrix(X, "X")
    y = as_vector(y, "y", length=X.shape[0], length_of="X")
    L = as_scalar(L, "L", low=0.0, low_open=True)
    gammas = _grid(gammas, "gammas")
    n_folds = as_positive_int(n_folds, "n_folds", minimum=2)
    if n_folds > len(y):
        raise ValueError(f"n_folds must be at most the number of points ({len(y)}), got {n_folds}")
    check_random_state_kind(random_state)
    cv_errors = _cv_errors(X, y, L, gammas, n_folds, random_state)
    return float(gammas[np.argmin(cv_errors)]), cv_errors


def tune_width_and_gamma(X, y, widths, gammas, n_folds=5, random_state=0):
    """Exercise 3a, "we can also tune L in this way": the CV error over a grid of (L, gamma).

    Returns ``(best_L, best_gamma, cv_map)`` with cv_map[i, j] the CV error at widths[i], gammas[j] (one row per
    width), and (best_L, best_gamma) the pair with the smallest error (the first in row-major order on ties).
    """
    widths = _grid(widths, "widths", positive=True)
    gammas = _grid(gammas, "gammas")
    cv_map = np.array([tune_gamma(X, y, width, gammas, n_folds, random_state)[1] for width in widths])
    row, column = np.unravel_index(np.argmin(cv_map), cv_map.shape)
    return float(widths[row]), float(gammas[column]), cv_map

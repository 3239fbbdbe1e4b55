"""Ridge regression, primal and dual (coursework, seed 004, section 1.1).

With l training points (rows of X, shape (l, d)) and regulariser gamma:

* primal:  (X'X + gamma l I_d) w = X'y                       (the normal equations)
* dual:    alpha = (XX' + gamma l I_l)^{-1} y,   w = X' alpha  (eqs. 1-2)
* predict: x_test' w = x_test' X' alpha                       (eq. 3)

The primal solves a d x d system, the dual an l x l one: the dual wins when
there are fewer points than features, and it only needs inner products, which
is what makes kernel ridge regression (eq. 5) possible.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from ._validation import as_matrix, as_scalar, as_vector

__all__ = ["ridge", "ridge_dual", "mse"]


def _check_problem(X, y, gamma):
    X = as_matrix(X, "X")
    y = as_vector(y, "y", length=X.shape[0])
    gamma = as_scalar(gamma, "gamma", low=0.0)
    return X, y, gamma


def _solve_spd(A, b):
    """Solve A x = b for symmetric A, by Cholesky when A is positive definite.

    With gamma = 0 the system may be singular; then fall back to the
    least-squares (minimum-norm) solution rather than fail or return noise.
    """
    try:
        return scipy.linalg.solve(A, b, assume_a="pos")
    except (np.linalg.LinAlgError, scipy.linalg.LinAlgError):
        solution, *_ = scipy.linalg.lstsq(A, b)
        return solution


def ridge(X, y, gamma: float) -> np.ndarray:
    """Primal ridge regression: solve (X'X + gamma l I) w = X'y for w (shape (d,))."""
    X, y, gamma = _check_problem(X, y, gamma)
    n_points, n_features = X.shape
    system = X.T @ X + gamma * n_points * np.eye(n_features)
    return _solve_spd(system, X.T @ y)


def ridge_dual(X, y, gamma: float) -> np.ndarray:
    """Dual ridge regression, eq. (2): alpha = (XX' + gamma l I)^{-1} y (shape (l,)).

    The primal weights are w = X' alpha (eq. 1).
    """
    X, y, gamma = _check_problem(X, y, gamma)
    n_points = X.shape[0]
    system = X @ X.T + gamma * n_points * np.eye(n_points)
    return _solve_spd(system, y)


def mse(y_true, y_pred) -> float:
    """Mean squared error (1/l) sum (y_i - yhat_i)^2."""
    y_true = as_vector(y_true, "y_true")
    y_pred = as_vector(y_pred, "y_pred", length=y_true.shape[0], length_of="y_true")
    return float(np.mean((y_true - y_pred) ** 2))

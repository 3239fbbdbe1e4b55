"""Ridge regression, primal and dual; kernel ridge; GP regression (coursework, seed 004, section 1).

With l training points (rows of X, shape (l, d)) and regulariser gamma:

* primal:  (X'X + gamma l I_d) w = X'y                       (the normal equations)
* dual:    alpha = (XX' + gamma l I_l)^{-1} y,   w = X' alpha  (eqs. 1-2)
* predict: x_test' w = x_test' X' alpha                       (eq. 3)

The primal solves a d x d system, the dual an l x l one: the dual wins when
there are fewer points than features, and it only needs inner products, which
is what makes kernel ridge regression (eq. 5) possible.

Sections 1.2-1.3, with K the (l, l) Gram matrix and k the kernel column of a test point:

* kernel ridge, eq. (5):     alpha = (K + gamma l I)^{-1} y,   f(x) = k' alpha   (eq. 6)
* GP posterior mean, (13):   f_MAP(x) = k' (K + sigma^2 I)^{-1} y   (kRR with gamma l = sigma^2)
* GP error bar, eq. (14):    sigma_error^2(x) = K(x, x) - k' (K + sigma^2 I)^{-1} k
* log evidence, eq. (16):    ln p(y) = -1/2 y'(K + sigma^2 I)^{-1} y - 1/2 ln det(K + sigma^2 I) - l/2 ln(2 pi)
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg

from ._validation import (as_cross_kernel, as_float_array, as_gram, as_matrix, as_positive_int, as_scalar, as_vector,
                          check_random_state_kind, require_psd)

__all__ = ["ridge", "ridge_dual", "mse", "ridge_errors", "with_bias", "linear_fit_errors", "kernel_ridge", "cv_error",
           "gp_posterior", "log_evidence"]


def _check_problem(X, y, gamma):
    X = as_matrix(X, "X")
    y = as_vector(y, "y", length=X.shape[0], length_of="X")
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


def ridge_errors(X_train, y_train, X_test, y_test, gammas):
    """Training and test MSE of primal ridge regression for each gamma (Exercise 1).

    Returns two arrays (train_mse, test_mse), one entry per gamma.
    """
    X_train = as_matrix(X_train, "X_train")
    X_test = as_matrix(X_test, "X_test")
    if X_test.shape[1] != X_train.shape[1]:
        raise ValueError(f"X_test must have {X_train.shape[1]} columns like X_train, got shape {X_test.shape}")
    y_train = as_vector(y_train, "y_train", length=X_train.shape[0], length_of="X_train")
    y_test = as_vector(y_test, "y_test", length=X_test.shape[0], length_of="X_test")
    if isinstance(gammas, bool):
        raise TypeError(f"gammas must be a number >= 0 or a 1-d array of them, got {gammas!r}")
    gammas = np.atleast_1d(as_float_array(gammas, "gammas", ndim=(0, 1)))
    if np.any(gammas < 0):
        raise ValueError(f"gammas must all be >= 0, got {float(np.min(gammas)):.6g}")
    train_mse, test_mse = [], []
    for gamma in gammas:
        w = ridge(X_train, y_train, gamma)
        train_mse.append(mse(y_train, X_train @ w))
        test_mse.append(mse(y_test, X_test @ w))
    return np.array(train_mse), np.array(test_mse)


# --- Kernel ridge and Gaussian-process regression (sections 1.2 and 1.3) ---------------------------


def with_bias(X) -> np.ndarray:
    """Append a column of ones to X, so that a linear fit w'x + b has an intercept b."""
    X = as_matrix(X, "X")
    return np.hstack([X, np.ones((X.shape[0], 1))])


def linear_fit_errors(X_train, y_train, X_test, y_test, gamma):
    """Exercise 2: (training MSE, test MSE) of ridge regression on [x, 1].

    gamma = 0 is least squares (LSR).  The intercept is penalised like the slope,
    which keeps the formula of notebook 01 unchanged.
    """
    X_train, X_test = as_matrix(X_train, "X_train"), as_matrix(X_test, "X_test")
    y_train = as_vector(y_train, "y_train", length=X_train.shape[0], length_of="X_train")
    y_test = as_vector(y_test, "y_test", length=X_test.shape[0], length_of="X_test")
    if X_test.shape[1] != X_train.shape[1]:
        raise ValueError(f"X_test must have the columns of X_train ({X_train.shape[1]}), got {X_test.shape[1]}")
    gamma = as_scalar(gamma, "gamma", low=0.0)
    w = ridge(with_bias(X_train), y_train, gamma)
    return mse(y_train, with_bias(X_train) @ w), mse(y_test, with_bias(X_test) @ w)


def kernel_ridge(K, y, gamma: float) -> np.ndarray:
    """Kernel ridge regression, eq. (5): alpha = (K + gamma l I)^{-1} y (shape (l,)).

    K is the (l, l) Gram matrix of the training points (symmetric positive
    semi-definite), y the l targets, gamma >= 0 the regulariser.  Predict with
    eq. (6): f(x_test) = sum_i K(x_i, x_test) alpha_i, i.e. ``K_test @ alpha``.

    gamma = 0 is allowed, to see what happens without regularisation: an RBF
    Gram matrix is then numerically singular, and the least-squares
    (minimum-norm) solution is returned, with a NumericallySingularWarning,
    rather than an inverse decided by rounding errors.
    """
    K = as_gram(K, "K", psd=False)   # definiteness from the one eigendecomposition below
    y = as_vector(y, "y", length=K.shape[0], length_of="K")
    gamma = as_scalar(gamma, "gamma", low=0.0)
    n_points = K.shape[0]
    # One factorisation serves the PSD check, the rounding cut-off and the solve: with K = U diag(s) U',
    # alpha = U diag(1 / (s + gamma l)) U' y.
    eigenvalues, eigenvectors = scipy.linalg.eigh(K)
    require_psd(float(eigenvalues[0]), K, "K")
    rounding = _rounding_level(eigenvalues, n_points)
    shifted = eigenvalues + gamma * n_points
    keep = shifted > rounding
    if not keep.all():
        # K + gamma l I has eigenvalues at the level of rounding errors: its inverse would be decided by
        # them (|alpha| ~ 1e15 for an RBF kernel and gamma = 0).  Those directions are dropped instead, which
        # gives the minimum-norm least-squares alpha.
        warnings.warn(
            f"gamma = {gamma:.3g} leaves K + gamma l I numerically singular (smallest eigenvalue "
            f"{shifted[0]:.3g}, rounding level {rounding:.3g}); returning the "
            "minimum-norm least-squares alpha, ignoring the eigenvalues below the rounding level. "
            "Use gamma > 0 for a well-defined fit.", NumericallySingularWarning, stacklevel=2)
    return eigenvectors[:, keep] @ ((eigenvectors[:, keep].T @ y) / shifted[keep])


class NumericallySingularWarning(UserWarning):
    """A system's smallest eigenvalues are at the level of rounding errors: the answer ignores them."""


def _rounding_level(eigenvalues, n_points: int) -> float:
    """Eigenvalues of a computed l x l symmetric matrix are known to about l * eps * largest."""
    return n_points * np.finfo(float).eps * max(float(np.max(np.abs(eigenvalues))), 1e-300)


def _as_noise_variances(sigma2) -> np.ndarray:
    """sigma2 as a finite, strictly positive float array of 0 or 1 dimensions."""
    if isinstance(sigma2, (bool, str)) or sigma2 is None:
        raise TypeError(f"sigma2 must be a positive number or a 1-d array of them, got {sigma2!r}")
    values = as_float_array(sigma2, "sigma2", ndim=(0, 1))
    if np.any(values <= 0):
        worst = float(np.min(values))
        raise ValueError(f"sigma2 (the noise variance) must be > 0, got {worst:.6g}")
    return values


def gp_posterior(K, K_test, k_test_diag, y, sigma2: float):
    """GP regression: posterior mean (eq. 13) and variance (eq. 14) at the test points.

    K (l, l) is the training Gram matrix, K_test (m, l) the kernel between the
    m test points and the training points (row j is k' of test point j),
    k_test_diag (m,) the values K(x_test, x_test) (all ones for the RBF kernel),
    y the l targets, sigma2 > 0 the noise variance.

    Returns (mean, var), both of shape (m,):

    * mean = K_test (K + sigma^2 I)^{-1} y                               (eq. 13)
    * var  = k_test_diag - diag(K_test (K + sigma^2 I)^{-1} K_test')     (eq. 14)

    ``var`` is sigma_error^2, the uncertainty about f(x_test) only; a new
    observation y_test is noisier still, with variance var + sigma2.

    Computed with one Cholesky factorisation C C' = K + sigma^2 I (no inverse):
    mean = K_test alpha with alpha from two triangular solves, and
    var = k_test_diag - ||C^{-1} k||^2 column by column.  Rounding can make a
    variance of a point on top of the data a tiny negative number; it is
    clipped to 0, as scikit-learn does.
    """
    K = as_gram(K, "K")
    n_points = K.shape[0]
    K_test = as_cross_kernel(K_test, n_points, "K_test")
    k_test_diag = as_vector(k_test_diag, "k_test_diag", length=K_test.shape[0], length_of="K_test")
    y = as_vector(y, "y", length=n_points, length_of="K")
    sigma2 = _as_noise_variances(sigma2)
    if sigma2.ndim != 0:
        raise ValueError(f"sigma2 must be a single number for gp_posterior, got shape {sigma2.shape}")
    cholesky = _cholesky_with_noise(K, float(sigma2))
    alpha = scipy.linalg.cho_solve((cholesky, True), y)
    mean = K_test @ alpha
    whitened = scipy.linalg.solve_triangular(cholesky, K_test.T, lower=True)  # C^{-1} k for every test point
    var = k_test_diag - np.sum(whitened**2, axis=0)
    return mean, np.maximum(var, 0.0)


def _cholesky_with_noise(K, sigma2: float) -> np.ndarray:
    """Lower Cholesky factor of K + sigma2 I, with a clear error when it does not exist."""
    try:
        return scipy.linalg.cholesky(K + sigma2 * np.eye(K.shape[0]), lower=True)
    except (np.linalg.LinAlgError, scipy.linalg.LinAlgError) as err:
        raise ValueError(
            f"K + sigma2 I is not positive definite for sigma2 = {sigma2:.3g}; "
            f"smallest eigenvalue of K is {float(np.linalg.eigvalsh(K)[0]):.3g}"
        ) from err


def _gram_eigen(K, name: str = "K"):
    """Eigenvalues (clipped at 0) and eigenvectors of a PSD Gram matrix, checked for definiteness."""
    K = as_gram(K, name, psd=False)  # finite, square, symmetric; definiteness judged below
    eigenvalues, eigenvectors = scipy.linalg.eigh(K)
    require_psd(float(eigenvalues[0]), K, name)
    # Rounding leaves eigenvalues of order -1e-16 * ||K|| where the true ones are 0.
    return np.maximum(eigenvalues, 0.0), eigenvectors


def log_evidence(K, y, sigma2):
    """Log evidence ln p(y) of eq. (16), for one noise variance or many.

    ln p(y) = -1/2 y'(K + sigma^2 I)^{-1} y - 1/2 ln det(K + sigma^2 I) - (l/2) ln(2 pi)

    With the eigendecomposition K = U diag(lambda) U' and z = U'y, the matrix
    K + sigma^2 I has eigenvalues lambda_i + sigma^2 and the same eigenvectors, so

    ln p(y) = -1/2 sum_i z_i^2 / (lambda_i + sigma^2) - 1/2 sum_i ln(lambda_i + sigma^2) - (l/2) ln(2 pi).

    One O(l^3) decomposition serves every sigma^2; each value then costs O(l).
    No inverse is formed and the log-determinant is a sum of logs of positive
    numbers, so it stays accurate for sigma^2 down to 1e-6 and below, where
    det(K + sigma^2 I) itself underflows to 0.

    sigma2 is a positive number (returns a float) or a 1-d array of them
    (returns an array of the same length).
    """
    eigenvalues, eigenvectors = _gram_eigen(K)
    n_points = eigenvalues.shape[0]
    y = as_vector(y, "y", length=n_points, length_of="K")
    sigma2 = _as_noise_variances(sigma2)
    rounding = _rounding_level(eigenvalues, n_points)
    if eigenvalues[0] + float(np.min(sigma2)) <= rounding:
        # K's smallest eigenvalues are rounding noise (clipped to 0): a sigma^2 below that level
        # makes y'(K + sigma^2 I)^{-1} y a quotient of rounding errors (-1.6e299 at sigma^2 = 1e-300).
        raise ValueError(
            f"sigma2 = {float(np.min(sigma2)):.3g} is below the rounding level of K's eigenvalues "
            f"({rounding:.3g} = l * eps * largest eigenvalue) and K is numerically singular: the evidence "
            f"there is decided by rounding errors, not by the data. Use sigma2 > {rounding:.3g}.")
    projections = eigenvectors.T @ y  # z = U'y: y in the eigenbasis of K
    shifted = eigenvalues[None, :] + np.atleast_1d(sigma2)[:, None]  # (n_sigma2, l): lambda_i + sigma^2
    data_fit = np.sum(projections[None, :] ** 2 / shifted, axis=1)
    log_determinant = np.sum(np.log(shifted), axis=1)
    values = -0.5 * data_fit - 0.5 * log_determinant - 0.5 * n_points * np.log(2 * np.pi)
    return float(values[0]) if sigma2.ndim == 0 else values


def cv_error(X, y, L, gamma, n_folds=5, random_state=0) -> float:
    """Exercise 3a: the n_folds-fold cross-validation MSE of kernel ridge regression with an RBF kernel.

    Folds come from ``KFold(n_folds, shuffle=True, random_state=random_state)``;
    each fold is fitted on the other folds (eq. 5, with l = the size of that
    training part) and scored by the MSE on the held-out fold; the result is the
    mean of the fold MSEs.
    """
    from sklearn.model_selection import KFold

    from .kernels import rbf_kernel

    X = as_matrix(X, "X")
    y = as_vector(y, "y", length=X.shape[0], length_of="X")
    L = as_scalar(L, "L", low=0.0, low_open=True)
    gamma = as_scalar(gamma, "gamma", low=0.0)
    n_folds = as_positive_int(n_folds, "n_folds", minimum=2)
    if n_folds > X.shape[0]:
        raise ValueError(f"n_folds = {n_folds} is more than the {X.shape[0]} points of X: a fold needs a point")
    check_random_state_kind(random_state)
    fold_errors = []
    for train, held_out in KFold(n_folds, shuffle=True, random_state=random_state).split(X):
        alpha = kernel_ridge(rbf_kernel(X[train], L=L), y[train], gamma)
        prediction = rbf_kernel(X[held_out], X[train], L=L) @ alpha   # eq. (6)
        fold_errors.append(mse(y[held_out], prediction))
    return float(np.mean(fold_errors))

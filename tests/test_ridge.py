"""Primal and dual ridge regression against numpy's solvers and scikit-learn's Ridge."""

import numpy as np
import pytest
from sklearn.linear_model import Ridge

from kgslab.data import linear_data
from kgslab.regression import mse, ridge, ridge_dual, ridge_errors


@pytest.mark.parametrize("n, d", [(100, 10), (15, 40)])
@pytest.mark.parametrize("gamma", [1e-6, 1e-2, 10.0])
def test_primal_and_dual_match_sklearn_ridge(n, d, gamma):
    X, y, _ = linear_data(n, d, noise=0.5, random_state=n * d)
    peer = Ridge(alpha=gamma * n, fit_intercept=False, solver="svd").fit(X, y)
    assert np.allclose(ridge(X, y, gamma), peer.coef_, rtol=1e-6, atol=1e-9)
    assert np.allclose(X.T @ ridge_dual(X, y, gamma), peer.coef_, rtol=1e-6, atol=1e-9)


def test_primal_solves_the_normal_equations():
    X, y, _ = linear_data(30, 5, random_state=1)
    gamma = 0.3
    w = ridge(X, y, gamma)
    assert np.allclose((X.T @ X + gamma * 30 * np.eye(5)) @ w, X.T @ y)


def test_gamma_zero_is_least_squares():
    X, y, _ = linear_data(50, 4, random_state=2)
    w_lstsq, *_ = np.linalg.lstsq(X, y, rcond=None)
    assert np.allclose(ridge(X, y, 0.0), w_lstsq)


def test_gamma_zero_with_more_features_than_points_gives_minimum_norm_fit():
    X, y, _ = linear_data(5, 12, random_state=3)
    w = ridge(X, y, 0.0)
    assert np.allclose(X @ w, y)                                   # interpolates
    assert np.allclose(w, np.linalg.pinv(X) @ y, atol=1e-8)        # the minimum-norm solution


def test_dual_solves_eq_2():
    X, y, _ = linear_data(20, 7, random_state=4)
    gamma = 0.05
    alpha = ridge_dual(X, y, gamma)
    assert np.allclose((X @ X.T + gamma * 20 * np.eye(20)) @ alpha, y)


def test_ridge_errors_and_mse():
    X, y, _ = linear_data(60, 5, noise=0.3, random_state=5)
    gammas = [1e-3, 1.0]
    train, test = ridge_errors(X[:30], y[:30], X[30:], y[30:], gammas)
    for k, gamma in enumerate(gammas):
        w = ridge(X[:30], y[:30], gamma)
        assert train[k] == pytest.approx(np.mean((y[:30] - X[:30] @ w) ** 2))
        assert test[k] == pytest.approx(mse(y[30:], X[30:] @ w))
    assert train[1] > train[0]    # more regularisation can only raise the training error


def test_linear_data_is_seeded_and_shaped():
    X1, y1, w1 = linear_data(200, 10, noise=0.1, random_state=7)
    X2, y2, w2 = linear_data(200, 10, noise=0.1, random_state=7)
    assert X1.shape == (200, 10) and y1.shape == (200,) and w1.shape == (10,)
    assert np.array_equal(X1, X2) and np.array_equal(y1, y2)
    assert np.std(y1 - X1 @ w1) == pytest.approx(0.1, rel=0.2)


def test_bad_input_messages():
    X, y, _ = linear_data(10, 3, random_state=0)
    with pytest.raises(ValueError, match="gamma must be >= 0"):
        ridge(X, y, -1.0)
    with pytest.raises(ValueError, match="y must have one entry per row of X"):
        ridge_dual(X, y[:-1], 0.1)
    with pytest.raises(ValueError, match="X must be a 2-d array"):
        ridge(X[:, 0], y, 0.1)
    y_bad = y.copy()
    y_bad[2] = np.inf
    with pytest.raises(ValueError, match="y must contain only finite numbers"):
        ridge(X, y_bad, 0.1)
    with pytest.raises(TypeError, match="gamma must be a real number"):
        ridge(X, y, "0.1")

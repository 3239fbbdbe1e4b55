"""kernel_ridge (eq. 5) against scikit-learn's KernelRidge, and the sinc data of Exercises 2-4."""

import numpy as np
import pytest
from sklearn.kernel_ridge import KernelRidge

from kgslab.data import sinc_data
from kgslab.kernels import linear_kernel, rbf_kernel
from kgslab.regression import kernel_ridge, mse, ridge_dual


def _sinc_split(seed=0, L=0.5):
    X, y = sinc_data(200, random_state=seed)
    X_train, y_train, X_test = X[:100], y[:100], X[100:]
    return rbf_kernel(X_train, L=L), y_train, rbf_kernel(X_test, X_train, L=L)


@pytest.mark.parametrize("gamma", [1e-6, 1e-3, 1e-1, 10.0])
def test_kernel_ridge_matches_sklearn_kernel_ridge(gamma):
    K, y, K_test = _sinc_split()
    n_points = len(y)
    # sklearn's KernelRidge solves (K + alpha I) a = y, so alpha = gamma * l gives eq. (5).
    peer = KernelRidge(kernel="precomputed", alpha=gamma * n_points).fit(K, y)
    alpha = kernel_ridge(K, y, gamma)
    np.testing.assert_allclose(alpha, peer.dual_coef_, rtol=1e-8, atol=1e-10 * np.max(np.abs(alpha)))
    np.testing.assert_allclose(K_test @ alpha, peer.predict(K_test), rtol=1e-8, atol=1e-12)


def test_kernel_ridge_with_linear_kernel_is_dual_ridge():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((30, 5))
    y = X @ rng.standard_normal(5) + 0.1 * rng.standard_normal(30)
    np.testing.assert_allclose(kernel_ridge(linear_kernel(X), y, 0.01), ridge_dual(X, y, 0.01), rtol=1e-10)


def test_kernel_ridge_solves_the_regularised_system():
    K, y, _ = _sinc_split(seed=3)
    gamma = 0.01
    alpha = kernel_ridge(K, y, gamma)
    np.testing.assert_allclose(K @ alpha + gamma * len(y) * alpha, y, atol=1e-10)


def test_unregularised_fit_interpolates_and_generalises_worse():
    K, y, K_test = _sinc_split(seed=2)
    X, y_all = sinc_data(200, random_state=2)
    y_test = y_all[100:]
    alpha_free = kernel_ridge(K, y, 0.0)
    alpha_reg = kernel_ridge(K, y, 1e-3)
    # Without regularisation the fit chases the noise: lower training error, much higher test error,
    # and dual weights that explode (K is numerically singular for L = 0.5 on 100 points).
    assert mse(y, K @ alpha_free) < mse(y, K @ alpha_reg)
    assert mse(y_test, K_test @ alpha_free) > 2 * mse(y_test, K_test @ alpha_reg)
    assert np.max(np.abs(alpha_free)) > 1e6 * np.max(np.abs(alpha_reg))


def test_unregularised_fit_interpolates_a_well_conditioned_kernel():
    X, y = sinc_data(30, random_state=7)
    K = rbf_kernel(X, L=0.05)  # narrow kernel: K is well conditioned and K alpha = y has an exact solution
    np.testing.assert_allclose(K @ kernel_ridge(K, y, 0.0), y, atol=1e-8)


def test_kernel_ridge_bad_input():
    K, y, _ = _sinc_split()
    with pytest.raises(ValueError, match="gamma"):
        kernel_ridge(K, y, -1.0)
    with pytest.raises(ValueError, match="y must have one entry per row of K"):
        kernel_ridge(K, y[:-1], 0.1)
    y_bad = y.copy()
    y_bad[4] = np.nan
    with pytest.raises(ValueError, match="y must contain only finite"):
        kernel_ridge(K, y_bad, 0.1)
    with pytest.raises(ValueError, match="square"):
        kernel_ridge(K[:, :-1], y, 0.1)
    with pytest.raises(ValueError, match="positive semi-definite"):
        kernel_ridge(K - 2 * np.eye(len(y)), y, 0.1)


def test_sinc_data_follows_the_handout():
    X, y = sinc_data(5000, random_state=0)
    assert X.shape == (5000, 1) and y.shape == (5000,)
    assert X.min() >= -4 and X.max() <= 4
    assert abs(X.mean()) < 0.15 and abs(X.var() - 64 / 12) < 0.3  # uniform on [-4, 4]
    residual = y - np.sin(np.pi * X[:, 0]) / (np.pi * X[:, 0])  # matlab's sinc
    assert abs(residual.std() - 0.3) < 0.01 and abs(residual.mean()) < 0.01
    X2, y2 = sinc_data(5000, random_state=0)
    np.testing.assert_array_equal(y, y2)
    _, y_clean = sinc_data(10, noise=0.0, random_state=1)
    X_clean, _ = sinc_data(10, noise=0.0, random_state=1)
    np.testing.assert_allclose(y_clean, np.sinc(X_clean[:, 0]))
    with pytest.raises(ValueError, match="noise"):
        sinc_data(10, noise=-0.1)


# --- the notebook-02 checks and their references -------------------------------------------------


def test_cv_error_reference_matches_sklearn_cross_validation_on_a_precomputed_kernel():
    from sklearn.model_selection import KFold, cross_val_score

    from kgslab.regression import cv_error
    X, y = sinc_data(100, random_state=11)
    L, gamma = 0.5, 1e-3
    # Each training part has 80 points, so eq. (5)'s gamma * l is sklearn's alpha = gamma * 80.
    scores = cross_val_score(KernelRidge(kernel="precomputed", alpha=gamma * 80), rbf_kernel(X, L=L), y,
                             cv=KFold(5, shuffle=True, random_state=0), scoring="neg_mean_squared_error")
    assert cv_error(X, y, L, gamma, n_folds=5, random_state=0) == pytest.approx(-scores.mean(), rel=1e-8)


def test_linear_fit_errors_reference_matches_sklearn_linear_regression():
    from sklearn.linear_model import LinearRegression

    from kgslab.regression import linear_fit_errors
    X, y = sinc_data(200, random_state=12)
    peer = LinearRegression().fit(X[:100], y[:100])
    train, test = linear_fit_errors(X[:100], y[:100], X[100:], y[100:], 0.0)
    assert train == pytest.approx(mse(y[:100], peer.predict(X[:100])), rel=1e-8)
    assert test == pytest.approx(mse(y[100:], peer.predict(X[100:])), rel=1e-8)


def test_a_rank_deficient_kernel_gives_the_minimum_norm_least_squares_alpha():
    # K = B B' of rank 3 on 20 points, gamma = 0: the directions of the 17 zero eigenvalues are dropped, which is
    # the pseudo-inverse solution (numpy's pinv, by an SVD, as the independent reference)
    rng = np.random.default_rng(4)
    B = rng.standard_normal((20, 3))
    K, y = B @ B.T, rng.standard_normal(20)
    from kgslab.regression import NumericallySingularWarning
    with pytest.warns(NumericallySingularWarning, match="gamma = 0 leaves K"):
        alpha = kernel_ridge(K, y, 0.0)
    np.testing.assert_allclose(alpha, np.linalg.pinv(K, rcond=1e-10, hermitian=False) @ y, rtol=1e-9, atol=1e-12)


def test_kernel_ridge_factorises_K_once(monkeypatch):
    # one eigendecomposition serves the PSD check, the rounding cut-off and the solve (no eigvalsh, Cholesky or
    # least-squares factorisation besides it), whichever branch
    import scipy.linalg
    calls = []
    real_eigh = scipy.linalg.eigh
    monkeypatch.setattr(scipy.linalg, "eigh", lambda *a, **k: calls.append("eigh") or real_eigh(*a, **k))
    for name in ("eigvalsh", "cholesky", "cho_factor", "solve", "lstsq"):
        monkeypatch.setattr(scipy.linalg, name, lambda *a, _name=name, **k: pytest.fail(f"{_name} called"))
    monkeypatch.setattr(np.linalg, "eigvalsh", lambda *a, **k: pytest.fail("np.linalg.eigvalsh called"))
    K, y, _ = _sinc_split()
    kernel_ridge(K, y, 1e-3)
    with pytest.warns(UserWarning):
        kernel_ridge(K, y, 0.0)
    assert calls == ["eigh", "eigh"]

"""The kernel-ridge and GP panels: move the sliders, check what is drawn and reported."""

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF
from sklearn.kernel_ridge import KernelRidge

from kgslab.data import sinc_data
from kgslab.widgets import gp_panel, kernel_ridge_panel


@pytest.fixture(scope="module")
def split():
    X, y = sinc_data(200, random_state=0)
    return X[:100], y[:100], X[100:], y[100:]


def _sklearn_krr_mse(split, L, gamma):
    X_train, y_train, X_test, y_test = split
    peer = KernelRidge(kernel="rbf", gamma=1 / (2 * L * L), alpha=gamma * len(y_train)).fit(X_train, y_train)
    return (np.mean((peer.predict(X_train) - y_train) ** 2), np.mean((peer.predict(X_test) - y_test) ** 2))


def test_kernel_ridge_panel_reports_the_fit_of_its_sliders(split):
    panel = kernel_ridge_panel(*split, L=0.5, gamma=1e-3)
    assert set(panel.values) == {"train_mse", "test_mse", "max_abs_alpha"}
    expected = _sklearn_krr_mse(split, 0.5, 1e-3)
    assert panel.values["train_mse"] == pytest.approx(expected[0], rel=1e-6)
    assert panel.values["test_mse"] == pytest.approx(expected[1], rel=1e-6)
    assert panel.png.startswith(b"\x89PNG")
    assert "train_mse" in panel.report.value


def test_kernel_ridge_panel_gamma_slider(split):
    panel = kernel_ridge_panel(*split, L=0.5, gamma=1.0)
    huge = dict(panel.values)
    picture = panel.png
    panel.gamma.value = 1e-8
    tiny = dict(panel.values)
    assert panel.png != picture
    # Little regularisation fits the training data better and works the dual weights harder...
    assert tiny["train_mse"] < huge["train_mse"]
    assert tiny["max_abs_alpha"] > 100 * huge["max_abs_alpha"]
    # ...and a huge gamma shrinks the fit towards 0, so its errors approach the targets' mean square.
    assert huge["train_mse"] > 0.8 * np.mean(split[1] ** 2)
    panel.gamma.value = 1e-3
    expected = _sklearn_krr_mse(split, 0.5, panel.gamma.value)
    assert panel.values["test_mse"] == pytest.approx(expected[1], rel=1e-6)
    assert panel.values["test_mse"] < huge["test_mse"] and panel.values["test_mse"] < tiny["test_mse"]


def test_kernel_ridge_panel_L_slider(split):
    panel = kernel_ridge_panel(*split, L=0.5, gamma=1e-4)
    picture, before = panel.png, dict(panel.values)
    panel.L.value = 0.1  # a narrow kernel follows every point
    assert panel.png != picture
    assert panel.values["train_mse"] < before["train_mse"]
    panel.L.value = 3.0  # a wide kernel is too smooth for sinc
    assert panel.values["train_mse"] > before["train_mse"]
    expected = _sklearn_krr_mse(split, 3.0, 1e-4)
    assert panel.values["train_mse"] == pytest.approx(expected[0], rel=1e-6)


def test_kernel_ridge_panel_defaults_to_the_handout_data():
    panel = kernel_ridge_panel()
    assert 0.05 < panel.values["test_mse"] < 0.2  # noise variance 0.09 plus a little
    assert panel.redraw_seconds > 0


def _sklearn_evidence(X, y, L, sigma2):
    peer = GaussianProcessRegressor(kernel=RBF(L), alpha=sigma2, optimizer=None).fit(X, y)
    return peer.log_marginal_likelihood_value_


def test_gp_panel_sigma2_slider_moves_along_the_evidence_curve(split):
    X, y = split[0], split[1]
    panel = gp_panel(X, y, sigma2=0.09, L=0.5)
    assert set(panel.values) == {"log_evidence", "best_sigma2", "mean_sigma_error", "train_mse"}
    assert panel.values["log_evidence"] == pytest.approx(_sklearn_evidence(X, y, 0.5, 0.09), rel=1e-8)
    picture, before = panel.png, dict(panel.values)
    panel.sigma2.value = 1e-3
    after = dict(panel.values)
    assert panel.png != picture
    # Same L, so the same evidence curve and the same maximum; the marker moved down it.
    assert after["best_sigma2"] == before["best_sigma2"]
    assert after["log_evidence"] < before["log_evidence"]
    assert after["log_evidence"] == pytest.approx(_sklearn_evidence(X, y, 0.5, 1e-3), rel=1e-8)
    # Less noise: the mean follows the data more closely and the error bars shrink.
    assert after["train_mse"] < before["train_mse"]
    assert after["mean_sigma_error"] < before["mean_sigma_error"]
    panel.sigma2.value = before["best_sigma2"]
    assert panel.values["log_evidence"] >= before["log_evidence"]
    assert 0.05 < before["best_sigma2"] < 0.2  # the data's noise variance is 0.09


def test_gp_panel_L_slider_changes_the_evidence_curve(split):
    X, y = split[0], split[1]
    panel = gp_panel(X, y, sigma2=0.09, L=0.5)
    picture, before = panel.png, dict(panel.values)
    panel.L.value = 3.0  # too smooth for sinc: the evidence drops and more is blamed on noise
    after = dict(panel.values)
    assert panel.png != picture
    assert after["log_evidence"] < before["log_evidence"]
    assert after["best_sigma2"] > before["best_sigma2"]
    assert after["log_evidence"] == pytest.approx(_sklearn_evidence(X, y, 3.0, 0.09), rel=1e-8)


def test_panels_refuse_bad_data(split):
    X_train, y_train, X_test, y_test = split
    with pytest.raises(ValueError, match="all four"):
        kernel_ridge_panel(X_train, y_train)
    with pytest.raises(ValueError, match=r"X_train must have shape \(n, 1\)"):
        kernel_ridge_panel(np.hstack([X_train, X_train]), y_train, X_test, y_test)
    with pytest.raises(ValueError, match="y must have one entry per row of X"):
        gp_panel(X_train, y_train[:-1])
    with pytest.raises(ValueError, match="both X and y"):
        gp_panel(X_train)

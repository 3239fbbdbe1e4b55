"""gp_posterior (eqs. 13-14) and log_evidence (eq. 16) against scikit-learn's GaussianProcessRegressor."""

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF

from kgslab.check.fallback import reference_of
from kgslab.data import sinc_data
from kgslab.kernels import rbf_kernel
from kgslab.regression import gp_posterior, kernel_ridge, log_evidence
from written_out import written_out


def _peer(X, y, L, sigma2):
    return GaussianProcessRegressor(kernel=RBF(L), alpha=sigma2, optimizer=None).fit(X, y)


@pytest.mark.parametrize("L, sigma2", [(0.5, 0.09), (0.5, 1e-3), (1.5, 0.5), (0.2, 0.01)])
def test_gp_posterior_matches_sklearn(L, sigma2):
    X, y = sinc_data(100, random_state=0)
    X_test = np.linspace(-4.5, 4.5, 97)[:, None]  # no test point on a training point
    peer_mean, peer_std = _peer(X, y, L, sigma2).predict(X_test, return_std=True)
    mean, var = gp_posterior(rbf_kernel(X, L=L), rbf_kernel(X_test, X, L=L), np.ones(len(X_test)), y, sigma2)
    np.testing.assert_allclose(mean, peer_mean, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(np.sqrt(var), peer_std, rtol=1e-8, atol=1e-12)


def test_gp_variance_excludes_the_noise_and_behaves():
    X, y = sinc_data(50, random_state=4)
    X_test = np.array([[-100.0], [0.0]])
    mean, var = gp_posterior(rbf_kernel(X, L=0.5), rbf_kernel(X_test, X, L=0.5), np.ones(2), y, 0.09)
    # Far from the data the posterior is the prior: mean 0, variance K(x, x) = 1 (not 1 + sigma2).
    assert abs(mean[0]) < 1e-12 and abs(var[0] - 1.0) < 1e-12
    # Inside the data the error bar shrinks below the noise level sqrt(0.09).
    assert 0 <= var[1] < 0.09


def test_gp_mean_equals_kernel_ridge_with_gamma_l_equal_sigma2():
    X, y = sinc_data(100, random_state=5)
    X_test = np.linspace(-4, 4, 50)[:, None]
    sigma2 = 0.09
    K, K_test = rbf_kernel(X, L=0.5), rbf_kernel(X_test, X, L=0.5)
    mean, _ = gp_posterior(K, K_test, np.ones(50), y, sigma2)
    np.testing.assert_allclose(mean, K_test @ kernel_ridge(K, y, sigma2 / len(y)), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("L", [0.5, 2.0])
def test_log_evidence_matches_sklearn_for_each_sigma2(L):
    X, y = sinc_data(100, random_state=1)
    sigma2s = np.array([1e-4, 1e-2, 0.09, 1.0, 30.0])
    curve = log_evidence(rbf_kernel(X, L=L), y, sigma2s)
    assert curve.shape == sigma2s.shape
    for sigma2, value in zip(sigma2s, curve):
        expected = _peer(X, y, L, sigma2).log_marginal_likelihood_value_
        assert value == pytest.approx(expected, rel=1e-8)
        assert log_evidence(rbf_kernel(X, L=L), y, sigma2) == pytest.approx(value, rel=1e-12)


def test_log_evidence_is_the_gaussian_density_on_a_tiny_case():
    # Independent of both implementations: scipy's multivariate normal density.
    from scipy.stats import multivariate_normal
    rng = np.random.default_rng(2)
    A = rng.standard_normal((4, 3))
    K = A @ A.T  # rank 3: singular, so sigma2 does all the work in one direction
    y = rng.standard_normal(4)
    for sigma2 in [1e-3, 0.5, 4.0]:
        expected = multivariate_normal(np.zeros(4), K + sigma2 * np.eye(4)).logpdf(y)
        assert log_evidence(K, y, sigma2) == pytest.approx(expected, rel=1e-10)


def test_log_evidence_is_sound_for_tiny_sigma2_on_500_points():
    X, y = sinc_data(500, random_state=3)
    K = rbf_kernel(X, L=0.5)  # numerically singular: most eigenvalues are ~1e-16
    for sigma2 in [1e-6, 1e-5]:
        expected = _peer(X, y, 0.5, sigma2).log_marginal_likelihood_value_
        value = log_evidence(K, y, sigma2)
        assert np.isfinite(value)
        assert value == pytest.approx(expected, rel=1e-8)


def test_log_evidence_peaks_near_the_true_noise():
    X, y = sinc_data(400, noise=0.3, random_state=6)
    sigma2s = np.logspace(-3, 1, 201)
    best = sigma2s[np.argmax(log_evidence(rbf_kernel(X, L=0.5), y, sigma2s))]
    assert 0.06 < best < 0.13  # true value 0.09


def test_gp_bad_input():
    X, y = sinc_data(20, random_state=0)
    K = rbf_kernel(X, L=0.5)
    K_test = rbf_kernel(X[:3], X, L=0.5)
    ones = np.ones(3)
    for bad in [0.0, -0.1]:
        with pytest.raises(ValueError, match=r"sigma2 .* must be > 0"):
            log_evidence(K, y, bad)
        with pytest.raises(ValueError, match=r"sigma2 .* must be > 0"):
            gp_posterior(K, K_test, ones, y, bad)
    with pytest.raises(ValueError, match=r"sigma2 .* must be > 0"):
        log_evidence(K, y, np.array([0.1, 0.0]))
    with pytest.raises(ValueError, match="sigma2 must contain only finite"):
        log_evidence(K, y, np.nan)
    with pytest.raises(TypeError, match="sigma2"):
        log_evidence(K, y, "0.1")
    y_bad = y.copy()
    y_bad[0] = np.inf
    with pytest.raises(ValueError, match="y must contain only finite"):
        log_evidence(K, y_bad, 0.1)
    with pytest.raises(ValueError, match="y must contain only finite"):
        gp_posterior(K, K_test, ones, y_bad, 0.1)
    with pytest.raises(ValueError, match="y must have one entry per row of K"):
        log_evidence(K, y[:-2], 0.1)
    with pytest.raises(ValueError, match="K_test must have one column per training point"):
        gp_posterior(K, K_test[:, :-1], ones, y, 0.1)
    with pytest.raises(ValueError, match="k_test_diag must have one entry per row of K_test"):
        gp_posterior(K, K_test, np.ones(4), y, 0.1)
    with pytest.raises(ValueError, match="single number"):
        gp_posterior(K, K_test, ones, y, np.array([0.1, 0.2]))
    with pytest.raises(ValueError, match="positive semi-definite"):
        log_evidence(K - 0.5 * np.eye(20), y, 0.1)
    with pytest.raises(ValueError, match="symmetric"):
        log_evidence(K + np.triu(np.ones((20, 20)), 1), y, 0.1)


def test_notebook_03_checks_accept_right_and_refuse_wrong_answers(capsys):
    from kgslab import check

    def log_evidence_by_student(K, y, sigma2):
        sign, log_det = np.linalg.slogdet(K + sigma2 * np.eye(len(y)))
        return -0.5 * y @ np.linalg.solve(K + sigma2 * np.eye(len(y)), y) - 0.5 * log_det \
            - 0.5 * len(y) * np.log(2 * np.pi)

    def log_evidence_without_constant(K, y, sigma2):
        return log_evidence_by_student(K, y, sigma2) + 0.5 * len(y) * np.log(2 * np.pi)

    def posterior_with_noise(K, K_test, k_test_diag, y, sigma2):  # confuses the two sigmas
        mean, var = written_out(gp_posterior)(K, K_test, k_test_diag, y, sigma2)
        return mean, var + sigma2

    assert check.nb03_exercise_4a(log_evidence_by_student) is log_evidence_by_student
    assert check.nb03_exercise_4a(log_evidence_without_constant) is not log_evidence_without_constant
    def gp_posterior_by_student(*args):
        return written_out(gp_posterior)(*args)

    assert check.nb03_exercise_4b(gp_posterior_by_student) is gp_posterior_by_student
    from kgslab import regression
    assert reference_of(check.nb03_exercise_4b(posterior_with_noise)) is regression.gp_posterior
    assert capsys.readouterr().out.count("✘") == 2


def test_log_evidence_decomposes_K_once_for_a_whole_curve(monkeypatch):
    import scipy.linalg

    calls = []
    real_eigh = scipy.linalg.eigh

    def counting_eigh(*args, **kwargs):
        calls.append(1)
        return real_eigh(*args, **kwargs)

    monkeypatch.setattr(scipy.linalg, "eigh", counting_eigh)
    monkeypatch.setattr(np.linalg, "cholesky", None)  # no per-sigma2 factorisation behind our back
    X, y = sinc_data(60, random_state=8)
    curve = log_evidence(rbf_kernel(X, L=0.5), y, np.logspace(-6, 1, 200))
    assert len(calls) == 1 and curve.shape == (200,) and np.all(np.isfinite(curve))

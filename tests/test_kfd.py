"""kgslab.kfd: EM for the label-noise model, KFD and LabelNoiseKFD (seed 003)."""

import numpy as np
import pytest
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

from kgslab.data import kfd_toy_data
from kgslab.kfd import KFD, LabelNoiseKFD, fisher_direction
from kgslab.label_noise import flip_rates_from_noise_rates, label_noise_em, noise_rates_from_flip_rates
from kgslab.kernels import linear_kernel

def _correlated_two_class(n=400, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) + rng.normal(size=d)
    y = (X @ rng.normal(size=d) + rng.normal(size=n) > 0).astype(int)
    return X, y


@pytest.mark.parametrize("model", [KFD(mu=1e-9, kernel="linear"),
                                   LabelNoiseKFD(mu=1e-9, n_basis=None, kernel="linear",
                                                 initial_flip_rates=(0.0, 0.0))])
def test_linear_kfd_direction_matches_lda(model):
    """Linear kernel, no noise, tiny mu: w = X' alpha is LDA's direction S_w^{-1}(m_+ - m_-)."""
    X, y = _correlated_two_class()
    model.fit(X, y)
    w = X[model.basis_].T @ model.alpha_
    lda = LinearDiscriminantAnalysis().fit(X, y).coef_[0]
    cosine = w @ lda / np.linalg.norm(w) / np.linalg.norm(lda)
    assert cosine > 0.999
    assert np.mean(model.predict(X) == LinearDiscriminantAnalysis().fit(X, y).predict(X)) > 0.99


def test_linear_kfd_is_lda_decision_function_and_probabilities():
    """The whole model, not just the direction: 1-d Gaussians along alpha plus the log prior ratio.

    With a linear kernel and tiny mu the KFD's log-odds equal LDA's with the maximum-likelihood (biased) pooled
    covariance, which is scikit-learn's solver="lsqr" (its "svd" solver divides by n - 2 instead).
    """
    X, y = _correlated_two_class()
    kfd_model = KFD(mu=1e-9, kernel="linear").fit(X, y)
    lda = LinearDiscriminantAnalysis(solver="lsqr").fit(X, y)
    assert np.allclose(kfd_model.decision_function(X), lda.decision_function(X), atol=1e-6)
    assert np.allclose(kfd_model.predict_proba(X), lda.predict_proba(X), atol=1e-8)


def test_fisher_direction_maximises_the_rayleigh_quotient():
    """Brute force: no random direction has a larger J(alpha) than the returned one."""
    rng = np.random.default_rng(1)
    K_basis = rng.normal(size=(60, 5))
    y_index = (K_basis[:, 0] + rng.normal(size=60) > 0).astype(int)
    posterior = np.eye(2)[y_index]
    mu = 0.3
    alpha = fisher_direction(K_basis, posterior, mu)
    means = posterior.T @ K_basis / posterior.sum(axis=0)[:, None]
    scatter = sum((posterior[:, c, None] * (K_basis - means[c])).T @ (K_basis - means[c]) for c in (0, 1))

    def rayleigh(a):
        return (a @ (means[1] - means[0])) ** 2 / (a @ (scatter + mu * np.eye(5)) @ a)

    best = rayleigh(alpha)
    assert all(rayleigh(alpha + 0.1 * rng.normal(size=5)) <= best + 1e-12 for _ in range(500))
    assert alpha @ (means[1] - means[0]) > 0       # oriented towards class +1


def test_flip_rate_conventions_round_trip_and_toy_values():
    observed, flip = flip_rates_from_noise_rates([0.2, 0.2], [0.8, 0.2])
    assert np.allclose(observed, [0.68, 0.32])
    assert np.allclose(flip, [0.04 / 0.68, 0.16 / 0.32])          # (0.0588, 0.5)
    priors, noise = noise_rates_from_flip_rates(flip, observed)
    assert np.allclose(priors, [0.8, 0.2]) and np.allclose(noise, [0.2, 0.2])


def test_em_recovers_the_toy_flip_rates_on_a_large_sample():
    X, y_observed, y_true = kfd_toy_data(10_000, random_state=3)
    fit = label_noise_em(X, y_observed, initial_flip_rates=(0.3, 0.3))
    _, true_flip = flip_rates_from_noise_rates([0.2, 0.2], [0.8, 0.2])
    assert fit.converged
    assert np.max(np.abs(fit.flip_rates - true_flip)) < 0.03
    assert np.max(np.abs(fit.noise_rates - 0.2)) < 0.03               # converted to the generative convention
    assert np.max(np.abs(fit.true_priors - [0.8, 0.2])) < 0.03
    assert np.allclose(fit.means[0], [1, -1], atol=0.3) and np.allclose(fit.means[1], [-2, 1], atol=0.3)


@pytest.mark.parametrize("shared", [False, True])
def test_em_log_likelihood_never_decreases(shared):
    X, y_observed, _ = kfd_toy_data(300, random_state=4)
    fit = label_noise_em(X, y_observed, initial_flip_rates=(0.3, 0.3), shared_covariance=shared, tol=1e-10)
    steps = np.diff(fit.log_likelihood)
    assert fit.n_iter > 5
    assert np.all(steps >= -1e-9 * np.abs(fit.log_likelihood[1:]))
    if shared:
        assert np.allclose(fit.covariances[0], fit.covariances[1])


def test_em_posterior_points_at_the_flipped_labels():
    X, y_observed, y_true = kfd_toy_data(2000, random_state=5)
    flipped = y_observed != y_true
    fit = label_noise_em(X, y_observed, initial_flip_rates=(0.3, 0.3))
    assert fit.flip_probability[flipped].mean() > fit.flip_probability[~flipped].mean() + 0.2


def test_em_with_frozen_rates_is_the_plain_gaussian_fit():
    X, y_observed, _ = kfd_toy_data(500, random_state=6)
    fit = label_noise_em(X, y_observed, initial_flip_rates=(0.0, 0.0))
    for k, label in enumerate((1, 2)):
        rows = X[y_observed == label]
        assert np.allclose(fit.means[k], rows.mean(axis=0))
        assert np.allclose(fit.covariances[k], np.cov(rows.T, bias=True))
    assert np.all(fit.flip_rates == 0)


def test_em_likelihood_matches_a_direct_computation():
    """The recorded log-likelihood of the last iteration, recomputed with scipy from the returned fit."""
    from scipy.stats import multivariate_normal
    X, y_observed, _ = kfd_toy_data(200, random_state=7)
    fit = label_noise_em(X, y_observed, initial_flip_rates=(0.2, 0.2), max_iter=3, tol=0.0)
    # max_iter=3 stops after the third E-step; refit one more step by hand from the same start
    fit4 = label_noise_em(X, y_observed, initial_flip_rates=(0.2, 0.2), max_iter=4, tol=0.0)
    y_index = (y_observed == 2).astype(int)
    table = np.where(y_index[:, None] == [0, 1], 1 - fit.flip_rates[y_index][:, None],
                     fit.flip_rates[y_index][:, None])
    density = np.column_stack([multivariate_normal.pdf(X, fit.means[c], fit.covariances[c]) for c in (0, 1)])
    assert np.isclose(np.log((density * table).sum(axis=1)).sum(), fit4.log_likelihood[-1])


def test_label_noise_kfd_beats_kfd_on_one_sided_noise_and_finds_the_flips():
    """Two Gaussian blobs; 35% of class 0's labels say class 1 (the sky problem's kind of noise)."""
    rng = np.random.default_rng(8)

    def blobs(n):
        y = (rng.random(n) < 0.5).astype(int)
        return rng.normal(size=(n, 2)) + np.where(y[:, None] == 1, [3.0, 1.0], [0.0, 0.0]), y

    X, y_true = blobs(600)
    flipped = (y_true == 0) & (rng.random(600) < 0.35)
    y_noisy = np.where(flipped, 1, y_true)
    X_test, y_test = blobs(4000)
    noisy = LabelNoiseKFD(mu=1e-6, kernel="linear", n_basis=20, initial_flip_rates=(0.1, 0.1),
                          random_state=0).fit(X, y_noisy)
    plain = KFD(mu=1e-6, kernel="linear").fit(X, y_noisy)
    assert np.mean(noisy.predict(X_test) == y_test) > np.mean(plain.predict(X_test) == y_test) + 0.02
    assert noisy.posterior_[flipped].mean() > noisy.posterior_[~flipped].mean() + 0.3
    # in the kit's convention the class LABELLED 1 is the noisy one: gamma_1 = P(y=0 | yhat=1)
    true_gamma_1 = flipped.sum() / (y_noisy == 1).sum()
    assert abs(noisy.flip_rates_[1] - true_gamma_1) < 0.05 and noisy.flip_rates_[0] < 0.05
    assert noisy.n_iter_ >= 2


def test_linear_label_noise_kfd_is_shared_covariance_em():
    """With a linear kernel, every point in the basis and mu -> 0, the kernel EM (Fisher direction plus 1-d
    Gaussians) and the input-space EM with one shared covariance reach the same fixed point: along the Fisher
    direction the 1-d likelihood ratio IS the shared-covariance ratio."""
    X, y_observed, _ = kfd_toy_data(200, random_state=1)
    gaussian = label_noise_em(X, y_observed, initial_flip_rates=(0.2, 0.2), shared_covariance=True, tol=1e-12,
                              max_iter=5000)
    kernel = LabelNoiseKFD(mu=1e-10, kernel="linear", n_basis=None, initial_flip_rates=(0.2, 0.2), tol=1e-10,
                           max_iter=5000).fit(X, y_observed)
    assert np.allclose(kernel.flip_rates_, gaussian.flip_rates, atol=1e-5)
    assert np.allclose(kernel.posterior_, gaussian.flip_probability, atol=1e-4)


def test_n_basis_subset_and_above_n():
    X, y = _correlated_two_class(100)
    small = LabelNoiseKFD(kernel="rbf", L=3.0, n_basis=30, random_state=0).fit(X, y)
    assert small.basis_.shape == (30,) and small.dual_coef_.shape == (30,)
    assert len(np.unique(small.basis_)) == 30
    large = LabelNoiseKFD(kernel="rbf", L=3.0, n_basis=500, random_state=0).fit(X, y)
    assert np.array_equal(large.basis_, np.arange(100))


def test_precomputed_equals_linear_kernel():
    X, y = _correlated_two_class(120)
    by_features = KFD(mu=1e-3, kernel="linear").fit(X, y)
    by_gram = KFD(mu=1e-3, kernel="precomputed").fit(linear_kernel(X), y)
    assert np.allclose(by_features.decision_function(X[:10]), by_gram.decision_function(linear_kernel(X[:10], X)))


@pytest.mark.parametrize("params, message", [
    # scikit-learn's parameter validation (LabelNoiseKFD._parameter_constraints) words these two
    ({"mu": -1.0}, r"'mu' parameter of LabelNoiseKFD must be a float in the range \[0.0, inf\)"),
    ({"n_basis": 0}, r"'n_basis' parameter of LabelNoiseKFD must be an int in the range \[1, inf\) or None"),
    ({"initial_flip_rates": (0.1, 1.0)}, "initial_flip_rates must be < 1"),
    ({"initial_flip_rates": (0.1,)}, "initial_flip_rates must hold two numbers"),
])
def test_bad_parameters_are_refused(params, message):
    X, y = _correlated_two_class(40)
    with pytest.raises(ValueError, match=message):
        LabelNoiseKFD(kernel="linear", **params).fit(X, y)


def test_bad_labels_are_refused():
    X, _ = _correlated_two_class(30)
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        KFD(kernel="linear").fit(X, np.arange(30) % 3)
    with pytest.raises(ValueError, match="two classes"):
        label_noise_em(X, np.zeros(30))
    with pytest.raises(ValueError, match="one label per row"):
        label_noise_em(X, np.arange(29) % 2)
    with pytest.raises(ValueError, match="initial_flip_rates must lie in"):
        label_noise_em(X, np.arange(30) % 2, initial_flip_rates=(-0.1, 0.1))

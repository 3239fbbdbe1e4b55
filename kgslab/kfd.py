"""The kernel Fisher discriminant, with or without a model of label noise (Mika et al.; Lawrence and Schölkopf,
ICML 2001, section 4; seed 003).

The label-noise model, its flip-rate convention and its EM in input space are `kgslab.label_noise`.

The kernel version (section 4)
------------------------------
In a feature space the likelihoods cannot be computed, but with ONE shared
covariance their ratio can: it is linear in phi(x) and the maximum-likelihood
direction is the Fisher discriminant.  Following Mika et al., write the
direction as an expansion w = sum_j alpha_j phi(x_j) over basis points x_j (a
random subset of n_basis training points, for speed) and let k_n be the vector
of kernels between x_n and the basis points.  With posterior weights q_n(y),

    M_y = sum_n q_n(y) k_n / N_y,
    N   = sum_y sum_n q_n(y) (k_n - M_y)(k_n - M_y)'                         (within-class scatter)

and the Rayleigh quotient in the expansion coefficients

    J(alpha) = (alpha'(M_+ - M_-))^2 / (alpha' (N + mu I) alpha)

is maximised by alpha proportional to (N + mu I)^{-1} (M_+ - M_-).  Without
noise (all q_n one-hot at the observed labels) this is the standard KFD.
Projected onto alpha, each class is a 1-d Gaussian with posterior-weighted
mean and one shared variance; the log-likelihood ratio of those two Gaussians
gives the E-step posteriors and, with the class priors, the decision
function.  (With mu -> 0 this 1-d ratio equals the full shared-covariance
ratio, because the projected variance equals the squared Mahalanobis distance
of the means; with mu > 0 it is the ratio the model fits along its
discriminant.  So with a linear kernel, every point in the basis and a tiny
mu, LabelNoiseKFD reaches the same fixed point as label_noise_em with
shared_covariance=True; the tests check this.)  For b basis points a fit forms
K'K once, O(n b^2), and each EM iteration then costs O(n b + b^3)
(`_ScatterFromMoments`): linear in n.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg
from scipy.special import expit
from sklearn.utils.validation import check_is_fitted

from ._blas import blas_threads
from ._estimator import COUNT, KERNEL_CONSTRAINTS, NON_NEGATIVE, RANDOM_STATE, KernelClassifier
from ._parameters import checks_parameters
from ._validation import as_generator, as_matrix, as_scalar, binary_classes
from .kernels import kernel_matrix
from .label_noise import (as_pair_of_probabilities, as_posterior, noise_rates_from_flip_rates, posterior_and_log_likelihood,
                          updated_flip_rates)

__all__ = ["fisher_direction", "KFD", "LabelNoiseKFD"]


# ---- the kernel Fisher discriminant on a basis --------------------------------------------------

def fisher_direction(K_basis, posterior, mu: float):
    """The Rayleigh-quotient maximiser alpha = (N + mu I)^{-1} (M_+ - M_-) (Mika et al.).

    K_basis (n, b): kernels between the training points and the basis points;
    posterior (n, 2): the weight of each point in class 0 (-) and class 1 (+)
    (one-hot observed labels for the standard KFD).  Returns alpha (b,).
    N + mu I is positive definite for mu > 0 and is solved by Cholesky; when it is
    singular (mu = 0 on a rank-deficient scatter) the least-squares minimum-norm
    solution is returned instead.
    """
    K_basis = as_matrix(K_basis, "K_basis")
    posterior = as_posterior(posterior, "posterior", K_basis.shape[0], "K_basis")
    mu = as_scalar(mu, "mu", low=0.0)
    return _fisher_direction(K_basis, posterior, mu)


def _fisher_direction(K_basis, posterior, mu):
    """`fisher_direction` on validated inputs (the EM loop calls it every iteration)."""
    totals = np.maximum(posterior.sum(axis=0), 1e-12)
    means = posterior.T @ K_basis / totals[:, None]                    # M_-, M_+ (2, b)
    scatter = np.zeros((K_basis.shape[1], K_basis.shape[1]))
    for c in (0, 1):
        centred = K_basis - means[c]
        scatter += (posterior[:, c, None] * centred).T @ centred         # O(n b^2)
    return _solve_direction(scatter, means[1] - means[0], mu)


def _solve_direction(scatter, difference, mu):
    """alpha = (N + mu I)^{-1} (M_+ - M_-)."""
    try:
        # N + mu I is positive definite whenever mu > 0: a Cholesky solve is the fast, stable route.
        return linalg.cho_solve(linalg.cho_factor(scatter + mu * np.eye(len(scatter))), difference)
    except linalg.LinAlgError:
        # mu = 0 (or mu too small for the scale) on a rank-deficient scatter: the minimum-norm solution.
        return linalg.lstsq(scatter + mu * np.eye(len(scatter)), difference, lapack_driver="gelsy")[0]


class _ScatterFromMoments:
    """The within-class scatter N for posteriors whose rows sum to one, at O(n b) per EM iteration.

    With q_n(0) + q_n(1) = 1 for every point,
        N = sum_y sum_n q_n(y) (k_n - M_y)(k_n - M_y)' = sum_n k_n k_n' - sum_y N_y M_y M_y',
    so the O(n b^2) product K'K is formed once per fit instead of once per iteration.  The
    columns are centred first (N does not change when every k_n moves by the same vector), so
    the subtraction does not cancel the large common part of the kernel values.
    """

    def __init__(self, K_basis):
        self.centred = K_basis - K_basis.mean(axis=0)
        self.gram = self.centred.T @ self.centred

    def direction(self, posterior, mu):
        totals = np.maximum(posterior.sum(axis=0), 1e-12)
        means = posterior.T @ self.centred / totals[:, None]
        scatter = self.gram - (totals[:, None] * means).T @ means
        return _solve_direction(scatter, means[1] - means[0], mu)


def _projected_gaussians(z, posterior):
    """Posterior-weighted 1-d means (2,) and one shared variance of the projections z."""
    totals = np.maximum(posterior.sum(axis=0), 1e-12)
    means = posterior.T @ z / totals
    variance = float(np.sum(posterior * (z[:, None] - means[None, :]) ** 2) / len(z))
    # A floor so that perfectly separated projections (tiny data) do not divide by zero.
    variance = max(variance, 1e-10 * float(np.mean(z ** 2)) + 1e-300)
    return means, variance


def _log_densities_1d(z, means, variance):
    return -0.5 * (z[:, None] - means[None, :]) ** 2 / variance - 0.5 * np.log(2 * np.pi * variance)


@dataclass
class _FisherFit:
    alpha: np.ndarray
    means_1d: np.ndarray
    variance_1d: float
    flip_rates: np.ndarray
    observed_priors: np.ndarray
    posterior: np.ndarray
    log_likelihood: list
    n_iter: int


def _fit_label_noise_fisher(K_basis, y_index, initial_flip_rates, mu, max_iter, tol):
    """EM for the shared-covariance model in the span of the basis (the paper's section 4).

    Its matrices are b x b (b = n_basis, about 200): callers run it under `blas_threads()`, one thread, because
    for matrices this small BLAS threads cost more than they save (benchmarks/measured.md).
    """
    rates = np.array(initial_flip_rates, dtype=float)
    frozen = rates == 0
    observed_priors = np.bincount(y_index, minlength=2) / len(y_index)
    posterior = np.eye(2)[y_index]
    moments = _ScatterFromMoments(K_basis)
    history = []
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        alpha = moments.direction(posterior, mu)                       # M-step: the direction ...
        z = K_basis @ alpha
        means_1d, variance = _projected_gaussians(z, posterior)        # ... and the 1-d Gaussians
        if np.all(frozen):
            break                                                      # no noise model: one fit is all
        posterior, log_likelihood = posterior_and_log_likelihood(_log_densities_1d(z, means_1d, variance), y_index, rates)
        history.append(log_likelihood)
        new_rates = updated_flip_rates(posterior, y_index, frozen)
        change = float(np.max(np.abs(new_rates - rates)))
        rates = new_rates
        if change < tol:
            alpha = moments.direction(posterior, mu)
            z = K_basis @ alpha
            means_1d, variance = _projected_gaussians(z, posterior)
            break
    if np.all(frozen):
        posterior = np.eye(2)[y_index]
    return _FisherFit(alpha, means_1d, variance, rates, observed_priors, posterior, history, n_iter)


class _FisherDiscriminantBase(KernelClassifier):
    """Shared fit/predict for KFD and LabelNoiseKFD (subclasses set the EM settings)."""

    def _fisher_params(self):
        """(mu, n_basis) as plain numbers: `_parameter_constraints` has checked them (fit's `checks_parameters`)."""
        return float(self.mu), None if self.n_basis is None else int(self.n_basis)

    def _basis_inputs(self, X, y, n_basis):
        """Validate (X, y), choose the basis, return (K_basis (n, b), labels 0/1).

        For kernel="precomputed" X is the Gram matrix and its basis columns are
        taken.  Otherwise only the n x b kernel to the basis is computed (not the
        n x n Gram matrix the base class would build), which keeps fit linear in n.
        """
        self._check_kernel_params()
        if self.kernel == "precomputed":
            gram, y_pm1 = self._fit_inputs(X, y, psd=False)
            n = gram.shape[0]
        else:
            X, y = self._validate_training_data(X, y)
            self.classes_, y_pm1 = binary_classes(y)
            n = X.shape[0]
        rng = as_generator(self.random_state)
        if n_basis is None or n_basis >= n:
            self.basis_ = np.arange(n)
        else:
            self.basis_ = np.sort(rng.choice(n, size=n_basis, replace=False))
        if self.kernel == "precomputed":
            K_basis = gram[:, self.basis_]
        else:
            self.X_basis_ = X[self.basis_]
            K_basis = kernel_matrix(X, self.X_basis_, kernel=self.kernel, L=self.L)
        return K_basis, (y_pm1 > 0).astype(int)

    def _store(self, fit: _FisherFit):
        """Turn the 1-d Gaussians into a linear decision function in the kernel vector.

        decision(x) = ln p(x|+)/p(x|-) + ln P(y=+)/P(y=-)
                    = slope * (k(x)'alpha - midpoint) + ln prior ratio,
        slope = (m_+ - m_-) / s^2; the true-class priors follow from the flip rates.
        """
        true_priors, noise_rates = noise_rates_from_flip_rates(fit.flip_rates, fit.observed_priors)
        slope = (fit.means_1d[1] - fit.means_1d[0]) / fit.variance_1d
        midpoint = 0.5 * (fit.means_1d[0] + fit.means_1d[1])
        with np.errstate(divide="ignore"):
            prior_ratio = np.log(max(true_priors[1], 1e-300)) - np.log(max(true_priors[0], 1e-300))
        self.alpha_ = fit.alpha
        self.dual_coef_ = slope * fit.alpha
        self.intercept_ = float(prior_ratio - slope * midpoint)
        self.flip_rates_ = fit.flip_rates
        self.noise_rates_ = noise_rates
        self.class_priors_ = true_priors
        self.posterior_ = fit.posterior[np.arange(len(fit.posterior)), 1 - self._y_index]
        self.log_likelihood_ = np.array(fit.log_likelihood)
        return self

    def decision_function(self, X):
        """ln P(y = classes_[1] | x) / P(y = classes_[0] | x): > 0 means classes_[1]."""
        check_is_fitted(self, "dual_coef_")
        if self.kernel == "precomputed":
            K_test = self._validate_test_data(X)[:, self.basis_]
        else:
            X = self._validate_test_data(X)
            K_test = kernel_matrix(X, self.X_basis_, kernel=self.kernel, L=self.L)
        return self._decision_gram(K_test)

    def _decision_gram(self, K_test):
        """Decision values from the kernels between test points and the basis points (n_test, b)."""
        return K_test @ self.dual_coef_ + self.intercept_

    def predict_proba(self, X):
        """P(true class | x) under the fitted model: columns follow classes_."""
        p_plus = expit(self.decision_function(X))
        return np.column_stack([1 - p_plus, p_plus])


class KFD(_FisherDiscriminantBase):
    """The standard kernel Fisher discriminant (Mika et al.), trusting every label.

    mu: the regulariser added to the within-class scatter (>= 0).
    n_basis: expand the direction over a random subset of this many training
    points (None: all of them).  kernel: "precomputed", "rbf" or "linear"; L: rbf width.
    decision_function is the log-odds of the two 1-d Gaussians fitted along the
    discriminant, plus the log prior ratio.
    """

    _parameter_constraints = {**KERNEL_CONSTRAINTS, "mu": [NON_NEGATIVE], "n_basis": [COUNT, None],
                              "random_state": RANDOM_STATE}

    def __init__(self, mu=1e-3, n_basis=None, kernel="precomputed", L=1.0, random_state=None):
        self.mu = mu
        self.n_basis = n_basis
        self.kernel = kernel
        self.L = L
        self.random_state = random_state

    @checks_parameters
    def fit(self, X, y):
        mu, n_basis = self._fisher_params()
        K_basis, self._y_index = self._basis_inputs(X, y, n_basis)
        with blas_threads():   # b x b matrices: one thread (kgslab._blas says why)
            fit = _fit_label_noise_fisher(K_basis, self._y_index, (0.0, 0.0), mu, max_iter=1, tol=0.0)
        return self._store(fit)


class LabelNoiseKFD(_FisherDiscriminantBase):
    """The kernel Fisher discriminant under the label-noise model of seed 003 (section 4), estimated by EM.

    initial_flip_rates: gamma_k = P(y != k | yhat = k) at the start for
    classes_[0] and classes_[1] (the kit's convention); a 0 freezes that class as clean.  After fit: flip_rates_
    (same convention), noise_rates_ (P(yhat != j | y = j)), class_priors_ (of
    the true classes), posterior_ (for each training point, the probability
    that its label was flipped), log_likelihood_ per EM iteration (of the 1-d
    model along the current direction; the direction itself is refitted by the
    Rayleigh quotient, so this need not be monotone), n_iter_.
    """

    _parameter_constraints = {**KERNEL_CONSTRAINTS, "mu": [NON_NEGATIVE], "n_basis": [COUNT, None],
                              "max_iter": [COUNT], "tol": [NON_NEGATIVE], "initial_flip_rates": ["array-like"],
                              "random_state": RANDOM_STATE}

    def __init__(self, mu=1e-3, n_basis=200, max_iter=100, tol=1e-4, initial_flip_rates=(0.1, 0.1),
                 kernel="precomputed", L=1.0, random_state=None):
        self.mu = mu
        self.n_basis = n_basis
        self.max_iter = max_iter
        self.tol = tol
        self.initial_flip_rates = initial_flip_rates
        self.kernel = kernel
        self.L = L
        self.random_state = random_state

    @checks_parameters
    def fit(self, X, y):
        mu, n_basis = self._fisher_params()
        max_iter, tol = int(self.max_iter), float(self.tol)   # checked by _parameter_constraints
        rates = as_pair_of_probabilities(self.initial_flip_rates, "initial_flip_rates")
        if np.any(rates >= 1):
            raise ValueError(f"initial_flip_rates must be < 1, got {rates.tolist()}")
        K_basis, self._y_index = self._basis_inputs(X, y, n_basis)
        with blas_threads():   # b x b matrices: one thread (kgslab._blas says why)
            fit = _fit_label_noise_fisher(K_basis, self._y_index, rates, mu, max_iter, tol)
        self.n_iter_ = fit.n_iter
        return self._store(fit)

"""Fisher discriminants that learn how noisy their labels are (Lawrence and Schölkopf, ICML 2001; seed 003).

The model
---------
Each point has an input x, a TRUE class y and an OBSERVED label yhat that may
be wrong.  The paper's second factorisation of the joint distribution (the
one it implements) is

    p(x, y, yhat) = p(x | y) P(y | yhat) P(yhat),

with Gaussian class conditionals p(x | y) = N(x | m_y, C_y) and a 2 x 2 table
P(y | yhat) holding the flip rates.

Flip-rate convention.  The kit uses the paper's (and its authors' code's)
convention:

    gamma_k = P(y != k | yhat = k),

the probability that a point LABELLED k truly belongs to the other class.  A
data generator usually speaks the other way round: it flips a TRUE class j
with probability e_j = P(yhat != j | y = j) (the "noise rate").  The two are
related by Bayes' rule through the class priors;
`noise_rates_from_flip_rates` and `flip_rates_from_noise_rates` convert, and
every comparison in the kit converts first.

EM (the paper's section 3)
--------------------------
The log-likelihood of the observed data is

    ln p(X | Yhat) = sum_n ln sum_y p(x_n | y) P(y | yhat_n).                      (likelihood)

E-step: the posterior over each point's true label,

    q_n(y) = P(y | x_n, yhat_n) = p(x_n | y) P(y | yhat_n) / sum_y' p(x_n | y') P(y' | yhat_n).

M-step: the fixed point of the bound, posterior-weighted versions of the usual
estimates,

    m_y = sum_n q_n(y) x_n / N_y,     N_y = sum_n q_n(y)   (expected class sizes)
    C_y = sum_n q_n(y) (x_n - m_y)(x_n - m_y)' / N_y       (or one shared C = sum_y ... / N)
    gamma_k = sum_{n: yhat_n = k} q_n(y != k) / #{n: yhat_n = k}.

EM never decreases the likelihood.  A flip rate of exactly 0 is a fixed point
(q_n(y != k) = 0 for every point labelled k, so the update returns 0): a rate
to be learnt must start positive, and a rate started at 0 stays frozen there,
which is how the model says "this class is clean" (the sky problem's non-sky
class).  Starting every rate at 0 gives the ordinary Gaussian classifier
without a noise model.

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
from ._validation import (as_bool, as_float_array, as_generator, as_matrix, as_positive_int, as_scalar, as_vector,
                          binary_classes, check_random_state_kind)
from .kernels import kernel_matrix

__all__ = [
    "LabelNoiseEM", "label_noise_em", "label_noise_em_fields", "noise_rates_from_flip_rates", "flip_rates_from_noise_rates",
    "e_step", "m_step", "fisher_direction", "KFD", "LabelNoiseKFD",
]


# ---- the two flip-rate conventions --------------------------------------------------------------

def _pair_of_probabilities(value, name: str) -> np.ndarray:
    pair = as_float_array(value, name, ndim=1)
    if pair.shape != (2,):
        raise ValueError(f"{name} must hold two numbers (one per class), got shape {pair.shape}")
    if np.any(pair < 0) or np.any(pair > 1):
        raise ValueError(f"{name} must lie in [0, 1], got {pair.tolist()}")
    return pair


def _class_priors(value, name: str) -> np.ndarray:
    """Two probabilities that sum to 1 (one per class)."""
    priors = _pair_of_probabilities(value, name)
    if abs(float(priors.sum()) - 1.0) > 1e-6:
        raise ValueError(f"{name} must sum to 1 (one probability per class), got {priors.tolist()} "
                         f"summing to {float(priors.sum()):.6g}")
    return priors


def _swap_conditioning(rates, priors):
    """Bayes' rule for a pair of binary labels (A, B), shared by the two conversions below.

    rates[j] = P(B != j | A = j) and priors[j] = P(A = j) give (P(B = k), P(A != k | B = k)):
    P(B = 0) = (1 - rates[0]) priors[0] + rates[1] priors[1] (and symmetrically), and
    P(A != 0 | B = 0) = P(B = 0 | A = 1) P(A = 1) / P(B = 0) = rates[1] priors[1] / P(B = 0).
    """
    marginal = np.array([(1 - rates[0]) * priors[0] + rates[1] * priors[1],
                         rates[0] * priors[0] + (1 - rates[1]) * priors[1]])
    return marginal, np.array([rates[1] * priors[1], rates[0] * priors[0]]) / np.maximum(marginal, 1e-300)


def label_noise_em_fields(X, y_index, initial_flip_rates, shared_covariance=False, max_iter=1000, tol=1e-6):
    """`label_noise_em` as a tuple ``(means, covariances, flip_rates, posterior, log_likelihoods)``.

    y_index holds each point's observed label as 0 or 1.  The fields of `LabelNoiseEM` in the order notebook
    10's EM loop returns them: the check of that exercise and `papers.kfd2001.toy_table` compare with it.
    """
    X = as_matrix(X, "X")
    if isinstance(y_index, str) or np.asarray(y_index).dtype == bool:
        raise TypeError(f"y_index must hold the observed labels as the numbers 0 and 1, got {y_index!r:.60}")
    y_index = as_vector(y_index, "y_index", length=X.shape[0], length_of="X")
    if not np.isin(y_index, (0, 1)).all() or len(np.unique(y_index)) < 2:
        raise ValueError(f"y_index must hold the observed labels as 0 and 1, both present, got {y_index!r:.60}")
    fit = label_noise_em(X, y_index.astype(int), initial_flip_rates=initial_flip_rates,
                         shared_covariance=shared_covariance, max_iter=max_iter, tol=tol)
    return fit.means, fit.covariances, fit.flip_rates, fit.posterior, fit.log_likelihood


def noise_rates_from_flip_rates(flip_rates, observed_priors):
    """Kit convention -> generative convention.

    flip_rates[k] = gamma_k = P(y != k | yhat = k) and observed_priors[k] = P(yhat = k)
    give (true_priors, noise_rates) with true_priors[j] = P(y = j) and
    noise_rates[j] = P(yhat != j | y = j), by Bayes' rule.
    """
    return _swap_conditioning(_pair_of_probabilities(flip_rates, "flip_rates"),
                              _class_priors(observed_priors, "observed_priors"))


def flip_rates_from_noise_rates(noise_rates, true_priors):
    """Generative convention -> kit convention.

    noise_rates[j] = P(yhat != j | y = j) and true_priors[j] = P(y = j) give
    (observed_priors, flip_rates) with flip_rates[k] = P(y != k | yhat = k).
    Example (the paper's toy): priors (0.8, 0.2), both noise rates 0.2 give
    flip rates (0.0588, 0.5): half the points labelled 2 are really class 1.
    """
    return _swap_conditioning(_pair_of_probabilities(noise_rates, "noise_rates"),
                              _class_priors(true_priors, "true_priors"))


# ---- E-step and flip-rate M-step, shared by the input-space and the kernel versions ------------

def _log_label_table(y_index, flip_rates):
    """log P(y | yhat_n) for y = 0, 1: an (n, 2) array (log 0 = -inf for a frozen rate)."""
    stay = np.where(y_index == 0, 1 - flip_rates[0], 1 - flip_rates[1])   # P(y = yhat_n | yhat_n)
    move = np.where(y_index == 0, flip_rates[0], flip_rates[1])           # P(y != yhat_n | yhat_n)
    table = np.where(y_index[:, None] == np.arange(2)[None, :], stay[:, None], move[:, None])
    with np.errstate(divide="ignore"):
        return np.log(table)


def _e_step(log_density, y_index, flip_rates):
    """Posterior q_n(y) (n, 2) and the log-likelihood sum_n ln sum_y p(x_n|y) P(y|yhat_n)."""
    joint = log_density + _log_label_table(y_index, flip_rates)
    # ln(e^a + e^b) over the two labels: numpy's logaddexp, the two-term logsumexp, without the array-API wrappers
    # of scipy's logsumexp that cost more than its arithmetic on a few hundred points (the EM calls it every step)
    per_point = np.logaddexp(joint[:, 0], joint[:, 1])
    posterior = np.exp(joint - per_point[:, None])
    return posterior, float(per_point.sum())


def _update_flip_rates(posterior, y_index, frozen):
    """gamma_k = mean over the points labelled k of q_n(y != k); frozen rates stay 0."""
    rates = np.zeros(2)
    for k in (0, 1):
        labelled_k = y_index == k
        rates[k] = 0.0 if frozen[k] else float(posterior[labelled_k, 1 - k].mean())
    return rates


def e_step(log_density, y_index, flip_rates):
    """The E-step (seed 003, section 3): posterior q_n(y) (n, 2) over the true class, and the log-likelihood.

    log_density (n, 2) holds ln p(x_n | y) for y = 0, 1; y_index (n,) the observed labels as 0 / 1;
    flip_rates (gamma_0, gamma_1) with gamma_k = P(y != k | yhat = k).  Returns (posterior,
    sum_n ln sum_y p(x_n | y) P(y | yhat_n)).
    """
    log_density = as_float_array(log_density, "log_density", ndim=2)
    if log_density.shape[1] != 2:
        raise ValueError(f"log_density must have two columns (ln p(x | y) for y = 0, 1), got shape {log_density.shape}")
    y_index = _as_label_index(y_index, "y_index", log_density.shape[0], "log_density")
    flip_rates = _pair_of_probabilities(flip_rates, "flip_rates")
    if np.any(flip_rates >= 1):
        raise ValueError(f"flip_rates must be below 1 (a label that is always flipped), got {flip_rates.tolist()}")
    return _e_step(log_density, y_index, flip_rates)


def _as_label_index(value, name, length, length_of):
    """Observed labels as 0 / 1 integers, one per row of `length_of`, both classes present."""
    index = as_vector(value, name, length=length, length_of=length_of)
    if not np.all((index == 0) | (index == 1)):
        raise ValueError(f"{name} must hold the observed labels as 0 / 1, got {np.unique(index)[:5].tolist()}")
    return index.astype(int)


def _as_posterior(value, name, length, length_of):
    """(n, 2) probabilities, rows summing to 1, both columns with some weight (fisher_direction's rule)."""
    posterior = as_float_array(value, name, ndim=2)
    if posterior.shape != (length, 2):
        raise ValueError(f"{name} must have shape ({length}, 2): one row per row of {length_of}, one column per "
                         f"class; got {posterior.shape}")
    if np.any(posterior < 0) or np.any(posterior > 1) or not np.allclose(posterior.sum(axis=1), 1.0, atol=1e-6):
        raise ValueError(f"{name} must hold probabilities: entries in [0, 1], each row summing to 1")
    if np.any(posterior.sum(axis=0) <= 0):
        raise ValueError(f"{name} must give both classes some weight: a column of {name} sums to 0")
    return posterior


def m_step(X, posterior, y_index, shared_covariance: bool = False):
    """The M-step for Gaussian class conditionals: posterior-weighted means (2, d), covariances (2, d, d)
    (maximum likelihood, divided by N_y; one pooled covariance when shared) and flip rates (2,)."""
    X = as_matrix(X, "X")
    posterior = _as_posterior(posterior, "posterior", X.shape[0], "X")
    y_index = _as_label_index(y_index, "y_index", X.shape[0], "X")
    if len(np.unique(y_index)) < 2:
        raise ValueError("y_index must contain both observed labels 0 and 1: a flip rate needs its class")
    means, covariances = _gaussian_m_step(X, posterior, as_bool(shared_covariance, "shared_covariance"), 0.0)
    return means, covariances, _update_flip_rates(posterior, y_index, (False, False))


# ---- the Gaussian model in input space ----------------------------------------------------------

@dataclass
class LabelNoiseEM:
    """What `label_noise_em` learnt.  Index 0 is classes[0], index 1 is classes[1]."""

    classes: np.ndarray
    means: np.ndarray              # (2, d)
    covariances: np.ndarray        # (2, d, d); both equal when shared
    flip_rates: np.ndarray         # gamma_k = P(y != k | yhat = k)
    observed_priors: np.ndarray    # P(yhat = k), the label proportions
    posterior: np.ndarray          # (n, 2): q_n(y) = P(y | x_n, yhat_n)
    log_likelihood: np.ndarray     # per iteration, never decreasing
    n_iter: int
    converged: bool
    observed_index: np.ndarray     # (n,): yhat_n as 0 / 1

    @property
    def flip_probability(self) -> np.ndarray:
        """P(y_n != yhat_n | x_n, yhat_n) for each training point: was its label flipped?"""
        return self.posterior[np.arange(len(self.observed_index)), 1 - self.observed_index]

    @property
    def true_priors(self) -> np.ndarray:
        return noise_rates_from_flip_rates(self.flip_rates, self.observed_priors)[0]

    @property
    def noise_rates(self) -> np.ndarray:
        """The same flip rates in the generative convention P(yhat != j | y = j)."""
        return noise_rates_from_flip_rates(self.flip_rates, self.observed_priors)[1]


class SingularCovarianceError(ValueError):
    """A class covariance became singular during EM (`papers.kfd2001.toy_table` names its own argument instead)."""


def _gaussian_log_densities(X, means, covariances):
    """ln N(x_n | m_y, C_y) for y = 0, 1 as an (n, 2) array."""
    columns = []
    for mean, covariance in zip(means, covariances):
        sign, log_det = np.linalg.slogdet(covariance)
        if sign <= 0 or not np.isfinite(log_det):
            raise SingularCovarianceError("a class covariance became singular during EM (a flat direction in X, "
                                          "or a class with too few points); pass reg_covar > 0")
        centred = X - mean
        # The Mahalanobis terms by einsum: plain loops, fast for the small d of the toy.
        mahalanobis = np.einsum("ni,ij,nj->n", centred, np.linalg.inv(covariance), centred)
        columns.append(-0.5 * (mahalanobis + log_det + X.shape[1] * np.log(2 * np.pi)))
    return np.column_stack(columns)


def _gaussian_m_step(X, posterior, shared_covariance, reg_covar):
    totals = np.maximum(posterior.sum(axis=0), 1e-12)             # expected class sizes N_y
    means = posterior.T @ X / totals[:, None]
    scatters = np.array([(posterior[:, c, None] * (X - means[c])).T @ (X - means[c]) for c in (0, 1)])
    if shared_covariance:
        shared = scatters.sum(axis=0) / X.shape[0]
        covariances = np.array([shared, shared])
    else:
        covariances = scatters / totals[:, None, None]
    covariances += reg_covar * np.eye(X.shape[1])
    return means, covariances


def label_noise_em(X, y, *, initial_flip_rates=(0.1, 0.1), shared_covariance: bool = False,
                   max_iter: int = 1000, tol: float = 1e-6, reg_covar: float = 0.0) -> LabelNoiseEM:
    """Fit Gaussian class conditionals and the flip-rate table by EM (seed 003, section 3).

    X (n, d) inputs; y the observed labels (any two values; classes sorted).
    initial_flip_rates: gamma_k at the start, in the kit's convention
    P(y != k | yhat = k).  Start a rate to be learnt POSITIVE: a rate of 0 is a
    fixed point and stays frozen (so (0, 0) fits the model without label noise).
    The Gaussians start at the fits to the observed labels (the paper's
    initialisation).  Stops when the log-likelihood rises by less than `tol`
    or after `max_iter` iterations.  reg_covar adds a multiple of I to each
    covariance for data with flat directions (0 keeps EM exactly monotone).
    """
    X = as_matrix(X, "X")
    classes, y_pm1 = binary_classes(y)
    if y_pm1.shape[0] != X.shape[0]:
        raise ValueError(f"y must have one label per row of X ({X.shape[0]}), got {y_pm1.shape[0]}")
    shared_covariance = as_bool(shared_covariance, "shared_covariance")
    y_index = (y_pm1 > 0).astype(int)
    rates = _pair_of_probabilities(initial_flip_rates, "initial_flip_rates")
    if np.any(rates >= 1):
        raise ValueError(f"initial_flip_rates must be < 1, got {rates.tolist()}")
    max_iter = as_positive_int(max_iter, "max_iter")
    tol = as_scalar(tol, "tol", low=0.0)
    reg_covar = as_scalar(reg_covar, "reg_covar", low=0.0)
    frozen = rates == 0
    observed_priors = np.bincount(y_index, minlength=2) / len(y_index)

    posterior = np.eye(2)[y_index]               # "assume the labels are noiseless" to start
    means, covariances = _gaussian_m_step(X, posterior, shared_covariance, reg_covar)
    history = []
    converged = False
    for _ in range(max_iter):
        log_density = _gaussian_log_densities(X, means, covariances)
        posterior, log_likelihood = _e_step(log_density, y_index, rates)
        if history and log_likelihood - history[-1] < tol:
            history.append(log_likelihood)
            converged = True
            break
        history.append(log_likelihood)
        means, covariances = _gaussian_m_step(X, posterior, shared_covariance, reg_covar)
        rates = _update_flip_rates(posterior, y_index, frozen)
    result = LabelNoiseEM(classes=classes, means=means, covariances=covariances, flip_rates=rates,
                          observed_priors=observed_priors, posterior=posterior,
                          log_likelihood=np.array(history), n_iter=len(history), converged=converged,
                          observed_index=y_index)
    return result


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
    posterior = _as_posterior(posterior, "posterior", K_basis.shape[0], "K_basis")
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
        posterior, log_likelihood = _e_step(_log_densities_1d(z, means_1d, variance), y_index, rates)
        history.append(log_likelihood)
        new_rates = _update_flip_rates(posterior, y_index, frozen)
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
        rates = _pair_of_probabilities(self.initial_flip_rates, "initial_flip_rates")
        if np.any(rates >= 1):
            raise ValueError(f"initial_flip_rates must be < 1, got {rates.tolist()}")
        K_basis, self._y_index = self._basis_inputs(X, y, n_basis)
        with blas_threads():   # b x b matrices: one thread (kgslab._blas says why)
            fit = _fit_label_noise_fisher(K_basis, self._y_index, rates, mu, max_iter, tol)
        self.n_iter_ = fit.n_iter
        return self._store(fit)

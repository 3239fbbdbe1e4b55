"""Labels that may be wrong: the label-noise model and its EM (Lawrence and Schölkopf, ICML 2001; seed 003).

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

The kernel version of this model (the paper's section 4) is `kgslab.kfd`, which runs the E-step and the
flip-rate update of this module on its one-dimensional projections.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validation import as_bool, as_float_array, as_matrix, as_positive_int, as_scalar, as_vector, binary_classes

__all__ = [
    "LabelNoiseEM", "label_noise_em", "label_noise_em_as_tuple", "noise_rates_from_flip_rates", "flip_rates_from_noise_rates",
    "e_step", "m_step",
]


# ---- the two flip-rate conventions --------------------------------------------------------------

def as_pair_of_probabilities(value, name: str) -> np.ndarray:
    pair = as_float_array(value, name, ndim=1)
    if pair.shape != (2,):
        raise ValueError(f"{name} must hold two numbers (one per class), got shape {pair.shape}")
    if np.any(pair < 0) or np.any(pair > 1):
        raise ValueError(f"{name} must lie in [0, 1], got {pair.tolist()}")
    return pair


def _class_priors(value, name: str) -> np.ndarray:
    """Two probabilities that sum to 1 (one per class)."""
    priors = as_pair_of_probabilities(value, name)
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


def label_noise_em_as_tuple(X, y_index, initial_flip_rates, shared_covariance=False, max_iter=1000, tol=1e-6):
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
    return _swap_conditioning(as_pair_of_probabilities(flip_rates, "flip_rates"),
                              _class_priors(observed_priors, "observed_priors"))


def flip_rates_from_noise_rates(noise_rates, true_priors):
    """Generative convention -> kit convention.

    noise_rates[j] = P(yhat != j | y = j) and true_priors[j] = P(y = j) give
    (observed_priors, flip_rates) with flip_rates[k] = P(y != k | yhat = k).
    Example (the paper's toy): priors (0.8, 0.2), both noise rates 0.2 give
    flip rates (0.0588, 0.5): half the points labelled 2 are really class 1.
    """
    return _swap_conditioning(as_pair_of_probabilities(noise_rates, "noise_rates"),
                              _class_priors(true_priors, "true_priors"))


# ---- E-step and flip-rate M-step, shared by the input-space and the kernel versions ------------

def _log_label_table(y_index, flip_rates):
    """log P(y | yhat_n) for y = 0, 1: an (n, 2) array (log 0 = -inf for a frozen rate)."""
    stay = np.where(y_index == 0, 1 - flip_rates[0], 1 - flip_rates[1])   # P(y = yhat_n | yhat_n)
    move = np.where(y_index == 0, flip_rates[0], flip_rates[1])           # P(y != yhat_n | yhat_n)
    table = np.where(y_index[:, None] == np.arange(2)[None, :], stay[:, None], move[:, None])
    with np.errstate(divide="ignore"):
        return np.log(table)


def posterior_and_log_likelihood(log_density, y_index, flip_rates):
    """Posterior q_n(y) (n, 2) and the log-likelihood sum_n ln sum_y p(x_n|y) P(y|yhat_n)."""
    joint = log_density + _log_label_table(y_index, flip_rates)
    # ln(e^a + e^b) over the two labels: numpy's logaddexp, the two-term logsumexp, without the array-API wrappers
    # of scipy's logsumexp that cost more than its arithmetic on a few hundred points (the EM calls it every step)
    per_point = np.logaddexp(joint[:, 0], joint[:, 1])
    posterior = np.exp(joint - per_point[:, None])
    return posterior, float(per_point.sum())


def updated_flip_rates(posterior, y_index, frozen):
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
    flip_rates = as_pair_of_probabilities(flip_rates, "flip_rates")
    if np.any(flip_rates >= 1):
        raise ValueError(f"flip_rates must be below 1 (a label that is always flipped), got {flip_rates.tolist()}")
    return posterior_and_log_likelihood(log_density, y_index, flip_rates)


def _as_label_index(value, name, length, length_of):
    """Observed labels as 0 / 1 integers, one per row of `length_of`, both classes present."""
    index = as_vector(value, name, length=length, length_of=length_of)
    if not np.all((index == 0) | (index == 1)):
        raise ValueError(f"{name} must hold the observed labels as 0 / 1, got {np.unique(index)[:5].tolist()}")
    return index.astype(int)


def as_posterior(value, name, length, length_of):
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
    posterior = as_posterior(posterior, "posterior", X.shape[0], "X")
    y_index = _as_label_index(y_index, "y_index", X.shape[0], "X")
    if len(np.unique(y_index)) < 2:
        raise ValueError("y_index must contain both observed labels 0 and 1: a flip rate needs its class")
    means, covariances = _gaussian_m_step(X, posterior, as_bool(shared_covariance, "shared_covariance"), 0.0)
    return means, covariances, updated_flip_rates(posterior, y_index, (False, False))


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
    rates = as_pair_of_probabilities(initial_flip_rates, "initial_flip_rates")
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
        posterior, log_likelihood = posterior_and_log_likelihood(log_density, y_index, rates)
        if history and log_likelihood - history[-1] < tol:
            history.append(log_likelihood)
            converged = True
            break
        history.append(log_likelihood)
        means, covariances = _gaussian_m_step(X, posterior, shared_covariance, reg_covar)
        rates = updated_flip_rates(posterior, y_index, frozen)
    result = LabelNoiseEM(classes=classes, means=means, covariances=covariances, flip_rates=rates,
                          observed_priors=observed_priors, posterior=posterior,
                          log_likelihood=np.array(history), n_iter=len(history), converged=converged,
                          observed_index=y_index)
    return result

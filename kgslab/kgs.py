"""The kernel Gibbs sampler (KGS) of Graepel and Herbrich, NIPS 2000 (seed 001).

The model (section 2)
---------------------
Hypotheses are unit vectors w in feature space, w = sum_i alpha_i phi(x_i)   (1)
with ||w||^2 = alpha' K alpha = 1.  The prior P_W is uniform on that sphere and
each label is flipped with probability q, so the likelihood of w is

    L[w, z] = q^(m R_emp[w, z]) (1 - q)^(m (1 - R_emp[w, z]))                    (3)

where m R_emp[w, z] = #{i : y_i <w, x_i> <= 0} is the number of training
errors.  The posterior P(w | z) = L[w, z] P_W(w) / E_W[L[W, z]]               (2)
depends on w only through its training-error count, so it is piecewise
constant on the sphere: the great circles {w : <w, x_i> = 0} cut the sphere
into cells and every cell has one value.  q = 0 gives zero mass to every cell
with an error: the posterior is uniform on version space.

The sampler (section 3, steps 1-9)
----------------------------------
From the current w_j draw a direction v uniformly in the tangent space (step 2); on the great circle
w(theta) = cos(theta) w_j + sin(theta) v each training point's margin crosses zero at two angles half a
circle apart (steps 3-4), the sorted crossings cut the circle into 2m arcs whose error counts one
cumulative sum gives (steps 5-6), theta is drawn from the piecewise-uniform posterior on the circle,
arc k weighing length_k q^e_k (1-q)^(m-e_k) (step 7), and w_{j+1} = w(theta) (step 8).  `kgslab.circle`
writes these steps out for one circle, as the paper does.  This is hit-and-run on the sphere: the circle
through w and w' is the same from either end, so the chain is reversible with respect to the posterior.
Here the arcs come in antipodal pairs (arc j + pi has every margin negated: m - e_j errors, the same
length), so a step sorts m half-angles, not 2m angles, and draws a pair before one of its two arcs.

How it is carried out in kernel space
-------------------------------------
One eigendecomposition K = U diag(lambda) U' gives coordinates
Phi = U diag(sqrt(lambda)) with Phi Phi' = K: row i is phi(x_i) written in an
orthonormal basis of the span of the training points.  A hypothesis is a
coordinate vector c (w = Phi' c, ||w|| = ||c||), so inner products are plain
dot products and an isotropic direction is a standard normal vector projected
on the tangent space.  Training outputs are Phi c, and the sampler keeps them
up to date by the same rotation as c, so one step costs one matrix-vector
product Phi v plus an O(m log m) sort; the chains are advanced together, the O(m)
work of a step done for all of them at once (`kgslab._kgs_engine`, which also
holds the step itself; `make bench` measures its cost in matrix-vector products).
Directions whose eigenvalue is below the rank rule of `kgslab.versionspace`
(RANK_RTOL times the largest) are dropped: they cannot change any
training output, and since the likelihood depends on w only through the signs
of the outputs, the direction of the kept part of w has the same posterior as
on the full sphere.  Back in the paper's expansion, alpha = U diag(1/sqrt(lambda)) c.

Uses (section 4): transduction by the vote (eq. 4), the Bayes point (eq. 5),
the binary entropy of a candidate point for active learning and the evidence
E_W[L[W, z]] for model selection (the last two in `kgslab.evidence`);
`BayesPointMachine` wraps them.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .circle import vote_draws   # eq. 4's vote of every draw on every test point
from . import evidence
from ._estimator import (COUNT, KERNEL_CONSTRAINTS, N_DRAWS, NON_NEGATIVE_COUNT, RANDOM_STATE,
                         SAMPLER_PRECOMPUTED_EXPECTED_FAILURES, TARGET_ERROR, KernelClassifier)
from ._kgs_engine import Chains, check_steps, start_points
from ._parameters import Interval, checks_parameters
from ._validation import (
    as_cross_kernel,
    as_flip_rate,
    as_generator,
    as_gram,
    as_matrix,
    as_pm1_labels,
    as_positive_int,
)
from .diagnostics import summarise
from .stopping import as_n_draws, check_targets, reported, run_until_converged
from .versionspace import consistent_start, kernel_coordinates

__all__ = [
    "kernel_coordinates",
    "gibbs_sample",
    "GibbsRun",
    "monitor_kernel",
    "gibbs_run",
    "vote",
    "consistent_start",
    "BayesPointMachine",
]


# Step 1, the start in version space, is `kgslab.versionspace.consistent_start` (exported here); the sampler's
# step and chains are kgslab._kgs_engine's.
# ---------------------------------------------------------------------------
# The sampler
# ---------------------------------------------------------------------------
class GibbsRun(NamedTuple):
    """Samples of several independent KGS chains and the diagnostics of the votes they monitor."""

    alphas: np.ndarray      # (n_chains, n_draws, m)
    rhat: np.ndarray        # per monitored point: split, rank-normalised R-hat of its vote
    ess: np.ndarray         # bulk effective sample size of its vote
    mc_error: np.ndarray    # Monte Carlo standard error of its vote fraction
    converged: bool


def monitor_kernel(K, y):
    """Kernel rows (n, m) of the points whose votes `gibbs_run` watches by default: the training points, and the
    feature-space midpoint of each training point and its nearest neighbour of the other class.

    On the training points alone the vote can be settled while the chains are not (with q = 0 every sample
    classifies every training point correctly); the midpoints lie between the classes, where samples disagree.
    Row of a midpoint: (k(x_i, .) + k(x_j, .)) / 2, its output the mean of the two outputs.
    K must be positive semi-definite: the nearest neighbour is found by the feature-space distance
    k(x, x) + k(x', x') - 2 k(x, x'), which for an indefinite K can be negative and picks no neighbour at all.
    """
    gram = as_gram(K, "K", psd=True)
    y = as_pm1_labels(y, "y", length=gram.shape[0], length_of="K")
    return _monitor_rows(gram, y)


def _monitor_rows(gram, y):
    """monitor_kernel's rows for a checked PSD Gram matrix and +-1 labels."""
    squared = np.diag(gram)
    distance = squared[:, None] + squared[None, :] - 2 * gram
    distance[y[:, None] == y[None, :]] = np.inf
    if not np.all(np.isinf(distance)):
        partner = distance.argmin(axis=1)
        pairs = np.unique(np.sort(np.column_stack([np.arange(len(y)), partner]), axis=1), axis=0)
        return np.vstack([gram, (gram[pairs[:, 0]] + gram[pairs[:, 1]]) / 2])
    return gram


def gibbs_run(K, y, q, n_samples="auto", *, n_chains: int = 4, burn_in: int = 100, thin: int = 10,
              K_monitor=None, target_error: float = 0.02, target_rhat: float = 1.01, max_samples: int = 5_000,
              random_state=None) -> GibbsRun:
    """`n_chains` independent KGS chains, each from its own start, and the convergence of their votes.

    The monitored quantities are the votes on the rows of K_monitor (n, m) (default: the training points and
    the feature-space midpoints between each and its nearest neighbour of the other class, where the samples
    disagree most): sample j votes 1 on point x when <w_j, phi(x)> > 0.  n_samples per chain is an integer or
    "auto": run until every monitored vote fraction has MC error < target_error and R-hat < target_rhat
    (R-hat waited for only where the vote is more than target_error away from 0 and 1), at most max_samples
    per chain (then a ConvergenceWarning naming the largest error and R-hat).  The default target 0.02 is a
    vote to +-0.02 (one s.e.) on every monitored point; halving it takes four times the samples (the error
    falls as 1 / sqrt(ESS)).  Chains after the
    first start from a random point of the prior (q > 0) and all burn in for `burn_in` steps; the chains are
    advanced together (one matrix-matrix product a step), which at small m costs little more than one chain.
    """
    features, to_alpha = kernel_coordinates(K)
    y = as_pm1_labels(y, "y", length=features.shape[0], length_of="K")
    q = as_flip_rate(q)
    n_samples = as_n_draws(n_samples, "n_samples")
    n_chains = as_positive_int(n_chains, "n_chains")
    burn_in = as_positive_int(burn_in, "burn_in", minimum=0)
    thin = as_positive_int(thin, "thin")
    target_error, target_rhat, max_samples = check_targets(target_error, target_rhat, max_samples, "max_samples")
    check_steps(n_chains * (burn_in + thin * (max_samples if n_samples == "auto" else n_samples)),
                 "max_samples" if n_samples == "auto" else "n_samples", max_samples if n_samples == "auto" else n_samples)
    # kernel_coordinates has checked K (PSD): the monitored rows need no second eigendecomposition
    monitor = to_alpha.T @ (_monitor_rows(as_gram(K, "K", psd=False), y) if K_monitor is None
                            else as_cross_kernel(K_monitor, features.shape[0], "K_monitor")).T   # (r, n)
    rng = as_generator(random_state)
    chains = Chains(features, y, q, rng, start_points(features, y, q, n_chains, rng))
    samples = []
    burn = burn_in          # the first draw burns in; later ones extend the chains where they stopped

    def extend(n):
        nonlocal burn
        samples.append(chains.draw(n, thin, burn))
        burn = 0
        return (np.concatenate(samples, axis=1) @ monitor > 0).astype(float)   # (chains, draws, monitored)

    if n_samples == "auto":
        result = run_until_converged(extend, first=25, max_draws=max_samples, target_error=target_error,
                                     target_rhat=target_rhat, what="the kernel Gibbs sampler (n_samples='auto')",
                                     projected=True)
    else:
        draws = extend(n_samples)
        result = summarise(draws, target_error, target_rhat) if n_samples >= 4 else None
    coords = np.concatenate(samples, axis=1)
    return GibbsRun(alphas=coords @ to_alpha.T, **reported(result, monitor.shape[1]))


def gibbs_sample(K, y, q, n_samples, *, burn_in: int = 100, thin: int = 10, random_state=None):
    """Samples of one chain from the KGS posterior (eqs. 2-3): alphas of shape (n_samples, m).

    Sample j is w_j = sum_i alphas[j, i] phi(x_i) with alphas[j] @ K @ alphas[j] = 1.
    K: (m, m) symmetric PSD kernel matrix; y: labels in {-1, +1} (or {0, 1});
    q in [0, 0.5): the assumed flip rate (q = 0 samples version space uniformly and
    starts from a hard-margin point, raising a ValueError when there is none);
    burn_in steps are discarded, then one sample is kept every `thin` steps.
    Each step costs one matrix-vector product and a sort of m crossing angles (those on half the circle: the other
    half mirrors them, `kgslab._kgs_engine`).
    Several chains with their diagnostics: `gibbs_run`.
    """
    features, to_alpha = kernel_coordinates(K)
    y = as_pm1_labels(y, "y", length=features.shape[0], length_of="K")
    q = as_flip_rate(q)
    n_samples = as_positive_int(n_samples, "n_samples")
    burn_in = as_positive_int(burn_in, "burn_in", minimum=0)
    thin = as_positive_int(thin, "thin")
    check_steps(burn_in + thin * n_samples, "n_samples", n_samples)
    rng = as_generator(random_state)
    coords = Chains(features, y, q, rng, start_points(features, y, q, 1, rng)).draw(n_samples, thin, burn_in)[0]
    return coords @ to_alpha.T


# ---------------------------------------------------------------------------
# Section 4: the vote (entropy, likelihood and evidence: kgslab.evidence)
# ---------------------------------------------------------------------------
def vote(alphas, K_test):
    """p_plus: the fraction of sampled classifiers voting +1 on each test point (eq. 4).

    alphas (n_samples, m) from `gibbs_sample`, K_test (n_test, m).  The transductive
    label of eq. (4) is sign(2 p_plus - 1); a zero output counts as no vote for +1.
    """
    alphas = as_matrix(alphas, "alphas")
    K_test = as_cross_kernel(K_test, alphas.shape[1])
    return vote_draws(alphas[None], K_test)[0].mean(axis=0)    # one chain's draws of eq. 4, averaged


# ---------------------------------------------------------------------------
# The estimator
# ---------------------------------------------------------------------------
class BayesPointMachine(KernelClassifier):
    """Bayes point machine and Bayesian transduction from KGS samples (section 4).

    fit runs n_chains independent chains on the posterior with flip rate q; n_samples per chain is an
    integer or "auto" (until the vote on every training point, and on the midpoints between the classes, has MC
    error < target_error (default 0.02) and R-hat < 1.01, at most max_samples per chain; see `gibbs_run`).
    `predict` / `decision_function` use the Bayes point w_bp = mean of the samples (eq. 5);
    `transduce` and `vote_proba` use the vote of the samples (eq. 4); `entropy` is the
    binary entropy of the vote (active learning); `log_evidence` estimates ln E_W[L[W, z]].
    `rhat_`, `ess_` and `mc_error_` are the diagnostics of the fit: those of `gibbs_run`'s monitored votes (the
    training points, then the midpoints between the classes).  Predicting changes no attribute (so two threads
    may predict with one fitted model); `vote_convergence(X)` gives the diagnostics of the votes on X.
    kernel is "rbf" (width L), "linear" or "precomputed" (X is then the Gram matrix).
    """

    _parameter_constraints = {**KERNEL_CONSTRAINTS, "q": [Interval(Real, 0, 0.5, closed="left")],
                              "n_samples": N_DRAWS, "burn_in": [NON_NEGATIVE_COUNT], "thin": [COUNT],
                              "n_chains": [COUNT], "target_error": [TARGET_ERROR],
                              "max_samples": [Interval(Integral, 8, None, closed="left")], "random_state": RANDOM_STATE}
    _precomputed_expected_failures = SAMPLER_PRECOMPUTED_EXPECTED_FAILURES

    def __init__(self, q=0.1, n_samples="auto", burn_in=100, thin=10, kernel="rbf", L=1.0, n_chains=4,
                 target_error=0.02, max_samples=5_000, random_state=None):
        self.q = q
        self.n_samples = n_samples
        self.burn_in = burn_in
        self.thin = thin
        self.kernel = kernel
        self.L = L
        self.n_chains = n_chains
        self.target_error = target_error
        self.max_samples = max_samples
        self.random_state = random_state

    @checks_parameters
    def fit(self, X, y):
        # psd=False: gibbs_run checks definiteness itself, from the eigendecomposition it needs anyway
        gram, y_pm1 = self._fit_inputs(X, y, psd=False)
        run = gibbs_run(gram, y_pm1, self.q, self.n_samples, n_chains=self.n_chains, burn_in=self.burn_in,
                        thin=self.thin, target_error=self.target_error, max_samples=self.max_samples,
                        random_state=self.random_state)
        self.chain_alphas_ = run.alphas
        self.alphas_ = run.alphas.reshape(-1, run.alphas.shape[-1])
        self.bayes_point_ = self.alphas_.mean(axis=0)
        self.train_gram_ = gram
        self.y_pm1_ = y_pm1
        self.sample_errors_ = evidence.training_errors(self.alphas_ @ gram, y_pm1)
        self.rhat_, self.ess_, self.mc_error_ = run.rhat, run.ess, run.mc_error
        return self

    def _decision_gram(self, K_test):
        return K_test @ self.bayes_point_

    def vote_proba(self, X):
        """Vote fractions (n, 2): column k is the fraction of samples voting for classes_[k] (eq. 4)."""
        p_plus = vote_draws(self.chain_alphas_, self._cross_kernel(X)).mean(axis=(0, 1))
        return np.column_stack([1.0 - p_plus, p_plus])

    def vote_convergence(self, X):
        """R-hat, ESS and MC error of the vote on every row of X (a `kgslab.diagnostics.Convergence`).

        The chains' votes on X (eq. 4, one per sample) summarised as `gibbs_run` summarises its monitored votes,
        against the estimator's target_error; the samples are the fit's, so this draws nothing.
        """
        draws = vote_draws(self.chain_alphas_, self._cross_kernel(X))
        if draws.shape[1] < 4:
            raise ValueError(f"vote_convergence needs at least 4 samples per chain (split R-hat halves each chain "
                             f"twice); this fit kept {draws.shape[1]} (n_samples)")
        return summarise(draws, self.target_error)

    def transduce(self, X):
        """Labels by the majority vote of the samples (eq. 4); a tie goes to classes_[0]."""
        return self.classes_[(self.vote_proba(X)[:, 1] > 0.5).astype(int)]

    def entropy(self, X):
        """Binary entropy (bits) of the vote on each point: the information of querying its label."""
        return evidence.binary_entropy(self.vote_proba(X)[:, 1])

    def log_evidence(self, q=None, **ladder):
        """(ln E_W[L[W, z]], standard error) for the training data at flip rate q (default self.q > 0).

        `kgslab.evidence.label_noise_log_evidence` with the estimator's n_chains (at least 2: R-hat compares chains) and
        random_state; `ladder` passes its other settings (n_rungs, n_samples, burn_in, thin).
        """
        check_is_fitted(self, "alphas_")
        ladder.setdefault("random_state", self.random_state)
        ladder.setdefault("n_chains", max(2, self.n_chains))
        return evidence.label_noise_log_evidence(self.train_gram_, self.y_pm1_, self.q if q is None else q, **ladder)

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
product Phi v plus an O(m log m) sort (`make bench`, bench_kgs.py: at m = 1000 a step of one
chain costs about 1.9 m x m products K v, of each of the default 4 chains about 1.4).  The
chains are advanced together: the O(m) work of a step is done for all of them at once (at
small m that is most of the cost), the products as one matrix product at small m and as
one matrix-vector product per chain at large m (`ROWWISE_PRODUCTS`).
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

import math
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from scipy.linalg.blas import drot
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from . import evidence
from ._blas import blas_threads
from ._estimator import (COUNT, COUNT0, KERNEL_CONSTRAINTS, N_DRAWS, RANDOM_STATE,
                         SAMPLER_PRECOMPUTED_EXPECTED_FAILURES, TARGET_ERROR, KernelClassifier)
from ._validation import (
    as_cross_kernel,
    as_float_array,
    as_generator,
    as_gram,
    as_matrix,
    as_pm1_labels,
    as_positive_int,
    as_vector,
    check_work_budget,
)
from .circle import _as_signs, _as_unit_coords, _check_q, _choose
from .diagnostics import ConvergenceReport, LatestRun, check_targets, run_until_converged, summarise
from .versionspace import (crossing_half_angles, kernel_coordinates, random_tangents,
                           start_in_version_space)

__all__ = [
    "kernel_coordinates",
    "gibbs_step",
    "gibbs_sample",
    "GibbsRun",
    "monitor_kernel",
    "gibbs_run",
    "vote_draws",
    "vote",
    "consistent_start",
    "BayesPointMachine",
]

TWO_PI = 2.0 * np.pi
RENORMALISE = 32   # steps between two renormalisations of a chain's point (rounding drift, ~1e-16 a step)


# ---------------------------------------------------------------------------
# Steps 2-8 for k chains at once (one circle by the book: `kgslab.circle`)
# ---------------------------------------------------------------------------
def _arcs_of_step(a, b):
    """Steps 3-6 as the sampler runs them, for one circle: (boundaries, errors, lengths) of its 2m arcs.

    Margins a_i cos t + b_i sin t; the arcs start at the 2m crossings, which here lie in [-pi/2, 3 pi/2)
    (the same circle as `arc_errors_by_sweep`'s [0, 2 pi), cut at another place).  See `_sweep_half`.
    """
    a, b = np.atleast_2d(a), np.atleast_2d(b)
    half, errors, lengths = _sweep_half(a, -b)
    return (np.concatenate((half[0], half[0] + np.pi)), np.concatenate((errors[0], a.shape[1] - errors[0])),
            np.concatenate((lengths[0], lengths[0])))


def _sweep_half(margins, minus_slopes):
    """Steps 3-6 for k circles at once, sorting m numbers per circle instead of 2m: (half, errors, lengths).

    On the circle a_i cos t + b_i sin t (rows: circles; minus_slopes = -b) point i crosses zero where
    tan t = -a_i / b_i: once in (-pi/2, pi/2), at half_i = arctan(a_i / -b_i), and again half a circle later.
    At half_i the margin turns negative when b_i < 0 (its derivative there is b_i / cos(half_i)), and at
    t = -pi/2 it is -b_i, so just after -pi/2 the points with b_i >= 0 are wrong.  After sorting, one
    cumulative sum of the +-1 turns gives errors[:, j], the count on the arc from half[:, j] (sorted) to
    half[:, j + 1] (the last to half[:, 0] + pi), of length lengths[:, j].  The antipodal arc (+ pi) has
    every margin negated: its count is m - errors[:, j], and the same length.
    """
    m = margins.shape[1]
    half = crossing_half_angles(margins, minus_slopes)
    # Sort values, not indices (a plain sort is 2-3 times faster than argsort plus two takes): the turn of
    # each crossing rides along in the lowest mantissa bit of its angle, a change of 1 ulp (1e-16 rad).
    bits = half.view(np.int64)
    bits &= -2
    bits |= minus_slopes > 0                         # 1: the margin turns negative at this crossing
    half.sort(axis=1)
    errors = bits & 1
    errors.cumsum(axis=1, out=errors)                # "becomes an error" turns among the first j + 1 crossings
    # errors = (points wrong at -pi/2) + (turned negative) - (turned positive) after j + 1 crossings
    #        = (m - all turned negative) + 2 (turned negative so far) - (j + 1); in place, as ufuncs are cheapest
    turned_negative = errors[:, -1:].copy()
    errors <<= 1
    errors -= _crossing_counts(m)      # (j + 1) - m
    errors -= turned_negative
    lengths = np.empty_like(half)       # (plain ufuncs: np.diff's Python wrapper costs more than the work)
    np.subtract(half[:, 1:], half[:, :-1], out=lengths[:, :-1])
    np.subtract(half[:, 0] + np.pi, half[:, -1], out=lengths[:, -1])
    return half, errors, lengths


_COUNTS = {}


def _crossing_counts(m):
    """(j + 1) - m for j = 0 .. m-1 (cached: the sweep subtracts it every step)."""
    if m not in _COUNTS:
        _COUNTS[m] = np.arange(1, m + 1) - m
    return _COUNTS[m]


class _PairTables(NamedTuple):
    """Step 7 by antipodal pairs of arcs: arc j with e errors and arc j + pi with m - e, of the same length.

    weight[e] = r^e + r^(m-e), r = q / (1-q): the pair's likelihood (eq. 3, up to (1-q)^m), at most about 1
    (e = 0 or m).  Where the best pair of a circle has so many errors that its weight underflows, the step
    uses log_weight[e] = min(e, m-e) ln r + ln(1 + r^|m-2e|) instead and subtracts the best pair's.
    first_share[e] = r^e / (r^e + r^(m-e)): the chance that the draw is the arc j itself.
    q = 0: only e = 0 (the arc) or e = m (its antipode) is version space.
    """

    weight: np.ndarray
    log_weight: np.ndarray
    first_share: np.ndarray
    row_offsets: np.ndarray | None = None   # stacked tables only: where each chain's q starts (k, 1)

    @classmethod
    def stacked(cls, row_q, m):
        """One table per chain, for chains at different flip rates (`kgslab.evidence`'s tempered ladder):
        the tables of row_q[i] laid end to end, chain i reading entry e at e + i (m + 1)."""
        tables = [cls.of(q, m) for q in row_q]
        return cls(*(np.concatenate([getattr(t, name) for t in tables])
                     for name in ("weight", "log_weight", "first_share")),
                   row_offsets=(m + 1) * np.arange(len(tables))[:, None])

    @classmethod
    def of(cls, q, m):
        e = np.arange(m + 1)
        if q == 0.0:
            log_weight = np.where((e == 0) | (e == m), 0.0, -np.inf)
            return cls(np.exp(log_weight), log_weight, (e == 0).astype(float))
        log_r = math.log(q) - math.log1p(-q)
        log_weight = np.minimum(e, m - e) * log_r + np.log1p(np.exp(np.abs(m - 2 * e) * log_r))
        with np.errstate(over="ignore", under="ignore"):
            first_share = 1.0 / (1.0 + np.exp((m - 2 * e) * log_r))
            return cls(np.exp(log_weight), log_weight, first_share)


# A circle whose total weight is below this has its best pair's weight below 1e-280 / pi, near the end of the
# normal doubles (and weights beyond it lose digits): that circle's step is redone in log space.
FAINT = 1e-280


def _pair_weights(tables, errors, lengths):
    """Cumulative sums (k, m) of length x likelihood over the antipodal pairs of each circle (step 7).

    errors: the pairs' error counts, or for stacked tables their entries (errors + row_offsets)."""
    cumulative = tables.weight.take(errors)
    cumulative *= lengths
    cumulative.cumsum(axis=1, out=cumulative)
    faint = cumulative[:, -1] < FAINT
    if faint.any():
        log_weight = tables.log_weight.take(errors[faint])
        with np.errstate(invalid="ignore"):                 # q = 0 outside version space: -inf - -inf
            log_weight -= log_weight.max(axis=1, keepdims=True)   # the best pair's weight is 1: no underflow
        cumulative[faint] = (np.exp(log_weight) * lengths[faint]).cumsum(axis=1)
    return cumulative


def gibbs_step(features, y, coords, q, rng, margins=None):
    """One full KGS step (steps 2-8) from unit coordinates `coords`; returns a dict of its parts.

    Keys: direction (the unit tangent v), direction_margins (y_i <v, x_i>), theta, coords (the new point),
    margins (y_i <w_new, x_i>).  `margins` may be passed in to save the product features @ coords.
    The sampler runs `_step`, which advances several chains at once.
    """
    features = as_matrix(features, "features")
    y = _as_signs(y, length=features.shape[0])
    coords = _as_unit_coords(coords, features.shape[1])
    q, rng = _check_q(q), as_generator(rng, "rng")
    if margins is not None:
        margins = as_vector(margins, "margins", length=features.shape[0], length_of="features")
    signed = y[:, None] * features
    if margins is None:
        margins = signed @ coords
    parts = {}
    new_coords, new_margins = np.array(coords, float)[None], np.array(margins, float)[None]   # the step moves them
    with np.errstate(divide="ignore", invalid="ignore"):
        _step(signed, new_coords, new_margins, _PairTables.of(q, len(y)), rng, parts)
    return {**{key: value[0] for key, value in parts.items()}, "coords": new_coords[0], "margins": new_margins[0]}


def _step(signed, coords, margins, tables, rng, parts=None):
    """Steps 2-8 for k chains at once, in place: coords (k, r) and margins (k, m) move to the new points.

    signed: the rows y_i Phi_i; tables: `_PairTables.of(q, m)` (or `.stacked`: a flip rate per chain).  One
    matrix-vector product per chain, one arctan and one sort of m numbers per chain, a few passes over the m
    antipodal pairs of arcs (all chains together), then per chain a binary search for the arc and a plane
    rotation; nothing else is O(m r).
    """
    (k, rank), m = coords.shape, margins.shape[1]
    direction = random_tangents(coords, rng)                   # step 2
    slopes = _products(direction, signed)                      # the one matrix-vector product per chain
    if parts is not None:
        parts.update(direction=-direction, direction_margins=-slopes)
    # The circle is walked towards -direction, as likely as +direction: its slopes are then -slopes, so the
    # sweep's "minus slopes" are the slopes as they come (no pass to negate them).
    half, errors, lengths = _sweep_half(margins, slopes)       # steps 3-6
    if tables.row_offsets is not None:                         # a flip rate per chain: its own table
        errors += tables.row_offsets
    cumulative = _pair_weights(tables, errors, lengths)        # step 7, by antipodal pairs (`_PairTables`)
    uniforms = rng.random((k, 3)).tolist()
    thetas = []
    for i in range(k):
        u_pair, u_turn, u_within = uniforms[i]
        j = _choose(cumulative[i], u_pair)                     # a pair of arcs by length x likelihood (eq. 3)
        turn = u_turn >= tables.first_share[errors[i, j]]      # its antipodal arc
        theta = half[i, j] + math.pi * turn + u_within * lengths[i, j]
        thetas.append(theta)
        cos_t, sin_t = math.cos(theta), -math.sin(theta)       # step 8, towards -direction
        # BLAS plane rotation drot(x, y, c, s, n, offx, incx, offy, incy, overwrite_x, overwrite_y), arguments by
        # position: x <- c x + s y in place, one pass (and y <- c y - s x: direction and slopes are spent)
        drot(coords[i], direction[i], cos_t, sin_t, rank, 0, 1, 0, 1, 1, 1)
        drot(margins[i], slopes[i], cos_t, sin_t, m, 0, 1, 0, 1, 1, 1)
    if parts is not None:
        parts["theta"] = np.mod(np.array(thetas), TWO_PI)
    # unit length up to rounding; `_Chains.draw` removes the drift every RENORMALISE steps


# One product per chain (a BLAS gemv) at large m: OpenBLAS's gemm for a few rows packs the whole m x r matrix on
# every call and costs 2-6 matrix-vector products (benchmarks/bench_kgs.py); at small m one call is cheaper.
ROWWISE_PRODUCTS = 40_000     # m r from which the chains' products are one gemv each


def _products(direction, signed):
    """direction @ signed.T (k, m): the slopes y_i <v, phi_i> of each chain's direction."""
    if direction.shape[0] == 1 or signed.size < ROWWISE_PRODUCTS:
        return direction @ signed.T
    slopes = np.empty((direction.shape[0], signed.shape[0]))
    for row, out in zip(direction, slopes):
        np.matmul(signed, row, out=out)
    return slopes


# ---------------------------------------------------------------------------
# Step 1: a starting point
# ---------------------------------------------------------------------------
def consistent_start(features, y):
    """A point of version space (every training point correct), or a ValueError if there is none.

    The maximum-margin hyperplane of `kgslab.versionspace` (unit coordinates c).
    """
    features = as_matrix(features, "features")
    y = as_pm1_labels(y, "y", length=features.shape[0], length_of="features")
    return start_in_version_space(features, y, hint="q = 0 samples version space: use q > 0, "
                                  "or a kernel that separates the data")


def _default_start(features, y, rng):
    """Start for q > 0: the direction of sum_i y_i phi(x_i) (a class-mean classifier)."""
    coords = features.T @ y
    norm = np.linalg.norm(coords)
    if norm < 1e-12 * np.sqrt(np.sum(features**2)):
        coords = rng.standard_normal(features.shape[1])
        norm = np.linalg.norm(coords)
    return coords / norm


# ---------------------------------------------------------------------------
# The sampler
# ---------------------------------------------------------------------------
MAX_STEPS = 10_000_000   # Gibbs steps of one call: beyond this a run takes hours; refuse rather than hang


def _check_steps(n_steps, name, value):
    check_work_budget(n_steps, MAX_STEPS, name, value, "Gibbs steps (with burn_in, thin and the chains)")


def _active_points(features):
    """Training points whose feature vector is not zero (relative to the largest)."""
    squared_norms = np.einsum("ij,ij->i", features, features)
    return squared_norms > 1e-14 * np.max(squared_norms)


class _Chains:
    """Independent Markov chains of the KGS, advanced together and extendable: their points and margins."""

    def __init__(self, features, y, q, rng, starts):
        # A point with a zero feature vector has margin 0 <= 0 for every w: an error whatever w is.
        # It multiplies the likelihood by the constant q, so it drops out of the sampling (for q = 0
        # it leaves no version space, which consistent_start reports).
        active = _active_points(features)
        self.features, self.y, self.q, self.rng = features[active], y[active], q, rng
        self.coords = np.array(starts, dtype=float).reshape(-1, features.shape[1])
        self.signed = self.y[:, None] * self.features
        self.tables = _PairTables.of(q, self.signed.shape[0])

    def draw(self, n_samples, thin, burn_in=0):
        """Coordinates (k, n_samples, r): after burn_in steps, one kept every `thin` steps."""
        k, rank = self.coords.shape
        if rank == 1:
            # The "sphere" in one dimension is the two points +-c: draw the sign exactly.
            # +c makes e errors, -c the other m - e: the pair of `_PairTables`, whose first share is P(+c)
            p_plus = self.tables.first_share[np.count_nonzero(self.features[:, 0] * self.y < 0)]
            return np.where(self.rng.random((k, n_samples)) < p_plus, 1.0, -1.0)[:, :, None]
        samples = np.empty((k, n_samples, rank))
        coords = self.coords            # the chains' own array: the step moves it in place
        margins = coords @ self.signed.T     # afresh: rounding in the stepwise update must not pile up
        signed, tables, rng = self.signed, self.tables, self.rng
        with blas_threads(), np.errstate(divide="ignore", invalid="ignore"):   # b_i = 0: arctan(+-inf)
            for step in range(burn_in + n_samples * thin):
                _step(signed, coords, margins, tables, rng)
                if step % RENORMALISE == 0:
                    _undo_drift(coords, margins)
                if step >= burn_in and (step - burn_in) % thin == thin - 1:
                    samples[:, (step - burn_in) // thin] = coords
        return samples


def _undo_drift(coords, margins):
    """Scale each chain's point back to unit length, in place, and its margins with it: the step's rotation keeps
    |c| = 1 only up to rounding (~1e-16 a step), so the samplers call this every RENORMALISE steps."""
    scale = 1.0 / np.sqrt((coords * coords).sum(axis=1, keepdims=True))
    coords *= scale
    margins *= scale


def _starts(features, y, q, n_chains, rng):
    """Starting points (n_chains, r): for q = 0 the max-margin point of version space (step 1), for q > 0
    the class-mean direction for the first chain and uniform points of the sphere (the prior) for the others,
    so that chains that have not forgotten their starts disagree and R-hat sees it."""
    if q == 0.0:
        return np.tile(consistent_start(features, y), (n_chains, 1))
    starts = rng.standard_normal((n_chains, features.shape[1]))
    active = _active_points(features)
    starts[0] = _default_start(features[active], y[active], rng)
    return starts / np.linalg.norm(starts, axis=1, keepdims=True)


def _run_chain(features, y, q, n_samples, burn_in, thin, rng, start=None):
    """Coordinates (n_samples, r) of one chain after burn_in steps, one kept every `thin` steps."""
    start = _starts(features, y, q, 1, rng) if start is None else start
    return _Chains(features, y, q, rng, start).draw(n_samples, thin, burn_in)[0]


class GibbsRun(NamedTuple):
    """Samples of several independent KGS chains and the diagnostics of the votes they monitor."""

    alphas: np.ndarray      # (n_chains, n_draws, m)
    rhat: np.ndarray        # per monitored point: split, rank-normalised R-hat of its vote
    ess: np.ndarray         # bulk effective sample size of its vote
    mc_error: np.ndarray    # Monte Carlo standard error of its vote fraction
    converged: bool


def vote_draws(alphas, K_test):
    """The votes (n_chains, n_draws, n_test) of every sample on every test point: 1 for +1, 0 otherwise."""
    alphas = as_float_array(alphas, "alphas", ndim=3)
    outputs = alphas.reshape(-1, alphas.shape[-1]) @ as_cross_kernel(K_test, alphas.shape[-1]).T
    return (outputs > 0).astype(float).reshape(alphas.shape[0], alphas.shape[1], -1)


def _as_n_draws(value, name):
    if isinstance(value, str):
        if value != "auto":
            raise ValueError(f"{name} must be a positive integer or 'auto', got {value!r}")
        return value
    return as_positive_int(value, name)


def monitor_kernel(K, y):
    """Kernel rows (n, m) of the points whose votes `gibbs_run` watches by default: the training points, and the
    feature-space midpoint of each training point and its nearest neighbour of the other class.

    On the training points alone the vote can be settled while the chains are not (with q = 0 every sample
    classifies every training point correctly); the midpoints lie between the classes, where samples disagree.
    Row of a midpoint: (k(x_i, .) + k(x_j, .)) / 2, its output the mean of the two outputs.
    """
    gram = as_gram(K, "K", psd=False)
    y = as_pm1_labels(y, "y", length=gram.shape[0], length_of="K")
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
    vote to +-0.02 (one s.e.) on every monitored point: on the 76-point set of Figure 3 (q = 0.1) that takes
    about 3,000 samples per chain at thin 10, a few seconds; 0.01 takes four times as long.  Chains after the
    first start from a random point of the prior (q > 0) and all burn in for `burn_in` steps; the chains are
    advanced together (one matrix-matrix product a step), which at small m costs little more than one chain.
    """
    features, to_alpha = kernel_coordinates(K)
    y = as_pm1_labels(y, "y", length=features.shape[0], length_of="K")
    q = _check_q(q)
    n_samples = _as_n_draws(n_samples, "n_samples")
    n_chains = as_positive_int(n_chains, "n_chains")
    burn_in = as_positive_int(burn_in, "burn_in", minimum=0)
    thin = as_positive_int(thin, "thin")
    target_error, target_rhat, max_samples = check_targets(target_error, target_rhat, max_samples, "max_samples")
    _check_steps(n_chains * (burn_in + thin * (max_samples if n_samples == "auto" else n_samples)),
                 "max_samples" if n_samples == "auto" else "n_samples", max_samples if n_samples == "auto" else n_samples)
    monitor = to_alpha.T @ (monitor_kernel(K, y) if K_monitor is None
                            else as_cross_kernel(K_monitor, features.shape[0], "K_monitor")).T   # (r, n)
    rng = as_generator(random_state)
    chains = _Chains(features, y, q, rng, _starts(features, y, q, n_chains, rng))
    samples = []
    first_burn = [burn_in]

    def extend(n):
        samples.append(chains.draw(n, thin, first_burn[0]))
        first_burn[0] = 0
        return (np.concatenate(samples, axis=1) @ monitor > 0).astype(float)   # (chains, draws, monitored)

    if n_samples == "auto":
        result = run_until_converged(extend, first=25, max_draws=max_samples, target_error=target_error,
                                     target_rhat=target_rhat, what="the kernel Gibbs sampler (n_samples='auto')",
                                     projected=True)
    else:
        draws = extend(n_samples)
        result = summarise(draws, target_error, target_rhat) if n_samples >= 4 else None
    coords = np.concatenate(samples, axis=1)
    nan = np.full(monitor.shape[1], np.nan)
    return GibbsRun(alphas=coords @ to_alpha.T, rhat=nan if result is None else result.rhat,
                    ess=nan if result is None else result.ess, mc_error=nan if result is None else result.mc_error,
                    converged=bool(result is not None and result.converged))


def gibbs_sample(K, y, q, n_samples, *, burn_in: int = 100, thin: int = 10, random_state=None):
    """Samples of one chain from the KGS posterior (eqs. 2-3): alphas of shape (n_samples, m).

    Sample j is w_j = sum_i alphas[j, i] phi(x_i) with alphas[j] @ K @ alphas[j] = 1.
    K: (m, m) symmetric PSD kernel matrix; y: labels in {-1, +1} (or {0, 1});
    q in [0, 0.5): the assumed flip rate (q = 0 samples version space uniformly and
    starts from a hard-margin point, raising a ValueError when there is none);
    burn_in steps are discarded, then one sample is kept every `thin` steps.
    Each step costs one matrix-vector product and a sort of 2m angles.
    Several chains with their diagnostics: `gibbs_run`.
    """
    features, to_alpha = kernel_coordinates(K)
    y = as_pm1_labels(y, "y", length=features.shape[0], length_of="K")
    q = _check_q(q)
    n_samples = as_positive_int(n_samples, "n_samples")
    burn_in = as_positive_int(burn_in, "burn_in", minimum=0)
    thin = as_positive_int(thin, "thin")
    _check_steps(burn_in + thin * n_samples, "n_samples", n_samples)
    coords = _run_chain(features, y, q, n_samples, burn_in, thin, as_generator(random_state))
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
    return np.mean(K_test @ alphas.T > 0, axis=1)


# ---------------------------------------------------------------------------
# The estimator
# ---------------------------------------------------------------------------
class BayesPointMachine(ConvergenceReport, KernelClassifier):
    """Bayes point machine and Bayesian transduction from KGS samples (section 4).

    fit runs n_chains independent chains on the posterior with flip rate q; n_samples per chain is an
    integer or "auto" (until the vote on every training point, and on the midpoints between the classes, has MC
    error < target_error (default 0.02) and R-hat < 1.01, at most max_samples per chain; see `gibbs_run`).
    `predict` / `decision_function` use the Bayes point w_bp = mean of the samples (eq. 5);
    `transduce` and `vote_proba` use the vote of the samples (eq. 4); `entropy` is the
    binary entropy of the vote (active learning); `log_evidence` estimates ln E_W[L[W, z]].
    `rhat_`, `ess_` and `mc_error_` are the diagnostics of the latest votes: after fit those of `gibbs_run`'s
    monitored points (the training points, then the midpoints), after vote_proba / transduce / entropy those
    on the points given.
    kernel is "rbf" (width L), "linear" or "precomputed" (X is then the Gram matrix).
    """

    _parameter_constraints = {**KERNEL_CONSTRAINTS, "q": [Interval(Real, 0, 0.5, closed="left")],
                              "n_samples": N_DRAWS, "burn_in": [COUNT0], "thin": [COUNT], "n_chains": [COUNT],
                              "target_error": [TARGET_ERROR], "max_samples": [Interval(Integral, 8, None, closed="left")],
                              "random_state": RANDOM_STATE}
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

    @_fit_context(prefer_skip_nested_validation=True)
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
        self._last = LatestRun()
        self._last.run = run
        return self

    def _diagnostic(self, name):
        check_is_fitted(self, "alphas_")
        return getattr(self._last.run, name)

    def _decision_gram(self, K_test):
        return K_test @ self.bayes_point_

    def vote_proba(self, X):
        """Vote fractions (n, 2): column k is the fraction of samples voting for classes_[k] (eq. 4)."""
        draws = vote_draws(self.chain_alphas_, self._cross_kernel(X))
        if draws.shape[1] >= 4:
            self._last.run = summarise(draws, self.target_error)
        p_plus = draws.mean(axis=(0, 1))
        return np.column_stack([1.0 - p_plus, p_plus])

    def transduce(self, X):
        """Labels by the majority vote of the samples (eq. 4); a tie goes to classes_[0]."""
        return self.classes_[(self.vote_proba(X)[:, 1] > 0.5).astype(int)]

    def entropy(self, X):
        """Binary entropy (bits) of the vote on each point: the information of querying its label."""
        return evidence.binary_entropy(self.vote_proba(X)[:, 1])

    def log_evidence(self, q=None, **ladder):
        """(ln E_W[L[W, z]], standard error) for the training data at flip rate q (default self.q > 0).

        `kgslab.evidence.log_evidence` with the estimator's n_chains (at least 2: R-hat compares chains) and
        random_state; `ladder` passes its other settings (n_rungs, n_samples, burn_in, thin).
        """
        check_is_fitted(self, "alphas_")
        ladder.setdefault("random_state", self.random_state)
        ladder.setdefault("n_chains", max(2, self.n_chains))
        return evidence.log_evidence(self.train_gram_, self.y_pm1_, self.q if q is None else q, **ladder)

"""The engine under the kernel Gibbs sampler: chains, their step (section 3 of seed 001, steps 1-8) and one run loop.

Two samplers drive it: `kgslab.kgs` (the posterior of one flip rate q: the vote, the Bayes point) and
`kgslab.evidence` (a ladder of flip rates, rung by rung or by replica exchange), as emcee's `sample()` drives its
moves.  `kgslab.circle` writes the same steps out for one circle, as the paper does; this module runs them for k
chains at once, fast.

State.  A chain's point is a unit coordinate vector c (w = Phi' c, Phi Phi' = K, `kernel_coordinates`) and its
training margins y_i <w, phi_i> = (y_i Phi_i) c, kept up to date by the same rotation as c.  `Chains` holds the
points (k, r) and margins (k, m) of k chains; `steps` moves them in place and yields after every step, so the
caller decides what to keep (a sample every `thin` steps) or what to do between steps (evidence's swaps).

The step (`propose_circle`, then `move_on_circle`):
  2. a random unit tangent v at each point: the great circle w(t) = cos t w + sin t v;
  3-4. on it margin i is a_i cos t + b_i sin t, which crosses zero twice, half a circle apart;
  5-6. sorted, the crossings cut the circle into 2m arcs whose error counts one cumulative sum gives;
  7. an arc is drawn with weight length x q^e (1 - q)^(m - e) (eq. 3), then theta uniformly on it;
  8. w <- w(theta).
Arcs come in antipodal pairs (arc j + pi has every margin negated: m - e_j errors, the same length), so a step
sorts the m crossings in (-pi/2, pi/2) only (`sweep_half_circle`) and draws a pair before one of its two arcs
(`PairTables`).  One matrix-vector product per chain, one arctan and one sort of m numbers per chain, a few passes
over the m pairs, then per chain a binary search and a plane rotation: nothing else is O(m r).

One step, written twice.  `move_on_circle` makes steps 3-8 in numpy calls, function by function as listed above;
`_move_chains` makes the same arithmetic as plain loops that numba compiles (`move_compiled`, with `_tangents` for
step 2).  Each names the other, and tests/test_kgs_engine.py holds them to the same points from the same draws on
every branch (plain and stacked tables, the log-space path, both sides of the switch).  The run loop (`steps`)
takes the compiled twin up to COMPILED_UP_TO training points and the numpy twin above: a dozen numpy calls on m
numbers cost more than their arithmetic for small m (notebook 08's sizes), and the vectorised arctan and sort cost
less than the loops for large m
(benchmarks/bench_kgs.py measures both; benchmarks/measured.md has the figures).  Keeping only one would make either
the notebooks' chains or the large runs slower, and would change the draws of the runs on the side it drops.

`kgslab.circle.step_on_circle` is not a third copy: it is the paper's algorithm for the same Markov step (all 2m
crossings sorted, an arc drawn by `versionspace.sample_angle`), the reference of notebook 08's Exercise 8.3, whose
student writes it that way; it makes other draws than the engine's antipodal pairs, and the tests compare the two
by their distributions (tests/test_kgs.py, tests/test_circle.py against exact posteriors; the sweep's arcs against
the circle's).  `kgslab.circle.gibbs_step` is the engine's step for one chain, not a copy.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np
from scipy.linalg.blas import drot

from ._blas import blas_threads
from ._validation import check_work_budget
from .crossings import crossing_half_angles
from .versionspace import consistent_start, pick_by_weight, random_tangents, unit_tangents

#: steps between two renormalisations of a chain's point: the rotation keeps |c| = 1 up to ~1e-16 a step.
RENORMALISE = 32
#: Gibbs steps of one call: beyond this a run takes hours; refuse rather than hang.
MAX_STEPS = 10_000_000
#: a circle whose total weight is below this has its best pair's weight below 1e-280 / pi, near the end of the
#: normal doubles (where weights lose digits): that circle's step is redone in log space.
FAINT = 1e-280
#: m r from which the chains' products are one BLAS gemv each: OpenBLAS's gemm for a few rows packs the whole
#: m x r matrix on every call (benchmarks/bench_kgs.py measures it); below it one call is cheaper.
ROWWISE_PRODUCTS = 40_000
#: chains from which a step draws its pairs of arcs in one pass over all chains (`pick_pairs`); fewer are drawn one
#: by one, where a dozen numpy calls on k numbers cost more than k binary searches (benchmarks/measured.md; the
#: tempered ladder of `kgslab.evidence` steps 80 chains, one pass)
ONE_PASS_DRAWS = 8
#: training points m up to which the run loop steps by compiled loops (`move_compiled`); above it the numpy calls'
#: vector arithmetic (arctan, sort) outweighs their overhead.  Where the two cross depends on the CPU:
#: benchmarks/bench_kgs.py's "compiled loops" rows measure it (benchmarks/measured.md has the figures for 350).
COMPILED_UP_TO = 350


def check_steps(n_steps, name, value):
    """Refuse a run of more than MAX_STEPS Gibbs steps, naming the argument that asked for it."""
    check_work_budget(n_steps, MAX_STEPS, name, value, "Gibbs steps (with burn_in, thin and the chains)")


# ---------------------------------------------------------------------------
# Step 1: where the chains start
# ---------------------------------------------------------------------------
def active_points(features):
    """Training points whose feature vector is not zero (relative to the largest).

    A point with a zero feature vector has margin 0 <= 0 for every w: an error whatever w is.  It multiplies the
    likelihood by the constant q, so it drops out of the sampling (for q = 0 it leaves no version space, which
    `consistent_start` reports).
    """
    squared_norms = np.einsum("ij,ij->i", features, features)
    return squared_norms > 1e-14 * np.max(squared_norms)


#: what a q = 0 run without a version space tells its user to do
NO_VERSION_SPACE_HINT = "q = 0 samples version space: use q > 0, or a kernel that separates the data"


def class_mean_start(features, y, rng):
    """The direction of sum_i y_i phi(x_i) (a class-mean classifier); a random point when that sum is 0."""
    coords = features.T @ y
    norm = np.linalg.norm(coords)
    if norm < 1e-12 * np.sqrt(np.sum(features**2)):
        coords = rng.standard_normal(features.shape[1])
        norm = np.linalg.norm(coords)
    return coords / norm


def start_points(features, y, q, n_chains, rng):
    """Starting points (n_chains, r).

    q = 0: the max-margin point of version space for every chain.  q > 0: the class-mean direction for the first
    chain and uniform points of the sphere (the prior) for the others, so that chains that have not forgotten
    their starts disagree and R-hat sees it.
    """
    if q == 0.0:
        return np.tile(consistent_start(features, y, NO_VERSION_SPACE_HINT), (n_chains, 1))
    starts = rng.standard_normal((n_chains, features.shape[1]))
    active = active_points(features)
    starts[0] = class_mean_start(features[active], y[active], rng)
    return starts / np.linalg.norm(starts, axis=1, keepdims=True)


# ---------------------------------------------------------------------------
# Step 2: a great circle through each point
# ---------------------------------------------------------------------------
class Circle(NamedTuple):
    """The great circles of one step: a unit tangent per chain and the slopes b_i = y_i <v, phi_i> of its margins.

    The step rotates both in place (they are spent by it): copy them first to keep them.
    """

    direction: np.ndarray   # (k, r)
    slopes: np.ndarray      # (k, m)


def _project_to_tangents(direction, coords):
    """Normals (k, r) made unit tangents at the unit rows of coords, in place: d <- d - <d, c> c, then d / |d|.

    Returns False, with every row projected but none scaled, when a row came out (numerically) parallel to its
    point: `random_tangents` draws that row again.  Plain loops for numba (`_compiled_tangents`).
    """
    k, rank = direction.shape
    squared = np.empty(k)
    for i in range(k):
        along = 0.0
        for a in range(rank):
            along += direction[i, a] * coords[i, a]
        total = 0.0
        for a in range(rank):
            direction[i, a] -= along * coords[i, a]
            total += direction[i, a] * direction[i, a]
        squared[i] = total
    for i in range(k):
        if not squared[i] > 1e-24:
            return False
    for i in range(k):
        scale = 1.0 / math.sqrt(squared[i])
        for a in range(rank):
            direction[i, a] *= scale
    return True


@functools.cache
def _compiled_tangents():
    """`_project_to_tangents` compiled by numba (as `_compiled_move`)."""
    import numba

    return numba.njit(cache=True, error_model="numpy")(_project_to_tangents)


def _tangents(coords, rng):
    """`versionspace.random_tangents` for the engine's chains: the same draws, projected by compiled loops."""
    direction = rng.standard_normal(coords.shape)
    if _compiled_tangents()(direction, coords):
        return direction
    return unit_tangents(direction, coords, rng)      # a row drawn parallel to its point: drawn again


def propose_circle(coords, signed, rng, tangents=None) -> Circle:
    """Step 2 for k chains: a random unit tangent at each point and its slopes (one product per chain).

    tangents(coords, rng): how the tangents are drawn (default `versionspace.random_tangents`; the run loop passes
    `_tangents`, the same draws projected by compiled loops).
    """
    direction = (tangents or random_tangents)(coords, rng)
    if direction.shape[0] == 1 or signed.size < ROWWISE_PRODUCTS:
        return Circle(direction, direction @ signed.T)
    slopes = np.empty((direction.shape[0], signed.shape[0]))
    for row, out in zip(direction, slopes):
        np.matmul(signed, row, out=out)
    return Circle(direction, slopes)


# ---------------------------------------------------------------------------
# Steps 3-6: the arcs of each circle and their errors
# ---------------------------------------------------------------------------
_CROSSINGS_PASSED_MINUS_M = {}


def _crossings_passed_minus_m(m):
    """(j + 1) - m for j = 0 .. m-1: crossings passed at the end of arc j, less m (cached: every step uses it)."""
    if m not in _CROSSINGS_PASSED_MINUS_M:
        _CROSSINGS_PASSED_MINUS_M[m] = np.arange(1, m + 1) - m
    return _CROSSINGS_PASSED_MINUS_M[m]


def _sort_with_turns(half, turns_negative):
    """Sort each row of crossing angles in place, carrying along whether each crossing turns its margin negative.

    The turn rides in the lowest mantissa bit of its angle (a change of at most 1 ulp, 1e-16 rad), so a plain
    sort of values does the work of an argsort plus two takes at a third of the cost.  Returns the turns (k, m) as
    0 / 1 integers in the sorted order.
    """
    bits = half.view(np.int64)
    bits &= -2
    bits |= turns_negative
    half.sort(axis=1)
    return bits & 1


def sweep_half_circle(margins, minus_slopes):
    """Steps 3-6 for k circles at once: (half, errors, lengths), each (k, m), sorting m numbers per circle.

    On the circle a_i cos t + b_i sin t (rows: circles; minus_slopes = -b) point i crosses zero where
    tan t = -a_i / b_i: once in (-pi/2, pi/2), at half_i = arctan(a_i / -b_i), and again half a circle later.
    At half_i the margin turns negative when b_i < 0 (its derivative there is b_i / cos(half_i)); at t = -pi/2
    the margin is -b_i, so just after -pi/2 the points with b_i >= 0 are wrong.  With the crossings sorted, the
    arc from half[:, j] to half[:, j + 1] (the last: to half[:, 0] + pi) has

        errors[:, j] = (wrong at -pi/2) + (turned negative so far) - (turned positive so far)
                     = (m - N) + n_j - ((j + 1) - n_j)  =  2 n_j - ((j + 1) - m) - N,

    n_j the crossings among the first j + 1 that turn negative, N all of them.  The antipodal arc (+ pi) has every
    margin negated: m - errors[:, j] errors, the same length.
    """
    m = margins.shape[1]
    half = crossing_half_angles(margins, minus_slopes)
    errors = _sort_with_turns(half, minus_slopes > 0)
    errors.cumsum(axis=1, out=errors)                      # n_j
    all_turned_negative = errors[:, -1:].copy()            # N
    errors <<= 1                                           # in place: ufuncs on one array are cheapest
    errors -= _crossings_passed_minus_m(m)
    errors -= all_turned_negative
    lengths = np.empty_like(half)     # (plain ufuncs: np.diff's Python wrapper costs more than the work)
    np.subtract(half[:, 1:], half[:, :-1], out=lengths[:, :-1])
    np.subtract(half[:, 0] + np.pi, half[:, -1], out=lengths[:, -1])
    return half, errors, lengths


# ---------------------------------------------------------------------------
# Step 7: the likelihood of each antipodal pair of arcs
# ---------------------------------------------------------------------------
class PairTables(NamedTuple):
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

    @classmethod
    def stacked(cls, row_q, m):
        """One table per chain, for chains at different flip rates (`kgslab.evidence`'s tempered ladder):
        the tables of row_q[i] laid end to end, chain i reading entry e at e + i (m + 1)."""
        tables = [cls.of(q, m) for q in row_q]
        return cls(*(np.concatenate([getattr(t, name) for t in tables])
                     for name in ("weight", "log_weight", "first_share")),
                   row_offsets=(m + 1) * np.arange(len(tables))[:, None])


def pair_weights(tables, entries, lengths):
    """Cumulative sums (k, m) of length x likelihood over the antipodal pairs of each circle (step 7).

    entries: the pairs' error counts, or for stacked tables the counts plus each chain's row offset.
    """
    cumulative = tables.weight.take(entries)
    cumulative *= lengths
    cumulative.cumsum(axis=1, out=cumulative)
    faint = cumulative[:, -1] < FAINT
    if faint.any():
        log_weight = tables.log_weight.take(entries[faint])
        with np.errstate(invalid="ignore"):                 # q = 0 outside version space: -inf - -inf
            log_weight -= log_weight.max(axis=1, keepdims=True)   # the best pair's weight is 1: no underflow
        cumulative[faint] = (np.exp(log_weight) * lengths[faint]).cumsum(axis=1)
    return cumulative


# ---------------------------------------------------------------------------
# Steps 3-8: move every chain along its circle
# ---------------------------------------------------------------------------
def pick_pairs(cumulative, uniforms):
    """For each row of cumulative weights (k, m) the index j with probability weights[j] / total (step 7).

    `versionspace.pick_by_weight` for k rows at once: the first cumulative sum above uniform x total, counted
    (the sums of one row never decrease, so the count of those at or below it is the binary search's answer).
    """
    totals = cumulative[:, -1]
    if not np.all(totals > 0):
        raise RuntimeError("no arc of the great circle has positive posterior mass (left version space?)")
    j = (cumulative <= (uniforms * totals)[:, None]).sum(axis=1)
    return np.minimum(j, cumulative.shape[1] - 1, out=j)       # uniform x total rounded up to the total


def _move_chains(coords, margins, direction, slopes, weight, log_weight, first_share, offsets, uniforms, faint):
    """Steps 3-8 for k chains as plain loops, the same arithmetic as `move_on_circle`: numba compiles them
    (`_compiled_move`), so that a step costs what its arithmetic costs, not a dozen numpy calls on m numbers.

    Per chain i: the m half-angles arctan(a_j / b_j) (b = the slopes as they come: the circle is walked towards
    -direction), sorted; the error count of each arc from the turns passed so far (`sweep_half_circle`); the
    cumulative weights of the antipodal pairs (`pair_weights`, in log space for a faint circle); a pair by a
    binary search for uniforms[i, 0] x total, one of its two arcs by uniforms[i, 1] (`first_share`), theta on it
    by uniforms[i, 2]; then the plane rotation of (coords, direction) and (margins, slopes) by theta, in place.
    offsets[i]: where chain i's table starts (0, or its rung's row for stacked tables).  Returns theta (k,).
    """
    k, rank = coords.shape
    m = margins.shape[1]
    thetas = np.empty(k)
    sorted_half = np.empty(m)
    bits = sorted_half.view(np.int64)
    entries = np.empty(m, dtype=np.int64)
    lengths = np.empty(m)
    cumulative = np.empty(m)
    for i in range(k):
        turned_all = 0
        for j in range(m):                                              # steps 3-4
            sorted_half[j] = math.atan(margins[i, j] / slopes[i, j])
            turns = 1 if slopes[i, j] > 0 else 0                        # the margin turns negative there
            bits[j] = (bits[j] & -2) | turns                            # carried in the lowest bit (`_sort_with_turns`)
            turned_all += turns
        sorted_half.sort()
        turned = 0
        for j in range(m):                                              # steps 5-6
            turned += bits[j] & 1
            entries[j] = 2 * turned - (j + 1 - m) - turned_all + offsets[i]
        for j in range(m - 1):
            lengths[j] = sorted_half[j + 1] - sorted_half[j]
        lengths[m - 1] = sorted_half[0] + math.pi - sorted_half[m - 1]
        total = 0.0                                                     # step 7, by antipodal pairs
        for j in range(m):
            total += weight[entries[j]] * lengths[j]
            cumulative[j] = total
        if total < faint:                                               # the log-space path (`pair_weights`)
            best = -np.inf
            for j in range(m):
                best = max(best, log_weight[entries[j]])
            total = 0.0
            for j in range(m):
                total += math.exp(log_weight[entries[j]] - best) * lengths[j]
                cumulative[j] = total
        if not total > 0:
            raise RuntimeError("no arc of the great circle has positive posterior mass (left version space?)")
        j = min(np.searchsorted(cumulative, uniforms[i, 0] * total, side="right"), m - 1)
        theta = sorted_half[j] + uniforms[i, 2] * lengths[j]
        if uniforms[i, 1] >= first_share[entries[j]]:                  # the antipodal arc of the pair
            theta += math.pi
        thetas[i] = theta
        cos_t, sin_t = math.cos(theta), -math.sin(theta)                 # step 8, towards -direction
        for a in range(rank):
            x, v = coords[i, a], direction[i, a]
            coords[i, a] = cos_t * x + sin_t * v
            direction[i, a] = cos_t * v - sin_t * x
        for j in range(m):
            x, v = margins[i, j], slopes[i, j]
            margins[i, j] = cos_t * x + sin_t * v
            slopes[i, j] = cos_t * v - sin_t * x
    return thetas


@functools.cache
def _compiled_move():
    """`_move_chains` compiled by numba (imported here, not with the module: numba is imported only by a run).

    cache=True keeps the machine code on disk after the first call (a few seconds once per install).
    error_model="numpy": a_j / 0 is +-inf (arctan: +-pi/2), as numpy's division gives, instead of an exception.
    """
    import numba

    return numba.njit(cache=True, error_model="numpy")(_move_chains)


def move_compiled(coords, margins, circle, tables, rng):
    """`move_on_circle` by compiled loops (`_move_chains`): the same draws (uniforms (k, 3), one row per chain),
    the same new points to rounding.  The run loop (`steps`) uses it up to COMPILED_UP_TO training points;
    `kgslab.circle.gibbs_step` (one step of one chain) uses `move_on_circle`."""
    k = coords.shape[0]
    direction, slopes = circle
    offsets = (np.zeros(k, dtype=np.int64) if tables.row_offsets is None
               else np.ascontiguousarray(tables.row_offsets[:, 0], dtype=np.int64))
    uniforms = rng.random((k, 3))
    return _compiled_move()(coords, margins, direction, slopes, tables.weight, tables.log_weight,
                            tables.first_share, offsets, uniforms, FAINT)


def move_on_circle(coords, margins, circle, tables, rng):
    """Steps 3-8 for k chains: coords (k, r) and margins (k, m) move in place to the new points; returns theta (k,).

    The circle is walked towards -direction, as likely as +direction: its slopes are then -slopes, so the sweep's
    "minus slopes" are the slopes as they come (no pass to negate them), and theta is measured that way.
    The step in numpy calls, function by function as the module's docstring lists them; the run loop makes the
    same draws by compiled loops (`move_compiled`), and the tests hold the two to the same points.
    """
    k, rank = coords.shape
    m = margins.shape[1]
    direction, slopes = circle
    half, errors, lengths = sweep_half_circle(margins, slopes)          # steps 3-6
    entries = errors if tables.row_offsets is None else errors + tables.row_offsets
    cumulative = pair_weights(tables, entries, lengths)                 # step 7, by antipodal pairs
    uniforms = rng.random((k, 3))
    if k < ONE_PASS_DRAWS:
        thetas = np.empty(k)
        for i, (u_pair, u_turn, u_within) in enumerate(uniforms.tolist()):
            j = pick_by_weight(cumulative[i], u_pair)                   # a pair of arcs (eq. 3)
            turn = u_turn >= tables.first_share[entries[i, j]]          # one of its two arcs
            thetas[i] = half[i, j] + math.pi * turn + u_within * lengths[i, j]
    else:                                                               # the same draws for all chains at once
        u_pair, u_turn, u_within = uniforms.T
        j = pick_pairs(cumulative, u_pair)
        flat = np.arange(0, k * m, m) + j                               # entry (i, j[i]) of the (k, m) arrays
        turn = u_turn >= tables.first_share.take(entries.take(flat))
        thetas = half.take(flat) + math.pi * turn + u_within * lengths.take(flat)
    for i, theta in enumerate(thetas.tolist()):
        cos_t, sin_t = math.cos(theta), -math.sin(theta)                # step 8, towards -direction
        # BLAS plane rotation drot(x, y, c, s, n, offx, incx, offy, incy, overwrite_x, overwrite_y), arguments by
        # position: x <- c x + s y in place, one pass (and y <- c y - s x: direction and slopes are spent)
        drot(coords[i], direction[i], cos_t, sin_t, rank, 0, 1, 0, 1, 1, 1)
        drot(margins[i], slopes[i], cos_t, sin_t, m, 0, 1, 0, 1, 1, 1)
    return thetas


def undo_drift(coords, margins):
    """Scale each chain's point back to unit length, in place, and its margins with it (every RENORMALISE steps)."""
    scale = 1.0 / np.sqrt((coords * coords).sum(axis=1, keepdims=True))
    coords *= scale
    margins *= scale


def step_for(m):
    """The run loop's step on m training points, (move, tangents): compiled loops up to COMPILED_UP_TO, numpy above."""
    return (move_compiled, _tangents) if m <= COMPILED_UP_TO else (move_on_circle, random_tangents)


def steps(signed, coords, margins, tables, rng, n_steps):
    """The run loop: n_steps KGS steps of every chain, in place; yields the step's index after each.

    signed: the rows y_i Phi_i (m, r); coords (k, r) and margins (k, m) the chains' points and margins, moved in
    place; tables: `PairTables.of(q, m)` (or `.stacked`, a flip rate per chain).  The caller reads or changes
    coords and margins between steps: keeps a sample every `thin` steps (`Chains.draw`), swaps states between
    rungs (`kgslab.evidence`).  One BLAS thread and no warnings for b_i = 0 (arctan(+-inf)) while it runs.
    """
    with blas_threads(), np.errstate(divide="ignore", invalid="ignore"):
        move, tangents = step_for(margins.shape[1])
        for step in range(n_steps):
            move(coords, margins, propose_circle(coords, signed, rng, tangents), tables, rng)
            if step % RENORMALISE == 0:
                undo_drift(coords, margins)
            yield step


class Chains:
    """Independent KGS chains at one flip rate q, advanced together and extendable: their points and margins."""

    def __init__(self, features, y, q, rng, starts):
        active = active_points(features)
        self.features, self.y, self.q, self.rng = features[active], y[active], q, rng
        self.coords = np.array(starts, dtype=float).reshape(-1, features.shape[1])
        self.signed = self.y[:, None] * self.features
        self.tables = PairTables.of(q, self.signed.shape[0])

    def draw(self, n_samples, thin, burn_in=0):
        """Coordinates (k, n_samples, r): after burn_in steps, one kept every `thin` steps."""
        k, rank = self.coords.shape
        if rank == 1:
            # The "sphere" in one dimension is the two points +-c: draw the sign exactly.
            # +c makes e errors, -c the other m - e: the pair of `PairTables`, whose first share is P(+c)
            p_plus = self.tables.first_share[np.count_nonzero(self.features[:, 0] * self.y < 0)]
            return np.where(self.rng.random((k, n_samples)) < p_plus, 1.0, -1.0)[:, :, None]
        samples = np.empty((k, n_samples, rank))
        margins = self.coords @ self.signed.T     # afresh: rounding in the stepwise update must not pile up
        for step in steps(self.signed, self.coords, margins, self.tables, self.rng, burn_in + n_samples * thin):
            if step >= burn_in and (step - burn_in) % thin == thin - 1:
                samples[:, (step - burn_in) // thin] = self.coords
        return samples

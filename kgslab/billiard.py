"""The kernel billiard and Bayesian transduction (seed 002, Graepel, Herbrich and Obermayer, NIPS 1999).

One sampler (`KernelBilliard`) and its estimator (`billiard_run`, `BayesianTransduction`).  The geometry it shares
with the kernel Gibbs sampler is in `kgslab.versionspace`; the paper's own step and its stopping rule (eq. 8)
as written are kept apart, as references for the checks and the tests.

Version space and volume (section 3.1)
--------------------------------------
A kernel perceptron is f(x) = sign <w, phi(x)> with w = sum_i alpha_i phi(x_i) and ||w|| = 1.  Its version
space is the piece of the unit sphere where every training point is classified correctly,

    V(S) = { w : ||w|| = 1,  y_i <w, phi(x_i)> > 0  for i = 1..l },                         (eq. 2)

a convex polytope on the sphere whose walls are the great spheres <w, phi(x_i)> = 0.  A test point x cuts it
into V+ (perceptrons saying +1) and V- (saying -1); under a uniform prior on w the probability of the label
+1 is the volume ratio p+ = V+ / V, the label is argmax_y p^y (eq. 6) and the transductive confidence is

    c_trans = 2 max(p+, p-) - 1  in [0, 1].                                                  (eq. 7)

The billiard (section 3.2)
--------------------------
A ball flies through version space and bounces off its walls; if the flight is ergodic, the fraction of
flight length spent in V+ converges to p+.  The kit flies the exact great circle w(t) = cos(t) w + sin(t) v,
the path of the paper's w' = (w + tau v) / ||w + tau v||, with the arc length t as the flight time: wall j
is reached at the flight time t_j in [0, pi] of step 2, and at the
nearest wall c the direction reflects, v' = v - 2 <v, phi_c> phi_c / ||phi_c||^2 (step 3).  A test
point is not a wall: the flight is split where its label flips, so one trajectory serves every test point
(the paper's "one trajectory can be calculated in advance").  The projections are kept up to date
incrementally (`KernelBilliard`): a bounce costs O(l + m) instead of the paper's O(l (l + m)).

Where the kit departs from the paper
------------------------------------
* A pure billiard can be trapped on a periodic orbit and never visit part of version space.  The kit
  refreshes the direction at random times, a Poisson clock in arc length, the new direction isotropic in the
  span of the training points (tangent to the sphere).  The uniform measure on (position, direction) is
  invariant under both the billiard flow and this refresh, and the refresh makes the walk ergodic.
* On the exact great circle a wall always lies ahead within half a circle (every great circle meets every
  wall), so the paper's "tau_c -> infinity" case (no wall within a quarter circle, where the straight line
  w + tau v never meets one) is just a longer flight here; random new directions come from the refresh.
  Only when the span has no tangent direction at all (rank K = 1) does the ball stay where it is.
* The flight before the first `burn_in` bounces (from the hard-margin start, which sits near the centre)
  is not counted; it also measures the mean flight length that sets the refresh clock.
* Several independent trajectories and their diagnostics (R-hat, ESS, MC error per test point) decide how
  long to fly (n_bounces = "auto"); Hoeffding's n of eq. (8) is there with `epsilon`.

Soft version (section 5): with lam > 0 the training kernel is K + lam I, i.e. each training point gets a
private extra feature sqrt(lam) e_i, which lets the ball through walls of points that cannot be separated.
Test points have no private feature, so the cross-kernel is used as given.
"""

from __future__ import annotations

import functools
import math
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np

from sklearn.utils.validation import check_is_fitted

from ._estimator import (COUNT, HARD_MARGIN_PRECOMPUTED_EXPECTED_FAILURES, KERNEL_CONSTRAINTS, N_DRAWS,
                         NON_NEGATIVE, NON_NEGATIVE_COUNT, RANDOM_STATE, SAMPLER_PRECOMPUTED_EXPECTED_FAILURES,
                         TARGET_ERROR, TRANSDUCTION_AUTO_EXPECTED_FAILURES, KernelClassifier)
from ._parameters import Interval, Options, checks_parameters
from ._validation import (as_bool, as_cross_kernel, as_generator, as_pm1_labels, as_positive_int, as_probabilities,
                          as_scalar, as_vector, check_work_budget)
from .billiard_reference import hoeffding_bounces as _hoeffding_bounces   # private: not an answer via billiard
from .diagnostics import summarise
from .stopping import as_n_draws, check_targets, reported, run_until_converged
from .hmc import hmc_run
from . import crossings as _crossings   # private: this module (notebook 09 imports it) leads to no crossing function
from .versionspace import kernel_span, random_tangent, version_space_start

__all__ = ["KernelBilliard", "BilliardRun", "billiard_run", "billiard_probabilities", "transductive_confidence",
           "BayesianTransduction"]


class KernelBilliard:
    """The ball, its flight and its bookkeeping (section 3.2 with the kit's incremental projections).

    The state is kept as two small blocks, each with a position row and a direction row:

        train = [[ alpha | y_i <w, phi(x_i)> ],        test = [[ <w, phi(x_j)> ],
                 [ beta  | y_i <v, phi(x_i)> ]]                [ <v, phi(x_j)> ]]

    with ||w|| = ||v|| = 1 and <w, v> = 0.  A flight is a plane rotation of the two rows of each block; a
    reflection at wall c changes beta_c and subtracts a multiple of row c of y * K from the training slopes and
    of column c of K_test from the test slopes.  Nothing recomputes K alpha.  The training block never sees the
    test points, so the trajectory is bit for bit the same whichever test points ride along.

    Test points are credited lazily: the label region of test point j only changes when the ball crosses its
    great sphere, which is seen as a sign change of <w, phi(x_j)> over a flight; only then is the exact
    crossing arc computed (from the closed form) and the time since its last crossing credited to V+ or V-.

    One implementation flies the ball: the compiled loop `_bounces` (numba), which makes the bounces, and the
    flight to the refresh clock when it rings first.  `step` calls it for one bounce (the notebook draws its
    trajectory step by step), `run` for many at a time; both draw the refreshes here, between calls, so the
    same seed gives the same trajectory whichever of the two flies it.  The paper's bounce as written, which
    recomputes the projections, is `kgslab.billiard_reference.billiard_bounce`, the tests' reference.

    Use `billiard_probabilities` for the answer; this class is for looking inside (the notebook draws its
    trajectory, the tests compare its incremental projections with recomputed ones).
    """

    renormalise_every = 16   # rotations and reflections keep norms exactly; this only mops up rounding

    def __init__(self, K, y, K_test=None, *, lam: float = 0.0, start=None, refresh_rate: float = 0.0,
                 random_state=None, span=None):
        self.lam = as_scalar(lam, "lam", low=0.0)
        # `span`: the eigendecomposition of K + lam I when the caller has it already (several trajectories)
        self._span = kernel_span(K, lam=self.lam) if span is None else span
        self.gram = self._span.gram
        l = self.gram.shape[0]
        self.y = as_pm1_labels(y, "y", length=l, length_of="K")
        K_test = np.zeros((0, l)) if K_test is None else as_cross_kernel(K_test, l, "K_test")
        self.n_train, self.n_test = l, K_test.shape[0]
        self.cross = np.ascontiguousarray(K_test)
        self._orthogonal = ~np.any(self.cross != 0, axis=1)
        self.diagonal = np.diag(self.gram).copy()
        # Row c: how a unit step along phi(x_c) changes the signed training projections / the test projections.
        self._train_rows = self.gram * self.y[None, :]
        self._test_rows = np.ascontiguousarray(self.cross.T)
        # <v, phi_c> = y_c * slope_c, so the reflection's step is (2 y_c / K_cc) slope_c
        self._reflection_factors = 2.0 * self.y / self.diagonal
        self.rng = as_generator(random_state)
        # a refresh costs O(l (l + m)); more than one per 1e-4 of arc length would be a run without end
        self.refresh_rate = as_scalar(refresh_rate, "refresh_rate", low=0.0, high=1e4)
        if start is None:
            start = self._span.version_space_start(self.y, self.lam)
        start = as_vector(start, "start", length=l, length_of="K")
        self._train = np.zeros((2, 2 * l))
        self._test = np.zeros((2, self.n_test))
        # Named views of the state; flights and reflections work in place, so the views stay valid.
        self._position, self._direction = self._train
        self._margins, self._slopes = self._train[:, l:]
        self._test_position, self._test_direction = self._test
        self._keys = np.empty(l)
        self._position[:l] = start
        self._margins[:] = self.y * (self.gram @ start)
        self._test_position[:] = self.cross @ start
        if np.min(self.margins) <= 0:
            raise ValueError("start must lie inside version space: every y_i <w, phi(x_i)> must be > 0, "
                             f"but the smallest is {np.min(self.margins):.3g}")
        self._renormalise_position()
        self.n_bounces = 0
        self.n_refreshes = 0
        self.arc_length = 0.0
        self.last_wall = -1
        self.reset_times()
        self._new_direction()
        self._clock = self.rng.exponential(1.0 / self.refresh_rate) if self.refresh_rate > 0 else math.inf

    # ---- named views of the state -----------------------------------------------------------------
    @property
    def alpha(self):
        """w = sum_i alpha_i phi(x_i)."""
        return self._position[:self.n_train]

    @property
    def beta(self):
        """v = sum_i beta_i phi(x_i)."""
        return self._direction[:self.n_train]

    @property
    def margins(self):
        """y_i <w, phi(x_i)> for every training point: all positive inside version space."""
        return self._margins

    @property
    def slopes(self):
        """y_i <v, phi(x_i)>: how fast each margin changes at the start of the flight."""
        return self._slopes

    @property
    def test_projections(self):
        """<w, phi(x_j)> for every test point."""
        return self._test_position

    @property
    def test_slopes(self):
        """<v, phi(x_j)> for every test point."""
        return self._test_direction

    # ---- keeping w and v an orthonormal pair (O(l + m): norms are read off the projections) ----------
    def _renormalise_position(self):
        norm = math.sqrt(self.alpha @ (self.y * self.margins))                 # ||w||^2 = alpha' K alpha
        self._position /= norm
        self._test_position /= norm

    def _renormalise_direction(self):
        """Make v a unit vector orthogonal to w; False when v is (numerically) parallel to w."""
        overlap = (self.beta * self.y) @ self.margins                          # <v, w> = beta' K alpha
        self._direction -= overlap * self._position
        self._test_direction -= overlap * self._test_position
        norm_squared = (self.beta * self.y) @ self.slopes                      # ||v||^2 = beta' K beta
        if norm_squared < 1e-24:
            return False
        norm = math.sqrt(norm_squared)
        self._direction /= norm
        self._test_direction /= norm
        return True

    def _new_direction(self):
        """A direction isotropic in the span of the training points, tangent to the sphere at w."""
        self._can_move = self._span.rank >= 2
        if not self._can_move:
            self._direction[:] = 0.0     # rank K = 1: version space is a single point; the ball stays put
            self._test_direction[:] = 0.0
            return
        # Isotropic in the span: a random tangent in the coordinates of the span, mapped back to beta.
        features = self._span.features
        position = features.T @ self.alpha                    # coordinates of w
        tangent = random_tangent(position / np.linalg.norm(position), self.rng)
        self.beta[:] = self._span.to_alpha @ tangent
        self._slopes[:] = self.y * (features @ tangent)
        self._test_direction[:] = self.cross @ self.beta
        if not self._renormalise_direction():
            raise RuntimeError("could not draw a direction tangent to the sphere")  # pragma: no cover

    # ---- one flight, one bounce ----------------------------------------------------------------------
    def wall_times(self):
        """Flight time (arc length) to every training wall (step 2), in [0, pi]."""
        times = _crossings.crossing_angle(np.maximum(self.margins, 0.0), self.slopes)   # the wall just hit (-1e-17) at 0
        if self.last_wall >= 0:
            times[self.last_wall] = math.pi             # just left it: its next crossing is half a circle away
        return times

    def _bounce(self, target: int):
        """One call of the compiled loop (`_bounces`): bounce until `target` bounces or until the refresh clock rings.

        When the clock rang, the loop has flown the ball to it and the new direction is drawn here (`_refresh`);
        when the renormalised direction came out parallel to w, a new one is drawn too.
        """
        status, self.n_bounces, self.last_wall, self.arc_length, self._clock = _compiled_bounces()(
            self._train, self._test, self._train_rows, self._test_rows, self._reflection_factors, self.y,
            self._plus_signed, self._positive, self._keys, target, self.n_bounces, self.last_wall, self.arc_length,
            self._clock, self.renormalise_every)
        if status == _CLOCK_RANG:
            self._refresh()
        elif status == _DIRECTION_LOST:                # v came out parallel to w: start afresh
            self._new_direction()

    def step(self):
        """Fly to the next event (a wall, or a refresh of the direction); return the arc flown."""
        if not self._can_move:                         # rank K = 1: no direction to move in
            self._fly_still(1.0)
            self.n_bounces += 1
            return 0.0
        arc_before = self.arc_length
        self._bounce(self.n_bounces + 1)
        return self.arc_length - arc_before

    def _refresh(self):
        """The Poisson clock rang before the next wall (the ball is there): a new direction and a new clock."""
        self._renormalise_position()
        self._new_direction()
        self.n_refreshes += 1
        self.last_wall = -1
        self._clock = self.rng.exponential(1.0 / self.refresh_rate)

    def _fly_still(self, weight):
        """The ball cannot move: let `weight` of 'time' pass where it is (credited lazily, like a flight)."""
        self.arc_length += weight

    def run(self, n_bounces: int, record: bool = False):
        """Bounce `n_bounces` times; with `record`, return (alphas, betas) at every event, one row each."""
        n_bounces = as_positive_int(n_bounces, "n_bounces", minimum=0)
        check_work_budget(n_bounces, MAX_BOUNCES, "n_bounces", n_bounces, "bounces")
        record = as_bool(record, "record")
        target = self.n_bounces + n_bounces
        if not record and self._can_move:
            self._run_compiled(target)
            return None
        alphas, betas = [self.alpha.copy()], [self.beta.copy()]
        while self.n_bounces < target:
            self.step()
            if record:
                alphas.append(self.alpha.copy())
                betas.append(self.beta.copy())
        if record:
            return np.array(alphas), np.array(betas)
        return None

    def _run_compiled(self, target: int):
        """Bounce until `target` bounces, by compiled calls of at most COMPILED_CHUNK bounces each.

        A compiled call cannot be interrupted (Ctrl-C, the checks' time limit wait for it to return), so a run of
        millions of bounces is made of calls short enough to stay interruptible.
        """
        while self.n_bounces < target:
            self._bounce(min(target, self.n_bounces + COMPILED_CHUNK))

    def warm_up(self, burn_in: int, refresh_every: float):
        """Bounce `burn_in` times uncounted, then set the refresh clock and start counting afresh.

        The clock's rate (per unit arc length) is 1 / (refresh_every * mean flight of the burn-in), so a
        refresh comes on average every `refresh_every` bounces.  burn_in = 0 keeps the current rate.
        """
        burn_in = as_positive_int(burn_in, "burn_in", minimum=0)
        refresh_every = as_scalar(refresh_every, "refresh_every", low=0.0, low_open=True)
        if burn_in > 0:
            arc_before = self.arc_length
            self.run(burn_in)
            mean_flight = (self.arc_length - arc_before) / burn_in
            if mean_flight > 0:
                self.refresh_rate = 1.0 / (refresh_every * mean_flight)
                self._clock = self.rng.exponential(1.0 / self.refresh_rate)
        self.reset_times()

    def reset_times(self):
        """Start counting flight afresh (after the burn-in)."""
        self._positive = self.test_projections > 0
        self._plus_signed = np.where(self._positive, -self.arc_length, 0.0)   # + intervals open now
        self._counted_from = self.arc_length

    @property
    def time_plus(self) -> np.ndarray:
        """Flight length spent where each test point is labelled +1 (V+), since `reset_times`."""
        return self._plus_signed + np.where(self._positive, self.arc_length, 0.0)

    @property
    def counted_arc(self) -> float:
        """Flight length counted since `reset_times` (V+ + V- of every test point; the burn-in not included)."""
        return self.arc_length - self._counted_from

    @property
    def p_plus(self) -> np.ndarray:
        """V+ / (V+ + V-) for every test point: flight on the + side over all flight since `reset_times`."""
        total = self.counted_arc
        p_plus = self.time_plus / total if total > 0 else np.where(self._positive, 1.0, 0.0)
        # a test point with k(x, x_i) = 0 for every training point is orthogonal to all of version space:
        # no perceptron in the span labels it, so both labels are equally probable
        return np.where(self._orthogonal, 0.5, p_plus)


MAX_BOUNCES = 10_000_000   # per trajectory: beyond this a run takes hours; refuse rather than hang

_TARGET_REACHED, _CLOCK_RANG, _DIRECTION_LOST = 0, 1, 2   # why `_bounces` returned
#: bounces of one compiled call at most: a few hundredths of a second on a heart split, a few tenths with 2,000 walls
#: and 5,000 test points, so that Ctrl-C and the checks' time limit (signals, handled between calls) stop a long run
#: within a fraction of a second
COMPILED_CHUNK = 30_000
#: test points rotated, then looked through for label flips, in one slice of `_bounces` (see there)
TEST_SLICE = 128


def _bounces(train, test, train_rows, test_rows, reflection_factors, y, plus_signed, positive, keys, target,
             n_bounces, last_wall, arc_length, clock, renormalise_every):
    """The billiard's bounces (section 3.2, steps 2 and 3, with the kit's incremental projections), for numba.

    Bounces in place until `target` bounces, or until the refresh clock rings before the next wall (it flies to
    the clock and returns: the caller draws a new direction, `KernelBilliard._refresh`), or until the
    renormalised direction came out parallel to the position (the caller draws a new one).  Returns (why it
    stopped, n_bounces, last_wall, arc_length, clock).  `keys` is scratch space for l numbers.

    Every loop runs along one row and does one thing, so that the compiler turns it into vector code: a loop
    that rotates the test projections and also credits the rare one whose label flipped (an arctan behind a
    branch) is compiled to scalar code that evaluates the branch for every point (benchmarks/measured.md).
    """
    l = train.shape[1] // 2
    m = test.shape[1]
    two_pi = 2.0 * math.pi
    position, direction = train[0], train[1]
    margins, slopes = train[0, l:], train[1, l:]
    test_position, test_direction = test[0], test[1]
    while n_bounces < target:
        # step 2: the nearest wall, the smallest b_j / a_j (a margin floored at 1e-300), the wall just left skipped;
        # t_j grows with b_j / a_j, so one arctan serves
        for i in range(l):
            keys[i] = slopes[i] / max(margins[i], 1e-300)
        if last_wall >= 0:
            keys[last_wall] = math.inf
        wall = 0
        smallest = keys[0]
        for i in range(1, l):
            if keys[i] < smallest:
                smallest = keys[i]
                wall = i
        arc = math.atan2(max(margins[wall], 0.0), -slopes[wall])      # crossing_angle: in [0, pi] here
        if arc < 0:
            arc += two_pi
        rang = clock < arc                             # the refresh clock rings first: fly to it, not to the wall
        if rang:
            arc = clock
        if arc > 0:                                    # the flight: a rotation of each block's two rows by arc
            cos_arc, sin_arc = math.cos(arc), math.sin(arc)
            for a in range(2 * l):
                w_a, v_a = position[a], direction[a]
                position[a] = cos_arc * w_a + sin_arc * v_a
                direction[a] = cos_arc * v_a - sin_arc * w_a
            # the test block in slices of TEST_SLICE points: each rotated and counted for label flips in one loop,
            # and looked through only if one flipped; a flipped point's flight on its old side is credited up to
            # the crossing, found looking back from the end, where going back by tau its projection is
            # a cos tau - b sin tau
            end = arc_length + arc
            for first in range(0, m, TEST_SLICE):
                w_slice = test_position[first:first + TEST_SLICE]
                v_slice = test_direction[first:first + TEST_SLICE]
                positive_slice = positive[first:first + TEST_SLICE]
                flipped = 0
                for j in range(w_slice.shape[0]):
                    w_j, v_j = w_slice[j], v_slice[j]
                    a_j = cos_arc * w_j + sin_arc * v_j
                    w_slice[j] = a_j
                    v_slice[j] = cos_arc * v_j - sin_arc * w_j
                    flipped += (a_j > 0) != positive_slice[j]
                if flipped:
                    for j in range(w_slice.shape[0]):
                        if (w_slice[j] > 0) != positive_slice[j]:
                            side = 1.0 if w_slice[j] > 0 else -1.0
                            back = math.atan2(side * w_slice[j], side * v_slice[j])
                            if back < 0:
                                back += two_pi
                            plus_signed[first + j] -= side * (end - min(back, arc))
                            positive_slice[j] = side > 0
            arc_length = end
        clock -= arc
        if rang:
            return _CLOCK_RANG, n_bounces, last_wall, arc_length, clock
        step = reflection_factors[wall] * slopes[wall]  # step 3: v' = v - 2 <v, phi_c> phi_c / K_cc
        direction[wall] -= step
        row = train_rows[wall]
        for i in range(l):
            slopes[i] -= step * row[i]
        row = test_rows[wall]
        for j in range(m):
            test_direction[j] -= step * row[j]
        last_wall = wall
        n_bounces += 1
        if n_bounces % renormalise_every == 0:         # rotations and reflections keep norms; this mops up rounding
            norm = 0.0                                 # ||w||^2 = alpha' K alpha, read off the margins
            for i in range(l):
                norm += position[i] * y[i] * margins[i]
            norm = math.sqrt(norm)
            for a in range(2 * l):
                position[a] /= norm
            for j in range(m):
                test_position[j] /= norm
            overlap = 0.0                              # <v, w>, then v made orthogonal to w and unit
            for i in range(l):
                overlap += direction[i] * y[i] * margins[i]
            for a in range(2 * l):
                direction[a] -= overlap * position[a]
            for j in range(m):
                test_direction[j] -= overlap * test_position[j]
            norm = 0.0
            for i in range(l):
                norm += direction[i] * y[i] * slopes[i]
            if norm < 1e-24:
                return _DIRECTION_LOST, n_bounces, last_wall, arc_length, clock
            norm = math.sqrt(norm)
            for a in range(2 * l):
                direction[a] /= norm
            for j in range(m):
                test_direction[j] /= norm
    return _TARGET_REACHED, n_bounces, last_wall, arc_length, clock


@functools.cache
def _compiled_bounces():
    """`_bounces` compiled by numba (imported here, not with the module: as `kgslab.hmc._compiled_flight`).

    cache=True keeps the machine code on disk after the first call.  error_model="numpy": no division raises
    (none divides by zero: margins are floored at 1e-300, and a norm is checked before it divides).
    """
    import numba

    return numba.njit(cache=True, error_model="numpy")(_bounces)


class BilliardRun(NamedTuple):
    """p+ of every test point from several trajectories, with its convergence diagnostics (per test point)."""

    p_plus: np.ndarray      # pooled over the trajectories: flight on the + side / all flight
    rhat: np.ndarray        # split, rank-normalised R-hat of the batch fractions
    ess: np.ndarray         # effective number of batches
    mc_error: np.ndarray    # Monte Carlo standard error of p+
    n_bounces: int          # bounces per trajectory (after the burn-in)
    converged: bool


def _batches(balls, n_batches, batch, record):
    """Run every ball `n_batches` batches of `batch` bounces; append each batch's fraction of flight on + to record."""
    for chain, ball in enumerate(balls):
        for _ in range(n_batches):
            plus_before, arc_before = ball.time_plus, ball.arc_length
            ball.run(batch)
            arc = ball.arc_length - arc_before
            record[chain].append((ball.time_plus - plus_before) / arc if arc > 0 else ball.p_plus)


def billiard_run(K, y, K_test, n_bounces="auto", *, n_chains: int = 4, lam: float = 0.0, epsilon=None,
                 eta: float = 0.01, burn_in: int = 100, refresh_every=None, target_error: float = 0.01,
                 target_rhat: float = 1.01, max_bounces: int = 1_000_000, random_state=None,
                 start=None) -> BilliardRun:
    """p+ for every test point from `n_chains` independent trajectories, with R-hat, ESS and MC error.

    Each trajectory starts at the maximum-margin point (or `start`), bounces `burn_in` times uncounted (which
    also sets its refresh clock), then flies in batches of bounces; the flight fraction on the + side of each
    batch is one draw for the diagnostics (`kgslab.diagnostics`).  n_bounces per trajectory: an integer, or
    "auto" (run until every p+ has MC error < target_error and R-hat < target_rhat, at most max_bounces per
    trajectory, with a ConvergenceWarning at the cap), or Hoeffding's n of eq. (8) when `epsilon` is given.

    How long "auto" runs is set by the uncertain test points: where p+ is near 1/2 a batch fraction has a
    spread of about 0.45, so MC error 0.01 needs about 2,000 effective draws, times the bounces it takes the
    trajectories to decorrelate (`benchmarks/agreement.py` measures both on the papers' data sets).  R-hat is
    waited for only where p+ is more than 2 target_error from 0 and 1: nearer, the label and c_trans are
    settled to the target, and the rank R-hat of a batch fraction that is 1 (or 0) in almost every batch is
    carried by the few batches that are not, so it can stay above target_rhat long after the MC error is met.
    """
    if K_test is None:   # KernelBilliard allows none (a trajectory to look at); here p+ is the answer
        raise TypeError("K_test must be the (m, l) cross-kernel of the test points, got None")
    lam = as_scalar(lam, "lam", low=0.0)
    n_chains = as_positive_int(n_chains, "n_chains")
    burn_in = as_positive_int(burn_in, "burn_in", minimum=0)
    eta = as_scalar(eta, "eta", low=0.0, high=1.0, low_open=True, high_open=True)   # also without epsilon
    target_error, target_rhat, max_bounces = check_targets(target_error, target_rhat, max_bounces, "max_bounces")
    if epsilon is not None:
        n_bounces = _hoeffding_bounces(epsilon, eta)
    n_bounces = as_n_draws(n_bounces, "n_bounces")
    auto = n_bounces == "auto"
    limit = max_bounces if auto else n_bounces
    if limit > MAX_BOUNCES:
        raise ValueError(f"{'max_bounces' if auto else 'n_bounces'} must be at most {MAX_BOUNCES} per trajectory "
                         f"(got {limit}{'' if epsilon is None else f' from epsilon = {epsilon}'}): a run that long "
                         "takes hours")
    span = kernel_span(K, lam=lam)
    rng = as_generator(random_state)
    balls = [KernelBilliard(K, y, K_test, lam=lam, start=start, random_state=child, span=span)
             for child in rng.spawn(n_chains)]
    if refresh_every is None:
        refresh_every = max(10, span.gram.shape[0])
    refresh_every = as_scalar(refresh_every, "refresh_every", low=1.0)
    for ball in balls:
        ball.warm_up(burn_in, refresh_every)
    record = [[] for _ in balls]

    def draws():
        return np.array(record).reshape(n_chains, -1, len(balls[0].p_plus))   # (chains, batches, n_test)

    if auto:
        batch = 100

        def extend(n):
            _batches(balls, n, batch, record)
            return draws()

        result = run_until_converged(extend, first=20, max_draws=max(20, max_bounces // batch),
                                     target_error=target_error, target_rhat=target_rhat,
                                     what="the billiard (n_bounces='auto')", settled=2 * target_error)
        n_done = result.n_draws * batch
    else:
        n_batches = min(n_bounces, max(4, min(100, n_bounces // 20)))
        _batches(balls, n_batches - 1, n_bounces // n_batches, record)
        _batches(balls, 1, n_bounces - (n_batches - 1) * (n_bounces // n_batches), record)
        result = summarise(draws(), target_error, target_rhat, 2 * target_error) if n_batches >= 4 else None
        n_done = n_bounces
    time_plus = np.sum([ball.time_plus for ball in balls], axis=0)
    total = sum(ball.counted_arc for ball in balls)
    p_plus = time_plus / total if total > 0 else np.mean([ball.p_plus for ball in balls], axis=0)
    p_plus = np.where(balls[0]._orthogonal, 0.5, p_plus)
    return BilliardRun(p_plus=p_plus, n_bounces=n_done, **reported(result, len(p_plus)))


def billiard_probabilities(K, y, K_test, n_bounces="auto", *, n_chains: int = 4, lam: float = 0.0, epsilon=None,
                           eta: float = 0.01, burn_in: int = 100, refresh_every=None, random_state=None,
                           start=None, **targets) -> np.ndarray:
    """p+ for every test point: the fraction of flight length spent where sign <w, phi(x_test)> = +1.

    K (l, l) is the training kernel, y the labels (+-1 or 0/1), K_test (m, l) the cross-kernel.  Every
    trajectory serves every test point; `n_chains` independent trajectories are pooled (see `billiard_run`
    for the diagnostics and for n_bounces = "auto", the default).  With `epsilon` given, the number of
    bounces per trajectory comes from Hoeffding's rule (eq. 8) with confidence 1 - eta.

    lam > 0 is the soft version (K + lam I).  The direction is refreshed on a Poisson clock in arc length
    whose rate gives on average one refresh per `refresh_every` bounces (default max(10, l), which keeps
    the amortised cost of a bounce at O(l + m)); the rate is set from the mean flight length of the
    `burn_in` bounces, which are not counted.  With burn_in = 0 there is no refresh.
    """
    return billiard_run(K, y, K_test, n_bounces, n_chains=n_chains, lam=lam, epsilon=epsilon, eta=eta,
                        burn_in=burn_in, refresh_every=refresh_every, random_state=random_state, start=start,
                        **targets).p_plus


def transductive_confidence(p_plus) -> np.ndarray:
    """c_trans = 2 max(p+, p-) - 1 (eq. 7)."""
    p_plus = as_probabilities(p_plus, "p_plus")
    return 2.0 * np.maximum(p_plus, 1.0 - p_plus) - 1.0


class BayesianTransduction(KernelClassifier):
    """Bayesian transduction: labels by argmax p^y (eq. 6), confidence by eq. (7), volumes by a sampler.

    `fit` checks that version space exists and finds the starting point; each call of `predict`,
    `predict_proba` or `confidence` runs the sampler for all the points it is given.  `sampler`:

    * "billiard": the paper's kernel billiard, `n_chains` trajectories (default 4) of `n_bounces` bounces, or
      n_bounces "auto": until every p+ has MC error < target_error and R-hat < 1.01 (at most max_bounces).
    * "hmc": exact Hamiltonian Monte Carlo on the Gaussian truncated to version space (`kgslab.hmc`, the same
      posterior), `n_chains` chains (default 8) run to the same rule; n_bounces must be "auto".
    * "auto" (default): "hmc" when n_bounces is "auto" (it reaches the converged answer of a heart split in less
      CPU time than the billiard, with more effective samples per second: benchmarks/agreement.py,
      benchmarks/sampler_ess.py), the billiard when a number of bounces is asked for.

    burn_in, refresh_every and max_bounces are the billiard's.  The samplers depend only on the training data
    and the seed drawn at fit time, never on the test points; with a fixed n_bounces a point gets the same p+
    whichever batch it comes in, with "auto" the same up to its MC error.
    Predicting changes no attribute (so two threads may predict with one fitted model); `sampler_run(X)` returns
    the run behind the p+ of the rows of X with its diagnostics (R-hat, ESS, MC error, run length, converged).
    """

    _parameter_constraints = {**KERNEL_CONSTRAINTS, "n_bounces": N_DRAWS, "lam": [NON_NEGATIVE],
                              "burn_in": [NON_NEGATIVE_COUNT],
                              "refresh_every": [Interval(Real, 1, None, closed="left"), None], "n_chains": [COUNT, None],
                              "sampler": [Options({"auto", "billiard", "hmc"})], "target_error": [TARGET_ERROR],
                              "max_bounces": [Interval(Integral, 8, MAX_BOUNCES, closed="both")],
                              "random_state": RANDOM_STATE}
    _precomputed_expected_failures = SAMPLER_PRECOMPUTED_EXPECTED_FAILURES
    _hard_margin_expected_failures = HARD_MARGIN_PRECOMPUTED_EXPECTED_FAILURES
    _auto_expected_failures = TRANSDUCTION_AUTO_EXPECTED_FAILURES

    def __init__(self, n_bounces="auto", lam=0.0, kernel="precomputed", L=1.0, burn_in=100,
                 refresh_every=None, n_chains=None, target_error=0.01, max_bounces=1_000_000, random_state=None,
                 sampler="auto"):
        self.n_bounces = n_bounces
        self.lam = lam
        self.kernel = kernel
        self.L = L
        self.burn_in = burn_in
        self.refresh_every = refresh_every
        self.n_chains = n_chains
        self.target_error = target_error
        self.max_bounces = max_bounces
        self.random_state = random_state
        self.sampler = sampler

    @checks_parameters
    def fit(self, X, y):
        # each parameter is checked against _parameter_constraints; what is left is how two of them combine
        if self.sampler == "hmc" and not (isinstance(self.n_bounces, str) and self.n_bounces == "auto"):
            raise ValueError(f"n_bounces must be 'auto' with sampler='hmc' (exact HMC runs to its convergence "
                             f"rule; a number of bounces is the billiard's), got {self.n_bounces!r}")
        gram, y_pm1 = self._fit_inputs(X, y, psd=False)
        self.gram_, self.y_ = gram, y_pm1
        self.start_ = version_space_start(gram, y_pm1, lam=float(self.lam))
        self.seed_ = int(as_generator(self.random_state).integers(2**31 - 1))
        return self

    def _sampler(self):
        """"billiard" or "hmc": the one `sampler` names, or for "auto" the faster one for this run length."""
        if self.sampler != "auto":
            return self.sampler
        return "hmc" if isinstance(self.n_bounces, str) and self.n_bounces == "auto" else "billiard"

    def _run(self, K_test):
        if self._sampler() == "hmc":
            return hmc_run(self.gram_, self.y_, K_test, "auto", n_chains=self.n_chains or 8, lam=self.lam,
                           target_error=self.target_error, random_state=self.seed_, start=self.start_)
        return billiard_run(self.gram_, self.y_, K_test, self.n_bounces, n_chains=self.n_chains or 4,
                            lam=self.lam, burn_in=self.burn_in, refresh_every=self.refresh_every,
                            target_error=self.target_error, max_bounces=self.max_bounces,
                            random_state=self.seed_, start=self.start_)

    def _p_plus(self, K_test):
        return self._run(K_test).p_plus

    def sampler_run(self, X):
        """The sampler's run for the rows of X: p+ with its R-hat, ESS and MC error per row, the run length and
        whether it converged (a `BilliardRun`, or a `kgslab.hmc.HMCRun` for the HMC sampler).

        The run `predict`, `predict_proba` and `confidence` make for the same X (the same seed, the same p+).
        """
        check_is_fitted(self, "seed_")
        return self._run(self._cross_kernel(X))

    def _decision_gram(self, K_test):
        # p+ - 1/2: positive exactly when classes_[1] is the more probable label.
        return self._p_plus(K_test) - 0.5

    def predict_proba(self, X):
        """Columns (p-, p+): the estimated volume ratios for classes_[0] and classes_[1]."""
        p_plus = self._p_plus(self._cross_kernel(X))
        return np.column_stack([1.0 - p_plus, p_plus])

    def confidence(self, X):
        """c_trans = 2 max(p+, p-) - 1 (eq. 7) for every row of X."""
        return transductive_confidence(self._p_plus(self._cross_kernel(X)))

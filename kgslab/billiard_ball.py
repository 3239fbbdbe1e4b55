"""The ball of the kernel billiard (seed 002, Graepel, Herbrich and Obermayer, NIPS 1999, section 3.2).

`KernelBilliard` flies one ball through version space with the kit's incremental projections; `flight_times`,
`next_wall` and `billiard_bounce` are the paper's step 2 and step 3 as written, recomputing every projection
(notebook 09's exercise references, and the tests' reference for the ball).  `kgslab.billiard` runs several
balls into p+ and Bayesian transduction.

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

The paper's step as written:

* Step 2, the flight time to every wall.  On the great circle w(t) = cos t w + sin t v (||w|| = ||v|| = 1,
  <w, v> = 0) the margin of training point j is a_j cos t + b_j sin t (a_j = y_j <w, phi(x_j)>,
  b_j = y_j <v, phi(x_j)>), first zero at t_j = atan2(a_j, -b_j) in [0, pi]; the paper's
  tau_j = -<w, phi_j> / <v, phi_j> is tan t_j on the straight line w + tau v.
* Step 3, one bounce: fly to the nearest wall c and reflect, v' = v - 2 <v, phi_c> phi_c / ||phi_c||^2,
  recomputing every projection from alpha and beta (O(l^2) a bounce, where the kit's ball needs O(l + m)).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ._validation import (as_bool, as_cross_kernel, as_generator, as_gram, as_pm1_labels, as_positive_int, as_scalar,
                          as_vector, check_work_budget)
from .crossings import crossing_angle
from .versionspace import kernel_span, random_tangent

__all__ = ["KernelBilliard", "flight_times", "next_wall", "billiard_bounce"]


class KernelBilliard:
    """The ball, its flight and its bookkeeping (section 3.2 with the kit's incremental projections).

    The state is kept as two small blocks, each with a position row and a direction row:

        train = [[ alpha | y_i <w, phi(x_i)> ],        test = [[ <w, phi(x_j)> ],
                 [ beta  | y_i <v, phi(x_i)> ]]                [ <v, phi(x_j)> ]]

    with ||w|| = ||v|| = 1 and <w, v> = 0.  A flight is a plane rotation of the two rows of each block; a
    reflection (step 3) updates the direction row of both blocks in O(l + m), from the wall's own row of the
    kernel matrices.  Nothing recomputes K alpha.  The training block never sees the
    test points, so the trajectory is bit for bit the same whichever test points ride along.

    Test points are credited lazily: the label region of test point j only changes when the ball crosses its
    great sphere, which is seen as a sign change of <w, phi(x_j)> over a flight; only then is the exact
    crossing arc computed (from the closed form) and the time since its last crossing credited to V+ or V-.

    One implementation flies the ball: the compiled loop `_bounces` (numba), which makes the bounces, and the
    flight to the refresh clock when it rings first.  `step` calls it for one bounce (the notebook draws its
    trajectory step by step), `run` for many at a time; both draw the refreshes here, between calls, so the
    same seed gives the same trajectory whichever of the two flies it.  The paper's bounce as written, which
    recomputes the projections, is `billiard_bounce`, the tests' reference.

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
        times = crossing_angle(np.maximum(self.margins, 0.0), self.slopes)   # the wall just hit (-1e-17) at 0
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


def flight_times(margins, slopes):
    """Flight time (arc length on the sphere) from w along direction v to every wall (step 2).

    margins = y_j <w, phi(x_j)> >= 0 and slopes = y_j <v, phi(x_j)>, with ||w|| = ||v|| = 1, <w, v> = 0.  On
    the great circle w(t) = cos t w + sin t v the margin is margins cos t + slopes sin t, whose first zero is

        t_j = atan2(margins_j, -slopes_j)  in [0, pi]

    (below pi/2 when the ball moves towards the wall, above when it moves away).  The paper's
    tau_j = -<w, phi_j> / <v, phi_j> is tan t_j for the straight line w + tau v.
    """
    margins = as_vector(margins, "margins")
    slopes = as_vector(slopes, "slopes", length=margins.shape[0], length_of="margins")
    return crossing_angle(np.maximum(margins, 0.0), slopes)


def next_wall(alpha, beta, K, y, last_wall=-1):
    """The wall the ball hits next and the arc to it (step 2): returns (wall, arc).

    The margins y_j <w, phi(x_j)> and slopes y_j <v, phi(x_j)> come from K @ alpha and K @ beta; the wall is the
    one with the smallest flight time (`flight_times`), never `last_wall`, the wall the ball has just left
    (-1: none).
    """
    K = as_gram(K, "K", psd=False)
    y = as_pm1_labels(y, "y", length=K.shape[0], length_of="K")
    alpha = as_vector(alpha, "alpha", length=K.shape[0], length_of="K")
    beta = as_vector(beta, "beta", length=K.shape[0], length_of="K")
    last_wall = as_positive_int(last_wall, "last_wall", minimum=-1)
    if last_wall >= K.shape[0] or np.any(np.diag(K) <= 0):
        raise ValueError(f"last_wall must be -1 or a training point's index below {K.shape[0]}, got {last_wall}"
                         if last_wall >= K.shape[0] else "K must have a positive diagonal: a wall needs phi(x_c) != 0")
    times = flight_times(y * (K @ alpha), y * (K @ beta))
    if last_wall >= 0:
        times[last_wall] = np.inf
    wall = int(np.argmin(times))
    return wall, float(times[wall])


def billiard_bounce(alpha, beta, K, y, last_wall=-1):
    """One bounce the paper's way, recomputing every projection: O(l^2).  Returns (alpha', beta', wall, arc).

    alpha and beta are the unit-norm, orthogonal position and direction; the ball flies to the nearest wall
    (skipping `last_wall`, the one it has just left), moves there on the great circle and reflects:
    v' = v - 2 <v, phi_c> phi_c / K_cc (step 3).  Both are returned at unit norm in feature space (w'Kw = 1): a
    rotation and a reflection keep the norm exactly, so this only removes the drift rounding leaves over many
    bounces.  The kit's `KernelBilliard` does the same in O(l + m).
    """
    K = as_gram(K, "K", psd=False)
    y = as_pm1_labels(y, "y", length=K.shape[0], length_of="K")
    alpha = as_vector(alpha, "alpha", length=K.shape[0], length_of="K")
    beta = as_vector(beta, "beta", length=K.shape[0], length_of="K")
    last_wall = as_positive_int(last_wall, "last_wall", minimum=-1)
    if last_wall >= K.shape[0] or np.any(np.diag(K) <= 0):
        raise ValueError(f"last_wall must be -1 or a training point's index below {K.shape[0]}, got {last_wall}"
                         if last_wall >= K.shape[0] else "K must have a positive diagonal: a wall needs phi(x_c) != 0")
    wall, arc = next_wall(alpha, beta, K, y, last_wall)
    new_alpha = np.cos(arc) * alpha + np.sin(arc) * beta
    new_beta = -np.sin(arc) * alpha + np.cos(arc) * beta
    new_beta[wall] -= 2.0 * (K[wall] @ new_beta) / K[wall, wall]
    return new_alpha / np.sqrt(new_alpha @ K @ new_alpha), new_beta / np.sqrt(new_beta @ K @ new_beta), wall, arc

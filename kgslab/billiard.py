"""The kernel billiard and Bayesian transduction (seed 002, Graepel, Herbrich and Obermayer, NIPS 1999).

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
flight length spent in V+ converges to p+.  The state is the position w and the direction v, both linear
combinations of the training points (the vectors `alpha` and `beta`).  The kit flies the ball along the
exact great circle w(t) = cos(t) w + sin(t) v (v a unit tangent, <w, v> = 0), which is the path the paper's
w' = (w + tau v) / ||w + tau v|| traces, with the arc length t as the flight time:

* the projection on any point x_j along the flight is  a_j cos t + b_j sin t,  a_j = <w, phi(x_j)>,
  b_j = <v, phi(x_j)>, so the flight time to wall j (step 2's tau_j) is the closed form
  t_j = atan2(y_j a_j, -y_j b_j) in [0, pi];
* the ball moves to the nearest wall c (step 3) and reflects,  v' = v - 2 <v, phi_c> phi_c / ||phi_c||^2;
* a test point is not a wall: the ball flies on and only the label region changes; the flight is split at
  the test point's own flight time and each part is added to V+ or V- of that test point.  So one trajectory
  serves every test point (the paper's "one trajectory can be calculated in advance").

Every <w, phi(x_j)> and <v, phi(x_j)>, for training and test points, is kept up to date incrementally: a flight
is a rotation in the (w, v) plane, so (a, b) <- (cos t a + sin t b, -sin t a + cos t b); a reflection at c
subtracts a multiple of column c of the kernel.  A bounce costs O(l + m) instead of the O(l (l + m)) of
recomputing K alpha, and the paper's total O(n l (l + m)) becomes O(n (l + m)) plus the set-up (one
eigendecomposition of K and the hard-margin start).  A direction refresh (below) costs O(l (l + m)) but comes
on average only once per max(50, l) bounces, so the amortised cost of a bounce stays O(l + m).

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

Stopping rule (eq. 8, Hoeffding): P(mean of n fractions - p+ >= epsilon) <= exp(-2 n epsilon^2) = eta, so
n = ln(1/eta) / (2 epsilon^2) bounces; epsilon = 0.05 and eta = 0.01 give n = 922, the paper's "about 1000".

Soft version (section 5): with lam > 0 the training kernel is K + lam I, i.e. each training point gets a
private extra feature sqrt(lam) e_i, which lets the ball through walls of points that cannot be separated.
Test points have no private feature, so the cross-kernel is used as given.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg.blas import daxpy, drot
from scipy.optimize import nnls
from threadpoolctl import threadpool_limits

from ._estimator import KernelClassifier
from ._validation import (as_cross_kernel, as_generator, as_gram, as_pm1_labels, as_positive_int,
                          as_scalar, as_vector)

__all__ = ["hoeffding_bounces", "hoeffding_epsilon", "version_space_start", "flight_times", "billiard_bounce",
           "KernelBilliard", "billiard_probabilities", "transductive_confidence", "BayesianTransduction",
           "spherical_polygon_area", "volume_ratio_on_sphere", "error_rejection_curve", "compare_with_svm",
           "match_theta_max", "figure2_curves"]

# Eigen-directions of K below this fraction of the largest eigenvalue are treated as numerical noise:
# a random direction along them would carry huge coefficients and only rounding error.
SPAN_RTOL = 1e-10


def hoeffding_bounces(epsilon: float = 0.05, eta: float = 0.01) -> int:
    """Bounces n for which eq. (8) guarantees P(|estimate - p+| >= epsilon) <= eta: n = ln(1/eta) / (2 eps^2).

    >>> hoeffding_bounces(0.05, 0.01)   # the paper's "n of about 1000"
    922
    """
    epsilon = as_scalar(epsilon, "epsilon", low=0.0, high=1.0, low_open=True)
    eta = as_scalar(eta, "eta", low=0.0, high=1.0, low_open=True, high_open=True)
    return int(math.ceil(math.log(1.0 / eta) / (2.0 * epsilon ** 2)))


def hoeffding_epsilon(n_bounces, eta: float = 0.01):
    """The deviation eq. (8) allows after n bounces: epsilon = sqrt(ln(1/eta) / (2 n)) (array-friendly)."""
    eta = as_scalar(eta, "eta", low=0.0, high=1.0, low_open=True, high_open=True)
    return np.sqrt(np.log(1.0 / eta) / (2.0 * np.asarray(n_bounces, dtype=float)))


def _check_gram_and_span(K, lam):
    """Return (training Gram K + lam I, eigenvalues kept, eigenvectors kept) after the PSD check."""
    gram = as_gram(K, "K", psd=False)
    gram = gram + lam * np.eye(gram.shape[0]) if lam > 0 else gram.copy()
    eigenvalues, eigenvectors = np.linalg.eigh((gram + gram.T) / 2)
    scale = max(float(np.max(np.abs(gram))), 1e-300)
    if eigenvalues[0] < -1e-8 * scale * gram.shape[0]:
        raise ValueError(
            f"K must be positive semi-definite, but its smallest eigenvalue is {eigenvalues[0]:.3g}"
            + (f" (after adding lam = {lam:g})" if lam > 0 else ""))
    keep = eigenvalues > SPAN_RTOL * max(eigenvalues[-1], 1e-300)
    return gram, eigenvalues[keep], eigenvectors[:, keep]


def flight_times(margins, slopes):
    """Flight time (arc length on the sphere) from w along direction v to every wall (step 2).

    margins = y_j <w, phi(x_j)> >= 0 and slopes = y_j <v, phi(x_j)>, with ||w|| = ||v|| = 1, <w, v> = 0.  On
    the great circle w(t) = cos t w + sin t v the margin is margins cos t + slopes sin t, whose first zero is

        t_j = atan2(margins_j, -slopes_j)  in [0, pi]

    (below pi/2 when the ball moves towards the wall, above when it moves away).  The paper's
    tau_j = -<w, phi_j> / <v, phi_j> is tan t_j for the straight line w + tau v.
    """
    margins = np.asarray(margins, dtype=float)
    return np.arctan2(np.maximum(margins, 0.0), -np.asarray(slopes, dtype=float))


def billiard_bounce(alpha, beta, K, y, last_wall=-1):
    """One bounce the paper's way, recomputing every projection: O(l^2).  Returns (alpha', beta', wall, arc).

    alpha and beta are the unit-norm, orthogonal position and direction; the ball flies to the nearest wall
    (skipping `last_wall`, the one it has just left), moves there on the great circle and reflects:
    v' = v - 2 <v, phi_c> phi_c / K_cc (step 3).  The kit's `KernelBilliard` does the same in O(l + m).
    """
    K = np.asarray(K, dtype=float)
    y = np.asarray(y, dtype=float)
    margins, slopes = y * (K @ alpha), y * (K @ beta)
    times = flight_times(margins, slopes)
    if last_wall >= 0:
        times[last_wall] = np.inf
    wall = int(np.argmin(times))
    arc = float(times[wall])
    new_alpha = np.cos(arc) * alpha + np.sin(arc) * beta
    new_beta = -np.sin(arc) * alpha + np.cos(arc) * beta
    new_beta[wall] -= 2.0 * (K[wall] @ new_beta) / K[wall, wall]
    return new_alpha, new_beta, wall, arc


def version_space_start(K, y, *, lam: float = 0.0) -> np.ndarray:
    """A point inside version space: the hard-margin perceptron without bias, returned as unit-norm alpha.

    In the orthonormal coordinates c of the span of the training points (K = U S U', phi_i has coordinates
    row i of Z = U sqrt(S)), the hard-margin problem is

        min ||c||^2   subject to   y_i (Z c)_i >= 1  for every i,

    a least-distance programme.  Lawson and Hanson's reduction solves it by one non-negative least-squares
    problem, min_u ||E u - f|| with u >= 0, E = [ (y * Z)' ; 1' ], f = (0, ..., 0, 1): the constraints are
    infeasible (no version space) exactly when the residual r = E u - f is zero; otherwise c = -r[:-1] / r[-1].
    Then alpha = U (c / sqrt(s)), and y_i (K alpha)_i >= 1.  No version space raises a ValueError that
    suggests the soft version lam > 0.
    """
    lam = as_scalar(lam, "lam", low=0.0)
    gram, span_values, span_vectors = _check_gram_and_span(K, lam)
    y = as_pm1_labels(y, "y", length=gram.shape[0])
    return _start_in_span(gram, y, span_values, span_vectors, lam)


def _start_in_span(gram, y, span_values, span_vectors, lam):
    coordinates = span_vectors * np.sqrt(span_values)              # Z: row i holds phi(x_i)
    system = np.vstack([(y[:, None] * coordinates).T, np.ones(len(y))])
    target = np.zeros(system.shape[0])
    target[-1] = 1.0
    weights, _ = nnls(system, target, maxiter=50 * system.shape[1])
    residual = system @ weights - target
    if np.linalg.norm(residual) > 1e-9 and residual[-1] < 0:
        c = -residual[:-1] / residual[-1]
        alpha = span_vectors @ (c / np.sqrt(span_values))
        if np.min(y * (gram @ alpha)) > 0:
            return alpha / math.sqrt(alpha @ gram @ alpha)
    hint = "increase lam" if lam > 0 else "use the soft version lam > 0 (K + lam I)"
    raise ValueError(
        "No version space: no perceptron w = sum_i alpha_i phi(x_i) classifies every training point "
        f"correctly (K with lam = {lam:g} cannot separate these labels); {hint}, or a kernel of higher capacity.")


class KernelBilliard:
    """The ball, its flight and its bookkeeping (section 3.2 with the kit's incremental projections).

    The state is kept as two small blocks, each with a position row and a direction row:

        train = [[ alpha | y_i <w, phi(x_i)> ],        test = [[ <w, phi(x_j)> ],
                 [ beta  | y_i <v, phi(x_i)> ]]                [ <v, phi(x_j)> ]]

    with ||w|| = ||v|| = 1 and <w, v> = 0.  A flight is a plane rotation of the two rows, done in place by a
    BLAS `drot` on each block; a reflection at wall c changes beta_c and subtracts a multiple of row c of
    y * K from the training slopes and of column c of K_test from the test slopes (a BLAS `daxpy` each).
    Nothing recomputes K alpha.  The training block never sees the test points (not even through the
    rounding of a vectorised BLAS loop, which depends on the length of the vector), so the trajectory is
    bit for bit the same whichever test points ride along.

    Test points are credited lazily: the label region of test point j only changes when the ball crosses its
    great sphere, which is seen as a sign change of <w, phi(x_j)> over a flight; only then is the exact
    crossing arc computed (from the closed form) and the time since its last crossing credited to V+ or V-.

    Use `billiard_probabilities` for the answer; this class is for looking inside (the notebook draws its
    trajectory, the tests compare its incremental projections with recomputed ones).
    """

    renormalise_every = 16   # rotations and reflections keep norms exactly; this only mops up rounding
    few_flips = 8            # up to this many test points flipped in one flight are credited with plain floats

    def __init__(self, K, y, K_test=None, *, lam: float = 0.0, start=None, refresh_rate: float = 0.0,
                 random_state=None):
        self.lam = as_scalar(lam, "lam", low=0.0)
        self.gram, span_values, span_vectors = _check_gram_and_span(K, self.lam)
        l = self.gram.shape[0]
        self.y = as_pm1_labels(y, "y", length=l)
        K_test = np.zeros((0, l)) if K_test is None else as_cross_kernel(K_test, l, "K_test")
        self.n_train, self.n_test = l, K_test.shape[0]
        self.cross = np.ascontiguousarray(K_test)
        self._orthogonal = ~np.any(self.cross != 0, axis=1)
        self.diagonal = np.diag(self.gram).copy()
        # Row c: how a unit step along phi(x_c) changes the signed training projections / the test projections.
        self._train_rows = self.gram * self.y[None, :]
        self._test_rows = np.ascontiguousarray(self.cross.T)
        # <v, phi_c> = y_c * slope_c, so the reflection's step is (2 y_c / K_cc) slope_c; a list of floats,
        # because arithmetic on numpy scalars costs more than the rest of a bounce's bookkeeping.
        self._reflection_factor = (2.0 * self.y / self.diagonal).tolist()
        self.rng = as_generator(random_state)
        self.refresh_rate = as_scalar(refresh_rate, "refresh_rate", low=0.0)
        # Isotropic directions in the span: beta = K^{+1/2} g with g standard normal gives v = sum_i beta_i
        # phi(x_i) with covariance K^{+1/2} K K^{+1/2} = the identity on the span.  The symmetric square root
        # U S^{-1/2} U' does not depend on the signs LAPACK picks for the eigenvectors, so a seed's directions
        # do not hinge on them (rounding still differs between machines, and a long trajectory amplifies it).
        # The training projections are K beta = U S^{1/2} U' g.
        self._span_rank = len(span_values)
        self._span_coefficients = (span_vectors / np.sqrt(span_values)) @ span_vectors.T
        self._span_projections = (span_vectors * np.sqrt(span_values)) @ span_vectors.T

        if start is None:
            start = _start_in_span(self.gram, self.y, span_values, span_vectors, self.lam)
        start = as_vector(start, "start", length=l, length_of="K")
        self._train = np.zeros((2, 2 * l))
        self._test = np.zeros((2, self.n_test))
        # Named views of the state; flights and reflections work in place, so the views stay valid.
        self._position, self._direction = self._train
        self._margins, self._slopes = self._train[:, l:]
        self._test_position, self._test_direction = self._test
        self._keys = np.empty(l)
        self._tiny = np.full(l, 1e-300)
        self._zeros = np.zeros(self.n_test)
        self._changed = np.empty(self.n_test, dtype=bool)      # which test points flipped in a flight
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
        self._can_move = self._span_rank >= 2
        if not self._can_move:
            self._direction[:] = 0.0     # rank K = 1: version space is a single point; the ball stays put
            self._test_direction[:] = 0.0
            return
        for _attempt in range(20):
            gaussian = self.rng.standard_normal(self.n_train)
            self.beta[:] = self._span_coefficients @ gaussian
            self._slopes[:] = self.y * (self._span_projections @ gaussian)
            self._test_direction[:] = self.cross @ self.beta
            if self._renormalise_direction():
                return
        raise RuntimeError("could not draw a direction tangent to the sphere")  # pragma: no cover

    # ---- one flight, one bounce ----------------------------------------------------------------------
    def wall_times(self):
        """Flight time (arc length) to every training wall: t_j = atan2(y_j a_j, -y_j b_j) in [0, pi]."""
        times = flight_times(self.margins, self.slopes)   # clips the wall just hit (-1e-17) at 0
        if self.last_wall >= 0:
            times[self.last_wall] = math.pi             # just left it: its next crossing is half a circle away
        return times

    def _nearest_wall(self):
        """argmin_j t_j without an arctan per wall: t = arccot(-b/a) falls as -b/a grows, so minimise b/a.

        A margin is clipped at +1e-300 first: a wall the ball sits on (margin 0, or -1e-17 by rounding) is
        then hit at once if the ball moves into it and never if it moves away.
        """
        keys = self._keys
        np.maximum(self._margins, self._tiny, out=keys)
        np.divide(self._slopes, keys, out=keys)
        if self.last_wall >= 0:
            keys[self.last_wall] = math.inf
        wall = int(keys.argmin())
        return wall, math.atan2(max(float(self._margins[wall]), 0.0), -float(self._slopes[wall]))

    def _fly(self, arc):
        """Move along the great circle w(t) = cos t w + sin t v by `arc`, crediting the test points.

        The flight is a rotation in the (w, v) plane, (w, v) <- (cos t w + sin t v, -sin t w + cos t v),
        applied in place to the two rows of each block by a BLAS plane rotation (drot).
        """
        if arc <= 0:
            return
        cos, sin = math.cos(arc), math.sin(arc)
        # drot(x, y, c, s, n, offx, incx, offy, incy, overwrite_x, overwrite_y): arguments by position,
        # because f2py's keyword parsing costs as much as rotating a thousand numbers.
        drot(self._position, self._direction, cos, sin, self._train.shape[1], 0, 1, 0, 1, 1, 1)
        if self.n_test:
            drot(self._test_position, self._test_direction, cos, sin, self.n_test, 0, 1, 0, 1, 1, 1)
            self._credit_crossings(arc)
        self.arc_length += arc

    def _credit_crossings(self, arc):
        """Test points whose label flipped during this flight: note the arc length at which they flipped.

        The time spent on the + side is the sum of (end - start) over the + intervals, so it suffices to add
        the flip's arc position when a point leaves the + side and subtract it when it enters it
        (`_plus_signed`); `time_plus` adds the open interval of the points that are + now.

        The crossing is found looking back from the end of the flight, where the point has the projection
        a = <w, phi(x_j)> of sign s (its new side) and b = <v, phi(x_j)>: going back by tau the projection is
        a cos tau - b sin tau, zero at tau = atan2(s a, s b), the paper's flight time to x_{l+1} run backwards.
        """
        changed = self._changed
        np.greater(self._test_position, self._zeros, out=changed)
        np.not_equal(changed, self._positive, out=changed)
        flipped = changed.nonzero()[0]
        if flipped.size == 0:
            return
        end = self.arc_length + arc
        if flipped.size <= self.few_flips:
            # A flight flips one or two points on average: plain floats beat a dozen numpy calls on tiny arrays.
            position, direction = self._test_position, self._test_direction
            for j in flipped.tolist():
                a, b = float(position[j]), float(direction[j])
                side = 1.0 if a > 0 else -1.0
                self._plus_signed[j] -= side * (end - min(math.atan2(side * a, side * b), arc))
                self._positive[j] = a > 0
            return
        a, b = self._test[:, flipped]
        side = np.where(a > 0, 1.0, -1.0)
        crossing = end - np.minimum(np.arctan2(side * a, side * b), arc)
        self._plus_signed[flipped] -= side * crossing
        self._positive[flipped] = side > 0

    def _reflect(self, wall):
        """v' = v - 2 <v, phi_c> phi_c / ||phi_c||^2 (step 3), applied to beta and to every projection."""
        step = self._reflection_factor[wall] * float(self._slopes[wall])       # 2 <v, phi_c> / K_cc
        self._direction[wall] -= step
        # daxpy(x, y, n, a): y += a x in place, arguments by position as in _fly
        daxpy(self._train_rows[wall], self._slopes, self.n_train, -step)          # slopes -= step * y K[c]
        if self.n_test:
            daxpy(self._test_rows[wall], self._test_direction, self.n_test, -step)  # -= step * K_test[:, c]
        self.last_wall = wall
        self.n_bounces += 1

    def step(self):
        """Fly to the next event (a wall, or a refresh of the direction); return the arc flown."""
        if not self._can_move:                         # rank K = 1: no direction to move in
            self._fly_still(1.0)
            self.n_bounces += 1
            return 0.0
        wall, arc = self._nearest_wall()
        if self._clock < arc:                          # the Poisson clock rings before the wall
            arc = self._clock
            self._fly(arc)
            self._renormalise_position()
            self._new_direction()
            self.n_refreshes += 1
            self.last_wall = -1
            self._clock = self.rng.exponential(1.0 / self.refresh_rate)
            return arc
        self._fly(arc)
        self._clock -= arc
        self._reflect(wall)
        if self.n_bounces % self.renormalise_every == 0:
            self._renormalise_position()
            if not self._renormalise_direction():      # v came out parallel to w: start afresh
                self._new_direction()
        return arc

    def _fly_still(self, weight):
        """The ball cannot move: let `weight` of 'time' pass where it is (credited lazily, like a flight)."""
        self.arc_length += weight

    def run(self, n_bounces: int, record: bool = False):
        """Bounce `n_bounces` times; with `record`, return (alphas, betas) at every event, one row each."""
        n_bounces = as_positive_int(n_bounces, "n_bounces", minimum=0)
        alphas, betas = [self.alpha.copy()], [self.beta.copy()]
        target = self.n_bounces + n_bounces
        while self.n_bounces < target:
            self.step()
            if record:
                alphas.append(self.alpha.copy())
                betas.append(self.beta.copy())
        if record:
            return np.array(alphas), np.array(betas)
        return None

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
    def p_plus(self) -> np.ndarray:
        """V+ / (V+ + V-) for every test point: flight on the + side over all flight since `reset_times`."""
        total = self.arc_length - self._counted_from
        p_plus = self.time_plus / total if total > 0 else np.where(self._positive, 1.0, 0.0)
        # a test point with k(x, x_i) = 0 for every training point is orthogonal to all of version space:
        # no perceptron in the span labels it, so both labels are equally probable
        return np.where(self._orthogonal, 0.5, p_plus)


def billiard_probabilities(K, y, K_test, n_bounces: int = 1000, *, lam: float = 0.0, epsilon=None,
                           eta: float = 0.01, burn_in: int = 100, refresh_every=None, random_state=None,
                           start=None) -> np.ndarray:
    """p+ for every test point: the fraction of flight length spent where sign <w, phi(x_test)> = +1.

    K (l, l) is the training kernel, y the labels (+-1 or 0/1), K_test (m, l) the cross-kernel.  One
    trajectory of `n_bounces` wall bounces serves every test point.  With `epsilon` given, the number of
    bounces comes from Hoeffding's rule (eq. 8) with confidence 1 - eta instead of `n_bounces`.

    lam > 0 is the soft version (K + lam I).  The direction is refreshed on a Poisson clock in arc length
    whose rate gives on average one refresh per `refresh_every` bounces (default max(50, l), which keeps
    the amortised cost of a bounce at O(l + m)); the rate is set from the mean flight length of the
    `burn_in` bounces, which are not counted.  With burn_in = 0 there is no refresh.
    """
    lam = as_scalar(lam, "lam", low=0.0)
    if epsilon is not None:
        n_bounces = hoeffding_bounces(epsilon, eta)
    n_bounces = as_positive_int(n_bounces, "n_bounces", minimum=1)
    burn_in = as_positive_int(burn_in, "burn_in", minimum=0)
    ball = KernelBilliard(K, y, K_test, lam=lam, start=start, random_state=random_state)
    if refresh_every is None:
        refresh_every = max(50, ball.gram.shape[0])
    refresh_every = as_scalar(refresh_every, "refresh_every", low=0.0, low_open=True)
    ball.warm_up(burn_in, refresh_every)
    ball.run(n_bounces)
    return ball.p_plus


def transductive_confidence(p_plus) -> np.ndarray:
    """c_trans = 2 max(p+, p-) - 1 (eq. 7)."""
    p_plus = np.asarray(p_plus, dtype=float)
    return 2.0 * np.maximum(p_plus, 1.0 - p_plus) - 1.0


class BayesianTransduction(KernelClassifier):
    """Bayesian transduction by the kernel billiard: labels by argmax p^y (eq. 6), confidence by eq. (7).

    `fit` checks that version space exists and finds the starting point; each call of `predict`,
    `predict_proba` or `confidence` runs one billiard trajectory for all the points it is given.  The
    trajectory depends only on the training data and the seed drawn at fit time, never on the test points,
    so a point gets the same p+ whichever batch it comes in.
    """

    def __init__(self, n_bounces=1000, lam=0.0, kernel="precomputed", L=1.0, burn_in=100,
                 refresh_every=None, random_state=None):
        self.n_bounces = n_bounces
        self.lam = lam
        self.kernel = kernel
        self.L = L
        self.burn_in = burn_in
        self.refresh_every = refresh_every
        self.random_state = random_state

    def fit(self, X, y):
        as_positive_int(self.n_bounces, "n_bounces", minimum=1)
        lam = as_scalar(self.lam, "lam", low=0.0)
        gram, y_pm1 = self._fit_inputs(X, y, psd=False)
        self.gram_, self.y_ = gram, y_pm1
        self.start_ = version_space_start(gram, y_pm1, lam=lam)
        self.seed_ = int(as_generator(self.random_state).integers(2**31 - 1))
        return self

    def _p_plus(self, K_test):
        return billiard_probabilities(self.gram_, self.y_, K_test, self.n_bounces, lam=self.lam,
                                      burn_in=self.burn_in, refresh_every=self.refresh_every,
                                      random_state=self.seed_, start=self.start_)

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


# ---- exact volumes on the sphere in R^3 (the notebook's and the tests' reference) ------------------------

def spherical_polygon_area(normals) -> float:
    """Area of the region {w in S^2 : <w, n_i> > 0 for every row n_i of `normals`} (0 if it is empty).

    The region is a convex spherical polygon; its corners are the intersections n_i x n_j (either sign)
    of two great circles that satisfy every other constraint.  Cut it into triangles from its centre and
    add their areas (spherical excess, Van Oosterom and Strackee: tan(E/2) = |a.(b x c)| / (1 + a.b + b.c + c.a)).
    """
    normals = np.asarray(normals, dtype=float)
    if normals.ndim != 2 or normals.shape[1] != 3:
        raise ValueError(f"normals must be an (n, 3) array, got shape {normals.shape}")
    normals = normals / np.linalg.norm(normals, axis=1, keepdims=True)
    if len(normals) == 1:
        return 2 * np.pi
    corners = []
    for i in range(len(normals)):
        for j in range(i + 1, len(normals)):
            cross = np.cross(normals[i], normals[j])
            if np.linalg.norm(cross) < 1e-12:
                continue
            cross /= np.linalg.norm(cross)
            for corner in (cross, -cross):
                others = np.delete(normals, [i, j], axis=0) @ corner
                if np.all(others >= -1e-12):
                    corners.append(corner)
    if len(corners) < 3:
        if len(normals) == 2 and len(corners) == 2:     # a lune between two half-spheres
            return 2 * float(np.arccos(np.clip(-normals[0] @ normals[1], -1, 1)))
        return 0.0
    corners = np.unique(np.round(np.array(corners), 12), axis=0)
    centre = corners.mean(axis=0)
    centre /= np.linalg.norm(centre)
    # order the corners by angle around the centre
    first = corners[0] - (corners[0] @ centre) * centre
    first /= np.linalg.norm(first)
    second = np.cross(centre, first)
    order = np.argsort(np.arctan2(corners @ second, corners @ first))
    corners = corners[order]
    area = 0.0
    for a, b in zip(corners, np.roll(corners, -1, axis=0)):
        numerator = abs(centre @ np.cross(a, b))
        denominator = 1 + centre @ a + a @ b + b @ centre
        area += 2 * np.arctan2(numerator, denominator)
    return float(area)


def volume_ratio_on_sphere(X, y, X_test):
    """Exact p+ = area(V+) / area(V) for a linear kernel in R^3 (X (l, 3), X_test (m, 3))."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    walls = y[:, None] * X
    total = spherical_polygon_area(walls)
    if total <= 0:
        raise ValueError("No version space: these points and labels cannot be separated by a plane through 0")
    return np.array([spherical_polygon_area(np.vstack([walls, x[None, :]])) / total
                     for x in np.asarray(X_test, dtype=float)])


# ---- Figure 2: error against rejection rate ----------------------------------------------------------------

def error_rejection_curve(confidence, correct, thresholds):
    """For each threshold theta: the rejection rate (confidence < theta) and the error on the rest.

    Returns (rejection, error), arrays with one entry per threshold; the error is NaN where every point
    is rejected.
    """
    confidence = np.asarray(confidence, dtype=float)
    correct = np.asarray(correct, dtype=bool)
    thresholds = np.atleast_1d(np.asarray(thresholds, dtype=float))
    if confidence.shape != correct.shape or confidence.ndim != 1:
        raise ValueError(f"confidence and correct must be 1-d of the same length, got shapes "
                         f"{confidence.shape} and {correct.shape}")
    rejected = confidence[None, :] < thresholds[:, None]
    accepted = ~rejected
    n_accepted = accepted.sum(axis=1)
    wrong = (accepted & ~correct[None, :]).sum(axis=1)
    error = np.divide(wrong, n_accepted, out=np.full(len(thresholds), np.nan), where=n_accepted > 0)
    return rejected.mean(axis=1), error


def compare_with_svm(X, y, sigma, n_splits=10, n_bounces=1000, train_fraction=0.6, C=1e6,
                     random_state=None, progress=None):
    """The paper's section 4 experiment: transduction confidence vs the SVM's |f(x)| on random splits.

    For each split (features standardised on the training part): a hard-margin SVM (sklearn SVC, RBF kernel
    exp(-||x-x'||^2 / 2 sigma^2), C large) gives labels and c_ind = |f(x)|; the billiard with the same kernel
    gives labels by eq. (6) and c_trans by eq. (7).  Returns a dict of (n_splits, n_test) arrays:
    trans_confidence, trans_correct, svm_confidence, svm_correct.
    """
    rng = as_generator(random_state)
    results = {key: [] for key in ("trans_confidence", "trans_correct", "svm_confidence", "svm_correct")}
    # Small matrices (a few hundred points): one BLAS thread is faster than several fighting over the cores.
    with threadpool_limits(limits=1, user_api="blas"):
        for split in range(as_positive_int(n_splits, "n_splits")):
            _one_split(X, y, sigma, n_bounces, train_fraction, C, rng, results)
            if progress is not None:
                progress(split + 1)
    return {key: np.array(value) for key, value in results.items()}


def _one_split(X, y, sigma, n_bounces, train_fraction, C, rng, results):
    """One random split of `compare_with_svm`: append both methods' confidences and correctness."""
    from sklearn.svm import SVC

    from .data.uci import random_split
    from .kernels import rbf_kernel

    X_train, X_test, y_train, y_test = random_split(X, y, train_fraction, random_state=rng)
    K, K_test = rbf_kernel(X_train, L=sigma), rbf_kernel(X_test, X_train, L=sigma)
    svm = SVC(kernel="precomputed", C=C).fit(K, y_train)
    decision = svm.decision_function(K_test)
    p_plus = billiard_probabilities(K, y_train, K_test, n_bounces, random_state=rng)
    results["svm_confidence"].append(np.abs(decision))
    results["svm_correct"].append(np.where(decision > 0, 1.0, -1.0) == y_test)
    results["trans_confidence"].append(transductive_confidence(p_plus))
    results["trans_correct"].append(np.where(p_plus > 0.5, 1.0, -1.0) == y_test)


def match_theta_max(results) -> float:
    """The SVM threshold whose rejection rate equals the transduction's at theta = 1 (the paper's theta_max).

    Transduction at theta = 1 rejects every point with c_trans < 1; theta_max is the quantile of the SVM's
    confidences |f(x)| (pooled over the equal-sized splits) at that rejection rate.
    """
    rate = float(np.mean(results["trans_confidence"] < 1.0))
    return float(np.quantile(results["svm_confidence"].ravel(), rate))


def figure2_curves(results, n_thresholds: int = 41, theta_max=None):
    """Mean error-rejection curves over the splits, with one standard error of each mean (Figure 2).

    theta runs over [0, 1] for the transduction and over [0, theta_max] for the SVM (default
    `match_theta_max`).  Returns a dict with "theta", "theta_max" and, for "trans" and "svm", a dict of
    rejection and error means and standard errors (NaN-aware: a split that rejects everything has no error).
    """
    theta = np.linspace(0.0, 1.0, as_positive_int(n_thresholds, "n_thresholds", minimum=2))
    if theta_max is None:
        theta_max = match_theta_max(results)
    curves = {"theta": theta, "theta_max": theta_max}
    for method, scale in (("trans", 1.0), ("svm", theta_max)):
        per_split = [error_rejection_curve(confidence, correct, theta * scale)
                     for confidence, correct in zip(results[f"{method}_confidence"], results[f"{method}_correct"])]
        rejection = np.array([curve[0] for curve in per_split])
        error = np.array([curve[1] for curve in per_split])
        # a split that rejects every point has no error at that theta: average over the other splits
        finite = np.isfinite(error)
        counts = finite.sum(axis=0)
        error_sum = np.where(finite, error, 0.0).sum(axis=0)
        error_mean = np.divide(error_sum, counts, out=np.full(len(theta), np.nan), where=counts > 0)
        deviation = np.where(finite, error - error_mean, 0.0)
        error_sem = np.sqrt((deviation ** 2).sum(axis=0) / np.maximum(counts, 1)) / np.sqrt(np.maximum(counts, 1))
        curves[method] = {"rejection": rejection.mean(axis=0),
                          "rejection_sem": rejection.std(axis=0) / np.sqrt(len(rejection)),
                          "error": error_mean, "error_sem": error_sem}
    return curves

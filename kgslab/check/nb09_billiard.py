"""Checks for notebook 09 (the kernel billiard and Bayesian transduction, seed 002).

Hints come in two tiers: a failed check prints a conceptual hint (and, from the comparison, a
diagnosis of what is off); the code-level hint only on request, check.hint("nb09_exercise_N").
"""

from __future__ import annotations

import numpy as np

from .. import billiard as _billiard, billiard_ball as _billiard_ball, stopping as _stopping, versionspace as _versionspace
from ..papers import bt1999 as _bt1999
from .cases import Case
from .exercise import Exercise
from .values import Problem, allclose

__all__ = ["nb09_exercise_1", "nb09_exercise_2", "nb09_exercise_3", "nb09_exercise_4"]

_close = allclose(rtol=1e-7, atol=1e-9)


def _right_type(expected, got) -> bool:
    """True when `got` has the structure, types and shapes of `expected` (only its values can be wrong)."""
    return allclose(rtol=0.0, atol=1e300)(expected, got) is None


def _tangent_pair(K, y, seed):
    """A unit position inside version space and a unit direction orthogonal to it, as coefficients."""
    alpha = _versionspace.version_space_start(K, y)
    beta = np.random.default_rng(seed).standard_normal(len(y))
    beta -= (alpha @ K @ beta) * alpha
    return alpha, beta / np.sqrt(beta @ K @ beta)


# ---- Exercise 9.1: flight times ------------------------------------------------------------------

def _nb09_exercise_1_cases():
    """t_j = atan2(margin_j, -slope_j): the arc to each wall along the great circle."""
    rng = np.random.default_rng(0)
    return [Case("walls ahead and behind", (np.array([0.5, 0.2, 0.9, 0.1]), np.array([-1.0, 0.3, -0.1, 0.0]))),
            Case("20 random walls", (rng.uniform(0, 1, 20), rng.standard_normal(20))),
            Case("a wall the ball sits on, moving away", (np.array([0.0, 0.4]), np.array([0.5, -0.5]))),
            Case("margins of -1e-17 (rounding, right after a bounce) count as 0, moving away and towards",
                 (np.array([-1e-17, 0.3, -1e-17]), np.array([0.2, -0.4, -0.3])))]


def _flight_times_diagnosis(expected, got):
    problem = _close(expected, got)
    if problem is None or not _right_type(expected, got):
        return problem
    if np.any(got < 0):
        return Problem(problem, "negative-time", "Some of your times are negative: a flight time lies in [0, pi]; a "
                       "wall the ball moves away from is met after more than a quarter turn, not before the start.")
    if np.any(got > np.pi + 1e-12):
        return Problem(problem, "beyond-pi", "Some of your times exceed pi: the first zero of the margin comes "
                                             "within half a turn.")
    return Problem(problem, None, "Check the sign convention: the margin a cos t + b sin t starts at a >= 0 and the "
                                  "first zero is where it reaches 0 (a wall with a < 0 by rounding is treated as a = 0).")


nb09_exercise_1 = Exercise(
    "nb09_exercise_1", "Exercise 9.1 (flight times on the sphere)",
    _billiard_ball.flight_times, _nb09_exercise_1_cases, points=2, compare=_flight_times_diagnosis,
    closed=("kgslab.crossings.crossing_angle", "kgslab.crossings.crossing_angle_scalar"),
    hint="solve a cos t + b sin t = 0 for the FIRST t in [0, pi]; tan t alone cannot tell a wall ahead "
         "(b < 0) from one behind (b > 0): the quadrant matters.",
    code_hint="np.arctan2 takes the sine-like and the cosine-like part separately and returns an angle in "
              "[0, pi] when the first argument is >= 0: pass it the clipped margin and minus the slope.")


# ---- Exercise 9.2: one bounce ----------------------------------------------------------------------

def _nb09_exercise_2_cases():
    """One bounce the paper's way: fly to the nearest wall on the great circle and reflect."""
    cases = []
    for n, d, seed in [(6, 3, 1), (10, 4, 2)]:
        rng = np.random.default_rng(seed)
        X = rng.standard_normal((n, d))
        y = np.where(X @ rng.standard_normal(d) > 0, 1.0, -1.0)
        if abs(y.sum()) == n:
            y[0] = -y[0]
            X[0] = -X[0]
        K = X @ X.T
        alpha, beta = _tangent_pair(K, y, seed)
        cases.append(Case(f"{n} points in R^{d}, linear kernel", (alpha, beta, K, y)))
    # the wall the ball would hit first is declared the one it has just left: it must be skipped
    alpha, beta, K, y = cases[1].args
    nearest = _billiard_ball.billiard_bounce(alpha, beta, K, y)[2]
    cases.append(Case("last_wall is the nearest wall: skip it", (alpha, beta, K, y, nearest)))
    # the same ball with the points reordered so that the nearest wall is the last point (no wall to skip: the
    # default last_wall = -1 is no wall), and so that it is point 0 and declared the one just left
    others = [i for i in range(len(y)) if i != nearest]
    for order, label, extra in [(others + [nearest], "the nearest wall is the last point, last_wall left at -1", ()),
                                ([nearest] + others, "the nearest wall is point 0 and last_wall = 0: skip it", (0,))]:
        order = np.array(order)
        cases.append(Case(label, (alpha[order], beta[order], K[np.ix_(order, order)], y[order]) + extra))
    return cases


def _bounce_diagnosis(expected, got):
    problem = _close(expected, got)
    if problem is None or not isinstance(got, tuple) or len(got) != 4:
        return problem
    if got[2] != expected[2]:
        return Problem(problem, "wrong-wall", "Your wall is not the nearest one: the ball hits the wall with the "
                                              "smallest flight time, never the wall given as last_wall.")
    if _close(expected[0], got[0]) is None and _close(expected[3], got[3]) is None:
        return Problem(problem, "reflection", "Position and arc are right, the direction is not: after the move the "
                       "direction turns with the ball (it stays a unit tangent), and then only its component along "
                       "the wall's normal flips.")
    return Problem(problem, "move", "The position after the flight is off: move along the great circle by the "
                                    "flight time.")


nb09_exercise_2 = Exercise(
    "nb09_exercise_2", "Exercise 9.2 (one bounce of the kernel billiard)",
    _billiard_ball.billiard_bounce, _nb09_exercise_2_cases, points=4, compare=_bounce_diagnosis,
    hint="three steps: margins and slopes of every wall from the kernel (Exercise 9.1 gives the flight "
         "times), a move along the great circle (a rotation of the pair position/direction), and a "
         "reflection of the direction at the wall hit (step 3), which changes one coefficient only.",
    code_hint="the margins are y times K @ alpha, the slopes y times K @ beta; the wall is the argmin of the "
              "times once last_wall's time is set to infinity; the rotation uses cos and sin of that time; the "
              "reflection subtracts 2 <v, phi_c> / k(x_c, x_c) from the c-th coefficient, with <v, phi_c> "
              "read off row c of K.")


# ---- Exercise 9.3: Hoeffding ---------------------------------------------------------------------------

def _nb09_exercise_3_cases():
    """Eq. (8): the smallest n with exp(-2 n epsilon^2) <= eta.

    Not the paper's epsilon = 0.05, eta = 0.01: the notebook asks for its n, and a failed check prints what it
    expected on every case.  The first case's ln(1/eta) / (2 eps^2) = 782.40 has a fraction below
    one half, so rounding to the nearest integer instead of up is caught on it (as the paper's 921.03 did).
    """
    return [Case("epsilon = 0.05, eta = 0.02", (0.05, 0.02)),
            Case("epsilon = 0.1, eta = 0.05", (0.1, 0.05)),
            Case("epsilon = 0.01, eta = 0.001", (0.01, 0.001))]


def _nb09_exercise_3_hidden(rng):
    """Grading cases: epsilon in [0.01, 0.2] and eta in [0.001, 0.1], drawn at grading time."""
    return [Case(f"a grading case: epsilon = {epsilon:.3g}, eta = {eta:.3g}", (epsilon, eta))
            for epsilon, eta in zip(np.round(rng.uniform(0.01, 0.2, size=3), 4).tolist(),
                                    np.round(10.0 ** rng.uniform(-3, -1, size=3), 5).tolist())]


def _hoeffding_diagnosis(expected, got):
    problem = allclose(rtol=0, atol=0.5)(expected, got)
    if problem is None or not isinstance(got, (int, float, np.integer, np.floating)) or isinstance(got, bool):
        return problem
    ratio = float(got) / float(expected)
    if abs(ratio - 2) < 0.05 or abs(ratio - 0.5) < 0.05:
        return Problem(problem, "factor-2", "Off by a factor close to 2: look again at the 2 in the exponent of eq. (8).")
    if abs(float(got) - float(expected)) <= 1.0:
        return Problem(problem, "off-by-one", "Off by one: n must be an integer with exp(-2 n eps^2) <= eta, the "
                                              "smallest such.")
    if abs(ratio - np.log(10)) < 0.05 or abs(ratio - 1 / np.log(10)) < 0.05:
        return Problem(problem, "log10", "Off by a factor close to ln 10: eq. (8) uses the natural logarithm.")
    return problem


nb09_exercise_3 = Exercise(
    "nb09_exercise_3", "Exercise 9.3 (Hoeffding's stopping rule, eq. 8)",
    _stopping.hoeffding_bounces, _nb09_exercise_3_cases, points=1, compare=_hoeffding_diagnosis,
    hidden=_nb09_exercise_3_hidden,
    hint="set the bound of eq. (8) equal to eta, solve for n, and make n the smallest integer for which the "
         "bound is at most eta.",
    code_hint="take logarithms of exp(-2 n eps^2) = eta, solve for n, round up (ceil) and return an int.")


# ---- Exercise 9.4: error against rejection --------------------------------------------------------------

def _nb09_exercise_4_cases():
    """Rejection rate and error on the accepted points, for each threshold."""
    rng = np.random.default_rng(3)
    confidence = rng.uniform(0, 1, 50)
    correct = rng.uniform(0, 1, 50) < 0.5 + 0.5 * confidence
    return [Case("50 points, thresholds 0 .. 0.9", (confidence, correct, np.linspace(0, 0.9, 10))),
            Case("a tie: confidence equal to the threshold is kept; thresholds that keep one point, and none "
                 "(no error rate: NaN)", (np.array([0.2, 0.5, 0.5, 0.9]), np.array([True, False, True, False]),
                                          np.array([0.5, 0.6, 0.95]))),
            Case("c_trans with many points at exactly 1, thresholds 0 .. 1",
                 (np.array([1.0, 1.0, 0.4, 1.0, 0.0, 0.9, 1.0, 0.2]),
                  np.array([True, True, False, True, False, True, False, True]), np.linspace(0, 1, 6)))]


def _curve_diagnosis(expected, got):
    problem = _close(expected, got)
    if problem is None or not _right_type(expected, got) or _close(expected[::-1], got) is None:
        return problem                      # a wrong type, or the pair the other way round: the problem says so
    if _close(expected[0], got[0]) is not None:
        return Problem(problem, "rejection", "Your rejection rates are off: a point is rejected when its confidence "
                       "is strictly below theta (equal is kept), and the rate is over all points.")
    none_kept = np.isnan(np.asarray(expected[1], dtype=float))
    mine = np.asarray(got[1], dtype=float) if np.shape(got[1]) == np.shape(expected[1]) else None
    if mine is not None and none_kept.any() and _close(expected[1][~none_kept], mine[~none_kept]) is None:
        return Problem(problem, "no-error-rate", "Right wherever a point is kept; where every point is rejected there "
                       "is no error rate to compute: return NaN (np.nan) for that threshold, not a number.")
    return Problem(problem, "error-on-accepted", "Rejection is right, the error is not: count the wrong labels among "
                   "the points that are NOT rejected and divide by how many those are.")


nb09_exercise_4 = Exercise(
    "nb09_exercise_4", "Exercise 9.4 (error against rejection rate)",
    _billiard.error_rejection_curve, _nb09_exercise_4_cases, points=2, compare=_curve_diagnosis,
    hint="for each threshold two numbers: the share of all points whose confidence is below it, and the "
         "error among the others only (NaN where no point is kept).",
    code_hint="compare the confidences with every threshold at once by broadcasting (thresholds as a column): "
              "a boolean matrix (thresholds x points) of rejected points; its row means are the rejection "
              "rates; count accepted and wrong per row with sums.")

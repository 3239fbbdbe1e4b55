"""Checks for notebook 09 (the kernel billiard and Bayesian transduction, seed 002).

Hints come in two tiers: a failed check prints a conceptual hint (and, from the comparison, a
diagnosis of what is off); the code-level hint only on request, check.hint("nb09_exercise_N").
"""

from __future__ import annotations

import numpy as np

from .. import billiard as _billiard, billiard_ball as _billiard_ball, versionspace as _versionspace
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
              "[0, pi] when the first argument is >= 0: pass it the clipped margin and minus the slope.",
    worked="The margin $a_j\\cos t + b_j\\sin t$ with $a_j \\ge 0$ is zero where $\\tan t = -a_j/b_j$; of the two "
           "zeros half a turn apart, the first in $[0, \\pi]$ is $t_j = \\operatorname{atan2}(a_j, -b_j)$: below "
           "$\\pi/2$ when $b_j < 0$ (the ball moves towards the wall), above when it moves away, and $\\pi/2$ when "
           "$b_j = 0$. `atan2` needs no division, so $b_j = 0$ is no special case; and a margin of $-10^{-17}$ "
           "clipped to 0 puts a wall the ball is leaving at $t = \\pi$, not at a negative time.")


# ---- Exercise 9.2: the next wall -------------------------------------------------------------------

def _ball_cases():
    """Balls in version space: two random ones, the nearest wall declared the one just left, and reorderings."""
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
    nearest = _billiard_ball.next_wall(alpha, beta, K, y)[0]
    cases.append(Case("last_wall is the nearest wall: skip it", (alpha, beta, K, y, nearest)))
    # the same ball with the points reordered so that the nearest wall is the last point (no wall to skip: the
    # default last_wall = -1 is no wall), and so that it is point 0 and declared the one just left
    others = [i for i in range(len(y)) if i != nearest]
    for order, label, extra in [(others + [nearest], "the nearest wall is the last point, last_wall left at -1", ()),
                                ([nearest] + others, "the nearest wall is point 0 and last_wall = 0: skip it", (0,))]:
        order = np.array(order)
        cases.append(Case(label, (alpha[order], beta[order], K[np.ix_(order, order)], y[order]) + extra))
    return cases


def _next_wall_diagnosis(expected, got, case):
    problem = _close(expected, got)
    if problem is None or not isinstance(got, tuple) or len(got) != 2 or not _right_type(expected, got):
        return problem
    last_wall = case.args[4] if len(case.args) > 4 else -1
    if got[0] != expected[0]:
        if last_wall >= 0 and got[0] == last_wall:
            return Problem(problem, "last-wall-not-skipped", "Your wall is last_wall, the wall the ball has just "
                           "left: it is never the next one (give it an infinite flight time).")
        if last_wall < 0 and got[0] != len(case.args[3]) - 1 and expected[0] == len(case.args[3]) - 1:
            return Problem(problem, "no-wall-skipped-wrongly", "With last_wall = -1 no wall is skipped: -1 means "
                           "none, not the last point.")
        return Problem(problem, "wrong-wall", "Your wall is not the nearest one: the ball hits the wall with the "
                                              "smallest flight time.")
    return Problem(problem, "arc", "The wall is right, the arc is not: it is that wall's flight time (Exercise 9.1), "
                                   "computed from the margin and slope of the wall.")


nb09_exercise_2 = Exercise(
    "nb09_exercise_2", "Exercise 9.2 (the next wall)",
    _billiard_ball.next_wall, _ball_cases, points=2, compare=_next_wall_diagnosis,
    closed=("kgslab.billiard_ball.billiard_bounce", "kgslab.billiard_ball.KernelBilliard.wall_times"),
    hint="every wall's margin and slope are inner products in feature space, which the kernel gives for all the "
         "training points at once; then Exercise 9.1's flight times, the wall given as last_wall left out, and the "
         "smallest of the rest.",
    code_hint="the margins are y times K @ alpha, the slopes y times K @ beta; set last_wall's time to infinity "
              "(only when last_wall >= 0), then np.argmin; return (int(wall), float(arc)).",
    worked="The margin of wall $j$ is $y_j\\langle\\mathbf{w},\\phi(\\mathbf{x}_j)\\rangle = y_j\\sum_i\\alpha_i "
           "k(\\mathbf{x}_i,\\mathbf{x}_j) = y_j(\\mathbf{K}\\boldsymbol\\alpha)_j$, and its slope $y_j(\\mathbf{K}"
           "\\boldsymbol\\beta)_j$: two matrix-vector products give every wall, $O(\\ell^2)$ a bounce. The wall the "
           "ball has just left has margin 0 up to rounding; with a slope that rounding leaves at 0 or below, its "
           "flight time would be 0 and the ball would stick to it, so it is left out. Every other wall is met within half a turn (Exercise 9.1), so the minimum always exists.")


# ---- Exercise 9.3: the bounce --------------------------------------------------------------------------

def _bounce_cases():
    """One bounce: the balls of Exercise 9.2, and one whose alpha and beta have drifted off unit length."""
    cases = _ball_cases()
    alpha, beta, K, y = cases[0].args
    cases.append(Case("alpha and beta have drifted off unit length (by +1e-4 and -1e-4 in the K-norm, as rounding "
                      "does over many bounces, exaggerated): return both at unit length",
                      ((1 + 1e-4) * alpha, (1 - 1e-4) * beta, K, y)))
    return cases


def _unit(v, K):
    return v / np.sqrt(v @ K @ v)




def _bounce_diagnosis(expected, got, case):
    alpha, beta, K = case.args[:3]
    want = expected
    problem = _close(want, got)
    if problem is None or not isinstance(got, tuple) or len(got) != 4 or not _right_type(want, got):
        return problem
    got_alpha, got_beta, wall, arc = np.asarray(got[0], float), np.asarray(got[1], float), got[2], float(got[3])
    if wall != want[2]:
        return Problem(problem, "wrong-wall", "Your wall is not the nearest one (the wall Exercise 9.2's next_wall "
                                              "returns, never last_wall).")
    norms = got_alpha @ K @ got_alpha, got_beta @ K @ got_beta
    unit = max(abs(norms[0] - 1), abs(norms[1] - 1)) < 1e-8
    drifted = max(abs(alpha @ K @ alpha - 1), abs(beta @ K @ beta - 1)) > 1e-8
    near = allclose(rtol=0, atol=1e-3)
    if drifted and unit and near(want, (got_alpha, got_beta, wall, arc)) is None:
        return None          # normalised in another order (e.g. alpha and beta first): the same bounce, to 1e-3
    if not unit and _close(want[:2], (_unit(got_alpha, K), _unit(got_beta, K))) is None:
        which = "alpha' and beta'" if abs(norms[0] - 1) > 1e-8 and abs(norms[1] - 1) > 1e-8 else \
            "alpha'" if abs(norms[0] - 1) > 1e-8 else "beta'"
        return Problem(problem, "not-renormalised", f"Right up to length: your {which} do not have unit length in "
                       "feature space (w'K w = 1). Divide each by its K-norm at the end of the bounce; the ball drifts "
                       "off the sphere otherwise.")
    if near(want[3], arc) is not None:
        return Problem(problem, "arc", "Your arc is not the flight time to the wall (Exercise 9.2's).")
    if _close(want[0], _unit(got_alpha, K)) is not None:
        return Problem(problem, "move", "The position after the flight is off: move along the great circle "
                                        "cos t w + sin t v by the flight time t to the wall.")
    moved = -np.sin(arc) * alpha + np.cos(arc) * beta            # the direction turned with the ball, not reflected
    along = K[wall] @ moved                                      # <v', phi(x_c)>
    kcc = K[wall, wall]

    def flipped(step, start=moved):
        out = np.array(start, dtype=float)
        out[wall] -= step
        return out

    correct = flipped(2 * along / kcc)
    row = K[wall]
    candidates = [
        ("no-reflection", moved, "Your direction is not reflected at all: at the wall, the component of the "
         "direction along the wall's normal changes sign."),
        ("reflection-without-kernel", flipped(2 * moved[wall]), "You flipped the coefficient beta'_c itself: the "
         "component along the normal is an inner product in feature space, <v', phi(x_c)>, which needs the kernel "
         "(every beta'_i contributes)."),
        ("reflection-in-coefficient-space", moved - 2 * (moved @ row) / (row @ row) * row, "You reflected the "
         "coefficient vector at a plane of coefficient space: the reflection happens in feature space, where the "
         "normal is phi(x_c) itself, whose coefficients are not row c of K."),
        ("normal-norm-missing", flipped(2 * along), "The normal phi(x_c) does not have unit length: divide the "
         "component by its squared length, k(x_c, x_c)."),
        ("normal-norm-not-squared", flipped(2 * along / np.sqrt(kcc)), "The projection on the normal divides by "
         "its SQUARED length, <phi(x_c), phi(x_c)> = k(x_c, x_c), not by its length."),
        ("wrong-sign", flipped(-2 * along / kcc), "Wrong sign: you added twice the component along the normal; "
         "reflecting subtracts it twice, so that it changes sign."),
        ("component-removed", flipped(along / kcc), "You removed the component along the normal (the direction "
         "now runs along the wall): a reflection flips it, which subtracts it twice."),
        ("reversed", -correct, "Your direction is reversed: only its component along the normal changes sign, "
         "the part along the wall keeps going the same way."),
        ("direction-not-turned", flipped(2 * (K[wall] @ beta) / kcc, beta), "The direction was reflected where "
         "the flight began: after the move, the direction turns with the ball (-sin t w + cos t v), then reflect."),
    ]
    for mistake, value, words in candidates:
        for shown in (value, _unit(value, K)):
            if _close(shown, got_beta) is None:
                return Problem(problem, mistake, words)
    return Problem(problem, "reflection", "Position and arc are right, the direction is not: after the move the "
                   "direction turns with the ball, and then only its component along the wall's normal phi(x_c) "
                   "changes sign.")


nb09_exercise_3 = Exercise(
    "nb09_exercise_3", "Exercise 9.3 (the bounce: move and reflect)",
    _billiard_ball.billiard_bounce, _bounce_cases, points=3, compare=_bounce_diagnosis,
    closed=("kgslab.billiard_ball.KernelBilliard.step",),
    hint="two steps after next_wall: rotate the pair (position, direction) along the great circle by the arc; then "
         "flip the direction's component along the wall's normal in feature space, with inner products and "
         "lengths taken by the kernel; finally both at unit length in feature space.",
    code_hint="alpha' = cos t alpha + sin t beta and beta' = -sin t alpha + cos t beta; <v', phi(x_c)> is entry c of "
              "K @ beta', ||phi(x_c)||^2 is K[c, c]; phi(x_c)'s coefficient vector is the c-th unit vector, so the "
              "flip changes beta'[c] only; divide a vector v by np.sqrt(v @ K @ v).",
    worked="The wall of training point $c$ is the hyperplane $\\langle\\mathbf{w},\\phi(\\mathbf{x}_c)\\rangle = 0$, "
           "with normal $\\mathbf{n} = \\phi(\\mathbf{x}_c) = \\sum_i\\delta_{ic}\\phi(\\mathbf{x}_i)$: its "
           "coefficients are the unit vector $\\mathbf{e}_c$. The direction's component along it is "
           "$\\frac{\\langle\\mathbf{v}',\\mathbf{n}\\rangle}{\\langle\\mathbf{n},\\mathbf{n}\\rangle}\\mathbf{n}$ with "
           "$\\langle\\mathbf{v}',\\mathbf{n}\\rangle = \\sum_i\\beta'_i k(\\mathbf{x}_i,\\mathbf{x}_c) = "
           "(\\mathbf{K}\\boldsymbol\\beta')_c$ and $\\langle\\mathbf{n},\\mathbf{n}\\rangle = k(\\mathbf{x}_c,"
           "\\mathbf{x}_c)$. Flipping it subtracts it twice:\n\n$$\\mathbf{v}'' = \\mathbf{v}' - 2\\,\\frac{\\langle"
           "\\mathbf{v}',\\phi(\\mathbf{x}_c)\\rangle}{k(\\mathbf{x}_c,\\mathbf{x}_c)}\\,\\phi(\\mathbf{x}_c),\\qquad "
           "\\beta''_c = \\beta'_c - 2\\,\\frac{(\\mathbf{K}\\boldsymbol\\beta')_c}{K_{cc}},$$\n\nevery other "
           "coefficient unchanged. A reflection keeps lengths, so $\\|\\mathbf{v}''\\| = 1$; and since the ball sits "
           "on the wall, $\\langle\\mathbf{w}',\\mathbf{n}\\rangle = 0$, so $\\langle\\mathbf{w}',\\mathbf{v}''\\rangle "
           "= \\langle\\mathbf{w}',\\mathbf{v}'\\rangle = 0$: the direction stays a unit tangent, and the slope of "
           "wall $c$ changes sign, so the ball leaves it back into version space. The renormalisation "
           "$\\boldsymbol\\alpha/\\sqrt{\\boldsymbol\\alpha^\\top\\mathbf{K}\\boldsymbol\\alpha}$ only removes "
           "rounding, which over thousands of bounces would pull the ball off the sphere. This bounce recomputes "
           "$\\mathbf{K}\\boldsymbol\\alpha$ and $\\mathbf{K}\\boldsymbol\\beta$ ($O(\\ell^2)$); the kit's "
           "`KernelBilliard` keeps them up to date: a flight rotates them, a reflection subtracts a multiple of one "
           "row of $\\mathbf{K}$ ($O(\\ell)$).")


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
              "rates; count accepted and wrong per row with sums.",
    worked="With the thresholds as a column and the confidences as a row, one comparison gives the boolean matrix "
           "of rejected points (thresholds x points); its row means are the rejection rates, and per row the "
           "wrong accepted points divided by the accepted ones are the errors. The rejected sets are nested (a "
           "larger $\\theta$ rejects every point a smaller one did), so the rejection rate never falls, while the "
           "error on the rest may rise or fall: it falls only when the rejected points are wrong more often than "
           "the kept ones, which is what a good confidence measure achieves. Where nothing is kept, 0/0 is no "
           "error rate, hence NaN, which a plot leaves out.")

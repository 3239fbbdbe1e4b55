"""Checks for notebook 08 (the kernel Gibbs sampler, seed 001): crossing angles, arc errors by sweep, one full
step of the sampler, the vote draws of several chains."""

from __future__ import annotations

import copy

import numpy as np

from .. import circle as _kit_circle, kgs as _kgs
from ..kernels import linear_kernel, rbf_kernel
from ..versionspace import random_tangent
from .cases import Case
from .exercise import Exercise
from .values import Problem, allclose

__all__ = ["nb08_exercise_1", "nb08_exercise_2", "nb08_exercise_3", "nb08_exercise_4"]


def _circle(m, seed, L=None):
    """Outputs <w, x_i>, <v, x_i> of a unit w and a unit v orthogonal to it, and labels."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, 3))
    K = linear_kernel(X) if L is None else rbf_kernel(X, L=L)
    features, _ = _kgs.kernel_coordinates(K)
    w = rng.standard_normal(features.shape[1])
    w /= np.linalg.norm(w)
    v = random_tangent(w, rng)
    y = np.where(rng.random(m) < 0.5, 1.0, -1.0)
    return features @ w, features @ v, y


def _angle_cases():
    cases = [Case("one point: <w,x> = 1, <v,x> = 0, y = +1 (errors from pi/2 to 3pi/2)",
                  (np.array([1.0]), np.array([0.0]), np.array([1.0]))),
             Case("two points in the plane: <w,x> = (1, -0.5), <v,x> = (1, 2), y = (+1, -1)",
                  (np.array([1.0, -0.5]), np.array([1.0, 2.0]), np.array([1.0, -1.0])))]
    cases.append(Case("8 points in R^3, linear kernel", _circle(8, seed=1)))
    cases.append(Case("20 points, RBF kernel (L = 1)", _circle(20, seed=2, L=1.0)))
    return cases


def _sweep_cases():
    cases = []
    for label, (w_out, v_out, y) in [("one point as above", (np.array([1.0]), np.array([0.0]), np.array([1.0]))),
                                     ("8 points in R^3, linear kernel", _circle(8, seed=3)),
                                     ("30 points, RBF kernel (L = 1)", _circle(30, seed=4, L=1.0))]:
        cases.append(Case(label, (_kit_circle.crossing_angles(w_out, v_out, y),)))
    return cases


# ---- one full step ------------------------------------------------------------------------------

def _step_case(label, m, seed, q, L=None, flips=0, start_in_version_space=False):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, 3))
    y = np.sign(X[:, 0] + 0.3 * X[:, 1])
    y[:flips] *= -1
    features, _ = _kgs.kernel_coordinates(linear_kernel(X) if L is None else rbf_kernel(X, L=L))
    if start_in_version_space:
        w = _kgs.consistent_start(features, y)
    else:
        w = rng.standard_normal(features.shape[1])
        w /= np.linalg.norm(w)
    v = random_tangent(w, rng)
    # the generator the step must use, as the notebook passes it: each call gets a fresh copy in the same state
    return Case(label, (features, y, w, v, q, np.random.default_rng(seed + 100)))


def _step_cases():
    return [_step_case("8 points in R^3 (linear kernel), q = 0.2, two labels flipped", 8, seed=11, q=0.2, flips=2),
            _step_case("12 points in R^3, q = 0 from a point of version space", 12, seed=12, q=0.0,
                       start_in_version_space=True),
            _step_case("25 points, RBF kernel (L = 1, 25 coordinates), q = 0.1, three labels flipped", 25, seed=13,
                       q=0.1, L=1.0, flips=3)]


def _step_slip(got, case):
    """(id, words) of a recognised slip of steps 6-8 that lands `got` elsewhere on the right circle, or None.

    Each slip is replayed with a copy of the case's generator, so its draw is the one the step would make.
    """
    features, y, w, v, q, rng = case.args
    features, y, w, v = (np.asarray(a, dtype=float) for a in (features, y, w, v))
    angles = _kit_circle.crossing_angles(features @ w, features @ v, y)
    boundaries, errors = _kit_circle.arc_errors_by_sweep(angles)
    m = len(y)
    slips = [("error-sign", boundaries, m - errors, 1.0,
              "your step drew the angle as if the arcs' counts were of correct points, not of errors (m - e "
              "for e): the error count goes up where a point becomes an error and down where it becomes correct "
              "again (Exercise 8.2), and eq. (3) weights an arc by q^e (1 - q)^(m - e) with e its errors"),
             ("sine-sign", boundaries, errors, -1.0,
              "your step drew the right angle theta but moved to cos(theta) w - sin(theta) v: the circle of steps "
              "3-8 is w(theta) = cos(theta) w + sin(theta) v, the one the crossing angles were computed on")]
    for name, bounds, counts, sign, words in slips:
        try:
            theta = _kit_circle.sample_angle(bounds, counts, q, copy.deepcopy(rng))
        except Exception:       # the slip's density is not a density here: not this slip
            continue
        slipped = np.cos(theta) * w + sign * np.sin(theta) * v
        if np.allclose(got, slipped, rtol=1e-9, atol=1e-9):
            return name, words
    return None


def _compare_step(expected, got, case):
    problem = allclose(rtol=1e-9, atol=1e-9)(expected, got)
    if problem is None or not isinstance(got, np.ndarray) or got.shape != expected.shape \
            or got.dtype.kind not in "iuf" or not np.all(np.isfinite(got)):
        return problem
    w, v = case.args[2], case.args[3]
    length = float(np.linalg.norm(got))
    if abs(length - 1) > 1e-6:
        return Problem(problem, "not-unit", f"your new point has length {length:.4g}, not 1: every hypothesis lies "
                                            f"on the unit sphere, and the point of step 8 is on the great circle "
                                            f"through w in direction v")
    off_circle = got - (got @ w) * w - (got @ v) * v
    if np.linalg.norm(off_circle) > 1e-6:
        return Problem(problem, "off-circle", "your new point is a unit vector but not on the great circle through "
                                              "w in direction v (step 8)")
    if np.allclose(got, w, atol=1e-9):
        return Problem(problem, "did-not-move", "your new point is the current point w: step 8 moves to the drawn "
                                                "angle theta")
    slip = _step_slip(got, case)
    if slip is not None:
        return Problem(problem, *slip)
    return Problem(problem, "wrong-angle", "your new point lies on the right great circle but at another angle. The "
                   "angle must come from the arcs of Exercises 8.1-8.2 (the crossings of w and v with the training "
                   "points, and the arc errors), drawn by the kit's step-7 function with the generator rng given, "
                   "and nothing else drawn from it before")


# ---- the vote draws -----------------------------------------------------------------------------

def _vote_cases():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((6, 2))
    return [
        Case("1 chain of 2 samples on 2 training points, 2 test points",
             (np.array([[[1.0, 0.0], [0.0, 1.0]]]), np.array([[1.0, 1.0], [1.0, -1.0]]))),
        Case("3 chains of 5 samples, 6 training points, 4 test points (RBF)",
             (rng.standard_normal((3, 5, 6)), rbf_kernel(X[:4] + 0.1, X))),
        Case("a test point with output exactly 0 (counts as no vote for +1)",
             (np.array([[[1.0, -1.0]], [[2.0, 1.0]]]), np.array([[1.0, 1.0]]))),
    ]


def _compare_votes(expected, got):
    problem = allclose()(expected, got)
    if not problem or not isinstance(got, np.ndarray) or got.dtype.kind not in "iuf":
        return problem                              # right, or a wrong type (booleans: the problem says so)
    if got.size == expected.size and got.shape != expected.shape:
        return Problem(problem, "shape", "the draws are indexed (chain, sample, test point), so that the "
                                         "diagnostics can compare the chains")
    if got.shape == expected.shape and np.all(np.isin(got, (0, 1))):
        return Problem(problem, "votes-flipped", "some votes are the other way round; a sample votes 1 on a test "
                                                 "point when its output there is positive (eq. 4), 0 otherwise")
    return problem


nb08_exercise_1 = Exercise(
    "nb08_exercise_1", "Exercise 8.1 (crossing angles, steps 3-4)",
    _kit_circle.crossing_angles, _angle_cases, points=3,
    closed=("kgslab.crossings.crossing_angle", "kgslab.crossings.crossing_half_angles"),
    compare=allclose(rtol=1e-9, atol=1e-9),
    hint="write the margin a_i cos(theta) + b_i sin(theta) of each point as one cosine with a "
         "phase: where is it positive, and where does it change sign? Check the order (the m 'becomes an error' "
         "angles first) and the range: every angle in [0, 2 pi), including those past 2 pi.",
    code_hint="the polar angle of (a, b) is np.arctan2(b, a) (in (-pi, pi]); shift it by pi / 2 and by 3 pi / 2 "
              "and wrap both into [0, 2 pi) with np.mod before joining the two halves.")


nb08_exercise_2 = Exercise(
    "nb08_exercise_2", "Exercise 8.2 (arc errors by one sweep, step 6)",
    _kit_circle.arc_errors_by_sweep, _sweep_cases, points=3, closed=("kgslab.circle.arc_errors_direct",),
    compare=allclose(rtol=1e-9, atol=1e-9),
    hint="walking round the circle from theta = 0, every crossing changes the count by one: up at a 'becomes "
         "an error' angle (the first half of the input), down at a 'becomes correct' angle. The sum needs a "
         "start: the number of points that are errors at theta = 0, which each point's two angles "
         "tell you. errors[k] is the "
         "count just after the k-th boundary, so the last arc holds the current point.",
    code_hint="sort the angles and remember where each came from (np.argsort): an index below m is +1, else -1; "
              "a running total (np.cumsum) started from the count at theta = 0 gives every arc.")


nb08_exercise_3 = Exercise(
    "nb08_exercise_3", "Exercise 8.3 (one full step of the KGS, steps 3-8)",
    _kit_circle.step_on_circle, _step_cases, points=4, closed=("kgslab.circle.gibbs_step",),
    compare=_compare_step,
    hint="the step needs the outputs of w and of v on the training points (the features are their coordinates), "
         "your crossing angles and arc errors (Exercises 8.1-8.2), one angle theta drawn from the arcs by the kit's "
         "sample_angle with the q and the generator given (the only random draw of the step), and the point "
         "of the great circle at theta (step 8).",
    code_hint="the outputs are matrix-vector products of features with coords and with direction; pass them and "
              "y to your crossing_angles, its result to your arc_errors_by_sweep, and the boundaries and errors "
              "with q and rng to sample_angle; the new point is cos(theta) coords + sin(theta) direction.")


nb08_exercise_4 = Exercise(
    "nb08_exercise_4", "Exercise 8.4 (the vote draws of several chains, eq. 4)",
    _kit_circle.vote_draws, _vote_cases, points=2,
    compare=_compare_votes,
    hint="sample j of chain c votes 1 on test point x when its output sum_i alpha_i k(x_i, x) is positive, 0 "
         "otherwise (an output of exactly 0 is no vote for +1). The result keeps the chains apart: shape "
         "(n_chains, n_samples, n_test), floats 0.0 and 1.0.",
    code_hint="K_test @ alphas[c].T gives the outputs of chain c, (n_test, n_samples); one product for all chains "
              "is alphas @ K_test.T, (n_chains, n_samples, n_test). Compare with 0 and convert with astype(float).")

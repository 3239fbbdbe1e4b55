"""Checks for notebook 08 (the kernel Gibbs sampler, seed 001): crossing angles, arc errors by sweep, the vote."""

from __future__ import annotations

import numpy as np

from .. import kgs as reference
from ..kernels import linear_kernel, rbf_kernel
from .core import Case, Exercise, allclose

__all__ = ["nb08_exercise_1", "nb08_exercise_2", "nb08_exercise_3"]


def _circle(m, seed, L=None):
    """Outputs <w, x_i>, <v, x_i> of a unit w and a unit v orthogonal to it, and labels."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, 3))
    K = linear_kernel(X) if L is None else rbf_kernel(X, L=L)
    features, _ = reference.kernel_coordinates(K)
    w = rng.standard_normal(features.shape[1])
    w /= np.linalg.norm(w)
    v = rng.standard_normal(features.shape[1])
    v -= (v @ w) * w
    v /= np.linalg.norm(v)
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
        cases.append(Case(label, (reference.crossing_angles(w_out, v_out, y),)))
    return cases


def _vote_cases():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((6, 2))
    alphas = rng.standard_normal((7, 6))
    return [
        Case("2 samples on 2 training points, 2 test points",
             (np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[1.0, 1.0], [1.0, -1.0]]))),
        Case("7 samples, 6 training points, 4 test points (RBF)", (alphas, rbf_kernel(X[:4] + 0.1, X))),
        Case("a test point with output exactly 0 (counts as no vote for +1)",
             (np.array([[1.0, -1.0]]), np.array([[1.0, 1.0]]))),
    ]


nb08_exercise_1 = Exercise(
    "nb08_exercise_1", "Crossing angles (steps 3-4)",
    reference.crossing_angles, _angle_cases, points=3,
    compare=allclose(rtol=1e-9, atol=1e-9),
    hint="with a = y * w_outputs and b = y * v_outputs the margin on the circle is "
         "a cos(theta) + b sin(theta) = R cos(theta - phi), phi = np.arctan2(b, a); point i "
         "becomes an error at phi + pi/2 and correct at phi + 3 pi/2. Reduce both with "
         "np.mod(..., 2 * np.pi) and return np.concatenate([becomes_error, becomes_correct]).")


nb08_exercise_2 = Exercise(
    "nb08_exercise_2", "Arc errors by one sweep (step 6)",
    reference.arc_errors_by_sweep, _sweep_cases, points=3,
    compare=allclose(rtol=1e-9, atol=1e-9),
    hint="the first m angles are 'becomes an error', the last m 'becomes correct'. Just after "
         "theta = 0 point i is wrong exactly when angles[i] > angles[m + i]. Sort the angles "
         "(np.argsort), give each crossing +1 or -1 and take np.cumsum: errors[k] is the count "
         "after the k-th boundary. Return (sorted angles, errors).")


nb08_exercise_3 = Exercise(
    "nb08_exercise_3", "The vote (eq. 4)",
    reference.vote, _vote_cases, points=2,
    compare=allclose(),
    hint="the outputs of sample j on the test points are K_test @ alphas[j]; all at once "
         "K_test @ alphas.T has shape (n_test, n_samples). Count the outputs > 0 and average "
         "over the samples (axis=1).")

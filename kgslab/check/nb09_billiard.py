"""Checks for notebook 09 (the kernel billiard and Bayesian transduction, seed 002)."""

from __future__ import annotations

import numpy as np

from .. import billiard
from ..papers import bt1999
from .core import Case, Exercise, allclose

__all__ = ["nb09_exercise_1", "nb09_exercise_2", "nb09_exercise_3", "nb09_exercise_4"]


def _tangent_pair(K, y, seed):
    """A unit position inside version space and a unit direction orthogonal to it, as coefficients."""
    alpha = billiard.version_space_start(K, y)
    beta = np.random.default_rng(seed).standard_normal(len(y))
    beta -= (alpha @ K @ beta) * alpha
    return alpha, beta / np.sqrt(beta @ K @ beta)




def _nb09_exercise_1_cases():
    """t_j = atan2(margin_j, -slope_j): the arc to each wall along the great circle."""
    rng = np.random.default_rng(0)
    cases = [Case("walls ahead and behind", (np.array([0.5, 0.2, 0.9, 0.1]), np.array([-1.0, 0.3, -0.1, 0.0]))),
             Case("20 random walls", (rng.uniform(0, 1, 20), rng.standard_normal(20))),
             Case("a wall the ball sits on, moving away", (np.array([0.0, 0.4]), np.array([0.5, -0.5])))]
    return cases


nb09_exercise_1 = Exercise(
    "nb09_exercise_1", "Exercise 9.1 (flight times on the sphere)",
    billiard.flight_times, _nb09_exercise_1_cases, points=2,
    hint="margin cos t + slope sin t = 0 gives tan t = -margin / slope; np.arctan2(margin, "
         "-slope) picks the root in [0, pi] (below pi/2 when the slope is negative).")


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
    return cases


nb09_exercise_2 = Exercise(
    "nb09_exercise_2", "Exercise 9.2 (one bounce of the kernel billiard)",
    billiard.billiard_bounce, _nb09_exercise_2_cases, points=4,
    compare=allclose(rtol=1e-7, atol=1e-9),
    hint="margins = y * (K @ alpha), slopes = y * (K @ beta); the nearest wall c has the "
         "smallest flight time; move: alpha' = cos t alpha + sin t beta, beta' = -sin t alpha "
         "+ cos t beta; reflect: beta'[c] -= 2 (K[c] @ beta') / K[c, c]. Return "
         "(alpha', beta', c, t).")


def _nb09_exercise_3_cases():
    """Eq. (8): the smallest n with exp(-2 n epsilon^2) <= eta."""
    cases = [Case("epsilon = 0.05, eta = 0.01 (the paper)", (0.05, 0.01)),
             Case("epsilon = 0.1, eta = 0.05", (0.1, 0.05)),
             Case("epsilon = 0.01, eta = 0.001", (0.01, 0.001))]
    return cases


nb09_exercise_3 = Exercise(
    "nb09_exercise_3", "Exercise 9.3 (Hoeffding's stopping rule, eq. 8)",
    billiard.hoeffding_bounces, _nb09_exercise_3_cases, points=1,
    compare=allclose(rtol=0, atol=0.5),
    hint="solve exp(-2 n eps^2) = eta for n and round UP to an integer: "
         "n = ceil(ln(1 / eta) / (2 eps^2)).")


def _nb09_exercise_4_cases():
    """Rejection rate and error on the accepted points, for each threshold."""
    rng = np.random.default_rng(3)
    confidence = rng.uniform(0, 1, 50)
    correct = rng.uniform(0, 1, 50) < 0.5 + 0.5 * confidence
    cases = [Case("50 points, thresholds 0 .. 0.9", (confidence, correct, np.linspace(0, 0.9, 10))),
             Case("a tie: confidence equal to the threshold is kept",
                  (np.array([0.2, 0.5, 0.5, 0.9]), np.array([True, False, True, True]), np.array([0.5])))]
    return cases


nb09_exercise_4 = Exercise(
    "nb09_exercise_4", "Exercise 9.4 (error against rejection rate)",
    bt1999.error_rejection_curve, _nb09_exercise_4_cases, points=2,
    hint="reject the points with confidence < theta; the error is the fraction of "
         "wrong labels among the points NOT rejected. Return (rejection, error).")

"""Checks for notebook 10 (the kernel Fisher discriminant under label noise, seed 003).

Exercises 10.1-10.4: the two flip-rate conventions, the E-step, the M-step and
the kernel Fisher direction.  Labels inside these functions are class
indices 0 / 1 (y_index), flip rates are in the kit's convention
gamma_k = P(y != k | yhat = k).
"""

from __future__ import annotations

import numpy as np

from .. import kfd
from .core import Case, Exercise, allclose

__all__ = ["nb10_exercise_1", "nb10_exercise_2", "nb10_exercise_3", "nb10_exercise_4"]


def _posterior_case(n, seed, d=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * [3.0, 1.0][:d] + rng.normal(size=d)
    y_index = (rng.random(n) < 0.4).astype(int)
    y_index[:2] = [0, 1]                                   # both classes present
    p_one = rng.random(n)
    return X, np.column_stack([1 - p_one, p_one]), y_index


def _nb10_exercise_1_cases():
    """flip_rates_from_noise_rates(noise_rates, true_priors) -> (observed_priors, flip_rates)."""
    cases = [Case("the paper's toy: noise 0.2 both ways, priors 0.8 / 0.2", ([0.2, 0.2], [0.8, 0.2])),
             Case("one-sided noise 0.3 on class 0, priors 0.5 / 0.5", ([0.3, 0.0], [0.5, 0.5])),
             Case("no noise", ([0.0, 0.0], [0.3, 0.7]))]
    return cases


nb10_exercise_1 = Exercise(
    "nb10_exercise_1", "Exercise 10.1 (from noise rates to flip rates)",
    kfd.flip_rates_from_noise_rates, _nb10_exercise_1_cases, points=2,
    hint="first P(yhat = k) = sum_j P(yhat = k | y = j) P(y = j); then Bayes: "
         "gamma_0 = P(y = 1 | yhat = 0) = P(yhat = 0 | y = 1) P(y = 1) / P(yhat = 0).")


def _nb10_exercise_2_cases():
    """e_step(log_density, y_index, flip_rates) -> (posterior (n, 2), log_likelihood)."""
    cases = []
    for n, rates, seed in [(6, (0.1, 0.3), 1), (40, (0.25, 0.05), 2), (30, (0.0, 0.2), 3)]:
        rng = np.random.default_rng(seed)
        log_density = rng.normal(size=(n, 2)) * 3 - 2
        y_index = (rng.random(n) < 0.5).astype(int)
        cases.append(Case(f"{n} points, flip rates {rates}", (log_density, y_index, np.array(rates))))
    return cases


nb10_exercise_2 = Exercise(
    "nb10_exercise_2", "Exercise 10.2 (the E-step)",
    kfd.e_step, _nb10_exercise_2_cases, points=3,
    compare=allclose(rtol=1e-7, atol=1e-10),
    hint="for a point labelled k, P(y = k | yhat = k) = 1 - gamma_k and P(y != k | yhat = k) = "
         "gamma_k; add their logs to log_density, normalise each row with logsumexp, and sum "
         "the row logsumexps for the log-likelihood. A rate of 0 gives log 0 = -inf: let it.")


def _nb10_exercise_3_cases():
    """m_step(X, posterior, y_index, shared_covariance) -> (means, covariances, flip_rates)."""
    cases = []
    for n, shared, seed in [(8, False, 4), (50, False, 5), (50, True, 6)]:
        X, posterior, y_index = _posterior_case(n, seed)
        cases.append(Case(f"{n} points in R^2, shared_covariance={shared}", (X, posterior, y_index, shared)))
    return cases


nb10_exercise_3 = Exercise(
    "nb10_exercise_3", "Exercise 10.3 (the M-step)",
    kfd.m_step, _nb10_exercise_3_cases, points=3,
    hint="N_y = sum_n q_n(y); m_y = sum_n q_n(y) x_n / N_y; C_y = sum_n q_n(y) (x_n - m_y)"
         "(x_n - m_y)' / N_y (maximum likelihood: divide by N_y, not N_y - 1); shared: one "
         "C = sum over both classes / N; gamma_k = mean of q_n(1 - k) over the points labelled k.")


def _nb10_exercise_4_cases():
    """fisher_direction(K_basis, posterior, mu) -> alpha (b,)."""
    cases = []
    for n, b, mu, seed in [(12, 4, 0.1, 7), (60, 10, 1e-3, 8), (40, 40, 1.0, 9)]:
        rng = np.random.default_rng(seed)
        K_basis = rng.normal(size=(n, b))
        _, posterior, _ = _posterior_case(n, seed)
        cases.append(Case(f"{n} points, {b} basis points, mu = {mu:g}", (K_basis, posterior, mu)))
    return cases


nb10_exercise_4 = Exercise(
    "nb10_exercise_4", "Exercise 10.4 (the kernel Fisher direction)",
    kfd.fisher_direction, _nb10_exercise_4_cases, points=3,
    compare=allclose(rtol=1e-6, atol=1e-9),
    hint="M_y = sum_n q_n(y) k_n / N_y (rows of K_basis are k_n); N = sum_y sum_n q_n(y) "
         "(k_n - M_y)(k_n - M_y)' (not divided by anything); alpha = solve(N + mu I, M_1 - M_0).")

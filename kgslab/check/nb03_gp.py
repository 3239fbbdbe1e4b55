"""Checks for notebook 03 (GP regression and its evidence, coursework Exercise 4).

The references are `kgslab.regression.log_evidence` (eq. 16) and
`kgslab.regression.gp_posterior` (eqs. 13-14).
"""

from __future__ import annotations

import numpy as np

from .. import regression
from ..data import sinc_data
from ..kernels import rbf_kernel
from .core import Case, Exercise, allclose

__all__ = ["nb03_exercise_4a", "nb03_exercise_4b"]


def _log_evidence_scalar(K, y, sigma2):
    return float(regression.log_evidence(K, y, sigma2))


def _nb03_exercise_4a_cases():
    """The log evidence ln p(y) of eq. (16) for one sigma^2."""
    cases = []
    for n, L, sigma2, seed in [(10, 0.5, 0.09, 1), (25, 0.5, 1e-3, 2), (20, 2.0, 1.0, 3)]:
        X, y = sinc_data(n, random_state=seed)
        cases.append(Case(f"{n} sinc points, L = {L:g}, sigma2 = {sigma2:g}", (rbf_kernel(X, L=L), y, sigma2)))
    return cases


nb03_exercise_4a = Exercise(
    "nb03_exercise_4a", "Exercise 4a (log evidence, eq. 16)",
    _log_evidence_scalar, _nb03_exercise_4a_cases, points=3,
    compare=allclose(rtol=1e-7),
    hint="C = K + sigma2 I; ln p(y) = -y'C^{-1}y / 2 - ln det(C) / 2 - (l/2) ln(2 pi). "
         "Use a Cholesky factor (scipy.linalg.cho_factor / cho_solve) or "
         "np.linalg.slogdet: det(C) itself under- or overflows.")


def _nb03_exercise_4b_cases():
    """The GP posterior mean (eq. 13) and error bar sigma_error^2 (eq. 14) at test points."""
    cases = []
    for n, L, sigma2, seed in [(15, 0.5, 0.09, 4), (30, 1.0, 0.01, 5)]:
        X, y = sinc_data(n, random_state=seed)
        X_test = np.linspace(-4, 4, 7)[:, None]
        cases.append(Case(f"{n} sinc points, 7 test points, L = {L:g}, sigma2 = {sigma2:g}",
                          (rbf_kernel(X, L=L), rbf_kernel(X_test, X, L=L), np.ones(7), y, sigma2)))
    return cases


nb03_exercise_4b = Exercise(
    "nb03_exercise_4b", "Exercise 4b (GP posterior, eqs. 13-14)",
    regression.gp_posterior, _nb03_exercise_4b_cases, points=3,
    compare=allclose(rtol=1e-6, atol=1e-9),
    hint="return a tuple (mean, var): mean = K_test (K + sigma2 I)^{-1} y and "
         "var = k_test_diag - diag(K_test (K + sigma2 I)^{-1} K_test'); var is "
         "sigma_error^2, without the noise sigma2.")

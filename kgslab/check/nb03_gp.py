"""Checks for notebook 03 (GP regression and its evidence, coursework Exercise 4).

The references are `kgslab.regression.log_evidence` (eq. 16) and
`kgslab.regression.gp_posterior` (eqs. 13-14).
"""

from __future__ import annotations

import numpy as np

from .. import regression
from ..data import sinc_data
from ..kernels import rbf_kernel
from .core import Case, allclose, run_exercise

__all__ = ["exercise_4a", "exercise_4b"]


def _log_evidence_scalar(K, y, sigma2):
    return float(regression.log_evidence(K, y, sigma2))


def exercise_4a(student):
    """The log evidence ln p(y) of eq. (16) for one sigma^2."""
    cases = []
    for n, L, sigma2, seed in [(10, 0.5, 0.09, 1), (25, 0.5, 1e-3, 2), (20, 2.0, 1.0, 3)]:
        X, y = sinc_data(n, random_state=seed)
        cases.append(Case(f"{n} sinc points, L = {L:g}, sigma2 = {sigma2:g}", (rbf_kernel(X, L=L), y, sigma2)))
    return run_exercise("Exercise 4a (log evidence, eq. 16)", student, _log_evidence_scalar, cases,
                        compare=allclose(rtol=1e-7),
                        hint="C = K + sigma2 I; ln p(y) = -y'C^{-1}y / 2 - ln det(C) / 2 - (l/2) ln(2 pi). "
                             "Use a Cholesky factor (scipy.linalg.cho_factor / cho_solve) or "
                             "np.linalg.slogdet: det(C) itself under- or overflows.")


def exercise_4b(student):
    """The GP posterior mean (eq. 13) and error bar sigma_error^2 (eq. 14) at test points."""
    cases = []
    for n, L, sigma2, seed in [(15, 0.5, 0.09, 4), (30, 1.0, 0.01, 5)]:
        X, y = sinc_data(n, random_state=seed)
        X_test = np.linspace(-4, 4, 7)[:, None]
        cases.append(Case(f"{n} sinc points, 7 test points, L = {L:g}, sigma2 = {sigma2:g}",
                          (rbf_kernel(X, L=L), rbf_kernel(X_test, X, L=L), np.ones(7), y, sigma2)))
    return run_exercise("Exercise 4b (GP posterior, eqs. 13-14)", student, regression.gp_posterior, cases,
                        compare=allclose(rtol=1e-6, atol=1e-9),
                        hint="return a tuple (mean, var): mean = K_test (K + sigma2 I)^{-1} y and "
                             "var = k_test_diag - diag(K_test (K + sigma2 I)^{-1} K_test'); var is "
                             "sigma_error^2, without the noise sigma2.")

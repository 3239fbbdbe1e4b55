"""Checks for notebook 03 (GP regression and its evidence, coursework Exercise 4).

The references are `kgslab.regression.log_evidence` (eq. 16) and
`kgslab.regression.gp_posterior` (eqs. 13-14); the two experiments (the
evidence curve over sigma^2 of 4a, the curve over the kernel width L of 4c)
are `kgslab.papers.coursework`'s `evidence_curve` and `evidence_over_widths`.

Two cases are there to make the notebook's numerical advice visible to the check:

* 400 sinc points (sigma^2 = 0.1): det(K + sigma^2 I) underflows to 0, so ``np.log(np.linalg.det(...))``
  gives -inf where the log evidence is an ordinary number;
* targets that the kernel fits exactly (y = (K + sigma^2 I) a, sigma^2 = 1e-11, condition
  number about 3e12): ``np.linalg.inv`` loses 4-5 digits of y'(K + sigma^2 I)^{-1} y and of
  the posterior mean, a linear solve (Cholesky, LU) loses none.
"""

from __future__ import annotations

import numpy as np

from .. import regression as _regression
from ..data import sinc_data
from ..kernels import rbf_kernel
from ..papers import coursework as _coursework
from .cases import Case
from .exercise import Exercise
from .values import Problem, allclose, is_real_number

__all__ = ["nb03_exercise_4a", "nb03_exercise_4a_curve", "nb03_exercise_4b", "nb03_exercise_4c"]

_ILL_CONDITIONED = "ill-conditioned: y = (K + sigma2 I) a fitted exactly, sigma2 = 1e-11, condition number ~3e12"


def _exactly_fitted_targets(n=40, L=3.0, sigma2=1e-11, scale=1000.0, seed=1):
    """(K, y, sigma2) with y = (K + sigma2 I) a: y'(K + sigma2 I)^{-1} y = a'y is known to full precision."""
    X, _ = sinc_data(n, random_state=seed)
    K = rbf_kernel(X, L=L)
    a = scale * np.random.default_rng(seed).standard_normal(n)
    return K, (K + sigma2 * np.eye(n)) @ a, sigma2


def _log_evidence_scalar(K, y, sigma2):
    return float(_regression.log_evidence(K, y, sigma2))


def _nb03_exercise_4a_cases():
    """The log evidence ln p(y) of eq. (16) for one sigma^2."""
    cases = []
    for n, L, sigma2, seed in [(10, 0.5, 0.09, 1), (25, 0.5, 1e-3, 2), (20, 2.0, 1.0, 3),
                               (400, 0.5, 0.1, 4)]:
        X, y = sinc_data(n, random_state=seed)
        label = f"{n} sinc points, L = {L:g}, sigma2 = {sigma2:g}"
        if n == 400:
            label += " (det(K + sigma2 I) underflows to 0 here)"
        cases.append(Case(label, (rbf_kernel(X, L=L), y, sigma2)))
    cases.append(Case(_ILL_CONDITIONED, _exactly_fitted_targets()))
    return cases


def _log_det_term(case) -> float | None:
    """-1/2 ln det(K + sigma2 I) of eq. (16) for the case's arguments, or None without a case."""
    if case is None or len(case.args) != 3:
        return None
    K, _, sigma2 = case.args
    sign, log_det = np.linalg.slogdet(np.asarray(K, dtype=float) + float(sigma2) * np.eye(len(K)))
    return -0.5 * float(log_det) if sign > 0 else None


def _diagnose_log_evidence(expected, got, case=None):
    """allclose, plus what a wrong log evidence usually means."""
    problem = allclose(rtol=1e-7)(expected, got)
    if problem is None or not is_real_number(got):
        return problem
    got = float(got)
    if not np.isfinite(got):
        return Problem(problem, "det-underflow",
                       f"An infinite or NaN log evidence where the right one is {expected:.6g}: det(K + sigma2 I) "
                       f"underflows to 0 (or overflows) for many points, so the log of det is -inf. Eq. (16) needs "
                       f"ln det, which can be computed without forming det.")
    difference = got - expected
    half_log_two_pi = 0.5 * np.log(2 * np.pi)
    steps = difference / half_log_two_pi
    if abs(steps) >= 1 and abs(steps - round(steps)) < 1e-6:
        return Problem(problem, "constant-term", f"Your value differs by exactly {round(steps)} x (1/2) ln(2 pi): "
                                                 f"look at the constant term -(l/2) ln(2 pi) of eq. (16).")
    log_det_term = _log_det_term(case)
    if log_det_term is not None and abs(log_det_term) > 1e-6:
        for times, name, words in ((1, "twice", "counted twice"), (-1, "missing", "left out"),
                                   (-2, "sign", "added with the wrong sign")):
            if abs(difference - times * log_det_term) < 1e-6 * max(1.0, abs(log_det_term)):
                return Problem(problem, f"log-det-{name}",
                               f"Your value differs from the right one by exactly {times:+d} x (-1/2) ln det(K + "
                               f"sigma2 I): the log-determinant term of eq. (16) is {words}.")
    if abs(difference) < 1e-3 * abs(expected):
        return Problem(problem, "lost-digits",
                       f"Close, but only to {-np.log10(abs(difference / expected)):.0f} significant digits: the "
                       f"data-fit term lost digits to rounding. This happens when (K + sigma2 I)^{{-1}} is formed "
                       f"explicitly; solving the linear system for (K + sigma2 I)^{{-1}} y does not lose them.")
    return problem


nb03_exercise_4a = Exercise(
    "nb03_exercise_4a", "Exercise 4a (log evidence, eq. 16)",
    _log_evidence_scalar, _nb03_exercise_4a_cases, points=3,
    closed=("kgslab.regression.log_evidence", "kgslab.papers.coursework.evidence_curve",
            "kgslab.papers.coursework.evidence_over_widths"),
    compare=_diagnose_log_evidence,
    hint="eq. (16) has three terms: -1/2 y'(K + sigma2 I)^{-1} y, -1/2 ln det(K + sigma2 I) and "
         "-(l/2) ln(2 pi). Test 4 has 400 points: there det(K + sigma2 I) itself is 0 in floating point, "
         "so its log must come from a factorisation, not from det. Test 5 is ill-conditioned: an explicit "
         "inverse loses digits there, a linear solve does not.",
    code_hint="factorise once: scipy.linalg.cho_factor(K + sigma2 * I, lower=True) gives C with C C' = "
              "K + sigma2 I; scipy.linalg.cho_solve(factor, y) solves for (K + sigma2 I)^{-1} y, and the "
              "diagonal of C gives ln det = 2 sum_i ln C_ii (np.linalg.slogdet is an alternative).",
    worked=("With the Cholesky factor $\\mathbf{C}\\mathbf{C}' = \\mathbf{K} + \\sigma^2\\mathbf{I}$, "
           "$\\det(\\mathbf{K} + \\sigma^2\\mathbf{I}) = \\det(\\mathbf{C})^2 = \\prod_i C_{ii}^2$, so "
           "$\\ln\\det = 2\\sum_i \\ln C_{ii}$: a sum of $l$ logarithms, each of a moderate number, where "
           "$\\det$ itself under- or overflows. The same factor gives the data-fit term by two triangular "
           "solves, $\\mathbf{y}'(\\mathbf{K} + \\sigma^2\\mathbf{I})^{-1}\\mathbf{y} = \\|\\mathbf{C}^{-1}"
           "\\mathbf{y}\\|^2$, which lose no more digits than the matrix's condition number forces, where an "
           "explicit inverse loses more."))


def _nb03_exercise_4a_curve_cases():
    """The evidence for a grid of sigma^2 and the grid value where it is largest."""
    cases = []
    for n, L, sigma2s, seed in [(15, 0.5, np.logspace(-3, 1, 9), 6), (30, 1.0, np.logspace(-2, 0, 13), 7)]:
        X, y = sinc_data(n, random_state=seed)
        cases.append(Case(f"{n} sinc points, L = {L:g}, {len(sigma2s)} values of sigma2 from "
                          f"{sigma2s[0]:g} to {sigma2s[-1]:g}", (rbf_kernel(X, L=L), y, sigma2s)))
    return cases


nb03_exercise_4a_curve = Exercise(
    "nb03_exercise_4a_curve", "Exercise 4a (the evidence curve and its maximum)",
    _coursework.evidence_curve, _nb03_exercise_4a_curve_cases, points=1,
    closed=("kgslab.regression.log_evidence", "kgslab.papers.coursework.evidence_curve",
            "kgslab.papers.coursework.evidence_over_widths"),
    compare=allclose(rtol=1e-7),
    hint="the result is a tuple (curve, best_sigma2): curve[k] is ln p(y) of eq. (16) at sigma2s[k] (your "
         "log_evidence, one value at a time), and best_sigma2 is the value of sigma2s (not its position) "
         "where the curve is largest.",
    code_hint="a list comprehension over sigma2s calling log_evidence, turned into an array with np.array; "
              "np.argmax(curve) gives the position of the largest value, and sigma2s[position] the value.",
    worked=("One eigendecomposition serves the whole curve. In the eigenbasis of "
           "$\\mathbf{K} = \\mathbf{U}\\,\\mathrm{diag}(\\lambda)\\,\\mathbf{U}'$, with $\\mathbf{z} = "
           "\\mathbf{U}'\\mathbf{y}$, the covariance of the data has eigenvalues $\\lambda_i + \\sigma^2$, so "
           "$\\ln p(\\mathbf{y}) = -\\frac12\\sum_i z_i^2/(\\lambda_i + \\sigma^2) - \\frac12\\sum_i"
           "\\ln(\\lambda_i + \\sigma^2) - \\frac{l}{2}\\ln 2\\pi$: $O(l)$ per $\\sigma^2$ after one $O(l^3)$ "
           "decomposition, where calling `log_evidence` for each value costs a factorisation each "
           "(`kgslab.regression.log_evidence` takes the whole array this way). The maximiser is a grid value: "
           "the curve is smooth, so a finer grid, or an optimiser started there, refines it."))


def _nb03_exercise_4b_cases():
    """The GP posterior mean (eq. 13) and error bar sigma_error^2 (eq. 14) at test points."""
    cases = []
    X_test = np.linspace(-4, 4, 7)[:, None]
    for n, L, sigma2, seed in [(15, 0.5, 0.09, 4), (30, 1.0, 0.01, 5)]:
        X, y = sinc_data(n, random_state=seed)
        cases.append(Case(f"{n} sinc points, 7 test points, L = {L:g}, sigma2 = {sigma2:g}",
                          (rbf_kernel(X, L=L), rbf_kernel(X_test, X, L=L), np.ones(7), y, sigma2)))
    K, y, sigma2 = _exactly_fitted_targets()
    X, _ = sinc_data(40, random_state=1)
    cases.append(Case(f"7 test points, {_ILL_CONDITIONED}",
                      (K, rbf_kernel(X_test, X, L=3.0), np.ones(7), y, sigma2)))
    # a kernel whose k(x, x) is not 1 and differs between test points: k(x, x') = 2 exp(-(x - x')^2 / 2) + x x'
    X, y = sinc_data(12, random_state=6)
    X_other = np.linspace(-3, 5, 5)[:, None]

    def kernel(A, B):
        return 2.0 * rbf_kernel(A, B, L=1.0) + A @ B.T

    cases.append(Case("12 sinc points, 5 test points, k(x, x) = 2 + x^2 (not 1), sigma2 = 0.05",
                      (kernel(X, X), kernel(X_other, X), np.diag(kernel(X_other, X_other)).copy(), y, 0.05)))
    return cases


def _diagnose_posterior(expected, got):
    """allclose, plus the two usual slips: the noise added to the variance, the variance as a standard deviation."""
    problem = allclose(rtol=1e-6, atol=1e-9)(expected, got)
    if problem is None or not (isinstance(got, tuple) and len(got) == 2):
        return problem
    try:
        var = np.asarray(got[1], dtype=float)
    except (TypeError, ValueError):
        return problem
    if var.shape != expected[1].shape or allclose(rtol=1e-6, atol=1e-9)(expected[0], got[0]) is not None:
        return problem
    if np.allclose(var, np.sqrt(expected[1]), rtol=1e-6, atol=1e-9):
        return Problem(problem, "standard-deviation", "The mean is right; the variance is not. It looks like "
                                                      "sqrt(sigma_error^2): return the variance itself.")
    excess = var - expected[1]
    if np.allclose(excess, np.mean(excess), atol=1e-9) and np.mean(excess) > 0:
        return Problem(problem, "noise-added", "The mean is right; the variance is not. It is larger than "
                       "sigma_error^2 by a constant: eq. (14) is the uncertainty about f, without the noise.")
    return Problem(problem, "variance", "The mean is right; the variance is not. Compare it with eq. (14), one test "
                                        "point at a time (its first term is k(x, x) of that test point).")


nb03_exercise_4b = Exercise(
    "nb03_exercise_4b", "Exercise 4b (GP posterior, eqs. 13-14)",
    _regression.gp_posterior, _nb03_exercise_4b_cases, points=3,
    compare=_diagnose_posterior,
    hint="return a tuple (mean, var), one entry per test point (row of K_test): the mean is eq. (13) and var "
         "is sigma_error^2 of eq. (14), the uncertainty about f only (no noise term). Test 3 is "
         "ill-conditioned: an explicit inverse loses digits there, a linear solve does not.",
    code_hint="one Cholesky factor C of K + sigma2 * I serves both: scipy.linalg.cho_solve for "
              "(K + sigma2 I)^{-1} y, and scipy.linalg.solve_triangular(C, K_test.T, lower=True) gives "
              "V with k'(K + sigma2 I)^{-1} k = the squared length of the column of V (sum over axis 0).",
    worked=("One Cholesky factor $\\mathbf{C}\\mathbf{C}' = \\mathbf{K} + \\sigma^2\\mathbf{I}$ serves every "
           "test point: the mean is $\\mathbf{K}_{\\text{test}}\\,\\boldsymbol\\alpha$, where "
           "$(\\mathbf{K} + \\sigma^2\\mathbf{I})\\,\\boldsymbol\\alpha = \\mathbf{y}$ takes two triangular "
           "solves, and with "
           "$\\mathbf{V} = \\mathbf{C}^{-1}\\mathbf{K}_{\\text{test}}'$ (one triangular solve for all test "
           "points) $\\mathbf{k}'(\\mathbf{K} + \\sigma^2\\mathbf{I})^{-1}\\mathbf{k} = \\|\\mathbf{v}\\|^2$, "
           "the squared length of that test point's column of $\\mathbf{V}$. A rounding error can make the "
           "difference in eq. (14) slightly negative where it is 0 in exact arithmetic (a test point on top of "
           "the data with $\\sigma^2 \\to 0$); clipping at 0 keeps the error bar real."))


def _nb03_exercise_4c_cases():
    """The evidence as a function of the RBF width L, sigma^2 fixed, and the best L of the grid."""
    cases = []
    for n, sigma2, widths, seed in [(20, 0.09, np.logspace(-1, 0.5, 8), 8), (35, 0.05, np.linspace(0.2, 2.0, 10), 9)]:
        X, y = sinc_data(n, random_state=seed)
        cases.append(Case(f"{n} sinc points, sigma2 = {sigma2:g}, {len(widths)} widths L from {widths[0]:.2g} "
                          f"to {widths[-1]:.2g}", (X, y, sigma2, widths)))
    return cases


nb03_exercise_4c = Exercise(
    "nb03_exercise_4c", "Exercise 4c (bonus: the evidence against the kernel width L)",
    _coursework.evidence_over_widths, _nb03_exercise_4c_cases, points=2,
    closed=("kgslab.regression.log_evidence", "kgslab.papers.coursework.evidence_curve",
            "kgslab.papers.coursework.evidence_over_widths"),
    compare=allclose(rtol=1e-7),
    hint="each width L is a new kernel matrix K (eq. 17 on the training inputs X) with sigma2 fixed; the "
         "result is a tuple (curve, best_L): ln p(y) for each width, and the width (not its position) where "
         "it is largest.",
    code_hint="for each width: rbf_kernel(X, L=width), then your log_evidence with the fixed sigma2; "
              "np.argmax(curve) is the position of the best width in widths.",
    worked="Too small an $L$ lets the prior produce wildly wiggly functions, most of which look nothing like the "
           "data; too large an $L$ cannot bend fast enough for the central peak of sinc. The evidence prefers a "
           "width in between: the *Occam factor* at work, with no held-out data. Each width is a new "
           "$\\mathbf{K}$, so here every point of the curve costs a factorisation; and $\\sigma^2$ stays at 4a's "
           "value, so this is one step of a coordinate ascent on the surface over $(L, \\sigma^2)$ that the next "
           "cell draws.")

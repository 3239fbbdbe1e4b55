"""Checks for notebook 01 (duality and ridge regression, coursework Exercise 1).

The references are `kgslab.regression.ridge`, `ridge_errors`, `ridge_dual` and, for the noise study the student
designs (their own noise levels), `kgslab.papers.coursework.noise_study` run at the student's levels.
"""

from __future__ import annotations

import numpy as np

from .. import regression as _regression
from ..papers import coursework as _coursework
from .cases import Case, Mistake
from .exercise import Exercise
from .values import Problem, allclose, constant_factor, describe_type, describe_value

__all__ = ["nb01_exercise_1_primal", "nb01_exercise_1_errors", "nb01_exercise_1_noise", "nb01_exercise_1_dual"]

_GAMMA_WITHOUT_L = ("it is what gamma without the factor l gives: the penalty in the normal equations is "
                    "gamma l I, with l the number of training points (the rows of X).")


def _problem(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    return X, X @ rng.standard_normal(d) + 0.1 * rng.standard_normal(n)


def _solver_cases(reference):
    def cases():
        found = []
        for n, d, gamma, seed in [(20, 5, 0.1, 1), (8, 12, 0.01, 2), (50, 3, 10.0, 3)]:
            X, y = _problem(n, d, seed)
            found.append(Case(f"{n} points in R^{d}, gamma = {gamma:g}", (X, y, gamma), mistakes=[
                Mistake("gamma-without-l", _GAMMA_WITHOUT_L, result=reference(X, y, gamma / n))]))
        return found
    return cases


def _solver_hidden(rng):
    """Grading cases of other shapes (more features than points, many points, square), drawn at grading time."""
    found = []
    for n, d in [(int(rng.integers(3, 9)), int(rng.integers(10, 30))), (int(rng.integers(40, 90)),
                 int(rng.integers(2, 8))), (7, 7)]:
        X = rng.standard_normal((n, d)) * rng.uniform(0.2, 5.0)
        gamma = float(10.0 ** rng.uniform(-3, 1))
        found.append(Case(f"a grading case: {n} points in R^{d}, gamma = {gamma:.3g}",
                          (X, X @ rng.standard_normal(d) + rng.standard_normal(n), gamma)))
    return found


nb01_exercise_1_primal = Exercise(
    "nb01_exercise_1_primal", "Exercise 1 (primal ridge regression)",
    _regression.ridge, _solver_cases(_regression.ridge), points=2,
    closed=("kgslab.regression.ridge_dual", "kgslab.regression.kernel_ridge", "kgslab.regression.gp_posterior"),
    compare=allclose(rtol=1e-6),
    hidden=_solver_hidden,
    hint="w* solves the normal equations of ridge regression, a d x d linear system (d = the number of "
         "features); its matrix is X'X plus the penalty gamma l times the identity, its right-hand side X'y.",
    code_hint="l, d = X.shape, then np.linalg.solve(X.T @ X + gamma * l * np.eye(d), X.T @ y).")


nb01_exercise_1_dual = Exercise(
    "nb01_exercise_1_dual", "Exercise 1 (dual ridge regression, eq. 2)",
    _regression.ridge_dual, _solver_cases(_regression.ridge_dual), points=2,
    closed=("kgslab.regression.ridge", "kgslab.regression.kernel_ridge", "kgslab.regression.gp_posterior"),
    compare=allclose(rtol=1e-6),
    hidden=_solver_hidden,
    hint="alpha* has one entry per training point: eq. (2) is an l x l system whose matrix is built from the "
         "inner products between training points (XX', not X'X) plus gamma l times the identity.",
    code_hint="l = X.shape[0], then np.linalg.solve(X @ X.T + gamma * l * np.eye(l), y).")


def _errors_cases():
    """Training and test MSE for a list of gammas."""
    X, y = _problem(40, 6, 4)
    gammas = 10.0 ** np.arange(-3, 3)
    train, test = X[:20], X[20:]
    expected = _regression.ridge_errors(train, y[:20], test, y[20:], gammas)
    on_test = _regression.ridge_errors(test, y[20:], train, y[:20], gammas)
    return [Case("20 training / 20 test points in R^6, gamma = 1e-3 ... 1e2",
                 (X[:20], y[:20], X[20:], y[20:], gammas), mistakes=[
                     Mistake("train-test-swapped", "the two arrays are swapped: the training MSE comes first.",
                             result=(expected[1], expected[0])),
                     Mistake("fitted-on-test", "w was fitted on the test set: fit on the training set only, then "
                                               "measure the error on both sets.", result=(on_test[1], on_test[0])),
                     Mistake("sum-for-mean", "the number of points in each set: the MSE is a mean over the points, "
                                             "not a sum.", factor=20.0)])]


nb01_exercise_1_errors = Exercise(
    "nb01_exercise_1_errors", "Exercise 1 (training and test errors)",
    _regression.ridge_errors, _errors_cases, points=2, compare=allclose(rtol=1e-6),
    hint="for each gamma fit w on the training set only (your ridge_primal); the mean squared error is the "
         "mean over the points of (y_i - x_i'w)^2, on the training set and on the test set; return the two "
         "arrays, training first.",
    code_hint="loop over gammas: w = ridge_primal(X_train, y_train, gamma); append "
              "np.mean((y_train - X_train @ w) ** 2) and the same on the test set; return two np.array.")


# ---- the noise study: the student chooses the noise levels -------------------------------------------

NOISE_CASE = {"gammas": 10.0 ** np.arange(-6, 4), "n_train": 15, "n_draws": 4, "seed": 3}
SIGNAL_STD = np.sqrt(10.0)     # x'w with x, w standard normal in R^10: variance about d = 10
# "about as large as the signal": a top level of 3 is as large as sqrt(10) = 3.16 in the docstring's sense
_NOISE_LOW, _NOISE_HIGH = SIGNAL_STD / 3, 0.9 * SIGNAL_STD


def _noise_levels_problem(levels) -> str | None:
    """What is wrong with a student's choice of noise levels, or None."""
    if not isinstance(levels, np.ndarray) or levels.ndim != 1 or levels.dtype.kind not in "iuf":
        return (f"noise_levels (the first value returned) must be a 1-d numpy array of numbers, got "
                f"{describe_type(levels)}: {describe_value(levels)}")
    if len(levels) < 3:
        return f"choose at least three noise levels, got {len(levels)}"
    if not np.all(np.isfinite(levels)) or np.any(levels <= 0) or np.any(np.diff(levels) <= 0):
        return f"the noise levels must be positive and increasing, got {describe_value(levels)}"
    if levels[0] > _NOISE_LOW or levels[-1] < _NOISE_HIGH:
        return (f"your noise levels {describe_value(levels)} do not reach from low noise (at most "
                f"{_NOISE_LOW:.2g}, a third of the signal's standard deviation sqrt(10) ~ 3.2) to high noise "
                f"(about 3 or more, as large as the signal)")
    return None


def _noise_case_at(levels, order="levels first"):
    """The reference study of the check's case at the student's noise levels (or with the draws in another order)."""
    case = NOISE_CASE
    if order == "levels first":
        return _coursework.noise_study(case["gammas"], case["n_train"], case["n_draws"], case["seed"],
                                      noise_levels=levels)
    from ..data import linear_data
    rng = np.random.default_rng(case["seed"])
    train = np.zeros((len(levels), len(case["gammas"])))
    test = np.zeros_like(train)
    for _ in range(case["n_draws"]):
        for row, noise in enumerate(levels):
            X, y, _ = linear_data(n=case["n_train"] + 100, d=10, noise=float(noise), random_state=rng)
            n = case["n_train"]
            errors = _regression.ridge_errors(X[:n], y[:n], X[n:], y[n:], case["gammas"])
            train[row] += errors[0] / case["n_draws"]
            test[row] += errors[1] / case["n_draws"]
    return np.asarray(levels, dtype=float), train, test


def _compare_noise(expected, got) -> str | None:
    """The student's study against the reference run at the student's own noise levels."""
    if not isinstance(got, tuple) or len(got) != 3:
        return (f"expected a tuple of 3 values (noise_levels, train_mse, test_mse), got {describe_type(got)}: "
                f"{describe_value(got)}")
    problem = _noise_levels_problem(got[0])
    if problem:
        return problem
    reference = _noise_case_at(got[0])
    problem = allclose(rtol=1e-6)(reference, got)
    if problem is None:
        return None
    swapped = (reference[0], reference[2], reference[1])
    if allclose(rtol=1e-6)(swapped, got) is None:
        return Problem(problem, "train-test-swapped", "the training and test arrays are swapped: training MSE first.")
    if allclose(rtol=1e-6)(_noise_case_at(got[0], order="draws first"), got) is None:
        return Problem(problem, "draws-order", "your data sets are drawn in another order: for each noise level in "
                                               "turn, all its data sets.")
    factor = constant_factor(reference[1:], got[1:])        # the errors only: the levels are the student's own
    if factor is not None and np.isclose(factor, NOISE_CASE["n_draws"], rtol=1e-3):
        return Problem(problem, "sum-over-draws", f"your errors are all off by a factor close to {factor:.4g}: the "
                                                  "number of data sets; average over the draws, do not add them up.")
    if factor is not None:
        return Problem(problem, None, f"your errors are all off by one constant factor, about {factor:.4g}.")
    return Problem(problem, None, "your means differ from the same study run at your noise levels: check that one "
                                  "generator, made once from seed, draws every data set (in the order the docstring "
                                  "gives), that each data set has n_train training points followed by 100 test "
                                  "points, and that you average over the n_draws data sets.")


def _noise_cases():
    case = NOISE_CASE
    return [Case(f"gammas 1e-6 ... 1e3, n_train = {case['n_train']}, n_draws = {case['n_draws']}, "
                 f"seed = {case['seed']}", (case["gammas"], case["n_train"]),
                 {"n_draws": case["n_draws"], "seed": case["seed"]})]


nb01_exercise_1_noise = Exercise(
    "nb01_exercise_1_noise", "Exercise 1 (noise study)",
    _coursework.noise_study, _noise_cases, points=3, compare=_compare_noise,
    hint="the check reruns your study at your own noise levels: at least three, increasing, from low (a third "
         "of the signal's standard deviation, about 1, or less) to high (about 3 or more). For each level, "
         "average the training and test MSE over n_draws data sets, all drawn from one generator made from "
         "seed, in the order the docstring gives; rows are noise levels, columns gammas.",
    code_hint="noise_levels = np.array([...]); make the generator once with np.random.default_rng(seed); for "
              "each row, noise in enumerate(noise_levels): repeat n_draws times: X, y, _ = data.linear_data("
              "n=n_train + 100, d=10, noise=noise, random_state=generator), then ridge_errors on "
              "X[:n_train], y[:n_train] and X[n_train:], y[n_train:]; add each result / n_draws to row `row`.")

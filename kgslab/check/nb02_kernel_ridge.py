"""Checks for notebook 02 (kernel ridge regression, coursework Exercises 2 and 3).

The references are `kgslab.regression.linear_fit_errors` (Exercise 2), `kernel_ridge` and `cv_error`
(Exercise 3a), and the experiments of `kgslab.papers.coursework`: `linear_regression_table` (Exercise 2's table,
run at the student's own gammas), `tune_gamma` and `tune_width_and_gamma` (5-fold CV over gamma, and over L).
"""

from __future__ import annotations

import numpy as np
from sklearn.kernel_ridge import KernelRidge
from sklearn.model_selection import KFold, cross_val_score

from .. import regression as _regression
from ..data import sinc_data
from ..kernels import linear_kernel, rbf_kernel
from ..papers import coursework as _coursework
from .cases import Case, Mistake
from .exercise import Exercise
from .values import Problem, allclose, describe_type, describe_value

__all__ = ["nb02_exercise_2", "nb02_exercise_2_table", "nb02_exercise_3a", "nb02_exercise_3a_cv",
           "nb02_exercise_3a_tune_gamma", "nb02_exercise_3a_tune_width"]


def _sinc_split(n_train, n_test, seed):
    X, y = sinc_data(n_train + n_test, random_state=seed)
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


# ---- Exercise 2: a straight line through sinc ----------------------------------------------------------

def _without_intercept(X_train, y_train, X_test, y_test, gamma):
    w = _regression.ridge(X_train, y_train, gamma)
    return _regression.mse(y_train, X_train @ w), _regression.mse(y_test, X_test @ w)


def _nb02_exercise_2_cases():
    """Linear least squares and ridge regression on the sinc data: training and test MSE."""
    cases = []
    for gamma, seed in [(0.0, 1), (0.1, 2), (10.0, 3)]:
        args = _sinc_split(30, 30, seed) + (gamma,)
        expected = _regression.linear_fit_errors(*args)
        cases.append(Case(f"30 training / 30 test sinc points, gamma = {gamma:g}", args, mistakes=[
            Mistake("train-test-swapped", "the two errors are swapped: the training MSE comes first.",
                    result=expected[::-1]),
            Mistake("no-intercept", "the line has no intercept: y = w x + b needs the column of ones.",
                    result=_without_intercept(*args)),
            Mistake("sum-for-mean", "the number of points: the MSE is a mean over the points, not a sum.",
                    factor=30.0)]))
    return cases


nb02_exercise_2 = Exercise(
    "nb02_exercise_2", "Exercise 2 (linear regression on sinc)",
    _regression.linear_fit_errors, _nb02_exercise_2_cases, points=3,
    closed=("kgslab.regression.ridge_errors",), compare=allclose(rtol=1e-6),
    hint="fit the line y = w x + b on the training set by ridge regression on the data with a column of ones "
         "appended (that column's weight is b; gamma = 0 is least squares), with l the number of training "
         "points; return (training MSE, test MSE) as a tuple of two numbers.",
    code_hint="A_train, A_test = with_bias(X_train), with_bias(X_test); w = np.linalg.solve(A_train.T @ A_train "
              "+ gamma * len(y_train) * np.eye(2), A_train.T @ y_train); "
              "return np.mean((y_train - A_train @ w) ** 2), and the same on the test set.")


TABLE_CASE_SEED = 11


def _table_gammas_problem(gammas) -> str | None:
    if not isinstance(gammas, np.ndarray) or gammas.ndim != 1 or gammas.dtype.kind not in "iuf":
        return (f"gammas (the first value returned) must be a 1-d numpy array of numbers, got "
                f"{describe_type(gammas)}: {describe_value(gammas)}")
    if len(gammas) < 4 or gammas[0] != 0:
        return (f"the table needs least squares first (gamma = 0) and then at least three gamma > 0 for RR; "
                f"your gammas are {describe_value(gammas)}")
    if not np.all(np.isfinite(gammas)) or np.any(np.diff(gammas) <= 0):
        return f"the gammas must be finite and increasing, got {describe_value(gammas)}"
    if gammas[-1] < 100 * gammas[1]:
        return (f"the RR gammas {describe_value(gammas[1:])} cover less than two powers of ten: spread them out, "
                f"from a small gamma to a large one")
    return None


TABLE_CASES = [(30, 30, TABLE_CASE_SEED), (20, 40, TABLE_CASE_SEED + 1)]


def _compare_table(expected, got, case) -> str | Problem | None:
    """The student's table against the reference run on the case's data at the student's own gammas."""
    if not isinstance(got, tuple) or len(got) != 2:
        return f"expected a tuple of 2 values (gammas, errors), got {describe_type(got)}: {describe_value(got)}"
    problem = _table_gammas_problem(got[0])
    if problem:
        return problem
    reference = _coursework.linear_regression_table(*case.args, gammas=got[0])
    problem = allclose(rtol=1e-6)(reference, got)
    if problem and allclose(rtol=1e-6)((reference[0], reference[1][:, ::-1]), got) is None:
        return Problem(problem, "train-test-swapped", "the two columns are swapped: training MSE first.")
    if problem and allclose(rtol=1e-6)((reference[0], reference[1].T), got) is None:
        return Problem(problem, "transposed", "the table is transposed: one row per gamma, two columns.")
    return problem


def _table_cases():
    return [Case(f"{n_train} training / {n_test} test sinc points", _sinc_split(n_train, n_test, seed))
            for n_train, n_test, seed in TABLE_CASES]


nb02_exercise_2_table = Exercise(
    "nb02_exercise_2_table", "Exercise 2 (the table of LSR and RR)",
    _coursework.linear_regression_table, _table_cases,
    points=2,
    closed=("kgslab.regression.ridge_errors",), compare=_compare_table,
    hint="choose the gammas: 0 first (least squares), then at least three increasing gamma > 0 spanning two "
         "powers of ten or more; row j of the errors is what your linear_fit_errors gives at gammas[j], "
         "training MSE then test MSE.",
    code_hint="gammas = np.array([0.0, ...]); errors = np.array([linear_fit_errors(X_train, y_train, X_test, "
              "y_test, gamma) for gamma in gammas]); return gammas, errors.")


# ---- Exercise 3a: kernel ridge regression and cross-validation -----------------------------------------

def _nb02_exercise_3a_cases():
    """Kernel ridge regression, eq. (5): alpha = (K + gamma l I)^{-1} y."""
    problems = []
    for n, L, gamma, seed in [(12, 0.5, 1e-3, 4), (25, 1.0, 0.1, 5)]:
        X, y = sinc_data(n, random_state=seed)
        problems.append((f"{n} sinc points, RBF kernel L = {L:g}, gamma = {gamma:g}", rbf_kernel(X, L=L), y, gamma))
    rng = np.random.default_rng(6)
    X = rng.standard_normal((10, 3))
    problems.append(("10 points in R^3, linear kernel, gamma = 0.5",
                     linear_kernel(X), X @ np.ones(3) + 0.1 * rng.standard_normal(10), 0.5))
    cases = []
    for label, K, y, gamma in problems:
        cases.append(Case(label, (K, y, gamma), mistakes=[Mistake(
            "gamma-without-l", "it is what gamma without the factor l gives: eq. (5) adds gamma l I to K, with l "
                               "the number of training points.", result=_regression.kernel_ridge(K, y, gamma / len(y)))]))
    return cases


nb02_exercise_3a = Exercise(
    "nb02_exercise_3a", "Exercise 3a (kernel ridge regression, eq. 5)",
    _regression.kernel_ridge, _nb02_exercise_3a_cases, points=2,
    closed=("kgslab.regression.ridge_dual", "kgslab.regression.gp_posterior"), compare=allclose(rtol=1e-6),
    hint="eq. (5): alpha* has one entry per training point and solves the l x l system whose matrix is the Gram "
         "matrix K plus gamma l times the identity (l = the number of training points), right-hand side y.",
    code_hint="l = len(y); return np.linalg.solve(K + gamma * l * np.eye(l), y).")


def _sklearn_cv(X, y, L, gamma, folds, l_for_gamma=None) -> float:
    """The mean held-out MSE of kernel ridge regression on given folds, by scikit-learn (for the mistakes).

    sklearn's KernelRidge solves (K + alpha I) a = y, so alpha = gamma l with l the fold's own training size
    (eq. 5); l_for_gamma replaces it (a mistake).
    """
    K = rbf_kernel(X, L=L)
    errors = [-cross_val_score(KernelRidge(kernel="precomputed", alpha=gamma * (l_for_gamma or len(train))), K, y,
                               cv=[(train, held_out)], scoring="neg_mean_squared_error")[0]
              for train, held_out in folds]
    return float(np.mean(errors))


def _nb02_exercise_3a_cv_cases():
    """5-fold cross-validation error of kernel ridge regression."""
    problems = []
    for n, L, gamma, seed in [(30, 0.5, 1e-2, 7), (40, 1.0, 1e-4, 8)]:
        X, y = sinc_data(n, random_state=seed)
        problems.append((f"{n} sinc points, L = {L:g}, gamma = {gamma:g}, 5 folds", X, y, L, gamma, 5, 0))
    X, y = sinc_data(30, random_state=9)
    problems.append(("30 sinc points, L = 0.5, gamma = 1e-3, 3 folds, random_state = 2", X, y, 0.5, 1e-3, 3, 2))
    X, y = sinc_data(32, random_state=10)
    problems.append(("32 sinc points, L = 0.7, gamma = 1e-3, 5 folds of 7, 7, 6, 6, 6 points, random_state = 3",
                     X, y, 0.7, 1e-3, 5, 3))
    cases = []
    for label, X, y, L, gamma, n_folds, seed in problems:
        splits = list(KFold(n_folds, shuffle=True, random_state=seed).split(X))
        cases.append(Case(label, (X, y, L, gamma), {"n_folds": n_folds, "random_state": seed}, mistakes=[
            Mistake("gamma-l-all-points", "gamma l uses all the points; in each fold l is the number of points that "
                                          "fold is trained on.",
                    result=_sklearn_cv(X, y, L, gamma, splits, l_for_gamma=len(y))),
            Mistake("folds-not-shuffled", "the folds are not shuffled: use KFold with shuffle=True and the given "
                                          "random_state, so that your folds are the checker's.",
                    result=_sklearn_cv(X, y, L, gamma, list(KFold(n_folds).split(X)))),
            Mistake("sum-over-folds", "it is the number of folds times the mean: average the fold errors, do not add them up.",
                    result=n_folds * _regression.cv_error(X, y, L, gamma, n_folds=n_folds, random_state=seed))]))
    return cases


nb02_exercise_3a_cv = Exercise(
    "nb02_exercise_3a_cv", "Exercise 3a (cross-validation)",
    _regression.cv_error, _nb02_exercise_3a_cv_cases, points=3, compare=allclose(rtol=1e-6),
    hint="split the points into n_folds folds (shuffled, from random_state); for each fold fit kernel ridge "
         "regression (eq. 5) on the other folds, predict the held-out fold with eq. (6) and take the MSE there; "
         "return the mean of the n_folds MSEs as one number.",
    code_hint="for train, held_out in KFold(n_folds, shuffle=True, random_state=random_state).split(X): "
              "alpha = kernel_ridge(rbf_kernel(X[train], L=L), y[train], gamma); prediction = "
              "rbf_kernel(X[held_out], X[train], L=L) @ alpha; collect the MSE; return the mean.")


def _tune_gamma_cases():
    """CV over a grid of gammas at one width."""
    cases = []
    for n, L, gammas, n_folds, seed, data_seed in [(30, 0.5, np.logspace(-4, 1, 6), 5, 0, 12),
                                                   (24, 1.0, np.array([1e-3, 1e-1, 1e-2, 1.0]), 3, 4, 13)]:
        X, y = sinc_data(n, random_state=data_seed)
        best, errors = _coursework.tune_gamma(X, y, L, gammas, n_folds, seed)
        cases.append(Case(f"{n} sinc points, L = {L:g}, {len(gammas)} gammas, {n_folds} folds, random_state = "
                          f"{seed}", (X, y, L, gammas), {"n_folds": n_folds, "random_state": seed}, mistakes=[
            Mistake("largest-error", "your best gamma is the one with the largest CV error: choose the smallest.",
                    result=(float(gammas[np.argmax(errors)]), errors)),
            Mistake("position-not-value", "the first value is the position of the best gamma in the grid; return "
                                          "the gamma itself.", result=(float(np.argmin(errors)), errors))]))
    return cases


nb02_exercise_3a_tune_gamma = Exercise(
    "nb02_exercise_3a_tune_gamma", "Exercise 3a (tuning gamma by cross-validation)",
    _coursework.tune_gamma, _tune_gamma_cases, points=2, compare=allclose(rtol=1e-6),
    hint="for each gamma of the grid, in order, the CV error from your cv_error with the same folds (n_folds, "
         "random_state); the best gamma is the one whose CV error is smallest. Return (best gamma, array of CV "
         "errors).",
    code_hint="cv_errors = np.array([cv_error(X, y, L, gamma, n_folds, random_state) for gamma in gammas]); "
              "return gammas[np.argmin(cv_errors)], cv_errors.")


def _tune_width_cases():
    """CV over a grid of (L, gamma): square and non-square grids, the optimum off the diagonal and off row 0."""
    cases = []
    for n, widths, gammas, n_folds, seed, data_seed in [
            (30, np.array([0.2, 0.5, 1.0, 2.0]), np.logspace(-4, 0, 5), 5, 1, 14),
            # 3 widths x 6 gammas; the best pair is (row 0, column 3): flat index 3, so an index computed with
            # the wrong grid's length (3 // 3 = 1) picks another width
            (40, np.array([0.3, 0.75, 1.5]), np.logspace(-5, 0, 6), 4, 2, 20)]:
        X, y = sinc_data(n, random_state=data_seed)
        best_L, best_gamma, cv_map = _coursework.tune_width_and_gamma(X, y, widths, gammas, n_folds, seed)
        row, column = np.unravel_index(np.argmin(cv_map), cv_map.shape)
        cases.append(Case(f"{n} sinc points, {len(widths)} widths x {len(gammas)} gammas, {n_folds} folds, "
                          f"random_state = {seed}", (X, y, widths, gammas), {"n_folds": n_folds, "random_state": seed},
                          mistakes=[
            Mistake("map-transposed", "the map is transposed: one row per width L, one column per gamma.",
                    result=(best_L, best_gamma, cv_map.T)),
            Mistake("L-gamma-swapped", "the best L and the best gamma are swapped: L first.",
                    result=(best_gamma, best_L, cv_map)),
            Mistake("position-not-value", "the first two values are positions in the grids; return the width and "
                                          "the gamma themselves.", result=(float(row), float(column), cv_map))]))
    return cases


nb02_exercise_3a_tune_width = Exercise(
    "nb02_exercise_3a_tune_width", "Exercise 3a (tuning L and gamma by cross-validation)",
    _coursework.tune_width_and_gamma, _tune_width_cases, points=2, compare=allclose(rtol=1e-6),
    hint="the CV error for every pair (L, gamma) of the two grids, with the same folds throughout (your "
         "tune_gamma does one width); the map has one row per width; the best pair is where the map is "
         "smallest. Return (best L, best gamma, map).",
    code_hint="cv_map = np.array([tune_gamma(X, y, width, gammas, n_folds, random_state)[1] for width in "
              "widths]); row, column = np.unravel_index(np.argmin(cv_map), cv_map.shape); return widths[row], "
              "gammas[column], cv_map.",
    worked=r"""Each row of the map is one width's CV curve over $\gamma$, and every cell uses the same five
folds, so the cells differ only by $(L, \gamma)$ and the smallest one is a fair choice (though each is itself a
noisy estimate, as the shuffles before showed for one width).

**The map the next cell draws, read.** The valley of low CV error bends: a narrow kernel ($L \le 0.5$) needs
$\gamma \approx 10^{-2}$, a wide one ($L \ge 1$) does well with much less, since the width itself already keeps the
fit smooth. $L = 0.5$ lies in or near the valley, so tuning $L$ gains little here; on another problem it can matter a
lot.""")

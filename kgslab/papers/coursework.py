"""The coursework's experiments (seed 004): the references for the student's experiment functions.

Notebooks 01, 02, 03, 05 and 06 ask the student to run the handout's experiments with functions of their own;
the checks (`kgslab.check`) compare them with these, which build on the kit's solvers and do what the handout
asks:

* Exercise 1 (notebook 01): ridge regression's training and test MSE against gamma, averaged over fresh data
  sets, for several noise levels ("try different values for the noise n_i"): `noise_study`.
* Exercise 2 (notebook 02): least squares (gamma = 0) and ridge regression of a straight line through the sinc
  data, as a table of (gamma, training MSE, test MSE): `linear_regression_table`.
* Exercise 3a (notebook 02): 5-fold cross-validation of kernel ridge regression over gamma at a fixed width L
  (`tune_gamma`), and over a grid of (L, gamma) ("note that in fact we can also tune L in this way"):
  `tune_width_and_gamma`.
* Exercise 4 (notebook 03): the evidence of eq. (16) over a grid of noise variances (`evidence_curve`) and,
  the bonus, over a grid of RBF widths (`evidence_over_widths`), each with the grid value where it is largest.
* Exercise 6 (notebook 05): the adatron's C tuned by cross-validation on given folds: `cross_validate_C`.
* Exercise 7 (notebook 06), on the corpus: time a kernel (`kernel_timings`), compare two kernels by kind of
  document pair (`pair_group_means`), classify one language against another (`pair_accuracy`).

The student chooses the noise levels and the ridge parameters of the first two; the defaults here are the
kit's choice (the fall-back when the student's function is still open).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np
from sklearn.model_selection import GroupKFold

from .._validation import (as_float_array, as_gram, as_matrix, as_pm1_labels, as_positive_int, as_scalar, as_vector,
                           check_random_state_kind)
from ..adatron import adatron_with_bias
from ..data import linear_data
from ..kernels import rbf_kernel
from ..kernels import normalise
from ..regression import cv_error, linear_fit_errors, log_evidence, ridge_errors

__all__ = ["NOISE_TEST_POINTS", "noise_study", "linear_regression_table", "tune_gamma", "tune_width_and_gamma",
           "evidence_curve", "evidence_over_widths", "cross_validate_C", "kernel_timings", "pair_group_means",
           "pair_accuracy", "PAIR_GROUPS"]

NOISE_TEST_POINTS = 100
"""Exercise 1: every data set of the noise study has this many test points after its training points."""


def _grid(values, name: str, *, positive: bool = False) -> np.ndarray:
    grid = as_float_array(values, name, ndim=1)
    if positive and np.any(grid <= 0):
        raise ValueError(f"{name} must all be > 0, got {float(np.min(grid)):.6g}")
    if not positive and np.any(grid < 0):
        raise ValueError(f"{name} must all be >= 0, got {float(np.min(grid)):.6g}")
    return grid


def noise_study(gammas, n_train, n_draws=30, seed=0, *, noise_levels=(0.1, 1.0, 3.0, 10.0)):
    """Exercise 1: mean training and test MSE of ridge regression against gamma, for several noise levels.

    One generator ``rng = np.random.default_rng(seed)`` for the whole study.  For each noise level in turn, and
    n_draws times for each: draw ``X, y, _ = data.linear_data(n=n_train + 100, d=10, noise=noise,
    random_state=rng)`` (a fresh w as well), fit on the first n_train points and measure both errors
    (`regression.ridge_errors`) on them and on the other 100.  Returns ``(noise_levels, train_mse, test_mse)``:
    the levels as a float array and two arrays of shape (len(noise_levels), len(gammas)), means over the draws.
    """
    gammas = _grid(gammas, "gammas")
    noise_levels = _grid(noise_levels, "noise_levels")
    n_train = as_positive_int(n_train, "n_train")
    n_draws = as_positive_int(n_draws, "n_draws")
    check_random_state_kind(seed, "seed")
    rng = np.random.default_rng(seed)
    train_mse = np.zeros((len(noise_levels), len(gammas)))
    test_mse = np.zeros_like(train_mse)
    for row, noise in enumerate(noise_levels):
        for _ in range(n_draws):
            X, y, _ = linear_data(n=n_train + NOISE_TEST_POINTS, d=10, noise=float(noise), random_state=rng)
            train, test = ridge_errors(X[:n_train], y[:n_train], X[n_train:], y[n_train:], gammas)
            train_mse[row] += train / n_draws
            test_mse[row] += test / n_draws
    return noise_levels, train_mse, test_mse


def linear_regression_table(X_train, y_train, X_test, y_test, *, gammas=(0.0, 1e-6, 1e-3, 1e-1, 1.0, 10.0)):
    """Exercise 2: least squares (gamma = 0, first row) and ridge regression of a line y = w x + b.

    Returns ``(gammas, errors)``: the gammas as a float array and errors of shape (len(gammas), 2), each row
    (training MSE, test MSE) of `regression.linear_fit_errors` at that gamma.
    """
    gammas = _grid(gammas, "gammas")
    errors = np.array([linear_fit_errors(X_train, y_train, X_test, y_test, gamma) for gamma in gammas])
    return gammas, errors


def tune_gamma(X, y, L, gammas, n_folds=5, random_state=0):
    """Exercise 3a: the n_folds-fold CV error of kRR (RBF width L) for each gamma, and the gamma that minimises it.

    Returns ``(best_gamma, cv_errors)``: cv_errors[j] = `regression.cv_error`(X, y, L, gammas[j], n_folds,
    random_state) (the same folds for every gamma), best_gamma the first gamma with the smallest error.
    """
    X = as_matrix(X, "X")
    y = as_vector(y, "y", length=X.shape[0], length_of="X")
    L = as_scalar(L, "L", low=0.0, low_open=True)
    gammas = _grid(gammas, "gammas")
    n_folds = as_positive_int(n_folds, "n_folds", minimum=2)
    if n_folds > len(y):
        raise ValueError(f"n_folds must be at most the number of points ({len(y)}), got {n_folds}")
    check_random_state_kind(random_state)
    cv_errors = np.array([cv_error(X, y, L, gamma, n_folds, random_state) for gamma in gammas])
    return float(gammas[np.argmin(cv_errors)]), cv_errors


def tune_width_and_gamma(X, y, widths, gammas, n_folds=5, random_state=0):
    """Exercise 3a, "we can also tune L in this way": the CV error over a grid of (L, gamma).

    Returns ``(best_L, best_gamma, cv_map)`` with cv_map[i, j] the CV error at widths[i], gammas[j] (one row per
    width), and (best_L, best_gamma) the pair with the smallest error (the first in row-major order on ties).
    """
    widths = _grid(widths, "widths", positive=True)
    gammas = _grid(gammas, "gammas")
    cv_map = np.array([tune_gamma(X, y, width, gammas, n_folds, random_state)[1] for width in widths])
    row, column = np.unravel_index(np.argmin(cv_map), cv_map.shape)
    return float(widths[row]), float(gammas[column]), cv_map


# ---- Exercise 4 (notebook 03): the evidence over a grid ---------------------------------------------------

def evidence_curve(K, y, sigma2s):
    """Exercise 4a: ln p(y) of eq. (16) for every noise variance of the grid, and the one where it is largest.

    Returns ``(curve, best_sigma2)``: curve[j] = `regression.log_evidence`(K, y, sigma2s[j]) and best_sigma2 the
    first grid value with the largest evidence.
    """
    sigma2s = _grid(sigma2s, "sigma2s", positive=True)
    curve = log_evidence(K, y, sigma2s)
    return curve, float(sigma2s[int(np.argmax(curve))])


def evidence_over_widths(X, y, sigma2, widths):
    """Exercise 4c (bonus): ln p(y) of eq. (16) with the RBF kernel of each width L (sigma2 fixed), and the best L.

    Returns ``(curve, best_L)``: curve[i] = `regression.log_evidence`(rbf_kernel(X, L=widths[i]), y, sigma2) and
    best_L the first width with the largest evidence.
    """
    X = as_matrix(X, "X")
    widths = _grid(widths, "widths", positive=True)
    sigma2 = as_scalar(sigma2, "sigma2", low=0.0, low_open=True)
    curve = np.array([log_evidence(rbf_kernel(X, L=width), y, sigma2) for width in widths])
    return curve, float(widths[int(np.argmax(curve))])


# ---- Exercise 6 (notebook 05): the adatron's C by cross-validation ------------------------------------------

def _as_folds(folds, n: int) -> list:
    """(fit rows, held-out rows) pairs of row numbers 0..n-1, neither empty."""
    if isinstance(folds, (str, bytes)) or not isinstance(folds, Sequence) or len(folds) == 0:
        raise TypeError(f"folds must be a non-empty list of (fit rows, held-out rows) pairs, got {folds!r:.60}")
    checked = []
    for number, fold in enumerate(folds):
        if isinstance(fold, (str, bytes)) or not isinstance(fold, Sequence) or len(fold) != 2:
            raise TypeError(f"folds[{number}] must be a pair (fit rows, held-out rows), got {fold!r:.60}")
        rows = []
        for part in fold:
            part = np.asarray(part)
            if part.ndim != 1 or part.size == 0 or not np.issubdtype(part.dtype, np.integer):
                raise ValueError(f"folds[{number}] must hold two non-empty 1-d arrays of row numbers, got {part!r:.60}")
            if part.min() < 0 or part.max() >= n:
                raise ValueError(f"folds[{number}] must hold row numbers from 0 to {n - 1} (rows of K), got "
                                 f"{int(part.min())} to {int(part.max())}")
            rows.append(part)
        checked.append(tuple(rows))
    return checked


def cross_validate_C(K, y, Cs, folds):
    """Exercise 6: mean held-out accuracy and hinge loss of the adatron with bias for every C, and the best C.

    On each fold ``alpha, b = adatron.adatron_with_bias(K[fit, fit], y[fit], C)`` and a held-out point's decision
    value is f(x) = sum_i alpha_i y_i K(x_i, x) + b over the fit rows (eq. 6 with the bias); it is predicted +1
    when f(x) >= 0.  Each score is averaged over the folds (each fold counts once).  Returns
    ``(accuracy, hinge, best_C)``: two arrays with one entry per C, and the first C with the smallest mean hinge
    loss max(0, 1 - y f(x)).
    """
    K = as_gram(K, "K", psd=False)
    y = as_pm1_labels(y, "y", length=K.shape[0], length_of="K")
    Cs = _grid(Cs, "Cs", positive=True)
    folds = _as_folds(folds, K.shape[0])
    for number, (fit_rows, _) in enumerate(folds):
        if len(np.unique(y[fit_rows])) < 2:
            raise ValueError(f"folds[{number}]'s fit rows must hold both classes of y (the adatron needs both), got "
                             f"only {y[fit_rows][0]:+g}")
    accuracy = np.zeros(len(Cs))
    hinge = np.zeros(len(Cs))
    for position, C in enumerate(Cs):
        for fit_rows, held_out in folds:
            alpha, b = adatron_with_bias(K[np.ix_(fit_rows, fit_rows)], y[fit_rows], C)
            decision = K[np.ix_(held_out, fit_rows)] @ (y[fit_rows] * alpha) + b
            accuracy[position] += np.mean(np.where(decision >= 0, 1.0, -1.0) == y[held_out]) / len(folds)
            hinge[position] += np.mean(np.maximum(0.0, 1.0 - y[held_out] * decision)) / len(folds)
    return accuracy, hinge, float(Cs[int(np.argmin(hinge))])


# ---- Exercise 7 (notebook 06): the bag-of-words kernel on the corpus ------------------------------------------

def kernel_timings(kernels: Sequence[Callable], docs: Sequence, sizes: Sequence[int], repeat: int = 3,
                   timer: Callable[[], float] = time.perf_counter) -> np.ndarray:
    """Seconds to compute each kernel matrix on the first n documents: array of shape (len(kernels), len(sizes)).

    Entry [k, s] is the best (smallest) of `repeat` runs of ``kernels[k](docs[:sizes[s]])``, each timed
    with `timer` (tic = timer() before the call, toc after it).  The best run is the one least disturbed by
    the rest of the machine.  `timer` is a function of no arguments returning seconds, as `timeit` takes:
    time.perf_counter by default; a check hands in its own, so that its verdict reads no wall clock.
    """
    if not isinstance(kernels, Sequence) or not kernels or not all(callable(kernel) for kernel in kernels):
        raise TypeError(f"kernels must be a non-empty list of kernel functions, got {kernels!r:.80}")
    if isinstance(docs, str) or not isinstance(docs, Sequence):
        raise TypeError(f"docs must be a list of documents, got {type(docs).__name__}")
    if len(docs) == 0:
        raise ValueError("docs must contain at least one document, got an empty list")
    repeat = as_positive_int(repeat, "repeat")
    if not callable(timer):
        raise TypeError(f"timer must be a function of no arguments returning seconds (such as time.perf_counter), "
                        f"got {type(timer).__name__}")
    sizes = [as_positive_int(n, "sizes") for n in sizes]
    if not sizes or max(sizes) > len(docs):
        raise ValueError(f"sizes must be a non-empty list of numbers of documents up to len(docs) = {len(docs)}, "
                         f"got {sizes}")
    seconds = np.full((len(kernels), len(sizes)), np.inf)
    for k, kernel in enumerate(kernels):
        for s, n in enumerate(sizes):
            for _ in range(repeat):
                tic = timer()
                kernel(docs[:n])
                seconds[k, s] = min(seconds[k, s], timer() - tic)
    return seconds


def _languages(values, n: int) -> np.ndarray:
    """One language label (a string) per document."""
    if values is None or isinstance(values, (str, bytes)):
        raise TypeError(f"language must be an array of one label per document, got {values!r:.60}")
    values = np.asarray(values)
    if values.shape != (n,):
        raise ValueError(f"language must have one entry per document, shape ({n},), got shape {values.shape}")
    return values


def _articles(values, n: int) -> np.ndarray:
    """One article number per document (finite numbers: a translation shares its article's number)."""
    return as_vector(values, "article", length=n, length_of="the kernel")


#: The three kinds of document pairs of `pair_group_means`, in the order of its rows.
PAIR_GROUPS = ("same language", "different languages", "translations")


def pair_group_means(K_first, K_second, language, article) -> np.ndarray:
    """Mean normalised kernel value by kind of pair: array of shape (3, 2), rows `PAIR_GROUPS`.

    Both kernels are normalised (eq. 19, K_ij / sqrt(K_ii K_jj)); over the pairs i < j, row 0 averages the
    pairs in the same language, row 1 the pairs in different languages that are not translations, row 2 the
    translations (same article, different language).  Column 0 is K_first, column 1 K_second.
    """
    K_first, K_second = as_gram(K_first, "K_first", psd=False), as_gram(K_second, "K_second", psd=False)
    n = K_first.shape[0]
    if K_second.shape != K_first.shape:
        raise ValueError(f"K_second must have the shape of K_first {K_first.shape}, got {K_second.shape}")
    language, article = _languages(language, n), _articles(article, n)
    upper_i, upper_j = np.triu_indices(n, k=1)
    same_language = language[upper_i] == language[upper_j]
    translation = (article[upper_i] == article[upper_j]) & ~same_language
    groups = [same_language, ~same_language & ~translation, translation]
    means = np.full((len(groups), 2), np.nan)
    for column, K in enumerate((K_first, K_second)):
        values = normalise(K)[upper_i, upper_j]
        for row, chosen in enumerate(groups):
            if np.any(chosen):
                means[row, column] = values[chosen].mean()
    return means


def pair_accuracy(K, language, article, first: str, second: str, adatron: Callable, C: float = 1.0,
                  n_folds: int = 5) -> np.ndarray:
    """Held-out accuracy of the adatron telling `first` (label -1) from `second` (+1): one value per fold.

    The documents of the two languages, in their order in K, are split by
    ``GroupKFold(n_splits=n_folds).split(K_pair, labels, groups=article)``; on each fold
    ``alpha, b = adatron(K_train, y_train, C)`` and a test document is classified by
    sign(K[test, train] @ (alpha * y_train) + b) (a decision value of exactly 0 counts as an error).  Returns the n_folds accuracies, in the folds' order.
    """
    K = as_gram(K, "K", psd=False)
    n = K.shape[0]
    language, article = _languages(language, n), _articles(article, n)
    if not callable(adatron):
        raise TypeError(f"adatron must be a function adatron(K, y, C) -> (alpha, b), got {adatron!r:.60}")
    C = as_scalar(C, "C", low=0.0, low_open=True)
    n_folds = as_positive_int(n_folds, "n_folds", minimum=2)
    for name, value in (("first", first), ("second", second)):
        # a list or an array here would be compared entry by entry with `language` and pick other documents
        if not isinstance(value, str):
            raise TypeError(f"{name} must be one language name (a str), got {value!r:.60}")
        if not np.any(language == value):
            raise ValueError(f"{name} must be a language of `language` {sorted(set(language.tolist()))[:8]}, "
                             f"got {value!r} (first and second are the two languages to tell apart)")
    if first == second:
        raise ValueError(f"second must be another language than first, got {second!r} twice")
    index = np.flatnonzero((language == first) | (language == second))
    labels = np.where(language[index] == first, -1.0, 1.0)
    if len(np.unique(article[index])) < n_folds:
        raise ValueError(f"n_folds must be at most the number of articles of the two languages, "
                         f"{len(np.unique(article[index]))}, got {n_folds}")
    K_pair = K[np.ix_(index, index)]
    accuracies = []
    for train, test in GroupKFold(n_splits=n_folds).split(K_pair, labels, groups=article[index]):
        alpha, b = adatron(K_pair[np.ix_(train, train)], labels[train], C)
        decision = K_pair[np.ix_(test, train)] @ (np.asarray(alpha) * labels[train]) + b
        accuracies.append(np.mean(np.sign(decision) == labels[test]))   # a value of exactly 0 is an error
    return np.array(accuracies)

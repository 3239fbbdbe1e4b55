"""Checks for notebook 05 (the kernel adatron, coursework section 3 and Exercise 6).

The student writes both algorithms of the handout:

* ``adatron_no_bias(K, y, C, eta, tol, max_iter)`` -> alpha: coordinate ascent
  on the box-constrained dual, eq. (22);
* ``adatron_with_bias(K, y, C, eta, tol, max_iter)`` -> (alpha, b): the same
  with the bias step b = b + y'alpha / 4.

The references are `kgslab.adatron.adatron_no_bias` and `adatron_with_bias`; both algorithms are
deterministic (one coordinate per iteration, the first of the largest changes,
stop when that change is below tol or after max_iter iterations), so a correct
implementation reproduces it to rounding error.  The cross-validation experiment's reference is
`kgslab.papers.coursework.cross_validate_C`.
"""

from __future__ import annotations

import numpy as np

from .. import adatron as _adatron, text as _text
from ..kernels import linear_kernel, rbf_kernel
from ..kernels import normalise as _normalise
from ..papers import coursework as _coursework
from .cases import Case, Mistake
from .exercise import Exercise
from .values import Problem, allclose

__all__ = ["nb05_exercise_6_no_bias", "nb05_exercise_6_with_bias", "nb05_exercise_6_cv"]

_ENGLISH = [
    "Every person has the right to life and to personal freedom.",
    "The Federation protects the freedom of the press.",
    "Citizens may vote and be elected.",
    "The law shall determine the details.",
]
_FRENCH = [
    "Toute personne a droit à la vie et à la liberté personnelle.",
    "La Fédération protège la liberté de la presse.",
    "Les citoyens peuvent voter et être élus.",
    "La loi règle les détails.",
]


def _adatron_with(mistake, K, y, C, eta=1.0, tol=0.005, max_iter=None, bias=True):
    """The adatron of the handout with one known mistake typed in, for naming it (never a reference)."""
    alpha, b = np.zeros(len(y)), 0.0
    for _ in range(10 * len(y) if max_iter is None else max_iter):
        gradient = 1.0 - y * (K @ (y * alpha) + b)
        beta = np.clip(alpha + (1.0 if mistake == "eta-ignored" else eta) * gradient, 0.0, C)
        change = np.abs(alpha - beta)
        i = int(np.argmax(change))
        if change[i] < tol and mistake != "stop-after-update":
            break
        old_alpha = alpha.copy()
        alpha[i] = beta[i]
        if bias:
            b += y @ (old_alpha if mistake == "old-alpha-in-bias" else alpha) / (1.0 if mistake == "no-quarter" else 4.0)
        if change[i] < tol:
            break
    return (alpha, b) if bias else alpha


_MISTAKES = {
    "eta-ignored": "it is what the step without eta gives: beta_i = alpha_i + eta g_i before clipping.",
    "stop-after-update": "it is what stopping AFTER the update gives: test the largest change against tol before "
                         "changing alpha_i.",
    "no-quarter": "it is what the bias step without the 1/4 gives: b <- b + y'alpha / 4.",
    "old-alpha-in-bias": "it is what the bias step with the old alpha gives: step 6 uses y'alpha after alpha_i has "
                         "changed in step 5.",
}


def _with_mistakes(bias):
    def cases():
        found = _cases()
        for case in found:
            kinds = [kind for kind in _MISTAKES if bias or kind in ("eta-ignored", "stop-after-update")]
            case.mistakes = [Mistake(kind, _MISTAKES[kind], result=_adatron_with(kind, *case.args, **case.kwargs,
                                                                                 bias=bias)) for kind in kinds]
        return found
    return cases


def _cases():
    rng = np.random.default_rng(6)
    labels = np.array([-1.0] * 4 + [1.0] * 4)
    X = rng.standard_normal((20, 2))
    y_blobs = np.where(np.arange(20) % 2 == 0, 1.0, -1.0)
    X = X + 0.8 * y_blobs[:, None]
    X_unbalanced = rng.standard_normal((15, 3))
    y_unbalanced = np.where(X_unbalanced[:, 0] + 0.3 * rng.standard_normal(15) > 0.5, 1.0, -1.0)
    return [
        Case("normalised 2-mer kernel of 4 English and 4 French sentences, C = 10",
             (_normalise(_text.kmer_kernel(_ENGLISH + _FRENCH)), labels, 10.0)),
        Case("RBF kernel (L = 1) of 20 overlapping points, C = 1", (rbf_kernel(X, L=1.0), y_blobs, 1.0)),
        Case("the same points with C = 0.05 (many alpha_i stop at C)", (rbf_kernel(X, L=1.0), y_blobs, 0.05)),
        Case("linear kernel (not normalised) of 15 points, only 2 labelled +1, C = 2, eta = 0.3",
             (linear_kernel(X_unbalanced), y_unbalanced, 2.0), {"eta": 0.3}),
        Case("RBF kernel, C = 1, tol = 1e-6 but max_iter = 7 (stop after 7 updates)",
             (rbf_kernel(X, L=1.0), y_blobs, 1.0), {"tol": 1e-6, "max_iter": 7}),
        Case("RBF kernel, C = 1, tol = 0 and max_iter left at None (all 10 l = 200 updates)",
             (rbf_kernel(X, L=1.0), y_blobs, 1.0), {"tol": 0.0}),
    ]


_SHARED_HINT = ("Start from alpha = 0 (and b = 0); each iteration changes ONE alpha_i, the first of the "
                "largest changes |alpha_i - beta_i|, where beta_i is the gradient step clipped to the box "
                "[0, C]. Stop BEFORE that update when the largest change is below tol, or after max_iter "
                "updates (max_iter = None means 10 l). If only the test with max_iter = 7 fails, count the "
                "updates; if only the unnormalised test with eta = 0.3 fails, check where eta enters.")

_SHARED_CODE_HINT = ("np.clip(values, low, high) clips a whole vector to the box at once; np.argmax returns the "
                     "first index of the largest entry; keep the loop a `for` over range(max_iter) with a "
                     "`break`.")


nb05_exercise_6_no_bias = Exercise(
    "nb05_exercise_6_no_bias", "Exercise 6 (kernel adatron without bias, eq. 22)",
    _adatron.adatron_no_bias, _with_mistakes(bias=False), points=4,
    closed=("kgslab.adatron.kernel_adatron", "kgslab.adatron.KernelAdatron.fit",
            "kgslab.adatron._coordinate_ascent"),
    compare=allclose(rtol=1e-7, atol=1e-9),
    hint="the gradient of f in eq. (22) is g = 1 - (K o yy') alpha, the elementwise product of K with yy' "
         "times alpha. " + _SHARED_HINT,
    code_hint="(K o yy') alpha equals y * (K @ (y * alpha)) without forming yy'. " + _SHARED_CODE_HINT)


nb05_exercise_6_with_bias = Exercise(
    "nb05_exercise_6_with_bias", "Exercise 6 (kernel adatron with bias)",
    _adatron.adatron_with_bias, _with_mistakes(bias=True), points=3,
    closed=("kgslab.adatron.kernel_adatron", "kgslab.adatron.KernelAdatron.fit",
            "kgslab.adatron._coordinate_ascent"),
    compare=allclose(rtol=1e-7, atol=1e-9),
    hint="the result is a tuple (alpha, b). The predictions z = K(y o alpha) + b include the bias, and the "
         "bias step b <- b + y'alpha / 4 (step 6) comes after alpha_i has changed, every iteration. "
         + _SHARED_HINT,
    code_hint="y @ alpha is y'alpha. " + _SHARED_CODE_HINT)


def _cv_cases():
    rng = np.random.default_rng(16)
    X = rng.standard_normal((30, 2))
    y = np.where(X[:, 0] + 0.6 * rng.standard_normal(30) > 0, 1.0, -1.0)
    K = rbf_kernel(X, L=1.0)
    order = np.arange(30)
    three_folds = [(np.setdiff1d(order, order[k::3]), order[k::3]) for k in range(3)]
    texts_K = _normalise(_text.kmer_kernel(_ENGLISH + _FRENCH))
    labels = np.array([-1.0] * 4 + [1.0] * 4)
    pairs = np.arange(4)   # sentence k and its translation k + 4 are held out together
    two_folds = [(np.r_[pairs[pairs % 2 != k], pairs[pairs % 2 != k] + 4], np.r_[pairs[pairs % 2 == k],
                                                                                 pairs[pairs % 2 == k] + 4])
                 for k in range(2)]
    return [
        Case("RBF kernel of 30 overlapping points, C in [0.1, 1, 10], 3 folds",
             (K, y, np.array([0.1, 1.0, 10.0]), three_folds)),
        Case("normalised 2-mer kernel of 4 English and 4 French sentences, C in [0.01, 1, 100], 2 folds "
             "(translations held out together)", (texts_K, labels, np.array([0.01, 1.0, 100.0]), two_folds)),
    ]


def _diagnose_cv(expected, got):
    problem = allclose(rtol=1e-6, atol=1e-9)(expected, got)
    if problem is None or not (isinstance(got, tuple) and len(got) == 3):
        return problem
    parts = [allclose(rtol=1e-6, atol=1e-9)(want, have) for want, have in zip(expected, got)]
    if parts[0] is None and parts[1] is None:
        return Problem(problem, "best-C", "The scores are right: best_C must be the value of C (not its position) "
                                          "with the smallest mean hinge loss, the first one if several tie.")
    if parts[0] is not None and parts[1] is None:
        return Problem(problem, "accuracy", "The hinge losses are right but the accuracies are not: a prediction is "
                       "the sign of f(x) = sum_i alpha_i y_i K(x_i, x) + b, counted as +1 when f(x) = 0.")
    return problem


nb05_exercise_6_cv = Exercise(
    "nb05_exercise_6_cv", "Exercise 6 (tune C by cross-validation with your adatron)",
    _coursework.cross_validate_C, _cv_cases, points=2, closed=("kgslab.adatron.KernelAdatron.fit",),
    compare=_diagnose_cv,
    hint="for every C and every fold: train your adatron_with_bias (eta = 1, tol and max_iter at their "
         "defaults) on the fold's training rows only (K restricted to those rows AND columns), then score the "
         "held-out rows, whose kernel values are with the training rows of the fold. Average each score over "
         "the folds (each fold counts once). The hinge loss of a fold is the mean of max(0, 1 - y f(x)).",
    code_hint="K[np.ix_(rows, columns)] cuts a block out of K; np.maximum(0.0, 1.0 - y * f) is the hinge of every "
              "point at once; np.argmin gives the first position of the smallest value.")

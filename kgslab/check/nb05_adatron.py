"""Checks for notebook 05 (the kernel adatron, coursework section 3 and Exercise 6).

The student writes both algorithms of the handout:

* ``adatron_no_bias(K, y, C, eta, tol, max_iter)`` -> alpha: coordinate ascent
  on the box-constrained dual, eq. (22);
* ``adatron_with_bias(K, y, C, eta, tol, max_iter)`` -> (alpha, b): the same
  with the bias step b = b + y'alpha / 4.

The references are `kgslab.adatron.adatron_no_bias` and `adatron_with_bias`; both algorithms are
deterministic (one coordinate per iteration, the first of the largest changes,
stop when that change is below tol or after max_iter iterations), so a correct
implementation reproduces it to rounding error.
"""

from __future__ import annotations

import numpy as np

from .. import adatron, text
from ..kernels import linear_kernel, normalise, rbf_kernel
from .core import Case, Exercise, allclose

__all__ = ["nb05_exercise_6_no_bias", "nb05_exercise_6_with_bias"]

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
             (normalise(text.kmer_kernel(_ENGLISH + _FRENCH)), labels, 10.0)),
        Case("RBF kernel (L = 1) of 20 overlapping points, C = 1", (rbf_kernel(X, L=1.0), y_blobs, 1.0)),
        Case("the same points with C = 0.05 (many alpha_i stop at C)", (rbf_kernel(X, L=1.0), y_blobs, 0.05)),
        Case("linear kernel (not normalised) of 15 points, only 2 labelled +1, C = 2, eta = 0.3",
             (linear_kernel(X_unbalanced), y_unbalanced, 2.0), {"eta": 0.3}),
        Case("RBF kernel, C = 1, tol = 1e-6 but max_iter = 7 (stop after 7 updates)",
             (rbf_kernel(X, L=1.0), y_blobs, 1.0), {"tol": 1e-6, "max_iter": 7}),
    ]


_SHARED_HINT = ("start from alpha = 0; each iteration changes ONE alpha_i: the first index of the largest "
                "|alpha_i - beta_i| (np.argmax), with beta = np.clip(alpha + eta * g, 0, C); stop BEFORE the "
                "update when that largest change is below tol, or after max_iter updates "
                "(max_iter = None means 10 * l).")


nb05_exercise_6_no_bias = Exercise(
    "nb05_exercise_6_no_bias", "Exercise 6 (kernel adatron without bias, eq. 22)",
    adatron.adatron_no_bias, _cases, points=4,
    compare=allclose(rtol=1e-7, atol=1e-9),
    hint="the gradient is g = 1 - y * (K @ (y * alpha)), i.e. 1 - (K o yy') alpha. "
         + _SHARED_HINT)


nb05_exercise_6_with_bias = Exercise(
    "nb05_exercise_6_with_bias", "Exercise 6 (kernel adatron with bias)",
    adatron.adatron_with_bias, _cases, points=3,
    compare=allclose(rtol=1e-7, atol=1e-9),
    hint="z = K @ (y * alpha) + b, g = 1 - y * z; after setting alpha_i = beta_i update "
         "b = b + y @ alpha / 4 with the NEW alpha; return (alpha, b). " + _SHARED_HINT)

"""Checks for notebook 04 (normalising and centring kernel matrices, coursework Exercise 5)."""

from __future__ import annotations

import numpy as np

from .. import kernels, text
from .core import Case, Exercise, allclose

__all__ = ["nb04_exercise_5a", "nb04_exercise_5b", "nb04_exercise_5b_norms"]

_TEXTS = [
    "The Federation protects freedom.",
    "Every person has the right to life and to personal freedom, and to the protection of the law.",
    "La Fédération protège la liberté.",
    "Der Bund schützt die Freiheit.",
    "La Federazione tutela la libertà e i diritti di ogni persona.",
]


def _cases():
    rng = np.random.default_rng(5)
    features = rng.standard_normal((6, 3)) * rng.uniform(0.5, 5.0, size=(6, 1))
    return [
        Case("the 2-mer kernel of five short texts", (text.kmer_kernel(_TEXTS),)),
        Case("the bag-of-words kernel of the same texts", (text.bag_of_words_kernel(_TEXTS),)),
        Case("K = X X' for 6 points in R^3 of very different lengths", (features @ features.T,)),
        Case("a diagonal 3 x 3 kernel", (np.diag([4.0, 1.0, 9.0]),)),
    ]


nb04_exercise_5a = Exercise(
    "nb04_exercise_5a", "Exercise 5a (normalise a kernel, eq. 19)",
    kernels.normalise, _cases, points=2,
    compare=allclose(rtol=1e-9, atol=1e-12),
    hint="divide K[i, j] by sqrt(K[i, i] * K[j, j]); with d = np.sqrt(np.diag(K)) "
         "that is K / np.outer(d, d). Every diagonal entry of the result is 1.")


nb04_exercise_5b = Exercise(
    "nb04_exercise_5b", "Exercise 5b (centre a kernel, eq. 21)",
    kernels.centre, _cases, points=2,
    compare=allclose(rtol=1e-9, atol=1e-9),
    hint="with J = np.ones((l, l)) / l, eq. (21) is K - J @ K - K @ J + J @ K @ J; "
         "every row and every column of the result sums to 0.")


def _nb04_exercise_5b_norms_cases():
    """The norms sqrt(K_ii) and the norm of the mean feature vector, sqrt(1'K1) / l."""
    cases = _cases()
    cases.append(Case("a centred kernel (its mean feature vector is 0)",
                      (kernels.centre(text.kmer_kernel(_TEXTS)),)))
    return cases


nb04_exercise_5b_norms = Exercise(
    "nb04_exercise_5b_norms", "Exercise 5b (norms and means in feature space)",
    kernels.norms_and_means, _nb04_exercise_5b_norms_cases, points=2,
    compare=allclose(rtol=1e-7, atol=1e-7),
    hint="||phi(x_i)||^2 = K[i, i], and the squared norm of the mean of the phi(x_i) is the "
         "mean of all entries of K; for a centred K rounding can leave that mean a tiny "
         "negative number, so take np.sqrt(max(K.mean(), 0.0)).")

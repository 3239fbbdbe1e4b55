"""Checks for notebook 04 (normalising and centring kernel matrices, coursework Exercise 5)."""

from __future__ import annotations

import numpy as np

from .. import kernels, text
from .core import Case, allclose, run_exercise

__all__ = ["exercise_5a", "exercise_5b", "exercise_5b_norms_and_means"]

_TEXTS = [
    "The Federation protects freedom.",
    "Every person has the right to life and to personal freedom, and to the protection of the law.",
    "La Fédération protège la liberté.",
    "Der Bund schützt die Freiheit.",
    "La Federazione tutela la libertà e i diritti di ogni persona.",
]


def norms_and_means(K):
    """Feature-space norms ||phi(x_i)|| = sqrt(K_ii), and the norm of the mean feature vector.

    ||(1/l) sum_i phi(x_i)||^2 = (1/l^2) 1'K1, the mean of all entries of K,
    so it is 0 exactly when K is centred.  Returns (norms, mean_norm).
    """
    K = np.asarray(K, dtype=float)
    return np.sqrt(np.clip(np.diag(K), 0.0, None)), float(np.sqrt(max(K.mean(), 0.0)))


def _cases():
    rng = np.random.default_rng(5)
    features = rng.standard_normal((6, 3)) * rng.uniform(0.5, 5.0, size=(6, 1))
    return [
        Case("the 2-mer kernel of five short texts", (text.kmer_kernel(_TEXTS),)),
        Case("the bag-of-words kernel of the same texts", (text.bag_of_words_kernel(_TEXTS),)),
        Case("K = X X' for 6 points in R^3 of very different lengths", (features @ features.T,)),
        Case("a diagonal 3 x 3 kernel", (np.diag([4.0, 1.0, 9.0]),)),
    ]


def exercise_5a(student):
    """Normalising a kernel matrix, eq. (19): K_n = diag(K)^{-1/2} K diag(K)^{-1/2}."""
    return run_exercise("Exercise 5a (normalise a kernel, eq. 19)", student, kernels.normalise, _cases(),
                        compare=allclose(rtol=1e-9, atol=1e-12),
                        hint="divide K[i, j] by sqrt(K[i, i] * K[j, j]); with d = np.sqrt(np.diag(K)) "
                             "that is K / np.outer(d, d). Every diagonal entry of the result is 1.")


def exercise_5b(student):
    """Centring a kernel matrix, eq. (21)."""
    return run_exercise("Exercise 5b (centre a kernel, eq. 21)", student, kernels.centre, _cases(),
                        compare=allclose(rtol=1e-9, atol=1e-9),
                        hint="with J = np.ones((l, l)) / l, eq. (21) is K - J @ K - K @ J + J @ K @ J; "
                             "every row and every column of the result sums to 0.")


def exercise_5b_norms_and_means(student):
    """The norms sqrt(K_ii) and the norm of the mean feature vector, sqrt(1'K1) / l."""
    cases = _cases()
    cases.append(Case("a centred kernel (its mean feature vector is 0)",
                      (kernels.centre(text.kmer_kernel(_TEXTS)),)))
    return run_exercise("Exercise 5b (norms and means in feature space)", student, norms_and_means, cases,
                        compare=allclose(rtol=1e-7, atol=1e-7),
                        hint="||phi(x_i)||^2 = K[i, i], and the squared norm of the mean of the phi(x_i) is the "
                             "mean of all entries of K; for a centred K rounding can leave that mean a tiny "
                             "negative number, so take np.sqrt(max(K.mean(), 0.0)).")

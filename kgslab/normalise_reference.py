"""Normalising and centring a kernel matrix, as notebook 04 asks for them (exercise references).

Coursework (seed 004), section 2:

* normalising, eq. (19):    K_n = D^{-1/2} K D^{-1/2},  D = diag(K_11, ..., K_ll)
* centring, eq. (21):       K_c = K - (1/l) 1 1' K - (1/l) K 1 1' + (1/l^2) 1 1' K 1 1'

Normalising maps every feature vector to unit length; centring moves the
origin of feature space to the mean of the training points.  Both only need
the Gram matrix, never the feature vectors themselves: the kernel trick.

They live apart from `kgslab.kernels`, which notebooks 02 and 03 import for their kernels before notebook 04
asks for these, because a student copy imports no module that holds its own or a later exercise's reference.  The
notebooks after 04 (05-07) normalise with `normalise` from here: by then it is the student's own work.
"""

from __future__ import annotations

import numpy as np

from ._validation import as_gram

__all__ = ["normalise", "centre", "norms_and_means"]


def normalise(K) -> np.ndarray:
    """Normalised kernel matrix, eq. (19): K_n[i, j] = K[i, j] / sqrt(K[i, i] K[j, j]).

    Every diagonal entry of the result is 1: each point has unit norm in
    feature space.  A zero diagonal entry (a point whose feature vector is 0,
    e.g. an empty text) has no direction and is refused.
    """
    K = as_gram(K, "K", psd=False)
    diagonal = np.diag(K)
    if np.any(diagonal <= 0):
        first = int(np.argmax(diagonal <= 0))
        raise ValueError(
            f"K must have a positive diagonal to be normalised, but K[{first}, {first}] = {diagonal[first]:.3g}"
        )
    inverse_norms = 1.0 / np.sqrt(diagonal)
    # D^{-1/2} K D^{-1/2} as a broadcast, without forming the diagonal matrices.
    normalised = K * inverse_norms[:, None] * inverse_norms[None, :]
    if not np.all(np.isfinite(normalised)):
        raise ValueError("K's diagonal is too small for its off-diagonal entries: K / sqrt(K_ii K_jj) "
                         "overflows (is K a kernel matrix?)")
    return normalised


def centre(K) -> np.ndarray:
    """Centred kernel matrix, eq. (21).

    With row means r = K 1 / l and grand mean g = 1' K 1 / l^2,
    K_c = K - 1 r' - r 1' + g 1 1', which is eq. (21) written with the means:
    every row and column of K_c sums to zero.
    """
    K = as_gram(K, "K", psd=False)
    row_means = K.mean(axis=1)
    column_means = K.mean(axis=0)
    return K - row_means[:, None] - column_means[None, :] + K.mean()


def norms_and_means(K):
    """Feature-space norms ||phi(x_i)|| = sqrt(K_ii), and the norm of the mean feature vector.

    ||(1/l) sum_i phi(x_i)||^2 = (1/l^2) 1'K1, the mean of all entries of K,
    so it is 0 exactly when K is centred.  Returns (norms, mean_norm).
    """
    K = as_gram(K, "K")   # a PSD Gram matrix: its diagonal and 1'K1 are >= 0 up to rounding (clipped below)
    return np.sqrt(np.clip(np.diag(K), 0.0, None)), float(np.sqrt(max(K.mean(), 0.0)))

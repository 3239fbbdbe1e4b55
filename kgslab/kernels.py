"""Kernel functions and the transforms of a kernel matrix.

Coursework (seed 004), section 1.2:

* RBF kernel, eq. (4):      k(x, z) = exp(-||x - z||^2 / (2 L^2))
* linear kernel:            k(x, z) = <x, z>,  so K = X X'

Section 2:

* normalising, eq. (19):    K_n = D^{-1/2} K D^{-1/2},  D = diag(K_11, ..., K_ll)
* centring, eq. (21):       K_c = K - (1/l) 1 1' K - (1/l) K 1 1' + (1/l^2) 1 1' K 1 1'

Normalising maps every feature vector to unit length; centring moves the origin of feature space to the mean of
the training points.  Both only need the Gram matrix, never the feature vectors themselves: the kernel trick.
Notebook 04 asks the student to write `normalise`, `centre` and `norms_and_means` (these are its checks'
references); the notebooks after it use `normalise`.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist

from ._validation import as_gram, as_matrix, as_scalar

__all__ = ["rbf_kernel", "linear_kernel", "kernel_matrix", "normalise", "centre", "norms_and_means"]


def _pair(X, Z):
    """Validate X (n, d) and Z (m, d); Z defaults to X."""
    X = as_matrix(X, "X")
    if Z is None:
        return X, X
    Z = as_matrix(Z, "Z")
    if Z.shape[1] != X.shape[1]:
        raise ValueError(f"Z must have as many columns as X ({X.shape[1]}), got shape {Z.shape}")
    return X, Z


def rbf_kernel(X, Z=None, L: float = 1.0) -> np.ndarray:
    """Gaussian (RBF) kernel matrix, eq. (4): K[i, j] = exp(-||x_i - z_j||^2 / (2 L^2)).

    X is (n, d), Z is (m, d) (default: X); returns (n, m).  L > 0 is the width.
    """
    L = as_scalar(L, "L", low=0.0, low_open=True)
    X, Z = _pair(X, Z)
    two_l_squared = 2.0 * L * L
    if two_l_squared < np.finfo(float).tiny:
        # 2 L^2 underflows (L below about 1e-154): ||x - z||^2 / (2 L^2) would be 0/0 = NaN on the
        # diagonal.  The kernel of such an L is the identity for distinct points anyway.
        raise ValueError(f"L = {L:.3g} is too small: 2 L^2 underflows to {two_l_squared:.3g} in floating "
                         "point and the kernel would be NaN; use L > 1e-150 (for distinct points a tiny L "
                         "gives the identity matrix)")
    squared_distances = cdist(X, Z, metric="sqeuclidean")
    if not np.all(np.isfinite(squared_distances)):
        raise ValueError("X and Z hold values so large that squared distances overflow; rescale them")
    return np.exp(-squared_distances / two_l_squared)


def linear_kernel(X, Z=None) -> np.ndarray:
    """Linear kernel matrix K[i, j] = <x_i, z_j>, i.e. X Z'."""
    X, Z = _pair(X, Z)
    gram = X @ Z.T
    if not np.all(np.isfinite(gram)):
        raise ValueError("X and Z hold values so large that their inner products overflow; rescale them")
    return gram


def kernel_matrix(X, Z=None, kernel: str = "rbf", L: float = 1.0) -> np.ndarray:
    """Dispatch on a kernel name ("rbf" or "linear"), as the estimators do."""
    if isinstance(kernel, str) and kernel == "rbf":
        return rbf_kernel(X, Z, L=L)
    if isinstance(kernel, str) and kernel == "linear":
        return linear_kernel(X, Z)
    # ("precomputed" is the estimators' word for "X is the kernel": nothing to compute here.)
    raise ValueError(f"kernel must be 'rbf' or 'linear', got {kernel!r}")


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

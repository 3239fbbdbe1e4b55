"""Synthetic regression data for the coursework (seed 004, section 1)."""

from __future__ import annotations

import numpy as np

from .._validation import as_generator, as_positive_int, as_scalar

__all__ = ["linear_data", "sinc_data"]


def linear_data(n: int = 200, d: int = 10, noise: float = 0.1, random_state=None):
    """Exercise 1's data: y_i = x_i' w + noise * n_i with a random w in R^d.

    x_i and w are standard normal, n_i is standard normal noise.
    Returns (X, y, w) with X of shape (n, d).
    """
    n = as_positive_int(n, "n")
    d = as_positive_int(d, "d")
    noise = as_scalar(noise, "noise", low=0.0)
    rng = as_generator(random_state)
    w = rng.standard_normal(d)
    X = rng.standard_normal((n, d))
    y = X @ w + noise * rng.standard_normal(n)
    return X, y, w


def sinc_data(n: int = 200, noise: float = 0.3, random_state=None):
    """Exercises 2-4's data: x_i uniform on [-4, 4], y_i = sinc(x_i) + noise * n_i.

    sinc is the normalised sinc of matlab and numpy, sinc(x) = sin(pi x) / (pi x)
    with sinc(0) = 1 (``np.sinc``), so it crosses zero at every non-zero integer.
    n_i is standard normal noise; the handout's noise level is 0.3, i.e. a true
    noise variance sigma_0^2 = 0.3^2 = 0.09 (Exercise 4a).

    Returns (X, y) with X of shape (n, 1), ready for ``kernels.rbf_kernel``.
    The x are drawn first, then the noise, from one generator.
    """
    n = as_positive_int(n, "n")
    noise = as_scalar(noise, "noise", low=0.0)
    rng = as_generator(random_state)
    X = rng.uniform(-4.0, 4.0, size=(n, 1))
    y = np.sinc(X[:, 0]) + noise * rng.standard_normal(n)
    return X, y

"""Synthetic regression data for the coursework (seed 004, section 1)."""

from __future__ import annotations

import numpy as np

from .._validation import as_generator, as_positive_int, as_scalar

__all__ = ["linear_data"]


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

"""Two-class toy data that no line separates (coursework seed 004, section 5: the kernel perceptron)."""

from __future__ import annotations

import numpy as np

from .._validation import as_generator, as_positive_int, as_scalar

__all__ = ["xor_data"]

# The four cluster centres and their XOR labels: +1 where x1 and x2 have the same sign.
_CORNERS = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])
_CORNER_LABELS = np.array([1.0, 1.0, -1.0, -1.0])


def xor_data(n: int = 100, noise: float = 0.35, random_state=None):
    """The XOR problem: n points around the corners (+-1, +-1), label +1 where x1 x2 > 0 at the centre.

    Point i belongs to corner i mod 4 (so the classes are balanced and
    xor_data(4, noise=0) is the four corners themselves) plus isotropic
    Gaussian noise of standard deviation `noise`.  The label is the corner's,
    so for large noise a few points sit on the other class's side.
    Returns (X, y) with X of shape (n, 2) and y in {-1, +1}.
    """
    n = as_positive_int(n, "n", minimum=2)
    noise = as_scalar(noise, "noise", low=0.0)
    rng = as_generator(random_state)
    corner = np.arange(n) % 4
    X = _CORNERS[corner] + noise * rng.standard_normal((n, 2))
    return X, _CORNER_LABELS[corner].copy()

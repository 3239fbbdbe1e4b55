"""Two-class toy data that no line separates (coursework seed 004, section 5: the kernel perceptron)."""

from __future__ import annotations

import numpy as np

from .._validation import as_generator, as_positive_int, as_scalar

__all__ = ["xor_data", "separable_data"]

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


def separable_data(n: int = 40, d: int = 2, margin: float = 0.2, random_state=None):
    """n points in R^d that a hyperplane through the origin separates with a given margin.

    A unit normal u is drawn at random, the points are standard normal, and each
    is pushed `margin` further from the plane u'x = 0 on its own side, so every
    point has |u'x| >= margin.  The label is the side: y = sign(u'x).
    Returns (X, y, u).
    """
    n = as_positive_int(n, "n", minimum=2)
    d = as_positive_int(d, "d")
    margin = as_scalar(margin, "margin", low=0.0)
    rng = as_generator(random_state)
    direction = rng.standard_normal(d)
    direction /= np.linalg.norm(direction)
    X = rng.standard_normal((n, d))
    y = np.where(X @ direction >= 0, 1.0, -1.0)
    X += margin * np.outer(y, direction)
    return X, y, direction

"""Version space on the unit sphere of feature space: the geometry the kernel Gibbs sampler and the billiard share.

Seeds 001 (KGS, Graepel and Herbrich 2000) and 002 (Bayesian transduction, Graepel, Herbrich and Obermayer
1999) work with the same objects, written once here.

Coordinates (KGS section 3, BT section 3.1)
-------------------------------------------
A hypothesis is a unit vector w = sum_i alpha_i phi(x_i) (KGS eq. 1), ||w||^2 = alpha' K alpha = 1.  One
eigendecomposition K = U diag(s) U' gives coordinates Phi = U diag(sqrt(s)) with Phi Phi' = K: row i is
phi(x_i) written in an orthonormal basis of the span of the training points.  A hypothesis is then a
coordinate vector c (w = Phi' c, ||w|| = ||c||); inner products are plain dot products, <w, phi(x_i)> =
(Phi c)_i, and the map back to the papers' expansion is alpha = U diag(1/sqrt(s)) c.

* The PSD rule is the kit's one rule (`kgslab._validation.require_psd`).
* The rank rule: eigen-directions with s < RANK_RTOL * s_max are dropped.  Along them no training output
  moves by more than 1e-5 of the largest, and in alpha they would carry coefficients of 1e5 times the
  others, i.e. only rounding error.  Both samplers use this one span.
* The soft version (BT section 5) adds lam to the diagonal: K + lam I.

Great circles (KGS steps 3-4, BT step 2)
----------------------------------------
With v a unit tangent at w (<w, v> = 0), the great circle w(t) = cos t w + sin t v gives point i the margin
a_i cos t + b_i sin t (a_i = y_i <w, phi_i>, b_i = y_i <v, phi_i>).  Where these margins change sign is the
samplers' inner loop (KGS section 3, steps 3-4; BT section 3.2, step 2), in `kgslab.crossings`.

A start inside version space (KGS step 1, BT section 3.2) is the maximum-margin hyperplane through the
origin, the solution of the least-distance programme min ||c|| s.t. y_i (Phi c)_i >= 1; the same solver gives
the quadratic SVM of KGS Figure 4 and the perceptron's best Novikoff bound (coursework, seed 004).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import scipy.linalg
from scipy.optimize import nnls

from ._blas import blas_threads
from ._validation import (as_flip_rate, as_generator, as_gram, as_matrix, as_pm1_labels, as_scalar, as_vector,
                          require_psd)

# random_tangent, random_tangents and unit_tangents are the samplers' inner-loop
# primitives (one call per Gibbs step or billiard flight, where a check of the arguments would cost more than the
# arithmetic): they are used by kgs and billiard on arguments those modules have validated, and are not public;
# `Span.version_space_start` is `version_space_start` on a span a sampler has computed already.
__all__ = ["RANK_RTOL", "Span", "kernel_span", "kernel_coordinates", "max_margin", "consistent_start",
           "version_space_start", "sample_angle"]

TWO_PI = 2.0 * np.pi
RANK_RTOL = 1e-10


class Span(NamedTuple):
    """The span of the training points: Gram matrix (K + lam I), coordinates Phi and the map back to alpha."""

    gram: np.ndarray        # (m, m)
    features: np.ndarray    # (m, r): Phi = U sqrt(s), Phi Phi' = gram on the kept directions
    to_alpha: np.ndarray    # (m, r): U / sqrt(s), alpha = to_alpha @ c

    @property
    def rank(self) -> int:
        return self.features.shape[1]

    def version_space_start(self, y, lam: float = 0.0) -> np.ndarray:
        """`version_space_start` of the kernel behind this span (= kernel_span(K, lam=lam)), as unit-norm alpha."""
        y = as_pm1_labels(y, "y", length=self.gram.shape[0], length_of="the kernel matrix")
        if lam > 0:
            hint = f"increase lam (now {lam:g}), or use a kernel of higher capacity"
        else:
            hint = "use the soft version lam > 0 (K + lam I), or a kernel of higher capacity"
        return self.to_alpha @ consistent_start(self.features, y, hint)


def _refuse_low_precision(K, name: str) -> None:
    """TypeError for a kernel of floats narrower than float64 (float32, float16).

    The rank rule keeps eigen-directions down to RANK_RTOL = 1e-10 of the largest eigenvalue; a float32 matrix
    carries rounding of about 1e-7 of its largest entry, which the rule would keep as directions of the span (with
    coefficients of 1e5 and more in alpha).  So a float32 K and the float64 K it was rounded from give different
    spans: refused, rather than answered differently.
    """
    try:
        dtype = np.asarray(K).dtype
    except (TypeError, ValueError):
        return   # not an array at all: as_gram says what is wrong
    if dtype.kind == "f" and dtype.itemsize < 8:
        raise TypeError(f"{name} must hold float64 (or integer) numbers, got dtype {dtype}: its rounding (about "
                        f"{np.finfo(dtype).eps:.0e} of the largest entry) lies far above the rank rule's "
                        f"{RANK_RTOL:g} and would become directions of the span; if its values are exact, pass "
                        f"{name}.astype(float)")


def kernel_span(K, *, lam: float = 0.0, name: str = "K") -> Span:
    """One eigendecomposition of K (+ lam I): the PSD check, the rank rule and the coordinates.

    K must be float64 (or integer): a float32 or float16 K is refused (`_refuse_low_precision` says why).
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be the kernel argument's name (str), got {name!r}")
    _refuse_low_precision(K, name)
    gram = as_gram(K, name, psd=False)   # finite, square, symmetric; definiteness from the eigh below
    lam = as_scalar(lam, "lam", low=0.0)
    if lam > 0:
        gram = gram + lam * np.eye(gram.shape[0])
    with blas_threads(gram.shape[0]):
        eigenvalues, eigenvectors = scipy.linalg.eigh(gram)
    require_psd(float(eigenvalues[0]), gram, name, note=f" (after adding lam = {lam:g})" if lam > 0 else "")
    if not np.any(np.diag(gram) > 0):
        raise ValueError(f"{name} is zero: every training point has a zero feature vector")
    keep = eigenvalues > RANK_RTOL * eigenvalues[-1]
    root = np.sqrt(eigenvalues[keep])
    features = np.ascontiguousarray(eigenvectors[:, keep] * root)   # row-major: Phi @ v reads rows
    return Span(gram=gram, features=features, to_alpha=eigenvectors[:, keep] / root)


def kernel_coordinates(K, name: str = "K"):
    """(features Phi (m, r), to_alpha (m, r)) of K: alpha = to_alpha @ c and alpha' K alpha = c' c."""
    span = kernel_span(K, name=name)
    return span.features, span.to_alpha


def random_tangent(coords, rng) -> np.ndarray:
    """A unit vector uniform in the tangent space at the unit vector `coords` (isotropic Gaussian, projected)."""
    direction = rng.standard_normal(coords.shape[0])
    direction -= (direction @ coords) * coords
    squared = direction @ direction
    while not squared > 1e-24:   # drawn (numerically) parallel to coords: the same stream drew both (the fuzz did)
        direction = rng.standard_normal(coords.shape[0])
        direction -= (direction @ coords) * coords
        squared = direction @ direction
    direction /= math.sqrt(squared)
    return direction


def _row_dots(a, b):
    """(k, 1): the dot product of every row of a with the same row of b (one batched matmul call)."""
    return (a[:, None, :] @ b[:, :, None])[:, 0]


def random_tangents(coords, rng) -> np.ndarray:
    """`random_tangent` for k points at once: the rows of `coords` (k, r) are unit vectors; one tangent per row.

    One draw of k x r normals for all rows (the KGS advances its chains together); a row drawn parallel to its
    point is drawn again, as in `random_tangent`.
    """
    if coords.shape[0] == 1:        # one point: plain dot products cost less than the batched ones
        return random_tangent(coords[0], rng)[None]
    direction = rng.standard_normal(coords.shape)
    direction -= _row_dots(direction, coords) * coords
    return unit_tangents(direction, coords, rng)


def unit_tangents(direction, coords, rng) -> np.ndarray:
    """Tangents (k, r) already projected at the unit rows of `coords`, scaled to unit length, in place.

    A row that came out (numerically) parallel to its point, so with nothing left after the projection, is drawn
    again from `rng` and projected, until none is (`random_tangents`; the KGS engine's compiled projection).
    """
    squared = _row_dots(direction, direction)
    while not squared.min() > 1e-24:
        parallel = ~(squared[:, 0] > 1e-24)
        direction[parallel] = rng.standard_normal(direction[parallel].shape)
        direction[parallel] -= _row_dots(direction[parallel], coords[parallel]) * coords[parallel]
        squared = _row_dots(direction, direction)
    direction /= np.sqrt(squared)
    return direction


def pick_by_weight(cumulative, uniform) -> int:
    """Index j with probability weights[j] / sum(weights), from cumulative = weights.cumsum() and a uniform
    on [0, 1): a binary search for the first cumulative sum above uniform x total (step 7 of the KGS)."""
    total = cumulative[-1]
    if not total > 0:
        raise RuntimeError("no arc of the great circle has positive posterior mass (left version space?)")
    j = int(cumulative.searchsorted(uniform * total, "right"))
    return j if j < len(cumulative) else j - 1        # uniform x total rounded up to the total


def max_margin(features, y):
    """The maximum-margin hyperplane through the origin, or None when no hyperplane separates the points.

    Solves min ||c||^2 subject to y_i (Phi c)_i >= 1 (a least-distance programme) by Lawson and Hanson's
    reduction to one non-negative least-squares problem: min_u ||E u - f|| over u >= 0 with
    E = [(y * Phi)' ; 1'] and f = (0, ..., 0, 1).  The constraints are infeasible exactly when the residual
    r = E u - f vanishes; otherwise c = -r[:-1] / r[-1] = Phi' beta with beta = -y u / r[-1].
    Returns beta (m,): w = sum_i beta_i phi(x_i), functional margin 1 on the support vectors.
    """
    features = as_matrix(features, "features")
    y = as_pm1_labels(y, "y", length=features.shape[0], length_of="features")
    m = features.shape[0]
    system = np.vstack([(y[:, None] * features).T, np.ones(m)])
    target = np.zeros(system.shape[0])
    target[-1] = 1.0
    weights, _ = nnls(system, target, maxiter=50 * m)
    residual = system @ weights - target
    if np.linalg.norm(residual) <= 1e-9 or residual[-1] >= 0:
        return None
    beta = -y * weights / residual[-1]
    if np.min(y * (features @ (features.T @ beta))) <= 0:
        return None
    return beta


def consistent_start(features, y, hint: str = "use a kernel that separates the training points") -> np.ndarray:
    """A point of version space (every training point correct) as unit coordinates c: the maximum-margin
    hyperplane of `max_margin`, well inside version space.  Where the KGS chains start for q = 0; the billiard's
    and HMC's start (`version_space_start`) is this point mapped back to alpha.

    Raises a ValueError ending with `hint` (what the caller's user can do) when there is no version space.
    """
    if not isinstance(hint, str):
        raise TypeError(f"hint must be a sentence (str) saying what to do instead, got {hint!r}")
    features = as_matrix(features, "features")
    y = as_pm1_labels(y, "y", length=features.shape[0], length_of="features")
    beta = max_margin(features, y)
    if beta is None:
        raise ValueError("No version space: no w classifies every training point correctly "
                         f"(no hyperplane through the origin of feature space separates these labels); {hint}")
    coords = features.T @ beta
    return coords / np.linalg.norm(coords)


def version_space_start(K, y, *, lam: float = 0.0) -> np.ndarray:
    """A point inside version space as unit-norm alpha: w = sum_i alpha_i phi(x_i), alpha' (K + lam I) alpha = 1.

    The maximum-margin hyperplane of `max_margin` in the coordinates of the span of the training points, mapped
    back to alpha; y_i (K alpha)_i > 0 for every i.  No version space raises a ValueError that suggests the
    soft version lam > 0 (BT section 5).
    """
    return kernel_span(K, lam=lam).version_space_start(y, lam)


# ---- step 7 of the kernel Gibbs sampler: the draw of an angle on one great circle ----

def _likelihood_table(q, n):
    """(q / (1-q))^e for e = 0 .. n: the likelihood factor of eq. (3) per extra error (q = 0: 1, 0, 0, ...).

    A table instead of exp(e log(q / (1-q))): the error counts are integers, and indexing costs less than exp.
    Counts far above the best arc's underflow to 0, as their weight should.
    """
    if q == 0.0:
        table = np.zeros(n + 1)
        table[0] = 1.0
        return table
    return np.exp(np.arange(n + 1) * (math.log(q) - math.log1p(-q)))


def sample_angle(boundaries, errors, q, rng):
    """Step 7: draw theta from the piecewise-uniform density on the circle.

    Arc k (boundaries[k] .. boundaries[k+1], wrapping) has probability proportional to
    its length times q^errors[k] (1-q)^(m-errors[k]) (eq. 3), computed from the exponent
    (errors[k] - min errors) log(q / (1-q)) so that nothing under- or overflows;
    within the arc theta is uniform.
    """
    boundaries = as_vector(boundaries, "boundaries")
    errors = np.asarray(as_vector(errors, "errors", length=boundaries.shape[0], length_of="boundaries"))
    q = as_flip_rate(q, allow_half=True)
    lengths = np.diff(boundaries, append=boundaries[0] + TWO_PI)
    if np.any(lengths < 0):
        raise ValueError("boundaries must be sorted within one turn of the circle (as arc_errors_by_sweep returns them)")
    errors = errors.astype(int)
    fewest = errors.min() if q > 0 else 0      # q = 0: only arcs without errors count
    weights = lengths * _likelihood_table(q, int(errors.max() - fewest))[np.maximum(errors - fewest, 0)]
    u_arc, u_within = as_generator(rng, "rng").random(2)
    arc = pick_by_weight(np.cumsum(weights), u_arc)
    theta = float(boundaries[arc] + u_within * lengths[arc])
    return theta - TWO_PI if theta >= TWO_PI else theta

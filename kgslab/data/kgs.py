"""Data of the kernel Gibbs sampler paper (Graepel and Herbrich, NIPS 2000; seed 001).

* `sphere_data`: the R^3 problem of Figures 1 and 4.  Points on the unit sphere with
  longitude ~ Beta(5, 5) and latitude ~ Beta(0.1, 0.1), scaled to their angle ranges,
  labelled by the classifier w* at (longitude, latitude) = (pi/2, pi), then each label
  flipped with the true flip rate q* (5% in Figure 4).
  Angle convention: the paper's Figure 1 plots "longitude" over [0, pi] and "latitude"
  over [0, 2 pi], so its longitude is the polar angle and its latitude the azimuth;
  `sphere_point` follows that, x = (sin(lon) cos(lat), sin(lon) sin(lat), cos(lon)).
  Then w* = (-1, 0, 0), and the data crowd round azimuth 0 = 2 pi on the equator, far
  from w*'s decision boundary: most of the error is the label noise.
* `kgs_76_points`: a 76-point two-class set in R^2 for Figure 3.  The paper's surrogate
  set is not published; this one is the kit's own: two classes that interlock, so that
  the RBF kernel with sigma = 1 is needed, in the window of the paper's plot.
"""

from __future__ import annotations

import numpy as np

from .._validation import as_float_array, as_generator, as_positive_int, as_scalar

__all__ = ["sphere_point", "sphere_angles", "sphere_data", "kgs_76_points", "KGS_W_STAR"]


def sphere_point(longitude, latitude):
    """Unit vectors in R^3 from the paper's angles: longitude in [0, pi] (polar), latitude in [0, 2 pi)."""
    longitude = as_float_array(longitude, "longitude")
    latitude = as_float_array(latitude, "latitude")
    try:
        longitude, latitude = np.broadcast_arrays(longitude, latitude)
    except ValueError as err:
        raise ValueError(f"longitude and latitude must have broadcastable shapes, got {longitude.shape} and "
                         f"{latitude.shape}") from err
    return np.stack([np.sin(longitude) * np.cos(latitude), np.sin(longitude) * np.sin(latitude),
                     np.cos(longitude)], axis=-1)


def sphere_angles(points):
    """(longitude, latitude) of unit vectors (..., 3): the inverse of `sphere_point`."""
    points = as_float_array(points, "points")
    if points.shape[-1] != 3:
        raise ValueError(f"points must be unit vectors in R^3 (last axis of length 3), got shape {points.shape}")
    norms = np.linalg.norm(points, axis=-1)
    if np.any(np.abs(norms - 1.0) > 1e-6):
        worst = float(norms.flat[np.argmax(np.abs(norms - 1.0))])
        raise ValueError(f"points must be unit vectors (norm 1), found one of norm {worst:.6g}; "
                         "divide by np.linalg.norm(points, axis=-1, keepdims=True) first")
    longitude = np.arccos(np.clip(points[..., 2], -1.0, 1.0))
    latitude = np.mod(np.arctan2(points[..., 1], points[..., 0]), 2 * np.pi)
    return longitude, latitude


KGS_W_STAR = sphere_point(np.pi / 2, np.pi)
"""The classifier that labels the R^3 data before label noise: (longitude, latitude) = (pi/2, pi)."""


def sphere_data(m: int = 100, flip_rate: float = 0.05, random_state=None):
    """The R^3 data of Figures 1 and 4: returns (X, y, y_clean).

    X (m, 3) unit vectors with longitude = pi * Beta(5, 5), latitude = 2 pi * Beta(0.1, 0.1);
    y_clean = sign<w*, x>; y = y_clean with each label flipped with probability flip_rate.
    """
    m = as_positive_int(m, "m")
    flip_rate = as_scalar(flip_rate, "flip_rate", low=0.0, high=0.5)
    rng = as_generator(random_state)
    longitude = np.pi * rng.beta(5.0, 5.0, m)
    latitude = 2 * np.pi * rng.beta(0.1, 0.1, m)
    X = sphere_point(longitude, latitude)
    y_clean = np.where(X @ KGS_W_STAR > 0, 1.0, -1.0)
    flipped = rng.random(m) < flip_rate
    return X, np.where(flipped, -y_clean, y_clean), y_clean


def kgs_76_points(random_state=0):
    """A 76-point two-class set in R^2 for Figure 3 (the paper's own set is not published).

    38 points per class.  Class +1 lies on an arc round (-1, 0.5) that opens to the right;
    class -1 fills the arc's inside and wraps its ends, so no straight line separates them
    and the RBF kernel exp(-||x - x'||^2 / 2) bends round them.  Coordinates fall in the
    window [-2.5, 1] x [-2, 3] of the paper's Figure 3.  Returns (X, y), y in {-1, +1}.
    """
    rng = as_generator(random_state)
    per_class = 38
    # Class +1: an arc of radius 1.5 from 100 to 260 degrees (the left half), with noise.
    angle = np.deg2rad(rng.uniform(100, 260, per_class))
    positive = np.column_stack([-1.0 + 1.5 * np.cos(angle), 0.5 + 1.5 * np.sin(angle)])
    positive += 0.25 * rng.standard_normal(positive.shape)
    # Class -1: a blob inside the arc and two blobs beyond its ends.
    centres = np.array([[-0.8, 0.5], [-0.2, 2.4], [-0.2, -1.4]])
    which = rng.integers(0, 3, per_class)
    negative = centres[which] + 0.35 * rng.standard_normal((per_class, 2))
    X = np.vstack([positive, negative])
    y = np.concatenate([np.ones(per_class), -np.ones(per_class)])
    order = rng.permutation(2 * per_class)
    return X[order], y[order]

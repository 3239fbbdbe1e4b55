"""Steps 3-8 of the kernel Gibbs sampler on one great circle, as the paper writes them (seed 001, section 3).

From the current point w (unit coordinates c) and a unit tangent v, the great circle w(theta) =
cos(theta) w + sin(theta) v gives training point i the margin

    y_i <w(theta), x_i> = a_i cos(theta) + b_i sin(theta) = R_i cos(theta - phi_i),   phi_i = atan2(b_i, a_i),

so it becomes an error at phi_i + pi/2 and correct again at phi_i + 3 pi/2 (steps 3-4, `crossing_angles`).
The sorted 2m angles cut the circle into 2m arcs; each crossing changes the error count by +-1, so one
cumulative sum gives the errors of every arc (step 6, `arc_errors_by_sweep`; the paper's evaluation of R_emp
on every arc is `arc_errors_direct`).  Arc k has posterior weight length_k q^e_k (1-q)^(m-e_k) (eq. 3 times
the uniform prior); theta is drawn from that piecewise-uniform density (step 7, `sample_angle`) and the new
point is cos(theta) w + sin(theta) v (step 8, `step_on_circle`).  Section 4's vote (eq. 4) of every draw on
every test point is `vote_draws`.

These are the reference functions of notebook 08's exercises and of the tests.  The sampler in
`kgslab.kgs` runs the same steps for several chains at once, on the antipodal pairs of arcs (m numbers
to sort instead of 2m); its tests compare the two.
"""

from __future__ import annotations

import math

import numpy as np

from ._validation import (as_cross_kernel, as_flip_rate, as_float_array, as_generator, as_matrix, as_signs,
                          as_unit_vector, as_vector)
# Step 7's draw over the arcs is versionspace's (with step 2's random_tangent), listed here with the other steps.
from ._kgs_engine import PairTables, move_on_circle, propose_circle
from .crossings import crossing_angle
from .versionspace import TWO_PI, sample_angle  # noqa: F401

__all__ = ["crossing_angles", "arc_errors_by_sweep", "arc_errors_direct", "sample_angle", "step_on_circle",
           "gibbs_step", "vote_draws"]

def _angles_from_margins(a, b):
    """Crossing angles for margins a_i cos(theta) + b_i sin(theta) (see `crossing_angles`)."""
    becomes_error = crossing_angle(a, b)
    return np.concatenate([becomes_error, np.mod(becomes_error + np.pi, TWO_PI)])


def crossing_angles(w_outputs, v_outputs, y):
    """The 2m angles where the great circle through w in direction v crosses a training hyperplane.

    Steps 3-4 of the KGS in closed form.  w_outputs[i] = <w, x_i>, v_outputs[i] = <v, x_i>
    with v a unit vector orthogonal to w; on w(theta) = cos(theta) w + sin(theta) v point i
    has margin y_i <w(theta), x_i> = a_i cos(theta) + b_i sin(theta) = R_i cos(theta - phi_i)
    with phi_i = atan2(b_i, a_i).  Returns an array of length 2m in [0, 2 pi):
    entry i is where point i becomes an error (phi_i + pi/2), entry m + i where it
    becomes correct again (phi_i + 3 pi/2).
    """
    y = as_signs(y)
    w_outputs = as_vector(w_outputs, "w_outputs", length=y.shape[0], length_of="y")
    v_outputs = as_vector(v_outputs, "v_outputs", length=y.shape[0], length_of="y")
    return _angles_from_margins(y * w_outputs, y * v_outputs)


def _sweep(angles):
    m = angles.shape[0] // 2
    # Just after theta = 0 point i is an error iff its error interval wraps through 0,
    # i.e. it becomes correct before it becomes an error.
    errors_at_start = int(np.count_nonzero(angles[:m] > angles[m:]))
    order = np.argsort(angles)  # ties have probability zero
    steps = np.where(order < m, 1, -1)
    return angles[order], errors_at_start + np.cumsum(steps)


def arc_errors_by_sweep(angles):
    """Step 6 by one sweep: (boundaries, errors) of the 2m arcs of the circle.

    `angles` as returned by `crossing_angles` (first half: becomes an error, second half:
    becomes correct).  boundaries is the sorted angles; errors[k] is the number of training
    errors on the arc from boundaries[k] to boundaries[k + 1] (the last arc wraps round to
    boundaries[0] + 2 pi).  Walking round the circle each crossing flips exactly one point,
    so the counts are one cumulative sum of +-1 started from the count just after theta = 0:
    O(m log m) for the sort, instead of O(m) per arc.
    """
    angles = as_vector(angles, "angles")
    if angles.shape[0] % 2:
        raise ValueError(f"angles must have even length 2m, got {angles.shape[0]}")
    return _sweep(angles)


def arc_errors_direct(boundaries, w_outputs, v_outputs, y):
    """Step 6 as the paper writes it: evaluate R_emp at the middle of every arc, O(m) per arc.

    The reference against which the sweep is tested and benchmarked.  Returns error counts.
    """
    y = as_signs(y)
    boundaries = as_vector(boundaries, "boundaries")
    w_outputs = as_vector(w_outputs, "w_outputs", length=y.shape[0], length_of="y")
    v_outputs = as_vector(v_outputs, "v_outputs", length=y.shape[0], length_of="y")
    ends = np.append(boundaries[1:], boundaries[0] + TWO_PI)
    middles = 0.5 * (boundaries + ends)
    margins = y * (np.cos(middles)[:, None] * w_outputs[None, :] + np.sin(middles)[:, None] * v_outputs[None, :])
    return np.count_nonzero(margins <= 0, axis=1)


def step_on_circle(features, y, coords, direction, q, rng):
    """Steps 3-8 as the paper writes them, along a given direction: the new point (unit coordinates, (r,)).

    features Phi (m, r) (rows: the training points in coordinates, `kernel_coordinates`), labels y (m,),
    the current point `coords` (a unit vector, (r,)) and a unit tangent `direction` v at it (step 2, e.g.
    `kgslab.versionspace.random_tangent`); rng a numpy Generator or a seed.  The crossing angles of the
    circle cos t c + sin t v
    (`crossing_angles`), the errors of its 2m arcs by one sweep (`arc_errors_by_sweep`), theta drawn from
    the piecewise-uniform density (`sample_angle`, the only draw from rng) and the point at theta.
    The reference of notebook 08's one-step exercise; the sampler runs `kgslab._kgs_engine`'s step.
    """
    features = as_matrix(features, "features")
    y = as_signs(y, length=features.shape[0], length_of="features")
    coords = as_unit_vector(coords, features.shape[1])
    direction = as_vector(direction, "direction", length=features.shape[1], length_of="features' columns")
    if abs(float(direction @ direction) - 1.0) > 1e-6 or abs(float(direction @ coords)) > 1e-6:
        raise ValueError(f"direction must be a unit vector orthogonal to coords (a tangent), got norm "
                         f"{np.linalg.norm(direction):.6g} and <direction, coords> = {direction @ coords:.3g}")
    q, rng = as_flip_rate(q, allow_half=True), as_generator(rng, "rng")
    angles = crossing_angles(features @ coords, features @ direction, y)
    boundaries, errors = arc_errors_by_sweep(angles)
    theta = sample_angle(boundaries, errors, q, rng)
    return math.cos(theta) * np.asarray(coords, float) + math.sin(theta) * np.asarray(direction, float)


def vote_draws(alphas, K_test):
    """The votes (n_chains, n_draws, n_test) of every sample on every test point: 1 for +1, 0 otherwise (eq. 4).

    The vote of section 4 over the draws of several chains, kept apart by chain (so their agreement can be
    diagnosed); `kgslab.kgs.BayesPointMachine.vote_proba` averages it.
    """
    alphas = as_float_array(alphas, "alphas", ndim=3)
    outputs = alphas.reshape(-1, alphas.shape[-1]) @ as_cross_kernel(K_test, alphas.shape[-1]).T
    return (outputs > 0).astype(float).reshape(alphas.shape[0], alphas.shape[1], -1)


def gibbs_step(features, y, coords, q, rng, margins=None):
    """One full KGS step (steps 2-8) from unit coordinates `coords`; returns a dict of its parts.

    Keys: direction (the unit tangent v), direction_margins (y_i <v, x_i>), theta, coords (the new point),
    margins (y_i <w_new, x_i>).  `margins` may be passed in to save the product features @ coords.
    It is the engine's step (`kgslab._kgs_engine.propose_circle` and `move_on_circle`) for one chain, drawing its
    own direction: the samplers make the same step for several chains at once.
    """
    features = as_matrix(features, "features")
    y = as_signs(y, length=features.shape[0], length_of="features")
    coords = as_unit_vector(coords, features.shape[1])
    q, rng = as_flip_rate(q), as_generator(rng, "rng")
    if margins is not None:
        margins = as_vector(margins, "margins", length=features.shape[0], length_of="features")
    signed = y[:, None] * features
    if margins is None:
        margins = signed @ coords
    new_coords, new_margins = np.array(coords, float)[None], np.array(margins, float)[None]   # the step moves them
    with np.errstate(divide="ignore", invalid="ignore"):
        circle = propose_circle(new_coords, signed, rng)
        # the step walks the circle towards -direction (see move_on_circle) and spends the circle's arrays
        direction, direction_margins = -circle.direction[0], -circle.slopes[0]
        theta = move_on_circle(new_coords, new_margins, circle, PairTables.of(q, len(y)), rng)[0]
    return {"direction": direction, "direction_margins": direction_margins, "theta": float(np.mod(theta, TWO_PI)),
            "coords": new_coords[0], "margins": new_margins[0]}

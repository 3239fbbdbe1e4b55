"""Where a margin along a great circle changes sign: the inner-loop primitive the two samplers share.

On the great circle w(t) = cos t w + sin t v of `kgslab.versionspace`, point i has the margin
a_i cos t + b_i sin t.  The kernel Gibbs sampler needs the angles where each point's margin changes sign
(seed 001, section 3, steps 3-4); the billiard needs the time of flight to each wall (seed 002, section 3.2,
step 2).  These functions are called once per Gibbs step or billiard flight on arguments the samplers have
validated, so they check nothing themselves and are not in the kit's API (the way `versionspace.random_tangent`
is not).  Notebooks 08 and 09 ask the student to write them; their checks close them (calling one is a ✘).
"""

from __future__ import annotations

import math

import numpy as np

from .versionspace import TWO_PI

__all__: list[str] = []   # inner-loop primitives (see the docstring)


def crossing_angle(margins, slopes):
    """The angle t in [0, 2 pi) where a_i cos t + b_i sin t turns from positive to negative, for every i.

    margins a_i = y_i <w, phi_i>, slopes b_i = y_i <v, phi_i> (v a unit tangent at w): the crossing of KGS
    section 3, steps 3-4, where point i becomes an error.  The other zero, where the margin turns positive
    again, is half a circle later.  For a_i >= 0 the angle is in [0, pi]: the billiard's flight time to wall i
    (BT section 3.2, step 2).
    """
    angle = np.arctan2(margins, -np.asarray(slopes))
    return angle + TWO_PI * (angle < 0)     # from (-pi, pi] to [0, 2 pi); cheaper than np.mod


def crossing_half_angles(margins, minus_slopes):
    """Where a_i cos t + b_i sin t crosses zero, folded into (-pi/2, pi/2) (one of its two zeros), a new array.

    minus_slopes = -b_i.  The other zero is half a circle later; which of the two is the turn to negative
    depends on the sign of b_i.  The KGS sorts these m numbers instead of all 2m crossings
    (`kgslab._kgs_engine.sweep_half_circle`).  b_i = 0 gives +-pi/2 (numpy warns of the division unless told not to).
    """
    half = np.divide(margins, minus_slopes)
    np.arctan(half, out=half)
    return half


def crossing_angle_scalar(margin: float, slope: float) -> float:
    """`crossing_angle` for two plain floats (the billiard's inner loop, where numpy's call costs most)."""
    return math.atan2(margin, -slope) % TWO_PI

"""The kernel billiard as the paper writes it (seed 002, Graepel, Herbrich and Obermayer, NIPS 1999, section 3.2).

Notebook 09 asks the student for these pieces (and for Figure 2's curve, `error_rejection_curve`); the checks compare the student's versions with them, and
the tests compare the kit's fast `kgslab.billiard.KernelBilliard` with `billiard_bounce`.

* Step 2, the flight time to every wall.  On the great circle w(t) = cos t w + sin t v (||w|| = ||v|| = 1,
  <w, v> = 0) the margin of training point j is a_j cos t + b_j sin t (a_j = y_j <w, phi(x_j)>,
  b_j = y_j <v, phi(x_j)>), first zero at t_j = atan2(a_j, -b_j) in [0, pi]; the paper's
  tau_j = -<w, phi_j> / <v, phi_j> is tan t_j on the straight line w + tau v.
* Step 3, one bounce: fly to the nearest wall c and reflect, v' = v - 2 <v, phi_c> phi_c / ||phi_c||^2,
  recomputing every projection from alpha and beta (O(l^2) a bounce, where the kit's ball needs O(l + m)).
* The stopping rule (eq. 8, Hoeffding): P(mean of n fractions - p+ >= epsilon) <= exp(-2 n epsilon^2) = eta,
  so n = ln(1/eta) / (2 epsilon^2) bounces; epsilon = 0.05 and eta = 0.01 give n = 922, the paper's "about 1000".
"""

from __future__ import annotations

import math

import numpy as np

from ._validation import as_correct_flags, as_float_array, as_gram, as_pm1_labels, as_positive_int, as_scalar, as_vector
from .crossings import crossing_angle

__all__ = ["flight_times", "next_wall", "billiard_bounce", "hoeffding_bounces", "hoeffding_epsilon", "error_rejection_curve"]


def flight_times(margins, slopes):
    """Flight time (arc length on the sphere) from w along direction v to every wall (step 2).

    margins = y_j <w, phi(x_j)> >= 0 and slopes = y_j <v, phi(x_j)>, with ||w|| = ||v|| = 1, <w, v> = 0.  On
    the great circle w(t) = cos t w + sin t v the margin is margins cos t + slopes sin t, whose first zero is

        t_j = atan2(margins_j, -slopes_j)  in [0, pi]

    (below pi/2 when the ball moves towards the wall, above when it moves away).  The paper's
    tau_j = -<w, phi_j> / <v, phi_j> is tan t_j for the straight line w + tau v.
    """
    margins = as_vector(margins, "margins")
    slopes = as_vector(slopes, "slopes", length=margins.shape[0], length_of="margins")
    return crossing_angle(np.maximum(margins, 0.0), slopes)


def next_wall(alpha, beta, K, y, last_wall=-1):
    """The wall the ball hits next and the arc to it (step 2): returns (wall, arc).

    The margins y_j <w, phi(x_j)> and slopes y_j <v, phi(x_j)> come from K @ alpha and K @ beta; the wall is the
    one with the smallest flight time (`flight_times`), never `last_wall`, the wall the ball has just left
    (-1: none).
    """
    K = as_gram(K, "K", psd=False)
    y = as_pm1_labels(y, "y", length=K.shape[0], length_of="K")
    alpha = as_vector(alpha, "alpha", length=K.shape[0], length_of="K")
    beta = as_vector(beta, "beta", length=K.shape[0], length_of="K")
    last_wall = as_positive_int(last_wall, "last_wall", minimum=-1)
    if last_wall >= K.shape[0] or np.any(np.diag(K) <= 0):
        raise ValueError(f"last_wall must be -1 or a training point's index below {K.shape[0]}, got {last_wall}"
                         if last_wall >= K.shape[0] else "K must have a positive diagonal: a wall needs phi(x_c) != 0")
    times = flight_times(y * (K @ alpha), y * (K @ beta))
    if last_wall >= 0:
        times[last_wall] = np.inf
    wall = int(np.argmin(times))
    return wall, float(times[wall])


def billiard_bounce(alpha, beta, K, y, last_wall=-1):
    """One bounce the paper's way, recomputing every projection: O(l^2).  Returns (alpha', beta', wall, arc).

    alpha and beta are the unit-norm, orthogonal position and direction; the ball flies to the nearest wall
    (skipping `last_wall`, the one it has just left), moves there on the great circle and reflects:
    v' = v - 2 <v, phi_c> phi_c / K_cc (step 3).  The kit's `KernelBilliard` does the same in O(l + m).
    """
    K = as_gram(K, "K", psd=False)
    y = as_pm1_labels(y, "y", length=K.shape[0], length_of="K")
    alpha = as_vector(alpha, "alpha", length=K.shape[0], length_of="K")
    beta = as_vector(beta, "beta", length=K.shape[0], length_of="K")
    last_wall = as_positive_int(last_wall, "last_wall", minimum=-1)
    if last_wall >= K.shape[0] or np.any(np.diag(K) <= 0):
        raise ValueError(f"last_wall must be -1 or a training point's index below {K.shape[0]}, got {last_wall}"
                         if last_wall >= K.shape[0] else "K must have a positive diagonal: a wall needs phi(x_c) != 0")
    wall, arc = next_wall(alpha, beta, K, y, last_wall)
    new_alpha = np.cos(arc) * alpha + np.sin(arc) * beta
    new_beta = -np.sin(arc) * alpha + np.cos(arc) * beta
    new_beta[wall] -= 2.0 * (K[wall] @ new_beta) / K[wall, wall]
    return new_alpha, new_beta, wall, arc


def hoeffding_bounces(epsilon: float = 0.05, eta: float = 0.01) -> int:
    """Bounces n for which eq. (8) guarantees P(|estimate - p+| >= epsilon) <= eta: n = ln(1/eta) / (2 eps^2).

    >>> hoeffding_bounces(0.05, 0.01)   # the paper's "n of about 1000"
    922
    """
    epsilon = as_scalar(epsilon, "epsilon", low=0.0, high=1.0, low_open=True)
    eta = as_scalar(eta, "eta", low=0.0, high=1.0, low_open=True, high_open=True)
    return int(math.ceil(math.log(1.0 / eta) / (2.0 * epsilon ** 2)))


def _holds_booleans(value) -> bool:
    """True for a bool, a boolean array, or a list with a bool among its items."""
    if isinstance(value, (bool, np.bool_)):
        return True
    try:
        items = np.asarray(value, dtype=object)
    except (TypeError, ValueError):
        return False   # ragged: as_float_array says what is wrong
    return getattr(value, "dtype", None) == bool or any(isinstance(item, (bool, np.bool_))
                                                        for item in items.ravel().tolist())


def hoeffding_epsilon(n_bounces, eta: float = 0.01):
    """The deviation Hoeffding's bound allows for a mean of n samples in [0, 1] at confidence 1 - eta.

    Seed 002, eq. (8), solved for epsilon: notebook 09's Exercise 9.3 read the other way, so it lives with the
    exercise references (notebook 09 computes the same deviation from the student's `hoeffding_bounces`).
    Array-friendly.
    """
    eta = as_scalar(eta, "eta", low=0.0, high=1.0, low_open=True, high_open=True)
    if _holds_booleans(n_bounces):   # True is no number of bounces, though numpy would read it as 1
        raise TypeError(f"n_bounces must be a number of bounces (or an array of them), got {n_bounces!r:.60}")
    n_bounces = as_float_array(n_bounces, "n_bounces")
    if np.any(n_bounces <= 0):
        raise ValueError(f"n_bounces must be > 0, got {float(np.min(n_bounces)):g}")
    return np.sqrt(np.log(1.0 / eta) / (2.0 * n_bounces))


def error_rejection_curve(confidence, correct, thresholds):
    """For each threshold theta: the rejection rate (confidence < theta) and the error on the rest.

    Returns (rejection, error), arrays with one entry per threshold; the error is NaN where every point
    is rejected.
    """
    confidence = as_vector(confidence, "confidence")
    correct = as_correct_flags(correct, "correct", confidence.shape[0])
    thresholds = np.atleast_1d(as_float_array(thresholds, "thresholds", ndim=(0, 1)))
    rejected = confidence[None, :] < thresholds[:, None]
    accepted = ~rejected
    n_accepted = accepted.sum(axis=1)
    wrong = (accepted & ~correct[None, :]).sum(axis=1)
    error = np.divide(wrong, n_accepted, out=np.full(len(thresholds), np.nan), where=n_accepted > 0)
    return rejected.mean(axis=1), error

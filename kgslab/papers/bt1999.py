"""Experiments of the Bayesian transduction paper (seed 002, Graepel, Herbrich and Obermayer, NIPS 1999).

* Exact volumes on the sphere in R^3 (linear kernel, three features): the reference the billiard is tested
  against and the notebook's Figure 1.
* Figure 2: error against rejection rate for the transductive confidence c_trans (eq. 7) and the SVM's
  |f(x)|, on random 60:40 splits of thyroid and heart.
"""

from __future__ import annotations

import numpy as np
from sklearn.svm import SVC

from .._blas import blas_threads
from .._validation import (as_float_array, as_generator, as_matrix, as_pm1_labels, as_positive_int, as_scalar,
                           as_vector, check_work_budget)

MAX_SPLITS = 10_000   # the paper uses 100 random splits; far more would look like a hang
from ..billiard import billiard_probabilities, transductive_confidence
from ..data.uci import random_split
from ..kernels import rbf_kernel

__all__ = ["spherical_polygon_area", "volume_ratio_on_sphere", "error_rejection_curve", "compare_with_svm",
           "match_theta_max", "figure2_curves"]


# ---- exact volumes on the sphere in R^3 (the notebook's and the tests' reference) ------------------------

def _as_points_in_r3(value, name):
    """An (n, 3) finite matrix without zero rows (a zero normal or point has no direction on the sphere)."""
    points = as_matrix(value, name)
    if points.shape[1] != 3:
        raise ValueError(f"{name} must be an (n, 3) array (points of R^3), got shape {points.shape}")
    if np.any(np.linalg.norm(points, axis=1) == 0):
        raise ValueError(f"{name} must not have a zero row: it has no direction on the sphere")
    return points


def spherical_polygon_area(normals) -> float:
    """Area of the region {w in S^2 : <w, n_i> > 0 for every row n_i of `normals`} (0 if it is empty).

    The region is a convex spherical polygon; its corners are the intersections n_i x n_j (either sign)
    of two great circles that satisfy every other constraint.  Cut it into triangles from its centre and
    add their areas (spherical excess, Van Oosterom and Strackee: tan(E/2) = |a.(b x c)| / (1 + a.b + b.c + c.a)).
    """
    normals = _as_points_in_r3(normals, "normals")
    normals = normals / np.linalg.norm(normals, axis=1, keepdims=True)
    # The same wall twice bounds nothing new (and its cross product with itself gives no corner).
    normals = np.unique(np.round(normals, 12), axis=0)
    if len(normals) == 1:
        return 2 * np.pi
    corners = []
    for i in range(len(normals)):
        for j in range(i + 1, len(normals)):
            cross = np.cross(normals[i], normals[j])
            if np.linalg.norm(cross) < 1e-12:
                continue
            cross /= np.linalg.norm(cross)
            for corner in (cross, -cross):
                others = np.delete(normals, [i, j], axis=0) @ corner
                if np.all(others >= -1e-12):
                    corners.append(corner)
    corners = np.unique(np.round(np.array(corners), 12), axis=0) if corners else np.zeros((0, 3))
    if len(corners) < 3:
        if len(corners) == 2:
            # A lune: its two corners are +-c and every wall is a great circle through them.  Seen along c the
            # walls are half-planes through 0 whose normals spread over the angle `spread`; the lune's angle is
            # pi - spread, its area twice that (two walls: 2 arccos(-n_0 . n_1)).
            spread = float(np.max(np.arccos(np.clip(normals @ normals.T, -1.0, 1.0))))
            return 2 * (np.pi - spread)
        return 0.0
    centre = corners.mean(axis=0)
    centre /= np.linalg.norm(centre)
    # order the corners by angle around the centre
    first = corners[0] - (corners[0] @ centre) * centre
    first /= np.linalg.norm(first)
    second = np.cross(centre, first)
    order = np.argsort(np.arctan2(corners @ second, corners @ first))
    corners = corners[order]
    area = 0.0
    for a, b in zip(corners, np.roll(corners, -1, axis=0)):
        numerator = abs(centre @ np.cross(a, b))
        denominator = 1 + centre @ a + a @ b + b @ centre
        area += 2 * np.arctan2(numerator, denominator)
    return float(area)


def volume_ratio_on_sphere(X, y, X_test):
    """Exact p+ = area(V+) / area(V) for a linear kernel in R^3 (X (l, 3), X_test (m, 3))."""
    X = _as_points_in_r3(X, "X")
    y = as_pm1_labels(y, "y", length=X.shape[0])
    X_test = _as_points_in_r3(X_test, "X_test")
    walls = y[:, None] * X
    total = spherical_polygon_area(walls)
    if total <= 0:
        raise ValueError("No version space: these points and labels cannot be separated by a plane through 0")
    return np.array([spherical_polygon_area(np.vstack([walls, x[None, :]])) / total
                     for x in X_test])


# ---- Figure 2: error against rejection rate ----------------------------------------------------------------

def _as_correct(value, name, length):
    """True / False per point (or 1 / 0): +-1 would count every point as correct once cast to bool."""
    array = np.asarray(value) if not isinstance(value, str) else value
    if getattr(array, "dtype", None) != bool:
        array = as_float_array(array, name)
        if not np.all((array == 0) | (array == 1)):
            raise ValueError(f"{name} must hold True / False (or 1 / 0) per point, got the values "
                             f"{np.unique(array)[:5].tolist()}")
    array = array.astype(bool)
    if array.ndim != 1 or array.shape[0] != length:
        raise ValueError(f"{name} must be 1-d with one entry per confidence ({length}), got shape {array.shape}")
    return array


def error_rejection_curve(confidence, correct, thresholds):
    """For each threshold theta: the rejection rate (confidence < theta) and the error on the rest.

    Returns (rejection, error), arrays with one entry per threshold; the error is NaN where every point
    is rejected.
    """
    confidence = as_vector(confidence, "confidence")
    correct = _as_correct(correct, "correct", confidence.shape[0])
    thresholds = np.atleast_1d(as_float_array(thresholds, "thresholds", ndim=(0, 1)))
    rejected = confidence[None, :] < thresholds[:, None]
    accepted = ~rejected
    n_accepted = accepted.sum(axis=1)
    wrong = (accepted & ~correct[None, :]).sum(axis=1)
    error = np.divide(wrong, n_accepted, out=np.full(len(thresholds), np.nan), where=n_accepted > 0)
    return rejected.mean(axis=1), error


def compare_with_svm(X, y, sigma, n_splits=10, n_bounces=1000, train_fraction=0.6, C=1e6,
                     random_state=None, progress=None, n_chains=1):
    """The paper's section 4 experiment: transduction confidence vs the SVM's |f(x)| on random splits.

    For each split (features standardised on the training part): a hard-margin SVM (sklearn SVC, RBF kernel
    exp(-||x-x'||^2 / 2 sigma^2), C large) gives labels and c_ind = |f(x)|; the billiard with the same kernel
    gives labels by eq. (6) and c_trans by eq. (7) from `n_chains` trajectories of `n_bounces` each (an
    integer, or "auto").  Returns a dict of (n_splits, n_test) arrays:
    trans_confidence, trans_correct, svm_confidence, svm_correct.
    """
    X = as_matrix(X, "X")
    y = as_pm1_labels(y, "y", length=X.shape[0])   # 0/1 labels compared with +-1 predictions read as errors
    sigma = as_scalar(sigma, "sigma", low=0.0, low_open=True)
    if not (isinstance(n_bounces, str) and n_bounces == "auto"):
        as_positive_int(n_bounces, "n_bounces")
    train_fraction = as_scalar(train_fraction, "train_fraction", low=0.0, high=1.0, low_open=True, high_open=True)
    n_train = int(round(train_fraction * X.shape[0]))
    if not 2 <= n_train <= X.shape[0] - 1:
        raise ValueError(f"train_fraction = {train_fraction} leaves {n_train} of the {X.shape[0]} points of X for "
                         "training: both parts need points (at least 2 to train)")
    n_splits = as_positive_int(n_splits, "n_splits")
    check_work_budget(n_splits, MAX_SPLITS, "n_splits", n_splits, "splits")
    C = as_scalar(C, "C", low=0.0, low_open=True)
    as_positive_int(n_chains, "n_chains")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be None or a function of the split number, got {progress!r}")
    rng = as_generator(random_state)
    results = {key: [] for key in ("trans_confidence", "trans_correct", "svm_confidence", "svm_correct")}
    with blas_threads():
        for split in range(n_splits):
            _one_split(X, y, sigma, n_bounces, n_chains, train_fraction, C, rng, results)
            if progress is not None:
                progress(split + 1)
    return {key: np.array(value) for key, value in results.items()}


def _one_split(X, y, sigma, n_bounces, n_chains, train_fraction, C, rng, results):
    """One random split of `compare_with_svm`: append both methods' confidences and correctness."""
    X_train, X_test, y_train, y_test = random_split(X, y, train_fraction, random_state=rng)
    if len(np.unique(y_train)) < 2:
        raise ValueError(f"y: a random split left only the class {y_train[0]:+g} in the training part "
                         f"({len(y_train)} points); use more points of each class or a larger train_fraction")
    K, K_test = rbf_kernel(X_train, L=sigma), rbf_kernel(X_test, X_train, L=sigma)
    svm = SVC(kernel="precomputed", C=C).fit(K, y_train)
    decision = svm.decision_function(K_test)
    p_plus = billiard_probabilities(K, y_train, K_test, n_bounces, n_chains=n_chains, random_state=rng)
    results["svm_confidence"].append(np.abs(decision))
    results["svm_correct"].append(np.where(decision > 0, 1.0, -1.0) == y_test)
    results["trans_confidence"].append(transductive_confidence(p_plus))
    results["trans_correct"].append(np.where(p_plus > 0.5, 1.0, -1.0) == y_test)


def _as_results(results):
    """compare_with_svm's dict: four (n_splits, n_test) arrays, confidences >= 0, correct as booleans."""
    keys = ("trans_confidence", "trans_correct", "svm_confidence", "svm_correct")
    if not isinstance(results, dict) or any(key not in results for key in keys):
        raise TypeError(f"results must be the dict compare_with_svm returns, with the keys {keys}, "
                        f"got {type(results).__name__}")
    checked = {}
    for method in ("trans", "svm"):
        confidence = as_float_array(results[f"{method}_confidence"], f"results['{method}_confidence']", ndim=2)
        if np.any(confidence < 0) or (method == "trans" and np.any(confidence > 1)):
            raise ValueError(f"results['{method}_confidence'] must hold confidences >= 0"
                             f"{' and <= 1' if method == 'trans' else ''}")
        name = f"results['{method}_correct']"
        raw = np.asarray(results[f"{method}_correct"], dtype=object if results[f"{method}_correct"] is None else None)
        if raw.shape != confidence.shape:
            raise ValueError(f"{name} must have the shape of the confidences {confidence.shape}, got {raw.shape}")
        correct = np.array([_as_correct(row, name, confidence.shape[1]) for row in raw])
        checked[f"{method}_confidence"], checked[f"{method}_correct"] = confidence, correct
    return checked


def match_theta_max(results) -> float:
    """The SVM threshold whose rejection rate equals the transduction's at theta = 1 (the paper's theta_max).

    Transduction at theta = 1 rejects every point with c_trans < 1; theta_max is the quantile of the SVM's
    confidences |f(x)| (pooled over the equal-sized splits) at that rejection rate.
    """
    results = _as_results(results)
    rate = float(np.mean(results["trans_confidence"] < 1.0))
    return float(np.quantile(results["svm_confidence"].ravel(), rate))


def figure2_curves(results, n_thresholds: int = 41, theta_max=None):
    """Mean error-rejection curves over the splits, with one standard error of each mean (Figure 2).

    theta runs over [0, 1] for the transduction and over [0, theta_max] for the SVM (default
    `match_theta_max`).  Returns a dict with "theta", "theta_max" and, for "trans" and "svm", a dict of
    rejection and error means and standard errors (NaN-aware: a split that rejects everything has no error).
    """
    theta = np.linspace(0.0, 1.0, as_positive_int(n_thresholds, "n_thresholds", minimum=2))
    results = _as_results(results)
    if theta_max is None:
        theta_max = match_theta_max(results)
    theta_max = as_scalar(theta_max, "theta_max", low=0.0)
    curves = {"theta": theta, "theta_max": theta_max}
    for method, scale in (("trans", 1.0), ("svm", theta_max)):
        per_split = [error_rejection_curve(confidence, correct, theta * scale)
                     for confidence, correct in zip(results[f"{method}_confidence"], results[f"{method}_correct"])]
        rejection = np.array([curve[0] for curve in per_split])
        error = np.array([curve[1] for curve in per_split])
        # a split that rejects every point has no error at that theta: average over the other splits
        finite = np.isfinite(error)
        counts = finite.sum(axis=0)
        error_sum = np.where(finite, error, 0.0).sum(axis=0)
        error_mean = np.divide(error_sum, counts, out=np.full(len(theta), np.nan), where=counts > 0)
        deviation = np.where(finite, error - error_mean, 0.0)
        error_sem = np.sqrt((deviation ** 2).sum(axis=0) / np.maximum(counts, 1)) / np.sqrt(np.maximum(counts, 1))
        curves[method] = {"rejection": rejection.mean(axis=0),
                          "rejection_sem": rejection.std(axis=0) / np.sqrt(len(rejection)),
                          "error": error_mean, "error_sem": error_sem}
    return curves

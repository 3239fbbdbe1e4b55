"""Experiments of the Bayesian transduction paper (seed 002, Graepel, Herbrich and Obermayer, NIPS 1999).

* Exact volumes on the sphere in R^3 (linear kernel, three features): the reference the billiard is tested
  against and the notebook's Figure 1.
* Figure 2: error against rejection rate for the transductive confidence c_trans (eq. 7) and the SVM's
  |f(x)|, on random 60:40 splits of thyroid and heart.
"""

from __future__ import annotations

import json
import os
import time
import warnings
from functools import partial
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from .._blas import blas_threads
from .._validation import (as_correct_flags, as_float_array, as_generator, as_matrix, as_pm1_labels,
                           as_positive_int, as_probabilities, as_scalar, as_vector, check_random_state_kind, check_work_budget)
from ..billiard import billiard_probabilities, billiard_run, transductive_confidence
from ..billiard_ball import MAX_BOUNCES, KernelBilliard
from ..data.uci import random_split
from ..hmc import hmc_run
from ._parallel import fan_out
from ..kernels import rbf_kernel
from ..versionspace import version_space_start

MAX_SPLITS = 10_000   # the paper uses 100 random splits; far more would look like a hang

__all__ = ["spherical_polygon_area", "volume_ratio_on_sphere", "compare_with_svm",
           "match_theta_max", "figure2_curves", "bounce_study", "study_results", "study_curves", "error_at_rejection",
           "paired_difference", "agreement", "write_figure2", "load_figure2"]


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
    y = as_pm1_labels(y, "y", length=X.shape[0], length_of="X")
    X_test = _as_points_in_r3(X_test, "X_test")
    walls = y[:, None] * X
    total = spherical_polygon_area(walls)
    if total <= 0:
        raise ValueError("No version space: these points and labels cannot be separated by a plane through 0")
    return np.array([spherical_polygon_area(np.vstack([walls, x[None, :]])) / total
                     for x in X_test])


# ---- Figure 2: error against rejection rate ----------------------------------------------------------------

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
    y = as_pm1_labels(y, "y", length=X.shape[0], length_of="X")   # 0/1 labels compared with +-1 predictions read as errors
    sigma = as_scalar(sigma, "sigma", low=0.0, low_open=True)
    if not (isinstance(n_bounces, str) and n_bounces == "auto"):
        as_positive_int(n_bounces, "n_bounces")
    train_fraction = _check_train_fraction(train_fraction, X.shape[0])
    n_splits = _check_n_splits(n_splits)
    C = as_scalar(C, "C", low=0.0, low_open=True)
    as_positive_int(n_chains, "n_chains")
    _check_progress(progress)
    rng = as_generator(random_state)
    results = {key: [] for key in ("trans_confidence", "trans_correct", "svm_confidence", "svm_correct")}
    with blas_threads():
        for split in range(n_splits):
            _one_split(X, y, sigma, n_bounces, n_chains, train_fraction, C, rng, results)
            if progress is not None:
                progress(split + 1)
    return {key: np.array(value) for key, value in results.items()}


def _check_train_fraction(train_fraction, n_points):
    """A fraction in (0, 1) that leaves at least 2 training points and 1 test point of n_points."""
    train_fraction = as_scalar(train_fraction, "train_fraction", low=0.0, high=1.0, low_open=True, high_open=True)
    n_train = int(round(train_fraction * n_points))
    if not 2 <= n_train <= n_points - 1:
        raise ValueError(f"train_fraction = {train_fraction} leaves {n_train} of the {n_points} points of X for "
                         "training: both parts need points (at least 2 to train)")
    return train_fraction


def _check_n_splits(n_splits):
    n_splits = as_positive_int(n_splits, "n_splits")
    check_work_budget(n_splits, MAX_SPLITS, "n_splits", n_splits, "splits")
    return n_splits


def _check_two_classes(y_train):
    if len(np.unique(y_train)) < 2:
        raise ValueError(f"y: a random split left only the class {y_train[0]:+g} in the training part "
                         f"({len(y_train)} points); use more points of each class or a larger train_fraction")


def _check_progress(progress):
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be None or a function of the split number, got {progress!r:.60}")


def _one_split(X, y, sigma, n_bounces, n_chains, train_fraction, C, rng, results):
    """One random split of `compare_with_svm`: append both methods' confidences and correctness."""
    X_train, X_test, y_train, y_test = random_split(X, y, train_fraction, random_state=rng)
    _check_two_classes(y_train)
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
        correct = np.array([as_correct_flags(row, name, confidence.shape[1]) for row in raw])
        checked[f"{method}_confidence"], checked[f"{method}_correct"] = confidence, correct
    return checked


def match_theta_max(results) -> float:
    """The SVM threshold whose rejection rate equals the transduction's at theta = 1 (the paper's theta_max).

    Transduction at theta = 1 rejects every point with c_trans < 1; theta_max is the quantile of the SVM's
    confidences |f(x)| (pooled over the equal-sized splits) at that rejection rate.
    """
    if not isinstance(results, dict) or any(key not in results for key in ("trans_confidence", "svm_confidence")):
        raise TypeError("results must be a dict with 'trans_confidence' and 'svm_confidence' (compare_with_svm's), "
                        f"got {type(results).__name__}")
    trans = as_float_array(results["trans_confidence"], "results['trans_confidence']")
    svm = as_float_array(results["svm_confidence"], "results['svm_confidence']")
    if np.any(trans < 0) or np.any(trans > 1) or np.any(svm < 0):
        raise ValueError("results must hold confidences >= 0 (the transduction's <= 1)")
    rate = float(np.mean(trans < 1.0))
    return float(np.quantile(svm.ravel(), rate))


def figure2_curves(results, n_thresholds: int = 41, theta_max=None, curve=None, methods=None):
    """Mean error-rejection curves over the splits, with one standard error of each mean (Figure 2).

    theta runs over [0, 1] for the transduction and over [0, theta_max] for the SVM (default
    `match_theta_max`).  `curve` is the function that turns one split's confidences into a curve (default
    `kgslab.billiard.error_rejection_curve`; the notebook passes the student's).  `methods` maps the method names present in
    `results` (keys "<name>_confidence", "<name>_correct") to the top of their theta range (default: "trans"
    to 1 and "svm" to theta_max).  Returns a dict with "theta", "theta_max" and, per method, a dict of
    rejection and error means and standard errors (NaN-aware: a split that rejects everything has no error).
    """
    theta = np.linspace(0.0, 1.0, as_positive_int(n_thresholds, "n_thresholds", minimum=2))
    if curve is None:   # the reference of notebook 09's Exercise 9.4
        from ..billiard import error_rejection_curve as curve
    if not callable(curve):
        raise TypeError(f"curve must be None or a function like error_rejection_curve, got {curve!r:.60}")
    if methods is None:
        results = _as_results(results)   # custom methods bring keys of their own
    if theta_max is None:
        theta_max = match_theta_max(results)
    theta_max = as_scalar(theta_max, "theta_max", low=0.0)
    methods = {"trans": 1.0, "svm": theta_max} if methods is None else methods
    curves = {"theta": theta, "theta_max": theta_max}
    for method, scale in methods.items():
        per_split = [curve(confidence, correct, theta * scale)
                     for confidence, correct in zip(results[f"{method}_confidence"], results[f"{method}_correct"])]
        rejection = np.array([np.asarray(one[0], dtype=float) for one in per_split])
        error = np.array([np.asarray(one[1], dtype=float) for one in per_split])
        # a split that rejects every point has no error at that theta: average over the other splits
        finite = np.isfinite(error)
        counts = finite.sum(axis=0)
        error_sum = np.where(finite, error, 0.0).sum(axis=0)
        error_mean = error_sum / np.where(counts > 0, counts, np.nan)      # NaN where no split has an error
        deviation = np.where(finite, error - error_mean, 0.0)
        error_sem = np.sqrt((deviation ** 2).sum(axis=0) / np.maximum(counts, 1)) / np.sqrt(np.maximum(counts, 1))
        curves[method] = {"rejection": rejection.mean(axis=0),
                          "rejection_sem": rejection.std(axis=0) / np.sqrt(len(rejection)),
                          "error": error_mean, "error_sem": error_sem}
    return curves


# ---- Figure 2 revisited: p+ against bounces, and a comparison that separates classifier and confidence ----

BOUNCE_LEVELS = (1000, 10_000)
FIGURE2_COMMAND = "python -m kgslab.papers.bt1999 figure2"
PAPER_SIGMA = {"thyroid": 3.0, "heart": 10.0}


def bounce_study(X, y, sigma, n_splits=10, levels=BOUNCE_LEVELS, n_trajectories=2, auto=0,
                 train_fraction=0.6, C=1e6, burn_in=100, random_state=None, progress=None, n_jobs=None):
    """Figure 2's experiment with its Monte Carlo error in view, on random splits (features standardised).

    Per split: the SVM with a bias (sklearn SVC, C large, as in `compare_with_svm`), the hard-margin
    perceptron without a bias (the billiard's own start, `versionspace.version_space_start`: the same function
    class as the billiard), and `n_trajectories` independent billiard trajectories read after each number of
    bounces in `levels` (the same trajectories, read again after more bounces; burn-in and refresh as in
    `billiard.billiard_run`).  On the first `auto` splits, also the estimator's default run
    (`BayesianTransduction()`: exact HMC, `kgslab.hmc.hmc_run`, until every p+ has MC error < 0.01 and
    R-hat < 1.01), with its diagnostics and its CPU time.

    The splits run through joblib (`n_jobs` workers, -1 for every core; default None: joblib's default, one
    process unless a `joblib.parallel_config` context such as Dask's backend says otherwise; `write_figure2`
    uses every core), each with its own generator spawned from `random_state`
    (`numpy.random.SeedSequence.spawn`), so the result does not depend on the number of workers.

    Returns a dict of arrays: y_test (splits, m), svm_decision and svm0_decision (splits, m), p_plus
    (levels, splits, trajectories, m) and, if auto > 0, auto_p_plus, auto_mc_error, auto_rhat (auto, m),
    auto_n_bounces (HMC bounces per chain), auto_seconds and auto_converged (auto,).
    """
    X = as_matrix(X, "X")
    y = as_pm1_labels(y, "y", length=X.shape[0], length_of="X")
    sigma = as_scalar(sigma, "sigma", low=0.0, low_open=True)
    n_splits = _check_n_splits(n_splits)
    if isinstance(levels, (str, bytes, dict, set)) or not np.iterable(levels) or len(levels) == 0:
        raise TypeError(f"levels must be a non-empty sequence of bounce counts, got {levels!r:.60}")
    levels = [as_positive_int(level, "levels", minimum=1) for level in levels]
    if sorted(levels) != levels:
        raise ValueError(f"levels must increase (they are read off the same trajectories), got {levels}")
    n_trajectories = as_positive_int(n_trajectories, "n_trajectories")
    # the trajectories of every split run to the last level: refuse a study that would look like a hang
    check_work_budget(n_splits * n_trajectories * levels[-1], MAX_BOUNCES, "levels", levels[-1],
                      "bounces (times n_splits and n_trajectories)")
    auto = as_positive_int(auto, "auto", minimum=0)
    if auto > n_splits:
        raise ValueError(f"auto must be <= n_splits ({n_splits}): it counts the splits with the 'auto' run, got {auto}")
    train_fraction = _check_train_fraction(train_fraction, X.shape[0])
    C = as_scalar(C, "C", low=0.0, low_open=True)
    burn_in = as_positive_int(burn_in, "burn_in", minimum=0)
    _check_progress(progress)
    settings = dict(sigma=sigma, levels=levels, n_trajectories=n_trajectories, train_fraction=train_fraction,
                    C=C, burn_in=burn_in)
    tasks = [(split, split < auto) for split in range(n_splits)]
    rows = fan_out(partial(_study_split, X, y, settings), tasks, random_state, n_jobs, progress)
    study = {key: np.array([row[key] for row in rows if key in row]) for key in rows[0]}   # auto_*: first splits
    study["p_plus"] = study["p_plus"].transpose(1, 0, 2, 3)          # (levels, splits, trajectories, m)
    study["levels"] = np.array(levels)
    return study


def _study_split(X, y, settings, task, rng):
    """One split of `bounce_study` with its own generator: a dict of that split's arrays."""
    _, with_auto = task
    X_train, X_test, y_train, y_test = random_split(X, y, settings["train_fraction"], random_state=rng)
    _check_two_classes(y_train)
    sigma = settings["sigma"]
    K, K_test = rbf_kernel(X_train, L=sigma), rbf_kernel(X_test, X_train, L=sigma)
    row = {"y_test": y_test,
           "svm_decision": SVC(kernel="precomputed", C=settings["C"]).fit(K, y_train).decision_function(K_test)}
    start = version_space_start(K, y_train)
    row["svm0_decision"] = K_test @ start
    balls = [KernelBilliard(K, y_train, K_test, start=start, random_state=child)
             for child in rng.spawn(settings["n_trajectories"])]
    for ball in balls:
        ball.warm_up(settings["burn_in"], max(10, len(y_train)))
    readings, done = [], 0
    for level in settings["levels"]:
        for ball in balls:
            ball.run(level - done)
        readings.append([ball.p_plus for ball in balls])
        done = level
    row["p_plus"] = readings
    if with_auto:
        started = time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)   # recorded in auto_converged
            run = hmc_run(K, y_train, K_test, "auto", start=start, random_state=rng.spawn(1)[0])
        row["auto_seconds"] = time.process_time() - started
        for key, value in (("p_plus", run.p_plus), ("mc_error", run.mc_error), ("rhat", run.rhat),
                           ("n_bounces", run.n_bounces), ("converged", run.converged)):
            row[f"auto_{key}"] = value
    return row


def _as_study(study):
    """`bounce_study`'s dict, checked: y_test +-1 and the decisions (splits, m), p_plus (levels, splits,
    trajectories, m) of probabilities, levels increasing, and the "auto" arrays (auto, m) when present."""
    keys = ("y_test", "svm_decision", "svm0_decision", "p_plus", "levels")
    if not isinstance(study, dict) or any(key not in study for key in keys):
        raise TypeError(f"study must be the dict bounce_study returns, with the keys {keys}, "
                        f"got {type(study).__name__}")
    checked = dict(study)
    y_test = as_float_array(study["y_test"], "study['y_test']", ndim=2)
    if not np.all(np.abs(y_test) == 1):
        raise ValueError(f"study['y_test'] must hold the labels -1 and +1, got {np.unique(y_test)[:5].tolist()}")
    for key in ("svm_decision", "svm0_decision"):
        checked[key] = as_float_array(study[key], f"study['{key}']", ndim=2)
        if checked[key].shape != y_test.shape:
            raise ValueError(f"study['{key}'] must have the shape of study['y_test'] {y_test.shape}, "
                             f"got {checked[key].shape}")
    p_plus = as_probabilities(study["p_plus"], "study['p_plus']", ndim=4)
    levels = as_float_array(study["levels"], "study['levels']", ndim=1)
    if (p_plus.shape[0] != len(levels) or p_plus.shape[1] != y_test.shape[0]
            or p_plus.shape[3] != y_test.shape[1]):
        raise ValueError(f"study['p_plus'] must have the shape (levels {len(levels)}, splits {y_test.shape[0]}, "
                         f"trajectories, m {y_test.shape[1]}), got {p_plus.shape}")
    if np.any(levels != np.round(levels)) or np.any(levels < 1) or np.any(np.diff(levels) <= 0):
        raise ValueError(f"study['levels'] must be increasing bounce counts, got {levels.tolist()}")
    checked.update(y_test=y_test, p_plus=p_plus, levels=levels.astype(int))
    if "auto_p_plus" in study:
        auto = as_probabilities(study["auto_p_plus"], "study['auto_p_plus']", ndim=2)
        if auto.shape[0] > y_test.shape[0] or auto.shape[1] != y_test.shape[1]:
            raise ValueError(f"study['auto_p_plus'] must have the shape (auto <= {y_test.shape[0]}, "
                             f"{y_test.shape[1]}), got {auto.shape}")
        checked["auto_p_plus"] = auto
    return checked


def _check_level(study, level, name):
    """One of study['levels'] (a bounce count), or "auto" when the study has the "auto" run."""
    allowed = [int(value) for value in study["levels"]] + (["auto"] if "auto_p_plus" in study else [])
    if isinstance(level, str) and level == "auto" and "auto" in allowed:
        return level
    if isinstance(level, (bool, np.bool_)) or not isinstance(level, (int, np.integer)) or int(level) not in allowed:
        raise ValueError(f"{name} must be one of the study's levels {allowed}, got {level!r:.60}")
    return int(level)


def study_results(study, method, level=None, trajectory=0):
    """One method's confidences and correctness from `bounce_study`, as `figure2_curves` takes them.

    method "svm" (|f(x)| of the SVM with bias), "svm0" (|f(x)| of the hard-margin perceptron without bias),
    "trans" (c_trans and the label of eq. 6 from p+ after `level` bounces of one `trajectory`, or of the
    "auto" run when level is "auto").  Returns {"<method>_confidence": ..., "<method>_correct": ...}.
    """
    study = _as_study(study)
    if not isinstance(method, str) or method not in ("svm", "svm0", "trans"):
        raise ValueError(f"method must be 'svm', 'svm0' or 'trans', got {method!r:.60}")
    if level is not None or method == "trans":
        level = _check_level(study, level, "level")
    n_trajectories = study["p_plus"].shape[2]
    trajectory = as_positive_int(trajectory, "trajectory", minimum=0)
    if trajectory >= n_trajectories:
        raise ValueError(f"trajectory must be < the study's {n_trajectories} trajectories, got {trajectory}")
    y_test = study["y_test"]
    if isinstance(level, str) and level == "auto":
        y_test = y_test[:len(study["auto_p_plus"])]          # the "auto" run covers the first splits only
    if method in ("svm", "svm0"):
        y_test = study["y_test"]
        decision = study[f"{method}_decision"]
        return {f"{method}_confidence": np.abs(decision), f"{method}_correct": np.where(decision > 0, 1.0, -1.0) == y_test}
    if method != "trans":
        raise ValueError(f"method must be 'svm', 'svm0' or 'trans', got {method!r}")
    if isinstance(level, str) and level == "auto":
        p_plus = study["auto_p_plus"]
    else:
        p_plus = study["p_plus"][list(study["levels"]).index(level), :, trajectory]
    return {"trans_confidence": transductive_confidence(p_plus),
            "trans_correct": np.where(p_plus > 0.5, 1.0, -1.0) == y_test}


def study_curves(study, curve=None, n_thresholds: int = 41, reference_level=None):
    """Figure 2's lines from a `bounce_study`: {label: line of `figure2_curves`} and the SVMs' theta_max.

    "trans <n>": transduction from trajectory 0 after n bounces; "trans auto": the "auto" run (on its
    splits); "svm" and "svm0": the SVM with and without bias, thresholds up to the theta_max whose rejection
    matches transduction's at theta = 1 after `reference_level` bounces (default: the largest level).
    """
    study = _as_study(study)
    if curve is not None and not callable(curve):
        raise TypeError(f"curve must be None or a function like error_rejection_curve, got {curve!r:.60}")
    n_thresholds = as_positive_int(n_thresholds, "n_thresholds", minimum=2)
    level = (int(study["levels"][-1]) if reference_level is None
             else _check_level(study, reference_level, "reference_level"))
    reference = study_results(study, "trans", level)
    lines, theta_max = {}, {}
    for method in ("svm", "svm0"):
        own = study_results(study, method)
        theta_max[method] = match_theta_max({"trans_confidence": reference["trans_confidence"],
                                             "svm_confidence": own[f"{method}_confidence"]})
        lines[method] = figure2_curves(own, n_thresholds, theta_max[method], curve, {method: theta_max[method]})[method]
    levels = [int(level) for level in study["levels"]] + (["auto"] if "auto_p_plus" in study else [])
    for level in levels:
        lines[f"trans {level}"] = figure2_curves(study_results(study, "trans", level), n_thresholds, 1.0, curve,
                                                 {"trans": 1.0})["trans"]
    return lines, theta_max


def error_at_rejection(confidence, correct, rates):
    """Error on the accepted points when the least confident fraction `rate` of each split is rejected.

    confidence, correct: (splits, m).  Unlike a threshold, a rate rejects the same number of points for every
    confidence measure, so two measures can be compared at equal rejection (paired, split by split).  Ties
    are broken by the order of the test points (random, since the splits are).  Returns (splits, rates).
    """
    confidence = np.atleast_2d(as_float_array(confidence, "confidence", ndim=(1, 2)))
    raw = correct if isinstance(correct, str) or correct is None else np.atleast_2d(np.asarray(correct))
    if getattr(raw, "shape", None) != confidence.shape:
        raise ValueError(f"correct must have the shape of confidence {confidence.shape}, "
                         f"got {getattr(raw, 'shape', type(correct).__name__)}")
    correct = np.array([as_correct_flags(row, "correct", confidence.shape[1]) for row in raw])
    rates = np.atleast_1d(as_float_array(rates, "rates", ndim=(0, 1)))
    if np.any((rates < 0) | (rates >= 1)):
        raise ValueError(f"rates must lie in [0, 1), got {rates}")
    m = confidence.shape[1]
    order = np.argsort(confidence, axis=1, kind="stable")               # least confident first
    wrong_sorted = ~np.take_along_axis(correct, order, axis=1)
    kept = [m - int(round(rate * m)) for rate in rates]
    if min(kept) == 0:
        raise ValueError(f"rates must leave at least one of the {m} points of a split (its error is undefined "
                         f"otherwise), got a rate of {float(rates[np.argmin(kept)]):.6g}")
    return np.array([[row[m - k:].mean() for k in kept] for row in wrong_sorted])


def paired_difference(first, second):
    """Mean and standard error over the splits of first - second (arrays (splits, ...))."""
    first, second = as_float_array(first, "first"), as_float_array(second, "second")
    if first.ndim == 0 or first.shape[0] < 2:
        raise ValueError(f"first must have at least 2 splits along its first axis (a standard error), "
                         f"got shape {first.shape}")
    if second.shape != first.shape:
        raise ValueError(f"second must have the shape of first {first.shape}, got {second.shape}")
    difference = first - second
    return difference.mean(axis=0), difference.std(axis=0, ddof=1) / np.sqrt(difference.shape[0])


def agreement(p_first, p_second):
    """Two independent estimates of p+ (arrays (..., m)): share of labels that differ, mean |p difference|."""
    p_first, p_second = as_probabilities(p_first, "p_first"), as_probabilities(p_second, "p_second")
    if p_second.shape != p_first.shape:
        raise ValueError(f"p_second must have the shape of p_first {p_first.shape}, got {p_second.shape}")
    return float(np.mean((p_first > 0.5) != (p_second > 0.5))), float(np.mean(np.abs(p_first - p_second)))


# ---- the paper-sized run, committed to data/results/ ----------------------------------------------------

def write_figure2(path, name, n_splits=100, auto=100, random_state=1999, n_jobs=-1):
    """`bounce_study` on data set `name` (thyroid or heart, the paper's sigma) with "auto" on the first
    `auto` splits (default: all), its splits through joblib (`n_jobs`); a JSON file at `path`."""
    from .. import data

    if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)) or str(path) == "":
        raise TypeError(f"path must be a file name (str or Path), got {path!r:.60}")
    if Path(path).is_dir():
        raise ValueError(f"path must name a file to write, got the directory {str(path)!r}")
    _check_data_name(name)
    n_splits = _check_n_splits(n_splits)
    auto = as_positive_int(auto, "auto", minimum=0)
    if auto > n_splits:
        raise ValueError(f"auto must be <= n_splits ({n_splits}): it counts the splits with the 'auto' run, got {auto}")
    check_random_state_kind(random_state)
    X, y = {"thyroid": data.load_thyroid, "heart": data.load_heart}[name]()
    started = time.perf_counter()
    study = bounce_study(X, y, PAPER_SIGMA[name], n_splits=n_splits, auto=auto, random_state=random_state,
                         progress=lambda done: print(f"{name}: {done}/{n_splits} splits", flush=True),
                         n_jobs=n_jobs)
    wall = time.perf_counter() - started
    payload = {"command": f"{FIGURE2_COMMAND} {name} --auto {auto}",
               "what": "bounce_study: y_test, svm_decision, svm0_decision (splits, m); p_plus "
                       "(levels, splits, trajectories, m) from independent trajectories read at each level; "
                       "auto_* from the estimator's default run (BayesianTransduction(): exact HMC, 8 "
                       "chains until every MC error < 0.01 and R-hat < 1.01; auto_n_bounces per chain, "
                       "auto_seconds its CPU time) on the first auto_splits splits",
               "wall_seconds": round(wall, 1),
               "settings": {"data": name, "sigma": PAPER_SIGMA[name], "n_splits": n_splits, "auto_splits": auto,
                            "levels": list(BOUNCE_LEVELS), "n_trajectories": 2, "train_fraction": 0.6, "C": 1e6,
                            "random_state": random_state, "auto_sampler": "hmc",
                            "seeds": "one generator per split, spawned from random_state (independent of n_jobs)"},
               "study": {key: np.round(value, 6).tolist() if value.dtype.kind == "f" else value.tolist()
                         for key, value in study.items()}}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload) + "\n", encoding="utf-8")
    return path


def _check_data_name(name):
    if not isinstance(name, str) or name not in PAPER_SIGMA:
        raise ValueError(f"name must be one of the paper's data sets {sorted(PAPER_SIGMA)}, got {name!r:.60}")


def load_figure2(name):
    """The committed paper-sized run of data set `name`: (study dict of arrays, command, settings)."""
    from ..data import load_result

    _check_data_name(name)
    try:
        payload = load_result(f"bt1999_figure2_{name}.json")
    except FileNotFoundError as missing:
        raise FileNotFoundError(f"{missing}; make it with {FIGURE2_COMMAND} {name}") from None
    study = {key: np.array(value) for key, value in payload["study"].items()}
    return study, payload["command"], payload["settings"]


def main(argv=None):
    import argparse

    from . import OUT_HELP, output_path

    parser = argparse.ArgumentParser(prog="python -m kgslab.papers.bt1999",
                                     description="Write the paper-sized run of notebook 09 (bt1999_figure2_DATA.json).")
    parser.add_argument("run", choices=["figure2"], help="figure2: bounce_study with 'auto' on the first splits")
    parser.add_argument("data", choices=["thyroid", "heart"])
    parser.add_argument("--auto", type=int, default=100, help="splits with the 'auto' run (default 100: all)")
    parser.add_argument("--n-jobs", type=int, default=-1, help="joblib workers (default -1: every core); the "
                                                                  "numbers do not depend on it")
    parser.add_argument("--out", help=OUT_HELP)
    arguments = parser.parse_args(argv)
    print(write_figure2(output_path(f"bt1999_figure2_{arguments.data}.json", arguments.out), arguments.data,
                        auto=arguments.auto, n_jobs=arguments.n_jobs))


if __name__ == "__main__":
    main()

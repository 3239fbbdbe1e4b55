"""Experiments and figures of the kernel Gibbs sampler paper (seed 001, Graepel and Herbrich, NIPS 2000).

Figures 1-3 are drawn by `figure1` (the posterior over the sphere in R^3, eq. 3), `figure2` (one step of the
sampler, section 3: the great circle on that map and the arcs unrolled) and `figure3` (sampled decision boundaries
for several noise levels, with the vote of eq. 4 and the Bayes point of eq. 5); notebook 08 calls them with the
student's own functions' results.  `plot_figure4` draws the runs of `figure4`.  Section 4's evidence by thermodynamic integration is drawn by
`evidence_figure` (the mean errors against the inverse temperature, whose integral is the log evidence) and, for
runs by replica exchange, `replica_exchange_figure`.

Figure 4 compares the Bayes point of the KGS with the quadratic (2-norm) soft-margin SVM without bias on
the same kernel: the hard-margin SVM on K + lam I.  `figure4` runs it on independent training/test sets of
the sphere data with 5% flipped labels, over an assumed flip rate q for the BPM and a lambda for the SVM on
axes of their own (the paper puts both on one axis, 0.02 to 0.1); `main` writes the paper-sized run
(100 sets) to data/results/kgs2000_figure4.json:

    python -m kgslab.papers.kgs2000
"""

from __future__ import annotations

import json
from typing import NamedTuple

import numpy as np

from .. import data
from .._validation import (as_flip_rate, as_float_array, as_generator, as_matrix, as_pm1_labels, as_positive_int,
                           as_probabilities, as_scalar, as_unit_vector, as_vector, check_work_budget)
from ..evidence import EvidenceRun, log_likelihood, training_errors
from ..kernels import linear_kernel, rbf_kernel
from .._kgs_engine import MAX_STEPS
from ..kgs import gibbs_run
from ..versionspace import kernel_coordinates as _kernel_coordinates, max_margin

__all__ = ["quadratic_svm", "figure1", "figure2", "figure3", "Figure3Run", "zero_lines", "figure4", "figure4_full",
           "write_figure4", "plot_figure4", "exact_sphere_posterior", "step_chains", "plot_exact_check",
           "mixing_figure", "active_learning", "ActiveLearningRun",
           "plot_active_learning", "evidence_figure", "replica_exchange_figure", "FIGURE4_Q", "FIGURE4_LAMBDA",
           "FIGURE4_FILE", "FIGURE4_COMMAND", "SPHERE_GRID"]

FIGURE4_Q = (0.02, 0.05, 0.1, 0.2)                      # the BPM's assumed flip rate (truth: 0.05)
FIGURE4_LAMBDA = (0.02, 0.05, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0)   # the SVM's lambda, 0.02 to 30 (log axis)
FIGURE4_FILE = "kgs2000_figure4.json"
FIGURE4_COMMAND = "python -m kgslab.papers.kgs2000"
MAX_POINTS = 100_000       # training or test points of one set (the paper: 100 / 1000); more looks like a hang
FIGURE4_BURN_IN, FIGURE4_THIN = 50, 3


def quadratic_svm(K, y, lam):
    """Quadratic soft-margin SVM without bias: the hard-margin SVM on K + lam I (lam > 0).

    Each training point gets a private feature sqrt(lam) e_i, so K + lam I = [Phi, sqrt(lam) I][Phi, sqrt(lam) I]'
    and every labelling is separable; the maximum-margin hyperplane of `kgslab.versionspace.max_margin` in
    those coordinates is the SVM.  Returns beta = alpha * y, so f(x) = sum_i beta_i k(x, x_i) (for a new point x
    the private features are 0, as in the paper's kernel <x, x'> + lam I(x = x')).
    """
    features, _ = _kernel_coordinates(K)
    y = as_pm1_labels(y, "y", length=features.shape[0], length_of="K")
    lam = as_scalar(lam, "lam", low=0.0, low_open=True)
    return max_margin(np.hstack([features, np.sqrt(lam) * np.eye(len(y))]), y)


def figure4(n_sets=12, q_levels=FIGURE4_Q, lambdas=FIGURE4_LAMBDA, *, n_train=100, n_test=1000,
            flip_rate=0.05, samples_per_chain=25, n_chains=4, random_state=None):
    """Test errors of the BPM (per q) and the quadratic SVM (per lambda) on n_sets independent sets.

    Each set: n_train training and n_test test points of `data.sphere_data` with `flip_rate` of the labels
    flipped (both; the error is against the noisy test labels, so flip_rate is the floor).  The BPM is the
    mean of n_chains x samples_per_chain KGS samples (the paper: 100), linear kernel, burn-in 50, thin 3.
    Returns a dict of arrays: bpm (n_sets, len(q_levels)), svm (n_sets, len(lambdas)), and the largest
    R-hat of a training vote over each set's chains, rhat (n_sets, len(q_levels)).
    """
    n_sets = as_positive_int(n_sets, "n_sets", minimum=2)
    q_levels = as_float_array(q_levels, "q_levels", ndim=1)
    if np.any(q_levels < 0) or np.any(q_levels >= 0.5):
        raise ValueError(f"q_levels must hold assumed flip rates in [0, 0.5), got {q_levels.tolist()[:6]}")
    lambdas = as_float_array(lambdas, "lambdas", ndim=1)
    if np.any(lambdas <= 0):
        raise ValueError(f"lambdas must hold numbers > 0 (lambda I is added to K), got {lambdas.tolist()[:6]}")
    for name, value in (("n_train", n_train), ("n_test", n_test)):
        check_work_budget(as_positive_int(value, name), MAX_POINTS, name, value, "points per set")
    flip_rate = as_scalar(flip_rate, "flip_rate", low=0.0, high=0.5)
    # R-hat splits each chain in two halves: with fewer than 4 samples a half has one draw and R-hat is NaN
    samples_per_chain = as_positive_int(samples_per_chain, "samples_per_chain", minimum=4)
    n_chains = as_positive_int(n_chains, "n_chains")
    steps = n_sets * len(q_levels) * n_chains * (FIGURE4_BURN_IN + FIGURE4_THIN * samples_per_chain)
    check_work_budget(steps, MAX_STEPS, "samples_per_chain", samples_per_chain,
                      "Gibbs steps (times n_sets, the q_levels and n_chains)")
    rng = as_generator(random_state)
    bpm = np.zeros((n_sets, len(q_levels)))
    svm = np.zeros((n_sets, len(lambdas)))
    rhat = np.zeros((n_sets, len(q_levels)))
    for s in range(n_sets):
        X_train, y_train, _ = data.sphere_data(n_train, flip_rate=flip_rate, random_state=rng)
        X_test, y_test, _ = data.sphere_data(n_test, flip_rate=flip_rate, random_state=rng)
        K_train, K_test = linear_kernel(X_train), linear_kernel(X_test, X_train)
        for k, q in enumerate(q_levels):
            run = gibbs_run(K_train, y_train, q, samples_per_chain, n_chains=n_chains, burn_in=FIGURE4_BURN_IN,
                            thin=FIGURE4_THIN,
                            random_state=rng)
            bayes_point = run.alphas.reshape(-1, n_train).mean(axis=0)
            bpm[s, k] = np.mean(np.sign(K_test @ bayes_point) != y_test)
            rhat[s, k] = np.nanmax(run.rhat)
        for k, lam in enumerate(lambdas):
            svm[s, k] = np.mean(np.sign(K_test @ quadratic_svm(K_train, y_train, lam)) != y_test)
    return {"q_levels": q_levels, "lambdas": lambdas, "bpm": bpm, "svm": svm, "rhat": rhat}


def figure4_full():
    """The paper-sized Figure 4: 100 sets, seed 2000 (what `main` and notebook 08 with KGSLAB_FULL=1 run)."""
    return figure4(100, random_state=2000)


def _as_figure4_run(run):
    """`figure4`'s dict, checked: q_levels, lambdas, test errors bpm / svm in [0, 1] and rhat (sets, levels)."""
    keys = ("q_levels", "lambdas", "bpm", "svm", "rhat")
    if not isinstance(run, dict) or any(key not in run for key in keys):
        raise TypeError(f"run must be the dict figure4 returns, with the keys {keys}, got {type(run).__name__}")
    q_levels = as_float_array(run["q_levels"], "run['q_levels']", ndim=1)
    lambdas = as_float_array(run["lambdas"], "run['lambdas']", ndim=1)
    bpm = as_probabilities(run["bpm"], "run['bpm']", ndim=2)
    for key, columns in (("bpm", len(q_levels)), ("svm", len(lambdas)), ("rhat", len(q_levels))):
        array = (as_probabilities if key != "rhat" else as_float_array)(run[key], f"run['{key}']", ndim=2)
        if array.shape != (bpm.shape[0], columns):
            raise ValueError(f"run['{key}'] must have the shape (sets {bpm.shape[0]}, {columns}), got {array.shape}")
    return run


def write_figure4(run, path=None):
    """Write a Figure 4 run (`figure4_full()`) to `path` (default: kgs2000_figure4.json in data/results/ of a
    clone, in the current directory of an installed kit: `kgslab.papers.output_path`); returns the path."""
    from . import output_path

    run = _as_figure4_run(run)
    payload = {"command": FIGURE4_COMMAND + "  (or: KGSLAB_FULL=1 jupyter nbconvert --to notebook --execute "
                                            "solutions/08_kernel_gibbs_sampler.ipynb)",
               "what": "test error (against noisy test labels) of the BPM (100 KGS samples, 4 chains) per "
                       "assumed flip rate q and of the quadratic soft-margin SVM per lambda, on independent "
                       "sets of 100 training / 1000 test points of the sphere data with 5% flipped labels; "
                       "rows: sets; rhat: the largest R-hat of a monitored vote of each BPM's chains",
               **{key: np.asarray(value).tolist() for key, value in run.items()}}
    path = output_path(FIGURE4_FILE, path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    return path


def plot_figure4(runs, *, true_q=0.05):
    """Figure 4 of the paper, drawn from `figure4` runs: the BPM's test error against its assumed flip rate q and
    the SVM's against its lambda on one log axis (mean and standard error over the sets), and, on the right, the
    paired difference BPM(q = true_q) - SVM(lambda) with 2 standard errors (below 0: the BPM is better).

    `runs` maps a name ("this run", "paper-sized run (file)") to a dict with the keys of `figure4`'s result; the
    later ones are drawn solid, the first ones faint.  Returns the figure.
    """
    import matplotlib.pyplot as plt

    from ..report import chain_mean

    if not isinstance(runs, dict) or not runs:
        raise TypeError(f"runs must be a dict {{name: figure4 result}}, got {type(runs).__name__}")
    runs = {name: _as_figure4_run(run) for name, run in runs.items()}
    figure, (ax, right) = plt.subplots(1, 2, figsize=(14, 4.8), layout="constrained", width_ratios=[1.3, 1])
    for k, (name, run) in enumerate(runs.items()):
        q_levels, lambdas = np.asarray(run["q_levels"], float), np.asarray(run["lambdas"], float)
        at = np.flatnonzero(np.isclose(q_levels, true_q))
        if not len(at):
            raise ValueError(f"runs[{name!r}] has no BPM at q = true_q = {true_q:g}: its q_levels are "
                             f"{q_levels.tolist()}")
        style, alpha = ("s-", 1.0) if k == len(runs) - 1 else ("o--", 0.45)
        bpm, svm = np.asarray(run["bpm"], float), np.asarray(run["svm"], float)
        ax.errorbar(q_levels, *chain_mean(bpm), fmt=style, color="tab:blue", alpha=alpha, capsize=3,
                    label=f"BPM against q, {name} ({len(bpm)} sets)")
        ax.errorbar(lambdas, *chain_mean(svm), fmt=style, color="tab:red", alpha=alpha, capsize=3,
                    label=f"SVM without bias against lambda, {name} ({len(bpm)} sets)")
        difference, difference_se = chain_mean(bpm[:, at[:1]] - svm)
        right.errorbar(lambdas, difference, 2 * difference_se, fmt=style, color="k", alpha=alpha, capsize=3,
                       label=f"{name} ({len(bpm)} sets)")
    ax.axhline(true_q, color="grey", ls=":", label=f"true label noise {true_q:.0%}")
    ax.set_xlabel("q (BPM's assumed flip rate) and lambda (SVM's regulariser), log axis")
    ax.set_ylabel("test error (mean ± s.e.)")
    ax.set_title("BPM (100 KGS samples) and quadratic soft-margin SVM without bias")
    right.axhline(0, color="k", lw=0.8)
    right.set_xlabel("lambda of the SVM")
    right.set_ylabel(f"BPM(q = {true_q:g}) - SVM(lambda), paired (± 2 s.e.)")
    right.set_title("below 0: the BPM is better")
    for a in (ax, right):
        a.axvspan(0.02, 0.1, color="0.92", label="the paper's range")
        a.set_xscale("log")
        a.legend(fontsize=8)
    figure.suptitle(f"Figure 4: BPM vs quadratic soft-margin SVM under {true_q:.0%} label noise, sphere data in R^3")
    return figure


def main(argv=None):
    """Write the paper-sized Figure 4 (100 sets) to kgs2000_figure4.json."""
    import argparse

    from . import OUT_HELP

    parser = argparse.ArgumentParser(prog=FIGURE4_COMMAND, description=main.__doc__)
    parser.add_argument("--out", help=OUT_HELP)
    arguments = parser.parse_args(argv)
    print(write_figure4(figure4_full(), arguments.out))


if __name__ == "__main__":
    main()


# ---- Figures 1-3: what notebook 08 draws --------------------------------------------------------------------

SPHERE_GRID = (91, 181)             # Figures 1-2: (longitude, latitude) points of the map on the sphere


def _sphere_map(X, y, q, grid=SPHERE_GRID):
    """(longitude, latitude, (1/m) ln L on the grid, training errors on the grid) of the sphere in R^3 (eq. 3)."""
    longitude = np.linspace(0, np.pi, grid[0])
    latitude = np.linspace(0, 2 * np.pi, grid[1])
    directions = data.sphere_point(longitude[:, None], latitude[None, :]).reshape(-1, 3)
    errors = training_errors(directions @ X.T, y)
    per_point = log_likelihood(errors, len(y), q) / len(y)
    return longitude, latitude, per_point.reshape(grid), errors.reshape(grid)


def _sphere_set(X, y, name):
    X = as_matrix(X, f"{name} X")
    if X.shape[1] != 3:
        raise ValueError(f"{name} X must hold points of R^3, shape (m, 3), got shape {X.shape}")
    return X, as_pm1_labels(y, f"{name} y", length=X.shape[0], length_of="X")


def figure1(sets, q):
    """Figure 1 of the paper: (1/m) ln L[w, z] (eq. 3, the log posterior up to a constant) over the sphere in R^3,
    one panel per training set, the labelling w* of section 5 marked and, for the first panel, the cells with the
    fewest training errors outlined.

    `sets` maps a name (m) to a training set (X (m, 3), y); q is the assumed flip rate (the caption's 0.2).
    Returns (figure, {name: (fewest errors on the grid, errors of w*)}).
    """
    import matplotlib.pyplot as plt

    if not isinstance(sets, dict) or not sets:
        raise TypeError(f"sets must be a dict {{m: (X, y)}} of training sets in R^3, got {type(sets).__name__}")
    q = as_flip_rate(q)
    checked = {}
    for name, pair in sets.items():
        if not isinstance(pair, (tuple, list)) or len(pair) < 2:
            raise TypeError(f"sets[{name!r}] must be a training set (X, y), got {type(pair).__name__}")
        checked[name] = _sphere_set(pair[0], pair[1], f"sets[{name!r}]")
    figure, axes = plt.subplots(1, len(checked), figsize=(6 * len(checked), 4.3), sharey=True, squeeze=False)
    counts = {}
    for k, (ax, (name, (X, y))) in enumerate(zip(axes[0], checked.items())):
        longitude, latitude, per_point, errors = _sphere_map(X, y, q)
        w_star_errors = int(training_errors(data.KGS_W_STAR @ X.T, y)[0])
        counts[name] = (int(errors.min()), w_star_errors)
        mesh = ax.pcolormesh(latitude, longitude, per_point, shading="auto", cmap="viridis")
        figure.colorbar(mesh, ax=ax, label=r"$\frac{1}{m}\ln L[\mathbf{w}, z]$")
        ax.plot(np.pi, np.pi / 2, "r*", ms=14, label=r"$\mathbf{w}^*$ (labels before noise)")
        if k == 0:   # with many points the best cells are smaller than the star: the title says where
            ax.contour(latitude, longitude, (errors == errors.min()).astype(float), [0.5], colors="white",
                       linewidths=1.2)
        ax.set_title(f"({'abcdefgh'[k]}) m = {len(y)}: fewest errors {errors.min()}, w* makes {w_star_errors}")
        ax.set_xlabel("latitude (azimuth, rad)")
        ax.legend(loc="lower left", fontsize=8)
    axes[0, 0].set_ylabel("longitude (polar angle, rad)")
    figure.suptitle(f"Figure 1: log posterior on the sphere in R^3, q = {q:g} (white outline in (a): the cells "
                    f"with the fewest errors)")
    return figure, counts


def figure2(X, y, coords, direction, new_coords, boundaries, errors, q):
    """Figure 2 of the paper for one step of the sampler on the sphere in R^3 (linear kernel: the coordinates are
    the points themselves).

    Left: the great circle cos(t) w + sin(t) v through `coords` (w) along `direction` (v) on the map of Figure 1,
    its crossings (`boundaries`) and the new point `new_coords`.  Right: the circle unrolled over the angle: the
    training errors of each arc (`errors[k]` on the arc from boundaries[k] to the next, the last one wrapping
    round), the density of step 7 (arc length times q^e (1-q)^(m-e), eq. 3) and the angle of the new point.
    Returns the figure.
    """
    import matplotlib.pyplot as plt

    X, y = _sphere_set(X, y, "")
    m = len(y)
    w = as_unit_vector(coords, 3, "coords")
    v = as_unit_vector(direction, 3, "direction")
    if abs(float(w @ v)) > 1e-6:
        raise ValueError(f"direction must be orthogonal to coords (a tangent, step 2), got <coords, direction> = "
                         f"{float(w @ v):.3g}")
    new = as_unit_vector(new_coords, 3, "new_coords")
    if np.linalg.norm(new - (new @ w) * w - (new @ v) * v) > 1e-6:
        raise ValueError("new_coords must lie on the great circle through coords along direction (step 8)")
    boundaries = as_vector(boundaries, "boundaries", length=2 * m, length_of="two crossings per point of X")
    if np.any(np.diff(boundaries) < 0) or boundaries[0] < 0 or boundaries[-1] >= 2 * np.pi:
        raise ValueError("boundaries must be the crossing angles sorted, in [0, 2 pi)")
    errors = as_vector(errors, "errors", length=2 * m, length_of="boundaries")
    if np.any(errors != np.round(errors)) or np.any(errors < 0) or np.any(errors > m):
        raise ValueError(f"errors must hold counts of training errors, 0 to {m}, got {np.unique(errors)[:6].tolist()}")
    q = as_flip_rate(q)
    if q == 0 and errors.min() > 0:
        raise ValueError("with q = 0 an arc without errors is needed (the point must lie in version space)")

    theta_new = float(np.mod(np.angle(complex(new @ w, new @ v)), 2 * np.pi))   # where the step landed
    lengths = np.diff(boundaries, append=boundaries[0] + 2 * np.pi)
    ratio = q / (1 - q)
    weight = lengths * np.where(errors == errors.min(), 1.0, ratio ** (errors - errors.min()))
    density = weight / weight.sum() / np.maximum(lengths, 1e-300)        # a density in theta (integrates to 1)

    figure, (left, right) = plt.subplots(1, 2, figsize=(13, 4.5), gridspec_kw={"width_ratios": [1.2, 1]})
    longitude, latitude, per_point, _ = _sphere_map(X, y, q)
    mesh = left.pcolormesh(latitude, longitude, per_point, shading="auto", cmap="viridis")
    figure.colorbar(mesh, ax=left, label=r"$\frac{1}{m}\ln L[\mathbf{w}, z]$ (as in Figure 1)")
    theta = np.linspace(0, 2 * np.pi, 721)
    circle_long, circle_lat = data.sphere_angles(np.cos(theta)[:, None] * w + np.sin(theta)[:, None] * v)
    left.scatter(circle_lat, circle_long, s=2, color="white", label="great circle through w_j along v")
    cross_long, cross_lat = data.sphere_angles(np.cos(boundaries)[:, None] * w + np.sin(boundaries)[:, None] * v)
    left.scatter(cross_lat, cross_long, s=30, color="orange", edgecolor="k", zorder=3, label="crossing points")
    for point, marker, name in ((w, "o", "$w_j$"), (new, "D", "$w_{j+1}$")):
        point_long, point_lat = data.sphere_angles(point)
        left.plot(point_lat, point_long, marker, color="red", ms=10, mec="k", label=name)
    left.set_xlabel("latitude (azimuth, rad)")
    left.set_ylabel("longitude (polar angle, rad)")
    left.set_title(f"the circle on the posterior map (m = {m}, q = {q:g})")
    left.legend(loc="lower left", fontsize=8)

    wrap = [0.0, boundaries[0]], [boundaries[-1], 2 * np.pi]          # the last arc, drawn in its two parts
    right.stairs(errors[:-1], boundaries, color="C0", lw=1.5, label="training errors of the arc")
    twin = right.twinx()
    twin.stairs(density[:-1], boundaries, color="C3", fill=True, alpha=0.3, label="density of theta (step 7)")
    for edges in wrap:
        right.stairs([errors[-1]], edges, color="C0", lw=1.5)
        twin.stairs([density[-1]], edges, color="C3", fill=True, alpha=0.3)
    right.set_xlabel(r"angle $\theta$ along the circle (rad)")
    right.set_ylabel("training errors on the arc", color="C0")
    twin.set_ylabel("density of the drawn angle", color="C3")
    for b in boundaries:
        right.axvline(b, color="0.7", lw=0.6)
    right.axvline(0, color="k", lw=2, label=r"$\theta = 0$: $w_j$")
    right.axvline(theta_new, color="red", lw=2, ls="--", label=rf"drawn $\theta^*$ = {theta_new:.2f}")
    right.set_title("Figure 2: arcs, their errors and the drawn angle")
    right.set_ylim(0, errors.max() + 3)                                # headroom: the legend clears the staircase
    handles, labels = right.get_legend_handles_labels()
    twin_handles, twin_labels = twin.get_legend_handles_labels()
    right.legend(handles + twin_handles, labels + twin_labels, fontsize=8, loc="upper right")
    return figure


def zero_lines(values, x_grid, y_grid):
    """The zero level set of values (len(y_grid), len(x_grid)) as polylines in data coordinates.

    Marching squares (skimage.measure.find_contours): much faster than one matplotlib contour
    call per sampled classifier; draw the result with one LineCollection.
    """
    from skimage.measure import find_contours

    values = as_float_array(values, "values", ndim=2)
    x_grid = as_float_array(x_grid, "x_grid", ndim=1)
    y_grid = as_float_array(y_grid, "y_grid", ndim=1)
    if values.shape != (len(y_grid), len(x_grid)):
        raise ValueError(f"values must have shape (len(y_grid), len(x_grid)) = ({len(y_grid)}, {len(x_grid)}), "
                         f"got {values.shape}")
    lines = []
    for contour in find_contours(values, 0.0):
        rows, cols = contour[:, 0], contour[:, 1]
        lines.append(np.column_stack([np.interp(cols, np.arange(len(x_grid)), x_grid),
                                      np.interp(rows, np.arange(len(y_grid)), y_grid)]))
    return lines


class Figure3Run(NamedTuple):
    """One panel of Figure 3: the run's samples and what the figure shows of it."""

    alphas: np.ndarray          # (n_chains, n_samples, m): every kept sample of the run
    max_rhat: float             # the largest R-hat of a monitored vote
    min_ess: float              # the smallest effective sample size of a monitored vote
    errors: np.ndarray          # (n_chains,): each chain's mean training errors per sample


def figure3(X, y, vote_draws, *, q_levels=(0.0, 0.1, 0.2), L=1.0, n_lines=50, grid_size=120, dimension=None,
            random_state=None):
    """Figure 3 of the paper: decision boundaries of n_lines samples of the posterior, for each assumed flip rate.

    For each q, `kgslab.kgs.gibbs_run` (4 chains, until the monitored votes converged) on the RBF kernel of width
    L; the shade is the vote p+ on a grid over the data, computed by `vote_draws(chain_alphas, K_test)` (notebook
    08 passes the student's Exercise 8.4), the thick line the Bayes point (eq. 5, the mean of all samples).
    Each run gets its own seed from `random_state`, so the run's length (which depends on the chain) does not
    shift what the generator draws next.  `dimension` (the rank of K) goes into the title when given.
    Returns (figure, {q: Figure3Run}).
    """
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection

    X = as_matrix(X, "X")
    if X.shape[1] != 2:
        raise ValueError(f"X must hold points in the plane, shape (m, 2), got shape {X.shape}")
    y = as_pm1_labels(y, "y", length=X.shape[0], length_of="X")
    if not callable(vote_draws):
        raise TypeError(f"vote_draws must be the function of Exercise 8.4, votes = vote_draws(chain_alphas, "
                        f"K_test), got {type(vote_draws).__name__}")
    q_levels = [as_flip_rate(q) for q in as_float_array(q_levels, "q_levels", ndim=1)]
    L = as_scalar(L, "L", low=0.0, low_open=True)
    n_lines = as_positive_int(n_lines, "n_lines")
    grid_size = as_positive_int(grid_size, "grid_size", minimum=2)
    rng = as_generator(random_state)
    m = len(y)
    gram = rbf_kernel(X, L=L)
    pad = 0.45
    x1 = np.linspace(X[:, 0].min() - pad, X[:, 0].max() + pad, grid_size)
    x2 = np.linspace(X[:, 1].min() - pad, X[:, 1].max() + pad, grid_size)
    plane = np.column_stack([np.tile(x1, len(x2)), np.repeat(x2, len(x1))])
    K_plane = rbf_kernel(plane, X, L=L)
    runs, shades, lines, bayes = {}, [], [], []
    for q in q_levels:
        run = gibbs_run(gram, y, q, random_state=int(rng.integers(2**32)))
        n_chains, n_samples, _ = run.alphas.shape
        every = max(1, n_samples // 100)                 # 100 samples a chain are enough for the shade
        shades.append(np.concatenate([np.asarray(vote_draws(run.alphas[:, ::every], rows)).mean(axis=(0, 1))
                                      for rows in np.array_split(K_plane, 12)]).reshape(len(x2), len(x1)))
        drawn = run.alphas[:, np.linspace(0, n_samples - 1, n_lines // n_chains + 1).astype(int)]
        outputs = K_plane @ drawn.reshape(-1, m)[:n_lines].T                     # samples spread over the chains
        lines.append([line for j in range(outputs.shape[1])
                      for line in zero_lines(outputs[:, j].reshape(len(x2), len(x1)), x1, x2)])
        bayes.append(zero_lines((K_plane @ run.alphas.reshape(-1, m).mean(axis=0)).reshape(len(x2), len(x1)),
                                x1, x2))
        errors = training_errors(run.alphas.reshape(-1, m) @ gram, y).reshape(n_chains, -1).mean(axis=1)
        runs[q] = Figure3Run(run.alphas, float(np.max(run.rhat)), float(np.min(run.ess)), errors)
        del run, outputs                                  # only the samples and two diagnostics are kept

    figure, axes = plt.subplots(1, len(q_levels), figsize=(5 * len(q_levels), 5.2), sharey=True,
                                layout="constrained", squeeze=False)
    for ax, (q, result), shade, sampled, bayes_lines in zip(axes[0], runs.items(), shades, lines, bayes):
        ax.imshow(shade, origin="lower", extent=(x1[0], x1[-1], x2[0], x2[-1]), cmap="RdBu", vmin=0, vmax=1,
                  alpha=0.45, aspect="auto")
        ax.add_collection(LineCollection(sampled, colors="0.2", linewidths=0.5, alpha=0.5))
        ax.add_collection(LineCollection(bayes_lines, colors="gold", linewidths=2.5))
        ax.set_xlim(x1[0], x1[-1])
        ax.set_ylim(x2[0], x2[-1])
        ax.scatter(*X[y > 0].T, marker="o", facecolors="none", edgecolors="navy", label="class +1")
        ax.scatter(*X[y < 0].T, marker="x", color="darkred", label="class -1")
        n_chains, n_samples, _ = result.alphas.shape
        ax.set_title(f"q = {q:g}: {n_chains} x {n_samples} samples, training errors {result.errors.mean():.1f} a "
                     f"sample\nmonitored votes: max R-hat {result.max_rhat:.3f}, min ESS {result.min_ess:.0f}",
                     fontsize=9)
        ax.set_xlabel("$x_1$")
    axes[0, 0].set_ylabel("$x_2$")
    axes[0, 0].plot([], [], color="0.2", lw=0.5, label=f"{n_lines} sampled boundaries")
    axes[0, 0].plot([], [], color="gold", lw=2.5, label="Bayes point (eq. 5)")
    axes[0, 0].legend(loc="lower right", fontsize=8)
    sphere = f": a sphere in {dimension} dimensions" if dimension is not None else ""
    figure.suptitle(f"Figure 3: KGS samples on {m} points (RBF, sigma = {L:g}{sphere}); shade: the vote p+ "
                    f"(red -1, blue +1)")
    return figure, runs


# ---- The sampler against the exact posterior (notebook 08's appendix) --------------------------------------

def exact_sphere_posterior(X, y, q, X_test, n_grid=100_000):
    """The exact posterior of eq. (2) on the sphere in R^3, by quadrature on n_grid nearly equal-area points
    (a Fibonacci lattice): (the probability of each number of training errors 0..m, P(<W, x> > 0) for each row of
    X_test).  The lattice's own error is about 1 / sqrt(n_grid) per probability.
    """
    X, y = _sphere_set(X, y, "")
    X_test = as_matrix(X_test, "X_test")
    if X_test.shape[1] != 3:
        raise ValueError(f"X_test must hold points of R^3, shape (n, 3), got shape {X_test.shape}")
    q = as_flip_rate(q)
    n_grid = as_positive_int(n_grid, "n_grid", minimum=10)
    check_work_budget(n_grid, 10_000_000, "n_grid", n_grid, "quadrature points")
    index = np.arange(n_grid) + 0.5
    z = 1 - 2 * index / n_grid
    azimuth = np.pi * (1 + 5**0.5) * index
    grid = np.column_stack([np.sqrt(1 - z**2) * np.cos(azimuth), np.sqrt(1 - z**2) * np.sin(azimuth), z])
    errors = training_errors(grid @ X.T, y)
    weights = np.exp(log_likelihood(errors, len(y), q) - log_likelihood(errors.min(), len(y), q))
    weights /= weights.sum()
    return np.bincount(errors, weights=weights, minlength=len(y) + 1), (grid @ X_test.T > 0).T.astype(float) @ weights


def step_chains(step, features, y, q, *, n_chains=4, n_samples=1000, thin=1, burn_in=100, random_state=None):
    """Independent chains of a KGS step function, each from its own random start: (n_chains, n_samples, r) unit
    coordinates.  Each step draws a random tangent (step 2) and calls step(features, y, coords, direction, q, rng)
    for steps 3-8 (notebook 08 passes the student's Exercise 8.3); one sample is kept every `thin` steps after
    `burn_in`.
    """
    from ..versionspace import random_tangent

    if not callable(step):
        raise TypeError(f"step must be a function step(features, y, coords, direction, q, rng) -> new coords "
                        f"(Exercise 8.3), got {type(step).__name__}")
    features = as_matrix(features, "features")
    y = as_pm1_labels(y, "y", length=features.shape[0], length_of="features")
    q = as_flip_rate(q)
    n_chains, n_samples = as_positive_int(n_chains, "n_chains"), as_positive_int(n_samples, "n_samples")
    thin, burn_in = as_positive_int(thin, "thin"), as_positive_int(burn_in, "burn_in", minimum=0)
    check_work_budget(n_chains * (burn_in + n_samples * thin), MAX_STEPS, "n_samples", n_samples,
                      "steps (times n_chains, with burn_in and thin)")
    rng = as_generator(random_state)
    samples = np.empty((n_chains, n_samples, features.shape[1]))
    for chain in range(n_chains):
        coords = rng.standard_normal(features.shape[1])
        coords /= np.linalg.norm(coords)
        for t in range(burn_in + n_samples * thin):
            coords = np.asarray(step(features, y, coords, random_tangent(coords, rng), q, rng), dtype=float)
            if t >= burn_in and (t - burn_in) % thin == thin - 1:
                samples[chain, (t - burn_in) // thin] = coords
    return samples


def plot_exact_check(exact_errors, sampled_errors, exact_p, sampled_p, *, who="the", q=None):
    """The sampler against the exact posterior: the distribution of the number of training errors (exact, and the
    share of the samples with each count: `sampled_errors` holds every sample's count) and each test point's
    vote fraction against its exact P(<W, x> > 0).  `who` names whose sampler ran ("your", "the kit's").
    Returns the figure.
    """
    import matplotlib.pyplot as plt

    exact_errors = as_probabilities(exact_errors, "exact_errors", ndim=1)
    sampled_errors = as_vector(sampled_errors, "sampled_errors")
    if np.any(sampled_errors != np.round(sampled_errors)) or np.any(sampled_errors < 0) \
            or np.any(sampled_errors >= len(exact_errors)):
        raise ValueError(f"sampled_errors must hold counts of training errors, 0 to {len(exact_errors) - 1}")
    exact_p = as_probabilities(exact_p, "exact_p", ndim=1)
    sampled_p = as_probabilities(sampled_p, "sampled_p", ndim=1)
    if len(sampled_p) != len(exact_p):
        raise ValueError(f"sampled_p must have one vote fraction per test point ({len(exact_p)}), got {len(sampled_p)}")
    counts = np.arange(len(exact_errors))
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    left.bar(counts - 0.2, exact_errors, 0.4, label="exact (grid)")
    left.bar(counts + 0.2, np.bincount(sampled_errors.astype(int), minlength=len(counts)) / len(sampled_errors), 0.4,
             label=f"{who} KGS, {len(sampled_errors)} samples")
    left.set_xlabel("training errors m R_emp of w")
    left.set_ylabel("posterior probability")
    left.set_title(f"errors under the posterior (m = {len(counts) - 1}" + (f", q = {q:g})" if q is not None else ")"))
    left.legend()
    right.plot(exact_p, sampled_p, ".", ms=4)
    right.plot([0, 1], [0, 1], "k:", lw=1, label="equal")
    right.set_xlabel(r"exact $P(\langle W, x\rangle > 0)$")
    right.set_ylabel(f"vote fraction of {who} chains")
    right.set_title(f"{len(exact_p)} test points")
    right.legend()
    figure.suptitle("The KGS against the exact posterior on the sphere in R^3")
    return figure


def mixing_figure(problems, *, n_steps=3000, burn_in=200, n_lag=40, random_state=None):
    """How fast the KGS forgets: for each problem, `kgslab.kgs.gibbs_run` with 4 chains keeping every step, the
    first 500 steps of one chain's training errors (left) and the autocorrelation of one chain's training errors
    and output on a probe point (right), with the effective sample size of the 4 chains together per 1000 steps.

    `problems` maps a name to (K, y, q, k_probe) with k_probe the (1, m) kernel row of the probe point.  Returns
    (figure, {(name, "training errors" or "output on the test point"): steps per effective sample}).
    """
    import matplotlib.pyplot as plt

    from ..diagnostics import autocorrelation, ess

    if not isinstance(problems, dict) or not problems:
        raise TypeError(f"problems must be a dict {{name: (K, y, q, k_probe)}}, got {type(problems).__name__}")
    n_steps = as_positive_int(n_steps, "n_steps", minimum=4)
    burn_in = as_positive_int(burn_in, "burn_in", minimum=0)
    n_lag = as_positive_int(n_lag, "n_lag")
    rng = as_generator(random_state)
    checked = {}
    for name, problem in problems.items():
        if not isinstance(problem, (tuple, list)) or len(problem) != 4:
            raise TypeError(f"problems[{name!r}] must be (K, y, q, k_probe), got {type(problem).__name__}")
        K, y, q, k_probe = problem
        k_probe = as_float_array(k_probe, f"problems[{name!r}] k_probe", ndim=2)
        if k_probe.shape != (1, np.shape(K)[0]):
            raise ValueError(f"problems[{name!r}] k_probe must be one kernel row (1, {np.shape(K)[0]}), got shape "
                             f"{k_probe.shape}")
        checked[name] = (K, y, as_flip_rate(q), k_probe)
    steps_per_sample = {}
    figure, axes = plt.subplots(len(checked), 2, figsize=(12, 3.25 * len(checked)), layout="constrained",
                                squeeze=False)
    for row, (name, (K, y, q, k_probe)) in enumerate(checked.items()):
        run = gibbs_run(K, y, q, n_steps, burn_in=burn_in, thin=1, random_state=rng)
        m = run.alphas.shape[-1]
        error_trace = training_errors(run.alphas.reshape(-1, m) @ np.asarray(K, dtype=float), y)
        error_trace = error_trace.reshape(run.alphas.shape[:2]).astype(float)       # (chains, steps)
        output_trace = run.alphas @ k_probe[0]                                      # (chains, steps)
        axes[row, 0].plot(error_trace[0, :500], lw=0.8)
        axes[row, 0].set_ylabel("training errors")
        axes[row, 0].set_title(f"{name}: first 500 steps of one chain")
        for trace, label in ((error_trace, "training errors"), (output_trace, "output on the test point")):
            rho = autocorrelation(trace[0], n_lag)
            effective = ess(trace)                                                  # bulk ESS of the 4 chains
            steps_per_sample[name, label] = trace.size / effective
            axes[row, 1].plot(rho, "o-", ms=3, label=f"{label}: n_eff = {effective / trace.size * 1000:.0f} per "
                                                     f"1000 steps")
        axes[row, 1].axhline(0, color="k", lw=0.5)
        axes[row, 1].set_ylabel("autocorrelation (one chain)")
        axes[row, 1].set_title(f"{name}: autocorrelation")
        axes[row, 1].legend(fontsize=8)
    axes[-1, 0].set_xlabel("step")
    axes[-1, 1].set_xlabel("lag (steps)")
    figure.suptitle(f"Mixing of the KGS: traces and autocorrelations (n_eff from 4 chains x {n_steps} steps)")
    return figure, steps_per_sample


class ActiveLearningRun(NamedTuple):
    """Learning curves of query by committee against random queries, and the committees' convergence."""

    curves: dict                # strategy -> (n_repeats, n_queries + 1) test errors of the Bayes point
    chosen_rhat: np.ndarray     # R-hat of the committee's vote on each point the entropy rule chose
    chosen_ess: np.ndarray      # its effective sample size


def active_learning(X_pool, y_pool, X_test, y_test, vote_draws, *, n_start=3, n_queries=16, n_repeats=10,
                    committee=12, thin=5, L=1.0, random_state=None):
    """Section 4's active learning on version space (q = 0), the kit's own experiment: from n_start labelled points
    of each class, query n_queries more from the pool, either the candidate whose vote has the highest binary
    entropy (query by committee) or one at random, and record the Bayes point's test error after each query.

    A committee is 4 independent chains of `committee` samples (`kgslab.kgs.gibbs_run`, RBF kernel of width L);
    its votes on the candidates come from `vote_draws(chain_alphas, K_test)` (notebook 08 passes the student's
    Exercise 8.4).  Both strategies of a repetition start from the same points (a paired comparison).
    """
    from ..diagnostics import ess, rhat
    from ..evidence import binary_entropy

    X_pool = as_matrix(X_pool, "X_pool")
    y_pool = as_pm1_labels(y_pool, "y_pool", length=X_pool.shape[0], length_of="X_pool")
    X_test = as_matrix(X_test, "X_test")
    y_test = as_pm1_labels(y_test, "y_test", length=X_test.shape[0], length_of="X_test")
    if not callable(vote_draws):
        raise TypeError(f"vote_draws must be the function of Exercise 8.4, votes = vote_draws(chain_alphas, "
                        f"K_test), got {type(vote_draws).__name__}")
    n_start, n_queries = as_positive_int(n_start, "n_start"), as_positive_int(n_queries, "n_queries")
    n_repeats, committee = as_positive_int(n_repeats, "n_repeats"), as_positive_int(committee, "committee", minimum=4)
    thin, L = as_positive_int(thin, "thin"), as_scalar(L, "L", low=0.0, low_open=True)
    if 2 * n_start + n_queries > len(y_pool):
        raise ValueError(f"n_queries must leave candidates in the pool: {2 * n_start} + {n_queries} > "
                         f"{len(y_pool)} points")
    rng = as_generator(random_state)
    curves = {"highest entropy": np.zeros((n_repeats, n_queries + 1)), "random": np.zeros((n_repeats, n_queries + 1))}
    chosen_rhat, chosen_ess = [], []
    for repeat in range(n_repeats):
        first = np.concatenate([rng.choice(np.flatnonzero(y_pool > 0), n_start, replace=False),
                                rng.choice(np.flatnonzero(y_pool < 0), n_start, replace=False)])
        for strategy, curve in curves.items():
            labelled = list(first)
            for round_ in range(n_queries + 1):
                alphas = gibbs_run(rbf_kernel(X_pool[labelled], L=L), y_pool[labelled], 0.0, committee, thin=thin,
                                   random_state=rng).alphas                        # (4, committee, labelled)
                bayes_point = rbf_kernel(X_test, X_pool[labelled], L=L) @ alphas.mean(axis=(0, 1))
                curve[repeat, round_] = np.mean(np.where(bayes_point > 0, 1.0, -1.0) != y_test)
                if round_ == n_queries:
                    break
                candidates = np.setdiff1d(np.arange(len(X_pool)), labelled)
                if strategy == "random":
                    labelled.append(int(rng.choice(candidates)))
                else:
                    votes = np.asarray(vote_draws(alphas, rbf_kernel(X_pool[candidates], X_pool[labelled], L=L)))
                    query = int(np.argmax(binary_entropy(votes.mean(axis=(0, 1)))))
                    chosen_rhat.append(rhat(votes[:, :, query]))
                    chosen_ess.append(ess(votes[:, :, query]))
                    labelled.append(int(candidates[query]))
    return ActiveLearningRun(curves, np.asarray(chosen_rhat, dtype=float), np.asarray(chosen_ess, dtype=float))


def plot_active_learning(entropy_map, extent, X, y, run, *, n_start=3):
    """Active learning, drawn: the binary entropy of the vote over the plane with the training points (left) and the
    learning curves of `active_learning` (mean and standard error over the repetitions, right), the committees'
    median R-hat and effective sample size in the title.  Returns the figure.
    """
    import matplotlib.pyplot as plt

    entropy_map = as_float_array(entropy_map, "entropy_map", ndim=2)
    extent = as_vector(extent, "extent", length=4, length_of="(x1 min, x1 max, x2 min, x2 max)")
    X = as_matrix(X, "X")
    y = as_pm1_labels(y, "y", length=X.shape[0], length_of="X")
    if not isinstance(run, ActiveLearningRun):
        raise TypeError(f"run must be the ActiveLearningRun that active_learning returns, got {type(run).__name__}")
    figure, (left, right) = plt.subplots(1, 2, figsize=(13, 4.5))
    image = left.imshow(entropy_map, origin="lower", extent=tuple(extent), cmap="magma", aspect="auto")
    figure.colorbar(image, ax=left, label="binary entropy of the vote (bits)")
    left.scatter(*X[y > 0].T, marker="o", facecolors="none", edgecolors="cyan", label="class +1")
    left.scatter(*X[y < 0].T, marker="x", color="white", label="class -1")
    left.set_xlabel("$x_1$")
    left.set_ylabel("$x_2$")
    left.set_title("entropy S(x, z) of the vote: where a label is worth most")
    left.legend(fontsize=8, loc="lower right", facecolor="0.55")   # grey: the white marker shows
    for strategy, curve in run.curves.items():
        n_repeats, rounds = curve.shape
        right.errorbar(np.arange(rounds) + 2 * n_start, curve.mean(axis=0), curve.std(axis=0) / np.sqrt(n_repeats),
                       marker="o", ms=3, capsize=2, label=f"query the {strategy} point")
    right.set_xlabel("number of labelled points")
    right.set_ylabel("test error of the Bayes point")
    right.set_title(f"Active learning ({n_repeats} repetitions, mean ± s.e.)\nvote on the chosen points: median "
                    f"R-hat {np.median(run.chosen_rhat):.2f}, median ESS {np.median(run.chosen_ess):.0f}",
                    fontsize=10)
    right.legend()
    return figure


# ---- Section 4: the evidence by thermodynamic integration ---------------------------------------------------

def _as_evidence_run(run, name="run"):
    if not isinstance(run, EvidenceRun):
        raise TypeError(f"{name} must be the EvidenceRun that kgslab.evidence.evidence_run returns, got "
                        f"{type(run).__name__}")
    return run


def _as_flip_grid(q, run, name="q"):
    q = as_float_array(q, name, ndim=1)
    if len(q) != len(run.log_evidence) or np.any(q <= 0) or np.any(q >= 0.5):
        raise ValueError(f"{name} must be the flip rates in (0, 0.5) the run was made for ({len(run.log_evidence)} "
                         f"of them), got {q.tolist()[:8]}")
    return q


def evidence_figure(run, q, *, marked=None, truth=None, title="the evidence by thermodynamic integration"):
    """Thermodynamic integration, drawn (section 4's evidence): ln E_W[L] = m ln(1-q) - int_0^t E_s[e] ds.

    Left: the mean training errors E_s[e] of each rung of the ladder against its inverse temperature s (with
    2 Monte Carlo standard errors; rung 0, the prior, is exact at m/2), and, for the flip rate `marked`, the area
    under the curve up to t = ln((1-q)/q) that the log evidence subtracts.  Right: ln evidence against q (2
    standard errors), a dotted line at `truth` (the flip rate that made the labels) when given.  `run` is an
    `EvidenceRun` of `kgslab.evidence.evidence_run` for the flip rates q.  Returns the figure.
    """
    import matplotlib.pyplot as plt

    run = _as_evidence_run(run)
    q = _as_flip_grid(q, run)
    figure, (left, right) = plt.subplots(1, 2, figsize=(13, 4.6), layout="constrained")
    left.errorbar(run.ladder, run.mean_errors, 2 * run.mc_error, marker="o", ms=3, capsize=2, color="C0",
                  label="E_s[e]: mean training errors of the rung's samples (± 2 s.e.)")
    if marked is not None:
        marked = as_flip_rate(marked)
        t = float(np.log((1 - marked) / marked))
        inside = run.ladder <= t
        s = np.append(run.ladder[inside], t)
        area = np.append(run.mean_errors[inside], np.interp(t, run.ladder, run.mean_errors))
        left.fill_between(s, area, color="C0", alpha=0.2,
                          label=f"the integral up to t = ln((1-q)/q) = {t:.2f} (q = {marked:g})")
        left.axvline(t, color="C0", ls=":", lw=1)
    left.set_xlabel("inverse temperature s (rung s samples the posterior of flip rate 1 / (1 + e^s))")
    left.set_ylabel("mean training errors E_s[e]")
    left.set_title(f"{len(run.ladder)} rungs from the prior (s = 0, E_0[e] = m/2) to q = {q.min():g}")
    left.legend(fontsize=8)
    right.errorbar(q, run.log_evidence, 2 * run.standard_error, marker="o", ms=3, capsize=2, color="C0",
                   label="ln evidence (± 2 s.e.)")
    if truth is not None:
        right.axvline(as_flip_rate(truth), color="grey", ls=":", label=f"true flip rate {truth:g}")
    right.set_xlabel("assumed flip rate q")
    right.set_ylabel("ln evidence  ln E_W[L(W, z)]")
    right.set_title(f"best q in this run: {q[int(np.argmax(run.log_evidence))]:g}")
    right.legend(fontsize=8)
    figure.suptitle(title)
    return figure


def replica_exchange_figure(runs, q):
    """Replica exchange, drawn: ln evidence against q for each run (left, 2 standard errors) and each rung's
    R-hat of the error count against its flip rate (right, log axis), with the smallest effective sample size and
    the range of swap acceptances in the legend.  `runs` maps a name to an `EvidenceRun` (tempered=True) for the
    flip rates q.  Returns the figure.
    """
    import matplotlib.pyplot as plt

    if not isinstance(runs, dict) or not runs:
        raise TypeError(f"runs must be a dict {{name: EvidenceRun}}, got {type(runs).__name__}")
    runs = {name: _as_evidence_run(run, f"runs[{name!r}]") for name, run in runs.items()}
    q = _as_flip_grid(q, next(iter(runs.values())))
    figure, (left, right) = plt.subplots(1, 2, figsize=(13, 5.4), layout="constrained")
    for k, (name, run) in enumerate(runs.items()):
        left.errorbar(q, run.log_evidence, 2 * run.standard_error, marker="o", ms=3, capsize=2, color=f"C{k}",
                      label=name)
        swaps = ("" if run.swap_acceptance is None else
                 f", swaps {run.swap_acceptance.min():.0%}-{run.swap_acceptance.max():.0%}")
        right.plot(1 / (1 + np.exp(run.ladder[1:])), run.rhat, marker="o", ms=3, color=f"C{k}",
                   label=f"{name}: smallest ESS {run.smallest_ess:.0f} of {run.error_draws[..., 0].size}{swaps}")
    left.set_xlabel("assumed flip rate q")
    left.set_ylabel("ln evidence  ln E_W[L(W, z)]")
    left.set_title("ln evidence (± 2 s.e.)")
    left.legend(fontsize=8)
    right.axhline(1.1, color="grey", ls="--", lw=1, label="R-hat = 1.1")
    right.set_xscale("log")
    right.set_xlabel("flip rate 1 / (1 + e^s) of the rung (log axis)")
    right.set_ylabel("R-hat of the error count")
    right.set_title("Did each rung's chains agree?")
    right.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.16))   # below the axes: no line hidden
    figure.suptitle("Replica exchange: the rungs run together and swap their states")
    return figure

"""Experiments and figures of the kernel Gibbs sampler paper (seed 001, Graepel and Herbrich, NIPS 2000).

Figures 1-3 are drawn by `figure1` (the posterior over the sphere in R^3, eq. 3), `figure2` (one step of the
sampler, section 3: the great circle on that map and the arcs unrolled) and `figure3` (sampled decision boundaries
for several noise levels, with the vote of eq. 4 and the Bayes point of eq. 5); notebook 08 calls them with the
student's own functions' results.  `plot_figure4` draws the runs of `figure4`.  The studies of the sampler
beyond the paper's figures (against the exact posterior, mixing, active learning, the evidence) are in
`kgslab.papers.kgs2000_studies`.

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
from .._validation import (as_flip_rate, as_float_array, as_generator, as_labelled_points_in_r3, as_matrix,
                           as_pm1_labels, as_positive_int, as_probabilities, as_scalar, as_unit_vector, as_vector,
                           check_work_budget)
from ..evidence import log_likelihood, training_errors
from ..kernels import linear_kernel, rbf_kernel
from .._kgs_engine import MAX_STEPS
from ..kgs import gibbs_run
from ..versionspace import kernel_coordinates as _kernel_coordinates, max_margin

__all__ = ["quadratic_svm", "figure1", "figure2", "figure3", "Figure3Run", "zero_lines", "figure4", "figure4_full",
           "write_figure4", "plot_figure4", "FIGURE4_Q", "FIGURE4_LAMBDA", "FIGURE4_FILE", "FIGURE4_COMMAND",
           "SPHERE_GRID"]

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
        checked[name] = as_labelled_points_in_r3(pair[0], pair[1], f"sets[{name!r}]")
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

    X, y = as_labelled_points_in_r3(X, y)
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

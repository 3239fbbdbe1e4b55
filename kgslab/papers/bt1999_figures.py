"""The figures of the Bayesian transduction paper (seed 002, Graepel, Herbrich and Obermayer, NIPS 1999) that
notebook 09 draws: the paper's Figure 1 for a toy, the billiard's flight on the sphere and in a gnomonic map,
Figure 2, and two figures of its appendix.

`figure1` and `flight_figure` draw the toy of Figure 1: points x = (x1, x2) of the plane lifted to
(x1, x2, 1), so that a line of the plane is a point w of the unit sphere in R^3 and a training point is the
great circle <w, (x1, x2, 1)> = 0 (the duality of section 2); version space is the spherical polygon those
circles bound.  The gnomonic map projects the sphere onto the plane tangent at the middle of version space,
where great circles become straight lines, so the billiard's flights are straight and its walls are lines.
`figure2` draws the paper's Figure 2 (error on the accepted points against the rejection rate) from
`kgslab.papers.bt1999.bounce_study` results; `bounce_error_figure` the measured error of volume estimates
against Hoeffding's deviation (eq. 8); `confidence_scatter` the two confidence measures of one split.  The
experiments behind them are in `kgslab.papers.bt1999`; the slider on the rejection threshold is
`kgslab.widgets.rejection_panel`.
"""

from __future__ import annotations

import numpy as np

from .._validation import (as_correct_flags, as_generator, as_matrix, as_pm1_labels, as_positive_int, as_scalar,
                           as_vector)
from .bt1999 import PAPER_SIGMA, study_curves

__all__ = ["figure1", "flight_figure", "figure2", "bounce_error_figure", "confidence_scatter"]


# ---- Figure 1 and the flight (the toy in the plane and on the sphere) -------------------------------------

def _lift(X):
    """x -> (x1, x2, 1): a line w1 x1 + w2 x2 + w3 = 0 of the plane is the point w of R^3."""
    return np.column_stack([X, np.ones(len(X))])


def _toy(X, y, x_test, points, points_name):
    """The toy's arguments checked: X (n, 2), y +-1, x_test (1, 2), points on the sphere (k, 3)."""
    X = as_matrix(X, "X")
    if X.shape[1] != 2:
        raise ValueError(f"X must be an (n, 2) array of points in the plane, got shape {X.shape}")
    y = as_pm1_labels(y, "y", length=X.shape[0], length_of="X")
    x_test = as_matrix(x_test, "x_test")
    if x_test.shape != (1, 2):
        raise ValueError(f"x_test must be one point of the plane, shape (1, 2), got shape {x_test.shape}")
    points = as_matrix(points, points_name)
    if points.shape[1] != 3 or len(points) == 0:
        raise ValueError(f"{points_name} must be a non-empty (k, 3) array of points of the sphere, got shape "
                         f"{points.shape}")
    return X, y, x_test, points


def _middle(inside):
    """The middle of version space (the normalised mean of points inside it): where the view looks from."""
    mean = inside.mean(axis=0)
    norm = np.linalg.norm(mean)
    if norm == 0:
        raise ValueError("inside must lie in a region of the sphere (its points average to 0, no middle)")
    return mean / norm


def _great_circle(normal, n=400):
    """Points w of the unit sphere with <w, normal> = 0."""
    normal = normal / np.linalg.norm(normal)
    first = np.cross(normal, [0.0, 0.0, 1.0] if abs(normal[2]) < 0.9 else [1.0, 0.0, 0.0])
    first /= np.linalg.norm(first)
    second = np.cross(normal, first)
    angle = np.linspace(0, 2 * np.pi, n)
    return np.outer(np.cos(angle), first) + np.outer(np.sin(angle), second)


def _sphere_axes(axes, centre):
    """A faint wire sphere seen from the direction of version space, without the box."""
    u, v = np.meshgrid(np.linspace(0, 2 * np.pi, 25), np.linspace(0, np.pi, 13))
    axes.plot_wireframe(np.cos(u) * np.sin(v), np.sin(u) * np.sin(v), np.cos(v), color="0.85", lw=0.4)
    elevation, azimuth = np.degrees(np.arcsin(centre[2])), np.degrees(np.arctan2(centre[1], centre[0]))
    axes.view_init(elev=elevation + 15, azim=azimuth + 20)
    axes.set_box_aspect((1, 1, 1))
    axes.set_axis_off()


def _walls_on_sphere(axes, X, y, x_test, centre):
    """The training points' great circles (blue +1, red -1) and the test point's (gold), front half only."""
    front = lambda P: P[P @ centre > -0.05]
    for wall, label in zip(y[:, None] * _lift(X), y):
        axes.plot(*front(_great_circle(wall)).T, ".", ms=0.8, color="tab:blue" if label > 0 else "tab:red")
    axes.plot(*front(_great_circle(_lift(x_test)[0])).T, ".", ms=1.5, color="goldenrod")


def figure1(X, y, x_test, inside, p_plus, *, random_state=None):
    """Figure 1 of the paper for a toy: data space (12 separating lines) beside parameter space (the sphere).

    `inside` holds points of the sphere inside version space (uniform draws that passed every wall); they are
    split by the test point's label into V+ and V- (eq. 6's volumes) and 12 of them are drawn as lines in
    the plane.  `p_plus` is the test point's exact p+ for the legend.  Draws with pyplot; returns the Figure.
    """
    import matplotlib.pyplot as plt

    X, y, x_test, inside = _toy(X, y, x_test, inside, "inside")
    p_plus = as_scalar(p_plus, "p_plus", low=0.0, high=1.0)
    rng = as_generator(random_state)
    centre = _middle(inside)
    says_plus = inside @ _lift(x_test)[0] > 0
    figure = plt.figure(figsize=(12, 6), layout="constrained")
    left = figure.add_subplot(1, 2, 1)
    grid = np.linspace(-2.5, 2.5, 2)
    for w in inside[rng.choice(len(inside), min(12, len(inside)), replace=False)]:
        left.plot(grid, -(w[0] * grid + w[2]) / w[1], color="0.6", lw=0.8)
    left.plot([], [], color="0.6", lw=0.8, label="12 perceptrons from version space")
    left.scatter(*X[y > 0].T, s=70, c="tab:blue", label="class +1")
    left.scatter(*X[y < 0].T, s=70, c="tab:red", marker="s", label="class -1")
    left.scatter(*x_test.T, s=250, c="gold", marker="*", edgecolor="k", label=f"test point (p+ = {p_plus:.2f})")
    left.set(xlim=(-2.5, 2.5), ylim=(-2.5, 2.5), xlabel="$x_1$", ylabel="$x_2$",
             title="data space: points,\nand lines that separate them")
    left.legend(loc="lower left", fontsize=8)

    right = figure.add_subplot(1, 2, 2, projection="3d")
    _sphere_axes(right, centre)
    _walls_on_sphere(right, X, y, x_test, centre)
    shown = rng.choice(len(inside), min(3000, len(inside)), replace=False)
    right.scatter(*inside[shown][says_plus[shown]].T, s=2, c="tab:green", label="$V^+$ (test point labelled +1)")
    right.scatter(*inside[shown][~says_plus[shown]].T, s=2, c="tab:purple", label="$V^-$ (labelled -1)")
    right.plot([], [], color="tab:blue", label="great circles of class +1 points")
    right.plot([], [], color="tab:red", label="great circles of class -1 points")
    right.plot([], [], color="goldenrod", label="the test point's great circle")
    right.set_title("parameter space: the unit sphere $\\|w\\| = 1$ in $R^3$,\nversion space $V = V^+ \\cup V^-$")
    right.legend(loc="lower left", fontsize=7)
    figure.suptitle("Figure 1 of the paper for a toy: points become great circles, version space a region")
    return figure


def _slerp(corners, n_per_arc=12):
    """The great-circle arcs between consecutive points of the sphere, n_per_arc points each."""
    t = np.linspace(0, 1, n_per_arc)[:, None]
    arcs = []
    for start, end in zip(corners[:-1], corners[1:]):
        angle = np.arccos(np.clip(start @ end, -1, 1))
        if angle < 1e-9:
            continue
        arcs.append((np.sin((1 - t) * angle) * start + np.sin(t * angle) * end) / np.sin(angle))
    return np.vstack(arcs) if arcs else corners[:1].copy()


def flight_figure(X, y, x_test, alphas, inside, *, title="", n_highlight=25):
    """The billiard's flight on the sphere (left) and in the gnomonic map (right); returns (Figure, path).

    `alphas` are the ball's coefficients at every event (a bounce or a refresh), one row each, as
    `KernelBilliard.run(..., record=True)` gives them for the linear kernel on the lifted points; w = alpha
    @ lift(X).  Between events the ball flies on great circles: `path` holds those arcs (12 points each, in
    R^3), as drawn, so a caller can check what was drawn.  The first `n_highlight` flights are green.
    """
    import matplotlib.pyplot as plt

    X, y, x_test, inside = _toy(X, y, x_test, inside, "inside")
    alphas = as_matrix(alphas, "alphas")
    if alphas.shape[1] != len(y) or len(alphas) < 2:
        raise ValueError(f"alphas must hold at least two events of {len(y)} coefficients (one per training "
                         f"point), got shape {alphas.shape}")
    if not isinstance(title, str):
        raise TypeError(f"title must be a str, got {title!r:.60}")
    n_highlight = as_positive_int(n_highlight, "n_highlight")
    corners = alphas @ _lift(X)
    norms = np.linalg.norm(corners, axis=1)
    if np.any(norms == 0):
        raise ValueError("alphas must give points w = alpha @ lift(X) off the origin (a zero row has no direction)")
    corners = corners / norms[:, None]
    path = _slerp(corners)
    centre = _middle(inside)
    first = 12 * n_highlight
    figure = plt.figure(figsize=(12, 6), layout="constrained")
    sphere = figure.add_subplot(1, 2, 1, projection="3d")
    _sphere_axes(sphere, centre)
    _walls_on_sphere(sphere, X, y, x_test, centre)
    sphere.plot(*path.T, color="k", lw=0.3, alpha=0.35, label=f"{len(alphas) - 1} flights")
    sphere.plot(*path[:first].T, color="tab:green", lw=1.5, label=f"the first {n_highlight} flights")
    sphere.set_title("the ball on the sphere")
    sphere.legend(loc="lower left", fontsize=8)

    basis_1 = np.cross(centre, [0, 0, 1.0])
    basis_1 /= np.linalg.norm(basis_1)
    basis_2 = np.cross(centre, basis_1)

    def gnomonic(P):                       # onto the plane tangent at the centre: great circles become lines
        P = P / (P @ centre)[:, None]
        return np.column_stack([P @ basis_1, P @ basis_2])

    plane = figure.add_subplot(1, 2, 2)
    for wall, label in zip(y[:, None] * _lift(X), y):
        circle = _great_circle(wall)
        plane.plot(*gnomonic(circle[circle @ centre > 0.3]).T, ".", ms=1, color="tab:blue" if label > 0 else "tab:red")
    circle = _great_circle(_lift(x_test)[0])
    plane.plot(*gnomonic(circle[circle @ centre > 0.3]).T, ".", ms=1.5, color="goldenrod", label="test point's circle")
    ahead = path[path @ centre > 0.05]                 # the map holds the hemisphere facing the centre
    plane.plot(*gnomonic(ahead).T, color="k", lw=0.3, alpha=0.35, label=f"{len(alphas) - 1} flights")
    plane.plot(*gnomonic(path[:first][path[:first] @ centre > 0.05]).T, color="tab:green", lw=1.5,
               label=f"the first {n_highlight} flights")
    plane.scatter(*gnomonic(corners[:1]).T, c="lime", edgecolor="k", s=60, zorder=3, label="start: hard-margin solution")
    projected = gnomonic(inside)
    pad = 0.3 * np.ptp(projected, axis=0)
    plane.set(xlim=(projected[:, 0].min() - pad[0], projected[:, 0].max() + pad[0]),
              ylim=(projected[:, 1].min() - pad[1], projected[:, 1].max() + pad[1]),
              xlabel="gnomonic coordinate 1", ylabel="gnomonic coordinate 2",
              title="gnomonic map: walls are lines, version space a polygon")
    plane.legend(fontsize=8, loc="lower right")
    figure.suptitle("The kernel billiard in version space (linear kernel on $(x_1, x_2, 1)$)"
                    + (f": {title}" if title else ""))
    return figure, path


# ---- Figure 2: error against rejection rate ----------------------------------------------------------------

def _figure2_style(label, levels):
    """(legend text, colour, line style) of one of `study_curves`' lines."""
    if label in ("svm", "svm0"):
        return (f"SVM {'with' if label == 'svm' else 'without'} bias, $|f(x)|$",
                "tab:red" if label == "svm" else "tab:orange", "-")
    level = label.split(" ", 1)[1]
    if level == "auto":
        return "transduction, 'auto': exact HMC, 8 chains to convergence", "k", "--"
    n = int(level)
    return (f"transduction, {f'{n:,}'.replace(',', ' ') if n >= 10_000 else n} bounces", "tab:blue",
            "-" if n == max(levels) else ":")


def figure2(committed, this_run=None, *, curve=None, paper_theta_max=None):
    """Figure 2 of the paper, one panel per data set: the committed run's curves with error bars (one standard
    error of the mean over its splits) and, thin and dashed, two curves of `this_run` (the SVM with bias and
    transduction after the most bounces).

    `committed` and `this_run` map a data set's name to a `bounce_study` result; `curve` is the function that
    turns one split's confidences into the curve (the student's error_rejection_curve; default the kit's);
    `paper_theta_max` maps a name to the paper's theta_max, quoted in the panel's title.  The SVMs' thresholds
    run up to the theta_max at which they reject as many points as transduction at theta = 1.  Returns (Figure,
    theta_max) with theta_max[source, name] = {"svm": ..., "svm0": ...}, source "committed" or "this run".
    """
    import matplotlib.pyplot as plt

    runs = {"committed": committed, "this run": {} if this_run is None else this_run}
    for argument, value in (("committed", committed), ("this_run", runs["this run"])):
        if not isinstance(value, dict) or (argument == "committed" and not value):
            raise TypeError(f"{argument} must be a dict {{data set name: bounce_study result}}"
                            f"{' with at least one entry' if argument == 'committed' else ''}, got {value!r:.60}")
    if set(runs["this run"]) - set(committed):
        raise ValueError(f"this_run must hold data sets of committed ({sorted(committed)}), got "
                         f"{sorted(runs['this run'])}")
    if paper_theta_max is not None and not isinstance(paper_theta_max, dict):
        raise TypeError(f"paper_theta_max must be None or a dict {{name: theta_max}}, got {paper_theta_max!r:.60}")
    curves, theta_max = {}, {}
    for source, studies in runs.items():
        for name, study in studies.items():
            try:
                curves[source, name], theta_max[source, name] = study_curves(study, curve=curve)
            except (TypeError, ValueError) as err:   # say which study it was
                raise type(err)(f"{'committed' if source == 'committed' else 'this_run'}[{name!r}]: {err}") from err
    figure, axes = plt.subplots(1, len(committed), figsize=(6.5 * len(committed), 5), layout="constrained",
                                squeeze=False)
    for ax, name in zip(axes[0], committed):
        study = committed[name]
        levels = [int(level) for level in study["levels"]]
        for label, line in curves["committed", name].items():
            text, colour, dash = _figure2_style(label, levels)
            ax.errorbar(100 * line["rejection"], 100 * line["error"], yerr=100 * line["error_sem"], color=colour,
                        ls=dash, marker=".", ms=3, lw=1.2, elinewidth=0.5, label=text)
        if ("this run", name) in curves:
            own = runs["this run"][name]
            for label in ("svm", f"trans {int(own['levels'][-1])}"):
                line = curves["this run", name][label]
                text, colour, _ = _figure2_style(label, [int(level) for level in own["levels"]])
                ax.plot(100 * line["rejection"], 100 * line["error"], color=colour, ls="--", lw=0.8, alpha=0.6,
                        label=f"{text}, this run ({len(own['y_test'])} splits)")
        sigma = PAPER_SIGMA.get(name)
        paper = (paper_theta_max or {}).get(name)
        width = f" ($\\sigma$ = {sigma:g})" if sigma else ""
        ax.set(xlabel="rejection rate (%)", ylabel="error on accepted points (%)",
               title=f"{name}{width}, committed run: {len(study['y_test'])} splits; $\\theta_{{max}}$ "
                     f"{theta_max['committed', name]['svm']:.2f}" + (f" (paper {paper})" if paper is not None else ""))
        ax.grid(alpha=0.3)
        handles, labels = ax.get_legend_handles_labels()
        order = sorted(range(len(labels)), key=lambda k: "this run" in labels[k])   # the committed curves first
        ax.legend([handles[k] for k in order], [labels[k] for k in order], fontsize=8)
    figure.suptitle("Figure 2: error against rejection rate; error bars: one standard error of the mean over the "
                    "committed run's splits")
    return figure, theta_max


# ---- the appendix's figures: the error against eq. (8), and the two confidences of one split ----------------

def bounce_error_figure(checkpoints, errors, *, eta=0.01, epsilon=0.05, title=""):
    """The worst |p+ estimate - exact| of several runs after n bounces (mean and range over the runs) against
    Hoeffding's deviation epsilon(n) = sqrt(ln(1/eta) / 2n) (eq. 8 read the other way), with a line at the n
    eq. (8) asks for `epsilon`.  `errors` is (runs, len(checkpoints)).  Returns the Figure."""
    import matplotlib.pyplot as plt

    checkpoints = as_vector(checkpoints, "checkpoints")
    if np.any(checkpoints <= 0):
        raise ValueError(f"checkpoints must be numbers of bounces > 0, got {float(np.min(checkpoints)):g}")
    errors = as_matrix(errors, "errors")
    if errors.shape[1] != len(checkpoints):
        raise ValueError(f"errors must have one column per entry of checkpoints ({len(checkpoints)}), got shape "
                         f"{errors.shape}")
    eta = as_scalar(eta, "eta", low=0.0, high=1.0, low_open=True, high_open=True)
    epsilon = as_scalar(epsilon, "epsilon", low=0.0, high=1.0, low_open=True)
    if not isinstance(title, str):
        raise TypeError(f"title must be a str, got {title!r:.60}")
    n_hoeffding = int(np.ceil(np.log(1.0 / eta) / (2.0 * epsilon ** 2)))
    runs = len(errors)
    figure, ax = plt.subplots(figsize=(7, 4.5))
    ax.loglog(checkpoints, errors.mean(axis=0), "o-", label=f"billiard: worst |p+ estimate - exact| (mean of {runs} runs)")
    ax.fill_between(checkpoints, errors.min(axis=0), errors.max(axis=0), alpha=0.2, label=f"range over the {runs} runs")
    ax.loglog(checkpoints, np.sqrt(np.log(1.0 / eta) / (2.0 * checkpoints)), "k--",
              label=f"Hoeffding's epsilon(n), eta = {eta:g} (eq. 8)")
    ax.axvline(n_hoeffding, color="0.5", lw=0.8)
    ax.text(n_hoeffding * 1.1, 0.3, f"n = {n_hoeffding}:\nepsilon = {epsilon:g}", fontsize=8)
    ax.set(xlabel="number of bounces n", ylabel="deviation from the exact volume ratio",
           title=title or "How many bounces the volume estimate needs")
    ax.legend(fontsize=8, loc="lower left")          # the upper right holds the label of Hoeffding's n
    return figure


def confidence_scatter(svm_confidence, c_trans, correct, *, title=""):
    """Each test point's SVM confidence |f(x)| (log scale) against its transductive confidence c_trans (eq. 7),
    the points transduction labels wrongly marked.  Returns the Figure."""
    import matplotlib.pyplot as plt

    svm_confidence = as_vector(svm_confidence, "svm_confidence")
    c_trans = as_vector(c_trans, "c_trans", length=len(svm_confidence), length_of="svm_confidence")
    correct = as_correct_flags(correct, "correct", len(svm_confidence))
    if np.any(svm_confidence <= 0):
        raise ValueError("svm_confidence must be > 0 (|f(x)| on a log scale), got "
                         f"{float(np.min(svm_confidence)):g}")
    if not isinstance(title, str):
        raise TypeError(f"title must be a str, got {title!r:.60}")
    figure, ax = plt.subplots(figsize=(7, 4.5))
    ax.scatter(svm_confidence[correct], c_trans[correct], s=18, label="transduction correct")
    ax.scatter(svm_confidence[~correct], c_trans[~correct], s=60, marker="x", c="red", label="transduction wrong")
    ax.set_xscale("log")
    ax.set(xlabel="SVM confidence $c_{ind} = |f(x)|$ (log scale)", ylabel="transduction confidence $c_{trans}$ (eq. 7)",
           title=title or "the two confidence measures")
    ax.legend()
    return figure

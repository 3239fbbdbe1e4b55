"""Panel for notebook 08 (the kernel Gibbs sampler): a slider on the assumed flip rate q.

`kgs_panel` draws Figure 3 of the KGS paper live: the training points, the decision
boundaries {x : <w_j, x> = 0} of n_samples classifiers sampled by the KGS at the slider's q,
the vote p+ of the samples as the background shade (eq. 4) and the Bayes point's boundary
(eq. 5).  Raising q lets the samples make training errors, so the boundaries spread out and
the vote turns uncertain over a wider band.  The report gives the mean training errors per
sample, the training errors of the vote and of the Bayes point, and the mean binary entropy
of the vote over the plotted window.
"""

from __future__ import annotations

import numpy as np
from matplotlib.collections import LineCollection
from .._blas import blas_threads

from ..data.kgs import kgs_76_points
from .._validation import (as_matrix, as_pm1_labels, as_positive_int, as_scalar,
                           check_random_state_kind)
from ..evidence import binary_entropy, training_errors
from ..kernels import rbf_kernel
from ..kgs import gibbs_sample
from ..papers.kgs2000 import zero_lines
from .base import Panel, float_slider

__all__ = ["kgs_panel"]


def kgs_panel(X=None, y=None, *, q: float = 0.1, L: float = 1.0, n_samples: int = 50, burn_in: int = 100,
              thin: int = 10, grid_size: int = 90, random_state=0) -> Panel:
    """Sampled decision boundaries, the vote and the Bayes point with a slider on q (Figure 3).

    Without data, uses the kit's 76-point set (`kgslab.data.kgs_76_points`) with the paper's
    RBF kernel of width L = 1.  Every redraw samples afresh with the same `random_state`, so a
    slider position always shows the same picture.
    """
    if X is None and y is None:
        X, y = kgs_76_points()
    elif X is None or y is None:
        raise ValueError("kgs_panel needs both X and y, or neither")
    X = as_matrix(X, "X")
    if X.shape[1] != 2:
        raise ValueError(f"X must be an (m, 2) array of points in the plane, got shape {X.shape}")
    y = as_pm1_labels(y, "y", length=X.shape[0], length_of="X")
    L = as_scalar(L, "L", low=0.0, low_open=True)
    n_samples = as_positive_int(n_samples, "n_samples")
    burn_in = as_positive_int(burn_in, "burn_in", minimum=0)
    thin = as_positive_int(thin, "thin")
    grid_size = as_positive_int(grid_size, "grid_size", minimum=2)
    check_random_state_kind(random_state)
    q_slider = float_slider("assumed flip rate q", q, 0.0, 0.45, 0.05, name="q")  # refuses a q off its range
    gram = rbf_kernel(X, L=L)
    pad = 0.5
    x_grid = np.linspace(X[:, 0].min() - pad, X[:, 0].max() + pad, grid_size)
    y_grid = np.linspace(X[:, 1].min() - pad, X[:, 1].max() + pad, grid_size)
    grid_points = np.column_stack([np.tile(x_grid, grid_size), np.repeat(y_grid, grid_size)])
    grid_kernel = rbf_kernel(grid_points, X, L=L)
    cache: dict[float, np.ndarray] = {}

    def draw(figure, q):
        # Fixed margins instead of the panel's constrained layout: measuring every tick label
        # twice per redraw took about half of the redraw time.
        figure.set_layout_engine("none")
        axes = figure.add_axes((0.1, 0.1, 0.87, 0.78))  # left, bottom, width, height
        key = round(float(q), 6)
        try:
            if key not in cache:
                with blas_threads():
                    cache[key] = gibbs_sample(gram, y, key, n_samples, burn_in=burn_in, thin=thin,
                                              random_state=random_state)
        except ValueError as err:  # e.g. q = 0 without a version space: show the sampler's own message
            axes.text(0.5, 0.5, str(err), ha="center", va="center", wrap=True, transform=axes.transAxes)
            return {"q": float(q), "error": str(err)}
        alphas = cache[key]
        outputs = grid_kernel @ alphas.T  # (n_grid, n_samples)
        p_plus = np.mean(outputs > 0, axis=1).reshape(grid_size, grid_size)
        bayes_point = alphas.mean(axis=0)
        axes.imshow(p_plus, origin="lower", extent=(x_grid[0], x_grid[-1], y_grid[0], y_grid[-1]),
                            cmap="RdBu", vmin=0, vmax=1, alpha=0.55, aspect="auto")
        # (no colorbar: a second axes doubles the layout time of every redraw; the title says it)
        lines = []
        for j in range(n_samples):
            lines.extend(zero_lines(outputs[:, j].reshape(grid_size, grid_size), x_grid, y_grid))
        # autolim=False: the limits are set below, so matplotlib need not scan every path
        axes.add_collection(LineCollection(lines, colors="0.2", linewidths=0.5, alpha=0.45,
                                           label=f"{n_samples} sampled boundaries"), autolim=False)
        bayes_lines = zero_lines((grid_kernel @ bayes_point).reshape(grid_size, grid_size), x_grid, y_grid)
        axes.add_collection(LineCollection(bayes_lines, colors="gold", linewidths=2.5, label="Bayes point (eq. 5)"),
                            autolim=False)
        axes.scatter(*X[y > 0].T, marker="o", facecolors="none", edgecolors="navy", label="class +1")
        axes.scatter(*X[y < 0].T, marker="x", color="darkred", label="class -1")
        axes.set_xlim(x_grid[0], x_grid[-1])
        axes.set_ylim(y_grid[0], y_grid[-1])
        axes.set_xlabel("$x_1$")
        axes.set_ylabel("$x_2$")
        axes.set_title(f"KGS samples for q = {q:.2f} (RBF, sigma = {L:g}, m = {len(y)})\n"
                       "shade: vote p+ from red (all samples say -1) to blue (all say +1)", fontsize=10)
        axes.legend(loc="upper right", fontsize=8, framealpha=0.8)
        train_outputs = alphas @ gram
        vote_labels = np.where(np.mean(train_outputs > 0, axis=0) > 0.5, 1.0, -1.0)
        return {
            "q": float(q),
            "mean training errors per sample": float(training_errors(train_outputs, y).mean()),
            "vote training errors": int(np.count_nonzero(vote_labels != y)),
            "Bayes point training errors": int(training_errors(bayes_point @ gram, y)[0]),
            "mean vote entropy (bits)": float(binary_entropy(p_plus).mean()),
        }

    return Panel({"q": q_slider}, draw, figsize=(7.5, 5.5))

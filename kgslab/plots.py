"""Figures used by more than one notebook.

Each function draws on a matplotlib Axes it is given (so notebooks and slider
panels can place it in their own layouts) and returns what it drew.
"""

from __future__ import annotations

import numpy as np

__all__ = ["decision_regions", "kernel_heatmap", "error_rejection_curve"]


def decision_regions(ax, decision_function, X, y, *, resolution: int = 150, padding: float = 0.5,
                     levels=(0.0,), fill: bool = True, point_size: float = 25.0):
    """Shade the sign of `decision_function` over the bounding box of X (2-d) and draw the data.

    `decision_function` maps an (n, 2) array of points to n decision values;
    the curves at `levels` (the decision boundary by default) are drawn in black.
    y may hold any two labels; the second (sorted) label is the positive class.
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"X must be an (n, 2) array to draw decision regions, got shape {X.shape}")
    low, high = X.min(axis=0) - padding, X.max(axis=0) + padding
    grid_x, grid_y = np.meshgrid(np.linspace(low[0], high[0], resolution), np.linspace(low[1], high[1], resolution))
    values = np.asarray(decision_function(np.column_stack([grid_x.ravel(), grid_y.ravel()]))).reshape(grid_x.shape)
    if fill:
        ax.contourf(grid_x, grid_y, np.sign(values), levels=[-1.5, 0, 1.5], colors=["#f4c7c3", "#c6dbef"], alpha=0.6)
    contours = ax.contour(grid_x, grid_y, values, levels=list(levels), colors="k", linewidths=1.2)
    classes = np.unique(y)
    for label, colour, marker in zip(classes, ["#d62728", "#1f77b4"], ["o", "s"]):
        chosen = np.asarray(y) == label
        ax.scatter(X[chosen, 0], X[chosen, 1], s=point_size, c=colour, marker=marker, edgecolors="k",
                   linewidths=0.5, label=f"class {label}")
    ax.set_xlim(low[0], high[0])
    ax.set_ylim(low[1], high[1])
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    return contours


def kernel_heatmap(ax, K, *, title: str = "", block_names=None, cmap: str = "viridis", colorbar: bool = True):
    """Show a kernel matrix as an image; optional equal-sized blocks (e.g. languages) are marked and named."""
    K = np.asarray(K, dtype=float)
    image = ax.imshow(K, cmap=cmap, interpolation="nearest")
    if block_names:
        size = K.shape[0] / len(block_names)
        for edge in np.arange(1, len(block_names)) * size:
            ax.axhline(edge - 0.5, color="w", lw=0.8)
            ax.axvline(edge - 0.5, color="w", lw=0.8)
        centres = (np.arange(len(block_names)) + 0.5) * size
        ax.set_xticks(centres, block_names)
        ax.set_yticks(centres, block_names)
    else:
        ax.set_xlabel("document / point j")
        ax.set_ylabel("document / point i")
    if title:
        ax.set_title(title)
    if colorbar:
        ax.figure.colorbar(image, ax=ax, shrink=0.8, label="kernel value")
    return image


def error_rejection_curve(confidence, correct, *, n_points: int = 21):
    """Generalisation error against rejection rate when the least confident test points are rejected.

    confidence: one score per test point (higher = more sure); correct: booleans.
    Returns (rejection_rates, errors) for rejection rates 0 .. max, rejecting the
    least confident points first; the last point keeps at least one test point.
    """
    confidence = np.asarray(confidence, dtype=float)
    correct = np.asarray(correct, dtype=bool)
    if confidence.shape != correct.shape or confidence.ndim != 1:
        raise ValueError(f"confidence and correct must be 1-d of one length, got {confidence.shape} and {correct.shape}")
    order = np.argsort(confidence, kind="stable")          # least confident first
    n = len(order)
    rejected_counts = np.unique(np.linspace(0, n - 1, n_points).round().astype(int))
    errors = np.array([1.0 - correct[order[k:]].mean() for k in rejected_counts])
    return rejected_counts / n, errors

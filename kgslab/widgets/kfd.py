"""Notebook 10's panel: the toy problem's Gaussians learnt with and without the label-noise model.

The slider sets the induced label-noise rate (both directions, the generative
convention P(yhat != y | y)); the panel redraws one sample of the paper's toy
with the true Gaussians (dotted), the Gaussians fitted to the observed labels
without a noise model (dashed), and those learnt by EM with the noise model
(solid).  It reports the true and the estimated flip rates (the kit's
convention gamma_k = P(y != k | yhat = k)).
"""

from __future__ import annotations

import numpy as np
from matplotlib.patches import Ellipse

from ..data.kfd import KFD_TOY, kfd_toy_data
from .. import label_noise as _label_noise
from .._validation import as_float_array, as_gram, as_matrix, as_positive_int, as_scalar, check_random_state_kind
from .base import Panel, float_slider

__all__ = ["draw_gaussian", "draw_toy_fits", "toy_noise_panel"]

CLASS_COLOURS = ("tab:blue", "tab:red")


def draw_gaussian(ax, mean, covariance, *, colour, linestyle="-", label=None, n_std=1.0):
    """The n_std ellipse of N(mean, covariance) with its principal axes crossing at the mean (as in the paper)."""
    mean = as_float_array(mean, "mean", ndim=1)
    if mean.shape != (2,):
        raise ValueError(f"mean must be a point in the plane (2 numbers), got shape {mean.shape}")
    covariance = as_gram(covariance, "covariance")
    if covariance.shape != (2, 2):
        raise ValueError(f"covariance must be 2 x 2, got shape {covariance.shape}")
    n_std = as_scalar(n_std, "n_std", low=0.0, low_open=True)
    eigenvalues, eigenvectors = np.linalg.eigh(covariance)
    half_axes = n_std * np.sqrt(np.maximum(eigenvalues, 0.0))
    angle = np.degrees(np.arctan2(eigenvectors[1, 1], eigenvectors[0, 1]))
    ax.add_patch(Ellipse(mean, 2 * half_axes[1], 2 * half_axes[0], angle=angle, fill=False, edgecolor=colour,
                         linestyle=linestyle, linewidth=1.8, label=label))
    for half_axis, direction in zip(half_axes, eigenvectors.T):
        ends = np.array([mean - half_axis * direction, mean + half_axis * direction])
        ax.plot(ends[:, 0], ends[:, 1], color=colour, linestyle=linestyle, linewidth=1.0)


def draw_toy_fits(ax, X, y_observed, fits: dict, *, title=""):
    """Scatter the toy points by OBSERVED label (1: dots, 2: crosses) and draw the Gaussians.

    fits maps a legend name to (means, covariances, linestyle); the true Gaussians
    are drawn dotted.
    """
    X = as_matrix(X, "X")
    if X.shape[1] != 2:
        raise ValueError(f"X must be an (n, 2) array of toy points, got shape {X.shape}")
    y_observed = np.asarray(y_observed)
    if y_observed.shape != (X.shape[0],):
        raise ValueError(f"y_observed must have one label per row of X ({X.shape[0]}), got shape {y_observed.shape}")
    if not set(np.unique(y_observed).tolist()) <= {1, 2}:
        raise ValueError(f"y_observed must hold the toy's labels 1 and 2, got {np.unique(y_observed)[:5].tolist()}")
    for label, marker, colour in ((1, ".", CLASS_COLOURS[0]), (2, "x", CLASS_COLOURS[1])):
        rows = y_observed == label
        ax.plot(X[rows, 0], X[rows, 1], linestyle="none", marker=marker, markersize=4, color=colour, alpha=0.5,
                label=f"labelled {label}")
    true_covariances = [factor @ factor.T for factor in KFD_TOY["factors"]]
    for k in (0, 1):
        draw_gaussian(ax, KFD_TOY["means"][k], true_covariances[k], colour=CLASS_COLOURS[k], linestyle=":",
                      label="true Gaussians" if k == 0 else None)
    for name, (means, covariances, linestyle) in fits.items():
        for k in (0, 1):
            draw_gaussian(ax, means[k], covariances[k], colour=CLASS_COLOURS[k], linestyle=linestyle,
                          label=name if k == 0 else None)
    ax.set_xlim(-12, 12)
    ax.set_ylim(-14, 14)
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    ax.set_title(title)
    ax.legend(loc="upper left", fontsize=8)


def toy_noise_panel(n: int = 300, noise_rate: float = 0.2, seed: int = 0):
    """A slider on the induced noise rate; redraws the toy's fits with and without the noise model."""
    n = as_positive_int(n, "n", minimum=4)
    check_random_state_kind(seed, "seed")
    slider = float_slider("induced noise rate", noise_rate, 0.0, 0.4, 0.05, name="noise_rate")

    def draw(figure, noise_rate):
        X, y_observed, _ = kfd_toy_data(n, noise_rate=noise_rate, random_state=seed)
        plain = _label_noise.label_noise_em(X, y_observed, initial_flip_rates=(0.0, 0.0))
        noisy = _label_noise.label_noise_em(X, y_observed, initial_flip_rates=(0.3, 0.3), max_iter=300, tol=1e-6)
        _, true_flip = _label_noise.flip_rates_from_noise_rates([noise_rate, noise_rate], KFD_TOY["priors"])
        ax = figure.add_subplot(1, 1, 1)
        draw_toy_fits(ax, X, y_observed, {"no noise model": (plain.means, plain.covariances, "--"),
                                          "label-noise model (EM)": (noisy.means, noisy.covariances, "-")},
                      title=f"{n} toy points, labels flipped at rate {noise_rate:.2f} in both directions")
        error_plain = sum(np.linalg.norm(plain.means[k] - KFD_TOY["means"][k]) for k in (0, 1))
        error_noisy = sum(np.linalg.norm(noisy.means[k] - KFD_TOY["means"][k]) for k in (0, 1))
        return {"true gamma_1": round(float(true_flip[0]), 3), "true gamma_2": round(float(true_flip[1]), 3),
                "EM gamma_1": round(float(noisy.flip_rates[0]), 3), "EM gamma_2": round(float(noisy.flip_rates[1]), 3),
                "mean error without model": round(float(error_plain), 3),
                "mean error with model": round(float(error_noisy), 3), "EM iterations": noisy.n_iter}

    sliders = {"noise_rate": slider}
    return Panel(sliders, draw, figsize=(6.4, 5.6))

"""Panels for notebooks 02 (kernel ridge) and 03 (GP regression and its evidence).

* `kernel_ridge_panel`: sliders on the kernel width L and the regulariser gamma;
  draws the kRR fit (eqs. 5-6) over the sinc data and reports training and test MSE.
* `gp_panel`: sliders on the noise variance sigma^2 and L; draws the GP mean
  (eq. 13) with bands of one sigma_error (eq. 14) and, apart from them, the
  band a new noisy observation falls in; beside it the log evidence (eq. 16)
  against sigma^2 at this L, with a marker where the slider is.

Both default to the handout's data (sinc_data, 100 training points, noise 0.3)
so ``kernel_ridge_panel()`` works on its own; pass your own arrays to see yours.
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import FuncFormatter, NullLocator

from .._blas import blas_threads
from .._validation import as_matrix, as_scalar, as_vector
from ..data import sinc_data
from ..kernels import rbf_kernel
from .. import regression as _regression
from ..regression import mse
from .base import Panel, float_slider, log_slider

__all__ = ["kernel_ridge_panel", "gp_panel"]

GRID = np.linspace(-4.0, 4.0, 300)[:, None]  # where the fitted function is drawn

# TITLE_NOTE: a title with an explicit y=1.0 is not re-placed above the tick labels at every draw,
# which measures every tick label and took a quarter of a redraw.


def _single_threaded(draw):
    """Run a panel's draw with one BLAS thread.

    The matrices here are ~100 x 100: threads cost more than they save, and far more on a busy machine
    (benchmarks/measured.md).
    """
    def wrapped(figure, **values):
        with blas_threads():
            return draw(figure, **values)
    return wrapped


def _default_split(random_state):
    """The handout's 200 sinc points: the first 100 to train on, the other 100 to test."""
    X, y = sinc_data(200, noise=0.3, random_state=random_state)
    return X[:100], y[:100], X[100:], y[100:]


def _one_dimensional(X, name):
    """The panels draw functions of one input: X must have shape (n, 1)."""
    X = as_matrix(X, name)
    if X.shape[1] != 1:
        raise ValueError(f"{name} must have shape (n, 1): the panels draw functions of one input; got {X.shape}")
    return X


def _draw_truth(axes):
    axes.plot(GRID[:, 0], np.sinc(GRID[:, 0]), color="0.45", lw=1, ls="--", label="sinc(x) (truth)")


def kernel_ridge_panel(X_train=None, y_train=None, X_test=None, y_test=None, *, L: float = 0.5,
                       gamma: float = 1e-3, random_state=0) -> Panel:
    """Kernel ridge regression with sliders on L and gamma: the fit, training and test MSE, live.

    Without data, draws the handout's sinc problem (seeded by `random_state`).
    The report line gives train_mse, test_mse and max|alpha| (how hard the fit works).
    """
    if X_train is None and X_test is None:
        X_train, y_train, X_test, y_test = _default_split(random_state)
    elif X_train is None or X_test is None or y_train is None or y_test is None:
        raise ValueError("kernel_ridge_panel needs all four of X_train, y_train, X_test, y_test, or none of them")
    X_train, X_test = _one_dimensional(X_train, "X_train"), _one_dimensional(X_test, "X_test")
    y_train = as_vector(y_train, "y_train", length=len(X_train), length_of="X_train")
    y_test = as_vector(y_test, "y_test", length=len(X_test), length_of="X_test")

    def draw(figure, L, gamma):
        K = rbf_kernel(X_train, L=L)
        alpha = _regression.kernel_ridge(K, y_train, gamma)                       # eq. (5)
        train_mse = mse(y_train, K @ alpha)
        test_mse = mse(y_test, rbf_kernel(X_test, X_train, L=L) @ alpha)
        curve = rbf_kernel(GRID, X_train, L=L) @ alpha                # eq. (6) on a grid
        figure.set_layout_engine("none")  # fixed margins: constrained layout doubles the redraw time
        axes = figure.subplots(gridspec_kw=dict(left=0.07, right=0.985, bottom=0.135, top=0.92))
        axes.scatter(X_train[:, 0], y_train, s=14, color="tab:blue", label="training points")
        axes.scatter(X_test[:, 0], y_test, s=14, marker="x", color="tab:orange", label="test points")
        _draw_truth(axes)
        axes.plot(GRID[:, 0], curve, color="tab:red", lw=2, label="kRR fit")
        axes.set_ylim(-1.5, 2.0)
        axes.set_xlabel("x")
        axes.set_ylabel("y")
        axes.set_title(f"Kernel ridge regression, L = {L:.3g}, gamma = {gamma:.3g}: "
                       f"train MSE {train_mse:.4f}, test MSE {test_mse:.4f}", y=1.0)  # y: see TITLE_NOTE
        axes.legend(loc="upper right", fontsize="small")
        return {"train_mse": train_mse, "test_mse": test_mse, "max_abs_alpha": float(np.max(np.abs(alpha)))}

    sliders = {"L": float_slider("L (width)", L, 0.05, 3.0, 0.05, name="L"),
               "gamma": log_slider("gamma", gamma, -9, 2, 0.25, name="gamma")}
    return Panel(sliders, _single_threaded(draw), figsize=(9.0, 4.2))


def gp_panel(X=None, y=None, *, sigma2: float = 0.09, L: float = 0.5, true_sigma2: float | None = 0.09,
             random_state=0) -> Panel:
    """GP regression with sliders on sigma^2 and L: fit, error bands and the position on the evidence curve.

    Left: the posterior mean (eq. 13), a band of +-1 sigma_error (eq. 14: the
    uncertainty about f) and, dashed, +-sqrt(sigma_error^2 + sigma^2) (where a
    new noisy y is expected).  Right: ln p(y) (eq. 16) against sigma^2 at the
    current L, its maximum, the true noise `true_sigma2` (None to hide) and a
    marker at the slider's sigma^2.  Without data, uses the handout's 100 sinc
    training points.
    """
    if X is None and y is None:
        X, y, _, _ = _default_split(random_state)
    elif X is None or y is None:
        raise ValueError("gp_panel needs both X and y, or neither")
    X = _one_dimensional(X, "X")
    y = as_vector(y, "y", length=len(X), length_of="X")
    if true_sigma2 is not None:
        true_sigma2 = as_scalar(true_sigma2, "true_sigma2", low=0.0, low_open=True)
    sigma2_grid = np.logspace(-4, 1, 200)

    def draw(figure, sigma2, L):
        K = rbf_kernel(X, L=L)
        # One posterior for the grid and the training points together (the latter for the training MSE).
        points = np.vstack([GRID, X])
        mean_all, var_all = _regression.gp_posterior(K, rbf_kernel(points, X, L=L), np.ones(len(points)), y, sigma2)
        mean, var, fitted = mean_all[:len(GRID)], var_all[:len(GRID)], mean_all[len(GRID):]
        sigma_error = np.sqrt(var)
        predictive = np.sqrt(var + sigma2)
        # The curve and the slider's point from one eigendecomposition (eq. 16).
        *curve, here = _regression.log_evidence(K, y, np.append(sigma2_grid, sigma2))
        curve = np.array(curve)
        best = sigma2_grid[np.argmax(curve)]
        # Fixed margins instead of the shell's constrained layout, which took a third of this redraw.
        figure.set_layout_engine("none")
        fit_axes, evidence_axes = figure.subplots(1, 2, gridspec_kw=dict(
            width_ratios=[1.4, 1.0], left=0.06, right=0.985, bottom=0.135, top=0.92, wspace=0.2))
        x = GRID[:, 0]
        fit_axes.scatter(X[:, 0], y, s=12, color="tab:blue", label="data")
        _draw_truth(fit_axes)
        fit_axes.fill_between(x, mean - sigma_error, mean + sigma_error, color="tab:red", alpha=0.25,
                              label="mean +- sigma_error (eq. 14)")
        fit_axes.plot(x, mean, color="tab:red", lw=2, label="posterior mean (eq. 13)")
        fit_axes.plot(x, mean + predictive, color="tab:purple", lw=1, ls=":",
                      label="+- sqrt(sigma_error^2 + sigma^2): new y")
        fit_axes.plot(x, mean - predictive, color="tab:purple", lw=1, ls=":")
        fit_axes.set_ylim(-1.8, 2.2)
        fit_axes.set_xlabel("x")
        fit_axes.set_ylabel("y")
        fit_axes.set_title(f"GP fit, sigma^2 = {sigma2:.3g}, L = {L:.3g}", y=1.0)  # y: see TITLE_NOTE
        fit_axes.legend(loc="upper right", fontsize="x-small")
        evidence_axes.semilogx(sigma2_grid, curve, color="tab:green")
        # Plain tick labels and no minor ticks: log-axis mathtext labels cost a third of a redraw.
        evidence_axes.xaxis.set_minor_locator(NullLocator())
        evidence_axes.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
        evidence_axes.plot([sigma2], [here], "o", color="tab:red", ms=8, label="slider sigma^2")
        evidence_axes.axvline(best, color="tab:green", ls="--", lw=1, label=f"maximum, sigma^2 = {best:.3g}")
        if true_sigma2 is not None:
            evidence_axes.axvline(true_sigma2, color="0.3", ls=":", lw=1, label=f"true sigma_0^2 = {true_sigma2:.3g}")
        top = float(np.max(curve))
        evidence_axes.set_ylim(top - 6 * max(1.0, abs(top)) - 10, top + 0.1 * abs(top) + 5)
        evidence_axes.set_xlabel("noise variance sigma^2")
        evidence_axes.set_ylabel("log evidence ln p(y)")
        evidence_axes.set_title(f"Evidence (eq. 16) at L = {L:.3g}", y=1.0)
        evidence_axes.legend(loc="lower left", fontsize="x-small")
        return {"log_evidence": float(here), "best_sigma2": float(best),
                "mean_sigma_error": float(np.mean(sigma_error)), "train_mse": mse(y, fitted)}

    sliders = {"sigma2": log_slider("sigma^2 (noise)", sigma2, -4, 1, 0.05, name="sigma2"),
               "L": float_slider("L (width)", L, 0.05, 3.0, 0.05, name="L")}
    return Panel(sliders, _single_threaded(draw), figsize=(11.0, 4.2))


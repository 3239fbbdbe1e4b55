"""Notebook 09's panel: a slider on the rejection threshold theta (the static figures are in
`kgslab.papers.bt1999_figures`).

`rejection_panel` draws Figure 2 of the Bayesian transduction paper from precomputed split results
(`kgslab.papers.bt1999.compare_with_svm`): for each data set the mean generalisation error against the
rejection rate for the transduction confidence c_trans (theta in [0, 1]) and for the SVM's |f(x)|
(theta * theta_max), with a marker where the slider's theta puts each method.  Moving theta moves the
markers along the curves; the report gives both methods' rejection rate and error at that theta.
"""

from __future__ import annotations

import numpy as np

from ..papers.bt1999 import figure2_curves
from .._validation import as_positive_int
from .base import Panel, float_slider

__all__ = ["rejection_panel"]

_STYLE = {"trans": ("Bayesian transduction (c_trans)", "tab:blue", "o"),
          "svm": ("SVM (|f(x)|, theta scaled by theta_max)", "tab:red", "s")}


def rejection_panel(experiments: dict, *, theta: float = 0.5, n_thresholds: int = 51) -> Panel:
    """Error against rejection rate with a slider on theta; `experiments` maps a name to split results."""
    if not isinstance(experiments, dict):
        raise TypeError(f"experiments must be a dict {{data set name: compare_with_svm results}}, got "
                        f"{experiments!r:.80}")
    if not experiments:
        raise ValueError("experiments must map at least one data set name to compare_with_svm results")
    n_thresholds = as_positive_int(n_thresholds, "n_thresholds", minimum=2)
    curves = {}
    for name, results in experiments.items():
        try:
            curves[name] = figure2_curves(results, n_thresholds)
        except (TypeError, ValueError) as err:   # say which data set of `experiments` it was
            raise type(err)(f"experiments[{name!r}]: {err}") from err
    thetas = next(iter(curves.values()))["theta"]

    def draw(figure, theta):
        index = int(np.argmin(np.abs(thetas - theta)))
        axes_row = figure.subplots(1, len(curves), squeeze=False)[0]
        report = {"theta": float(thetas[index])}
        for axes, (name, curve) in zip(axes_row, curves.items()):
            for method in ("trans", "svm"):
                label, colour, marker = _STYLE[method]
                line = curve[method]
                axes.plot(100 * line["rejection"], 100 * line["error"], color=colour, label=label)
                axes.plot(100 * line["rejection"][index], 100 * line["error"][index], marker=marker,
                          color=colour, markersize=10, markeredgecolor="black")
                report[f"{name} {method} rejection %"] = round(100 * float(line["rejection"][index]), 1)
                report[f"{name} {method} error %"] = round(100 * float(line["error"][index]), 1)
            axes.set_xlabel("rejection rate (%)")
            axes.set_ylabel("generalisation error on accepted points (%)")
            axes.set_title(f"{name}: theta = {thetas[index]:.2f} "
                           f"(SVM threshold {thetas[index] * curve['theta_max']:.2f})")
            axes.grid(alpha=0.3)
        axes_row[0].legend(fontsize=8)
        return report

    sliders = {"theta": float_slider("rejection threshold theta", theta, 0.0, 1.0, 0.01, name="theta")}
    return Panel(sliders, draw, figsize=(10.0, 4.0))

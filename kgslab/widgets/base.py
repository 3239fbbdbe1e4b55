"""The shell every slider panel shares.

A panel is a VBox of sliders, a picture and a line of numbers.  The picture is
a matplotlib Figure rendered to PNG and shown in an ``ipywidgets.Image``: it
needs no interactive backend, so it looks the same in JupyterLab, in a static
HTML export and in a test, and a test can tell that it changed by its bytes.

A panel function builds the sliders and a ``draw(figure, **values)`` callback
that draws on a fresh figure and returns the numbers to report (a dict).
``Panel`` wires them: each slider becomes an attribute (``panel.L``), a slider
move redraws once (``continuous_update=False``), ``panel.values`` holds the
last reported numbers and ``panel.png`` the last picture.
"""

from __future__ import annotations

import io
import time
from typing import Callable

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from .._validation import as_scalar

__all__ = ["Panel", "log_slider", "float_slider"]


def _slider_range(name: str, value, low, high, step):
    """Check a slider's settings; ipywidgets would clamp an out-of-range value without a word."""
    low = as_scalar(low, "low")
    high = as_scalar(high, "high")
    step = as_scalar(step, "step", low=0.0, low_open=True)
    if not low < high:
        raise ValueError(f"the slider {name!r} needs low < high, got low = {low:g}, high = {high:g}")
    value = as_scalar(value, name)
    if not low <= value <= high:
        raise ValueError(f"{name} = {value:g} is outside the range of its slider [{low:g}, {high:g}] "
                         f"(the value the slider starts at)")
    return value


def float_slider(description: str, value: float, low: float, high: float, step: float, *, name: str = "value",
                 **kwargs):
    """A FloatSlider that redraws only on release.

    A starting value outside [low, high] is refused (ValueError naming `name`, the
    argument the caller passed it as) instead of being clamped silently.
    """
    value = _slider_range(name, value, low, high, step)
    return widgets.FloatSlider(value=value, min=low, max=high, step=step, description=description,
                               continuous_update=False, readout_format=".3g",
                               style={"description_width": "initial"}, **kwargs)


def log_slider(description: str, value: float, low_exponent: float, high_exponent: float, step: float = 0.1, *,
               name: str = "value"):
    """A FloatLogSlider over 10**low_exponent .. 10**high_exponent that redraws only on release.

    A starting value outside that range (or not > 0) is refused, naming `name`.
    """
    value = as_scalar(value, name)
    if value <= 0:
        raise ValueError(f"{name} must be > 0 for its logarithmic slider, got {value:g}")
    low_exponent = as_scalar(low_exponent, "low_exponent")
    high_exponent = as_scalar(high_exponent, "high_exponent")
    step = as_scalar(step, "step", low=0.0, low_open=True)
    if not low_exponent < high_exponent:
        raise ValueError(f"the slider {name!r} needs low_exponent < high_exponent, got {low_exponent:g} and "
                         f"{high_exponent:g}")
    if not low_exponent <= np.log10(value) <= high_exponent:
        raise ValueError(f"{name} = {value:g} is outside the range of its slider [{10 ** low_exponent:g}, "
                         f"{10 ** high_exponent:g}] (the value the slider starts at)")
    return widgets.FloatLogSlider(value=value, base=10, min=low_exponent, max=high_exponent, step=step,
                                  description=description, continuous_update=False, readout_format=".3g",
                                  style={"description_width": "initial"})


def _format_number(value) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


class Panel(widgets.VBox):
    """Sliders, a picture and a report line; redrawn whenever a slider moves."""

    def __init__(self, sliders: dict[str, widgets.Widget], draw: Callable[..., dict],
                 figsize=(9.0, 4.0), dpi: int = 80):
        if not isinstance(sliders, dict) or not sliders or not all(
                isinstance(name, str) and isinstance(slider, widgets.ValueWidget) for name, slider in sliders.items()):
            raise TypeError(f"sliders must be a non-empty dict {{name: slider widget}}, got {sliders!r:.80}")
        if not callable(draw):
            raise TypeError(f"draw must be a function draw(figure, **slider_values), got {draw!r:.80}")
        self._sliders = dict(sliders)
        self._draw = draw
        self._figsize = figsize
        self._dpi = dpi
        self.image = widgets.Image(format="png", layout=widgets.Layout(width=f"{int(figsize[0] * dpi)}px"))
        self.report = widgets.HTML()
        self.values: dict = {}
        self.png: bytes = b""
        self.redraw_seconds: float = 0.0
        self.error: str | None = None
        controls = widgets.HBox(list(self._sliders.values()), layout=widgets.Layout(flex_flow="row wrap"))
        super().__init__([controls, self.image, self.report])
        for name, slider in self._sliders.items():
            setattr(self, name, slider)
            slider.observe(self._on_change, names="value")
        self.redraw()

    def slider_values(self) -> dict:
        return {name: slider.value for name, slider in self._sliders.items()}

    def _on_change(self, _change):
        self.redraw()

    def redraw(self):
        """Draw on a fresh figure with the current slider values; update picture and report."""
        started = time.perf_counter()
        figure = Figure(figsize=self._figsize, dpi=self._dpi, layout="constrained")
        self.values = dict(self._draw(figure, **self.slider_values()) or {})
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png")
        self.png = buffer.getvalue()
        self.image.value = self.png
        self.report.value = " &nbsp;|&nbsp; ".join(
            f"<b>{name}</b> = {_format_number(value)}" for name, value in self.values.items())
        self.redraw_seconds = time.perf_counter() - started

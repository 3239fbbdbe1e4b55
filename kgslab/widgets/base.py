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
from matplotlib.figure import Figure

__all__ = ["Panel", "log_slider", "float_slider"]


def float_slider(description: str, value: float, low: float, high: float, step: float, **kwargs):
    """A FloatSlider that redraws only on release."""
    return widgets.FloatSlider(value=value, min=low, max=high, step=step, description=description,
                               continuous_update=False, readout_format=".3g",
                               style={"description_width": "initial"}, **kwargs)


def log_slider(description: str, value: float, low_exponent: float, high_exponent: float, step: float = 0.1):
    """A FloatLogSlider over 10**low_exponent .. 10**high_exponent that redraws only on release."""
    return widgets.FloatLogSlider(value=value, base=10, min=low_exponent, max=high_exponent, step=step,
                                  description=description, continuous_update=False, readout_format=".3g",
                                  style={"description_width": "initial"})


def _format_number(value) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


class Panel(widgets.VBox):
    """Sliders, a picture and a report line; redrawn whenever a slider moves."""

    def __init__(self, sliders: dict[str, widgets.Widget], draw: Callable[..., dict],
                 figsize=(9.0, 4.0), dpi: int = 80):
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

"""The interactive panels: one function per panel, each returning a `Panel` (an ipywidgets VBox).

Sliders are reachable as attributes of the returned panel (``panel.L``,
``panel.gamma``...) so tests can move them; they redraw on release
(``continuous_update=False``).  The shell is in `base`; each notebook's panels
live in a module of their own, re-exported here: the modules the kit's one
list of notebooks (`kgslab._notebook_list`) names.
"""

import importlib as _importlib

from .base import Panel, float_slider, log_slider
from .._notebook_list import widget_modules as _widget_modules


def _export_panels() -> None:
    """Re-export each notebook's panels (its widget module's ``__all__``)."""
    for name in _widget_modules():
        module = _importlib.import_module(f"{__name__}.{name}")
        globals().update({key: getattr(module, key) for key in module.__all__})


_export_panels()

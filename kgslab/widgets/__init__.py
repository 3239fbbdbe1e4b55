"""The interactive panels: one function per panel, each returning a `Panel` (an ipywidgets VBox).

Sliders are reachable as attributes of the returned panel (``panel.L``,
``panel.gamma``...) so tests can move them; they redraw on release
(``continuous_update=False``).  The shell is in `base`; each notebook's panels
live in a module of their own, re-exported here.
"""

from .base import Panel, float_slider, log_slider
from .regression import *  # noqa: F401,F403
from .kgs import *  # noqa: F401,F403
from .kfd import *  # noqa: F401,F403
from .billiard import *  # noqa: F401,F403

"""Exercise checks: ``check.exercise_N(student_function)`` tries it and falls back to the reference.

The mechanism is in `core`; each notebook's checks live in a module of their own
(`nb01_duality`, ...), re-exported here so a notebook only needs
``from kgslab import check``.
"""

from .core import Case, allclose, run_exercise
from .nb01_duality import *  # noqa: F401,F403
from .nb04_normalise import *  # noqa: F401,F403
from .nb07_perceptron import *  # noqa: F401,F403
from .nb05_adatron import *  # noqa: F401,F403
from .nb06_bag_of_words import *  # noqa: F401,F403
from .nb02_kernel_ridge import *  # noqa: F401,F403
from .nb03_gp import *  # noqa: F401,F403
from .nb08_kgs import *  # noqa: F401,F403
from .nb09_billiard import *  # noqa: F401,F403
from .nb10_kfd import *  # noqa: F401,F403

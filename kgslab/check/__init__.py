"""Exercise checks: ``f = check.nbNN_exercise_X(f)`` tries a student's function and falls back to the reference.

One naming scheme: ``nbNN_exercise_<number>`` with NN the notebook and the
number the handout's (``nb04_exercise_5a`` is Exercise 5a of the coursework,
in notebook 04; ``nb07_exercise_5c`` part (c) of the exam question 5; in the
papers' notebooks 08-10, the notebook's own exercise number:
``nb10_exercise_2`` is Exercise 10.2).  Each check is an `Exercise`; its
``.grade()`` is the autograded test nbgrader runs (see `core`).

The mechanism is in `core`; each notebook's checks live in a module of their
own (`nb01_duality`, ...), re-exported here so a notebook only needs
``from kgslab import check``.
"""

from .core import GRADING_TIME_LIMIT, TIME_LIMIT, Case, Exercise, allclose, grading_mode, run_exercise, show_hint
from .nb01_duality import *  # noqa: F401,F403
from .nb02_kernel_ridge import *  # noqa: F401,F403
from .nb03_gp import *  # noqa: F401,F403
from .nb04_normalise import *  # noqa: F401,F403
from .nb05_adatron import *  # noqa: F401,F403
from .nb06_bag_of_words import *  # noqa: F401,F403
from .nb07_perceptron import *  # noqa: F401,F403
from .nb08_kgs import *  # noqa: F401,F403
from .nb09_billiard import *  # noqa: F401,F403
from .nb10_kfd import *  # noqa: F401,F403


def exercises() -> dict:
    """Every check by name, in notebook order: {'nb01_exercise_1_primal': Exercise, ...}."""
    found = {name: value for name, value in globals().items() if isinstance(value, Exercise)}
    return dict(sorted(found.items()))


def hint(name) -> None:
    """Print the code-level hint of one exercise: ``check.hint("nb04_exercise_5a")`` (or pass the check itself).

    A failed check prints only the conceptual hint; this second tier is for a
    student who asks.  While nbgrader grades it prints that hints are off.
    """
    if isinstance(name, Exercise):
        return show_hint(name)
    known = exercises()
    if not isinstance(name, str) or name not in known:
        close = [key for key in known if isinstance(name, str) and name and name in key]
        raise ValueError(f"name must be the name of a check such as 'nb04_exercise_5a'"
                         f"{' (did you mean ' + ', '.join(close) + '?)' if close else ''}; got {name!r}")
    return show_hint(known[name])

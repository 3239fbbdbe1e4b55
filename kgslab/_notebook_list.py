"""The kit's notebooks, in order: one line each, the list that the checks, the panels and the tests derive from.

A line names the notebook by its stem (``solutions/NN_topic.ipynb`` is its source, ``notebooks/NN_topic.ipynb``
its student copy), the module of `kgslab.check` that holds its exercises' checks (``check.nbNN_exercise_X``,
keys starting with ``nbNN_``), and the module of `kgslab.widgets` that holds the panels it displays (None when it
has no sliders; two notebooks may share one).  `kgslab.check` and `kgslab.widgets` re-export what these modules
list in ``__all__``; the tests count the notebooks and find their files here, and a test holds the list equal to
what is on disk (solutions/, notebooks/, kgslab/check/nbNN_*.py), so a notebook missing its line, or a line
missing its files, fails saying what to add.  NOTEBOOK_GUIDE.md says what a new notebook brings.
"""

from __future__ import annotations

from typing import NamedTuple


class Notebook(NamedTuple):
    """One notebook of the course: its stem, its check module, its widget module (or None)."""

    stem: str
    check: str
    widgets: str | None = None

    @property
    def number(self) -> str:
        """'01' for 01_duality: the NN of its files and of its check keys."""
        return self.stem[:2]

    @property
    def key_prefix(self) -> str:
        """'nb01_': how the keys of its checks begin (check.nb01_exercise_1_primal)."""
        return f"nb{self.number}_"


NOTEBOOKS: tuple[Notebook, ...] = (
    Notebook("01_duality", "nb01_duality"),
    Notebook("02_kernel_ridge", "nb02_kernel_ridge", "regression"),
    Notebook("03_gp_evidence", "nb03_gp", "regression"),
    Notebook("04_normalise_centre", "nb04_normalise"),
    Notebook("05_adatron", "nb05_adatron"),
    Notebook("06_bag_of_words", "nb06_bag_of_words"),
    Notebook("07_kernel_perceptron", "nb07_perceptron"),
    Notebook("08_kernel_gibbs_sampler", "nb08_kgs", "kgs"),
    Notebook("09_kernel_billiard", "nb09_billiard", "billiard"),
    Notebook("10_noisy_kfd", "nb10_kfd", "kfd"),
)


def stems() -> list[str]:
    """The notebooks' stems in order: ['01_duality', '02_kernel_ridge', ...]."""
    return [notebook.stem for notebook in NOTEBOOKS]


def widget_modules() -> list[str]:
    """The widget modules the notebooks name, each once, in notebook order."""
    return list(dict.fromkeys(notebook.widgets for notebook in NOTEBOOKS if notebook.widgets))

"""The papers' and the coursework's experiments, one module per paper.

Who calls whom (one direction, asserted by tests/test_import_graph.py): the notebooks, the checks
(`kgslab.check`) and the widgets (`kgslab.widgets`) call these; these call the library (the algorithms, the
data, the kernels); the library never imports papers, checks, widgets or the course tools, and papers never
import checks, widgets or the course tools.

- `coursework`: the coursework (seed 004): the references for the student's experiments of notebooks 01-03,
  05 and 06 (Exercises 1-4, 6 and 7).
- `kgs2000`: Graepel and Herbrich, "The kernel Gibbs sampler", NIPS 2000 (seed 001): Figures 1-4 (Figure 4's
  quadratic SVM); `kgs2000_studies`: the sampler against the exact posterior, mixing, active learning, the
  evidence (notebook 08's appendix).
- `bt1999`: Graepel, Herbrich and Obermayer, "Bayesian transduction", NIPS 1999 (seed 002): exact spherical
  volumes (the reference for the billiard) and Figure 2's comparison with the SVM; `bt1999_figures`: the figures
  notebook 09 draws (Figures 1 and 2, the billiard's flight, two of its appendix).
- `kfd2001`: the noisy kernel Fisher discriminant paper (seed 003): notebook 10's paper-sized runs.
"""

from __future__ import annotations

import os
from pathlib import Path


def output_path(filename: str, out=None) -> Path:
    """Where a paper's command writes its result file `filename`.

    `out` a folder (one that exists, or a name ending in a slash): `filename` in it; any other `out`: that
    file.  Without `out`: the repository's data/results/ when the kit runs from a clone, so the committed
    files are re-made there and only there; the current directory when the kit is installed (never inside
    the installed package, whose files a new install replaces).
    """
    from .. import data
    from .._resources import from_clone

    if out is None or str(out) == "":
        return (data.RESULTS_DIR if from_clone() else Path.cwd()) / filename
    if isinstance(out, bool) or not isinstance(out, (str, os.PathLike)):
        raise TypeError(f"out must be a file or folder name (str or Path), got {out!r:.60}")
    path = Path(out).expanduser()
    if path.is_dir() or str(out).endswith(("/", os.sep)):
        return path / filename
    return path


OUT_HELP = ("file (or folder) to write; default: the repository's data/results/ when run from a clone, the current "
            "directory when the kit is installed")

"""Kernels that run every plotting call but render no PNG: for runs whose figures nobody looks at.

    python tests/no_figures.py        prints a fresh IPython directory for IPYTHONDIR (`make nbval-solutions`)

nbval never compares images (it skips image/png), and a shifted run of the claims (tests/claim_robustness.py)
reads only verdict lines, yet the inline backend renders and encodes every figure to PNG: measured with nbclient on
one core, 14 of the 84 CPU-s of a run of the ten solutions. The browser tests still draw and show every figure of every
solution, and `make nbval-notebooks` every figure of the student copies.
"""
import sys
import tempfile
from pathlib import Path

NO_PNG = "get_ipython().display_formatter.formatters['image/png'].enabled = False"
"""Run by the kernel at start: a figure shows its text form (<Figure size ... with N Axes>), never drawn or encoded."""


def ipython_directory() -> Path:
    """A new IPython directory whose kernels run NO_PNG at start (a kernel config in its default profile)."""
    directory = Path(tempfile.mkdtemp(prefix="kgslab-ipython-"))
    (directory / "profile_default").mkdir()
    config = directory / "profile_default" / "ipython_kernel_config.py"
    config.write_text(f"c.IPKernelApp.exec_lines = [{NO_PNG!r}]\n")
    return directory


if __name__ == "__main__":
    sys.stdout.write(f"{ipython_directory()}\n")

"""How many BLAS threads the kit's numerical loops use: decided here, once.

The samplers and the EM loops run thousands of small matrix-vector products (a few hundred to a few thousand
rows).  Waking BLAS threads for each costs more than it saves, and the machines the kit runs on are often
shared, so below `SMALL` rows every BLAS call runs on one thread; larger one-off factorisations keep the
library's default.

Finding the BLAS libraries (threadpoolctl reads the list of loaded libraries and opens each) can cost more than a
short Gibbs run, so it is done once, on the first call, when numpy's and scipy's BLAS are loaded (the kit
imports both before it calls BLAS).
"""

from __future__ import annotations

from functools import cache

from threadpoolctl import ThreadpoolController

SMALL = 1000


def blas_threads(size: int = 0):
    """A context manager limiting BLAS to one thread for problems of at most `SMALL` rows (default: always)."""
    return _controller().limit(limits=1 if size <= SMALL else None, user_api="blas")


@cache
def _controller() -> ThreadpoolController:
    """The BLAS (and OpenMP) libraries loaded in this process, found once."""
    return ThreadpoolController()

"""How many BLAS threads the kit's numerical loops use: decided here, once.

The samplers and the EM loops run thousands of small matrix-vector products (a few hundred to a few thousand
rows).  Waking BLAS threads for each costs more than it saves, and the machines the kit runs on are often
shared, so below `SMALL` rows every BLAS call runs on one thread; larger one-off factorisations keep the
library's default.
"""

from __future__ import annotations

from threadpoolctl import threadpool_limits

SMALL = 1000


def blas_threads(size: int = 0):
    """A context manager limiting BLAS to one thread for problems of at most `SMALL` rows (default: always)."""
    return threadpool_limits(limits=1 if size <= SMALL else None, user_api="blas")

"""The memory a case allows the student's function (`Case.memory_limit`): its peak allocation, numpy's included.

Two guards, with different jobs:

* `peak_traced` traces the block's allocations (tracemalloc, numpy arrays included) and gives their peak when it
  ends.  This is what the verdict rests on: a case whose function returned with a peak over its limit gets the
  memory verdict, whatever happened inside the function.
* `stop_over` ends the function early: a profile function (`sys.setprofile`, this thread only) reads the peak
  each time a function returns, C functions such as numpy's included, and raises `OverMemory` there, at the
  allocation itself.  So a function that allocates too much gets its verdict when it allocates, not after the
  slow work it would do with the memory, which on a busy machine could run into the time limit first.

`stop_over` is not a barrier.  CPython removes a profile function once it raises, so the student's code sees
`OverMemory` once, and a bare ``except:`` (or ``except BaseException``) around the allocation swallows it: the
function then runs on without the early stop.  That costs the student nothing and gains nothing: the peak stays
over the limit, and `peak_traced` reports it when the function returns.
"""

from __future__ import annotations

import contextlib
import sys
import tracemalloc

__all__: list[str] = []


class OverMemory(BaseException):
    """Raised inside the student's function once its allocations pass the case's memory limit (`stop_over`).

    A BaseException, so that ``except Exception`` does not swallow it (a bare ``except:`` does: see the module)."""


class stop_over:
    """Raise OverMemory in the block once tracemalloc's peak passes `megabytes` (None: no limit), at the first
    function return after it, while tracemalloc traces (`peak_traced`)."""

    def __init__(self, megabytes: float | None):
        self.bytes = None if megabytes is None else megabytes * 1e6

    def _watch(self, frame, event, arg):
        if event in ("c_return", "return") and tracemalloc.get_traced_memory()[1] > self.bytes:
            raise OverMemory()

    def __enter__(self):
        self.previous = sys.getprofile()
        if self.bytes is not None and tracemalloc.is_tracing():
            sys.setprofile(self._watch)
        return self

    def __exit__(self, *failed):
        sys.setprofile(self.previous)
        return False


class Peak:
    """The peak allocation of a `peak_traced` block in megabytes (0 while it runs, or when nothing was traced)."""

    megabytes: float = 0.0


@contextlib.contextmanager
def peak_traced(megabytes: float | None):
    """Trace the block's allocations when a case has a memory limit (`megabytes`, None: no tracing); the yielded
    `Peak` holds their peak once the block ends, however it ends."""
    peak = Peak()
    if megabytes is None:
        yield peak
        return
    tracemalloc.start()
    try:
        yield peak
    finally:
        peak.megabytes = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()

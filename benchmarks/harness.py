"""The benchmark harness: each ``bench_*.py`` module yields rows; ``run.py`` prints one table.

A row compares one operation of kgslab with a peer measured in the same run
(scikit-learn, a naive implementation, or a unit of work such as one
matrix-vector product), so the ratio means something on any machine.

A bench module defines ``rows(quick: bool) -> list[Row]``; ``quick`` is for the
smoke test in tests/ (small sizes, one repeat).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable


@dataclass
class Row:
    operation: str
    kgslab_seconds: float
    peer: str
    peer_seconds: float
    note: str = ""

    @property
    def ratio(self) -> float:
        """How many times faster kgslab is than the peer (> 1: kgslab is faster)."""
        return self.peer_seconds / self.kgslab_seconds if self.kgslab_seconds > 0 else float("inf")


def best_time(function: Callable[[], object], repeat: int = 3, number: int = 1) -> float:
    """The best of `repeat` timings of `number` calls, in seconds per call (robust to noise)."""
    best = float("inf")
    for _ in range(max(1, repeat)):
        started = time.perf_counter()
        for _ in range(number):
            function()
        best = min(best, (time.perf_counter() - started) / number)
    return best


def format_table(rows: list[Row]) -> str:
    header = f"{'operation':<58} {'kgslab':>10} {'peer':<34} {'peer time':>10} {'ratio':>8}  note"
    lines = [header, "-" * len(header)]
    for row in rows:
        lines.append(
            f"{row.operation:<58} {row.kgslab_seconds * 1e3:>8.2f}ms {row.peer:<34} "
            f"{row.peer_seconds * 1e3:>8.2f}ms {row.ratio:>7.2f}x  {row.note}"
        )
    return "\n".join(lines)

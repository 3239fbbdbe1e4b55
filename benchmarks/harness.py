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


def paired_best_times(first: Callable[[], object], second: Callable[[], object], repeat: int,
                      number_first: int, number_second: int) -> tuple[float, float]:
    """Best seconds per call of `first` and of `second`, timed in alternation batch by batch.

    Alternating (and choosing the two batch sizes so that the batches last about as long) lets load on a
    shared machine hit both alike, so their ratio means something even when the absolute times do not.
    The clock is this process's CPU time: time spent waiting for a core on a shared machine is not counted
    (both functions must run on one thread, as the benchmarks that call this limit BLAS to one).
    """
    best = [float("inf"), float("inf")]
    for _ in range(max(1, repeat)):
        for index, (function, number) in enumerate(((first, number_first), (second, number_second))):
            started = time.process_time()
            for _ in range(number):
                function()
            best[index] = min(best[index], (time.process_time() - started) / number)
    return best[0], best[1]


def format_duration(seconds: float) -> str:
    """A time in the unit that shows its digits: 14.90us, 2.20ms, 3.89s."""
    for unit, scale in (("us", 1e-6), ("ms", 1e-3)):
        if seconds < 1000 * scale:
            return f"{seconds / scale:.2f}{unit}"
    return f"{seconds:.2f}s"


def format_table(rows: list[Row]) -> str:
    header = f"{'operation':<58} {'kgslab':>10} {'peer':<34} {'peer time':>10} {'ratio':>8}  note"
    lines = [header, "-" * len(header)]
    for row in rows:
        lines.append(
            f"{row.operation:<58} {format_duration(row.kgslab_seconds):>10} {row.peer:<34} "
            f"{format_duration(row.peer_seconds):>10} {row.ratio:>7.2f}x  {row.note}"
        )
    return "\n".join(lines)

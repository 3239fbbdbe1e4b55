"""`make bench` stays runnable: every bench module yields rows in quick mode, and each row's
note says the kit and its peer computed the same thing (no row reports a disagreement)."""

import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import run  # noqa: E402


def test_every_bench_module_yields_rows_with_positive_times():
    rows = run.collect(quick=True)
    topics = {path.stem for path in BENCHMARKS.glob("bench_*.py")}
    assert len(topics) >= 8
    assert rows, "no benchmark rows"
    for row in rows:
        assert row.kgslab_seconds > 0 and row.peer_seconds > 0, row
        assert "DIFFERENT" not in row.note.upper(), row


def test_the_table_has_one_line_per_row():
    rows = run.collect(quick=True, names=["ridge"])
    table = run.format_table(rows).splitlines()
    assert len(table) == len(rows) + 2 and "ratio" in table[0]


def test_times_are_printed_in_a_unit_that_keeps_their_digits():
    import harness
    assert [harness.format_duration(t) for t in (14.9e-6, 2.2e-3, 3.891)] == ["14.90us", "2.20ms", "3.89s"]
    assert harness.format_duration(0.9996e-3) == "999.60us"

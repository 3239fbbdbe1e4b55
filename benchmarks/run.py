"""Run every benchmarks/bench_*.py and print one table (``make bench``).

    python benchmarks/run.py [--quick] [--out FILE] [names...]

ratio = peer time / kgslab time: above 1, kgslab is faster than its peer.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from harness import format_table  # noqa: E402


def collect(quick: bool, names: list[str] | None = None):
    rows = []
    for path in sorted(HERE.glob("bench_*.py")):
        topic = path.stem.removeprefix("bench_")
        if names and topic not in names:
            continue
        module = importlib.import_module(path.stem)
        rows.extend(module.rows(quick=quick))
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes, one repeat (a smoke test)")
    parser.add_argument("--out", help="also write the table to this file (default: print it only)")
    parser.add_argument("names", nargs="*", help="only these topics (bench_<topic>.py)")
    args = parser.parse_args(argv)
    table = format_table(collect(args.quick, args.names))
    print(table)
    if args.out:
        out = Path(args.out).expanduser()
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(table + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Rebuild the shipped corpus files (``make data``).

    python -m kgslab.data build    # data/docs.mat and data/Ks.mat from data/constitution/*.txt
"""

from __future__ import annotations

import argparse
import time

from . import corpus


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kgslab.data", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["build"])
    args = parser.parse_args(argv)
    started = time.perf_counter()
    paths = corpus.build_corpus_files()
    for path in paths:
        print(f"wrote {path} ({path.stat().st_size / 1024:.0f} KiB)")
    print(f"done in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

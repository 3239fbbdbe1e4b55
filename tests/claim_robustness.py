"""Rerun a solution notebook with its seeds shifted and compare every verdict with the stored one (issue 31).

A chain on another CPU is, in effect, the same chain with other rounding and, after a few hundred steps, other
random numbers. So a claim that a notebook prints (``report.claim``: ✔ / ✘) must hold for any random numbers, not
for the ones this machine drew. This module shifts every literal seed of a notebook, ``default_rng(2000)`` ->
``default_rng(2000 + shift)`` (each notebook derives every other draw from that generator), runs it with nbclient,
and reads back

* the verdict lines of the run (every output line that starts with ✔ or ✘: the claims and the checks' verdicts),
* the claims' margins, which ``report.claim`` appends to the file named by ``KGSLAB_CLAIM_LOG``.

A verdict is compared as its sign and its sentence with the numbers masked (a sentence may name how many points
a run drew). Used by tests/test_claim_robustness.py (``make claims``) and from the command line::

    python tests/claim_robustness.py solutions/08_kernel_gibbs_sampler.ipynb --shifts 1 2 3 4 5
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from no_figures import NO_PNG

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))
SEED = re.compile(r"default_rng\((\d+)\)")
NUMBER = re.compile(r"\d+(\.\d+)?")
ESTIMATE = re.compile(r"[-+]?\d+(\.\d+)? ± \d+(\.\d+)?")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
TIMEOUT = 600          # seconds a cell may take (a shifted run is as long as the stored one)
# A shifted run is read for its verdict lines and its claims' log, never for its figures: the kernel runs every
# plotting call but renders and encodes no PNG (measured: 10-23% of a notebook's kernel CPU, 1.3 s of 03's 5.6 s,
# 3.0 s of 08's 26 s). The browser tests show every figure of every solution (tests/no_figures.py).
NO_FIGURE_IMAGES = f"--IPKernelApp.exec_lines={NO_PNG}"


@dataclass
class Verdict:
    holds: bool            # ✔ or ✘
    sentence: str          # the statement, numbers masked

    @classmethod
    def parse(cls, line: str) -> "Verdict":
        text = line.strip()
        holds = text.startswith("✔")
        sentence = text[1:].strip().removeprefix("not supported by this run:").strip()
        return cls(holds, NUMBER.sub("N", ESTIMATE.sub("E", sentence)))

    def __str__(self):
        return ("✔ " if self.holds else "✘ ") + self.sentence


@dataclass
class Run:
    verdicts: list[Verdict]
    margins: list[dict] = field(default_factory=list)   # the claims' JSON lines, in order
    error: str | None = None                            # the exception that stopped the notebook, if any


def shift_seeds(notebook, shift: int):
    """A copy of ``notebook`` with every literal ``default_rng(N)`` in its code cells made ``default_rng(N + shift)``.

    The copy has no outputs, so that a cell the run never reaches shows no stored verdict.
    """
    shifted = nbformat.from_dict(json.loads(json.dumps(notebook)))
    count = 0
    for cell in shifted.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
            cell.source, n = SEED.subn(lambda m: f"default_rng({int(m.group(1)) + shift})", cell.source)
            count += n
    if count == 0:
        raise ValueError("the notebook has no default_rng(<int>) seed to shift")
    return shifted


def verdict_lines(notebook) -> list[str]:
    """Every output line of the notebook's code cells that starts with ✔ or ✘, in order."""
    lines = []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        for output in cell.get("outputs", []):
            text = output.get("text", "") if output.get("output_type") == "stream" else \
                output.get("data", {}).get("text/plain", "") if output.get("output_type") == "execute_result" else ""
            lines += [line for line in text.splitlines() if line.lstrip().startswith(("✔", "✘"))]
    return lines


def has_seeds(path: Path) -> bool:
    """Whether the notebook draws anything at random (a literal default_rng seed in a code cell)."""
    return any(cell.cell_type == "code" and SEED.search(cell.source)
               for cell in nbformat.read(path, as_version=4).cells)


def stored_seconds(path: Path) -> float:
    """The seconds the stored run's cells took (nbclient's execution timestamps in each cell's metadata; 0 if none)."""
    total = 0.0
    for cell in nbformat.read(path, as_version=4).cells:
        timing = cell.get("metadata", {}).get("execution", {})
        if "iopub.execute_input" in timing and "shell.execute_reply" in timing:
            started, ended = (datetime.fromisoformat(timing[key].replace("Z", "+00:00"))
                              for key in ("iopub.execute_input", "shell.execute_reply"))
            total += (ended - started).total_seconds()
    return total


def stored_verdicts(path: Path) -> list[Verdict]:
    return [Verdict.parse(line) for line in verdict_lines(nbformat.read(path, as_version=4))]


def run_shifted(path: Path, shift: int, timeout: int = TIMEOUT) -> Run:
    """Run the notebook at ``path`` with its seeds shifted by ``shift``; its verdicts, margins and any error."""
    notebook = shift_seeds(nbformat.read(path, as_version=4), shift)
    with tempfile.TemporaryDirectory() as scratch:
        log = Path(scratch) / "claims.jsonl"
        env_before = os.environ.get("KGSLAB_CLAIM_LOG")
        os.environ["KGSLAB_CLAIM_LOG"] = str(log)     # the kernel inherits this process's environment
        error = None
        try:
            NotebookClient(notebook, timeout=timeout, kernel_name="python3", extra_arguments=[NO_FIGURE_IMAGES],
                           resources={"metadata": {"path": str(path.parent)}}).execute()
        except Exception as exc:                       # a cell raised: the run failed under this shift
            failed = [index for index, cell in enumerate(notebook.cells) if cell.cell_type == "code"
                      and any(output.get("output_type") == "error" for output in cell.get("outputs", []))]
            last_line = str(exc).strip().splitlines()[-1] if str(exc).strip() else ""
            error = f"cell {failed[0] if failed else '?'}: {ANSI.sub('', last_line)}"
        finally:
            if env_before is None:
                os.environ.pop("KGSLAB_CLAIM_LOG", None)
            else:
                os.environ["KGSLAB_CLAIM_LOG"] = env_before
        margins = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return Run([Verdict.parse(line) for line in verdict_lines(notebook)], margins, error)


def differences(stored: list[Verdict], run: Run) -> list[str]:
    """What in ``run`` differs from the stored verdicts, one line each (empty when every verdict stands)."""
    problems = [f"the notebook stopped: {run.error}"] if run.error else []
    for index, (before, after) in enumerate(zip(stored, run.verdicts)):
        if before != after:
            problems.append(f"verdict {index}: stored {before}\n              now    {after}")
    if len(stored) != len(run.verdicts):
        problems.append(f"{len(stored)} verdicts stored, {len(run.verdicts)} printed")
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--shifts", nargs="+", type=int, default=[1, 2, 3, 4, 5])
    args = parser.parse_args(argv)
    failed = False
    for path in args.notebooks:
        if not has_seeds(path):
            print(f"{path.name}: draws nothing at random, nothing to shift")
            continue
        stored = stored_verdicts(path)
        worst: dict[str, float] = {}
        for shift in args.shifts:
            run = run_shifted(path, shift)
            problems = differences(stored, run)
            failed |= bool(problems)
            print(f"{path.name} shift {shift}: " + ("every verdict as stored" if not problems else "\n  ".join(["DIFFERS"] + problems)))
            for entry in run.margins:
                if entry["margin"] is not None:
                    key = entry["statement"][:90]
                    worst[key] = min(worst.get(key, float("inf")), entry["margin"])
        for statement, margin in worst.items():
            print(f"  worst margin {margin:8.3g}  {statement}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

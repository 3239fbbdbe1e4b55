"""Committed result files: the output of runs too long for a notebook, kept in data/results/.

A notebook that shows such a result loads it with `load_result(name)` (or opens
`result_path(name)` itself) and says which command made it.  The files ship inside
the wheel like every other data file, so this works from an installed kit as well
as from a clone.  Anything saved under data/results/ ships automatically
(pyproject.toml); its provenance goes into data/README.md.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path, PurePosixPath

import numpy as np

from ._paths import DATA_DIR

__all__ = ["RESULTS_DIR", "result_path", "load_result"]

RESULTS_DIR = DATA_DIR / "results"


def result_path(name: str) -> Path:
    """The path of the committed result file `name` in data/results/ (e.g. "kgs_figure4.json").

    `name` is relative to data/results/ and may name a subfolder ("billiard/heart.csv").
    Raises FileNotFoundError, listing the files there are, when it does not exist.
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be a non-empty string such as 'kgs_figure4.json', got {name!r}")
    relative = PurePosixPath(name.replace("\\", "/"))
    if relative.is_absolute() or ".." in relative.parts:
        raise ValueError(f"name must be a path inside data/results/ (no leading '/', no '..'), got {name!r}")
    path = RESULTS_DIR.joinpath(*relative.parts)
    if not path.is_file():
        available = sorted(str(p.relative_to(RESULTS_DIR).as_posix()) for p in RESULTS_DIR.rglob("*")
                           if p.is_file()) if RESULTS_DIR.is_dir() else []
        raise FileNotFoundError(f"no result file {name!r} (the argument name) in {RESULTS_DIR}; the files there are: "
                                f"{', '.join(available) if available else 'none'}")
    return path


def load_result(name: str):
    """Read the committed result file `name` from data/results/, by its extension.

    * ``.json``: the parsed JSON (dicts, lists, numbers, strings);
    * ``.csv``: a dict {column name: numpy array}, from a CSV file with one header row
      (a column of numbers becomes a float array, any other column an array of strings);
    * ``.npz``: a dict {array name: numpy array}.
    """
    path = result_path(name)
    suffix = path.suffix.lower()
    if suffix == ".json":
        return json.loads(path.read_text(encoding="utf-8"))
    if suffix == ".csv":
        with open(path, newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle))
        if not rows:
            raise ValueError(f"{path} is empty: a result CSV needs a header row")
        header, body = rows[0], rows[1:]
        for number, row in enumerate(body, start=2):
            if len(row) != len(header):
                raise ValueError(f"{path}, line {number}: {len(row)} fields, the header has {len(header)}")
        return {column: _column(row[i] for row in body) for i, column in enumerate(header)}
    if suffix == ".npz":
        with np.load(path, allow_pickle=False) as arrays:
            return {key: arrays[key] for key in arrays.files}
    raise ValueError(f"load_result reads .json, .csv and .npz files, got {name!r}; open result_path(name) instead")


def _column(values) -> np.ndarray:
    values = list(values)
    try:
        return np.array([float(value) for value in values])
    except ValueError:
        return np.array(values, dtype=str)

"""Grading cases the student cannot see: drawn at grading time from the course's secret.

An exercise's public cases (`Exercise.cases()`) are seeded and printed, so a
student could return their answers literally.  The grader adds cases drawn
from a secret that only the course directory holds (`python -m
kgslab.assignments` writes it into nbgrader_config.py, never into the
release), mixed with the exercise and the student, so no two students share
them:

* every exercise gets its public cases built again with every seeded
  generator they make (``np.random.default_rng(seed)``, in the check and in
  the data generators it calls) reseeded from the secret: the same sizes,
  fresh values;
* an exercise may add cases of other sizes and shapes with ``hidden=`` (a
  function of a numpy Generator returning a list of Case).

A case made only from fixed files (the corpus) is the same under any seed;
such an exercise is graded on it as it is.  The grader compares the student's
answers on hidden cases inside `reseeded(seed)` too, since some comparisons
rebuild the case's data from its seed.
"""

from __future__ import annotations

import contextlib
import hashlib
import numbers

import numpy as np

__all__ = ["grading_seed", "hidden_cases", "reseeded"]


def grading_seed(secret: str, key: str, student: str) -> int:
    """A 64-bit seed from the course's secret, the exercise and the student."""
    digest = hashlib.sha256(f"{secret}\0{key}\0{student}".encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "little")


@contextlib.contextmanager
def reseeded(seed: int):
    """np.random.default_rng(s) for an int (or no) seed s gives a generator mixed with `seed` while the block runs."""
    original = np.random.default_rng

    def default_rng(value=None, *args, **kwargs):
        if value is None or isinstance(value, numbers.Integral):
            value = [seed, 0 if value is None else int(value) + 1]
        return original(value, *args, **kwargs)

    np.random.default_rng = default_rng
    try:
        yield
    finally:
        np.random.default_rng = original


def hidden_cases(exercise, secret: str, student: str) -> list:
    """The exercise's cases drawn from the secret (see the module's docstring)."""
    seed = grading_seed(secret, exercise.key, student)
    with reseeded(seed):
        cases = list(exercise.cases())
    for case in cases:
        case.label = f"a grading case like '{case.label}'"
    if exercise.hidden is not None:
        cases += list(exercise.hidden(np.random.default_rng(seed)))
    return cases

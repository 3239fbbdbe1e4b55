"""Paper-sized runs fan out: one task per split or training set, through joblib, seeds independent of workers.

    results = fan_out(function, tasks, random_state, n_jobs=-1)      # [function(task, rng) for each task]

Each task gets its own generator, spawned from `random_state` before any task runs
(`numpy.random.Generator.spawn`, i.e. `SeedSequence.spawn`): task k's random numbers depend on k only, never
on which worker runs it or in which order, so 1 worker, 2 workers or a cluster give the same numbers.

joblib runs the tasks: `n_jobs` workers (-1: every core, the paper-sized commands' default), or None: joblib's
own default, one process unless a `joblib.parallel_config` context says otherwise (the functions a notebook
calls default to None, so a notebook's kernel starts no worker processes).  On a Dask cluster, wrap the call in joblib's Dask backend:

    from dask.distributed import Client
    import joblib
    client = Client("scheduler-address:8786")          # or Client(LocalCluster()) on one machine
    with joblib.parallel_config(backend="dask"):
        study = bt1999.bounce_study(X, y, 10.0, n_splits=100, auto=100)

(the `distributed` package: `pip install "kgslab[cluster]"`).
"""

from __future__ import annotations

from numbers import Integral

import joblib
import numpy as np

from .._blas import blas_threads
from .._validation import as_generator

__all__: list = []   # a private helper of the papers modules (tests/test_fan_out.py tests it)


def _check_n_jobs(n_jobs):
    if n_jobs is None:
        return None
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, Integral) or n_jobs == 0:
        raise ValueError(f"n_jobs must be None or a non-zero integer (-1: every core, 1: no workers), "
                         f"got {n_jobs!r:.60}")
    return int(n_jobs)


def _run_one(function, task, seed):
    # The task's generator is made where it runs, from its SeedSequence child: a Generator pickled to a worker
    # loses its seed sequence under NumPy < 2 (a spawn inside the task, as billiard_run's chains do, would then
    # start from other seeds than in the calling process).  PCG64 of the child is exactly what Generator.spawn gives.
    rng = np.random.Generator(np.random.PCG64(seed))
    with blas_threads():            # small matrix products: one BLAS thread per task
        return function(task, rng)


def fan_out(function, tasks, random_state=None, n_jobs=None, progress=None):
    """[function(task, rng_k) for task k] through joblib; rng_k spawned from random_state, one per task.

    `progress(done)` is called in the calling process after each task's result arrives (in task order).
    """
    if not callable(function):
        raise TypeError(f"function must be callable as function(task, rng), got {function!r:.60}")
    tasks = list(tasks)
    n_jobs = _check_n_jobs(n_jobs)
    if len(tasks) <= 1:
        n_jobs = 1                  # one task: no pool to start
    seeds = as_generator(random_state).bit_generator.seed_seq.spawn(len(tasks))   # = Generator.spawn's seeds
    results = []
    calls = [joblib.delayed(_run_one)(function, task, seed) for task, seed in zip(tasks, seeds)]
    try:
        arriving = joblib.Parallel(n_jobs=n_jobs, return_as="generator")(calls)
    except ValueError:      # a backend that cannot stream results (joblib 1.3's Dask backend): all at once
        arriving = joblib.Parallel(n_jobs=n_jobs)(calls)
    for result in arriving:
        results.append(result)
        if progress is not None:
            progress(len(results))
    return results


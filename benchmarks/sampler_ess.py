"""Effective samples per second per test point: the kernel billiard against exact HMC (issue 25; not a unit test).

    taskset -c 0 python benchmarks/sampler_ess.py [--data heart] [--splits 0 1 2] [--out FILE]

On a 60:40 split of heart (the BT paper's RBF sigma = 10, `data.random_split(..., random_state=split)`) each
sampler runs a fixed length with its own diagnostics (split rank R-hat, ESS, MC error from independent chains,
`kgslab.diagnostics`).  For a test point with estimate p and Monte Carlo error e the effective number of
samples is p (1 - p) / e^2: as many independent exact draws of its label would give the same error.  Reported
over the "open" test points (0.05 < p < 0.95, the ones that decide how long a run takes): the median and the
smallest ESS per second.  Then each sampler's default "auto" run (BayesianTransduction's) is timed to its
convergence rule.  BLAS runs on one thread; pin the process to one core with taskset; times are CPU seconds of this process (a loaded machine inflates wall time).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from kgslab import data
from kgslab.billiard import billiard_run
from kgslab.hmc import hmc_run
from kgslab.kernels import rbf_kernel

SIGMA = {"heart": 10.0, "thyroid": 3.0}


def split_kernels(name, split):
    X, y = {"heart": data.load_heart, "thyroid": data.load_thyroid}[name]()
    X_train, X_test, y_train, y_test = data.random_split(X, y, 0.6, random_state=split)
    sigma = SIGMA[name]
    return rbf_kernel(X_train, L=sigma), rbf_kernel(X_test, X_train, L=sigma), y_train


def ess_per_second(run, seconds):
    p, error = run.p_plus, run.mc_error
    open_ = (p > 0.05) & (p < 0.95)
    ess = p[open_] * (1 - p[open_]) / error[open_] ** 2
    return {"seconds": seconds, "n_open": int(open_.sum()), "median_ess": float(np.median(ess)),
            "min_ess": float(np.min(ess)), "median_ess_per_s": float(np.median(ess) / seconds),
            "min_ess_per_s": float(np.min(ess) / seconds), "max_mc_error": float(np.max(error))}


def measure(name, split, bounces, iterations, seed=1):
    K, K_test, y = split_kernels(name, split)
    rows = {}
    started = time.process_time()
    run = billiard_run(K, y, K_test, bounces, random_state=seed)
    rows["billiard"] = {**ess_per_second(run, time.process_time() - started), "n_bounces": bounces}
    started = time.process_time()
    run = hmc_run(K, y, K_test, iterations, random_state=seed)
    rows["hmc"] = {**ess_per_second(run, time.process_time() - started), "n_iterations": iterations,
                   "bounces_per_chain": run.n_bounces}
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default="heart", choices=sorted(SIGMA))
    parser.add_argument("--splits", type=int, nargs="+", default=[0])
    parser.add_argument("--bounces", type=int, default=100_000, help="billiard: bounces per trajectory (4)")
    parser.add_argument("--iterations", type=int, default=400, help="HMC: iterations per chain (8 chains)")
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    results = []
    # what only a process's first HMC run pays (numba's import, loading the compiled loop) is not the sampler's
    hmc_run(np.eye(2), np.array([1.0, -1.0]), np.eye(2), 1, burn_in=0, random_state=0)
    for split in args.splits:
        rows = measure(args.data, split, args.bounces, args.iterations)
        for method, row in rows.items():
            print(f"{args.data} split {split} {method}: {row['seconds']:.1f} s, {row['n_open']} open points, "
                  f"ESS/s median {row['median_ess_per_s']:.0f}, min {row['min_ess_per_s']:.0f} "
                  f"(ESS median {row['median_ess']:.0f}, min {row['min_ess']:.0f})", flush=True)
        results.append({"data": args.data, "split": split, **rows})
    if args.out:
        with open(args.out, "w") as handle:
            json.dump({"command": "python benchmarks/sampler_ess.py " + " ".join(argv or []), "rows": results},
                      handle, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

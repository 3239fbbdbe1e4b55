"""Do two seeds at the defaults give the same answers?  (issues 17 and 25; not a unit test: a few minutes)

    python benchmarks/agreement.py [--only billiard|hmc|kgs] [--out data/results/seed_agreement.json]

BayesianTransduction (n_bounces="auto") on one 60:40 split of thyroid (sigma = 3) and of heart (sigma = 10),
the paper's kernel widths, with each sampler: the default (sampler="auto", i.e. exact HMC, `kgslab.hmc`) and
the paper's kernel billiard (sampler="billiard"); KGS (BayesPointMachine defaults, n_samples="auto") on the
76-point set with 10% of its labels flipped, q = 0.1, voting on 760 fresh test points (notebook 08's set-up).
For each: the share of test labels that change between seed 1 and seed 2, the mean and largest |p
difference|, the largest R-hat and MC error each run reports, and the run time (wall and this process's CPU
time: on a shared machine the CPU time is what a quiet one-core machine takes; BLAS runs on one thread).
Target (issue 17): under 2% of labels change and mean |p difference| under 0.03.
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings

import numpy as np

from kgslab import data
from kgslab._blas import blas_threads
from kgslab.billiard import BayesianTransduction
from kgslab.kernels import rbf_kernel
from kgslab.kgs import BayesPointMachine


def _compare(name, runs, y_test):
    (p1, d1, t1), (p2, d2, t2) = runs
    labels1, labels2 = p1 > 0.5, p2 > 0.5
    return {"problem": name, "n_test": int(len(p1)),
            "labels_changed": float(np.mean(labels1 != labels2)),
            "mean_abs_p_difference": float(np.mean(np.abs(p1 - p2))),
            "max_abs_p_difference": float(np.max(np.abs(p1 - p2))),
            "test_error_seed1": float(np.mean(np.where(labels1, 1, -1) != y_test)),
            "max_rhat": float(max(np.nanmax(d1[0]), np.nanmax(d2[0]))),
            "max_mc_error": float(max(np.nanmax(d1[1]), np.nanmax(d2[1]))),
            "seconds_per_run": float((t1 + t2) / 2)}


def transduction_rows(sampler):
    rows = []
    for name, loader, sigma in (("thyroid", data.load_thyroid, 3.0), ("heart", data.load_heart, 10.0)):
        X, y = loader()
        X_train, X_test, y_train, y_test = data.random_split(X, y, 0.6, random_state=0)
        K, K_test = rbf_kernel(X_train, L=sigma), rbf_kernel(X_test, X_train, L=sigma)
        runs, bounces, converged, cpu_seconds = [], [], [], []
        for seed in (1, 2):
            started, cpu = time.perf_counter(), time.process_time()
            model = BayesianTransduction(random_state=seed, sampler=sampler).fit(K, y_train)
            with blas_threads():
                run = model.sampler_run(K_test)   # predict_proba's run: the same p+, with its diagnostics
            p_plus = run.p_plus
            runs.append((p_plus, (run.rhat, run.mc_error), time.perf_counter() - started))
            cpu_seconds.append(time.process_time() - cpu)
            bounces.append(int(run.n_bounces))   # per trajectory / chain, as the "auto" run stopped
            converged.append(bool(run.converged))
        what = "billiard" if sampler == "billiard" else "exact HMC (the default, sampler='auto')"
        rows.append(_compare(f"{what}, {name} (sigma = {sigma:g}), one 60:40 split", runs, y_test))
        rows[-1]["cpu_seconds_per_run"] = float(np.mean(cpu_seconds))
        rows[-1]["bounces_per_trajectory" if sampler == "billiard" else "bounces_per_chain"] = bounces
        rows[-1]["converged"] = converged
    return rows


def kgs_rows():
    X, y = data.kgs_76_points()
    rng = np.random.default_rng(2000)
    y_noisy = np.where(rng.random(len(y)) < 0.1, -y, y)
    test_sets = [data.kgs_76_points(random_state=seed) for seed in range(1, 11)]
    X_test = np.vstack([Xt for Xt, _ in test_sets])
    y_test = np.concatenate([yt for _, yt in test_sets])
    runs, cpu_seconds, samples = [], [], []
    for seed in (1, 2):
        started, cpu = time.perf_counter(), time.process_time()
        model = BayesPointMachine(q=0.1, kernel="rbf", L=1.0, random_state=seed).fit(X, y_noisy)
        p_plus, votes = model.vote_proba(X_test)[:, 1], model.vote_convergence(X_test)
        runs.append((p_plus, (votes.rhat, votes.mc_error), time.perf_counter() - started))
        cpu_seconds.append(time.process_time() - cpu)       # this process's CPU time: what a quiet machine takes
        samples.append(int(model.chain_alphas_.shape[1]))   # per chain, as the "auto" run stopped
    row = _compare("KGS vote, 76 points with 10% flipped labels, q = 0.1, 760 test points", runs, y_test)
    row["cpu_seconds_per_run"], row["samples_per_chain"] = float(np.mean(cpu_seconds)), samples
    return [row]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", help="also write the rows as JSON to this file (rows of the other sampler "
                                      "already in it are kept with --only)")
    parser.add_argument("--only", choices=["billiard", "hmc", "kgs"], help="run one sampler's rows only")
    args = parser.parse_args(argv)
    warnings.simplefilter("always")
    rows = ((transduction_rows("auto") if args.only in (None, "hmc") else [])
            + (transduction_rows("billiard") if args.only in (None, "billiard") else [])
            + (kgs_rows() if args.only in (None, "kgs") else []))
    for row in rows:
        verdict = "meets" if row["labels_changed"] < 0.02 and row["mean_abs_p_difference"] < 0.03 else "MISSES"
        print(f"{row['problem']}: labels changed {row['labels_changed']:.1%}, mean |dp| "
              f"{row['mean_abs_p_difference']:.4f} (max {row['max_abs_p_difference']:.3f}), max R-hat "
              f"{row['max_rhat']:.4f}, max MC error {row['max_mc_error']:.4f}, {row['seconds_per_run']:.1f} s a run "
              f"({row.get('cpu_seconds_per_run', float('nan')):.1f} s CPU) "
              f"-> {verdict} the target (< 2% labels, mean |dp| < 0.03)")
    if args.out:
        command = f"python benchmarks/agreement.py{' --only ' + args.only if args.only else ''} --out {args.out}"
        for row in rows:
            row["command"] = command
        if args.only and os.path.exists(args.out):
            prefix = {"billiard": "billiard", "hmc": "exact HMC", "kgs": "KGS"}[args.only]
            with open(args.out) as handle:
                old = json.load(handle)["rows"]
            # the new rows take the places of the ones they replace (readers list the file in its order)
            places = [k for k, row in enumerate(old) if row["problem"].startswith(prefix)]
            if len(places) == len(rows):
                for k, row in zip(places, rows):
                    old[k] = row
                rows = old
            else:
                rows = [row for row in old if not row["problem"].startswith(prefix)] + rows
        with open(args.out, "w") as handle:
            json.dump({"command": "python benchmarks/agreement.py --out " + args.out + " (each row: its own command)",
                       "rows": rows}, handle, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Experiments of the kernel Gibbs sampler paper (seed 001, Graepel and Herbrich, NIPS 2000).

Figure 4 compares the Bayes point of the KGS with the quadratic (2-norm) soft-margin SVM without bias on
the same kernel: the hard-margin SVM on K + lam I.  `figure4` runs it on independent training/test sets of
the sphere data with 5% flipped labels, over an assumed flip rate q for the BPM and a lambda for the SVM on
axes of their own (the paper puts both on one axis, 0.02 to 0.1); `main` writes the paper-sized run
(100 sets) to data/results/kgs2000_figure4.json:

    python -m kgslab.papers.kgs2000
"""

from __future__ import annotations

import json

import numpy as np

from .. import data
from .._validation import (as_float_array, as_generator, as_pm1_labels, as_positive_int, as_probabilities,
                           as_scalar, check_work_budget)
from ..kernels import linear_kernel
from .._kgs_engine import MAX_STEPS
from ..kgs import gibbs_run
from ..versionspace import kernel_coordinates, max_margin

__all__ = ["quadratic_svm", "figure4", "figure4_full", "write_figure4", "FIGURE4_Q", "FIGURE4_LAMBDA", "FIGURE4_FILE",
           "FIGURE4_COMMAND"]

FIGURE4_Q = (0.02, 0.05, 0.1, 0.2)                      # the BPM's assumed flip rate (truth: 0.05)
FIGURE4_LAMBDA = (0.02, 0.05, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0)   # the SVM's lambda, 0.02 to 30 (log axis)
FIGURE4_FILE = "kgs2000_figure4.json"
FIGURE4_COMMAND = "python -m kgslab.papers.kgs2000"
MAX_POINTS = 100_000       # training or test points of one set (the paper: 100 / 1000); more looks like a hang
FIGURE4_BURN_IN, FIGURE4_THIN = 50, 3


def quadratic_svm(K, y, lam):
    """Quadratic soft-margin SVM without bias: the hard-margin SVM on K + lam I (lam > 0).

    Each training point gets a private feature sqrt(lam) e_i, so K + lam I = [Phi, sqrt(lam) I][Phi, sqrt(lam) I]'
    and every labelling is separable; the maximum-margin hyperplane of `kgslab.versionspace.max_margin` in
    those coordinates is the SVM.  Returns beta = alpha * y, so f(x) = sum_i beta_i k(x, x_i) (for a new point x
    the private features are 0, as in the paper's kernel <x, x'> + lam I(x = x')).
    """
    features, _ = kernel_coordinates(K)
    y = as_pm1_labels(y, "y", length=features.shape[0], length_of="K")
    lam = as_scalar(lam, "lam", low=0.0, low_open=True)
    return max_margin(np.hstack([features, np.sqrt(lam) * np.eye(len(y))]), y)


def figure4(n_sets=12, q_levels=FIGURE4_Q, lambdas=FIGURE4_LAMBDA, *, n_train=100, n_test=1000,
            flip_rate=0.05, samples_per_chain=25, n_chains=4, random_state=None):
    """Test errors of the BPM (per q) and the quadratic SVM (per lambda) on n_sets independent sets.

    Each set: n_train training and n_test test points of `data.sphere_data` with `flip_rate` of the labels
    flipped (both; the error is against the noisy test labels, so flip_rate is the floor).  The BPM is the
    mean of n_chains x samples_per_chain KGS samples (the paper: 100), linear kernel, burn-in 50, thin 3.
    Returns a dict of arrays: bpm (n_sets, len(q_levels)), svm (n_sets, len(lambdas)), and the largest
    R-hat of a training vote over each set's chains, rhat (n_sets, len(q_levels)).
    """
    n_sets = as_positive_int(n_sets, "n_sets", minimum=2)
    q_levels = as_float_array(q_levels, "q_levels", ndim=1)
    if np.any(q_levels < 0) or np.any(q_levels >= 0.5):
        raise ValueError(f"q_levels must hold assumed flip rates in [0, 0.5), got {q_levels.tolist()[:6]}")
    lambdas = as_float_array(lambdas, "lambdas", ndim=1)
    if np.any(lambdas <= 0):
        raise ValueError(f"lambdas must hold numbers > 0 (lambda I is added to K), got {lambdas.tolist()[:6]}")
    for name, value in (("n_train", n_train), ("n_test", n_test)):
        check_work_budget(as_positive_int(value, name), MAX_POINTS, name, value, "points per set")
    flip_rate = as_scalar(flip_rate, "flip_rate", low=0.0, high=0.5)
    # R-hat splits each chain in two halves: with fewer than 4 samples a half has one draw and R-hat is NaN
    samples_per_chain = as_positive_int(samples_per_chain, "samples_per_chain", minimum=4)
    n_chains = as_positive_int(n_chains, "n_chains")
    steps = n_sets * len(q_levels) * n_chains * (FIGURE4_BURN_IN + FIGURE4_THIN * samples_per_chain)
    check_work_budget(steps, MAX_STEPS, "samples_per_chain", samples_per_chain,
                      "Gibbs steps (times n_sets, the q_levels and n_chains)")
    rng = as_generator(random_state)
    bpm = np.zeros((n_sets, len(q_levels)))
    svm = np.zeros((n_sets, len(lambdas)))
    rhat = np.zeros((n_sets, len(q_levels)))
    for s in range(n_sets):
        X_train, y_train, _ = data.sphere_data(n_train, flip_rate=flip_rate, random_state=rng)
        X_test, y_test, _ = data.sphere_data(n_test, flip_rate=flip_rate, random_state=rng)
        K_train, K_test = linear_kernel(X_train), linear_kernel(X_test, X_train)
        for k, q in enumerate(q_levels):
            run = gibbs_run(K_train, y_train, q, samples_per_chain, n_chains=n_chains, burn_in=FIGURE4_BURN_IN,
                            thin=FIGURE4_THIN,
                            random_state=rng)
            bayes_point = run.alphas.reshape(-1, n_train).mean(axis=0)
            bpm[s, k] = np.mean(np.sign(K_test @ bayes_point) != y_test)
            rhat[s, k] = np.nanmax(run.rhat)
        for k, lam in enumerate(lambdas):
            svm[s, k] = np.mean(np.sign(K_test @ quadratic_svm(K_train, y_train, lam)) != y_test)
    return {"q_levels": q_levels, "lambdas": lambdas, "bpm": bpm, "svm": svm, "rhat": rhat}


def figure4_full():
    """The paper-sized Figure 4: 100 sets, seed 2000 (what `main` and notebook 08 with KGSLAB_FULL=1 run)."""
    return figure4(100, random_state=2000)


def _as_figure4_run(run):
    """`figure4`'s dict, checked: q_levels, lambdas, test errors bpm / svm in [0, 1] and rhat (sets, levels)."""
    keys = ("q_levels", "lambdas", "bpm", "svm", "rhat")
    if not isinstance(run, dict) or any(key not in run for key in keys):
        raise TypeError(f"run must be the dict figure4 returns, with the keys {keys}, got {type(run).__name__}")
    q_levels = as_float_array(run["q_levels"], "run['q_levels']", ndim=1)
    lambdas = as_float_array(run["lambdas"], "run['lambdas']", ndim=1)
    bpm = as_probabilities(run["bpm"], "run['bpm']", ndim=2)
    for key, columns in (("bpm", len(q_levels)), ("svm", len(lambdas)), ("rhat", len(q_levels))):
        array = (as_probabilities if key != "rhat" else as_float_array)(run[key], f"run['{key}']", ndim=2)
        if array.shape != (bpm.shape[0], columns):
            raise ValueError(f"run['{key}'] must have the shape (sets {bpm.shape[0]}, {columns}), got {array.shape}")
    return run


def write_figure4(run, path=None):
    """Write a Figure 4 run (`figure4_full()`) to `path` (default: kgs2000_figure4.json in data/results/ of a
    clone, in the current directory of an installed kit: `kgslab.papers.output_path`); returns the path."""
    from . import output_path

    run = _as_figure4_run(run)
    payload = {"command": FIGURE4_COMMAND + "  (or: KGSLAB_FULL=1 jupyter nbconvert --to notebook --execute "
                                            "solutions/08_kernel_gibbs_sampler.ipynb)",
               "what": "test error (against noisy test labels) of the BPM (100 KGS samples, 4 chains) per "
                       "assumed flip rate q and of the quadratic soft-margin SVM per lambda, on independent "
                       "sets of 100 training / 1000 test points of the sphere data with 5% flipped labels; "
                       "rows: sets; rhat: the largest R-hat of a monitored vote of each BPM's chains",
               **{key: np.asarray(value).tolist() for key, value in run.items()}}
    path = output_path(FIGURE4_FILE, path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    return path


def main(argv=None):
    """Write the paper-sized Figure 4 (100 sets) to kgs2000_figure4.json."""
    import argparse

    from . import OUT_HELP

    parser = argparse.ArgumentParser(prog=FIGURE4_COMMAND, description=main.__doc__)
    parser.add_argument("--out", help=OUT_HELP)
    arguments = parser.parse_args(argv)
    print(write_figure4(figure4_full(), arguments.out))


if __name__ == "__main__":
    main()

"""Studies of the kernel Gibbs sampler beyond the paper's figures (seed 001, Graepel and Herbrich, NIPS 2000).

The sampler against the exact posterior of eq. (2) on the sphere in R^3 (`exact_sphere_posterior`, chains of a
step function by `step_chains`, drawn by `plot_exact_check`); how fast its chains mix (`mixing_figure`);
active learning by the vote's entropy (`active_learning`, `plot_active_learning`); and section 4's evidence by
thermodynamic integration, drawn by `evidence_figure` (the mean errors against the inverse temperature, whose
integral is the log evidence) and, for runs by replica exchange, `replica_exchange_figure`.  Notebook 08's
appendix calls them with the student's own functions.  The paper's Figures 1-4 are in `kgslab.papers.kgs2000`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._kgs_engine import MAX_STEPS
from .._validation import (as_flip_rate, as_float_array, as_generator, as_labelled_points_in_r3, as_matrix,
                           as_pm1_labels, as_positive_int, as_probabilities, as_scalar, as_vector, check_work_budget)
from ..evidence import EvidenceRun, log_likelihood, training_errors
from ..kernels import rbf_kernel
from ..kgs import gibbs_run

__all__ = ["exact_sphere_posterior", "step_chains", "plot_exact_check", "mixing_figure", "active_learning",
           "ActiveLearningRun", "plot_active_learning", "evidence_figure", "replica_exchange_figure"]


def exact_sphere_posterior(X, y, q, X_test, n_grid=100_000):
    """The exact posterior of eq. (2) on the sphere in R^3, by quadrature on n_grid nearly equal-area points
    (a Fibonacci lattice): (the probability of each number of training errors 0..m, P(<W, x> > 0) for each row of
    X_test).  The lattice's own error is about 1 / sqrt(n_grid) per probability.
    """
    X, y = as_labelled_points_in_r3(X, y)
    X_test = as_matrix(X_test, "X_test")
    if X_test.shape[1] != 3:
        raise ValueError(f"X_test must hold points of R^3, shape (n, 3), got shape {X_test.shape}")
    q = as_flip_rate(q)
    n_grid = as_positive_int(n_grid, "n_grid", minimum=10)
    check_work_budget(n_grid, 10_000_000, "n_grid", n_grid, "quadrature points")
    index = np.arange(n_grid) + 0.5
    z = 1 - 2 * index / n_grid
    azimuth = np.pi * (1 + 5**0.5) * index
    grid = np.column_stack([np.sqrt(1 - z**2) * np.cos(azimuth), np.sqrt(1 - z**2) * np.sin(azimuth), z])
    errors = training_errors(grid @ X.T, y)
    weights = np.exp(log_likelihood(errors, len(y), q) - log_likelihood(errors.min(), len(y), q))
    weights /= weights.sum()
    return np.bincount(errors, weights=weights, minlength=len(y) + 1), (grid @ X_test.T > 0).T.astype(float) @ weights


def step_chains(step, features, y, q, *, n_chains=4, n_samples=1000, thin=1, burn_in=100, random_state=None):
    """Independent chains of a KGS step function, each from its own random start: (n_chains, n_samples, r) unit
    coordinates.  Each step draws a random tangent (step 2) and calls step(features, y, coords, direction, q, rng)
    for steps 3-8 (notebook 08 passes the student's Exercise 8.3); one sample is kept every `thin` steps after
    `burn_in`.
    """
    from ..versionspace import random_tangent

    if not callable(step):
        raise TypeError(f"step must be a function step(features, y, coords, direction, q, rng) -> new coords "
                        f"(Exercise 8.3), got {type(step).__name__}")
    features = as_matrix(features, "features")
    y = as_pm1_labels(y, "y", length=features.shape[0], length_of="features")
    q = as_flip_rate(q)
    n_chains, n_samples = as_positive_int(n_chains, "n_chains"), as_positive_int(n_samples, "n_samples")
    thin, burn_in = as_positive_int(thin, "thin"), as_positive_int(burn_in, "burn_in", minimum=0)
    check_work_budget(n_chains * (burn_in + n_samples * thin), MAX_STEPS, "n_samples", n_samples,
                      "steps (times n_chains, with burn_in and thin)")
    rng = as_generator(random_state)
    samples = np.empty((n_chains, n_samples, features.shape[1]))
    for chain in range(n_chains):
        coords = rng.standard_normal(features.shape[1])
        coords /= np.linalg.norm(coords)
        for t in range(burn_in + n_samples * thin):
            coords = np.asarray(step(features, y, coords, random_tangent(coords, rng), q, rng), dtype=float)
            if t >= burn_in and (t - burn_in) % thin == thin - 1:
                samples[chain, (t - burn_in) // thin] = coords
    return samples


def plot_exact_check(exact_errors, sampled_errors, exact_p, sampled_p, *, who="the", q=None):
    """The sampler against the exact posterior: the distribution of the number of training errors (exact, and the
    share of the samples with each count: `sampled_errors` holds every sample's count) and each test point's
    vote fraction against its exact P(<W, x> > 0).  `who` names whose sampler ran ("your", "the kit's").
    Returns the figure.
    """
    import matplotlib.pyplot as plt

    exact_errors = as_probabilities(exact_errors, "exact_errors", ndim=1)
    sampled_errors = as_vector(sampled_errors, "sampled_errors")
    if np.any(sampled_errors != np.round(sampled_errors)) or np.any(sampled_errors < 0) \
            or np.any(sampled_errors >= len(exact_errors)):
        raise ValueError(f"sampled_errors must hold counts of training errors, 0 to {len(exact_errors) - 1}")
    exact_p = as_probabilities(exact_p, "exact_p", ndim=1)
    sampled_p = as_probabilities(sampled_p, "sampled_p", ndim=1)
    if len(sampled_p) != len(exact_p):
        raise ValueError(f"sampled_p must have one vote fraction per test point ({len(exact_p)}), got {len(sampled_p)}")
    counts = np.arange(len(exact_errors))
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    left.bar(counts - 0.2, exact_errors, 0.4, label="exact (grid)")
    left.bar(counts + 0.2, np.bincount(sampled_errors.astype(int), minlength=len(counts)) / len(sampled_errors), 0.4,
             label=f"{who} KGS, {len(sampled_errors)} samples")
    left.set_xlabel("training errors m R_emp of w")
    left.set_ylabel("posterior probability")
    left.set_title(f"errors under the posterior (m = {len(counts) - 1}" + (f", q = {q:g})" if q is not None else ")"))
    left.legend()
    right.plot(exact_p, sampled_p, ".", ms=4)
    right.plot([0, 1], [0, 1], "k:", lw=1, label="equal")
    right.set_xlabel(r"exact $P(\langle W, x\rangle > 0)$")
    right.set_ylabel(f"vote fraction of {who} chains")
    right.set_title(f"{len(exact_p)} test points")
    right.legend()
    figure.suptitle("The KGS against the exact posterior on the sphere in R^3")
    return figure


def mixing_figure(problems, *, n_steps=3000, burn_in=200, n_lag=40, random_state=None):
    """How fast the KGS forgets: for each problem, `kgslab.kgs.gibbs_run` with 4 chains keeping every step, the
    first 500 steps of one chain's training errors (left) and the autocorrelation of one chain's training errors
    and output on a probe point (right), with the effective sample size of the 4 chains together per 1000 steps.

    `problems` maps a name to (K, y, q, k_probe) with k_probe the (1, m) kernel row of the probe point.  Returns
    (figure, {(name, "training errors" or "output on the test point"): steps per effective sample}).
    """
    import matplotlib.pyplot as plt

    from ..diagnostics import autocorrelation, ess

    if not isinstance(problems, dict) or not problems:
        raise TypeError(f"problems must be a dict {{name: (K, y, q, k_probe)}}, got {type(problems).__name__}")
    n_steps = as_positive_int(n_steps, "n_steps", minimum=4)
    burn_in = as_positive_int(burn_in, "burn_in", minimum=0)
    n_lag = as_positive_int(n_lag, "n_lag")
    rng = as_generator(random_state)
    checked = {}
    for name, problem in problems.items():
        if not isinstance(problem, (tuple, list)) or len(problem) != 4:
            raise TypeError(f"problems[{name!r}] must be (K, y, q, k_probe), got {type(problem).__name__}")
        K, y, q, k_probe = problem
        k_probe = as_float_array(k_probe, f"problems[{name!r}] k_probe", ndim=2)
        if k_probe.shape != (1, np.shape(K)[0]):
            raise ValueError(f"problems[{name!r}] k_probe must be one kernel row (1, {np.shape(K)[0]}), got shape "
                             f"{k_probe.shape}")
        checked[name] = (K, y, as_flip_rate(q), k_probe)
    steps_per_sample = {}
    figure, axes = plt.subplots(len(checked), 2, figsize=(12, 3.25 * len(checked)), layout="constrained",
                                squeeze=False)
    for row, (name, (K, y, q, k_probe)) in enumerate(checked.items()):
        run = gibbs_run(K, y, q, n_steps, burn_in=burn_in, thin=1, random_state=rng)
        m = run.alphas.shape[-1]
        error_trace = training_errors(run.alphas.reshape(-1, m) @ np.asarray(K, dtype=float), y)
        error_trace = error_trace.reshape(run.alphas.shape[:2]).astype(float)       # (chains, steps)
        output_trace = run.alphas @ k_probe[0]                                      # (chains, steps)
        axes[row, 0].plot(error_trace[0, :500], lw=0.8)
        axes[row, 0].set_ylabel("training errors")
        axes[row, 0].set_title(f"{name}: first 500 steps of one chain")
        for trace, label in ((error_trace, "training errors"), (output_trace, "output on the test point")):
            rho = autocorrelation(trace[0], n_lag)
            effective = ess(trace)                                                  # bulk ESS of the 4 chains
            steps_per_sample[name, label] = trace.size / effective
            axes[row, 1].plot(rho, "o-", ms=3, label=f"{label}: n_eff = {effective / trace.size * 1000:.0f} per "
                                                     f"1000 steps")
        axes[row, 1].axhline(0, color="k", lw=0.5)
        axes[row, 1].set_ylabel("autocorrelation (one chain)")
        axes[row, 1].set_title(f"{name}: autocorrelation")
        axes[row, 1].legend(fontsize=8)
    axes[-1, 0].set_xlabel("step")
    axes[-1, 1].set_xlabel("lag (steps)")
    figure.suptitle(f"Mixing of the KGS: traces and autocorrelations (n_eff from 4 chains x {n_steps} steps)")
    return figure, steps_per_sample


class ActiveLearningRun(NamedTuple):
    """Learning curves of query by committee against random queries, and the committees' convergence."""

    curves: dict                # strategy -> (n_repeats, n_queries + 1) test errors of the Bayes point
    chosen_rhat: np.ndarray     # R-hat of the committee's vote on each point the entropy rule chose
    chosen_ess: np.ndarray      # its effective sample size


def active_learning(X_pool, y_pool, X_test, y_test, vote_draws, *, n_start=3, n_queries=16, n_repeats=10,
                    committee=12, thin=5, L=1.0, random_state=None):
    """Section 4's active learning on version space (q = 0), the kit's own experiment: from n_start labelled points
    of each class, query n_queries more from the pool, either the candidate whose vote has the highest binary
    entropy (query by committee) or one at random, and record the Bayes point's test error after each query.

    A committee is 4 independent chains of `committee` samples (`kgslab.kgs.gibbs_run`, RBF kernel of width L);
    its votes on the candidates come from `vote_draws(chain_alphas, K_test)` (notebook 08 passes the student's
    Exercise 8.4).  Both strategies of a repetition start from the same points (a paired comparison).
    """
    from ..diagnostics import ess, rhat
    from ..evidence import binary_entropy

    X_pool = as_matrix(X_pool, "X_pool")
    y_pool = as_pm1_labels(y_pool, "y_pool", length=X_pool.shape[0], length_of="X_pool")
    X_test = as_matrix(X_test, "X_test")
    y_test = as_pm1_labels(y_test, "y_test", length=X_test.shape[0], length_of="X_test")
    if not callable(vote_draws):
        raise TypeError(f"vote_draws must be the function of Exercise 8.4, votes = vote_draws(chain_alphas, "
                        f"K_test), got {type(vote_draws).__name__}")
    n_start, n_queries = as_positive_int(n_start, "n_start"), as_positive_int(n_queries, "n_queries")
    n_repeats, committee = as_positive_int(n_repeats, "n_repeats"), as_positive_int(committee, "committee", minimum=4)
    thin, L = as_positive_int(thin, "thin"), as_scalar(L, "L", low=0.0, low_open=True)
    if 2 * n_start + n_queries > len(y_pool):
        raise ValueError(f"n_queries must leave candidates in the pool: {2 * n_start} + {n_queries} > "
                         f"{len(y_pool)} points")
    rng = as_generator(random_state)
    curves = {"highest entropy": np.zeros((n_repeats, n_queries + 1)), "random": np.zeros((n_repeats, n_queries + 1))}
    chosen_rhat, chosen_ess = [], []
    for repeat in range(n_repeats):
        first = np.concatenate([rng.choice(np.flatnonzero(y_pool > 0), n_start, replace=False),
                                rng.choice(np.flatnonzero(y_pool < 0), n_start, replace=False)])
        for strategy, curve in curves.items():
            labelled = list(first)
            for round_ in range(n_queries + 1):
                alphas = gibbs_run(rbf_kernel(X_pool[labelled], L=L), y_pool[labelled], 0.0, committee, thin=thin,
                                   random_state=rng).alphas                        # (4, committee, labelled)
                bayes_point = rbf_kernel(X_test, X_pool[labelled], L=L) @ alphas.mean(axis=(0, 1))
                curve[repeat, round_] = np.mean(np.where(bayes_point > 0, 1.0, -1.0) != y_test)
                if round_ == n_queries:
                    break
                candidates = np.setdiff1d(np.arange(len(X_pool)), labelled)
                if strategy == "random":
                    labelled.append(int(rng.choice(candidates)))
                else:
                    votes = np.asarray(vote_draws(alphas, rbf_kernel(X_pool[candidates], X_pool[labelled], L=L)))
                    query = int(np.argmax(binary_entropy(votes.mean(axis=(0, 1)))))
                    chosen_rhat.append(rhat(votes[:, :, query]))
                    chosen_ess.append(ess(votes[:, :, query]))
                    labelled.append(int(candidates[query]))
    return ActiveLearningRun(curves, np.asarray(chosen_rhat, dtype=float), np.asarray(chosen_ess, dtype=float))


def plot_active_learning(entropy_map, extent, X, y, run, *, n_start=3):
    """Active learning, drawn: the binary entropy of the vote over the plane with the training points (left) and the
    learning curves of `active_learning` (mean and standard error over the repetitions, right), the committees'
    median R-hat and effective sample size in the title.  Returns the figure.
    """
    import matplotlib.pyplot as plt

    entropy_map = as_float_array(entropy_map, "entropy_map", ndim=2)
    extent = as_vector(extent, "extent", length=4, length_of="(x1 min, x1 max, x2 min, x2 max)")
    X = as_matrix(X, "X")
    y = as_pm1_labels(y, "y", length=X.shape[0], length_of="X")
    if not isinstance(run, ActiveLearningRun):
        raise TypeError(f"run must be the ActiveLearningRun that active_learning returns, got {type(run).__name__}")
    figure, (left, right) = plt.subplots(1, 2, figsize=(13, 4.5))
    image = left.imshow(entropy_map, origin="lower", extent=tuple(extent), cmap="magma", aspect="auto")
    figure.colorbar(image, ax=left, label="binary entropy of the vote (bits)")
    left.scatter(*X[y > 0].T, marker="o", facecolors="none", edgecolors="cyan", label="class +1")
    left.scatter(*X[y < 0].T, marker="x", color="white", label="class -1")
    left.set_xlabel("$x_1$")
    left.set_ylabel("$x_2$")
    left.set_title("entropy S(x, z) of the vote: where a label is worth most")
    left.legend(fontsize=8, loc="lower right", facecolor="0.55")   # grey: the white marker shows
    for strategy, curve in run.curves.items():
        n_repeats, rounds = curve.shape
        right.errorbar(np.arange(rounds) + 2 * n_start, curve.mean(axis=0), curve.std(axis=0) / np.sqrt(n_repeats),
                       marker="o", ms=3, capsize=2, label=f"query the {strategy} point")
    right.set_xlabel("number of labelled points")
    right.set_ylabel("test error of the Bayes point")
    right.set_title(f"Active learning ({n_repeats} repetitions, mean ± s.e.)\nvote on the chosen points: median "
                    f"R-hat {np.median(run.chosen_rhat):.2f}, median ESS {np.median(run.chosen_ess):.0f}",
                    fontsize=10)
    right.legend()
    return figure


# ---- Section 4: the evidence by thermodynamic integration ---------------------------------------------------

def _as_evidence_run(run, name="run"):
    if not isinstance(run, EvidenceRun):
        raise TypeError(f"{name} must be the EvidenceRun that kgslab.evidence.evidence_run returns, got "
                        f"{type(run).__name__}")
    return run


def _as_flip_grid(q, run, name="q"):
    q = as_float_array(q, name, ndim=1)
    if len(q) != len(run.log_evidence) or np.any(q <= 0) or np.any(q >= 0.5):
        raise ValueError(f"{name} must be the flip rates in (0, 0.5) the run was made for ({len(run.log_evidence)} "
                         f"of them), got {q.tolist()[:8]}")
    return q


def evidence_figure(run, q, *, marked=None, truth=None, title="the evidence by thermodynamic integration"):
    """Thermodynamic integration, drawn (section 4's evidence): ln E_W[L] = m ln(1-q) - int_0^t E_s[e] ds.

    Left: the mean training errors E_s[e] of each rung of the ladder against its inverse temperature s (with
    2 Monte Carlo standard errors; rung 0, the prior, is exact at m/2), and, for the flip rate `marked`, the area
    under the curve up to t = ln((1-q)/q) that the log evidence subtracts.  Right: ln evidence against q (2
    standard errors), a dotted line at `truth` (the flip rate that made the labels) when given.  `run` is an
    `EvidenceRun` of `kgslab.evidence.evidence_run` for the flip rates q.  Returns the figure.
    """
    import matplotlib.pyplot as plt

    run = _as_evidence_run(run)
    q = _as_flip_grid(q, run)
    figure, (left, right) = plt.subplots(1, 2, figsize=(13, 4.6), layout="constrained")
    left.errorbar(run.ladder, run.mean_errors, 2 * run.mc_error, marker="o", ms=3, capsize=2, color="C0",
                  label="E_s[e]: mean training errors of the rung's samples (± 2 s.e.)")
    if marked is not None:
        marked = as_flip_rate(marked)
        t = float(np.log((1 - marked) / marked))
        inside = run.ladder <= t
        s = np.append(run.ladder[inside], t)
        area = np.append(run.mean_errors[inside], np.interp(t, run.ladder, run.mean_errors))
        left.fill_between(s, area, color="C0", alpha=0.2,
                          label=f"the integral up to t = ln((1-q)/q) = {t:.2f} (q = {marked:g})")
        left.axvline(t, color="C0", ls=":", lw=1)
    left.set_xlabel("inverse temperature s (rung s samples the posterior of flip rate 1 / (1 + e^s))")
    left.set_ylabel("mean training errors E_s[e]")
    left.set_title(f"{len(run.ladder)} rungs from the prior (s = 0, E_0[e] = m/2) to q = {q.min():g}")
    left.legend(fontsize=8)
    right.errorbar(q, run.log_evidence, 2 * run.standard_error, marker="o", ms=3, capsize=2, color="C0",
                   label="ln evidence (± 2 s.e.)")
    if truth is not None:
        right.axvline(as_flip_rate(truth), color="grey", ls=":", label=f"true flip rate {truth:g}")
    right.set_xlabel("assumed flip rate q")
    right.set_ylabel("ln evidence  ln E_W[L(W, z)]")
    right.set_title(f"best q in this run: {q[int(np.argmax(run.log_evidence))]:g}")
    right.legend(fontsize=8)
    figure.suptitle(title)
    return figure


def replica_exchange_figure(runs, q):
    """Replica exchange, drawn: ln evidence against q for each run (left, 2 standard errors) and each rung's
    R-hat of the error count against its flip rate (right, log axis), with the smallest effective sample size and
    the range of swap acceptances in the legend.  `runs` maps a name to an `EvidenceRun` (tempered=True) for the
    flip rates q.  Returns the figure.
    """
    import matplotlib.pyplot as plt

    if not isinstance(runs, dict) or not runs:
        raise TypeError(f"runs must be a dict {{name: EvidenceRun}}, got {type(runs).__name__}")
    runs = {name: _as_evidence_run(run, f"runs[{name!r}]") for name, run in runs.items()}
    q = _as_flip_grid(q, next(iter(runs.values())))
    figure, (left, right) = plt.subplots(1, 2, figsize=(13, 5.4), layout="constrained")
    for k, (name, run) in enumerate(runs.items()):
        left.errorbar(q, run.log_evidence, 2 * run.standard_error, marker="o", ms=3, capsize=2, color=f"C{k}",
                      label=name)
        swaps = ("" if run.swap_acceptance is None else
                 f", swaps {run.swap_acceptance.min():.0%}-{run.swap_acceptance.max():.0%}")
        right.plot(1 / (1 + np.exp(run.ladder[1:])), run.rhat, marker="o", ms=3, color=f"C{k}",
                   label=f"{name}: smallest ESS {run.smallest_ess:.0f} of {run.error_draws[..., 0].size}{swaps}")
    left.set_xlabel("assumed flip rate q")
    left.set_ylabel("ln evidence  ln E_W[L(W, z)]")
    left.set_title("ln evidence (± 2 s.e.)")
    left.legend(fontsize=8)
    right.axhline(1.1, color="grey", ls="--", lw=1, label="R-hat = 1.1")
    right.set_xscale("log")
    right.set_xlabel("flip rate 1 / (1 + e^s) of the rung (log axis)")
    right.set_ylabel("R-hat of the error count")
    right.set_title("Did each rung's chains agree?")
    right.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.16))   # below the axes: no line hidden
    figure.suptitle("Replica exchange: the rungs run together and swap their states")
    return figure

"""Exact Hamiltonian Monte Carlo in version space: Bayesian transduction's volume ratios, faster than the billiard.

Pakman and Paninski, "Exact Hamiltonian Monte Carlo for truncated multivariate Gaussians", Journal of
Computational and Graphical Statistics 23 (2014) 518-542, applied to the version space of Bayesian
transduction (seed 002, Graepel, Herbrich and Obermayer, NIPS 1999, eq. 2 and eq. 6).

Why a Gaussian samples the same posterior
-----------------------------------------
In the coordinates c of the span of the training points (`kgslab.versionspace`: Phi Phi' = K, w = Phi' c) the
BT paper's posterior is uniform on the unit sphere restricted to version space, the cone

    C = { c : y_i (Phi c)_i >= 0  for i = 1..l }.

A standard Gaussian c ~ N(0, I) is spherically symmetric: its direction c / ||c|| is uniform on the sphere and
independent of its length.  So the Gaussian truncated to C has directions uniform on version space, and every
test label sign <w, phi(x_j)> = sign (K_test alpha)_j depends on the direction only: p+ = P(K_test alpha > 0)
under the truncated Gaussian is the paper's volume ratio V+ / V (eq. 6).

Exact Hamiltonian dynamics (Pakman and Paninski, section 2)
-----------------------------------------------------------
With the energy H = c'c / 2 + v'v / 2 (position c, velocity v) the equations of motion dc/dt = v, dv/dt = -c
are solved in closed form:

    c(t) = c0 cos t + v0 sin t,      v(t) = -c0 sin t + v0 cos t.                      (eq. 2.5 of the paper)

Wall i (f_i = y_i Phi_i, the training point's row) is the plane f_i'c = 0.  Along the orbit its margin is
a_i cos t + b_i sin t with a_i = f_i'c0 = y_i <w, phi(x_i)> >= 0 and b_i = f_i'v0; the first time it reaches
zero is t_i in [0, pi] (the billiard's step 2, `kgslab.versionspace.crossing_angle`).  At
the first wall the velocity is reflected, v' = v - 2 (f_i'v / f_i'f_i) f_i (elastic, energy kept), and the
flight goes on.  One iteration: draw v0 ~ N(0, I), fly for a total time of pi / 2, keep where it stops.
Without walls c(pi/2) = v0 would be an independent draw; the walls only fold the orbit back into C.  The
flow keeps the truncated Gaussian invariant and the fresh velocity makes the chain ergodic, so there is no
tuning (no step size, no rejection).

Kernel (dual) coordinates and the estimate
------------------------------------------
As in the billiard, the sampler keeps what a bounce needs up to date in O(l) per event: the margins
y_i <c, phi_i> and slopes y_i <v, phi_i> (a rotation by the flight time; a reflection at wall i subtracts
(2 b_i / f_i'f_i) y_i y_j K_ij from every slope j).  The coordinates c are rebuilt only when needed, from
the impulses of the reflections (`VersionSpaceHMC`).  Every point of the orbit is a draw of the truncated
Gaussian (the flow keeps it), so each iteration is read at 8 evenly spaced times: the draw recorded for test
point j and iteration n is the fraction of those snapshots with <c(t), phi(x_j)> > 0.  Many chains fly in
lockstep, one numpy operation for all of them per event, so the Python cost of an event is shared; per bounce
HMC buys about as many effective samples as the billiard on heart, and the lockstep makes its bounces 2-3 times
cheaper (benchmarks/sampler_ess.py).  Independent chains, split rank R-hat and ESS (`kgslab.diagnostics`) decide
when to stop, as for the billiard.

Soft version (BT section 5): K + lam I for the training points, the cross-kernel as given.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._blas import blas_threads
from ._validation import (as_cross_kernel, as_generator, as_pm1_labels, as_positive_int, as_scalar, as_vector,
                          check_work_budget)
from .diagnostics import summarise
from .stopping import as_n_draws, check_targets, run_until_converged
from .versionspace import kernel_span, start_alpha

__all__ = ["VersionSpaceHMC", "HMCRun", "hmc_run", "hmc_probabilities", "MAX_ITERATIONS"]

TWO_PI = 2.0 * np.pi
HALF_PI = 0.5 * np.pi
MAX_ITERATIONS = 1_000_000   # per chain: beyond this a run takes hours; refuse rather than hang


class VersionSpaceHMC:
    """`n_chains` exact HMC chains on the Gaussian truncated to version space, flown in lockstep.

    Per event only the l margins y_i <c, phi(x_i)> and slopes y_i <v, phi(x_i)> of every chain move (a
    rotation, and a reflection's rank-one update).  The coordinates c are not carried along: a reflection at
    time s is an impulse dv = -b g_i (g_i = 2 f_i / f_i'f_i), and the orbit is linear in its impulses,

        c(t) = cos t (c0 + sum_k b_k sin s_k g_k) + sin t (v0 - sum_k b_k cos s_k g_k),

    so each bounce only adds two numbers to its wall's running sums (Q_i += b sin s, P_i += b cos s) and
    c(t) = cos t (c0 + G'Q) + sin t (v0 - G'P) is formed when needed: at `n_snapshots` evenly spaced times of
    each iteration, where every test point's label is read as sign (P_test c) with P_test = K_test U diag(s)^-1/2,
    and at the end of the iteration, where the margins are recomputed from c (no drift from the updates).

    `run(n)` flies until every chain has recorded n more iterations; `draws()` holds, per chain and
    iteration, the fraction of the iteration's snapshots at which each test point is labelled +1.
    """

    def __init__(self, K, y, K_test, *, n_chains: int = 16, lam: float = 0.0, start=None, random_state=None,
                 span=None, n_snapshots: int = 8, duration: float = HALF_PI):
        self.lam = as_scalar(lam, "lam", low=0.0)
        self._span = kernel_span(K, lam=self.lam) if span is None else span
        gram = self._span.gram
        l = gram.shape[0]
        self.y = as_pm1_labels(y, "y", length=l, length_of="K")
        K_test = np.zeros((0, l)) if K_test is None else as_cross_kernel(K_test, l, "K_test")
        self.n_chains = as_positive_int(n_chains, "n_chains")
        self.n_snapshots = as_positive_int(n_snapshots, "n_snapshots")
        self.duration = as_scalar(duration, "duration", low=0.0, low_open=True, high=np.pi)
        self.n_train, self.n_test = l, K_test.shape[0]
        self.rng = as_generator(random_state)
        features = self._span.features                          # Phi (l, r)
        r = features.shape[1]
        self.rank = r
        self._orthogonal = ~np.any(K_test != 0, axis=1)
        self._walls = np.ascontiguousarray((self.y[:, None] * features).T)        # f_i as columns, (r, l)
        self._to_test = np.ascontiguousarray((K_test @ self._span.to_alpha).T)     # (r, m)
        scale = 2.0 / np.einsum("ij,ij->j", self._walls, self._walls)              # 2 / f_i'f_i
        self._impulses = np.ascontiguousarray(scale[:, None] * self._walls.T)      # g_i as rows, (l, r)
        # a reflection at wall i subtracts b_i times row i from the slopes: g_i'f_j for every wall j
        self._reflect = self._impulses @ self._walls                              # (l, l)
        if start is None:
            start = start_alpha(self._span, self.y, self.lam)
        start = as_vector(start, "start", length=l, length_of="K")
        direction = features.T @ start            # w = sum_i alpha_i phi_i has coordinates c = Phi' alpha
        smallest = float(np.min(self.y * (features @ direction)))
        if not smallest > 0:
            raise ValueError("start must lie inside version space: every y_i <w, phi(x_i)> must be > 0, "
                             f"but the smallest is {smallest:.3g}")
        direction /= np.linalg.norm(direction)
        # every chain starts on the ray of the start point, at a length drawn from the chi distribution of
        # ||c|| (the direction is what the burn-in has to forget)
        radius = np.sqrt(self.rng.chisquare(r, size=self.n_chains))
        self._start = radius[:, None] * direction[None, :]                  # c0 of the current iteration
        self._kick = np.empty_like(self._start)                             # v0 of the current iteration
        self._margins = np.empty((self.n_chains, l))
        self._slopes = np.empty((self.n_chains, l))
        self._cos_sums = np.zeros((self.n_chains, l))                       # P_i = sum b cos s per wall
        self._sin_sums = np.zeros((self.n_chains, l))                       # Q_i = sum b sin s per wall
        self._keys = np.empty((self.n_chains, l))
        self._work = np.empty((self.n_chains, l))
        self._rows = np.arange(self.n_chains)
        self._remaining = np.full(self.n_chains, self.duration)
        self._last_wall = np.full(self.n_chains, -1)
        self._snapshot_times = (np.arange(self.n_snapshots) + 0.5) * self.duration / self.n_snapshots
        self._snapshots = np.zeros((self.n_chains, self.n_snapshots, r))
        self._taken = np.zeros(self.n_chains, dtype=np.int64)
        self._next_snapshot = np.full(self.n_chains, self._snapshot_times[0])
        self._clock = np.zeros(self.n_chains)                  # time flown in the current iteration
        self._draws = [[] for _ in range(self.n_chains)]
        self.n_bounces = np.zeros(self.n_chains, dtype=np.int64)
        self.n_events = 0
        self._new_velocity(self._rows)

    @property
    def margins(self):
        """y_i <c, phi(x_i)> of every chain (chains, l): all >= 0 in version space."""
        return self._margins

    def coordinates(self, chains=None):
        """c of these chains (default all) now: c(t) = cos t (c0 + G'Q) + sin t (v0 - G'P), (chains, r)."""
        chains = self._rows if chains is None else chains
        return self._coordinates(chains, self._clock[chains])

    def _coordinates(self, chains, t):
        t = t[:, None]
        return (np.cos(t) * (self._start[chains] + self._sin_sums[chains] @ self._impulses)
                + np.sin(t) * (self._kick[chains] - self._cos_sums[chains] @ self._impulses))

    @property
    def n_iterations(self) -> int:
        """Iterations recorded by every chain (the shortest chain's count)."""
        return min(len(draws) for draws in self._draws)

    def _new_velocity(self, chains):
        """v0 ~ N(0, I) for these chains; their margins recomputed from c (no drift from the updates)."""
        self._kick[chains] = self.rng.standard_normal((len(chains), self.rank))
        self._margins[chains] = self._start[chains] @ self._walls
        self._slopes[chains] = self._kick[chains] @ self._walls
        self._cos_sums[chains] = 0.0
        self._sin_sums[chains] = 0.0
        self._remaining[chains] = self.duration
        self._clock[chains] = 0.0
        self._last_wall[chains] = -1
        self._taken[chains] = 0
        self._next_snapshot[chains] = self._snapshot_times[0]

    def _take_snapshots(self, step):
        """Record c at the snapshot times that fall inside this flight (before its reflection)."""
        due = self._next_snapshot <= self._clock + step
        while due.any():
            chains = self._rows[due]
            self._snapshots[chains, self._taken[chains]] = self._coordinates(chains, self._next_snapshot[chains])
            self._taken[chains] += 1
            more = self._taken[chains] < self.n_snapshots
            self._next_snapshot[chains] = np.where(
                more, self._snapshot_times[np.minimum(self._taken[chains], self.n_snapshots - 1)], np.inf)
            due = self._next_snapshot <= self._clock + step

    def _event(self):
        """Every chain flies to its next event: its nearest wall (reflect) or the end of its iteration."""
        rows, margins, slopes, keys = self._rows, self._margins, self._slopes, self._keys
        # the nearest wall without an arctan per wall: t grows with b/a (see billiard)
        np.maximum(margins, 1e-300, out=keys)
        np.divide(slopes, keys, out=keys)
        has_last = self._last_wall >= 0
        keys[rows[has_last], self._last_wall[has_last]] = np.inf
        wall = keys.argmin(axis=1)
        hit_time = np.arctan2(np.maximum(margins[rows, wall], 0.0), -slopes[rows, wall])   # in [0, pi]
        hits = hit_time < self._remaining
        step = np.where(hits, hit_time, self._remaining)
        if self.n_test:
            self._take_snapshots(step)
        # the rotation (a, b) <- (a cos t + b sin t, -a sin t + b cos t) of every margin and slope, in place
        cos, sin = np.cos(step)[:, None], np.sin(step)[:, None]
        work = self._work
        np.multiply(margins, sin, out=work)
        margins *= cos
        margins += slopes * sin
        slopes *= cos
        slopes -= work
        self._clock += step
        self._remaining -= step
        if hits.any():
            # every chain's row is updated (b = 0 where the chain ended its iteration instead): one gather of
            # the reflection rows costs less than gathering and scattering the hitting chains' slopes
            factor = np.where(hits, slopes[rows, wall], 0.0)                 # b_i = f_i'v at the wall
            np.multiply(self._reflect[wall], factor[:, None], out=work)
            slopes -= work
            self._cos_sums[rows, wall] += factor * np.cos(self._clock)
            self._sin_sums[rows, wall] += factor * np.sin(self._clock)
            self._last_wall[hits] = wall[hits]
            self.n_bounces += hits
        if not hits.all():
            chains = rows[~hits]
            if self.n_test:
                labels = (self._snapshots[chains] @ self._to_test) > 0        # (chains, snapshots, m)
                for k, fraction in zip(chains.tolist(), labels.mean(axis=1)):
                    self._draws[k].append(fraction)
            else:
                for k in chains.tolist():
                    self._draws[k].append(np.zeros(0))
            self._start[chains] = self._coordinates(chains, self._clock[chains])
            self._new_velocity(chains)
        self.n_events += 1

    def run(self, n_iterations: int):
        """Fly until every chain has recorded `n_iterations` more iterations."""
        n_iterations = as_positive_int(n_iterations, "n_iterations", minimum=0)
        # the same cap as hmc_run's, before the loop starts: a run of 10**12 iterations would look like a hang
        check_work_budget(self.n_iterations + n_iterations, MAX_ITERATIONS, "n_iterations", n_iterations,
                          "iterations per chain")
        target = self.n_iterations + n_iterations
        with blas_threads():
            while self.n_iterations < target:
                self._event()
        return self

    def draws(self, n_iterations=None) -> np.ndarray:
        """(chains, iterations, m): per iteration, the fraction of its snapshots with the test point on +."""
        n = self.n_iterations if n_iterations is None else n_iterations
        return np.array([draws[:n] for draws in self._draws]).reshape(self.n_chains, n, self.n_test)

    def discard(self):
        """Forget the recorded draws (after a burn-in)."""
        for k in range(self.n_chains):
            self._draws[k] = []


class HMCRun(NamedTuple):
    """p+ of every test point from the chains, with its convergence diagnostics (per test point)."""

    p_plus: np.ndarray      # mean over chains and iterations of the time fraction on +
    rhat: np.ndarray        # split, rank-normalised R-hat
    ess: np.ndarray         # bulk effective number of iterations
    mc_error: np.ndarray    # Monte Carlo standard error of p+
    n_iterations: int       # iterations per chain (after the burn-in)
    n_bounces: int          # wall bounces per chain, mean over the chains (burn-in included)
    converged: bool


def hmc_run(K, y, K_test, n_iterations="auto", *, n_chains: int = 16, lam: float = 0.0, burn_in: int = 5,
            target_error: float = 0.01, target_rhat: float = 1.01, max_iterations: int = 5000,
            random_state=None, start=None) -> HMCRun:
    """p+ for every test point from `n_chains` exact HMC chains, with R-hat, ESS and MC error.

    Each chain starts on the ray of `start` (default: the maximum-margin point), flies `burn_in` iterations
    uncounted, then records one draw per iteration (time pi/2).  n_iterations per chain: an integer, or "auto"
    (until every p+ has MC error < target_error and R-hat < target_rhat where p+ is more than 2 target_error
    from 0 and 1, as `billiard_run`; at most max_iterations, with a ConvergenceWarning at the cap).
    """
    if K_test is None:
        raise TypeError("K_test must be the (m, l) cross-kernel of the test points, got None")
    n_chains = as_positive_int(n_chains, "n_chains")
    if n_chains < 2 and isinstance(n_iterations, str):
        raise ValueError(f"n_chains must be >= 2 for n_iterations='auto' (R-hat compares chains), got {n_chains}")
    burn_in = as_positive_int(burn_in, "burn_in", minimum=0)
    target_error, target_rhat, max_iterations = check_targets(target_error, target_rhat, max_iterations,
                                                              "max_iterations")
    n_iterations = as_n_draws(n_iterations, "n_iterations")
    auto = n_iterations == "auto"
    limit = max_iterations if auto else n_iterations
    if limit > MAX_ITERATIONS:
        raise ValueError(f"{'max_iterations' if auto else 'n_iterations'} must be at most {MAX_ITERATIONS} per "
                         f"chain, got {limit}: a run that long takes hours")
    sampler = VersionSpaceHMC(K, y, K_test, n_chains=n_chains, lam=lam, start=start, random_state=random_state)
    sampler.run(burn_in)
    sampler.discard()
    if auto:
        def extend(n):
            sampler.run(n)
            return sampler.draws()

        result = run_until_converged(extend, first=10, max_draws=max(10, max_iterations),
                                     target_error=target_error, target_rhat=target_rhat,
                                     what="exact HMC (n_iterations='auto')", settled=2 * target_error,
                                     projected=True)
        n_done = result.n_draws
    else:
        sampler.run(n_iterations)
        n_done = n_iterations
        result = summarise(sampler.draws(n_done), target_error, target_rhat, 2 * target_error) \
            if n_done >= 4 else None
    draws = sampler.draws(n_done)
    p_plus = np.where(sampler._orthogonal, 0.5, draws.mean(axis=(0, 1)))
    nan = np.full(p_plus.shape, np.nan)
    return HMCRun(p_plus=p_plus, rhat=nan if result is None else result.rhat,
                  ess=nan if result is None else result.ess,
                  mc_error=nan if result is None else result.mc_error, n_iterations=n_done,
                  n_bounces=int(round(sampler.n_bounces.mean())),
                  converged=bool(result is not None and result.converged))


def hmc_probabilities(K, y, K_test, n_iterations="auto", **options) -> np.ndarray:
    """p+ for every test point by exact HMC (`hmc_run`): the volume ratio V+ / V of eq. (6)."""
    return hmc_run(K, y, K_test, n_iterations, **options).p_plus

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
zero is t_i in [0, pi] (the billiard's step 2, `kgslab.crossings.crossing_angle`).  At
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
point j and iteration n is the fraction of those snapshots with <c(t), phi(x_j)> > 0 (more snapshots, or the
exact fraction of the flight's time, add few effective samples: benchmarks/sampler_ess.py).
The loop over events is compiled (numba, `_fly`): a bounce is O(l) scalar updates, which numpy calls
would cost many times over (benchmarks/heart_splits.py and benchmarks/sampler_ess.py time a converged heart split
and the effective samples per second against the billiard; benchmarks/measured.md has the figures).
Independent chains, split rank R-hat and ESS (`kgslab.diagnostics`) decide when to stop, as for the billiard.

Soft version (BT section 5): K + lam I for the training points, the cross-kernel as given.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

from ._validation import (as_cross_kernel, as_generator, as_pm1_labels, as_positive_int, as_scalar, as_vector,
                          check_work_budget)
from .diagnostics import summarise
from .stopping import as_n_draws, check_targets, run_until_converged
from .versionspace import kernel_span

__all__ = ["VersionSpaceHMC", "HMCRun", "hmc_run", "hmc_probabilities", "MAX_ITERATIONS"]

HALF_PI = 0.5 * np.pi
MAX_ITERATIONS = 1_000_000   # per chain: beyond this a run takes hours; refuse rather than hang


def _fly(start, kicks, walls, impulses, reflect, test_impulses, to_test, duration, snapshot_times, fractions,
         margins, slopes, cos_sums, sin_sums, keys, watch, max_bounces):
    """One chain through len(kicks) iterations; returns (bounces, lowest margin after a bounce when `watch`).

    bounces = -1: an iteration reached `max_bounces` bounces and the flight stopped there (compiled code cannot
    be interrupted, so it must not be able to run for ever).

    Iteration n starts at c0 = start with velocity v0 = kicks[n].  Margins and slopes of the walls, and the two
    numbers per test point that its label needs:

        a_i = f_i'c0,  b_i = f_i'v0,          u_j = t_j'c0,  s_j = t_j'v0        (t_j: column j of to_test)

    A flight of time dt rotates every (a_i, b_i):  a <- a cos dt + b sin dt,  b <- b cos dt - a sin dt.  The
    next wall is the one with the smallest b_i / a_i (its hit time, the flight time of the BT paper's step 2,
    grows with b_i / a_i); the wall just left is skipped.  A reflection at wall w and time s is the impulse v <- v - b_w g_w
    (g_w = 2 f_w / f_w'f_w): every slope loses b_w g_w'f_j = b_w reflect[w, j], and the wall's running sums
    gain P_w += b_w cos s, Q_w += b_w sin s, so that at any time t of the iteration

        c(t) = cos t (c0 + G'Q) + sin t (v0 - G'P),   t_j'c(t) = cos t (u_j + Q'H_j) + sin t (s_j - P'H_j)

    with H = G to_test (`test_impulses`).  At each snapshot time the test point j counts +1 when t_j'c(t) > 0;
    fractions[n, j] is the share of the snapshots that did.  At the end of the iteration c(duration) is the
    next start (the margins are recomputed from it: no drift accumulates over iterations).
    The loops are plain Python, written so that numba compiles the inner ones to vector code: every inner
    loop runs along a row (`_compiled_flight`).
    """
    r, l = walls.shape
    m = to_test.shape[1]
    n_snapshots = snapshot_times.shape[0]
    bounces = 0
    lowest = np.inf
    c0 = start.copy()
    u = np.empty(m)
    s = np.empty(m)
    along = np.empty(m)
    lanes = np.empty(4)
    for n in range(kicks.shape[0]):
        v0 = kicks[n]
        margins[:] = 0.0
        slopes[:] = 0.0
        u[:] = 0.0
        s[:] = 0.0
        for k in range(r):
            for i in range(l):
                margins[i] += c0[k] * walls[k, i]
                slopes[i] += v0[k] * walls[k, i]
            for j in range(m):
                u[j] += c0[k] * to_test[k, j]
                s[j] += v0[k] * to_test[k, j]
        cos_sums[:] = 0.0
        sin_sums[:] = 0.0
        fractions[n, :] = 0.0
        for i in range(l):
            keys[i] = slopes[i] / max(margins[i], 1e-300)
        clock, cos_clock, sin_clock = 0.0, 1.0, 0.0
        taken = 0
        in_iteration = 0
        while True:
            # the nearest wall = the smallest key (the wall just left has +inf): the minimum over four lanes
            # (vector code), then its place
            for lane in range(4):
                lanes[lane] = np.inf
            for start_lane in range(0, l - l % 4, 4):
                for lane in range(4):
                    lanes[lane] = min(lanes[lane], keys[start_lane + lane])
            smallest = min(min(lanes[0], lanes[1]), min(lanes[2], lanes[3]))
            for i in range(l - l % 4, l):
                smallest = min(smallest, keys[i])
            wall = -1
            if smallest < np.inf:
                for i in range(l):
                    if keys[i] == smallest:
                        wall = i
                        break
            if wall >= 0:
                a, b = max(margins[wall], 0.0), slopes[wall]
                hit = math.atan2(a, -b)
            hits = wall >= 0 and hit < duration - clock
            step = hit if hits else duration - clock
            # snapshots that fall inside this flight, before its reflection: t_j'c(t) from the running sums
            while taken < n_snapshots and snapshot_times[taken] <= clock + step:
                t = snapshot_times[taken]
                for j in range(m):
                    along[j] = math.cos(t) * u[j] + math.sin(t) * s[j]
                for i in range(l):
                    if sin_sums[i] != 0.0 or cos_sums[i] != 0.0:        # walls not hit yet add nothing
                        weight = math.cos(t) * sin_sums[i] - math.sin(t) * cos_sums[i]
                        for j in range(m):
                            along[j] += weight * test_impulses[i, j]
                for j in range(m):
                    if along[j] > 0:
                        fractions[n, j] += 1.0
                taken += 1
            if not hits:
                cos_step, sin_step = math.cos(step), math.sin(step)
                for i in range(l):
                    a, b = margins[i], slopes[i]
                    margins[i] = a * cos_step + b * sin_step
                    slopes[i] = b * cos_step - a * sin_step
                clock = duration
                break
            # cos and sin of the flight time without trigonometry: the unit vector along (-b, a)
            radius = math.sqrt(a * a + b * b)
            cos_step, sin_step = -b / radius, a / radius
            clock += step
            cos_clock, sin_clock = (cos_clock * cos_step - sin_clock * sin_step,
                                    sin_clock * cos_step + cos_clock * sin_step)
            # rotate every wall, then reflect at `wall`: b_w is its slope when it is hit (= -radius)
            b_wall = b * cos_step - a * sin_step
            cos_sums[wall] += b_wall * cos_clock
            sin_sums[wall] += b_wall * sin_clock
            for i in range(l):
                a, b = margins[i], slopes[i]
                margins[i] = a * cos_step + b * sin_step
                slopes[i] = b * cos_step - a * sin_step - b_wall * reflect[wall, i]
                keys[i] = slopes[i] / max(margins[i], 1e-300)
            if watch:
                for i in range(l):
                    lowest = min(lowest, margins[i])
            keys[wall] = np.inf
            bounces += 1
            in_iteration += 1
            if in_iteration >= max_bounces:
                return -1, lowest
        for j in range(m):
            fractions[n, j] /= n_snapshots
        # the next start: c(duration) = cos T (c0 + G'Q) + sin T (v0 - G'P)
        for k in range(r):
            start[k] = math.cos(clock) * c0[k] + math.sin(clock) * v0[k]
        for i in range(l):
            if sin_sums[i] != 0.0 or cos_sums[i] != 0.0:
                weight = math.cos(clock) * sin_sums[i] - math.sin(clock) * cos_sums[i]
                for k in range(r):
                    start[k] += weight * impulses[i, k]
        c0[:] = start
    return bounces, lowest


@functools.cache
def _compiled_flight():
    """`_fly` compiled by numba (imported here, not with the module: most of the kit never needs it).

    cache=True keeps the machine code on disk after the first call (a few seconds once per install).
    error_model="numpy": a division never raises (none divides by zero: margins are floored at 1e-300).
    """
    import numba
    return numba.njit(cache=True, error_model="numpy")(_fly)


class VersionSpaceHMC:
    """`n_chains` exact HMC chains on the Gaussian truncated to version space, each flown by compiled code.

    Per event only the l margins y_i <c, phi(x_i)> and slopes y_i <v, phi(x_i)> of a chain move (a rotation,
    and a reflection's rank-one update).  The coordinates c are not carried along: a reflection at time s is
    an impulse dv = -b g_i (g_i = 2 f_i / f_i'f_i), and the orbit is linear in its impulses,

        c(t) = cos t (c0 + sum_k b_k sin s_k g_k) + sin t (v0 - sum_k b_k cos s_k g_k),

    so each bounce only adds two numbers to its wall's running sums (Q_i += b sin s, P_i += b cos s) and
    c(t) = cos t (c0 + G'Q) + sin t (v0 - G'P) is formed when needed: at `n_snapshots` evenly spaced times of
    each iteration, where every test point's label is read as sign (P_test c) with P_test = K_test U diag(s)^-1/2,
    and at the end of the iteration, where the margins are recomputed from c (no drift from the updates).
    The loop over events is `_fly` (compiled by numba).

    Chain k draws its start radius and its velocities from its own generator (SeedSequence child k of
    random_state), so a chain's draws do not depend on how a run is cut into `run` calls.
    `run(n)` flies every chain n more iterations; `draws()` holds, per chain and iteration, the fraction of
    the iteration's snapshots at which each test point is labelled +1.
    """

    # iterations per call of the compiled loop: bounds the memory of the velocities, and keeps Ctrl-C answered
    # (Python sees it only between calls)
    BLOCK = 32
    # an iteration with more bounces than this is refused (thousands of times an iteration's bounces on the papers'
    # data sets, benchmarks/measured.md):
    # the compiled loop cannot be interrupted, so a flight that never ends must not be possible
    MAX_BOUNCES_PER_ITERATION = 10_000_000

    def __init__(self, K, y, K_test, *, n_chains: int = 8, lam: float = 0.0, start=None, random_state=None,
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
        self._generators = as_generator(random_state).spawn(self.n_chains)     # one stream per chain
        features = self._span.features                          # Phi (l, r)
        r = features.shape[1]
        self.rank = r
        self._orthogonal = ~np.any(K_test != 0, axis=1)
        self._walls = np.ascontiguousarray((self.y[:, None] * features).T)        # f_i as columns, (r, l)
        self._to_test = np.ascontiguousarray((K_test @ self._span.to_alpha).T)     # (r, m)
        scale = 2.0 / np.einsum("ij,ij->j", self._walls, self._walls)              # 2 / f_i'f_i
        self._impulses = np.ascontiguousarray(scale[:, None] * self._walls.T)      # g_i as rows, (l, r)
        # a reflection at wall i subtracts b_i times row i from the slopes: g_i'f_j for every wall j
        self._reflect = np.ascontiguousarray(self._impulses @ self._walls)        # (l, l)
        self._test_impulses = np.ascontiguousarray(self._impulses @ self._to_test)  # g_i't_j, (l, m)
        if start is None:
            start = self._span.version_space_start(self.y, self.lam)
        start = as_vector(start, "start", length=l, length_of="K")
        direction = features.T @ start            # w = sum_i alpha_i phi_i has coordinates c = Phi' alpha
        smallest = float(np.min(self.y * (features @ direction)))
        if not smallest > 0:
            raise ValueError("start must lie inside version space: every y_i <w, phi(x_i)> must be > 0, "
                             f"but the smallest is {smallest:.3g}")
        direction /= np.linalg.norm(direction)
        # every chain starts on the ray of the start point, at a length drawn from the chi distribution of
        # ||c|| (the direction is what the burn-in has to forget)
        radius = np.array([np.sqrt(generator.chisquare(r)) for generator in self._generators])
        self._start = radius[:, None] * direction[None, :]                  # c0 of the next iteration
        self._margins = self._start @ self._walls                          # carried to the end of an iteration
        self._slopes = np.zeros((self.n_chains, l))
        self._cos_sums = np.zeros(l)                                        # P_i = sum b cos s per wall
        self._sin_sums = np.zeros(l)                                        # Q_i = sum b sin s per wall
        self._keys = np.zeros(l)                                            # b_i / a_i: the next wall
        self._snapshot_times = (np.arange(self.n_snapshots) + 0.5) * self.duration / self.n_snapshots
        self._draws = [[] for _ in range(self.n_chains)]
        self._counts = np.zeros(self.n_chains, dtype=np.int64)              # iterations recorded per chain
        self.n_bounces = np.zeros(self.n_chains, dtype=np.int64)
        self.lowest_margin = np.inf            # smallest margin after any bounce, when `watch` is set (tests)
        self.watch = False

    @property
    def margins(self):
        """y_i <c, phi(x_i)> of every chain (chains, l) at the end of its last iteration, as carried by the
        rotations and reflections (all >= 0 in version space)."""
        return self._margins

    def coordinates(self, chains=None):
        """c of these chains (default all) now, at the end of their last iteration (chains, r)."""
        return self._start[slice(None) if chains is None else chains].copy()

    @property
    def n_iterations(self) -> int:
        """Iterations recorded by every chain (the shortest chain's count)."""
        return int(self._counts.min())

    def run(self, n_iterations: int):
        """Fly every chain `n_iterations` more iterations."""
        n_iterations = as_positive_int(n_iterations, "n_iterations", minimum=0)
        # the same cap as hmc_run's, before the loop starts: a run of 10**12 iterations would look like a hang
        check_work_budget(self.n_iterations + n_iterations, MAX_ITERATIONS, "n_iterations", n_iterations,
                          "iterations per chain")
        if n_iterations == 0:
            return self
        fly = _compiled_flight()
        for k, generator in enumerate(self._generators):
            done = 0
            while done < n_iterations:
                block = min(self.BLOCK, n_iterations - done)
                kicks = generator.standard_normal((block, self.rank))          # v0 ~ N(0, I) per iteration
                fractions = np.empty((block, self.n_test))
                bounces, lowest = fly(self._start[k], kicks, self._walls, self._impulses, self._reflect,
                                      self._test_impulses, self._to_test, self.duration, self._snapshot_times,
                                      fractions, self._margins[k], self._slopes[k], self._cos_sums,
                                      self._sin_sums, self._keys, self.watch,
                                      self.MAX_BOUNCES_PER_ITERATION)
                if bounces < 0:
                    raise RuntimeError(f"an exact HMC iteration of chain {k} bounced {self.MAX_BOUNCES_PER_ITERATION} "
                                       "times without ending: version space is too thin for this sampler "
                                       "(nearly parallel walls of opposite sides?); try lam > 0 (the soft version)")
                self._draws[k].append(fractions)
                self.n_bounces[k] += bounces
                self.lowest_margin = min(self.lowest_margin, lowest)
                done += block
            self._counts[k] += n_iterations
        return self

    def draws(self, n_iterations=None) -> np.ndarray:
        """(chains, iterations, m): per iteration, the fraction of its snapshots with the test point on +."""
        n = self.n_iterations if n_iterations is None else n_iterations
        return np.stack([np.concatenate(draws)[:n] if draws else np.zeros((0, self.n_test))
                         for draws in self._draws]).reshape(self.n_chains, n, self.n_test)

    def discard(self):
        """Forget the recorded draws (after a burn-in)."""
        for k in range(self.n_chains):
            self._draws[k] = []
        self._counts[:] = 0


class HMCRun(NamedTuple):
    """p+ of every test point from the chains, with its convergence diagnostics (per test point)."""

    p_plus: np.ndarray      # mean over chains and iterations of the time fraction on +
    rhat: np.ndarray        # split, rank-normalised R-hat
    ess: np.ndarray         # bulk effective number of iterations
    mc_error: np.ndarray    # Monte Carlo standard error of p+
    n_iterations: int       # iterations per chain (after the burn-in)
    n_bounces: int          # wall bounces per chain, mean over the chains (burn-in included)
    converged: bool


def hmc_run(K, y, K_test, n_iterations="auto", *, n_chains: int = 8, lam: float = 0.0, burn_in: int = 5,
            target_error: float = 0.01, target_rhat: float = 1.01, max_iterations: int = 5000,
            random_state=None, start=None) -> HMCRun:
    """p+ for every test point from `n_chains` exact HMC chains, with R-hat, ESS and MC error.

    Each chain starts on the ray of `start` (default: the maximum-margin point), flies `burn_in` iterations
    uncounted, then records one draw per iteration (time pi/2).  n_iterations per chain: an integer, or "auto"
    (until every p+ has MC error < target_error and R-hat < target_rhat where p+ is more than 2 target_error
    from 0 and 1, as `billiard_run`; at most max_iterations, with a ConvergenceWarning at the cap).
    8 chains: few chains make the MC error bind, many make R-hat bind (it needs long chains); 8 is among the
    cheapest in total iterations and compares the most chains of those (benchmarks/heart_splits.py,
    benchmarks/measured.md).
    """
    if K_test is None:
        raise TypeError("K_test must be the (m, l) cross-kernel of the test points, got None")
    n_chains = as_positive_int(n_chains, "n_chains")
    n_iterations = as_n_draws(n_iterations, "n_iterations")
    if n_chains < 2 and n_iterations == "auto":
        raise ValueError(f"n_chains must be >= 2 for n_iterations='auto' (R-hat compares chains), got {n_chains}")
    burn_in = as_positive_int(burn_in, "burn_in", minimum=0)
    target_error, target_rhat, max_iterations = check_targets(target_error, target_rhat, max_iterations,
                                                              "max_iterations")
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

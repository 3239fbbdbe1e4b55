"""Kernel billiard: one bounce against one l x l matrix-vector product, measured in the same run.

A bounce with incremental projections costs O(l + m) (a plane rotation of the position and direction rows,
2l + m numbers each, and one row of y K and of K_test' for the reflection); recomputing <w, phi(x_j)> and <v, phi(x_j)> as the paper's
complexity O(n l (l + m)) implies costs two (l + m) x l products per bounce.  Rows:

* incremental bounce vs one l x l matvec  (a bounce costs less than half a matvec, ratio > 2);
* incremental bounce vs a bounce that recomputes the projections (the paper's cost);
* `run()` against `step()` (issue 43's table: walls l and test points m from 50 to 2,000 and 0 to 5,000).  Both
  are calls of the one compiled loop `kgslab.billiard_ball._bounces`: `run` of up to COMPILED_CHUNK bounces a call,
  `step` of one bounce a call, so the row measures what a call costs; each is also put against one l x l matvec.

Bounces per second are in the note.  The ball runs as `billiard_probabilities` runs it, with direction
refreshes at the default rate (one per max(10, l) bounces on average), so their amortised cost is included.  RBF kernel on random points in R^5; the ball starts at the
interpolant K^-1 y (margins all 1) so the set-up does not dominate the run.  BLAS is limited to one thread
for every timing, so the matvec is not distorted by thread start-up on a busy shared machine, and bounces
and matvecs are timed in alternation, in batches of about the same length, so load hits both alike.  run() and
step() fly two balls from the same start and seed, batch for batch the same bounces and refreshes.
"""

import numpy as np
from harness import Row, best_time, paired_best_times
from threadpoolctl import threadpool_limits

from kgslab.billiard import KernelBilliard
from kgslab.kernels import rbf_kernel


def _problem(n_train, n_test, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_train, 5))
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(n_train) > 0, 1.0, -1.0)
    T = rng.standard_normal((n_test, 5))
    K, K_test = rbf_kernel(X, L=1.0), rbf_kernel(T, X, L=1.0)
    return K, y, K_test, np.linalg.solve(K + 1e-10 * np.eye(n_train), y)


def _recomputing_bounce(ball, K_all, credited):
    """One bounce the paper's way: recompute every projection from alpha and beta, then fly and reflect."""
    l = ball.n_train
    a = K_all @ ball.alpha
    b = K_all @ ball.beta
    margins, directions = ball.y * a[:l], ball.y * b[:l]
    times = np.arctan2(np.maximum(margins, 0), -directions)
    if ball.last_wall >= 0:
        times[ball.last_wall] = np.pi
    wall = int(np.argmin(times))
    t = times[wall]
    credited += t * (np.cos(t / 2) * a[l:] + np.sin(t / 2) * b[l:] > 0)    # the paper's midpoint rule
    alpha, beta = ball.alpha.copy(), ball.beta.copy()
    ball.alpha[:] = np.cos(t) * alpha + np.sin(t) * beta
    ball.beta[:] = -np.sin(t) * alpha + np.cos(t) * beta
    ball.beta[wall] -= 2 * (np.cos(t) * b[wall] - np.sin(t) * a[wall]) / K_all[wall, wall]
    ball.last_wall = wall


def rows(quick: bool = False):
    with threadpool_limits(limits=1):
        return _rows(quick) + _run_against_step(quick)


def _stepping(ball, n_bounces):
    """`n_bounces` calls of step(): the bounce the notebook draws, one compiled call each."""
    def bounce():
        target = ball.n_bounces + n_bounces
        while ball.n_bounces < target:
            ball.step()
    return bounce


def _run_against_step(quick):
    """run() and step() a bounce on twin balls, and each against one l x l matvec, timed in alternation."""
    sizes = [(50, 0), (100, 200)] if quick else [(50, 0), (50, 5000), (500, 100), (500, 1000), (2000, 1000),
                                                 (2000, 5000)]
    n_bounces = 100 if quick else 1000
    repeat = 1 if quick else 3
    out = []
    for n_train, n_test in sizes:
        K, y, K_test, start = _problem(n_train, max(n_test, 1))
        balls = [KernelBilliard(K, y, K_test if n_test else None, start=start, random_state=0) for _ in range(2)]
        for ball in balls:
            ball.warm_up(100, refresh_every=max(10, n_train))
        running, stepping = balls
        vector = np.random.default_rng(1).standard_normal(n_train)
        guess = best_time(lambda: running.run(n_bounces // 10), 1) / (n_bounces // 10)
        _stepping(stepping, n_bounces // 10)()                   # the twin keeps up
        n_matvecs = max(20, round(n_bounces * guess / best_time(lambda: K @ vector, 3, number=20)))
        run_time, step_time, matvec = _three_times(lambda: running.run(n_bounces), _stepping(stepping, n_bounces),
                                                   lambda: K @ vector, repeat, n_matvecs)
        run_time, step_time = run_time / n_bounces, step_time / n_bounces
        same = (running.n_bounces == stepping.n_bounces and running.n_refreshes == stepping.n_refreshes
                and np.array_equal(running._train, stepping._train) and np.array_equal(running._test, stepping._test))
        where = f"l={n_train}, m={n_test}"
        out.append(Row(f"billiard run() a bounce, {where}", run_time, "step() a bounce (one compiled call)",
                       step_time, f"{1 / run_time:,.0f} bounces/s; twin balls {'in the same place' if same else 'DIFFERENT'}"
                       f" after {running.n_bounces} bounces, {running.n_refreshes} refreshes"))
        out.append(Row(f"billiard run() a bounce, {where}", run_time, "one l x l matvec K @ v", matvec,
                       f"bounce = {run_time / matvec:.3f} matvecs"))
        out.append(Row(f"billiard step() a bounce, {where}", step_time, "one l x l matvec K @ v", matvec,
                       f"bounce = {step_time / matvec:.3f} matvecs"))
    return out


def _three_times(run_batch, step_batch, matvec, repeat, n_matvecs):
    """Best seconds per batch of run_batch and step_batch and per matvec, the three timed in alternation."""
    best = [float("inf")] * 3
    for _ in range(repeat):
        run_time, step_time = paired_best_times(run_batch, step_batch, 1, 1, 1)
        _, matvec_time = paired_best_times(lambda: None, matvec, 1, 1, n_matvecs)
        best = [min(b, t) for b, t in zip(best, (run_time, step_time, matvec_time))]
    return best


def _rows(quick):
    sizes = [(100, 200)] if quick else [(500, 1000), (2000, 1000)]
    n_bounces = 200 if quick else 3000
    repeat = 1 if quick else 3
    out = []
    for n_train, n_test in sizes:
        K, y, K_test, start = _problem(n_train, n_test)
        ball = KernelBilliard(K, y, K_test, start=start, random_state=0)
        ball.warm_up(100, refresh_every=max(10, n_train))   # as billiard_probabilities: refreshes included
        vector = np.random.default_rng(1).standard_normal(n_train)
        # matvec batches as long as a batch of bounces, timed in alternation with them (see harness)
        guess = best_time(lambda: ball.run(n_bounces // 10), 1) / (n_bounces // 10)
        n_matvecs = max(20, round(n_bounces * guess / best_time(lambda: K @ vector, 3, number=20)))
        bounce, matvec = paired_best_times(lambda: ball.run(n_bounces), lambda: K @ vector, repeat,
                                           1, n_matvecs)
        bounce /= n_bounces
        consistent = np.allclose(ball.margins, y * (K @ ball.alpha), atol=1e-8)
        note = (f"{1 / bounce:,.0f} bounces/s; bounce = {bounce / matvec:.2f} matvecs (target < 0.5); "
                f"projections {'exact' if consistent else 'DRIFTED'}")
        out.append(Row(f"billiard bounce, l={n_train}, m={n_test}", bounce,
                       "one l x l matvec K @ v", matvec, note))
        K_all = np.vstack([K, K_test])
        slow = KernelBilliard(K, y, K_test, start=start, random_state=0)
        credited = np.zeros(n_test)
        recompute = best_time(lambda: _recomputing_bounce(slow, K_all, credited), repeat,
                              number=max(5, n_bounces // 20))
        out.append(Row(f"billiard bounce, l={n_train}, m={n_test}", bounce,
                       "bounce recomputing K alpha, K beta", recompute, "the paper's O(l (l + m)) bounce"))
    return out

"""Kernel Gibbs sampler: cost of one step against one m x m matrix-vector product.

A KGS step needs one product Phi v (Phi: the m x r coordinates of the training points,
r = numerical rank of K <= m) plus the m crossing angles and one sort, so it should cost
about one m x m product K v plus O(m log m).  The issue's target: a step costs at most
2 such products at m = 1000 (the ratio column, matvec time / step time, at least 0.5).
Steps and products are timed in alternation, both with one BLAS thread (as the sampler
runs), so load on a shared machine hits both alike.
The second group compares step 6 by one sweep over the sorted angles with the paper's
evaluation of R_emp in the middle of every one of the 2m arcs (O(m^2)).
"""

import time

import numpy as np
from harness import Row, best_time, paired_best_times
from threadpoolctl import threadpool_limits

from kgslab import _kgs_engine as engine
from kgslab import circle, kgs, versionspace
from kgslab.kernels import rbf_kernel


def _problem(m, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, 5))
    y = np.where(X[:, 0] + X[:, 1] * X[:, 2] + 0.3 * rng.standard_normal(m) > 0, 1.0, -1.0)
    return rbf_kernel(X, L=1.0), y


def _stepper(features, y, q, rng, n_chains, move, tangents):
    """One step of `n_chains` chains advanced together by (move, tangents), moving them in place."""
    signed = y[:, None] * features
    coords = np.tile(engine.class_mean_start(features, y, rng), (n_chains, 1))    # (k, r)
    margins = coords @ signed.T
    tables = engine.PairTables.of(q, len(y))
    return lambda: move(coords, margins, engine.propose_circle(coords, signed, rng, tangents), tables, rng)


def _step_and_matvec_times(K, features, y, q, n_steps, rng, repeat, n_chains=1):
    """Seconds per step of `n_chains` chains advanced together (the run loop's step), and per matvec K @ v."""
    step = _stepper(features, y, q, rng, n_chains, *engine.step_for(len(y)))
    vector = rng.standard_normal(K.shape[0])
    with np.errstate(divide="ignore", invalid="ignore"):        # as the sampler runs it
        return paired_best_times(step, lambda: K @ vector, repeat, n_steps, n_steps)


def rows(quick: bool = False):
    sizes = [100, 300] if quick else [100, 300, 1000, 3000]
    out = []
    rng = np.random.default_rng(1)
    with threadpool_limits(limits=1, user_api="blas"):
        for m in sizes:
            K, y = _problem(m)
            started = time.perf_counter()
            features, _ = kgs.kernel_coordinates(K)
            setup = time.perf_counter() - started
            n_steps = 30 if quick else max(50, 100_000 // m)
            step, matvec = _step_and_matvec_times(K, features, y, 0.1, n_steps, rng, 2 if quick else 7)
            out.append(Row(f"KGS step, rbf, m={m} (rank r={features.shape[1]})", step, "one m x m matvec K @ v",
                           matvec, f"{1 / step:,.0f} steps/s; step = {step / matvec:.2f} matvecs; "
                           f"eigh once {setup:.2f}s"))
            if m in (100, 1000):      # the sampler's default: 4 chains advanced together
                steps, matvec = _step_and_matvec_times(K, features, y, 0.1, max(10, n_steps // 4), rng,
                                                       2 if quick else 7, n_chains=4)
                out.append(Row(f"KGS step per chain, 4 chains together, m={m}", steps / 4, "one m x m matvec K @ v",
                               matvec, f"step per chain = {steps / 4 / matvec:.2f} matvecs"))
        for m in ((76, 250) if quick else (76, 250, 300, 350, 400, 500)):
            # the run loop's compiled step (numba) against the same step in numpy calls, 4 chains together: why
            # the loop compiles up to engine.COMPILED_UP_TO training points
            K, y = _problem(m)
            features, _ = kgs.kernel_coordinates(K)
            compiled = _stepper(features, y, 0.1, rng, 4, engine.move_compiled, engine._tangents)
            in_numpy = _stepper(features, y, 0.1, rng, 4, engine.move_on_circle, None)
            compiled()                                             # numba: compiled (or loaded) before it is timed
            n_steps = 30 if quick else 300
            with np.errstate(divide="ignore", invalid="ignore"):
                compiled_time, numpy_time = paired_best_times(compiled, in_numpy, 2 if quick else 7, n_steps, n_steps)
            out.append(Row(f"KGS step, 4 chains, compiled loops, m={m}", compiled_time, "the same step in numpy calls",
                           numpy_time, f"run loop compiles up to m = {engine.COMPILED_UP_TO}"))
        for m in ([300] if quick else [300, 1000]):
            # Why the chains' products are one gemv each from m r = engine.ROWWISE_PRODUCTS on: OpenBLAS's gemm for
            # four rows packs the whole matrix on every call.
            K, y = _problem(m)
            features, _ = kgs.kernel_coordinates(K)
            signed = y[:, None] * features
            directions = rng.standard_normal((4, features.shape[1]))
            rowwise = np.empty((4, m))

            def gemvs():
                for row, out_row in zip(directions, rowwise):
                    np.matmul(signed, row, out=out_row)

            gemv_time, gemm_time = paired_best_times(gemvs, lambda: directions @ signed.T, 2 if quick else 7, 20, 20)
            out.append(Row(f"4 chains' products, m={m}: 4 gemv", gemv_time, "one gemm (4 x r) @ (r x m)", gemm_time,
                           f"kgslab uses {'4 gemv' if signed.size >= engine.ROWWISE_PRODUCTS else 'one gemm'} here"))
        for m in ([100] if quick else [100, 300, 1000]):
            K, y = _problem(m, seed=2)
            features, _ = kgs.kernel_coordinates(K)
            c = engine.class_mean_start(features, y, rng)
            v = versionspace.random_tangent(c, rng)
            w_out, v_out = features @ c, features @ v

            def sweep():
                """The engine's sweep (m half-angles), unfolded into the 2m arcs of the circle and their errors."""
                half, errors, _ = engine.sweep_half_circle(np.atleast_2d(y * w_out), np.atleast_2d(-(y * v_out)))
                return np.concatenate((half[0], half[0] + np.pi)), np.concatenate((errors[0], m - errors[0]))

            def naive():
                boundaries = np.sort(circle.crossing_angles(w_out, v_out, y))
                return boundaries, circle.arc_errors_direct(boundaries, w_out, v_out, y)

            # the sweep cuts the circle at -pi/2, the naive version at 0: compare arc by arc after sorting mod 2 pi
            fast_boundaries, fast_errors = sweep()
            same = np.array_equal(fast_errors[np.argsort(np.mod(fast_boundaries, 2 * np.pi))], naive()[1])
            out.append(Row(f"step 6: arc errors by one sweep, m={m}", best_time(sweep, 5, 10),
                           "R_emp evaluated on each of 2m arcs", best_time(naive, 3, 1),
                           "same counts" if same else "DIFFERENT counts"))
    return out

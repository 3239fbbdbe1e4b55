"""The engine under the KGS samplers (kgslab._kgs_engine): its step against the circle's reference and
exact posteriors; stacked flip rates; the log-space path for circles whose likelihood underflows."""

import numpy as np
import pytest

from exact_posteriors import circle_grid, exact_vote, problem
from test_circle import random_step
from kgslab import _kgs_engine, circle, kgs
from kgslab._kgs_engine import FAINT, PairTables, move_on_circle, propose_circle, sweep_half_circle
from kgslab.kernels import linear_kernel



@pytest.mark.parametrize("seed", range(5))
def test_the_engines_sweep_of_antipodal_pairs_gives_the_circles_arcs(seed):
    # The sampler sorts m half-angles and pairs each arc with its antipode; the reference (kgslab.circle) sorts
    # all 2m crossings.  Both must give the same arcs with the same error counts.
    w_out, v_out, y = random_step(m=60, seed=seed)
    boundaries, errors = circle.arc_errors_by_sweep(circle.crossing_angles(w_out, v_out, y))
    lengths = np.diff(boundaries, append=boundaries[0] + 2 * np.pi)
    visible = lengths > 1e-9  # a midpoint of a vanishing arc is not resolvable in floating point
    half, half_errors, half_lengths = sweep_half_circle(np.atleast_2d(y * w_out), np.atleast_2d(-(y * v_out)))
    m = len(y)
    fast_boundaries = np.concatenate((half[0], half[0] + np.pi))
    fast_errors = np.concatenate((half_errors[0], m - half_errors[0]))
    fast_lengths = np.concatenate((half_lengths[0], half_lengths[0]))
    # It cuts the circle at -pi/2 instead of 0: the same arcs once its boundaries are taken mod 2 pi.
    np.testing.assert_allclose(fast_lengths, np.diff(fast_boundaries, append=fast_boundaries[0] + 2 * np.pi), atol=1e-12)
    same_place = np.argsort(np.mod(fast_boundaries, 2 * np.pi))
    np.testing.assert_allclose(np.mod(fast_boundaries, 2 * np.pi)[same_place], boundaries, atol=1e-12)
    np.testing.assert_array_equal(fast_errors[same_place][visible], errors[visible])


def test_circles_whose_likelihood_underflows_are_sampled_in_log_space():
    # 400 pairs of equal points with opposite labels (one of each pair is wrong whatever w is) beside the
    # 10 points of a small problem: every hypothesis makes 400 errors or more, so at q = 0.15 every pair of
    # arcs has a weight (q/(1-q))^e below 1e-280 and the step must redo its circle in log space (FAINT);
    # the vote must still be the exact posterior's.
    X_small, y_small, X_test = problem(2, m=10, flips=2, seed=2)
    doubled = np.random.default_rng(7).standard_normal((400, 2))
    X = np.vstack([X_small, doubled, doubled])
    y = np.concatenate([y_small, np.ones(400), -np.ones(400)])
    q = 0.15
    # Each pair multiplies the likelihood of every w by q (1 - q) (w off the pair's line, i.e. almost surely):
    # the exact posterior is the 10 points' own, so it is integrated on them (a 200,000 x 810 grid took 1.3 GB).
    grid = circle_grid()
    fewest = 400 + np.count_nonzero(y_small[None, :] * (grid @ X_small.T) <= 0, axis=1).min()
    assert PairTables.of(q, len(y)).weight[fewest] * np.pi < FAINT   # the log path
    expected = exact_vote(grid, X_small, y_small, q, X_test)
    assert np.count_nonzero((expected > 0.1) & (expected < 0.9)) >= 5
    alphas = kgs.gibbs_sample(linear_kernel(X), y, q, 20_000, burn_in=50, thin=1, random_state=3)
    got = kgs.vote(alphas, linear_kernel(X_test, X))
    assert np.max(np.abs(got - expected)) < 0.02


def test_stacked_tables_give_each_chain_its_own_flip_rate():
    # a step with a flip rate per chain moves chain i exactly as a step of all chains at q_i (same random draws)
    X, y, _ = problem(3, m=15, flips=3, seed=6)
    features, _ = kgs.kernel_coordinates(linear_kernel(X))
    signed = y[:, None] * features
    start = np.random.default_rng(1).standard_normal((4, 3))
    start /= np.linalg.norm(start, axis=1, keepdims=True)
    row_q = np.array([0.4, 0.1, 0.01, 0.25])
    stacked_coords, stacked_margins = start.copy(), start @ signed.T
    with np.errstate(divide="ignore", invalid="ignore"):
        for step in range(20):
            rng = np.random.default_rng(step)
            move_on_circle(stacked_coords, stacked_margins, propose_circle(stacked_coords, signed, rng),
                           PairTables.stacked(row_q, 15), rng)
    for i, q in enumerate(row_q):
        coords, margins = start.copy(), start @ signed.T
        with np.errstate(divide="ignore", invalid="ignore"):
            for step in range(20):
                rng = np.random.default_rng(step)
                move_on_circle(coords, margins, propose_circle(coords, signed, rng), PairTables.of(q, 15), rng)
        np.testing.assert_array_equal(stacked_coords[i], coords[i])
        np.testing.assert_array_equal(stacked_margins[i], margins[i])


def test_one_pass_draws_are_the_chain_by_chain_draws(monkeypatch):
    # from ONE_PASS_DRAWS chains on, a step draws every chain's pair of arcs in one pass: the same draws, bit for bit
    from kgslab import _kgs_engine
    X, y, _ = problem(3, m=40, flips=6, seed=4)
    features, _ = kgs.kernel_coordinates(linear_kernel(X))
    signed = y[:, None] * features
    start = np.random.default_rng(2).standard_normal((12, 3))
    start /= np.linalg.norm(start, axis=1, keepdims=True)
    moved = []
    for one_pass_from in (1, 1000):
        monkeypatch.setattr(_kgs_engine, "ONE_PASS_DRAWS", one_pass_from)
        coords, margins, rng = start.copy(), start @ signed.T, np.random.default_rng(5)
        with np.errstate(divide="ignore", invalid="ignore"):
            for _ in range(30):
                move_on_circle(coords, margins, propose_circle(coords, signed, rng), PairTables.of(0.1, 40), rng)
        moved.append(coords.tobytes() + margins.tobytes())
    assert moved[0] == moved[1]
    assert not np.allclose(np.frombuffer(moved[0])[:36], start.ravel())   # the chains moved


def _chains_on(problem_seed, m, k, q):
    X, y, _ = problem(3, m=m, flips=0 if q == 0 else m // 6, seed=problem_seed)
    features, _ = kgs.kernel_coordinates(linear_kernel(X))
    signed = y[:, None] * features
    start = _kgs_engine.start_points(features, y, q, k, np.random.default_rng(problem_seed))
    return signed, start


@pytest.mark.parametrize("m, k, q", [(40, 4, 0.1), (40, 12, 0.25), (15, 4, 0.0), (2, 3, 0.2)])
def test_the_compiled_step_makes_the_numpy_steps_draws(m, k, q):
    # the run loop moves its chains by compiled loops (move_compiled: _tangents, _move_chains); move_on_circle is
    # the same step in numpy calls. From the same points with the same random numbers both must move every chain to
    # the same place (to rounding: arctan and the rotation's sums are not the same machine instructions)
    signed, start = _chains_on(9, m, k, q)
    moved = []
    for move, tangents in ((move_on_circle, None), (_kgs_engine.move_compiled, _kgs_engine._tangents)):
        coords, margins, rng = start.copy(), start @ signed.T, np.random.default_rng(11)
        thetas = []
        with np.errstate(divide="ignore", invalid="ignore"):
            for _ in range(100):
                thetas.append(move(coords, margins, propose_circle(coords, signed, rng, tangents),
                                   PairTables.of(q, m), rng))
        moved.append((coords, margins, np.array(thetas)))
    (coords, margins, thetas), (coords_c, margins_c, thetas_c) = moved
    np.testing.assert_allclose(thetas_c, thetas, atol=1e-10)
    np.testing.assert_allclose(coords_c, coords, atol=1e-10)
    np.testing.assert_allclose(margins_c, margins, atol=1e-10)
    assert not np.allclose(coords, start)                               # the chains moved
    if q == 0:
        assert np.all(margins > 0)                                      # q = 0 stays in version space


def test_the_compiled_loops_compute_what_their_python_source_says():
    # numba compiles _move_chains and _project_to_tangents; the interpreter running the same functions must give
    # the same tangents, thetas and points
    signed, start = _chains_on(3, 30, 5, 0.15)
    tables = PairTables.of(0.15, 30)
    results = []
    for tangents, move in ((_kgs_engine._compiled_tangents(), _kgs_engine._compiled_move()),
                           (_kgs_engine._project_to_tangents, _kgs_engine._move_chains)):
        coords, margins, rng = start.copy(), start @ signed.T, np.random.default_rng(4)
        thetas = []
        with np.errstate(divide="ignore", invalid="ignore"):
            for _ in range(50):
                direction = rng.standard_normal(coords.shape)
                assert tangents(direction, coords)
                np.testing.assert_allclose(np.einsum("ij,ij->i", direction, coords), 0, atol=1e-12)
                np.testing.assert_allclose(np.linalg.norm(direction, axis=1), 1, atol=1e-12)
                thetas.append(move(coords, margins, direction, direction @ signed.T, tables.weight, tables.log_weight,
                                   tables.first_share, np.zeros(5, dtype=np.int64), rng.random((5, 3)), FAINT))
        results.append((np.array(thetas), coords, margins))
    for compiled, interpreted in zip(*results):
        np.testing.assert_allclose(compiled, interpreted, rtol=1e-9, atol=1e-12)


def test_a_tangent_drawn_parallel_to_its_point_is_drawn_again():
    # the compiled projection gives up on a row whose normal draw is (numerically) its point; the engine then draws
    # that row again, as versionspace.random_tangents does, and every row comes out a unit tangent
    coords = np.eye(3)[:2].copy()

    class Parallel:
        calls = 0

        def standard_normal(self, shape):
            self.calls += 1
            if self.calls == 1:
                return coords * 2.0                                    # both rows along their own points
            return np.random.default_rng(self.calls).standard_normal(shape)

    direction = _kgs_engine._tangents(coords, Parallel())
    np.testing.assert_allclose(np.einsum("ij,ij->i", direction, coords), 0, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(direction, axis=1), 1)


def _both_twins(signed, start, tables, n_steps=30):
    """(coords, margins, thetas) after n_steps of move_on_circle and of move_compiled, from the same draws."""
    moved = []
    for move, tangents in ((move_on_circle, None), (_kgs_engine.move_compiled, _kgs_engine._tangents)):
        coords, margins, rng = start.copy(), start @ signed.T, np.random.default_rng(5)
        with np.errstate(divide="ignore", invalid="ignore"):
            thetas = [move(coords, margins, propose_circle(coords, signed, rng, tangents), tables, rng)
                      for _ in range(n_steps)]
        moved.append((coords, margins, np.array(thetas)))
    return moved


def test_the_twins_make_the_same_draws_on_every_branch():
    # move_on_circle (numpy) and move_compiled (numba) are one step written twice: the run loop takes the compiled
    # one up to COMPILED_UP_TO training points and the numpy one above. Beyond the plain tables above, they must
    # agree on the same draws for a flip rate per chain (evidence's ladder), above the switch, and on circles whose
    # likelihood underflows (the log-space path, FAINT)
    signed, start = _chains_on(4, 40, 6, 0.1)
    stacked = PairTables.stacked([0.02, 0.05, 0.1, 0.2, 0.3, 0.45], 40)
    X_small, y_small, _ = problem(2, m=10, flips=2, seed=2)
    doubled = np.random.default_rng(7).standard_normal((400, 2))
    X = np.vstack([X_small, doubled, doubled])
    y = np.concatenate([y_small, np.ones(400), -np.ones(400)])
    features, _ = kgs.kernel_coordinates(linear_kernel(X))
    faint_signed = y[:, None] * features
    faint_start = _kgs_engine.start_points(features, y, 0.15, 3, np.random.default_rng(1))
    faint = PairTables.of(0.15, len(y))
    assert faint.weight[400] * np.pi < FAINT                      # every circle here takes the log-space path
    large_signed, large_start = _chains_on(3, _kgs_engine.COMPILED_UP_TO + 50, 4, 0.2)
    for signed_i, start_i, tables in [(signed, start, stacked), (faint_signed, faint_start, faint),
                                      (large_signed, large_start, PairTables.of(0.2, large_signed.shape[0]))]:
        (coords, margins, thetas), (coords_c, margins_c, thetas_c) = _both_twins(signed_i, start_i, tables)
        np.testing.assert_allclose(thetas_c, thetas, atol=1e-9)
        np.testing.assert_allclose(coords_c, coords, atol=1e-9)
        np.testing.assert_allclose(margins_c, margins, atol=1e-9)
        assert not np.allclose(coords, start_i)                       # the chains moved

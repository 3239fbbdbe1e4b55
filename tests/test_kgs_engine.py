"""The engine under the KGS samplers (kgslab._kgs_engine): its step against the circle's reference and
exact posteriors; stacked flip rates; the log-space path for circles whose likelihood underflows."""

import numpy as np
import pytest

from exact_posteriors import circle_grid, exact_vote, problem
from test_circle import random_step
from kgslab import circle, kgs
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

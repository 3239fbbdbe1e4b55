"""The kernel billiard against exact volumes on the sphere, brute force and recomputed projections."""

import math
import time

import numpy as np
import pytest

from kgslab.billiard import billiard_probabilities, transductive_confidence
from kgslab.billiard_ball import KernelBilliard
from kgslab.stopping import hoeffding_bounces, hoeffding_epsilon
from kgslab.versionspace import version_space_start
from kgslab.kernels import linear_kernel, rbf_kernel


def separable_problem(d, n_train, n_test, seed):
    """Points in R^d labelled by a random w*, both classes present; test points uniform directions."""
    rng = np.random.default_rng(seed)
    w_star = rng.standard_normal(d)
    while True:
        X = rng.standard_normal((n_train, d))
        y = np.sign(X @ w_star)
        if abs(y.sum()) < n_train:
            break
    return X, y, rng.standard_normal((n_test, d)), rng


def exact_volume_ratio(X, y, T, rng, n_samples=400_000):
    """p+ by brute force: uniform points on the sphere, keep those in version space, vote on each test point."""
    W = rng.standard_normal((n_samples, X.shape[1]))
    W /= np.linalg.norm(W, axis=1, keepdims=True)
    inside = W[np.all((W @ X.T) * y > 0, axis=1)]
    assert len(inside) > 5000, "version space too small for a precise reference"
    return np.mean(inside @ T.T > 0, axis=0)


@pytest.mark.parametrize("d, seed", [(3, 0), (3, 1), (4, 2), (4, 3)])
def test_p_plus_matches_exact_volume_ratio(d, seed):
    X, y, T, rng = separable_problem(d, n_train=6, n_test=25, seed=seed)
    exact = exact_volume_ratio(X, y, T, rng)
    p_plus = billiard_probabilities(linear_kernel(X), y, linear_kernel(T, X), 6000, random_state=seed)
    assert np.max(np.abs(p_plus - exact)) < 0.03
    # and it is not trivially right: the test points are genuinely uncertain
    assert np.sum((exact > 0.1) & (exact < 0.9)) >= 5


def test_frequent_refreshes_keep_the_uniform_distribution():
    """The kit's departure from the paper (random direction refreshes) must not bias the volumes."""
    X, y, T, rng = separable_problem(3, n_train=7, n_test=25, seed=5)
    exact = exact_volume_ratio(X, y, T, rng)
    p_plus = billiard_probabilities(linear_kernel(X), y, linear_kernel(T, X), 6000, refresh_every=1.0,
                                    random_state=5)
    assert np.max(np.abs(p_plus - exact)) < 0.03


def test_training_points_and_their_mirrors_are_certain():
    """Every w in version space labels a training point correctly, and its mirror image -x wrongly."""
    X, y, _, _ = separable_problem(4, n_train=20, n_test=0, seed=7)
    Z = np.vstack([X[:8], -X[:8]])
    p_plus = billiard_probabilities(linear_kernel(X), y, linear_kernel(Z, X), 300, random_state=0)
    np.testing.assert_allclose(p_plus[:8], (y[:8] > 0).astype(float), atol=1e-12)
    np.testing.assert_allclose(p_plus[8:], (y[:8] < 0).astype(float), atol=1e-12)


def test_ball_never_leaves_version_space():
    X, y, _, _ = separable_problem(5, n_train=40, n_test=0, seed=11)
    K = linear_kernel(X)
    ball = KernelBilliard(K, y, random_state=0, refresh_rate=2.0)
    alphas, _ = ball.run(3000, record=True)
    margins = y * (alphas @ K)                                   # at every event (on walls: 0)
    assert margins.min() > -1e-10
    # between events the ball flies on the great circle; its midpoint is the normalised sum of the ends
    W = alphas @ X
    midpoints = W[1:] + W[:-1]
    midpoints /= np.linalg.norm(midpoints, axis=1, keepdims=True)
    assert np.min((midpoints @ X.T) * y) > 0
    np.testing.assert_allclose(np.linalg.norm(W, axis=1), 1.0, atol=1e-10)
    assert ball.n_refreshes > 0 and ball.n_bounces == 3000


def test_incremental_projections_equal_recomputed_ones():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((60, 3))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(60) > 0, 1.0, -1.0)
    T = rng.standard_normal((40, 3))
    K, K_test = rbf_kernel(X, L=1.0), rbf_kernel(T, X, L=1.0)
    ball = KernelBilliard(K, y, K_test, lam=0.1, refresh_rate=1.0, random_state=1)
    ball.run(5000)
    gram = K + 0.1 * np.eye(60)
    np.testing.assert_allclose(ball.margins, y * (gram @ ball.alpha), atol=1e-9)
    np.testing.assert_allclose(ball.test_projections, K_test @ ball.alpha, atol=1e-9)
    np.testing.assert_allclose(ball.slopes, y * (gram @ ball.beta), atol=1e-9)
    np.testing.assert_allclose(ball.test_slopes, K_test @ ball.beta, atol=1e-9)
    # still an orthonormal pair on the sphere
    assert abs(ball.alpha @ gram @ ball.alpha - 1) < 1e-9
    assert abs(ball.beta @ gram @ ball.beta - 1) < 1e-9
    assert abs(ball.alpha @ gram @ ball.beta) < 1e-9
    assert ball.n_refreshes > 0


def plus_time_by_brute_force(gram, K_test, alphas, betas, n_steps=2000):
    """Flight on the + side of each test point, summed over a recorded trajectory on a fine grid of each arc.

    Returns the sums and their error bound: the grid misplaces a crossing by at most one grid step, and a
    point crosses at most once per flight (a flight is shorter than half a circle).
    """
    total, bound = np.zeros(K_test.shape[0]), np.zeros(K_test.shape[0])
    for k in range(len(alphas) - 1):
        arc = math.acos(np.clip(alphas[k] @ gram @ alphas[k + 1], -1.0, 1.0))   # flight k's length
        t = (np.arange(n_steps) + 0.5) * arc / n_steps
        a, b = K_test @ alphas[k], K_test @ betas[k]
        plus = np.outer(np.cos(t), a) + np.outer(np.sin(t), b) > 0
        total += plus.sum(axis=0) * arc / n_steps
        # a crossing anywhere in the flight, even before the first grid point, misplaces at most one step
        bound += ((a > 0) != plus[-1]) * arc / n_steps
    return total, bound


# 400 test points: four slices of TEST_SLICE (the last one partial), several flipping in one flight; 5: one slice
@pytest.mark.parametrize("n_test", [400, 5])
def test_time_on_the_plus_side_equals_brute_force_along_the_trajectory(n_test):
    X, y, T, _ = separable_problem(3, 10, n_test, seed=5)
    K, K_test = linear_kernel(X), linear_kernel(T, X)
    ball = KernelBilliard(K, y, K_test, refresh_rate=0.5, random_state=3)
    flips_per_flight = []
    alphas, betas = [ball.alpha.copy()], [ball.beta.copy()]
    for _ in range(300):
        before = ball._positive.copy()
        ball.step()
        flips_per_flight.append(int(np.sum(before != ball._positive)))
        alphas.append(ball.alpha.copy())
        betas.append(ball.beta.copy())
    # several flips in one flight (and, with 400, in several slices) and refreshes are exercised
    assert max(flips_per_flight) > (8 if n_test > 128 else 1) and ball.n_refreshes > 0
    # betas[k] is the direction leaving event k; a refresh or reflection happens after the flight
    reference, bound = plus_time_by_brute_force(K, K_test, np.array(alphas), np.array(betas))
    assert np.all(np.abs(ball.time_plus - reference) <= bound + 1e-9)
    assert ball.arc_length == pytest.approx(sum(
        math.acos(np.clip(alphas[k] @ K @ alphas[k + 1], -1, 1)) for k in range(300)), abs=1e-9)


def test_wall_times_are_the_closed_form_roots():
    """t_j from atan2 is the first positive zero of a_j cos t + b_j sin t, and the nearest is the argmin."""
    X, y, _, _ = separable_problem(4, n_train=12, n_test=0, seed=8)
    ball = KernelBilliard(linear_kernel(X), y, random_state=3)
    ball.run(7)
    times = ball.wall_times()
    w, v = X.T @ ball.alpha, X.T @ ball.beta
    for j, t in enumerate(times):
        if j == ball.last_wall:
            continue
        grid = np.linspace(0, t, 2001)[:-1]
        assert np.all(y[j] * ((np.cos(grid)[:, None] * w + np.sin(grid)[:, None] * v) @ X[j]) > -1e-12)
        assert abs((math.cos(t) * w + math.sin(t) * v) @ X[j]) < 1e-9
    arc = ball.step()                                  # no refresh clock: the next event is the nearest wall
    assert ball.last_wall == int(np.argmin(times)) and arc == pytest.approx(times.min())


def test_hard_margin_start_is_the_maximum_margin_direction():
    """In R^2 the hard-margin perceptron without bias is found by brute force over angles."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((10, 2))
    y = np.sign(X @ np.array([1.0, 2.0]))
    w = X.T @ version_space_start(linear_kernel(X), y)
    angles = np.linspace(0, 2 * np.pi, 200_001)
    W = np.column_stack([np.cos(angles), np.sin(angles)])
    best = W[np.argmax(np.min((W @ X.T) * y, axis=1))]
    np.testing.assert_allclose(w, best, atol=1e-4)


def test_hoeffding_rule_eq8():
    n = hoeffding_bounces(0.05, 0.01)
    assert n == 922                                     # the paper's "approximately 1000"
    assert math.exp(-2 * n * 0.05 ** 2) <= 0.01 < math.exp(-2 * (n - 1) * 0.05 ** 2)
    assert hoeffding_epsilon(n, 0.01) <= 0.05 < hoeffding_epsilon(n - 1, 0.01)
    X, y, T, _ = separable_problem(3, 6, 5, seed=1)
    p = billiard_probabilities(linear_kernel(X), y, linear_kernel(T, X), epsilon=0.2, eta=0.05, random_state=0)
    assert p.shape == (5,) and np.all((p >= 0) & (p <= 1))


def test_confidence_eq7():
    np.testing.assert_allclose(transductive_confidence([0.5, 0.9, 0.1, 1.0]), [0.0, 0.8, 0.8, 1.0])


def test_soft_version_runs_where_the_hard_one_has_no_version_space():
    X = np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.2], [-1.0, 0.3]])
    y = np.array([1.0, -1.0, 1.0, -1.0])                   # the same point with both labels
    K = rbf_kernel(X, L=1.0)
    with pytest.raises(ValueError, match="No version space.*lam > 0"):
        billiard_probabilities(K, y, K[:2], 100)
    p = billiard_probabilities(K, y, K[:2], 500, lam=0.5, random_state=0)
    assert np.all((p >= 0) & (p <= 1))
    assert abs(p[0] - p[1]) < 1e-12                        # the two copies are the same test point


def same_numbers_for_a_seed_and_for_a_subset_of_test_points(probabilities, n):
    """A sampler's p+ (`probabilities(K, y, K_test, n, random_state=...)`) for one seed, twice, and for a subset of
    the test points: the same numbers, since one run serves every test point.  Returns p+ and (K, y, K_test)."""
    X, y, T, _ = separable_problem(3, 8, 10, seed=2)
    K, K_test = linear_kernel(X), linear_kernel(T, X)
    first = probabilities(K, y, K_test, n, random_state=42)
    np.testing.assert_array_equal(first, probabilities(K, y, K_test, n, random_state=42))
    np.testing.assert_array_equal(first[3:7], probabilities(K, y, K_test[3:7], n, random_state=42))
    return first, (K, y, K_test)


def test_reproducible_with_a_seed():
    same_numbers_for_a_seed_and_for_a_subset_of_test_points(billiard_probabilities, 500)


@pytest.mark.parametrize("change, message", [
    (dict(K=np.array([[1.0, 2.0], [2.0, 1.0]])), "positive semi-definite.*-1"),
    (dict(K=np.array([[1.0, 0.5], [0.4, 1.0]])), "symmetric"),
    (dict(y=np.array([1.0, 1.0])), "two classes"),
    (dict(y=np.array([1.0, 2.0])), "-1 and \\+1"),
    (dict(y=np.array([1.0])), "one entry per row"),
    (dict(K_test=np.ones((3, 5))), "K_test must have one column per training point"),
    (dict(n_bounces=0), "n_bounces must be >= 1"),
    (dict(lam=-0.1), "lam must be >= 0"),
    (dict(K=np.array([[1.0, np.nan], [np.nan, 1.0]])), "finite"),
])
def test_bad_input_is_refused(change, message):
    arguments = dict(K=np.array([[1.0, 0.1], [0.1, 1.0]]), y=np.array([1.0, -1.0]), K_test=np.ones((3, 2)),
                     n_bounces=10, lam=0.0)
    arguments.update(change)
    with pytest.raises(ValueError, match=message):
        billiard_probabilities(arguments.pop("K"), arguments.pop("y"), arguments.pop("K_test"), **arguments)


def test_bad_types_are_refused():
    K, y = np.eye(2), np.array([1.0, -1.0])
    with pytest.raises(TypeError, match="n_bounces must be an integer"):
        billiard_probabilities(K, y, K, 10.5)
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        hoeffding_bounces(0.0, 0.01)
    with pytest.raises(ValueError, match="eta must be < 1"):
        hoeffding_bounces(0.1, 1.0)


def test_exact_spherical_area_against_monte_carlo_and_closed_forms():
    from kgslab.papers.bt1999 import spherical_polygon_area, volume_ratio_on_sphere
    assert spherical_polygon_area(np.eye(3)) == pytest.approx(np.pi / 2)          # an octant
    assert spherical_polygon_area(np.eye(3)[:2]) == pytest.approx(np.pi)           # a quarter sphere (lune)
    assert spherical_polygon_area(np.array([[1.0, 0, 0], [-1.0, 0, 0]])) == 0.0    # empty
    X, y, T, rng = separable_problem(3, n_train=7, n_test=10, seed=9)
    W = rng.standard_normal((1_000_000, 3))
    W /= np.linalg.norm(W, axis=1, keepdims=True)
    inside = np.all((W @ X.T) * y > 0, axis=1)
    assert spherical_polygon_area(y[:, None] * X) == pytest.approx(4 * np.pi * inside.mean(), rel=0.03)
    np.testing.assert_allclose(volume_ratio_on_sphere(X, y, T), np.mean(W[inside] @ T.T > 0, axis=0), atol=0.02)
    # and the billiard against the exact ratio
    p_plus = billiard_probabilities(linear_kernel(X), y, linear_kernel(T, X), 6000, random_state=9)
    assert np.max(np.abs(p_plus - volume_ratio_on_sphere(X, y, T))) < 0.03


def test_paper_bounce_equals_the_incremental_one():
    from kgslab.billiard_ball import billiard_bounce
    X, y, _, _ = separable_problem(4, n_train=15, n_test=0, seed=12)
    K = linear_kernel(X)
    ball = KernelBilliard(K, y, random_state=0)
    alpha, beta, last = ball.alpha.copy(), ball.beta.copy(), -1
    for _ in range(200):
        alpha, beta, last, _arc = billiard_bounce(alpha, beta, K, y, last)
        ball.step()
        assert ball.last_wall == last
    np.testing.assert_allclose(ball.alpha, alpha, atol=1e-8)


def test_error_rejection_curve_by_hand():
    from kgslab.billiard import error_rejection_curve
    from kgslab.papers.bt1999 import figure2_curves, match_theta_max
    rejection, error = error_rejection_curve([0.1, 0.5, 0.9, 1.0], [False, True, False, True], [0, 0.5, 0.95, 2])
    np.testing.assert_allclose(rejection, [0, 0.25, 0.75, 1.0])
    np.testing.assert_allclose(error[:3], [0.5, 1 / 3, 0.0])
    assert np.isnan(error[3])
    results = {"trans_confidence": np.array([[1.0, 1.0, 0.2, 0.4]]), "trans_correct": np.ones((1, 4), bool),
               "svm_confidence": np.array([[3.0, 0.5, 2.0, 1.0]]), "svm_correct": np.ones((1, 4), bool)}
    assert match_theta_max(results) == pytest.approx(np.quantile([3.0, 0.5, 2.0, 1.0], 0.5))
    curves = figure2_curves(results, n_thresholds=3)
    assert curves["trans"]["rejection"][-1] == 0.5 and curves["svm"]["rejection"][-1] == 0.5


def test_a_test_point_orthogonal_to_the_training_points_is_a_coin_flip():
    X, y, T, _ = separable_problem(3, n_train=8, n_test=3, seed=4)
    K_test = linear_kernel(T, X)
    K_test[1] = 0.0                                      # e.g. an RBF point far from every training point
    p_plus = billiard_probabilities(linear_kernel(X), y, K_test, 200, random_state=0)
    assert p_plus[1] == 0.5 and transductive_confidence(p_plus)[1] == 0.0


def test_counted_arc_is_the_flight_since_reset_times_and_p_plus_its_share():
    X, y, T, _ = separable_problem(3, n_train=8, n_test=5, seed=2)
    ball = KernelBilliard(linear_kernel(X), y, linear_kernel(T, X), random_state=1)
    ball.run(20)
    ball.reset_times()
    assert ball.counted_arc == 0.0
    start = ball.arc_length
    ball.run(50)
    assert ball.counted_arc == ball.arc_length - start > 0
    np.testing.assert_allclose(ball.p_plus * ball.counted_arc, ball.time_plus)


def test_a_run_too_short_for_diagnostics_reports_nan_and_not_converged():
    from kgslab.billiard import billiard_run
    X, y, T, _ = separable_problem(3, n_train=8, n_test=5, seed=2)
    run = billiard_run(linear_kernel(X), y, linear_kernel(T, X), 3, n_chains=2, burn_in=5, random_state=0)
    assert run.n_bounces == 3 and not run.converged
    assert all(np.isnan(part).all() and part.shape == (5,) for part in (run.rhat, run.ess, run.mc_error))
    assert ((run.p_plus >= 0) & (run.p_plus <= 1)).all()


@pytest.mark.parametrize("refresh_rate", [0.0, 2.0])
def test_the_compiled_bounces_fly_the_trajectory_of_the_step(refresh_rate):
    # run() makes its bounces by calls of the compiled loop (billiard_ball._bounces) of up to COMPILED_CHUNK bounces, and
    # step() by one call a bounce; the refreshes are drawn in Python between calls. From the same start and seed
    # both must be in the same place after 2000 bounces, with the same refreshes and the same time on +
    X, y, T, _ = separable_problem(4, n_train=30, n_test=60, seed=2)
    K, K_test = rbf_kernel(X, L=2.0), rbf_kernel(T, X, L=2.0)
    stepped, compiled = (KernelBilliard(K, y, K_test, refresh_rate=refresh_rate, random_state=4) for _ in range(2))
    while stepped.n_bounces < 2000:
        stepped.step()
    compiled.run(2000)
    assert compiled.n_bounces == stepped.n_bounces and compiled.n_refreshes == stepped.n_refreshes
    assert (compiled.n_refreshes > 0) == (refresh_rate > 0)
    assert compiled.last_wall == stepped.last_wall
    # the same arithmetic in the same order: the same numbers, to the last bit
    np.testing.assert_array_equal(compiled._train, stepped._train)
    np.testing.assert_array_equal(compiled._test, stepped._test)
    assert compiled.arc_length == stepped.arc_length
    np.testing.assert_array_equal(compiled.time_plus, stepped.time_plus)
    assert 0 < np.count_nonzero((compiled.p_plus > 0) & (compiled.p_plus < 1))   # test points changed sides


def test_the_compiled_bounce_loop_computes_what_its_python_source_says():
    # numba compiles billiard_ball._bounces; the interpreter running the same function must fly the same bounces
    from kgslab.billiard_ball import TEST_SLICE, _bounces, _compiled_bounces
    X, y, T, _ = separable_problem(3, n_train=12, n_test=TEST_SLICE + 20, seed=7)     # two slices of test points
    results = []
    for bounce in (_compiled_bounces(), _bounces):
        ball = KernelBilliard(linear_kernel(X), y, linear_kernel(T, X), random_state=1)
        returned = bounce(ball._train, ball._test, ball._train_rows, ball._test_rows, ball._reflection_factors, ball.y,
                          ball._plus_signed, ball._positive, ball._keys, 300, 0, -1, 0.0, math.inf,
                          ball.renormalise_every)
        results.append((returned, ball._train.copy(), ball._plus_signed.copy(), ball._positive.copy()))
    (returned, train, plus, positive), (returned_py, train_py, plus_py, positive_py) = results
    assert returned[:3] == returned_py[:3] == (0, 300, returned[2])     # target reached, same last wall
    assert returned[3] == pytest.approx(returned_py[3], rel=1e-12)
    np.testing.assert_allclose(train, train_py, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(plus, plus_py, atol=1e-10)
    np.testing.assert_array_equal(positive, positive_py)


def test_a_long_compiled_run_stays_interruptible():
    # a compiled call cannot be interrupted, so run() makes its bounces in calls of at most COMPILED_CHUNK: a signal
    # (Ctrl-C, the checks' time limit) raised during a long run stops it within one chunk, not at its end
    import signal

    from kgslab import billiard
    X, y, T, _ = separable_problem(4, n_train=30, n_test=20, seed=3)
    ball = KernelBilliard(linear_kernel(X), y, linear_kernel(T, X), random_state=0)
    ball.run(10)                                                   # compiled (or loaded) before the clock starts

    def stop(signum, frame):
        raise TimeoutError

    previous = signal.signal(signal.SIGALRM, stop)
    started = time.process_time()
    signal.setitimer(signal.ITIMER_REAL, 0.05)
    try:
        with pytest.raises(TimeoutError):
            ball.run(billiard.MAX_BOUNCES)                         # 10 million bounces: about 10 CPU-s
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    # stopped within one chunk of the signal (30 000 bounces here take about 0.03 CPU-s), not at the run's end.
    # CPU time, not bounces: the signal's exception can come right after a chunk returns, before its count is stored
    assert time.process_time() - started < 2.0

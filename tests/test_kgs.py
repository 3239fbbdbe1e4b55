"""The kernel Gibbs sampler against exact posteriors on the circle (R^2) and the sphere (R^3).

With the linear kernel in R^d the hypothesis space is the unit sphere S^(d-1) itself, small
enough to integrate the posterior of eqs. (2)-(3) on a fine grid (a uniform grid of angles
on the circle, a Fibonacci lattice on the sphere).  The grid reference is written here in
plain numpy, independently of kgslab.kgs.
"""

import numpy as np
import pytest

from kgslab import circle, data, diagnostics, evidence, kgs
from kgslab.papers import kgs2000
from kgslab.kernels import linear_kernel, rbf_kernel


# ---------------------------------------------------------------- exact references
def circle_grid(n=200_000):
    angles = (np.arange(n) + 0.5) * 2 * np.pi / n
    return np.column_stack([np.cos(angles), np.sin(angles)])


def sphere_grid(n=200_000):
    """Fibonacci lattice: n nearly equal-area points on S^2."""
    index = np.arange(n) + 0.5
    z = 1 - 2 * index / n
    azimuth = np.pi * (1 + 5**0.5) * index
    radius = np.sqrt(1 - z**2)
    return np.column_stack([radius * np.cos(azimuth), radius * np.sin(azimuth), z])


def exact_posterior(grid, X, y, q):
    """Posterior weights of the grid points: q^e (1-q)^(m-e), normalised (uniform prior)."""
    errors = np.count_nonzero(y[None, :] * (grid @ X.T) <= 0, axis=1)
    if q == 0:
        weights = (errors == 0).astype(float)
    else:
        log_w = errors * np.log(q) + (len(y) - errors) * np.log(1 - q)
        weights = np.exp(log_w - log_w.max())
    return weights / weights.sum()


def exact_vote(grid, X, y, q, X_test):
    weights = exact_posterior(grid, X, y, q)
    return (grid @ X_test.T > 0).T.astype(float) @ weights


def exact_log_evidence(grid, X, y, q):
    errors = np.count_nonzero(y[None, :] * (grid @ X.T) <= 0, axis=1)
    log_l = errors * np.log(q) + (len(y) - errors) * np.log(1 - q)
    top = log_l.max()
    return top + np.log(np.mean(np.exp(log_l - top)))


def problem(d, m, flips, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, d))
    w_true = np.zeros(d)
    w_true[0] = 1.0
    y = np.where(X @ w_true > 0, 1.0, -1.0)
    y[:flips] *= -1
    X_test = rng.standard_normal((100, d))
    return X, y, X_test


# ---------------------------------------------------------------- the vote matches the posterior
@pytest.mark.parametrize("d, q, flips", [(2, 0.0, 0), (2, 0.2, 2), (3, 0.0, 0), (3, 0.15, 2)])
def test_vote_matches_exact_posterior(d, q, flips):
    X, y, X_test = problem(d, m=10, flips=flips, seed=d)
    grid = circle_grid() if d == 2 else sphere_grid()
    expected = exact_vote(grid, X, y, q, X_test)
    # The test must be able to fail: some test points have a genuinely uncertain vote.
    assert np.count_nonzero((expected > 0.1) & (expected < 0.9)) >= 5
    alphas = kgs.gibbs_sample(linear_kernel(X), y, q, 40_000, burn_in=200, thin=1, random_state=0)
    got = kgs.vote(alphas, linear_kernel(X_test, X))
    print(f"largest vote error {np.max(np.abs(got - expected)):.4f}")
    assert np.max(np.abs(got - expected)) < 0.02


def test_samples_have_unit_norm_and_q0_stays_in_version_space():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((60, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)  # XOR: separable only by the rbf kernel
    K = rbf_kernel(X, L=1.0)
    alphas = kgs.gibbs_sample(K, y, 0.0, 200, burn_in=50, thin=2, random_state=1)
    # alpha' K alpha = 1 up to rounding: K is ill-conditioned, so alpha is large and
    # the product loses digits (about eps * ||alpha||^2 * ||K||).
    norms = np.einsum("ij,jk,ik->i", alphas, K, alphas)
    np.testing.assert_allclose(norms, 1.0, atol=1e-6)
    linear = kgs.gibbs_sample(linear_kernel(X), np.sign(X[:, 0]), 0.0, 200, random_state=1)
    np.testing.assert_allclose(np.einsum("ij,jk,ik->i", linear, linear_kernel(X), linear), 1.0, atol=1e-12)
    assert evidence.training_errors(alphas @ K, y).max() == 0
    noisy = kgs.gibbs_sample(K, y, 0.3, 200, burn_in=50, thin=2, random_state=1)
    np.testing.assert_allclose(np.einsum("ij,jk,ik->i", noisy, K, noisy), 1.0, atol=1e-6)
    assert evidence.training_errors(noisy @ K, y).max() > 0  # q > 0 visits cells with errors


def test_error_count_distribution_matches_exact_posterior():
    X, y, _ = problem(3, m=12, flips=3, seed=5)
    q = 0.25
    grid = sphere_grid()
    weights = exact_posterior(grid, X, y, q)
    grid_errors = np.count_nonzero(y[None, :] * (grid @ X.T) <= 0, axis=1)
    expected = np.bincount(grid_errors, weights=weights, minlength=13)
    alphas = kgs.gibbs_sample(linear_kernel(X), y, q, 10_000, burn_in=100, thin=2, random_state=2)
    got = np.bincount(evidence.training_errors(alphas @ linear_kernel(X), y), minlength=13) / len(alphas)
    assert np.max(np.abs(got - expected)) < 0.02


def test_a_point_at_the_origin_is_always_an_error():
    # x = 0 has margin 0 for every w: a constant factor q in the likelihood (eq. 3), so the
    # posterior of the other points is unchanged; and with q = 0 there is no version space.
    X, y, X_test = problem(2, m=8, flips=1, seed=6)
    with_origin = np.vstack([X, [[0.0, 0.0]]])
    y_origin = np.append(y, 1.0)
    alphas = kgs.gibbs_sample(linear_kernel(with_origin), y_origin, 0.2, 6000, thin=2, random_state=0)
    expected = exact_vote(circle_grid(), X, y, 0.2, X_test)
    got = kgs.vote(alphas, linear_kernel(X_test, with_origin))
    assert np.max(np.abs(got - expected)) < 0.03
    separable = np.where(X[:, 0] > 0, 1.0, -1.0)
    with pytest.raises(ValueError, match="no w classifies every training point"):
        kgs.gibbs_sample(linear_kernel(with_origin), np.append(separable, 1.0), 0.0, 10)


def test_rank_one_kernel_two_point_sphere():
    # One feature: w is +1 or -1, with posterior odds q^e (1-q)^(m-e) between the two.
    X = np.array([[1.0], [2.0], [-1.0], [0.5], [-0.3]])
    y = np.array([1.0, 1.0, -1.0, -1.0, -1.0])
    errors_plus = np.count_nonzero(y * X[:, 0] <= 0)  # w = +1
    errors_minus = np.count_nonzero(-y * X[:, 0] <= 0)  # w = -1
    q = 0.3
    alphas = kgs.gibbs_sample(linear_kernel(X), y, q, 20_000, thin=1, random_state=0)
    like_plus = q**errors_plus * (1 - q) ** (5 - errors_plus)
    like_minus = q**errors_minus * (1 - q) ** (5 - errors_minus)
    p_plus = like_plus / (like_plus + like_minus)
    got = np.mean(alphas @ linear_kernel(X)[:, 0] > 0)
    assert abs(got - p_plus) < 0.02


# ---------------------------------------------------------------- the pieces of one step
def random_step(m=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, 2))
    y = np.where(rng.random(m) < 0.5, 1.0, -1.0)
    features, _ = kgs.kernel_coordinates(rbf_kernel(X, L=0.7))
    c = rng.standard_normal(features.shape[1])
    c /= np.linalg.norm(c)
    v = rng.standard_normal(features.shape[1])
    v -= (v @ c) * c
    v /= np.linalg.norm(v)
    return features @ c, features @ v, y


def test_crossing_angles_are_where_the_margin_changes_sign():
    w_out, v_out, y = random_step()
    m = len(y)
    angles = circle.crossing_angles(w_out, v_out, y)
    assert angles.shape == (2 * m,) and np.all((angles >= 0) & (angles < 2 * np.pi))

    def margins_at(thetas):
        """Margin of point i at thetas[i]."""
        return y * (np.cos(thetas) * w_out + np.sin(thetas) * v_out)

    eps = 1e-7
    np.testing.assert_allclose(margins_at(angles[:m]), 0, atol=1e-10)
    np.testing.assert_allclose(margins_at(angles[m:]), 0, atol=1e-10)
    assert np.all(margins_at(angles[:m] + eps) < 0)  # just after its first angle the point is an error
    assert np.all(margins_at(angles[m:] + eps) > 0)  # just after its second it is correct again
    np.testing.assert_allclose(np.mod(angles[m:] - angles[:m], 2 * np.pi), np.pi, atol=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_sweep_equals_direct_evaluation(seed):
    w_out, v_out, y = random_step(m=60, seed=seed)
    boundaries, errors = circle.arc_errors_by_sweep(circle.crossing_angles(w_out, v_out, y))
    assert np.all(np.diff(boundaries) >= 0)
    direct = circle.arc_errors_direct(boundaries, w_out, v_out, y)
    lengths = np.diff(boundaries, append=boundaries[0] + 2 * np.pi)
    visible = lengths > 1e-9  # a midpoint of a vanishing arc is not resolvable in floating point
    np.testing.assert_array_equal(errors[visible], direct[visible])
    # The arc holding theta = 0 (the current point) has the current point's error count.
    assert errors[-1] == np.count_nonzero(y * w_out <= 0)
    # The sampler's own version (one sort of m antipodal pairs) gives the same arcs.
    fast_boundaries, fast_errors, fast_lengths = kgs._arcs_of_step(y * w_out, y * v_out)
    # It cuts the circle at -pi/2 instead of 0: the same arcs once its boundaries are taken mod 2 pi.
    np.testing.assert_allclose(fast_lengths, np.diff(fast_boundaries, append=fast_boundaries[0] + 2 * np.pi), atol=1e-12)
    same_place = np.argsort(np.mod(fast_boundaries, 2 * np.pi))
    np.testing.assert_allclose(np.mod(fast_boundaries, 2 * np.pi)[same_place], boundaries, atol=1e-12)
    np.testing.assert_array_equal(fast_errors[same_place][visible], errors[visible])


def test_sample_angle_follows_the_piecewise_uniform_density():
    boundaries = np.array([0.0, 1.0, 2.5, 4.0])
    errors = np.array([0, 1, 2, 1])
    q = 0.2
    rng = np.random.default_rng(0)
    thetas = np.array([circle.sample_angle(boundaries, errors, q, rng) for _ in range(40_000)])
    lengths = np.diff(boundaries, append=2 * np.pi)
    weights = lengths * (q / (1 - q)) ** errors
    expected = weights / weights.sum()
    got = np.histogram(thetas, bins=np.append(boundaries, 2 * np.pi))[0] / len(thetas)
    np.testing.assert_allclose(got, expected, atol=0.01)
    # q = 0: only error-free arcs; uniform inside the arc.
    zero = np.array([circle.sample_angle(boundaries, errors, 0.0, rng) for _ in range(2000)])
    assert np.all((zero >= 0) & (zero < 1.0))
    assert abs(zero.mean() - 0.5) < 0.02


def test_huge_error_counts_do_not_underflow():
    # 5000 errors on one half circle and 4990 on the other: q^e underflows to 0 in floating
    # point, the log-space weights do not; the odds are (q / (1-q))^10.
    boundaries = np.array([0.0, np.pi])
    q = 0.4
    rng = np.random.default_rng(1)
    thetas = np.array([circle.sample_angle(boundaries, np.array([5000, 4990]), q, rng) for _ in range(5000)])
    expected = 1 / (1 + (q / (1 - q)) ** 10)
    assert abs(np.mean(thetas >= np.pi) - expected) < 0.01


def test_circles_whose_likelihood_underflows_are_sampled_in_log_space():
    # 400 pairs of equal points with opposite labels (one of each pair is wrong whatever w is) beside the
    # 10 points of a small problem: every hypothesis makes 400 errors or more, so at q = 0.15 every pair of
    # arcs has a weight (q/(1-q))^e below 1e-280 and the step must redo its circle in log space (kgs.FAINT);
    # the vote must still be the exact posterior's.
    X, y, X_test = problem(2, m=10, flips=2, seed=2)
    doubled = np.random.default_rng(7).standard_normal((400, 2))
    X = np.vstack([X, doubled, doubled])
    y = np.concatenate([y, np.ones(400), -np.ones(400)])
    q = 0.15
    grid = circle_grid()
    fewest = np.count_nonzero(y[None, :] * (grid @ X.T) <= 0, axis=1).min()
    assert fewest >= 400 and kgs._PairTables.of(q, len(y)).weight[fewest] * np.pi < kgs.FAINT   # the log path
    expected = exact_vote(grid, X, y, q, X_test)
    assert np.count_nonzero((expected > 0.1) & (expected < 0.9)) >= 5
    alphas = kgs.gibbs_sample(linear_kernel(X), y, q, 20_000, burn_in=50, thin=1, random_state=3)
    got = kgs.vote(alphas, linear_kernel(X_test, X))
    assert np.max(np.abs(got - expected)) < 0.02


# ---------------------------------------------------------------- reproducibility
def test_same_random_state_same_samples():
    X, y, _ = problem(3, m=15, flips=2, seed=1)
    K = rbf_kernel(X)
    first = kgs.gibbs_sample(K, y, 0.1, 30, random_state=7)
    again = kgs.gibbs_sample(K, y, 0.1, 30, random_state=7)
    other = kgs.gibbs_sample(K, y, 0.1, 30, random_state=8)
    np.testing.assert_array_equal(first, again)
    assert not np.allclose(first, other)
    generator_run = kgs.gibbs_sample(K, y, 0.1, 30, random_state=np.random.default_rng(7))
    np.testing.assert_array_equal(first, generator_run)


# ---------------------------------------------------------------- vote, entropy, evidence
def test_vote_and_entropy_by_hand():
    alphas = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.0]])
    K_test = np.array([[1.0, 0.0], [0.0, -1.0]])
    np.testing.assert_allclose(kgs.vote(alphas, K_test), [0.5, 0.0])
    np.testing.assert_allclose(evidence.binary_entropy([0.5, 0.0, 1.0, 0.25]),
                               [1.0, 0.0, 0.0, -(0.25 * np.log2(0.25) + 0.75 * np.log2(0.75))])


@pytest.mark.parametrize("tempered", [False, True])
@pytest.mark.parametrize("d", [2, 3])
def test_log_evidence_matches_grid_integral(d, tempered):
    # 4 chains x 200 samples per rung: every rung converged, and the evidence within 4 of its standard errors
    # (+0.005 for the grid) of the exact integral; the error bar is under 0.08 (one chain of 400 gave 0.05).
    # The same bounds hold for the rungs run together by replica exchange (tempered), whose swaps happen.
    X, y, _ = problem(d, m=12, flips=2, seed=10 + d)
    grid = circle_grid() if d == 2 else sphere_grid()
    q_values = np.array([0.05, 0.1, 0.2, 0.3])
    exact = np.array([exact_log_evidence(grid, X, y, q) for q in q_values])
    run = evidence.evidence_run(linear_kernel(X), y, q_values, n_rungs=17, n_samples=200, tempered=tempered,
                                random_state=0)
    assert np.all(run.standard_error > 0) and np.all(run.standard_error < 0.08)
    assert np.all(np.abs(run.log_evidence - exact) < 4 * run.standard_error + 0.005)
    assert run.largest_rhat < 1.05 and run.smallest_ess > 150
    if tempered:
        assert run.swap_acceptance.shape == (16,) and np.all((run.swap_acceptance > 0.2) & (run.swap_acceptance <= 1))
    else:
        assert run.swap_acceptance is None
        single, single_error = evidence.log_evidence(linear_kernel(X), y, 0.1, random_state=0)
        assert abs(single - exact[1]) < 4 * single_error + 0.005


def test_evidence_run_reports_what_its_error_bar_rests_on():
    X, y, _ = problem(3, m=12, flips=2, seed=13)
    q_values = np.array([0.1, 0.3])
    run = evidence.evidence_run(linear_kernel(X), y, q_values, n_rungs=9, n_samples=40, n_chains=3, random_state=1)
    assert run.error_draws.shape == (3, 40, 8) and run.rhat.shape == run.ess.shape == (8,)
    np.testing.assert_allclose(run.rhat, diagnostics.rhat(run.error_draws))
    np.testing.assert_allclose(run.ess, diagnostics.ess(run.error_draws))
    np.testing.assert_allclose(run.mean_errors, np.r_[6.0, run.error_draws.mean(axis=(0, 1))])   # E_0[e] = m / 2
    np.testing.assert_allclose(run.standard_error, np.hypot(run.monte_carlo_error, run.quadrature_error))
    # the chains' own estimates average to about the pooled one, and their spread is a floor of the MC error
    assert np.all(np.abs(run.chain_log_evidence.mean(axis=0) - run.log_evidence) < 0.1)
    assert np.all(run.monte_carlo_error >= run.chain_log_evidence.std(axis=0, ddof=1) / np.sqrt(3) - 1e-12)
    value, error = evidence.log_evidence(linear_kernel(X), y, q_values, n_rungs=9, n_samples=40, n_chains=3,
                                         random_state=1)
    np.testing.assert_array_equal(value, run.log_evidence)
    np.testing.assert_array_equal(error, run.standard_error)


# ---------------------------------------------------------------- replica exchange across the ladder
def test_swap_ratio_is_the_ratio_of_the_rungs_densities():
    # rung s has density exp(-s e) P_W(w): the ratio of the pair's joint density after / before the exchange
    rng = np.random.default_rng(3)
    s_low, gap = rng.uniform(0, 3, 50), rng.uniform(0.01, 2, 50)
    e_low, e_high = rng.integers(0, 20, 50), rng.integers(0, 20, 50)
    before = -s_low * e_low - (s_low + gap) * e_high
    after = -s_low * e_high - (s_low + gap) * e_low
    np.testing.assert_allclose(evidence._swap_log_ratio(s_low, s_low + gap, e_low, e_high), after - before)
    # the hotter rung (smaller s) holding the state with fewer errors always hands it down the ladder
    assert evidence._swap_log_ratio(0.5, 1.0, 3, 7) > 0 and evidence._swap_log_ratio(0.5, 1.0, 7, 3) < 0


def _rung_histograms_against_exact():
    """Largest |sampled - exact| share of an error count over the rungs of a tempered run on the circle.

    On the circle (d = 2) one KGS step is an exact draw from its rung's posterior (the great circle is the whole
    hypothesis space), and the draws are kept after the swaps: so this measures the swaps alone."""
    X, y, _ = problem(2, m=10, flips=3, seed=4)
    grid, m = circle_grid(), len(y)
    grid_errors = np.count_nonzero(y[None, :] * (grid @ X.T) <= 0, axis=1)
    run = evidence.evidence_run(linear_kernel(X), y, 0.02, n_rungs=4, n_samples=2500, n_chains=4, burn_in=10,
                                thin=1, tempered=True, random_state=5)
    worst = 0.0
    for rung, s in enumerate(run.ladder[1:]):
        exact = np.bincount(grid_errors, weights=exact_posterior(grid, X, y, 1 / (1 + np.exp(s))), minlength=m + 1)
        got = np.bincount(run.error_draws[..., rung].astype(int).ravel(), minlength=m + 1) / 10_000
        worst = max(worst, np.max(np.abs(got - exact)))
    return worst, run


def test_swaps_leave_every_rung_exact(monkeypatch):
    # 10,000 draws a rung: a share's standard error is at most 0.005 (measured worst 0.006)
    worst, run = _rung_histograms_against_exact()
    assert worst < 0.02 and np.all(run.swap_acceptance > 0.3)     # swaps happen, and change no rung's law
    # the same test fails for wrong swap rules (measured 0.15 and 0.14): the acceptance's sign turned round,
    # and every swap accepted
    right = evidence._swap_log_ratio
    monkeypatch.setattr(evidence, "_swap_log_ratio", lambda s0, s1, e0, e1: -right(s0, s1, e0, e1))
    assert _rung_histograms_against_exact()[0] > 0.05
    monkeypatch.setattr(evidence, "_swap_log_ratio", lambda s0, s1, e0, e1: np.zeros(np.broadcast(s0, e0).shape))
    assert _rung_histograms_against_exact()[0] > 0.05


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
            kgs._step(signed, stacked_coords, stacked_margins, kgs._PairTables.stacked(row_q, 15),
                      np.random.default_rng(step))
    for i, q in enumerate(row_q):
        coords, margins = start.copy(), start @ signed.T
        with np.errstate(divide="ignore", invalid="ignore"):
            for step in range(20):
                kgs._step(signed, coords, margins, kgs._PairTables.of(q, 15), np.random.default_rng(step))
        np.testing.assert_array_equal(stacked_coords[i], coords[i])
        np.testing.assert_array_equal(stacked_margins[i], margins[i])


def test_tempered_run_refuses_bad_options():
    X, y, _ = problem(2, m=6, flips=1, seed=1)
    with pytest.raises(TypeError, match="tempered"):
        evidence.evidence_run(linear_kernel(X), y, 0.1, tempered="False")
    with pytest.raises(ValueError, match="swap_every"):
        evidence.evidence_run(linear_kernel(X), y, 0.1, tempered=True, swap_every=0)


def test_rhat_flags_evidence_chains_that_did_not_mix():
    # The 76-point set (RBF), labels flipped: from points of the prior (about 38 errors) with no burn-in and
    # 10 draws a rung, the chains are still falling towards the posterior (about 8 errors at q = 0.24):
    # split R-hat sees each chain's halves disagree.  The same ladder run long enough to forget its starts
    # passes (q = 0.3: rungs that mix in a few hundred steps).
    X, y = data.kgs_76_points()
    y = np.where(np.random.default_rng(0).random(len(y)) < 0.1, -y, y)
    K = rbf_kernel(X, L=1.0)
    for seed in range(3):
        short = evidence.evidence_run(K, y, 0.01, n_rungs=3, n_samples=10, burn_in=0, thin=1, random_state=seed)
        assert short.largest_rhat > 1.5
        long = evidence.evidence_run(K, y, 0.3, n_rungs=3, n_samples=100, burn_in=300, thin=10, random_state=seed)
        assert long.largest_rhat < 1.1 and long.smallest_ess > 100


def test_quadratic_svm_satisfies_kkt():
    X, y, _ = problem(3, m=40, flips=3, seed=4)
    lam = 0.05
    K = linear_kernel(X)
    beta = kgs2000.quadratic_svm(K, y, lam)
    alpha = beta * y
    margins = y * ((K + lam * np.eye(len(y))) @ beta)
    assert np.all(alpha >= 0)
    assert np.all(margins > 1 - 1e-5)  # hard margin on K + lam I
    support = alpha > 1e-6
    np.testing.assert_allclose(margins[support], 1.0, atol=1e-5)
    with pytest.raises(ValueError, match="lam must be > 0"):
        kgs2000.quadratic_svm(K, y, 0.0)


# ---------------------------------------------------------------- bad input
def test_bad_input_is_refused():
    X, y, _ = problem(2, m=10, flips=2, seed=0)
    K = linear_kernel(X)
    with pytest.raises(ValueError, match="q"):
        kgs.gibbs_sample(K, y, 0.5, 10)
    with pytest.raises(ValueError, match="q"):
        kgs.gibbs_sample(K, y, -0.1, 10)
    with pytest.raises(TypeError, match="q"):
        kgs.gibbs_sample(K, y, "0.1", 10)
    with pytest.raises(ValueError, match="symmetric"):
        kgs.gibbs_sample(K + np.triu(np.ones_like(K)), y, 0.1, 10)
    with pytest.raises(ValueError, match="positive semi-definite.*smallest eigenvalue"):
        kgs.gibbs_sample(K - 5 * np.eye(10), y, 0.1, 10)
    with pytest.raises(ValueError, match="two classes"):
        kgs.gibbs_sample(K, np.ones(10), 0.1, 10)
    with pytest.raises(ValueError, match="-1 and \\+1"):
        kgs.gibbs_sample(K, np.arange(10) % 3, 0.1, 10)
    with pytest.raises(ValueError, match="one entry per row"):
        kgs.gibbs_sample(K, y[:5], 0.1, 10)
    with pytest.raises(ValueError, match="n_samples"):
        kgs.gibbs_sample(K, y, 0.1, 0)
    with pytest.raises(ValueError, match="zero"):
        kgs.gibbs_sample(np.zeros((10, 10)), y, 0.1, 10)
    # Noisy labels have no version space: q = 0 says so instead of sampling nonsense.
    with pytest.raises(ValueError, match="no w classifies every training point"):
        kgs.gibbs_sample(K, y, 0.0, 10)


def test_effective_sample_size_of_an_ar1_chain():
    # AR(1) x_t = rho x_{t-1} + noise has autocorrelation rho^k and ESS = n (1 - rho) / (1 + rho).
    rng = np.random.default_rng(0)
    n, rho = 200_000, 0.8
    noise = rng.standard_normal(n)
    chain = np.empty(n)
    chain[0] = noise[0]
    for t in range(1, n):
        chain[t] = rho * chain[t - 1] + noise[t]
    np.testing.assert_allclose(diagnostics.autocorrelation(chain, 3), rho ** np.arange(4), atol=0.01)
    assert diagnostics.effective_sample_size(chain) == pytest.approx(n * (1 - rho) / (1 + rho), rel=0.1)
    independent = rng.standard_normal(20_000)
    assert diagnostics.effective_sample_size(independent) == pytest.approx(20_000, rel=0.1)

"""The kernel Gibbs sampler (kgslab.kgs) against exact posteriors on the circle (R^2) and the sphere (R^3)."""

import numpy as np
import pytest

from exact_posteriors import circle_grid, exact_posterior, exact_vote, problem, sphere_grid
from kgslab import evidence, kgs
from kgslab.kernels import linear_kernel, rbf_kernel



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


def test_vote_by_hand():
    alphas = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.0]])
    K_test = np.array([[1.0, 0.0], [0.0, -1.0]])
    np.testing.assert_allclose(kgs.vote(alphas, K_test), [0.5, 0.0])


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

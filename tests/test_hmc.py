"""Exact HMC in version space (kgslab.hmc) against exact volumes, brute force, closed forms and the billiard."""

import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.exceptions import ConvergenceWarning

from kgslab.billiard import BayesianTransduction, billiard_run
from kgslab.hmc import VersionSpaceHMC, hmc_probabilities, hmc_run
from kgslab.kernels import linear_kernel, rbf_kernel
from kgslab.papers.bt1999 import volume_ratio_on_sphere
from test_billiard import (exact_volume_ratio, same_numbers_for_a_seed_and_for_a_subset_of_test_points,
                           separable_problem)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_auto_run_meets_its_targets_and_its_error_bars_hold_against_exact_volumes(seed):
    # R^3, linear kernel: version space is a spherical polygon whose areas are exact (bt1999's reference)
    X, y, T, _ = separable_problem(3, n_train=8, n_test=12, seed=seed)
    exact = volume_ratio_on_sphere(X, y, T)
    assert np.count_nonzero((exact > 0.1) & (exact < 0.9)) >= 3          # the test can fail
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        run = hmc_run(linear_kernel(X), y, linear_kernel(T, X), random_state=seed)
    assert run.converged and np.all(run.mc_error < 0.01)
    assert np.all(np.abs(run.p_plus - exact) <= 4 * run.mc_error + 0.003)
    assert np.max(np.abs(run.p_plus - exact)) < 0.025


@pytest.mark.parametrize("d, seed", [(4, 2), (5, 3)])
def test_long_run_matches_brute_force_volume_ratios_in_more_dimensions(d, seed):
    X, y, T, rng = separable_problem(d, n_train=6, n_test=25, seed=seed)
    exact = exact_volume_ratio(X, y, T, rng)           # uniform points on the sphere kept in version space
    run = hmc_run(linear_kernel(X), y, linear_kernel(T, X), 300, n_chains=16, random_state=seed)   # 4800 draws
    assert np.sum((exact > 0.1) & (exact < 0.9)) >= 5
    assert np.max(np.abs(run.p_plus - exact)) < 0.03
    assert np.all(np.abs(run.p_plus - exact) <= 4 * run.mc_error + 0.01)


def test_chains_stay_in_version_space_and_their_bookkeeping_equals_recomputed_margins():
    X, y, _, _ = separable_problem(5, n_train=40, n_test=0, seed=11)
    T = np.random.default_rng(0).standard_normal((7, 5))
    sampler = VersionSpaceHMC(linear_kernel(X), y, linear_kernel(T, X), n_chains=4, random_state=0)
    sampler.watch = True                      # the compiled loop records the smallest margin after each bounce
    sampler.run(15)
    # (the wall just hit has margin 0 up to rounding: the record is there and never below it)
    assert abs(sampler.lowest_margin) < 1e-9 and sampler.n_bounces.min() > 100 and sampler.n_iterations == 15
    # the margins carried by rotations and reflections to the end of the last iteration = F c with c rebuilt
    # from the impulse sums
    coordinates = sampler.coordinates()
    recomputed = coordinates @ sampler._walls
    np.testing.assert_allclose(sampler.margins, recomputed, atol=1e-8)
    # and c is a point of the span: w = Phi' c gives the training margins y_i <w, x_i> directly
    features = sampler._span.features
    w = coordinates @ np.linalg.pinv(features) @ X                      # Phi' c in the input space
    np.testing.assert_allclose(y * (w @ X.T), recomputed, atol=1e-8)


def test_the_compiled_loop_computes_what_its_python_source_says():
    # numba compiles hmc._fly; the same function run by the interpreter must give the same flight
    from kgslab.hmc import _compiled_flight, _fly
    X, y, T, _ = separable_problem(3, n_train=8, n_test=5, seed=1)
    results = []
    for fly in (_compiled_flight(), _fly):
        sampler = VersionSpaceHMC(linear_kernel(X), y, linear_kernel(T, X), n_chains=1, random_state=3)
        kicks = np.random.default_rng(5).standard_normal((4, sampler.rank))
        fractions = np.empty((4, 5))
        bounces, lowest = fly(sampler._start[0], kicks, sampler._walls, sampler._impulses, sampler._reflect,
                              sampler._test_impulses, sampler._to_test, sampler.duration,
                              sampler._snapshot_times, fractions, sampler._margins[0], sampler._slopes[0],
                              sampler._cos_sums, sampler._sin_sums, sampler._keys, True, 10**6)
        results.append((bounces, fractions, sampler._start[0].copy(), sampler._margins[0].copy()))
    (bounces, fractions, start, margins), (bounces_py, fractions_py, start_py, margins_py) = results
    assert bounces == bounces_py > 10
    np.testing.assert_array_equal(fractions, fractions_py)
    np.testing.assert_allclose(start, start_py, rtol=1e-12)
    np.testing.assert_allclose(margins, margins_py, rtol=1e-10, atol=1e-12)


def test_a_chain_gives_the_same_draws_however_the_run_is_cut():
    X, y, T, _ = separable_problem(4, n_train=20, n_test=9, seed=6)
    K, K_test = linear_kernel(X), linear_kernel(T, X)
    whole = VersionSpaceHMC(K, y, K_test, n_chains=3, random_state=8).run(12)
    cut = VersionSpaceHMC(K, y, K_test, n_chains=3, random_state=8).run(5).run(7)
    np.testing.assert_array_equal(whole.draws(), cut.draws())
    np.testing.assert_array_equal(whole.n_bounces, cut.n_bounces)
    other = VersionSpaceHMC(K, y, K_test, n_chains=3, random_state=9).run(12)
    assert not np.array_equal(whole.draws(), other.draws())


def test_a_flight_that_does_not_end_is_stopped_with_a_clear_error():
    # the compiled loop cannot be interrupted: an iteration past its cap of bounces must stop and say so
    X, y, T, _ = separable_problem(4, n_train=30, n_test=3, seed=3)
    sampler = VersionSpaceHMC(linear_kernel(X), y, linear_kernel(T, X), n_chains=2, random_state=0)
    sampler.MAX_BOUNCES_PER_ITERATION = 3
    with pytest.raises(RuntimeError, match="bounced 3 times without ending"):
        sampler.run(2)
    uncapped = VersionSpaceHMC(linear_kernel(X), y, linear_kernel(T, X), n_chains=2, random_state=0).run(2)
    assert uncapped.n_bounces.min() > 3                    # the cap, not the problem, stopped the first one


def test_energy_is_kept_so_the_radius_is_chi_distributed():
    # The truncated Gaussian on a cone has ||c|| ~ chi_r whatever the cone: a reflection that lost or gained
    # energy, or a wrong flight, would bend this law.  Positions at the end of an iteration, 5 iterations apart.
    X, y, _, _ = separable_problem(4, n_train=30, n_test=0, seed=3)
    T = np.ones((1, 4))
    sampler = VersionSpaceHMC(linear_kernel(X), y, linear_kernel(T, X), n_chains=8, random_state=1)
    radii = []
    for _ in range(40):
        sampler.run(5)
        radii.append(np.linalg.norm(sampler.coordinates(), axis=1))
    radii = np.concatenate(radii)
    assert stats.kstest(radii, stats.chi(df=4).cdf).pvalue > 1e-3
    # the test can fail: the same radii scaled by 1.25 are refused
    assert stats.kstest(1.25 * radii, stats.chi(df=4).cdf).pvalue < 1e-3


def test_soft_version_agrees_with_the_billiard():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((30, 2))
    y = np.where(X[:, 0] + 0.7 * rng.standard_normal(30) > 0, 1.0, -1.0)     # not separable linearly
    T = rng.standard_normal((15, 2))
    K, K_test = rbf_kernel(X, L=1.5), rbf_kernel(T, X, L=1.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        hmc = hmc_run(K, y, K_test, lam=0.3, random_state=0)
        billiard = billiard_run(K, y, K_test, lam=0.3, random_state=0)
    assert np.count_nonzero((billiard.p_plus > 0.1) & (billiard.p_plus < 0.9)) >= 3
    both = np.sqrt(hmc.mc_error ** 2 + billiard.mc_error ** 2)
    assert np.all(np.abs(hmc.p_plus - billiard.p_plus) <= 4 * both + 0.003)


def test_test_points_never_change_the_chains():
    first, (K, y, K_test) = same_numbers_for_a_seed_and_for_a_subset_of_test_points(hmc_probabilities, 50)
    assert not np.array_equal(first, hmc_probabilities(K, y, K_test, 50, random_state=43))


def test_training_points_are_certain_and_an_orthogonal_point_is_a_coin_flip():
    X, y, _, _ = separable_problem(4, n_train=20, n_test=0, seed=7)
    Z = np.vstack([X[:8], -X[:8]])
    K_test = linear_kernel(Z, X)
    K_test[0] = 0.0
    p_plus = hmc_probabilities(linear_kernel(X), y, K_test, 20, random_state=0)
    assert p_plus[0] == 0.5
    np.testing.assert_allclose(p_plus[1:8], (y[1:8] > 0).astype(float))
    np.testing.assert_allclose(p_plus[8:], (y[:8] < 0).astype(float))


def test_the_estimator_uses_hmc_for_auto_runs_and_the_billiard_for_bounce_counts():
    X, y, T, _ = separable_problem(3, 10, 6, seed=4)
    model = BayesianTransduction(kernel="linear", random_state=0).fit(X, y)
    p = model.predict_proba(T)[:, 1]
    reference = hmc_run(linear_kernel(X), y, linear_kernel(T, X), random_state=model.seed_, start=model.start_)
    np.testing.assert_array_equal(p, reference.p_plus)
    np.testing.assert_array_equal(model.sampler_run(T).mc_error, reference.mc_error)
    billiard = BayesianTransduction(kernel="linear", sampler="billiard", random_state=0).fit(X, y)
    reference = billiard_run(linear_kernel(X), y, linear_kernel(T, X), random_state=billiard.seed_,
                             start=billiard.start_)
    np.testing.assert_array_equal(billiard.predict_proba(T)[:, 1], reference.p_plus)
    with pytest.raises(ValueError, match="n_bounces must be 'auto' with sampler='hmc'"):
        BayesianTransduction(kernel="linear", sampler="hmc", n_bounces=100).fit(X, y)
    with pytest.raises(ValueError, match="'sampler' parameter of BayesianTransduction must be a str among"):
        BayesianTransduction(kernel="linear", sampler="gibbs").fit(X, y)


@pytest.mark.parametrize("call, error, message", [
    (lambda K, y, T: hmc_run(K, y, T, "many"), ValueError, "n_iterations must be a positive integer or 'auto'"),
    (lambda K, y, T: hmc_run(K, y, T, n_chains=1), ValueError, "n_chains must be >= 2 for n_iterations='auto'"),
    (lambda K, y, T: hmc_run(K, y, T, 10, n_chains=0), ValueError, "n_chains must be >= 1"),
    (lambda K, y, T: hmc_run(K, y, T, max_iterations=10**7), ValueError, "max_iterations must be at most"),
    (lambda K, y, T: hmc_run(K, y, T, 10, burn_in=-1), ValueError, "burn_in must be >= 0"),
    (lambda K, y, T: hmc_run(K, y, T, target_error=0.0), ValueError, "target_error"),
    (lambda K, y, T: hmc_run(K, y, None), TypeError, "K_test must be the"),
    (lambda K, y, T: hmc_run(K, y, T[:, :3]), ValueError, "K_test must have one column per training point"),
    (lambda K, y, T: hmc_run(K, -y, T, 10, start=np.linalg.pinv(K) @ y), ValueError, "start must lie inside"),
    (lambda K, y, T: VersionSpaceHMC(K, y, T, duration=4.0), ValueError, "duration must be <="),
])
def test_bad_input_is_refused(call, error, message):
    X, y, T, _ = separable_problem(3, 8, 4, seed=5)
    with pytest.raises(error, match=message):
        call(linear_kernel(X), y, linear_kernel(T, X))


def test_cap_warns():
    X, y, T, _ = separable_problem(3, 8, 12, seed=2)
    with pytest.warns(ConvergenceWarning, match="cap of 12 draws per chain"):
        run = hmc_run(linear_kernel(X), y, linear_kernel(T, X), max_iterations=12, target_error=0.001,
                      random_state=0)
    assert not run.converged

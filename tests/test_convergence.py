"""Several chains, "auto" run lengths and the diagnostics the samplers and estimators report (issue 17)."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from kgslab import _kgs_engine
from kgslab import circle, evidence, kgs
from kgslab.billiard import BayesianTransduction, billiard_run
from kgslab.kernels import linear_kernel, rbf_kernel
from kgslab.papers.bt1999 import volume_ratio_on_sphere


def separable_r3(seed=0, n_train=8, n_test=12):
    rng = np.random.default_rng(seed)
    w_star = rng.standard_normal(3)
    X = rng.standard_normal((n_train, 3))
    return X, np.sign(X @ w_star), rng.standard_normal((n_test, 3))


def test_billiard_auto_meets_its_targets_and_its_error_bars_hold_against_exact_volumes():
    X, y, T = separable_r3()
    exact = volume_ratio_on_sphere(X, y, T)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)     # the toy must converge well before the cap
        run = billiard_run(linear_kernel(X), y, linear_kernel(T, X), random_state=1)
    assert run.converged and np.all(run.mc_error < 0.01)
    open_ = (run.p_plus > 0.01) & (run.p_plus < 0.99)
    assert np.all(run.rhat[open_] < 1.01)
    # the reported error is honest: every p+ within 4 of its standard errors (+ a rounding floor) of the truth
    assert np.all(np.abs(run.p_plus - exact) <= 4 * run.mc_error + 0.003)
    assert np.max(np.abs(run.p_plus - exact)) < 0.02          # tighter than the single-trajectory tests


def test_billiard_cap_warns_and_says_so():
    X, y, T = separable_r3(seed=2)
    with pytest.warns(ConvergenceWarning, match="cap of 20 draws per chain"):
        run = billiard_run(linear_kernel(X), y, linear_kernel(T, X), max_bounces=2000, target_error=0.001,
                           random_state=0)
    assert not run.converged


def test_kgs_chains_agree_with_each_other_and_auto_converges():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((30, 2))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(30) > 0, 1.0, -1.0)
    K = rbf_kernel(X, L=1.0)
    run = kgs.gibbs_run(K, y, 0.1, target_error=0.01, random_state=0)
    assert run.alphas.shape[0] == 4 and run.converged
    assert np.all(run.mc_error < 0.01)
    # independent chains estimate the same votes: their per-chain means differ by chance only
    votes = circle.vote_draws(run.alphas, K).mean(axis=1)          # (chains, points)
    spread = votes.std(axis=0, ddof=1) / 2                       # s.e. of a mean of 4
    assert np.all(np.abs(votes.mean(axis=0) - kgs.vote(run.alphas.reshape(-1, 30), K)) < 1e-12)
    assert np.mean(spread) < 0.02


def test_estimators_report_diagnostics_after_fit_and_predict():
    X, y, T = separable_r3(seed=4, n_train=10, n_test=6)
    model = BayesianTransduction(kernel="linear", random_state=0).fit(X, y)
    fitted = {name: (value.copy() if isinstance(value, np.ndarray) else value) for name, value in vars(model).items()}
    p = model.predict_proba(T)[:, 1]
    model.predict(T), model.confidence(T)
    assert vars(model).keys() == fitted.keys()    # predicting adds no attribute and changes none
    for name, value in fitted.items():
        np.testing.assert_array_equal(getattr(model, name), value)
    run = model.sampler_run(T)
    np.testing.assert_array_equal(run.p_plus, p)   # the run behind predict's p+, and its diagnostics
    assert run.rhat.shape == run.ess.shape == run.mc_error.shape == (6,)
    assert np.all(run.mc_error < 0.01) and np.all(np.isfinite(p)) and run.converged
    bpm = kgs.BayesPointMachine(q=0.1, kernel="linear", random_state=0).fit(X, y)
    assert bpm.rhat_.shape[0] > 10 and bpm.alphas_.shape[0] % 4 == 0    # training and midpoint votes after fit
    fitted = {name: value.copy() for name, value in vars(bpm).items() if isinstance(value, np.ndarray)}
    proba = bpm.vote_proba(T)
    bpm.transduce(T), bpm.entropy(T), bpm.predict(T)
    for name, value in fitted.items():                                    # predicting changes no attribute
        np.testing.assert_array_equal(getattr(bpm, name), value, err_msg=name)
    votes = bpm.vote_convergence(T)                                       # the diagnostics of the votes on T
    assert votes.rhat.shape == votes.ess.shape == votes.mc_error.shape == (6,)
    np.testing.assert_allclose(proba[:, 1], circle.vote_draws(bpm.chain_alphas_, linear_kernel(T, X)).mean(axis=(0, 1)))
    # on the training points, the votes fit monitored (gibbs_run's own path, in coordinates): the same diagnostics
    on_training = bpm.vote_convergence(X)
    np.testing.assert_allclose(on_training.mc_error, bpm.mc_error_[:len(X)], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(on_training.ess, bpm.ess_[:len(X)], rtol=1e-9)


def test_vote_convergence_needs_four_samples_per_chain():
    X, y, T = separable_r3(seed=4, n_train=10, n_test=6)
    bpm = kgs.BayesPointMachine(q=0.1, kernel="linear", n_samples=3, burn_in=5, thin=1, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"vote_convergence needs at least 4 samples per chain .* kept 3 \(n_samples\)"):
        bpm.vote_convergence(T)
    assert bpm.vote_proba(T).shape == (6, 2)


@pytest.mark.parametrize("call, error, message", [
    (lambda K, y, T: billiard_run(K, y, T, "many"), ValueError, "n_bounces must be a positive integer or 'auto'"),
    (lambda K, y, T: billiard_run(K, y, T, 100, n_chains=0), ValueError, "n_chains must be >= 1"),
    (lambda K, y, T: billiard_run(K, y, T, epsilon=1e-5), ValueError, "n_bounces must be at most"),
    (lambda K, y, T: billiard_run(K, y, T, max_bounces=10**9), ValueError, "max_bounces must be at most"),
    (lambda K, y, T: billiard_run(K, y, T, 100, refresh_every=0.01), ValueError, "refresh_every must be >= 1"),
    (lambda K, y, T: billiard_run(K, y, T, target_error=0.0), ValueError, "target_error"),
    (lambda K, y, T: kgs.gibbs_run(K, y, 0.1, "lots"), ValueError, "n_samples must be a positive integer or 'auto'"),
    (lambda K, y, T: kgs.gibbs_run(K, y, 0.1, 10, thin=0), ValueError, "thin must be >= 1"),
    (lambda K, y, T: evidence.label_noise_log_evidence(K, y, 0.1, thin=0), ValueError, "thin must be >= 1"),
    (lambda K, y, T: evidence.label_noise_log_evidence(K, y, 0.1, burn_in=-1), ValueError, "burn_in must be >= 0"),
    (lambda K, y, T: kgs.gibbs_run(K, y, 0.1, K_monitor=T[:, :3]), ValueError, "K_monitor must have one column"),
])
def test_bad_input_is_refused(call, error, message):
    X, y, T = separable_r3(seed=5)
    with pytest.raises(error, match=message):
        call(linear_kernel(X), y, linear_kernel(T, X))


@pytest.mark.parametrize("rowwise", [False, True], ids=["one matrix product", "one gemv per chain"])
def test_kgs_auto_error_bars_hold_against_the_exact_posterior(rowwise, monkeypatch):
    # Four chains advanced together (dispersed starts), "auto" on the test points' votes: every vote within
    # 4 of its reported standard errors of the exact posterior probability (grid on the sphere in R^3).
    # Both ways of the chains' products: one matrix product (small m) and one gemv per chain (large m).
    monkeypatch.setattr(_kgs_engine, "ROWWISE_PRODUCTS", 0 if rowwise else _kgs_engine.ROWWISE_PRODUCTS)
    rng = np.random.default_rng(7)
    X = rng.standard_normal((10, 3))
    y = np.sign(X[:, 0])
    y[:2] *= -1                                          # two flipped labels: a multi-modal posterior
    T = rng.standard_normal((40, 3))
    index = np.arange(400_000) + 0.5                     # Fibonacci grid: nearly equal areas
    z = 1 - 2 * index / len(index)
    azimuth = np.pi * (1 + 5**0.5) * index
    grid = np.column_stack([np.sqrt(1 - z**2) * np.cos(azimuth), np.sqrt(1 - z**2) * np.sin(azimuth), z])
    errors = np.count_nonzero(y * (grid @ X.T) <= 0, axis=1)
    weights = (0.2 / 0.8) ** (errors - errors.min())
    exact = (grid @ T.T > 0).T.astype(float) @ (weights / weights.sum())
    assert np.count_nonzero((exact > 0.1) & (exact < 0.9)) >= 5       # the test can fail
    run = kgs.gibbs_run(linear_kernel(X), y, 0.2, K_monitor=linear_kernel(T, X), target_error=0.01, thin=2,
                        random_state=1)
    assert run.converged and np.all(run.mc_error < 0.01)
    got = circle.vote_draws(run.alphas, linear_kernel(T, X)).mean(axis=(0, 1))
    assert np.all(np.abs(got - exact) <= 4 * run.mc_error + 0.004)
    assert np.max(np.abs(got - exact)) < 0.02

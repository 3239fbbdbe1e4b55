"""Section 4 of seed 001 beyond the vote (kgslab.evidence): entropy, and the evidence by thermodynamic
integration, rung by rung and by replica exchange, against exact integrals on the circle and the sphere."""

import numpy as np
import pytest

from exact_posteriors import circle_grid, exact_log_evidence, exact_posterior, problem, sphere_grid
from kgslab import data, diagnostics, evidence
from kgslab.kernels import linear_kernel, rbf_kernel



def test_entropy_by_hand():
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
        single, single_error = evidence.label_noise_log_evidence(linear_kernel(X), y, 0.1, random_state=0)
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
    value, error = evidence.label_noise_log_evidence(linear_kernel(X), y, q_values, n_rungs=9, n_samples=40, n_chains=3,
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

"""R-hat, ESS and MCSE of kgslab.diagnostics against ArviZ on the same chains, and the 'auto' stopping rule."""

import warnings

import numpy as np
import pytest

from kgslab import diagnostics

arviz = pytest.importorskip("arviz")   # in the "test" extra; skipped only where the extra is not installed


def chains_of_every_kind():
    rng = np.random.default_rng(0)
    ar = np.zeros((4, 400))
    noise = rng.standard_normal((4, 400))
    for t in range(1, 400):
        ar[:, t] = 0.9 * ar[:, t - 1] + noise[:, t]
    return {
        "independent normal": rng.standard_normal((4, 300)),
        "AR(1), rho = 0.9": ar,
        "drifting": rng.standard_normal((4, 500)).cumsum(axis=1) * 0.05 + rng.standard_normal((4, 500)),
        "0/1 votes, p = 0.3": (rng.random((4, 301)) < 0.3).astype(float),
        "chains at different means": rng.standard_normal((3, 200)) + np.array([[0.0], [0.0], [1.0]]),
        "heavy tails (Cauchy)": rng.standard_cauchy((4, 250)),
        "antithetic": np.cumprod(-np.ones((4, 200)), axis=1) * 0.9 + rng.standard_normal((4, 200)) * 0.3,
    }


def _scalars(values):
    # ArviZ answers a one-quantity question with a float or, on its numba path (numba installed), a 1-element array
    return np.array([np.asarray(value, dtype=float).item() for value in values])


@pytest.mark.parametrize("name", list(chains_of_every_kind()))
def test_matches_arviz(name):
    chains = chains_of_every_kind()[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # ArviZ announces its refactor
        expected = (arviz.rhat(chains), arviz.ess(chains, method="bulk"), arviz.ess(chains, method="mean"),
                    arviz.mcse(chains))
    got = (diagnostics.rhat(chains), diagnostics.ess(chains, "bulk"), diagnostics.ess(chains, "mean"),
           diagnostics.mcse(chains))
    np.testing.assert_allclose(got, _scalars(expected), rtol=1e-8)


def test_many_quantities_at_once_equal_one_at_a_time():
    rng = np.random.default_rng(1)
    chains = rng.standard_normal((4, 100, 3)).cumsum(axis=1)
    for f in (diagnostics.rhat, diagnostics.ess, diagnostics.mcse):
        together = f(chains)
        assert together.shape == (3,)
        np.testing.assert_allclose(together, [f(chains[:, :, k]) for k in range(3)])


def test_disagreeing_chains_are_caught_and_agreeing_ones_pass():
    rng = np.random.default_rng(2)
    good = rng.standard_normal((4, 1000))
    assert diagnostics.rhat(good) < 1.01
    stuck = good + np.array([[0.0], [0.0], [0.0], [0.5]])      # one chain in another place
    assert diagnostics.rhat(stuck) > 1.01
    drift = good + np.linspace(0, 1, 1000)[None, :]            # every chain drifts the same way: split catches it
    assert diagnostics.rhat(drift) > 1.01
    scale = good * np.array([[1.0], [1.0], [1.0], [3.0]])      # same mean, wider tails: the folded R-hat
    assert diagnostics.rhat(scale) > 1.01


def test_constant_quantity_is_converged_with_zero_error():
    chains = np.ones((4, 50))
    assert diagnostics.rhat(chains) == 1.0
    assert diagnostics.mcse(chains) == 0.0
    assert diagnostics.ess(chains) == 200


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="at least 4 draws"):
        diagnostics.rhat(np.ones((2, 3)))
    with pytest.raises(ValueError, match="2-d or 3-d"):
        diagnostics.ess(np.ones(10))
    with pytest.raises(ValueError, match="finite"):
        diagnostics.mcse(np.full((2, 10), np.nan))
    with pytest.raises(ValueError, match="kind"):
        diagnostics.ess(np.ones((2, 10)), kind="tail")


def test_a_settled_probability_does_not_hold_up_the_run_but_an_open_one_does():
    rng = np.random.default_rng(4)
    rare = np.zeros((4, 400, 1))
    rare[0, rng.choice(400, 8, replace=False), 0] = 1.0    # one chain saw eight rare draws, the others none
    assert diagnostics.rhat(rare) > 1.01                   # reported ...
    assert diagnostics.summarise(rare, target_error=0.01).converged   # ... but p = 0.005 is settled to 0.01
    # p = 0.5 in three chains, 0.8 in the fourth: the MC error meets a loose target, R-hat does not
    open_ = (rng.random((4, 400, 1)) < np.array([0.5, 0.5, 0.5, 0.8])[:, None, None]).astype(float)
    result = diagnostics.summarise(open_, target_error=0.2)
    assert np.all(result.mc_error < 0.2) and result.rhat[0] > 1.01 and not result.converged


# ---- the vectorised ESS against the per-quantity loop it replaced, and against ArviZ quantity by quantity ----

def _tau_loop(rho, n, n_chains):
    """The loop over lags that `diagnostics._tau` replaced (one quantity): Geyer's initial positive and monotone
    sequence as ArviZ and Stan write it.  Kept here as the reference for the vectorised version."""
    kept = np.zeros(n)
    kept[0], kept[1] = 1.0, rho[1]
    even, odd = 1.0, rho[1]
    t = 1
    while t < n - 3 and even + odd > 0:
        even, odd = rho[t + 1], rho[t + 2]
        if even + odd >= 0:
            kept[t + 1], kept[t + 2] = even, odd
        t += 2
    last = t - 2
    if even > 0:
        kept[last + 1] = even
    for t in range(1, last - 1, 2):
        if kept[t + 1] + kept[t + 2] > kept[t - 1] + kept[t]:
            kept[t + 1] = kept[t + 2] = (kept[t - 1] + kept[t]) / 2.0
    tau = -1.0 + 2.0 * kept[: last + 1].sum() + kept[last + 1]
    return max(tau, 1.0 / np.log10(n_chains * n))


def test_vectorised_tau_equals_the_loop_on_every_kind_of_autocorrelation():
    rng = np.random.default_rng(7)
    columns = []
    for n in (2, 3, 4, 5, 6, 7, 8, 9, 40, 41):
        for _ in range(30):
            kind = rng.integers(5)
            if kind == 0:      # decaying, turns negative somewhere
                rho = 0.9 ** np.arange(n) - rng.uniform(0, 0.3)
            elif kind == 1:    # antithetic: alternating signs
                rho = (-0.8) ** np.arange(n)
            elif kind == 2:    # noise around 0, so pairs stop the sum early or late
                rho = rng.uniform(-1.2, 1.0, n)
            elif kind == 3:    # never stops: the length limit ends the sum
                rho = np.linspace(1.0, 0.5, n)
            else:              # a pair that sums to exactly 0 (kept by the loop, and the sum stops)
                rho = 0.5 ** np.arange(n)
                if n > 5:
                    rho[4], rho[5] = (0.25, -0.25) if rng.random() < 0.5 else (-0.25, 0.25)
            rho[0] = 1.0
            columns.append((n, rho))
        columns.append((n, np.r_[1.0, -1.5, rng.uniform(-1, 1, n - 2)][:n]))   # rho_1 <= -1: the first pair stops it
    for n_chains in (1, 4):
        for n, rho in columns:
            expected = _tau_loop(rho, n, n_chains)
            assert diagnostics._tau(rho[:, None], n_chains)[0] == pytest.approx(expected, rel=1e-13, abs=1e-15), (n, rho)
    # many quantities at once: the same as one at a time
    n = 41
    block = np.column_stack([rho for m, rho in columns if m == n])
    np.testing.assert_allclose(diagnostics._tau(block, 4), [_tau_loop(block[:, j], n, 4) for j in range(block.shape[1])],
                               rtol=1e-13)


def mixed_quantities(n_chains, n_draws, seed=8):
    """(n_chains, n_draws, 7): constant, 0/1 votes, an AR(1), antithetic, a rare event, normal, heavy tails."""
    rng = np.random.default_rng(seed)
    ar = np.zeros((n_chains, n_draws))
    for t in range(1, n_draws):
        ar[:, t] = 0.95 * ar[:, t - 1] + rng.standard_normal(n_chains)
    rare = np.zeros((n_chains, n_draws))
    rare[0, rng.choice(n_draws, 3, replace=False)] = 1.0
    return np.stack([np.full((n_chains, n_draws), 0.7), (rng.random((n_chains, n_draws)) < 0.3).astype(float), ar,
                     np.cumprod(-np.ones((n_chains, n_draws)), axis=1) + 0.3 * rng.standard_normal((n_chains, n_draws)),
                     rare, rng.standard_normal((n_chains, n_draws)), rng.standard_cauchy((n_chains, n_draws))], axis=2)


@pytest.mark.parametrize("n_chains, n_draws", [(4, 200), (1, 101), (3, 57), (2, 9), (1, 4)])
def test_many_quantities_at_once_equal_arviz_one_at_a_time(n_chains, n_draws):
    chains = mixed_quantities(n_chains, n_draws)
    together = {f: f(chains) for f in (diagnostics.rhat, diagnostics.mcse)}
    together["bulk"], together["mean"] = diagnostics.ess(chains, "bulk"), diagnostics.ess(chains, "mean")
    summary = diagnostics.summarise(chains, target_error=0.05)
    np.testing.assert_array_equal(summary.rhat, together[diagnostics.rhat])
    np.testing.assert_array_equal(summary.ess, together["bulk"])
    np.testing.assert_array_equal(summary.mc_error, together[diagnostics.mcse])
    for k in range(chains.shape[2]):
        one = chains[:, :, k]
        # alone or among others: the same to rounding (the FFT of a block rounds a little differently)
        assert together["bulk"][k] == pytest.approx(diagnostics.ess(one, "bulk"), rel=1e-12)
        assert together[diagnostics.mcse][k] == pytest.approx(diagnostics.mcse(one), rel=1e-12)
        assert together[diagnostics.rhat][k] == pytest.approx(diagnostics.rhat(one), rel=1e-12)
        if k == 0:      # constant: the kit's rule (R-hat 1, ESS S, MCSE 0); ArviZ answers NaN there
            assert (together[diagnostics.rhat][0], together["bulk"][0], together[diagnostics.mcse][0]) == (
                1.0, n_chains * n_draws, 0.0)
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = (arviz.ess(one, method="bulk"), arviz.ess(one, method="mean"), arviz.mcse(one))
        got = (together["bulk"][k], together["mean"][k], together[diagnostics.mcse][k])
        np.testing.assert_allclose(got, _scalars(expected), rtol=1e-8, err_msg=f"quantity {k}")
        if n_chains > 1 and np.isfinite(together[diagnostics.rhat][k]):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                assert together[diagnostics.rhat][k] == pytest.approx(float(arviz.rhat(one)), rel=1e-8)


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


@pytest.mark.parametrize("seed", range(3))
def test_votes_are_ranked_by_counting_as_scipys_rankdata_ranks_them(seed):
    # 0/1 votes (and any quantity with two values) are ranked from two counts, not a sort: the normal scores must
    # be rankdata's to the last bit, for every column, constant ones too; a third value goes the sorting way
    from scipy.special import ndtri
    from scipy.stats import rankdata

    rng = np.random.default_rng(seed)
    votes = (rng.random((4, 300, 6)) < [0.0, 0.02, 0.3, 0.5, 0.98, 1.0]).astype(float)
    two_values = np.where(rng.random((4, 300, 3)) < 0.4, -1.5, 2.0)
    three_values = rng.integers(0, 3, (4, 300, 2)).astype(float)
    for chains in (votes, two_values, np.concatenate([votes, three_values], axis=2)):
        pooled = chains.reshape(-1, chains.shape[2])
        expected = ndtri((rankdata(pooled, axis=0) - 0.375) / (pooled.shape[0] + 0.25)).reshape(chains.shape)
        np.testing.assert_array_equal(diagnostics.rank_normalise(chains), expected)
    assert diagnostics._two_valued_ranks(three_values.reshape(-1, 2)) is None

"""R-hat, ESS and MCSE of kgslab.diagnostics against ArviZ on the same chains, and the 'auto' stopping rule."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

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


@pytest.mark.parametrize("name", list(chains_of_every_kind()))
def test_matches_arviz(name):
    chains = chains_of_every_kind()[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # ArviZ announces its refactor
        expected = (arviz.rhat(chains), arviz.ess(chains, method="bulk"), arviz.ess(chains, method="mean"),
                    arviz.mcse(chains))
    got = (diagnostics.rhat(chains), diagnostics.ess(chains, "bulk"), diagnostics.ess(chains, "mean"),
           diagnostics.mcse(chains))
    np.testing.assert_allclose(got, np.array(expected, dtype=float), rtol=1e-8)


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


def test_run_until_converged_stops_at_target_and_warns_at_cap():
    rng = np.random.default_rng(3)
    draws = []

    def extend(n):
        draws.append(rng.random((4, n, 2)) < 0.5)
        return np.concatenate(draws, axis=1).astype(float)

    result = diagnostics.run_until_converged(extend, first=20, max_draws=100_000, target_error=0.02)
    assert result.converged and np.all(result.mc_error < 0.02) and np.all(result.rhat < 1.01)
    assert result.n_draws < 5000      # 0/1 draws of sd 0.5: about 625 draws in all are needed

    stuck_draws = []

    def stuck(n):                      # two chains near 0, two near 1: never one distribution
        stuck_draws.append(np.array([0.0, 0.0, 1.0, 1.0])[:, None] + 0.01 * rng.random((4, n)))
        return np.concatenate(stuck_draws, axis=1)

    with pytest.warns(ConvergenceWarning, match="cap of 200 draws"):
        result = diagnostics.run_until_converged(stuck, first=20, max_draws=200)
    assert not result.converged


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="at least 4 draws"):
        diagnostics.rhat(np.ones((2, 3)))
    with pytest.raises(ValueError, match="2-d or 3-d"):
        diagnostics.ess(np.ones(10))
    with pytest.raises(ValueError, match="finite"):
        diagnostics.mcse(np.full((2, 10), np.nan))
    with pytest.raises(ValueError, match="kind"):
        diagnostics.ess(np.ones((2, 10)), kind="tail")
    with pytest.raises(ValueError, match="target_error"):
        diagnostics.check_targets(0.0, 1.01, 100)
    with pytest.raises(ValueError, match="target_rhat"):
        diagnostics.check_targets(0.01, 1.0, 100)


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

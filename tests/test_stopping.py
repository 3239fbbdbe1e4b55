"""Running a sampler until converged, and the plumbing both samplers share (kgslab.stopping)."""

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from kgslab import stopping
from kgslab.diagnostics import summarise


def test_run_until_converged_stops_at_target_and_warns_at_cap():
    rng = np.random.default_rng(3)
    draws = []

    def extend(n):
        draws.append(rng.random((4, n, 2)) < 0.5)
        return np.concatenate(draws, axis=1).astype(float)

    result = stopping.run_until_converged(extend, first=20, max_draws=100_000, target_error=0.02)
    assert result.converged and np.all(result.mc_error < 0.02) and np.all(result.rhat < 1.01)
    assert result.n_draws < 5000      # 0/1 draws of sd 0.5: about 625 draws in all are needed

    stuck_draws = []

    def stuck(n):                      # two chains near 0, two near 1: never one distribution
        stuck_draws.append(np.array([0.0, 0.0, 1.0, 1.0])[:, None] + 0.01 * rng.random((4, n)))
        return np.concatenate(stuck_draws, axis=1)

    with pytest.warns(ConvergenceWarning, match="cap of 200 draws"):
        result = stopping.run_until_converged(stuck, first=20, max_draws=200)
    assert not result.converged


def test_bad_targets_are_refused():
    with pytest.raises(ValueError, match="target_error"):
        stopping.check_targets(0.0, 1.01, 100)
    with pytest.raises(ValueError, match="target_rhat"):
        stopping.check_targets(0.01, 1.0, 100)
    with pytest.raises(ValueError, match="max_samples"):
        stopping.check_targets(0.01, 1.01, 7, "max_samples")


@pytest.mark.parametrize("value, expected", [("auto", "auto"), (5, 5), (np.int64(3), 3)])
def test_a_draw_count_is_a_positive_integer_or_auto(value, expected):
    assert stopping.as_n_draws(value, "n_samples") == expected


@pytest.mark.parametrize("value, error, words", [
    ("Auto", ValueError, r"n_samples must be a positive integer or 'auto', got 'Auto'"),
    (0, ValueError, r"n_samples"), (2.5, TypeError, r"n_samples"), (True, TypeError, r"n_samples"),
])
def test_a_draw_count_that_is_neither_is_refused_naming_it(value, error, words):
    with pytest.raises(error, match=words):
        stopping.as_n_draws(value, "n_samples")


def test_a_run_without_diagnostics_reports_nan_and_not_converged():
    unavailable = stopping.reported(None, 3)
    assert unavailable["converged"] is False
    for name in ("rhat", "ess", "mc_error"):
        assert unavailable[name].shape == (3,) and np.all(np.isnan(unavailable[name]))
    draws = np.random.default_rng(0).random((4, 40, 3))
    result = summarise(draws, 0.5, 1.5)
    shown = stopping.reported(result, 3)
    np.testing.assert_array_equal(shown["rhat"], result.rhat)
    assert shown["converged"] is bool(result.converged)

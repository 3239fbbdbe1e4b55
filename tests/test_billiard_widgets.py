"""The rejection-threshold panel of notebook 09: moving theta moves both methods along their curves."""

import numpy as np
import pytest

from kgslab.widgets import rejection_panel


def fake_results(seed, n_splits=4, n_test=40):
    """Split results where confidence predicts correctness (as in Figure 2)."""
    rng = np.random.default_rng(seed)
    out = {}
    for method, scale in (("trans", 1.0), ("svm", 3.0)):
        confidence = rng.uniform(0, 1, (n_splits, n_test))
        confidence[:, :10] = 1.0
        out[f"{method}_confidence"] = scale * confidence
        out[f"{method}_correct"] = rng.uniform(0, 1, (n_splits, n_test)) < 0.6 + 0.4 * confidence
    return out


def test_moving_theta_moves_the_rejection_point():
    panel = rejection_panel({"thyroid": fake_results(0), "heart": fake_results(1)}, theta=0.0)
    first_png, first = panel.png, dict(panel.values)
    assert first["thyroid trans rejection %"] == 0.0 and first["heart svm rejection %"] == 0.0
    panel.theta.value = 0.8
    assert panel.png != first_png
    assert panel.values["theta"] == pytest.approx(0.8)
    for name in ("thyroid", "heart"):
        for method in ("trans", "svm"):
            assert panel.values[f"{name} {method} rejection %"] > 40
    # theta = 1: the transduction rejects every point short of full confidence (10 of 40 are certain)
    panel.theta.value = 1.0
    assert panel.values["thyroid trans rejection %"] == pytest.approx(75.0)
    # theta_max matches the SVM's rejection to the transduction's at theta = 1
    assert abs(panel.values["thyroid svm rejection %"] - 75.0) < 3


def test_needs_results():
    with pytest.raises(ValueError, match="experiments must map"):
        rejection_panel({})

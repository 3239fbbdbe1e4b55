"""The q-slider panel of notebook 08: moving the slider redraws, and the numbers move as they should."""

import numpy as np
import pytest

from kgslab.widgets.kgs import kgs_panel


def test_moving_q_redraws_and_spreads_the_samples():
    panel = kgs_panel(q=0.0)
    # q = 0 samples version space: every sample classifies every training point correctly.
    assert panel.values["mean training errors per sample"] == 0
    assert panel.values["vote training errors"] == 0
    first_png, first_entropy = panel.png, panel.values["mean vote entropy (bits)"]
    panel.q.value = 0.2
    assert panel.png != first_png
    assert panel.values["q"] == pytest.approx(0.2)
    # More assumed noise: the samples make training errors and the vote is less certain.
    assert panel.values["mean training errors per sample"] > 1
    assert panel.values["mean vote entropy (bits)"] > first_entropy
    panel.q.value = 0.4
    assert panel.values["mean training errors per sample"] > 5


def test_same_slider_position_same_picture():
    panel = kgs_panel(q=0.1)
    first = panel.png
    panel.q.value = 0.3
    panel.q.value = 0.1
    assert panel.png == first


def test_no_version_space_is_reported_not_raised():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((20, 2))
    X[1] = X[0]  # the same point with both labels: no classifier gets both right
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    y[1] = -y[0]
    panel = kgs_panel(X, y, q=0.0)
    # The sampler's own message (issue 18: it used to be the fixed label "no version space" for any error).
    assert "version space" in panel.values["error"] and "use q > 0" in panel.values["error"]
    panel.q.value = 0.1
    assert panel.values["mean training errors per sample"] >= 1


def test_bad_data_is_refused():
    with pytest.raises(ValueError, match="X must be an"):
        kgs_panel(np.zeros((5, 3)), np.ones(5))

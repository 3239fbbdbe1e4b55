"""Notebook 10's panel: moving the noise-rate slider redraws the toy fits."""

import numpy as np

from kgslab.label_noise import flip_rates_from_noise_rates
from kgslab.widgets import toy_noise_panel


def test_noise_slider_redraws_and_reports():
    panel = toy_noise_panel(noise_rate=0.0)
    clean_png, clean = panel.png, dict(panel.values)
    assert clean["true gamma_1"] == 0 and clean["true gamma_2"] == 0
    assert clean["EM gamma_1"] < 0.05 and clean["EM gamma_2"] < 0.05
    panel.noise_rate.value = 0.2
    assert panel.png != clean_png
    noisy = panel.values
    _, true_flip = flip_rates_from_noise_rates([0.2, 0.2], [0.8, 0.2])
    assert np.isclose(noisy["true gamma_2"], round(true_flip[1], 3))
    # the noise model finds the noisy label-2 class and fits the means better than ignoring the noise
    assert noisy["EM gamma_2"] > 0.25
    assert noisy["mean error with model"] < noisy["mean error without model"]
    assert clean["mean error without model"] < noisy["mean error without model"]

"""Figure 2's experiment (kgslab.papers.bt1999): rejection at equal rates, paired differences, the bounce study."""

import numpy as np
import pytest

from kgslab import billiard, data
from kgslab.diagnostics import summarise
from kgslab.papers import bt1999


def test_error_at_rejection_against_a_loop():
    rng = np.random.default_rng(0)
    confidence = rng.integers(0, 5, (6, 20)) / 4.0             # many ties, as c_trans has at 1
    correct = rng.random((6, 20)) < 0.7
    rates = [0.0, 0.1, 0.25, 0.5]
    got = bt1999.error_at_rejection(confidence, correct, rates)
    for split in range(6):
        order = sorted(range(20), key=lambda j: (confidence[split, j], j))       # least confident first, stable
        for k, rate in enumerate(rates):
            kept = order[int(round(rate * 20)):]
            assert got[split, k] == pytest.approx(np.mean(~correct[split, kept]))
    with pytest.raises(ValueError, match="rates"):
        bt1999.error_at_rejection(confidence, correct, [1.0])


def test_paired_difference_is_mean_and_standard_error_of_the_differences():
    first, second = np.array([[0.3], [0.2], [0.4]]), np.array([[0.1], [0.1], [0.1]])
    mean, error = bt1999.paired_difference(first, second)
    assert mean[0] == pytest.approx(0.2) and error[0] == pytest.approx(np.std([0.2, 0.1, 0.3], ddof=1) / np.sqrt(3))
    assert bt1999.agreement([[0.6, 0.2]], [[0.4, 0.3]]) == (0.5, pytest.approx(0.15))


def test_figure2_curves_uses_the_curve_it_is_given():
    calls = []

    def spy(confidence, correct, thresholds):
        calls.append(len(thresholds))
        return billiard.error_rejection_curve(confidence, correct, thresholds)

    results = {"trans_confidence": np.array([[1.0, 0.3]]), "trans_correct": np.ones((1, 2), bool),
               "svm_confidence": np.array([[2.0, 0.5]]), "svm_correct": np.ones((1, 2), bool)}
    bt1999.figure2_curves(results, n_thresholds=5, curve=spy)
    assert calls == [5, 5]


def test_bounce_study_on_two_thyroid_splits():
    X, y = data.load_thyroid()
    study = bt1999.bounce_study(X, y, 3.0, n_splits=2, levels=(50, 300), random_state=np.random.default_rng(1))
    m = study["y_test"].shape[1]
    assert study["p_plus"].shape == (2, 2, 2, m) and np.all((study["p_plus"] >= 0) & (study["p_plus"] <= 1))
    # the SVM without bias is the hard-margin start of the billiard: it labels the test points, and c_trans
    # from more bounces agrees at least as well between the two independent trajectories (not a bound, a sanity)
    assert study["svm0_decision"].shape == (2, m)
    lines, theta_max = bt1999.study_curves(study)
    assert set(lines) == {"svm", "svm0", "trans 50", "trans 300"} and theta_max["svm"] > 0
    with pytest.raises(ValueError, match="levels must increase"):
        bt1999.bounce_study(X, y, 3.0, n_splits=1, levels=(300, 50))


def test_settled_points_do_not_hold_up_convergence_but_open_ones_do():
    # one quantity near 1 whose four chains disagree on the rare draws below 1: its R-hat is large
    rng = np.random.default_rng(0)
    draws = np.ones((4, 200, 1))
    draws[0, rng.choice(200, 12, replace=False), 0] = 0.8
    assert summarise(draws, 0.01).rhat[0] > 1.01
    near_one = draws.mean()
    assert 1 - near_one > 0.001 and not summarise(draws, 0.01, settled=0.001).converged
    assert summarise(draws, 0.01, settled=0.02).converged

"""The exercise checks of notebook 09: the reference passes, a blank falls back, typical slips are caught."""

import numpy as np

from kgslab import billiard, check
from kgslab.papers import bt1999


def blank(*args):
    raise NotImplementedError()


def flight_times_with_arctan(margins, slopes):
    """A classic slip: arctan(-a/b) loses the quadrant, so walls behind the ball get negative times."""
    return np.arctan(-np.asarray(margins) / np.asarray(slopes))


def bounce_without_reflection(alpha, beta, K, y, last_wall=-1):
    new_alpha, new_beta, wall, arc = billiard.billiard_bounce(alpha, beta, K, y, last_wall)
    old_beta = -np.sin(arc) * alpha + np.cos(arc) * beta
    return new_alpha, old_beta, wall, arc


def hoeffding_rounded_down(epsilon, eta):
    return int(np.floor(np.log(1 / eta) / (2 * epsilon ** 2)))


def rejection_with_less_or_equal(confidence, correct, thresholds):
    """Rejects confidence <= theta instead of < theta."""
    confidence, correct = np.asarray(confidence), np.asarray(correct, bool)
    rejected = confidence[None, :] <= np.asarray(thresholds)[:, None]
    accepted = ~rejected
    return rejected.mean(axis=1), (accepted & ~correct).sum(axis=1) / np.maximum(accepted.sum(axis=1), 1)


def test_references_pass(capsys):
    assert check.exercise_9_flight_times(billiard.flight_times) is billiard.flight_times
    assert check.exercise_9_bounce(billiard.billiard_bounce) is billiard.billiard_bounce
    assert check.exercise_9_hoeffding(billiard.hoeffding_bounces) is billiard.hoeffding_bounces
    assert check.exercise_9_rejection(bt1999.error_rejection_curve) is bt1999.error_rejection_curve
    assert capsys.readouterr().out.count("✔ correct on") == 4


def test_blanks_fall_back_to_the_reference(capsys):
    assert check.exercise_9_flight_times(blank) is billiard.flight_times
    assert check.exercise_9_bounce(blank) is billiard.billiard_bounce
    assert check.exercise_9_hoeffding(blank) is billiard.hoeffding_bounces
    assert check.exercise_9_rejection(blank) is bt1999.error_rejection_curve
    assert capsys.readouterr().out.count("not attempted yet") == 4


def test_slips_are_caught(capsys):
    with np.errstate(divide="ignore"):
        assert check.exercise_9_flight_times(flight_times_with_arctan) is billiard.flight_times
    assert check.exercise_9_bounce(bounce_without_reflection) is billiard.billiard_bounce
    assert check.exercise_9_hoeffding(hoeffding_rounded_down) is billiard.hoeffding_bounces
    assert check.exercise_9_rejection(rejection_with_less_or_equal) is bt1999.error_rejection_curve
    output = capsys.readouterr().out
    assert output.count("Hint:") == 4 and "✔ correct on" not in output

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
    assert check.nb09_exercise_1(lambda *a, **k: billiard.flight_times(*a, **k)).__name__ == '<lambda>'
    assert check.nb09_exercise_2(lambda *a, **k: billiard.billiard_bounce(*a, **k)).__name__ == '<lambda>'
    assert check.nb09_exercise_3(lambda *a, **k: billiard.hoeffding_bounces(*a, **k)).__name__ == '<lambda>'
    assert check.nb09_exercise_4(lambda *a, **k: bt1999.error_rejection_curve(*a, **k)).__name__ == '<lambda>'
    assert capsys.readouterr().out.count("✔ correct on") == 4


def test_blanks_fall_back_to_the_reference(capsys):
    assert check.nb09_exercise_1(blank).__wrapped__ is billiard.flight_times
    assert check.nb09_exercise_2(blank).__wrapped__ is billiard.billiard_bounce
    assert check.nb09_exercise_3(blank).__wrapped__ is billiard.hoeffding_bounces
    assert check.nb09_exercise_4(blank).__wrapped__ is bt1999.error_rejection_curve
    assert capsys.readouterr().out.count("not attempted yet") == 4


def test_slips_are_caught(capsys):
    with np.errstate(divide="ignore"):
        assert check.nb09_exercise_1(flight_times_with_arctan).__wrapped__ is billiard.flight_times
    assert check.nb09_exercise_2(bounce_without_reflection).__wrapped__ is billiard.billiard_bounce
    assert check.nb09_exercise_3(hoeffding_rounded_down).__wrapped__ is billiard.hoeffding_bounces
    assert check.nb09_exercise_4(rejection_with_less_or_equal).__wrapped__ is bt1999.error_rejection_curve
    output = capsys.readouterr().out
    assert output.count("Hint:") == 4 and "✔ correct on" not in output

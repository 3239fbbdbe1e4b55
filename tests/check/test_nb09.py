"""The exercise checks of notebook 09: the reference passes, a blank falls back, typical slips are caught."""

import numpy as np

from kgslab import billiard, billiard_ball, check, stopping
from kgslab.check.fallback import reference_of
from kgslab.papers import bt1999
from written_out import written_out  # noqa: E402


def blank(*args):
    raise NotImplementedError()


def flight_times_with_arctan(margins, slopes):
    """A classic slip: arctan(-a/b) loses the quadrant, so walls behind the ball get negative times."""
    return np.arctan(-np.asarray(margins) / np.asarray(slopes))


def bounce_without_reflection(alpha, beta, K, y, last_wall=-1):
    new_alpha, new_beta, wall, arc = written_out(billiard_ball.billiard_bounce)(alpha, beta, K, y, last_wall)
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
    assert check.nb09_exercise_1(lambda *a, **k: written_out(billiard_ball.flight_times)(*a, **k)).__name__ == '<lambda>'
    assert check.nb09_exercise_2(lambda *a, **k: written_out(billiard_ball.billiard_bounce)(*a, **k)).__name__ == '<lambda>'
    assert check.nb09_exercise_3(lambda *a, **k: written_out(stopping.hoeffding_bounces)(*a, **k)).__name__ == '<lambda>'
    assert check.nb09_exercise_4(lambda *a, **k: written_out(billiard.error_rejection_curve)(*a, **k)).__name__ == '<lambda>'
    assert capsys.readouterr().out.count("✔ correct on") == 4


def test_blanks_fall_back_to_the_reference(capsys):
    assert reference_of(check.nb09_exercise_1(blank)) is billiard_ball.flight_times
    assert reference_of(check.nb09_exercise_2(blank)) is billiard_ball.billiard_bounce
    assert reference_of(check.nb09_exercise_3(blank)) is stopping.hoeffding_bounces
    assert reference_of(check.nb09_exercise_4(blank)) is billiard.error_rejection_curve
    assert capsys.readouterr().out.count("not attempted yet") == 4


def test_slips_are_caught(capsys):
    with np.errstate(divide="ignore"):
        assert reference_of(check.nb09_exercise_1(flight_times_with_arctan)) is billiard_ball.flight_times
    assert reference_of(check.nb09_exercise_2(bounce_without_reflection)) is billiard_ball.billiard_bounce
    assert reference_of(check.nb09_exercise_3(hoeffding_rounded_down)) is stopping.hoeffding_bounces
    assert reference_of(check.nb09_exercise_4(rejection_with_less_or_equal)) is billiard.error_rejection_curve
    output = capsys.readouterr().out
    assert output.count("Hint:") == 4 and "✔ correct on" not in output


# ---- issue 16: attempts to fool the checks, and the two tiers of hints ------------------------------

def flight_times_unclipped(margins, slopes):
    """arctan2 without clipping: a margin of -1e-17 left by rounding gives a negative time."""
    return np.arctan2(margins, -np.asarray(slopes))


def bounce_ignoring_last_wall(alpha, beta, K, y, last_wall=-1):
    return written_out(billiard_ball.billiard_bounce)(alpha, beta, K, y)


def bounce_in_place(alpha, beta, K, y, last_wall=-1):
    """The right values, but alpha is overwritten in the caller's array."""
    new_alpha, new_beta, wall, arc = written_out(billiard_ball.billiard_bounce)(alpha, beta, K, y, last_wall)
    alpha[:] = new_alpha
    return alpha, new_beta, wall, arc


def hoeffding_log10(epsilon, eta):
    return int(np.ceil(np.log10(1 / eta) / (2 * epsilon ** 2)))


def hoeffding_without_the_2(epsilon, eta):
    return int(np.ceil(np.log(1 / eta) / epsilon ** 2))


def curve_over_all_points(confidence, correct, thresholds):
    """Divides the wrong accepted points by all points instead of the accepted ones."""
    confidence, correct = np.asarray(confidence), np.asarray(correct, bool)
    accepted = confidence[None, :] >= np.asarray(thresholds)[:, None]
    return 1 - accepted.mean(axis=1), (accepted & ~correct).sum(axis=1) / len(confidence)


def test_more_slips_are_caught_with_a_diagnosis(capsys):
    assert reference_of(check.nb09_exercise_1(flight_times_unclipped)) is billiard_ball.flight_times
    assert "negative" in capsys.readouterr().out
    assert reference_of(check.nb09_exercise_2(bounce_ignoring_last_wall)) is billiard_ball.billiard_bounce
    assert "last_wall" in capsys.readouterr().out
    assert reference_of(check.nb09_exercise_3(hoeffding_log10)) is stopping.hoeffding_bounces
    assert "ln 10" in capsys.readouterr().out
    assert reference_of(check.nb09_exercise_3(hoeffding_without_the_2)) is stopping.hoeffding_bounces
    assert "factor close to 2" in capsys.readouterr().out
    assert reference_of(check.nb09_exercise_4(curve_over_all_points)) is billiard.error_rejection_curve
    assert "NOT rejected" in capsys.readouterr().out


def test_a_bounce_that_changes_its_input_is_refused(capsys):
    assert reference_of(check.nb09_exercise_2(bounce_in_place)) is billiard_ball.billiard_bounce
    assert "changed its input" in capsys.readouterr().out


def test_rerun_after_a_fallback_is_still_open(capsys):
    fallback = check.nb09_exercise_2(blank)
    capsys.readouterr()
    assert reference_of(check.nb09_exercise_2(fallback)) is billiard_ball.billiard_bounce
    output = capsys.readouterr().out
    assert "still open" in output and "✔" not in output


def test_an_endless_flight_is_stopped(capsys, monkeypatch):
    monkeypatch.setattr("kgslab.check.time_limit.TIME_LIMIT", 1.0)   # the same stop, one second of spinning, not five

    def endless(margins, slopes):
        while True:
            pass

    assert reference_of(check.nb09_exercise_1(endless)) is billiard_ball.flight_times
    assert "time limit" in capsys.readouterr().out


def test_hints_in_two_tiers(capsys):
    check.nb09_exercise_2(blank)
    check.nb09_exercise_2(bounce_without_reflection)
    printed = capsys.readouterr().out
    assert 'check.hint("nb09_exercise_2")' in printed
    assert "argmin" not in printed and "K @" not in printed       # the code-level words wait for the request
    check.hint("nb09_exercise_2")
    assert "argmin" in capsys.readouterr().out
    for exercise in (check.nb09_exercise_1, check.nb09_exercise_2, check.nb09_exercise_3, check.nb09_exercise_4):
        assert exercise.code_hint and exercise.hint
        for code in ("np.", "@", "[c]", "ceil", "arctan2"):
            assert code not in exercise.hint, (exercise.key, code)

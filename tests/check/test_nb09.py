"""The exercise checks of notebook 09: the reference passes, a blank falls back, typical slips are caught."""

import numpy as np
import pytest

from kgslab import billiard, billiard_ball, check
from kgslab.check.fallback import reference_of
from written_out import written_out  # noqa: E402


def blank(*args):
    raise NotImplementedError()


def flight_times_with_arctan(margins, slopes):
    """A classic slip: arctan(-a/b) loses the quadrant, so walls behind the ball get negative times."""
    return np.arctan(-np.asarray(margins) / np.asarray(slopes))


def rejection_with_less_or_equal(confidence, correct, thresholds):
    """Rejects confidence <= theta instead of < theta."""
    confidence, correct = np.asarray(confidence), np.asarray(correct, bool)
    rejected = confidence[None, :] <= np.asarray(thresholds)[:, None]
    accepted = ~rejected
    return rejected.mean(axis=1), (accepted & ~correct).sum(axis=1) / np.maximum(accepted.sum(axis=1), 1)


# ---- Exercise 9.2 (the next wall) and 9.3 (the bounce), written as a student would -------------------------

def next_wall(alpha, beta, K, y, last_wall=-1):
    """An honest next_wall, written out (not the reference's code)."""
    margins, slopes = y * (K @ alpha), y * (K @ beta)
    times = np.arctan2(np.maximum(margins, 0.0), -slopes)
    if last_wall >= 0:
        times[last_wall] = np.inf
    return int(np.argmin(times)), float(np.min(times))


def _move(alpha, beta, arc):
    return np.cos(arc) * alpha + np.sin(arc) * beta, -np.sin(arc) * alpha + np.cos(arc) * beta


def _unit(v, K):
    return v / np.sqrt(v @ K @ v)


def bounce(alpha, beta, K, y, last_wall=-1):
    """The bounce as the notebook's solution writes it: move, reflect, renormalise both."""
    wall, arc = next_wall(alpha, beta, K, y, last_wall)
    new_alpha, new_beta = _move(alpha, beta, arc)
    new_beta[wall] -= 2.0 * (K[wall] @ new_beta) / K[wall, wall]
    return _unit(new_alpha, K), _unit(new_beta, K), wall, arc


def bounce_normal_as_vector(alpha, beta, K, y, last_wall=-1):
    """Honest: the normal as a coefficient vector e_c, its squared norm e_c' K e_c, normalised before reflecting."""
    wall, arc = next_wall(alpha, beta, K, y, last_wall)
    new_alpha, new_beta = _move(alpha, beta, arc)
    new_alpha, new_beta = _unit(new_alpha, K), _unit(new_beta, K)
    normal = np.zeros(len(y))
    normal[wall] = 1.0
    new_beta = new_beta - 2.0 * (new_beta @ K @ normal) / (normal @ K @ normal) * normal
    return new_alpha, new_beta, wall, arc


def bounce_inputs_normalised_first(alpha, beta, K, y, last_wall=-1):
    """Honest: alpha and beta brought to unit length first, then move and reflect (a unit pair stays unit)."""
    alpha, beta = _unit(alpha, K), _unit(beta, K)
    wall, arc = next_wall(alpha, beta, K, y, last_wall)
    new_alpha, new_beta = _move(alpha, beta, arc)
    norm_c = np.sqrt(K[wall, wall])
    new_beta[wall] -= 2.0 * (K[wall] @ new_beta) / norm_c ** 2
    return new_alpha / np.sqrt(new_alpha @ K @ new_alpha), new_beta / np.sqrt(new_beta @ K @ new_beta), wall, arc


def _bounce_with(reflect, renormalise=True):
    def student(alpha, beta, K, y, last_wall=-1):
        wall, arc = next_wall(alpha, beta, K, y, last_wall)
        new_alpha, new_beta = _move(alpha, beta, arc)
        new_beta = reflect(new_beta, K, wall, alpha, beta)
        if renormalise:
            return _unit(new_alpha, K), _unit(new_beta, K), wall, arc
        return new_alpha, new_beta, wall, arc
    return student


def _flip(step):
    def reflect(v, K, c, alpha, beta):
        v = v.copy()
        v[c] -= step(v, K, c)
        return v
    return reflect


WRONG_BOUNCES = {
    "no-reflection": _bounce_with(lambda v, K, c, a, b: v),
    "reflection-without-kernel": _bounce_with(_flip(lambda v, K, c: 2 * v[c])),
    "reflection-in-coefficient-space": _bounce_with(lambda v, K, c, a, b: v - 2 * (v @ K[c]) / (K[c] @ K[c]) * K[c]),
    "normal-norm-missing": _bounce_with(_flip(lambda v, K, c: 2 * (K[c] @ v))),
    "normal-norm-not-squared": _bounce_with(_flip(lambda v, K, c: 2 * (K[c] @ v) / np.sqrt(K[c, c]))),
    "wrong-sign": _bounce_with(_flip(lambda v, K, c: -2 * (K[c] @ v) / K[c, c])),
    "component-removed": _bounce_with(_flip(lambda v, K, c: (K[c] @ v) / K[c, c])),
    "reversed": _bounce_with(lambda v, K, c, a, b: -_flip(lambda v, K, c: 2 * (K[c] @ v) / K[c, c])(v, K, c, a, b)),
    "not-renormalised": _bounce_with(_flip(lambda v, K, c: 2 * (K[c] @ v) / K[c, c]), renormalise=False),
}


def bounce_direction_not_turned(alpha, beta, K, y, last_wall=-1):
    wall, arc = next_wall(alpha, beta, K, y, last_wall)
    new_alpha = np.cos(arc) * alpha + np.sin(arc) * beta
    new_beta = beta.copy()
    new_beta[wall] -= 2.0 * (K[wall] @ beta) / K[wall, wall]
    return _unit(new_alpha, K), _unit(new_beta, K), wall, arc


WRONG_BOUNCES["direction-not-turned"] = bounce_direction_not_turned


def next_wall_ignoring_last_wall(alpha, beta, K, y, last_wall=-1):
    return next_wall(alpha, beta, K, y)


def next_wall_unguarded(alpha, beta, K, y, last_wall=-1):
    """No guard: last_wall = -1 deletes the last point's wall."""
    times = np.arctan2(np.maximum(y * (K @ alpha), 0.0), -(y * (K @ beta)))
    times[last_wall] = np.inf
    return int(np.argmin(times)), float(np.min(times))


def bounce_in_place(alpha, beta, K, y, last_wall=-1):
    """The right values, but alpha is overwritten in the caller's array."""
    new_alpha, new_beta, wall, arc = bounce(alpha, beta, K, y, last_wall)
    alpha[:] = new_alpha
    return alpha, new_beta, wall, arc


def test_references_pass(capsys):
    assert check.nb09_exercise_1(lambda *a, **k: written_out(billiard_ball.flight_times)(*a, **k)).__name__ == '<lambda>'
    assert check.nb09_exercise_2(lambda *a, **k: written_out(billiard_ball.next_wall)(*a, **k)).__name__ == '<lambda>'
    assert check.nb09_exercise_4(lambda *a, **k: written_out(billiard.error_rejection_curve)(*a, **k)).__name__ == '<lambda>'
    assert capsys.readouterr().out.count("✔ correct on") == 3


@pytest.mark.parametrize("student", [bounce, bounce_normal_as_vector, bounce_inputs_normalised_first],
                         ids=lambda f: f.__name__)
def test_honest_bounces_pass(student, capsys):
    """Normalising in another order, the normal as a vector or its norm computed otherwise: the same bounce."""
    assert check.nb09_exercise_3(student) is student
    assert "✔ correct on" in capsys.readouterr().out
    assert check.nb09_exercise_2(next_wall) is next_wall


@pytest.mark.parametrize("mistake", list(WRONG_BOUNCES))
def test_wrong_bounces_are_named(mistake, capsys):
    """Reflecting without the kernel, forgetting to renormalise, the wrong sign...: a ✘ that names the mistake."""
    verdict = check.nb09_exercise_3.judge(WRONG_BOUNCES[mistake])
    assert verdict.status == "failed", verdict.text
    assert {found["mistake"] for found in verdict.mistakes} == {mistake}, verdict.text


def test_blanks_fall_back_to_the_reference(capsys):
    assert reference_of(check.nb09_exercise_1(blank)) is billiard_ball.flight_times
    assert reference_of(check.nb09_exercise_2(blank)) is billiard_ball.next_wall
    assert reference_of(check.nb09_exercise_3(blank)) is billiard_ball.billiard_bounce
    assert reference_of(check.nb09_exercise_4(blank)) is billiard.error_rejection_curve
    assert capsys.readouterr().out.count("not attempted yet") == 4


def test_slips_are_caught(capsys):
    with np.errstate(divide="ignore"):
        assert reference_of(check.nb09_exercise_1(flight_times_with_arctan)) is billiard_ball.flight_times
    assert reference_of(check.nb09_exercise_3(WRONG_BOUNCES["no-reflection"])) is billiard_ball.billiard_bounce
    assert reference_of(check.nb09_exercise_4(rejection_with_less_or_equal)) is billiard.error_rejection_curve
    output = capsys.readouterr().out
    assert output.count("Hint:") == 3 and "✔ correct on" not in output


# ---- attempts to fool the checks, and the two tiers of hints ------------------------------------------------

def flight_times_unclipped(margins, slopes):
    """arctan2 without clipping: a margin of -1e-17 left by rounding gives a negative time."""
    return np.arctan2(margins, -np.asarray(slopes))


def curve_over_all_points(confidence, correct, thresholds):
    """Divides the wrong accepted points by all points instead of the accepted ones."""
    confidence, correct = np.asarray(confidence), np.asarray(correct, bool)
    accepted = confidence[None, :] >= np.asarray(thresholds)[:, None]
    return 1 - accepted.mean(axis=1), (accepted & ~correct).sum(axis=1) / len(confidence)


def test_more_slips_are_caught_with_a_diagnosis(capsys):
    assert reference_of(check.nb09_exercise_1(flight_times_unclipped)) is billiard_ball.flight_times
    assert "negative" in capsys.readouterr().out
    assert reference_of(check.nb09_exercise_2(next_wall_ignoring_last_wall)) is billiard_ball.next_wall
    assert "last_wall" in capsys.readouterr().out
    assert reference_of(check.nb09_exercise_2(next_wall_unguarded)) is billiard_ball.next_wall
    assert "-1 means none" in capsys.readouterr().out
    assert reference_of(check.nb09_exercise_4(curve_over_all_points)) is billiard.error_rejection_curve
    assert "NOT rejected" in capsys.readouterr().out


def test_a_bounce_that_changes_its_input_is_refused(capsys):
    assert reference_of(check.nb09_exercise_3(bounce_in_place)) is billiard_ball.billiard_bounce
    assert "changed its input" in capsys.readouterr().out


def test_calling_the_kits_bounce_is_a_cross(capsys):
    def lean_on_the_kit(alpha, beta, K, y, last_wall=-1):
        new_alpha, new_beta, wall, arc = billiard_ball.billiard_bounce(alpha, beta, K, y, last_wall)
        return _unit(new_alpha, K), _unit(new_beta, K), wall, arc

    def wall_from_the_kit(alpha, beta, K, y, last_wall=-1):
        return billiard_ball.billiard_bounce(alpha, beta, K, y, last_wall)[2:]

    assert reference_of(check.nb09_exercise_3(lean_on_the_kit)) is billiard_ball.billiard_bounce
    assert reference_of(check.nb09_exercise_2(wall_from_the_kit)) is billiard_ball.next_wall
    assert capsys.readouterr().out.count("Write it yourself") == 2


def test_rerun_after_a_fallback_is_still_open(capsys):
    fallback = check.nb09_exercise_3(blank)
    capsys.readouterr()
    assert reference_of(check.nb09_exercise_3(fallback)) is billiard_ball.billiard_bounce
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
    check.nb09_exercise_3(blank)
    check.nb09_exercise_3(WRONG_BOUNCES["reflection-without-kernel"])
    printed = capsys.readouterr().out
    assert 'check.hint("nb09_exercise_3")' in printed
    assert "K[c, c]" not in printed and "K @" not in printed       # the code-level words wait for the request
    check.hint("nb09_exercise_3")
    assert "K[c, c]" in capsys.readouterr().out
    for exercise in (check.nb09_exercise_1, check.nb09_exercise_2, check.nb09_exercise_3, check.nb09_exercise_4):
        assert exercise.code_hint and exercise.hint
        for code in ("np.", "@", "[c]", "ceil", "arctan2"):
            assert code not in exercise.hint, (exercise.key, code)


def test_the_worked_reasoning_opens_after_a_pass_only(capsys, monkeypatch):
    """check.why shows the derivation of the reflection once the student's own bounce passed, never before."""
    monkeypatch.setattr("IPython.get_ipython", lambda: None)     # printed as text (another test may start a shell)
    check.nb09_exercise_3(blank)
    check.why("nb09_exercise_3")
    assert "K}\\boldsymbol\\beta')_c" not in capsys.readouterr().out
    check.nb09_exercise_3(bounce)
    assert 'check.why("nb09_exercise_3")' in capsys.readouterr().out
    check.why("nb09_exercise_3")
    assert "K}\\boldsymbol\\beta')_c" in capsys.readouterr().out
    for exercise in (check.nb09_exercise_1, check.nb09_exercise_2, check.nb09_exercise_3, check.nb09_exercise_4):
        assert exercise._worked

"""The exercise checks of notebook 08 accept right answers, reject wrong ones and fall back to the reference."""

import numpy as np
import pytest

from kgslab import check, kgs


def not_attempted(*args):
    raise NotImplementedError()


@pytest.mark.parametrize("name, reference", [("nb08_exercise_1", kgs.crossing_angles),
                                             ("nb08_exercise_2", kgs.arc_errors_by_sweep),
                                             ("nb08_exercise_3", kgs.vote)])
def test_reference_passes_and_blank_falls_back(name, reference, capsys):
    checker = getattr(check, name)

    def retyped(*args):  # a student who wrote the reference's code out
        return reference(*args)

    assert checker(retyped) is retyped
    assert "correct on all" in capsys.readouterr().out
    assert checker(not_attempted) is not not_attempted
    assert "not attempted yet" in capsys.readouterr().out


def test_common_mistakes_are_caught(capsys):
    # Crossing angles without the labels: right only when every y is +1.
    def no_labels(w_outputs, v_outputs, y):
        return kgs.crossing_angles(w_outputs, v_outputs, np.ones_like(y))

    assert check.nb08_exercise_1(no_labels).__wrapped__ is kgs.crossing_angles
    assert "not yet right" in capsys.readouterr().out

    # The sweep started from zero errors instead of the count just after theta = 0.
    def from_zero(angles):
        m = len(angles) // 2
        order = np.argsort(angles)
        return angles[order], np.cumsum(np.where(order < m, 1, -1))

    assert check.nb08_exercise_2(from_zero).__wrapped__ is kgs.arc_errors_by_sweep
    assert "not yet right" in capsys.readouterr().out

    # The vote counting a zero output as a vote for +1.
    def greater_equal(alphas, K_test):
        return np.mean(K_test @ alphas.T >= 0, axis=1)

    assert check.nb08_exercise_3(greater_equal).__wrapped__ is kgs.vote
    assert "exactly 0" in capsys.readouterr().out

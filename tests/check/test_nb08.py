"""The exercise checks of notebook 08 accept right answers, reject wrong ones and fall back to the reference.

Each check is also tried the ways a student could fool it: blank, wrong, the reference handed back on a re-run,
an input changed in place, an endless loop.
"""

import math
import time

import numpy as np
import pytest

from checking import blank, worked_reasoning_opens_only_after_a_pass
from kgslab import check, circle, kgs
from kgslab.check.fallback import reference_of
from written_out import written_out  # noqa: E402

REFERENCES = [("nb08_exercise_1", circle.crossing_angles), ("nb08_exercise_2", circle.arc_errors_by_sweep),
              ("nb08_exercise_3", circle.step_on_circle), ("nb08_exercise_4", circle.vote_draws)]


def not_attempted(*args):
    raise NotImplementedError()


@pytest.mark.parametrize("name, reference", REFERENCES)
def test_reference_passes_and_blank_falls_back(name, reference, capsys):
    checker = getattr(check, name)

    def retyped(*args):  # a student who wrote the reference's code out
        return written_out(reference)(*args)

    assert checker(retyped) is retyped
    assert "correct on all" in capsys.readouterr().out
    fallback = checker(not_attempted)
    assert fallback is not not_attempted and reference_of(fallback) is reference
    assert "not attempted yet" in capsys.readouterr().out
    # A re-run of the check cell on what it handed back (the reference) is not a pass.
    assert checker(fallback) is not retyped
    assert "still open" in capsys.readouterr().out


def test_common_mistakes_are_caught(capsys):
    # Crossing angles without the labels: right only when every y is +1.
    def no_labels(w_outputs, v_outputs, y):
        return written_out(circle.crossing_angles)(w_outputs, v_outputs, np.ones_like(y))

    assert reference_of(check.nb08_exercise_1(no_labels)) is circle.crossing_angles
    assert "not yet right" in capsys.readouterr().out

    # Angles left in (-pi, pi] + shifts, not wrapped into [0, 2 pi).
    def unwrapped(w_outputs, v_outputs, y):
        phase = np.arctan2(y * v_outputs, y * w_outputs)
        return np.concatenate([phase + np.pi / 2, phase + 3 * np.pi / 2])

    assert reference_of(check.nb08_exercise_1(unwrapped)) is circle.crossing_angles
    out = capsys.readouterr().out
    assert "[0, 2 pi)" in out and "arctan2" not in out        # the conceptual hint, not the code

    # The sweep started from zero errors instead of the count just after theta = 0.
    def from_zero(angles):
        m = len(angles) // 2
        order = np.argsort(angles)
        return angles[order], np.cumsum(np.where(order < m, 1, -1))

    assert reference_of(check.nb08_exercise_2(from_zero)) is circle.arc_errors_by_sweep
    assert "not yet right" in capsys.readouterr().out

    # The vote counting a zero output as a vote for +1.
    def greater_equal(alphas, K_test):
        return (alphas @ K_test.T >= 0).astype(float)

    assert reference_of(check.nb08_exercise_4(greater_equal)) is circle.vote_draws
    assert "other way round" in capsys.readouterr().out

    # The vote with the chains pooled: the right numbers in the wrong shape.
    def pooled(alphas, K_test):
        return (alphas.reshape(-1, alphas.shape[-1]) @ K_test.T > 0).astype(float)

    assert reference_of(check.nb08_exercise_4(pooled)) is circle.vote_draws
    assert "expected shape" in capsys.readouterr().out


def right_step(features, y, coords, direction, q, rng):
    angles = written_out(circle.crossing_angles)(features @ coords, features @ direction, y)
    boundaries, errors = written_out(circle.arc_errors_by_sweep)(angles)
    theta = circle.sample_angle(boundaries, errors, q, rng)
    return np.cos(theta) * coords + np.sin(theta) * direction


def test_the_step_check_passes_a_right_step_and_diagnoses_wrong_ones(capsys):
    assert check.nb08_exercise_3(right_step) is right_step
    assert "correct on all 3 tests" in capsys.readouterr().out

    def own_angle(features, y, coords, direction, q, rng):      # two different angles: off the circle
        rng = np.random.default_rng(rng)
        return math.cos(rng.uniform(0, 2 * np.pi)) * coords + math.sin(rng.uniform(0, 2 * np.pi)) * direction

    def uniform_angle(features, y, coords, direction, q, rng):  # on the circle, but ignores the likelihood
        theta = np.random.default_rng(rng).uniform(0, 2 * np.pi)
        return np.cos(theta) * coords + np.sin(theta) * direction

    def off_circle(features, y, coords, direction, q, rng):     # a unit vector, tilted off the circle
        new = right_step(features, y, coords, direction, q, rng)
        tilt = np.random.default_rng(0).standard_normal(len(coords))
        tilt -= (tilt @ coords) * coords + (tilt @ direction) * direction
        new = new + 0.1 * tilt / np.linalg.norm(tilt)
        return new / np.linalg.norm(new)

    def not_normalised(features, y, coords, direction, q, rng):
        return 2 * right_step(features, y, coords, direction, q, rng)

    def stays(features, y, coords, direction, q, rng):
        return coords.copy()

    def wrong_labels(features, y, coords, direction, q, rng):   # forgets the labels: other arcs, other angle
        return right_step(features, np.ones_like(y), coords, direction, q, rng)

    for student, message in [(own_angle, "not 1"), (off_circle, "not on the great circle"),
                             (uniform_angle, "another angle"),
                             (not_normalised, "not 1"), (stays, "the current point"),
                             (wrong_labels, "✘")]:
        assert reference_of(check.nb08_exercise_3(student)) is circle.step_on_circle, student.__name__
        out = capsys.readouterr().out
        assert message in out, (student.__name__, out)
        assert "cos(theta) coords" not in out                  # the code-level hint only on request


def test_the_step_check_names_a_slip_of_the_error_counts_or_of_the_sine(capsys):
    """An error-sign slip is named as such, not blamed on the random draws (issue 44)."""
    def error_sign(features, y, coords, direction, q, rng):
        angles = circle.crossing_angles(features @ coords, features @ direction, y)
        boundaries, errors = circle.arc_errors_by_sweep(angles)
        theta = circle.sample_angle(boundaries, len(y) - errors, q, rng)
        return math.cos(theta) * coords + math.sin(theta) * direction

    def sine_sign(features, y, coords, direction, q, rng):
        angles = circle.crossing_angles(features @ coords, features @ direction, y)
        theta = circle.sample_angle(*circle.arc_errors_by_sweep(angles), q, rng)
        return math.cos(theta) * coords - math.sin(theta) * direction

    for student, words in [(error_sign, "counts were of correct points, not of errors"),
                           (sine_sign, "cos(theta) w - sin(theta) v")]:
        assert reference_of(check.nb08_exercise_3(student)) is circle.step_on_circle
        out = capsys.readouterr().out
        assert words in out and "nothing else drawn from it before" not in out, out


def test_the_step_check_refuses_a_changed_input_and_an_endless_loop(capsys, monkeypatch):
    def normalises_in_place(features, y, coords, direction, q, rng):
        coords /= np.linalg.norm(coords)
        coords += 1e-3
        return right_step(features, y, coords, direction, q, rng)

    assert check.nb08_exercise_3(normalises_in_place) is not normalises_in_place
    assert "changed its input" in capsys.readouterr().out

    def endless(features, y, coords, direction, q, rng):
        while True:
            time.sleep(0.01)

    monkeypatch.setattr("kgslab.check.time_limit.TIME_LIMIT", 1.0)
    assert check.nb08_exercise_3(endless) is not endless
    assert "did not finish" in capsys.readouterr().out


def test_the_code_level_hint_comes_on_request_only(capsys, monkeypatch):
    check.hint("nb08_exercise_3")
    assert "with q and rng to sample_angle" in capsys.readouterr().out
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    check.hint("nb08_exercise_3")
    assert "with q and rng to sample_angle" not in capsys.readouterr().out


def test_a_run_of_the_students_step_samples_the_exact_posterior():
    # What notebook 08 does with the student's step: chains of it on a small problem reach the exact vote.
    rng = np.random.default_rng(0)
    X = rng.standard_normal((6, 3))
    y = np.sign(X[:, 0])
    y[0] *= -1
    features, _ = kgs.kernel_coordinates(X @ X.T)
    test_point = rng.standard_normal(3)
    index = np.arange(200_000) + 0.5
    z = 1 - 2 * index / len(index)
    azimuth = np.pi * (1 + 5**0.5) * index
    grid = np.column_stack([np.sqrt(1 - z**2) * np.cos(azimuth), np.sqrt(1 - z**2) * np.sin(azimuth), z])
    weights = 0.25 ** np.count_nonzero(y * (grid @ X.T) <= 0, axis=1)
    exact = float((grid @ test_point > 0) @ weights / weights.sum())
    coords, votes = features.T @ y / np.linalg.norm(features.T @ y), []
    to_input = np.linalg.lstsq(features, X, rcond=None)[0]        # coordinates -> w in R^3
    from kgslab.versionspace import random_tangent
    for _ in range(6000):
        coords = right_step(features, y, coords, random_tangent(coords, rng), 0.2, rng)
        votes.append(coords @ to_input @ test_point > 0)
    assert abs(np.mean(votes) - exact) < 0.04


# ---- Exercise 8.5: coordinates from the kernel matrix -------------------------------------------------------

def _kept(K, tol=1e-10):
    s, U = np.linalg.eigh(K)
    keep = s > tol * s.max()
    return s[keep], U[:, keep]


def by_eigh(K):
    s, U = _kept(K)
    return U * np.sqrt(s), U / np.sqrt(s)


def by_svd(K):                      # another solver: singular values of a PSD K are its eigenvalues
    U, s, _ = np.linalg.svd(K)
    keep = s > 1e-9 * s.max()
    return U[:, keep] * np.sqrt(s[keep]), U[:, keep] / np.sqrt(s[keep])


def signs_and_order(K):             # eigenvectors of the other sign, largest first
    features, to_alpha = by_eigh(K)
    signs = np.where(np.arange(features.shape[1]) % 2, -1.0, 1.0)
    return (features * signs)[:, ::-1], (to_alpha * signs)[:, ::-1]


def rotated(K):                     # any orthogonal transform of the coordinates
    features, to_alpha = by_eigh(K)
    Q, _ = np.linalg.qr(np.random.default_rng(1).standard_normal((features.shape[1],) * 2))
    return features @ Q, to_alpha @ Q


def pseudo_inverse(K):              # to_alpha from the features, another tolerance
    s, U = _kept(K, 1e-12)
    features = U * np.sqrt(s)
    return features, np.linalg.pinv(features).T


@pytest.mark.parametrize("student", [by_eigh, by_svd, signs_and_order, rotated, pseudo_inverse],
                         ids=lambda f: f.__name__)
def test_every_valid_set_of_coordinates_passes(student, capsys):
    assert check.nb08_exercise_5(student) is student
    out = capsys.readouterr().out
    assert "correct on all 6 tests" in out and 'check.why("nb08_exercise_5")' in out
    check.nb08_exercise_5(not_attempted)      # leave the record open: a pass closes the reference to later checks


def test_the_coordinates_are_right_by_an_independent_reading():
    """What the check accepts is what the sampler needs, read without the kit: Phi Phi' = K, alpha' K alpha = c'c."""
    K = check.nb08_exercise_5.cases()[3].args[0]            # rank-deficient: one point twice
    features, to_alpha = rotated(K)
    assert features.shape[1] == np.linalg.matrix_rank(K, tol=1e-10 * np.linalg.norm(K, 2))
    np.testing.assert_allclose(features @ features.T, K, atol=1e-10)
    c = np.random.default_rng(2).standard_normal(features.shape[1])
    alpha = to_alpha @ c
    np.testing.assert_allclose(alpha @ K @ alpha, c @ c, rtol=1e-8)
    np.testing.assert_allclose(K @ alpha, features @ c, atol=1e-8)


def no_roots(K):
    s, U = _kept(K)
    return U * s, U / s


def alpha_without_root(K):
    s, U = _kept(K)
    return U * np.sqrt(s), U / s


def keeps_every_direction(K):       # the square roots of rounding-level negative eigenvalues: NaN
    s, U = np.linalg.eigh(K)
    with np.errstate(invalid="ignore", divide="ignore"):
        return U * np.sqrt(s), U / np.sqrt(s)


def keeps_positive_rounding(K):
    s, U = np.linalg.eigh(K)
    keep = s > 0
    return U[:, keep] * np.sqrt(s[keep]), U[:, keep] / np.sqrt(s[keep])


def transposed(K):
    features, to_alpha = by_eigh(K)
    return features.T.copy(), to_alpha.T.copy()


def bare_eigenvectors(K):
    s, U = _kept(K)
    return U, U


def calls_the_kit(K):
    return kgs.kernel_coordinates(K)


@pytest.mark.parametrize("student, mistake, words", [
    (no_roots, "eigenvalues-not-roots", "K squared"),
    (alpha_without_root, "alpha-by-eigenvalue", "1 / sqrt(lambda_k)"),
    (keeps_every_direction, "negative-eigenvalue", "negative eigenvalue"),
    (keeps_positive_rounding, "kept-rounding", "rounding error"),
    (transposed, "transposed", "one ROW per training point"),
    (bare_eigenvectors, "unscaled", "the eigenvectors alone"),
    (calls_the_kit, "closed", "Write it yourself")], ids=lambda x: getattr(x, "__name__", None))
def test_each_wrong_set_of_coordinates_gets_a_cross_that_names_it(student, mistake, words, capsys):
    verdict = check.nb08_exercise_5.judge(student)
    assert not verdict.passed
    assert mistake in {m["mistake"] for m in verdict.mistakes}, verdict.text
    assert words in verdict.text, verdict.text
    assert "square root of its eigenvalue" not in verdict.text      # the code-level hint only on request


def test_the_coordinates_check_falls_back_and_reruns_stay_open(capsys):
    fallback = check.nb08_exercise_5(not_attempted)
    assert reference_of(fallback) is not None and "not attempted yet" in capsys.readouterr().out
    features, to_alpha = fallback(np.diag([4.0, 1.0]))
    np.testing.assert_allclose(features @ features.T, np.diag([4.0, 1.0]))
    check.nb08_exercise_5(fallback)                         # a re-run on what it handed back is no pass
    assert "still open" in capsys.readouterr().out


@pytest.mark.parametrize("n", range(1, 6))
def test_the_worked_reasoning_opens_only_after_the_students_own_pass(n, capsys, monkeypatch):
    right = {1: written_out(circle.crossing_angles), 2: written_out(circle.arc_errors_by_sweep), 3: right_step,
             4: written_out(circle.vote_draws), 5: by_eigh}[n]
    worked = worked_reasoning_opens_only_after_a_pass(f"nb08_exercise_{n}", right, (blank,), capsys, monkeypatch)
    assert len(worked) > 300

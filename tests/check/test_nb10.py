"""Notebook 10's checks: independent solutions pass, blanks fall back to the reference, near misses are caught."""

import numpy as np
import pytest

from checking import blank, worked_reasoning_opens_only_after_a_pass
from kgslab import check, kfd, label_noise
from kgslab.check.fallback import reference_of


def brute_e_step(log_density, y_index, flip_rates):
    """Point by point, with plain probabilities (fine for the small cases)."""
    posterior = np.zeros_like(log_density)
    total = 0.0
    for n, label in enumerate(y_index):
        table = [flip_rates[label], flip_rates[label]]
        table[label] = 1 - flip_rates[label]
        joint = np.exp(log_density[n]) * table
        posterior[n] = joint / joint.sum()
        total += np.log(joint.sum())
    return posterior, total


def loop_m_step(X, posterior, y_index, shared_covariance=False):
    means, covariances = [], []
    for c in (0, 1):
        weights = posterior[:, c]
        means.append(np.average(X, axis=0, weights=weights))
        covariances.append(np.cov(X.T, aweights=weights, bias=True))
    if shared_covariance:
        pooled = sum(posterior[:, c].sum() * covariances[c] for c in (0, 1)) / len(X)
        covariances = [pooled, pooled]
    rates = np.array([posterior[y_index == k, 1 - k].mean() for k in (0, 1)])
    return np.array(means), np.array(covariances), rates


def explicit_fisher(K_basis, posterior, mu):
    totals = posterior.sum(axis=0)
    means = [K_basis.T @ posterior[:, c] / totals[c] for c in (0, 1)]
    scatter = sum(np.outer(k - means[c], k - means[c]) * posterior[n, c]
                  for n, k in enumerate(K_basis) for c in (0, 1))
    return np.linalg.inv(scatter + mu * np.eye(K_basis.shape[1])) @ (means[1] - means[0])


def convert(noise_rates, true_priors):
    e, p = np.asarray(noise_rates), np.asarray(true_priors)
    joint = np.array([[p[0] * (1 - e[0]), p[0] * e[0]], [p[1] * e[1], p[1] * (1 - e[1])]])  # [y, yhat]
    observed = joint.sum(axis=0)
    return observed, np.array([joint[1, 0] / observed[0], joint[0, 1] / observed[1]])


def test_independent_solutions_pass(capsys):
    assert check.nb10_exercise_1(convert) is convert
    assert check.nb10_exercise_2(brute_e_step) is brute_e_step
    assert check.nb10_exercise_3(loop_m_step) is loop_m_step
    assert check.nb10_exercise_5(explicit_fisher) is explicit_fisher
    assert capsys.readouterr().out.count("correct on all") == 4


def test_blank_exercises_fall_back(capsys):
    def blank(*args):
        raise NotImplementedError()
    assert reference_of(check.nb10_exercise_2(blank)) is label_noise.e_step
    assert reference_of(check.nb10_exercise_5(blank)) is kfd.fisher_direction
    assert "not attempted yet" in capsys.readouterr().out


def test_near_misses_are_caught(capsys):
    def unbiased_covariance(X, posterior, y_index, shared_covariance=False):
        means, covariances, rates = loop_m_step(X, posterior, y_index, shared_covariance)
        return means, covariances * len(X) / (len(X) - 1), rates

    def swapped_table(log_density, y_index, flip_rates):
        return brute_e_step(log_density, y_index, np.asarray(flip_rates)[::-1])

    assert reference_of(check.nb10_exercise_3(unbiased_covariance)) is label_noise.m_step
    assert reference_of(check.nb10_exercise_2(swapped_table)) is label_noise.e_step
    assert reference_of(check.nb10_exercise_1(lambda e, p: convert(e[::-1], p))) is label_noise.flip_rates_from_noise_rates
    assert capsys.readouterr().out.count("✘") == 3


# ---- Exercise 10.4 (the EM loop) and the hint tiers: attempts to fool the checks -------------------

from scipy.special import logsumexp  # noqa: E402
from scipy.stats import multivariate_normal  # noqa: E402

from kgslab.check import time_limit  # noqa: E402
from kgslab.papers import kfd2001  # noqa: E402


def independent_em(X, y_index, initial_flip_rates, shared_covariance=False, max_iter=1000, tol=1e-6):
    """EM written from the equations with this file's brute-force steps (not the kit's)."""
    rates = np.asarray(initial_flip_rates, float)
    means, covariances, _ = loop_m_step(X, np.eye(2)[y_index], y_index, shared_covariance)
    history = []
    for _ in range(max_iter):
        log_density = np.column_stack([multivariate_normal.logpdf(X, means[c], covariances[c]) for c in (0, 1)])
        prior = np.where(np.arange(2)[None, :] == y_index[:, None], 1 - rates[y_index][:, None], rates[y_index][:, None])
        with np.errstate(divide="ignore"):
            joint = log_density + np.log(prior)
        posterior = np.exp(joint - logsumexp(joint, axis=1)[:, None])
        history.append(float(logsumexp(joint, axis=1).sum()))
        if len(history) > 1 and history[-1] - history[-2] < tol:
            break
        means, covariances, rates = loop_m_step(X, posterior, y_index, shared_covariance)
    return means, covariances, rates, posterior, np.array(history)


def test_exercise_4_passes_an_independent_em_and_falls_back_on_blank(capsys):
    assert check.nb10_exercise_4(independent_em) is independent_em
    assert "correct on all 4 tests" in capsys.readouterr().out

    def blank(X, y_index, initial_flip_rates, shared_covariance=False, max_iter=1000, tol=1e-6):
        raise NotImplementedError()
    fallback = check.nb10_exercise_4(blank)
    assert "not attempted yet" in capsys.readouterr().out
    # the fall-back runs the kit's EM in the notebook's form, and a re-run with it is not a pass
    X, y, _ = kfd_toy(100)
    got = fallback(X, (y == 2).astype(int), (0.3, 0.3))
    assert len(got) == 5 and np.all(np.diff(got[4]) >= -1e-9)
    check.nb10_exercise_4(fallback)
    assert "still open" in capsys.readouterr().out


def kfd_toy(n):
    from kgslab import data
    return data.kfd_toy_data(n, random_state=5)


def wrong_ems():
    def one_iteration(X, y_index, initial_flip_rates, shared_covariance=False, max_iter=1000, tol=1e-6):
        return independent_em(X, y_index, initial_flip_rates, shared_covariance, max_iter=2, tol=tol)

    def fixed_start(X, y_index, initial_flip_rates, shared_covariance=False, max_iter=1000, tol=1e-6):
        return independent_em(X, y_index, (0.3, 0.3), shared_covariance, max_iter, tol)

    def ignores_shared(X, y_index, initial_flip_rates, shared_covariance=False, max_iter=1000, tol=1e-6):
        return independent_em(X, y_index, initial_flip_rates, False, max_iter, tol)

    def means_never_move(X, y_index, initial_flip_rates, shared_covariance=False, max_iter=1000, tol=1e-6):
        start = loop_m_step(X, np.eye(2)[y_index], y_index, shared_covariance)
        means, covariances, rates, posterior, history = independent_em(X, y_index, initial_flip_rates,
                                                                       shared_covariance, max_iter, tol)
        return start[0], covariances, rates, posterior, history

    def stale_history(X, y_index, initial_flip_rates, shared_covariance=False, max_iter=1000, tol=1e-6):
        means, covariances, rates, posterior, history = independent_em(X, y_index, initial_flip_rates,
                                                                       shared_covariance, max_iter, tol)
        return means, covariances, rates, posterior, history[::-1]          # decreasing log-likelihood

    def no_history(X, y_index, initial_flip_rates, shared_covariance=False, max_iter=1000, tol=1e-6):
        return independent_em(X, y_index, initial_flip_rates, shared_covariance, max_iter, tol)[:4]

    def centres_in_place(X, y_index, initial_flip_rates, shared_covariance=False, max_iter=1000, tol=1e-6):
        X -= X.mean(axis=0)                                                 # changes the caller's data
        return independent_em(X, y_index, initial_flip_rates, shared_covariance, max_iter, tol)

    return [one_iteration, fixed_start, ignores_shared, means_never_move, stale_history, no_history,
            centres_in_place]


def test_exercise_4_catches_wrong_em_loops(capsys):
    for wrong in wrong_ems():
        assert reference_of(check.nb10_exercise_4(wrong)) is label_noise.label_noise_em_as_tuple, wrong.__name__
        out = capsys.readouterr().out
        assert "✘" in out and "✔" not in out, (wrong.__name__, out)
    check.nb10_exercise_4(wrong_ems()[4])
    assert "went DOWN" in capsys.readouterr().out


def test_exercise_4_ends_an_endless_loop(capsys, monkeypatch):
    monkeypatch.setattr(time_limit, "TIME_LIMIT", 0.5)

    def endless(X, y_index, initial_flip_rates, shared_covariance=False, max_iter=1000, tol=1e-6):
        while True:
            pass
    assert reference_of(check.nb10_exercise_4(endless)) is label_noise.label_noise_em_as_tuple
    assert "time limit" in capsys.readouterr().out


def test_a_failed_check_gives_the_conceptual_hint_not_the_code(capsys):
    for exercise in (check.nb10_exercise_1, check.nb10_exercise_2, check.nb10_exercise_3, check.nb10_exercise_5,
                     check.nb10_exercise_4):
        assert exercise.hint and exercise.code_hint and exercise.hint != exercise.code_hint
        # no code in the conceptual tier: no assignment, call or solver name that the code-level tier gives
        for token in ("np.", "solve(", "logsumexp", "eye(", "[", ".mean(", ".sum("):
            assert token not in exercise.hint, (exercise.key, token)

    def wrong(*args, **kwargs):
        return None
    check.nb10_exercise_5(wrong)
    out = capsys.readouterr().out
    assert check.nb10_exercise_5.hint[:40] in out.replace("\n", " ")
    assert "np.linalg.solve" not in out and 'check.hint("nb10_exercise_5")' in out


def test_diagnoses_name_what_is_off(capsys):
    def unbiased_covariance(X, posterior, y_index, shared_covariance=False):
        means, covariances, rates = loop_m_step(X, posterior, y_index, shared_covariance)
        return means, covariances * len(X) / (len(X) - 1), rates
    check.nb10_exercise_3(unbiased_covariance)
    assert "off by factors close to" in capsys.readouterr().out

    check.nb10_exercise_5(lambda K, q, mu: 2.5 * explicit_fisher(K, q, mu))
    assert "factor close to 2.5" in capsys.readouterr().out
    check.nb10_exercise_5(lambda K, q, mu: -2.5 * explicit_fisher(K, q, mu))
    assert "factor close to -2.5" in capsys.readouterr().out


def test_the_opposite_sign_maximises_J_too(capsys):
    """(N + mu I)^{-1} (M_0 - M_1) maximises the Rayleigh quotient as well: ✔ (issue 44), and J agrees."""
    opposite = lambda K, q, mu: -explicit_fisher(K, q, mu)  # noqa: E731
    assert check.nb10_exercise_5(opposite) is opposite
    assert "✔" in capsys.readouterr().out
    rng = np.random.default_rng(0)
    K, q = rng.normal(size=(30, 5)), np.eye(2)[rng.integers(0, 2, 30)]
    alpha = explicit_fisher(K, q, 0.1)
    M = q.T @ K / q.sum(axis=0)[:, None]
    N = sum((q[:, c, None] * (K - M[c])).T @ (K - M[c]) for c in (0, 1)) + 0.1 * np.eye(5)
    J = lambda a: (a @ (M[1] - M[0])) ** 2 / (a @ N @ a)  # noqa: E731
    assert J(-alpha) == pytest.approx(J(alpha)) and J(alpha) >= J(alpha + 0.1 * rng.normal(size=5))

    def reversed_rates(e, p):
        observed, flip = convert(e, p)
        return observed, flip[::-1]
    check.nb10_exercise_1(reversed_rates)
    assert "wrong order" in capsys.readouterr().out


def test_toy_table_runs_the_em_it_is_given():
    from kgslab.papers import kfd2001
    truth, kit, _ = kfd2001.toy_table((200,), 3, random_state=1)
    _, yours, _ = kfd2001.toy_table((200,), 3, random_state=1, em=independent_em)
    assert np.allclose(kit[200], yours[200], atol=1e-3)

    def biased(X, y_index, initial_flip_rates):
        means, covariances, rates, posterior, history = independent_em(X, y_index, initial_flip_rates)
        return means + 1.0, covariances, rates, posterior, history
    _, shifted, _ = kfd2001.toy_table((200,), 3, random_state=1, em=biased)
    assert np.allclose(shifted[200][:, :4], kit[200][:, :4] + 1.0, atol=1e-3)


def test_toy_table_says_what_is_wrong_with_its_em():
    import pytest
    from kgslab.papers import kfd2001
    with pytest.raises(TypeError, match="em must be a function"):
        kfd2001.toy_table((200,), 1, random_state=1, em="run_em")
    with pytest.raises(ValueError, match="em must return means"):
        kfd2001.toy_table((200,), 1, random_state=1, em=lambda X, y, r: independent_em(X, y, r)[1:])


@pytest.mark.parametrize("n, right, words", [
    (1, convert, "gamma_2 = 0.5"), (2, brute_e_step, "the point's term of"),
    (3, loop_m_step, "mixture of two Gaussians"), (5, explicit_fisher, "rank one")])
def test_the_worked_reasoning_opens_only_after_the_students_own_pass(n, right, words, capsys, monkeypatch):
    """check.why shows an exercise's derivation once the student's own function passed, never before."""
    worked_reasoning_opens_only_after_a_pass(f"nb10_exercise_{n}", right, (blank,), capsys, monkeypatch, words=words)

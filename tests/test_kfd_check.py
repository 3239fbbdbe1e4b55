"""Notebook 10's checks: independent solutions pass, blanks fall back to the reference, near misses are caught."""

import numpy as np

from kgslab import check, kfd


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
    assert check.nb10_exercise_4(explicit_fisher) is explicit_fisher
    assert capsys.readouterr().out.count("correct on all") == 4


def test_blank_exercises_fall_back(capsys):
    def blank(*args):
        raise NotImplementedError()
    assert check.nb10_exercise_2(blank).__wrapped__ is kfd.e_step
    assert check.nb10_exercise_4(blank).__wrapped__ is kfd.fisher_direction
    assert "not attempted yet" in capsys.readouterr().out


def test_near_misses_are_caught(capsys):
    def unbiased_covariance(X, posterior, y_index, shared_covariance=False):
        means, covariances, rates = loop_m_step(X, posterior, y_index, shared_covariance)
        return means, covariances * len(X) / (len(X) - 1), rates

    def swapped_table(log_density, y_index, flip_rates):
        return brute_e_step(log_density, y_index, np.asarray(flip_rates)[::-1])

    assert check.nb10_exercise_3(unbiased_covariance).__wrapped__ is kfd.m_step
    assert check.nb10_exercise_2(swapped_table).__wrapped__ is kfd.e_step
    assert check.nb10_exercise_1(lambda e, p: convert(e[::-1], p)).__wrapped__ is kfd.flip_rates_from_noise_rates
    assert capsys.readouterr().out.count("✘") == 3

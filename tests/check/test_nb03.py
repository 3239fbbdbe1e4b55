"""The checks of notebook 03 (Exercise 4) against a student's attempts: each wrong one is refused.

The two numerical cases are tested for what they are there for: on the 400-point case det(K + sigma^2 I)
really is 0 in floating point, and on the ill-conditioned case an explicit inverse really loses digits
while a solve does not (against the exact value a'y, known independently of any solver).
"""

import numpy as np
import pytest
import scipy.linalg

from kgslab import check
from kgslab.check import nb03_gp
from kgslab.kernels import rbf_kernel
from kgslab.regression import gp_posterior
from written_out import written_out


def by_cholesky(K, y, sigma2):
    factor = scipy.linalg.cho_factor(K + sigma2 * np.eye(len(y)), lower=True)
    return (-0.5 * y @ scipy.linalg.cho_solve(factor, y) - np.sum(np.log(np.diag(factor[0])))
            - 0.5 * len(y) * np.log(2 * np.pi))


def by_det(K, y, sigma2):
    A = K + sigma2 * np.eye(len(y))
    with np.errstate(divide="ignore"):
        return -0.5 * y @ np.linalg.solve(A, y) - 0.5 * np.log(np.linalg.det(A)) - 0.5 * len(y) * np.log(2 * np.pi)


def by_inverse(K, y, sigma2):
    A = K + sigma2 * np.eye(len(y))
    return -0.5 * y @ np.linalg.inv(A) @ y - 0.5 * np.linalg.slogdet(A)[1] - 0.5 * len(y) * np.log(2 * np.pi)


def test_the_two_numerical_cases_do_what_they_are_there_for():
    cases = nb03_gp._nb03_exercise_4a_cases()
    K, y, sigma2 = cases[3].args
    assert len(y) == 400 and np.linalg.det(K + sigma2 * np.eye(400)) == 0.0
    assert np.isfinite(np.linalg.slogdet(K + sigma2 * np.eye(400))[1])
    K, y, sigma2 = cases[4].args
    A = K + sigma2 * np.eye(len(y))
    assert np.linalg.cond(A) > 1e12
    a = 1000 * np.random.default_rng(1).standard_normal(40)   # y = A a, so the data term y'A^{-1}y is a'y
    assert np.allclose(A @ a, y, rtol=1e-15, atol=0)
    exact_term = a @ y
    assert abs(y @ np.linalg.solve(A, y) / exact_term - 1) < 1e-12
    assert abs(y @ np.linalg.inv(A) @ y / exact_term - 1) > 1e-6         # 1e-4 on the machines we tried
    # the right ways agree with the reference far inside the check's tolerance (1e-7), the inverse far outside
    reference = check.nb03_exercise_4a._reference(K, y, sigma2)
    assert by_cholesky(K, y, sigma2) == pytest.approx(reference, rel=1e-9)
    assert abs(by_inverse(K, y, sigma2) / reference - 1) > 1e-6


def test_log_evidence_right_ways_pass_and_wrong_ones_are_diagnosed(capsys):
    assert check.nb03_exercise_4a(by_cholesky) is by_cholesky
    assert "✔" in capsys.readouterr().out
    assert check.nb03_exercise_4a(by_det) is not by_det
    out = capsys.readouterr().out
    assert "test 4" in out and "underflows" in out
    assert check.nb03_exercise_4a(by_inverse) is not by_inverse
    out = capsys.readouterr().out
    assert "test 5" in out and "explicitly" in out

    def no_constant(K, y, sigma2):
        return by_cholesky(K, y, sigma2) + 0.5 * len(y) * np.log(2 * np.pi)

    def log_det_twice(K, y, sigma2):
        return by_cholesky(K, y, sigma2) - 0.5 * np.linalg.slogdet(K + sigma2 * np.eye(len(y)))[1]

    assert check.nb03_exercise_4a(no_constant) is not no_constant
    assert "exactly 10 x (1/2) ln(2 pi)" in capsys.readouterr().out
    assert check.nb03_exercise_4a(log_det_twice) is not log_det_twice
    out = capsys.readouterr().out
    assert "✘" in out and "log-determinant term of eq. (16) is counted twice" in out and "explicitly" not in out

    def no_log_det(K, y, sigma2):
        return by_cholesky(K, y, sigma2) + 0.5 * np.linalg.slogdet(K + sigma2 * np.eye(len(y)))[1]

    assert check.nb03_exercise_4a(no_log_det) is not no_log_det
    out = capsys.readouterr().out
    assert "is left out" in out and "explicitly" not in out


def test_the_hints_come_in_two_tiers(capsys, monkeypatch):
    check.nb03_exercise_4a(by_det)
    out = capsys.readouterr().out
    assert "cho_factor" not in out and 'check.hint("nb03_exercise_4a")' in out
    check.hint("nb03_exercise_4a")
    assert "cho_factor" in capsys.readouterr().out
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    check.hint("nb03_exercise_4a")
    assert "cho_factor" not in capsys.readouterr().out


def test_gp_posterior_inverse_and_the_two_sigma_slips_are_refused(capsys):
    def by_solve(K, K_test, k_test_diag, y, sigma2):
        A = K + sigma2 * np.eye(len(y))
        return K_test @ np.linalg.solve(A, y), k_test_diag - np.sum(K_test.T * np.linalg.solve(A, K_test.T), axis=0)

    def by_inverse_posterior(K, K_test, k_test_diag, y, sigma2):
        inverse = np.linalg.inv(K + sigma2 * np.eye(len(y)))
        return K_test @ inverse @ y, k_test_diag - np.einsum("ij,jk,ik->i", K_test, inverse, K_test)

    def with_noise(*args):
        mean, var = written_out(gp_posterior)(*args)
        return mean, var + args[-1]

    def standard_deviation(*args):
        mean, var = written_out(gp_posterior)(*args)
        return mean, np.sqrt(var)

    assert check.nb03_exercise_4b(by_solve) is by_solve
    assert check.nb03_exercise_4b(by_inverse_posterior) is not by_inverse_posterior
    assert "test 3" in capsys.readouterr().out.split("✔")[1]
    check.nb03_exercise_4b(with_noise)
    assert "without the noise" in capsys.readouterr().out
    check.nb03_exercise_4b(standard_deviation)
    assert "return the variance itself" in capsys.readouterr().out


def evidence_curve(K, y, sigma2s):
    curve = np.array([by_cholesky(K, y, sigma2) for sigma2 in sigma2s])
    return curve, sigma2s[np.argmax(curve)]


def test_the_evidence_curve_experiment(capsys):
    def position_not_value(K, y, sigma2s):
        curve, _ = evidence_curve(K, y, sigma2s)
        return curve, np.argmax(curve)

    def smallest(K, y, sigma2s):          # argmin: the worst sigma^2
        curve, _ = evidence_curve(K, y, sigma2s)
        return curve, sigma2s[np.argmin(curve)]

    def list_of_values(K, y, sigma2s):
        curve, best = evidence_curve(K, y, sigma2s)
        return list(curve), best

    assert check.nb03_exercise_4a_curve(evidence_curve) is evidence_curve
    for wrong in (position_not_value, smallest, list_of_values):
        assert check.nb03_exercise_4a_curve(wrong) is not wrong
    assert capsys.readouterr().out.count("✘") == 3


def test_the_bonus_experiment_over_widths(capsys):
    def over_widths(X, y, sigma2, widths):
        curve = np.array([by_cholesky(rbf_kernel(X, L=width), y, sigma2) for width in widths])
        return curve, widths[np.argmax(curve)]

    def kernel_built_once(X, y, sigma2, widths):   # forgets that each width is a new K
        K = rbf_kernel(X, L=widths[0])
        curve = np.array([by_cholesky(K, y, sigma2) for _ in widths])
        return curve, widths[np.argmax(curve)]

    def width_as_variance(X, y, sigma2, widths):   # exp(-d^2 / (2 L)) instead of / (2 L^2)
        curve = np.array([by_cholesky(rbf_kernel(X, L=np.sqrt(width)), y, sigma2) for width in widths])
        return curve, widths[np.argmax(curve)]

    assert check.nb03_exercise_4c(over_widths) is over_widths
    assert check.nb03_exercise_4c(kernel_built_once) is not kernel_built_once
    assert check.nb03_exercise_4c(width_as_variance) is not width_as_variance
    assert capsys.readouterr().out.count("✘") == 2


def test_an_endless_experiment_ends_in_a_verdict(capsys, monkeypatch):
    monkeypatch.setattr("kgslab.check.time_limit.TIME_LIMIT", 0.5)

    def endless(K, y, sigma2s):
        while True:
            evidence_curve(K, y, sigma2s[:1])

    assert check.nb03_exercise_4a_curve(endless) is not endless
    assert "time limit" in capsys.readouterr().out


def test_the_worked_reasoning_opens_after_a_pass_only(capsys, monkeypatch):
    """check.why shows 4a's log-determinant reasoning once the student's own log_evidence passed, never before."""
    monkeypatch.setattr("IPython.get_ipython", lambda: None)     # printed as text (another test may start a shell)

    def log_evidence(K, y, sigma2):
        raise NotImplementedError()

    check.nb03_exercise_4a(log_evidence)
    check.why("nb03_exercise_4a")
    assert "ln C_{ii}" not in capsys.readouterr().out

    def own(K, y, sigma2):
        sign, log_det = np.linalg.slogdet(K + sigma2 * np.eye(len(y)))
        return float(-0.5 * y @ np.linalg.solve(K + sigma2 * np.eye(len(y)), y) - 0.5 * log_det
                     - 0.5 * len(y) * np.log(2 * np.pi))

    assert check.nb03_exercise_4a(own) is own
    assert 'check.why("nb03_exercise_4a")' in capsys.readouterr().out
    check.why("nb03_exercise_4a")
    assert "ln C_{ii}" in capsys.readouterr().out
    for key in ("nb03_exercise_4a", "nb03_exercise_4a_curve", "nb03_exercise_4b", "nb03_exercise_4c"):
        assert check.exercises()[key]._worked

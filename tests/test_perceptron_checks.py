"""The exercise checks of notebook 07: the reference passes, a blank falls back, a near miss is caught."""

import numpy as np
import pytest

from kgslab import check, perceptron


def blank(*args):
    raise NotImplementedError()


def primal_with_strict_inequality(X, y, max_epochs):
    """A classic slip: `< 0` instead of `<= 0`, so w = 0 never updates."""
    w, alpha = np.zeros(X.shape[1]), np.zeros(len(y))
    for _ in range(max_epochs):
        for i in range(len(y)):
            if y[i] * (w @ X[i]) < 0:
                w += y[i] * X[i]
                alpha[i] += 1
    return w, alpha


def dual_perceptron(K, y, max_epochs):
    alpha = np.zeros(len(y))
    for _ in range(max_epochs):
        mistakes = 0
        for i in range(len(y)):
            if y[i] * (K[i] @ (alpha * y)) <= 0:
                alpha[i] += 1
                mistakes += 1
        if mistakes == 0:
            break
    return alpha


def novikoff(K, y, a):
    K_tilde = K + a * np.eye(len(y))
    alpha = np.linalg.solve(K_tilde, y)
    margin = np.min(y * (K_tilde @ alpha))
    norm_w2 = alpha @ K_tilde @ alpha
    R2 = np.max(np.diag(K_tilde))
    return margin, norm_w2, R2, R2 * norm_w2 / margin**2


def test_written_solutions_pass(capsys):
    assert check.nb07_exercise_5a(lambda *a, **k: perceptron.perceptron(*a, **k)).__name__ == '<lambda>'
    assert check.nb07_exercise_5b(dual_perceptron) is dual_perceptron
    solve = lambda K, y, a: np.linalg.solve(K + a * np.eye(len(y)), y)  # noqa: E731
    assert check.nb07_exercise_5c(solve) is solve
    assert check.nb07_exercise_5d(novikoff) is novikoff
    assert capsys.readouterr().out.count("✔") == 4


@pytest.mark.parametrize("question", ["nb07_exercise_5a", "nb07_exercise_5b", "nb07_exercise_5c", "nb07_exercise_5d"])
def test_blank_exercise_falls_back_to_a_working_reference(question, capsys):
    returned = getattr(check, question)(blank)
    assert returned is not blank
    assert "not attempted yet" in capsys.readouterr().out


def test_fallbacks_take_the_notebook_calls():
    """The notebook calls perceptron(X, y) and kernel_perceptron(K, y) without max_epochs (default 100)."""
    X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])
    y = np.array([1.0, 1.0, -1.0, -1.0])  # XOR: cycles, so the default number of epochs shows
    w, alpha = check.nb07_exercise_5a(blank)(X, y)
    assert np.array_equal(alpha, np.full(4, 100.0)) and np.allclose(w, 0)
    assert np.array_equal(check.nb07_exercise_5b(blank)(X @ X.T, y), np.full(4, 100.0))


def test_near_misses_are_caught(capsys):
    assert check.nb07_exercise_5a(primal_with_strict_inequality) is not primal_with_strict_inequality
    forgot_a = lambda K, y, a: np.linalg.solve(K, y) if a == 0 else np.linalg.solve(K + np.eye(len(y)), y)  # noqa
    assert check.nb07_exercise_5c(forgot_a) is not forgot_a
    out = capsys.readouterr().out
    assert out.count("✘") == 2 and "Hint" in out

"""The exercise checks of notebook 07: the reference passes, a blank falls back, a near miss is caught."""

import numpy as np
import pytest

from checking import blank, worked_reasoning_opens_only_after_a_pass
from kgslab import check, perceptron
from written_out import written_out  # noqa: E402


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


def novikoff(K, y, a, alpha=None):
    K_tilde = K + a * np.eye(len(y))
    if alpha is None:
        alpha = np.linalg.solve(K_tilde, y)
    margin = np.min(y * (K_tilde @ alpha))
    norm_w2 = alpha @ K_tilde @ alpha
    R2 = np.max(np.diag(K_tilde))
    return margin, norm_w2, R2, R2 * norm_w2 / margin**2


def test_written_solutions_pass(capsys):
    assert check.nb07_exercise_5a(lambda *a, **k: written_out(perceptron.perceptron)(*a, **k)).__name__ == '<lambda>'
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


def test_the_strict_test_is_named(capsys):
    """`< 0` for `<= 0` makes no update: its ✘ says so, not 'off by one constant factor, about 0' (issue 44)."""
    assert check.nb07_exercise_5a(primal_with_strict_inequality) is not primal_with_strict_inequality
    out = capsys.readouterr().out
    assert "made no update at all" in out and "constant factor" not in out

    def dual_strict(K, y, max_epochs=100):
        alpha = np.zeros(len(y))
        for _ in range(max_epochs):
            for j in range(len(y)):
                if y[j] * (K[j] @ (alpha * y)) < 0:
                    alpha[j] += 1
        return alpha

    assert check.nb07_exercise_5b(dual_strict) is not dual_strict
    out = capsys.readouterr().out
    assert "made no update at all" in out and "constant factor" not in out


def test_near_misses_are_caught(capsys):
    assert check.nb07_exercise_5a(primal_with_strict_inequality) is not primal_with_strict_inequality
    forgot_a = lambda K, y, a: np.linalg.solve(K, y) if a == 0 else np.linalg.solve(K + np.eye(len(y)), y)  # noqa
    assert check.nb07_exercise_5c(forgot_a) is not forgot_a
    out = capsys.readouterr().out
    assert out.count("✘") == 2 and "Hint" in out


# ---- issue 16: hints in tiers, and answers of the exam that are not the exam's ----------------------

def worst_case_bound(K, y, a, alpha=None):
    """Returns the label-free bound m (1 + a) / a instead of the bound for the w of (c)."""
    margin, norm_w2, R2, _ = novikoff(K, y, a, alpha)
    return margin, norm_w2, R2, len(y) * (1 + a) / a


def geometric_margin_in_place_of_functional(K, y, a, alpha=None):
    margin, norm_w2, R2, bound = novikoff(K, y, a, alpha)
    return margin / np.sqrt(norm_w2), norm_w2, R2, bound


def alpha_as_ones_where_updated(X, y, max_epochs=100):
    """Marks the examples ever updated instead of counting the updates: w is right, alpha is not."""
    w, alpha = written_out(perceptron.perceptron)(X, y, max_epochs=max_epochs)
    return w, (alpha > 0).astype(float)


def endless_kernel_perceptron(K, y, max_epochs=100):
    alpha = np.zeros(len(y))
    while True:                                  # forgot the stopping rule
        for j in range(len(y)):
            if y[j] * (K[j] @ (alpha * y)) <= 0:
                alpha[j] += 1


@pytest.mark.parametrize("question, slip", [
    ("nb07_exercise_5d", worst_case_bound), ("nb07_exercise_5d", geometric_margin_in_place_of_functional),
    ("nb07_exercise_5a", alpha_as_ones_where_updated), ("nb07_exercise_5b", endless_kernel_perceptron),
], ids=["worst-case bound", "geometric margin", "alpha marks instead of counts", "endless loop"])
def test_exam_slips_are_caught(question, slip, capsys, monkeypatch):
    if slip is endless_kernel_perceptron:       # the same stop, one second of spinning, not five
        monkeypatch.setattr("kgslab.check.time_limit.TIME_LIMIT", 1.0)
    assert getattr(check, question)(slip) is not slip
    assert "✘" in capsys.readouterr().out


@pytest.mark.parametrize("question, code", [
    ("nb07_exercise_5a", "alpha[i] += 1"), ("nb07_exercise_5b", "K[j] @ (alpha * y)"),
    ("nb07_exercise_5c", "K + a * np.eye"), ("nb07_exercise_5d", "radius_squared * norm_w_squared"),
])
def test_a_wrong_attempt_gets_the_concept_and_the_code_only_on_request(question, code, capsys, monkeypatch):
    wrong = {"nb07_exercise_5a": alpha_as_ones_where_updated, "nb07_exercise_5b": lambda K, y, max_epochs=100: y * 0,
             "nb07_exercise_5c": lambda K, y, a: np.linalg.solve(K + np.eye(len(y)), y),
             "nb07_exercise_5d": worst_case_bound}[question]
    getattr(check, question)(wrong)
    out = capsys.readouterr().out
    assert "Hint:" in out and f'check.hint("{question}")' in out and code not in out
    check.hint(question)
    assert code in capsys.readouterr().out
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    check.hint(question)
    out = capsys.readouterr().out
    assert "hints are off" in out and code not in out


def test_the_exam_student_copy_names_no_answer():
    """The student copy of 07 states none of the answers the issue found on the page (parts a, c, d)."""
    import re
    from pathlib import Path

    import nbformat
    root = Path(__file__).resolve().parents[2]
    student = nbformat.read(root / "notebooks" / "07_kernel_perceptron.ipynb", as_version=4)
    page = "\n".join(cell.source for cell in student.cells)
    flat = re.sub(r"\s+", "", page)
    for answer in [r"K}+a\mathbf{I}", "K+aI", r"\sqrt{a}", "sqrt(a)", "(1+a)", "m(1+a)/a", "numberofupdates made",
                   "updatecount", "Novikoff", "runsstep2above", "K@(alpha*y)"]:
        assert answer.replace(" ", "") not in flat, answer


def _solve(K, y, a):
    return np.linalg.solve(K + a * np.eye(len(y)), y)


def _primal(X, y, max_epochs=100):
    return written_out(perceptron.perceptron)(X, y, max_epochs=max_epochs)


@pytest.mark.parametrize("part, right, words", [
    ("a", _primal, "scikit-learn's"), ("b", dual_perceptron, "separates what no line can"),
    ("c", _solve, "a regulariser"), ("d", novikoff, "never exceeds the bound")])
def test_the_worked_reasoning_opens_only_after_the_students_own_pass(part, right, words, capsys, monkeypatch):
    """check.why shows what the solution's experiments found once the student's own function passed, never before;
    it is no written answer of (a)-(d) (those are graded by hand): no induction, no invertibility, no theorem."""
    worked = worked_reasoning_opens_only_after_a_pass(f"nb07_exercise_5{part}", right, (blank,), capsys, monkeypatch,
                                                      words=words)
    for written in ("induction", "counts the updates", "positive definite", "invertible", "Novikoff",
                    "eigenvalue", "y'\\tilde"):
        assert written not in worked, written

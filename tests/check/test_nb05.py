"""Notebook 05's checks: the adatron (Exercise 6) and tuning C by cross-validation with it.

Written solutions that follow the handout literally (a full gradient every iteration) pass; a blank falls back
to the reference; the usual slips are caught.  The student's `cross_validate_C` calls the student's
`adatron_with_bias` (the handout's algorithm written literally); a correct loop passes, and the usual slips of a
hand-written cross-validation are refused: fitting on every row, forgetting b, the hinge without its max, the
position of the best C instead of its value, an endless loop.
"""

import numpy as np
import pytest

from checking import blank_falls_back, solutions_pass
from kgslab import check
from kgslab.adatron import KernelAdatron
from kgslab.check import nb05_adatron
from kgslab.papers import coursework


def literal_adatron(K, y, C, eta=1.0, tol=0.005, max_iter=None, bias=True, b_with_old_alpha=False,
                    stop_on_tol=True):
    """The handout's algorithms as written: z and g recomputed from scratch every iteration (O(l^2))."""
    l = len(y)
    alpha, b = np.zeros(l), 0.0
    for _ in range(10 * l if max_iter is None else max_iter):
        z = K @ (y * alpha) + b
        g = 1 - y * z
        beta = np.minimum(np.maximum(alpha + eta * g, 0), C)
        i = np.argmax(np.abs(alpha - beta))
        if stop_on_tol and abs(alpha[i] - beta[i]) < tol:
            break
        old = y @ alpha
        alpha[i] = beta[i]
        if bias:
            b += (old if b_with_old_alpha else y @ alpha) / 4
    return (alpha, b) if bias else alpha


def no_bias(K, y, C, eta=1.0, tol=0.005, max_iter=None):
    return literal_adatron(K, y, C, eta, tol, max_iter, bias=False)


def with_bias(K, y, C, eta=1.0, tol=0.005, max_iter=None):
    return literal_adatron(K, y, C, eta, tol, max_iter, bias=True)


def test_literal_solutions_pass(capsys):
    solutions_pass(capsys, nb05_exercise_6_no_bias=no_bias, nb05_exercise_6_with_bias=with_bias)


@pytest.mark.parametrize("exercise", ["nb05_exercise_6_no_bias", "nb05_exercise_6_with_bias"])
def test_blank_falls_back_to_a_working_reference(exercise, capsys):
    returned = blank_falls_back(exercise, capsys)
    # The fallback has the student's signature and works.
    result = returned(np.eye(4), np.array([1.0, -1.0, 1.0, -1.0]), 1.0)
    alpha = result[0] if exercise.endswith("with_bias") else result
    assert np.allclose(alpha, 1.0)


@pytest.mark.parametrize("slip", [
    lambda K, y, C, eta=1.0, tol=0.005, max_iter=None: literal_adatron(K, y, C, eta, tol, max_iter,
                                                                        b_with_old_alpha=True),
    lambda K, y, C, eta=1.0, tol=0.005, max_iter=None: literal_adatron(K, y, C, eta, tol, max_iter,
                                                                        stop_on_tol=False),
    lambda K, y, C, eta=1.0, tol=0.005, max_iter=None: literal_adatron(K, y, C, eta, tol, max_iter)[0],
], ids=["bias from the old alpha", "ignores tol", "returns alpha only"])
def test_adatron_slips_are_caught(slip, capsys):
    assert check.nb05_exercise_6_with_bias(slip) is not slip
    assert "✘" in capsys.readouterr().out


def test_adatron_without_bias_slips_are_caught(capsys):
    def all_coordinates(K, y, C, eta=1.0, tol=0.005, max_iter=None):
        alpha = np.zeros(len(y))
        for _ in range(10 * len(y) if max_iter is None else max_iter):
            beta = np.clip(alpha + eta * (1 - y * (K @ (y * alpha))), 0, C)
            if np.max(np.abs(beta - alpha)) < tol:
                break
            alpha = beta                      # every coordinate at once: a projected gradient step instead
        return alpha

    def bias_left_in(K, y, C, eta=1.0, tol=0.005, max_iter=None):
        return literal_adatron(K, y, C, eta, tol, max_iter, bias=True)[0]

    for slip in (all_coordinates, bias_left_in):
        assert check.nb05_exercise_6_no_bias(slip) is not slip
    assert capsys.readouterr().out.count("✘") == 2


# ---- tuning C by cross-validation ----------------------------------------------------------------

def cross_validate_C(K, y, Cs, folds, fit_on_all=False, with_b=True, hinge_max=True, return_position=False):
    accuracy, hinge = np.zeros(len(Cs)), np.zeros(len(Cs))
    for k, C in enumerate(Cs):
        for fit_rows, held_out in folds:
            if fit_on_all:
                fit_rows = np.arange(len(y))
            alpha, b = with_bias(K[np.ix_(fit_rows, fit_rows)], y[fit_rows], C)
            f = K[np.ix_(held_out, fit_rows)] @ (y[fit_rows] * alpha) + (b if with_b else 0.0)
            accuracy[k] += np.mean(np.where(f >= 0, 1.0, -1.0) == y[held_out]) / len(folds)
            losses = 1.0 - y[held_out] * f
            hinge[k] += np.mean(np.maximum(0.0, losses) if hinge_max else losses) / len(folds)
    best = np.argmin(hinge)
    return accuracy, hinge, (best if return_position else Cs[best])


def test_a_literal_cross_validation_passes(capsys):
    assert check.nb05_exercise_6_cv(cross_validate_C) is cross_validate_C
    assert "✔" in capsys.readouterr().out


@pytest.mark.parametrize("slip", ["fit_on_all", "with_b", "hinge_max", "return_position"])
def test_cross_validation_slips_are_caught(slip, capsys):
    def wrong(K, y, Cs, folds):
        return cross_validate_C(K, y, Cs, folds, **{slip: slip in ("fit_on_all", "return_position")})
    assert check.nb05_exercise_6_cv(wrong) is not wrong
    assert "✘" in capsys.readouterr().out


def test_an_endless_cross_validation_ends_in_a_verdict(capsys, monkeypatch):
    monkeypatch.setattr("kgslab.check.time_limit.TIME_LIMIT", 0.5)

    def endless(K, y, Cs, folds):
        while True:
            cross_validate_C(K, y, Cs[:1], folds[:1])

    assert check.nb05_exercise_6_cv(endless) is not endless
    assert "time limit" in capsys.readouterr().out


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")   # C = 0.01 runs to max_iter
def test_the_reference_agrees_with_scikit_learn_on_the_same_folds():
    """An independent peer: GridSearchCV over the kit's KernelAdatron, accuracy and hinge loss on the same folds."""
    from sklearn.metrics import hinge_loss, make_scorer
    from sklearn.model_selection import GridSearchCV

    for case in nb05_adatron._cv_cases():
        K, y, Cs, folds = case.args
        accuracy, hinge, best_C = coursework.cross_validate_C(K, y, Cs, folds)
        search = GridSearchCV(KernelAdatron(kernel="precomputed"), {"C": Cs}, cv=folds, refit=False,
                              scoring={"accuracy": "accuracy", "hinge": make_scorer(
                                  hinge_loss, greater_is_better=False, response_method="decision_function")})
        search.fit(K, y)
        np.testing.assert_allclose(accuracy, search.cv_results_["mean_test_accuracy"], atol=1e-12)
        np.testing.assert_allclose(hinge, -search.cv_results_["mean_test_hinge"], rtol=1e-9)
        assert best_C == Cs[np.argmin(hinge)]
        # and the cases are not degenerate: the scores move with C
        assert np.ptp(hinge) > 0.01

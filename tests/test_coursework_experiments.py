"""The coursework's experiments done by the student: the references and the checks that judge them.

The references (`kgslab.papers.coursework`) are compared with independent computations (scikit-learn's Ridge,
LinearRegression, KernelRidge with cross_val_score, the kit's one-gamma `cv_error` and scipy's Gaussian
density; cross_validate_C in tests/test_nb05_cv_check.py).  Each check is then
fed the student's usual mistakes, which must never earn a tick and should be named in words.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import LinearRegression, Ridge
from scipy.stats import multivariate_normal
from sklearn.model_selection import KFold, cross_val_score

from kgslab import check, data, regression
from kgslab.kernels import rbf_kernel
from kgslab.papers import coursework
from written_out import written_out

GAMMAS = 10.0 ** np.arange(-6, 4)


def verdict(exercise, student, capsys):
    """(True when the check adopted the student's function, what it printed)."""
    result = exercise(student)
    return result is student, capsys.readouterr().out


# ---- the references against independent computations --------------------------------------------------

def test_noise_study_is_the_mean_over_draws_of_sklearn_ridge():
    levels, train, test = coursework.noise_study(GAMMAS[::3], 12, n_draws=3, seed=5, noise_levels=[0.2, 4.0])
    rng = np.random.default_rng(5)
    want = np.zeros((2, 2, 4))
    for row, noise in enumerate([0.2, 4.0]):
        for _ in range(3):
            X, y, _ = data.linear_data(n=112, d=10, noise=noise, random_state=rng)
            for column, gamma in enumerate(GAMMAS[::3]):
                model = Ridge(alpha=gamma * 12, fit_intercept=False, solver="cholesky").fit(X[:12], y[:12])
                want[0, row, column] += np.mean((model.predict(X[:12]) - y[:12]) ** 2) / 3
                want[1, row, column] += np.mean((model.predict(X[12:]) - y[12:]) ** 2) / 3
    assert np.array_equal(levels, [0.2, 4.0])
    np.testing.assert_allclose(train, want[0], rtol=1e-6, atol=1e-10)
    np.testing.assert_allclose(test, want[1], rtol=1e-6)


def test_noise_study_shows_the_effect_the_notebook_asks_about():
    """Few points, high noise: a moderate gamma beats least squares by far; low noise: it does not."""
    _, _, test = coursework.noise_study(GAMMAS, 15, n_draws=30, seed=1, noise_levels=[0.1, 10.0])
    assert test[1].min() < 0.5 * test[1, 0]           # high noise: regularisation more than halves the error
    assert test[0].min() > 0.9 * test[0, 0]           # low noise: it gains under 10%


def test_linear_table_starts_with_least_squares_as_sklearn_fits_it():
    X, y = data.sinc_data(60, random_state=3)
    gammas, errors = coursework.linear_regression_table(X[:30], y[:30], X[30:], y[30:])
    line = LinearRegression().fit(X[:30], y[:30])
    assert gammas[0] == 0 and errors.shape == (len(gammas), 2)
    np.testing.assert_allclose(errors[0], [np.mean((line.predict(X[:30]) - y[:30]) ** 2),
                                           np.mean((line.predict(X[30:]) - y[30:]) ** 2)], rtol=1e-8)


@pytest.mark.parametrize("L, n_folds, seed", [(0.5, 5, 0), (1.5, 3, 2)])
def test_tune_gamma_is_sklearn_cross_validation_of_kernel_ridge(L, n_folds, seed):
    X, y = data.sinc_data(30, random_state=7)         # 30 points: equal folds for 3 and for 5
    gammas = np.logspace(-5, 0, 6)
    best, errors = coursework.tune_gamma(X, y, L, gammas, n_folds, seed)
    folds = KFold(n_folds, shuffle=True, random_state=seed)
    want = []
    for gamma in gammas:
        alphas = [gamma * len(train) for train, _ in folds.split(X)]
        assert len(set(alphas)) == 1                          # equal folds here: one alpha for sklearn
        scores = cross_val_score(KernelRidge(kernel="precomputed", alpha=alphas[0]), rbf_kernel(X, L=L), y,
                                 cv=folds, scoring="neg_mean_squared_error")
        want.append(-scores.mean())
    np.testing.assert_allclose(errors, want, rtol=1e-7)
    np.testing.assert_allclose(errors, [written_out(regression.cv_error)(X, y, L, g, n_folds, seed) for g in gammas], rtol=1e-8)
    assert best == gammas[np.argmin(want)]


def test_tune_width_and_gamma_is_tune_gamma_row_by_row():
    X, y = data.sinc_data(30, random_state=8)
    widths, gammas = np.array([0.3, 1.0, 2.5]), np.logspace(-4, 0, 4)
    best_L, best_gamma, cv_map = coursework.tune_width_and_gamma(X, y, widths, gammas)
    assert cv_map.shape == (3, 4)
    for row, width in enumerate(widths):
        np.testing.assert_array_equal(cv_map[row], coursework.tune_gamma(X, y, width, gammas)[1])
    assert cv_map[list(widths).index(best_L), list(gammas).index(best_gamma)] == cv_map.min()


def gaussian_log_density(K, y, sigma2):
    """ln N(y; 0, K + sigma2 I) by scipy: eq. (16) from an independent implementation."""
    return multivariate_normal(mean=np.zeros(len(y)), cov=K + sigma2 * np.eye(len(y))).logpdf(y)


def test_evidence_curve_is_scipys_gaussian_density_and_its_argmax():
    X, y = data.sinc_data(25, random_state=3)
    K, sigma2s = rbf_kernel(X, L=0.7), np.logspace(-3, 0.5, 8)
    curve, best = coursework.evidence_curve(K, y, sigma2s)
    expected = [gaussian_log_density(K, y, sigma2) for sigma2 in sigma2s]
    np.testing.assert_allclose(curve, expected, rtol=1e-9)
    assert best == sigma2s[np.argmax(expected)] and 0 < np.argmax(expected) < len(sigma2s) - 1   # an inner optimum


def test_evidence_over_widths_is_scipys_gaussian_density_and_its_argmax():
    X, y = data.sinc_data(25, random_state=4)
    widths = np.array([0.05, 0.3, 1.0, 5.0])
    curve, best = coursework.evidence_over_widths(X, y, 0.05, widths)
    expected = [gaussian_log_density(rbf_kernel(X, L=width), y, 0.05) for width in widths]
    np.testing.assert_allclose(curve, expected, rtol=1e-9)
    assert best == widths[np.argmax(expected)]


@pytest.mark.parametrize("call, words", [
    (lambda: coursework.evidence_curve(np.eye(3), np.ones(3), [0.1, 0.0]), "sigma2s must all be > 0"),
    (lambda: coursework.evidence_over_widths(np.zeros((3, 1)), np.ones(3), 0.1, [-1.0]), "widths must all be > 0"),
    (lambda: coursework.cross_validate_C(np.eye(4), [1, -1, 1, -1], [1.0], "folds"), "folds must be a non-empty"),
    (lambda: coursework.cross_validate_C(np.eye(4), [1, -1, 1, -1], [1.0], [([0, 1], [5])]), r"folds\[0\] must hold"),
    (lambda: coursework.cross_validate_C(np.eye(4), [1, -1, 1, -1], [1.0], [([0, 2], [1, 3])]),
     r"folds\[0\]'s fit rows must hold both classes"),
    (lambda: coursework.noise_study([-1.0], 10), "gammas must all be >= 0"),
    (lambda: coursework.noise_study(GAMMAS, 0), "n_train must be >= 1"),
    (lambda: coursework.noise_study(GAMMAS, 10, noise_levels=[np.nan]), "noise_levels must contain only finite"),
    (lambda: coursework.tune_gamma(np.zeros((5, 1)), np.zeros(5), 0.5, [0.1], n_folds=6), "n_folds must be at most"),
    (lambda: coursework.tune_gamma(np.zeros((5, 1)), np.zeros(5), 0.0, [0.1]), "L must be > 0"),
    (lambda: coursework.tune_width_and_gamma(np.zeros((5, 1)), np.zeros(5), [0.0], [0.1]), "widths must all be > 0"),
])
def test_bad_input_names_the_argument(call, words):
    with pytest.raises((TypeError, ValueError), match=words):
        call()


# ---- the student's functions, as the notebooks' solutions write them ----------------------------------

def ridge_errors(X_train, y_train, X_test, y_test, gammas):
    return written_out(regression.ridge_errors)(X_train, y_train, X_test, y_test, gammas)


def noise_study(gammas, n_train, n_draws=30, seed=0, levels=(0.1, 1.0, 3.0, 10.0), order="levels first",
                scale=1.0):
    generator = np.random.default_rng(seed)
    levels = np.array(levels)
    train, test = np.zeros((len(levels), len(gammas))), np.zeros((len(levels), len(gammas)))
    pairs = [(row, draw) for row in range(len(levels)) for draw in range(n_draws)]
    if order == "draws first":
        pairs.sort(key=lambda pair: pair[1])
    for row, _ in pairs:
        X, y, _ = data.linear_data(n=n_train + 100, d=10, noise=levels[row], random_state=generator)
        errors = ridge_errors(X[:n_train], y[:n_train], X[n_train:], y[n_train:], gammas)
        train[row] += scale * errors[0] / n_draws
        test[row] += scale * errors[1] / n_draws
    return levels, train, test


def test_the_noise_study_passes_at_the_students_own_levels(capsys):
    for levels in [(0.1, 1.0, 3.0, 10.0), (0.3, 2.0, 5.0), (0.05, 0.5, 1.0, 4.0, 20.0)]:
        passed, out = verdict(check.nb01_exercise_1_noise,
                              lambda g, n, n_draws=30, seed=0, levels=levels: noise_study(g, n, n_draws, seed, levels),
                              capsys)
        assert passed, out


@pytest.mark.parametrize("mistake, words", [
    (lambda g, n, n_draws=30, seed=0: noise_study(g, n, n_draws, seed, levels=(0.5, 1.0, 2.0)), "do not reach"),
    (lambda g, n, n_draws=30, seed=0: noise_study(g, n, n_draws, seed, levels=(0.1, 10.0)), "at least three"),
    (lambda g, n, n_draws=30, seed=0: noise_study(g, n, n_draws, seed, levels=(10.0, 1.0, 0.1)), "increasing"),
    (lambda g, n, n_draws=30, seed=0: noise_study(g, n, n_draws, seed, scale=n_draws), "factor close to 4"),
    (lambda g, n, n_draws=30, seed=0: noise_study(g, n, n_draws, seed, order="draws first"), "another order"),
    (lambda g, n, n_draws=30, seed=0: (lambda r: (r[0], r[2], r[1]))(noise_study(g, n, n_draws, seed)), "swapped"),
    (lambda g, n, n_draws=30, seed=0: noise_study(g, n, n_draws, seed + 1), "one generator"),
    (lambda g, n, n_draws=30, seed=0: noise_study(g, n, 30, seed), "differ"),       # ignores n_draws
    (lambda g, n, n_draws=30, seed=0: (np.array([0.1, 1.0, 3.0, 10.0]),) + noise_study(g, n, n_draws, seed,
                                                                                     levels=(0.2, 1, 3, 10))[1:],
     "differ"),                                                                    # claims other levels
    (lambda g, n, n_draws=30, seed=0: tuple(np.asarray(part).tolist() for part in noise_study(g, n, n_draws, seed)),
     "numpy array"),
    (lambda g, n, n_draws=30, seed=0: noise_study(g, n, n_draws, seed)[1:], "tuple of 3"),
])
def test_the_noise_study_refuses_typical_mistakes_and_names_them(mistake, words, capsys):
    passed, out = verdict(check.nb01_exercise_1_noise, mistake, capsys)
    assert not passed and words in out, out
    assert "np.random.default_rng(seed)" not in out and "For a code-level hint" in out


def test_a_hard_coded_study_from_the_notebook_run_is_refused(capsys):
    stored = noise_study(GAMMAS, 15, 30, 15)                   # what the notebook's cell computes
    passed, out = verdict(check.nb01_exercise_1_noise, lambda *args, **kwargs: stored, capsys)
    assert not passed


@pytest.mark.parametrize("name", ["nb01_exercise_1_noise", "nb02_exercise_2_table", "nb02_exercise_3a_tune_gamma",
                                  "nb02_exercise_3a_tune_width"])
def test_an_endless_experiment_ends_in_a_verdict(name, capsys, monkeypatch):
    monkeypatch.setattr(check.core, "TIME_LIMIT", 0.5)

    def endless(*args, **kwargs):
        while True:
            pass
    passed, out = verdict(check.exercises()[name], endless, capsys)
    assert not passed and "time limit" in out


@pytest.mark.parametrize("exercise, mistake, words", [
    ("nb01_exercise_1_primal", lambda X, y, g: written_out(regression.ridge)(X, y, g / len(y)), "without the factor l"),
    ("nb01_exercise_1_dual", lambda X, y, g: written_out(regression.ridge_dual)(X, y, g / len(y)), "without the factor l"),
    ("nb02_exercise_3a", lambda K, y, g: written_out(regression.kernel_ridge)(K, y, g / len(y)), "without the factor l"),
    ("nb01_exercise_1_errors", lambda *a: written_out(regression.ridge_errors)(*a)[::-1], "swapped"),
    ("nb01_exercise_1_errors", lambda *a: tuple(20 * e for e in written_out(regression.ridge_errors)(*a)), "factor close to 20"),
    ("nb02_exercise_2", lambda *a: written_out(regression.linear_fit_errors)(*a)[::-1], "swapped"),
    ("nb02_exercise_2", lambda Xa, ya, Xb, yb, g: tuple(
        np.mean((y - X @ written_out(regression.ridge)(Xa, ya, g)) ** 2) for X, y in ((Xa, ya), (Xb, yb))), "no intercept"),
    ("nb02_exercise_3a_cv", lambda X, y, L, g, n_folds=5, random_state=0: float(np.mean([
        np.mean((y[h] - rbf_kernel(X[h], X[t], L=L) @ written_out(regression.kernel_ridge)(rbf_kernel(X[t], L=L), y[t], g)) ** 2)
        for t, h in KFold(n_folds).split(X)])), "not shuffled"),
    ("nb02_exercise_3a_cv", lambda X, y, L, g, n_folds=5, random_state=0: float(np.mean([
        np.mean((y[h] - rbf_kernel(X[h], X[t], L=L) @ written_out(regression.kernel_ridge)(
            rbf_kernel(X[t], L=L), y[t], g * len(y) / len(t))) ** 2)
        for t, h in KFold(n_folds, shuffle=True, random_state=random_state).split(X)])), "uses all the points"),
    ("nb02_exercise_3a_cv", lambda *a, **k: k.get("n_folds", 5) * written_out(regression.cv_error)(*a, **k), "number of folds"),
])
def test_solver_and_error_checks_name_the_mistake(exercise, mistake, words, capsys):
    passed, out = verdict(check.exercises()[exercise], mistake, capsys)
    assert not passed and words in out, out


def linear_table(X_train, y_train, X_test, y_test, gammas=(0.0, 1e-3, 1e-1, 10.0)):
    gammas = np.array(gammas)
    return gammas, np.array([written_out(regression.linear_fit_errors)(X_train, y_train, X_test, y_test, g) for g in gammas])


def test_the_table_passes_with_the_students_own_gammas(capsys):
    for gammas in [(0.0, 1e-3, 1e-1, 10.0), (0.0, 1e-6, 1e-4, 1e-2, 1.0, 100.0)]:
        passed, out = verdict(check.nb02_exercise_2_table, lambda *a, gammas=gammas: linear_table(*a, gammas=gammas),
                              capsys)
        assert passed, out


@pytest.mark.parametrize("mistake, words", [
    (lambda *a: (linear_table(*a)[0], linear_table(*a)[1].T), "transposed"),
    (lambda *a: (linear_table(*a)[0], linear_table(*a)[1][:, ::-1]), "columns are swapped"),
    (lambda *a: linear_table(*a, gammas=(1e-3, 1e-1, 10.0, 100.0)), "least squares first"),
    (lambda *a: linear_table(*a, gammas=(0.0, 1.0, 2.0, 5.0)), "two powers of ten"),
    (lambda *a: linear_table(*a, gammas=(0.0, 10.0, 1e-1, 1e-3)), "increasing"),
    (lambda *a: (linear_table(*a)[0], linear_table(*a, gammas=(0.0, 1e-3, 1e-1, 1.0))[1]), "differ"),
])
def test_the_table_refuses_typical_mistakes(mistake, words, capsys):
    passed, out = verdict(check.nb02_exercise_2_table, mistake, capsys)
    assert not passed and words in out, out


def tune_gamma(X, y, L, gammas, n_folds=5, random_state=0):
    errors = np.array([written_out(regression.cv_error)(X, y, L, g, n_folds, random_state) for g in gammas])
    return gammas[np.argmin(errors)], errors


def tune_width(X, y, widths, gammas, n_folds=5, random_state=0):
    cv_map = np.array([tune_gamma(X, y, width, gammas, n_folds, random_state)[1] for width in widths])
    row, column = np.unravel_index(np.argmin(cv_map), cv_map.shape)
    return widths[row], gammas[column], cv_map


@pytest.mark.parametrize("exercise, student, words", [
    ("nb02_exercise_3a_tune_gamma", tune_gamma, None),
    ("nb02_exercise_3a_tune_gamma", lambda X, y, L, g, n_folds=5, random_state=0: (
        g[np.argmax(tune_gamma(X, y, L, g, n_folds, random_state)[1])], tune_gamma(X, y, L, g, n_folds, random_state)[1]),
     "largest CV error"),
    ("nb02_exercise_3a_tune_gamma", lambda X, y, L, g, n_folds=5, random_state=0: (
        float(np.argmin(tune_gamma(X, y, L, g, n_folds, random_state)[1])), tune_gamma(X, y, L, g, n_folds, random_state)[1]),
     "position"),
    ("nb02_exercise_3a_tune_gamma", lambda X, y, L, g, n_folds=5, random_state=0: tune_gamma(X, y, L, g), "differ"),
    ("nb02_exercise_3a_tune_gamma", lambda X, y, L, g, n_folds=5, random_state=0: tune_gamma(
        X, y, L, np.sort(g), n_folds, random_state), "differ"),                    # sorts the student's grid
    ("nb02_exercise_3a_tune_width", tune_width, None),
    ("nb02_exercise_3a_tune_width", lambda *a, **k: (lambda r: (r[0], r[1], r[2].T))(tune_width(*a, **k)),
     "transposed"),
    ("nb02_exercise_3a_tune_width", lambda *a, **k: (lambda r: (r[1], r[0], r[2]))(tune_width(*a, **k)), "swapped"),
])
def test_the_tuning_checks(exercise, student, words, capsys):
    passed, out = verdict(check.exercises()[exercise], student, capsys)
    if words is None:
        assert passed, out
    else:
        assert not passed and words in out, out


@pytest.mark.parametrize("name", ["nb01_exercise_1_noise", "nb02_exercise_2_table", "nb02_exercise_3a_tune_gamma",
                                  "nb02_exercise_3a_tune_width"])
def test_code_hints_come_on_request_only(name, capsys, monkeypatch):
    check.hint(name)
    assert "code-level hint" in capsys.readouterr().out
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    check.hint(name)
    assert "hints are off" in capsys.readouterr().out

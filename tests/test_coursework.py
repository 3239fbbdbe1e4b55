"""The coursework's experiments (`kgslab.papers.coursework`) against independent computations.

scikit-learn's Ridge, LinearRegression, KernelRidge with cross_val_score, the kit's one-gamma `cv_error` and
scipy's Gaussian density; cross_validate_C in tests/check/test_nb05.py, Exercise 7's experiments in
tests/check/test_nb06.py (beside their checks).  The checks that use them as references: tests/check/.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import LinearRegression, Ridge
from scipy.stats import multivariate_normal
from sklearn.model_selection import KFold, cross_val_score

from kgslab import data, regression
from kgslab.kernels import rbf_kernel
from kgslab.papers import coursework
from written_out import written_out

GAMMAS = 10.0 ** np.arange(-6, 4)


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

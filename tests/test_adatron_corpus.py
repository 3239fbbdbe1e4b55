"""The kernel adatron on the coursework task (Exercise 6): English against French with the 2-mer kernel.

Independent reference: scikit-learn's SVC (libsvm) on the same normalised
kernel.  The adatron with bias is a heuristic for the same soft-margin
problem, so on held-out articles the two must agree, and its dual objective
must come close to libsvm's optimum.  Without bias the adatron solves the box
QP (22), which drops SVC's constraint y'alpha = 0: its optimum can only be
higher.
"""

import numpy as np
import pytest
from sklearn.model_selection import GroupKFold, cross_val_score
from sklearn.svm import SVC

from kgslab import data
from kgslab.adatron import KernelAdatron, dual_objective
from kgslab.adatron import kernel_adatron
from kgslab.kernels import normalise


@pytest.fixture(scope="module")
def english_french():
    """Normalised 2-mer kernel of the 390 English and French articles, split by article (2/3 train)."""
    K = normalise(data.load_kernels().K_2mer[:390, :390])
    y = np.r_[-np.ones(195), np.ones(195)]               # english -1, french +1
    articles = np.random.default_rng(0).permutation(195)
    train_articles, test_articles = np.sort(articles[:130]), np.sort(articles[130:])
    train = np.r_[train_articles, train_articles + 195]  # an article and its translation stay together
    test = np.r_[test_articles, test_articles + 195]
    return K, y, train, test, np.r_[train_articles, train_articles]


def _svc_alpha(svc, n):
    alpha = np.zeros(n)
    alpha[svc.support_] = np.abs(svc.dual_coef_[0])
    return alpha


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_predictions_agree_with_svc_on_held_out_articles(english_french, C):
    K, y, train, test, _ = english_french
    K_train, K_test = K[np.ix_(train, train)], K[np.ix_(test, train)]
    ours = KernelAdatron(C=C, eta=1.0).fit(K_train, y[train])
    svc = SVC(kernel="precomputed", C=C).fit(K_train, y[train])
    assert np.mean(ours.predict(K_test) == svc.predict(K_test)) >= 0.99
    assert ours.score(K_test, y[test]) >= 0.98 and svc.score(K_test, y[test]) >= 0.98
    # The two decision functions are close, not merely of the same sign.
    ours_f, svc_f = ours.decision_function(K_test), svc.decision_function(K_test)
    assert np.corrcoef(ours_f, svc_f)[0, 1] > 0.99
    # Dual objectives: adatron (tol 0.005) just below libsvm's optimum, and y'alpha close to 0.
    svc_value = dual_objective(K_train, y[train], _svc_alpha(svc, len(train)))
    ours_value = dual_objective(K_train, y[train], ours.alpha_)
    assert ours_value == pytest.approx(svc_value, rel=2e-3)
    assert abs(y[train] @ ours.alpha_) < 0.05 * ours.alpha_.sum()


def test_without_bias_the_box_optimum_is_at_least_the_svc_optimum(english_french):
    K, y, train, _, _ = english_french
    K_train, y_train = K[np.ix_(train, train)], y[train]
    svc = SVC(kernel="precomputed", C=1.0, tol=1e-6).fit(K_train, y_train)
    svc_value = dual_objective(K_train, y_train, _svc_alpha(svc, len(train)))
    alpha, b, _, objective = kernel_adatron(K_train, y_train, C=1.0, tol=1e-6, max_iter=20_000, bias=False)
    assert b == 0.0
    assert objective[-1] >= svc_value - 1e-6
    # Monotone ascent: eta = 1 on a normalised kernel is the exact maximiser along each coordinate.
    assert np.all(np.diff(objective) >= -1e-12)


def test_grouped_cross_validation_on_the_gram_matrix(english_french):
    # The pairwise tag makes cross-validation slice rows AND columns of the precomputed kernel.
    K, y, train, _, groups = english_french
    scores = cross_val_score(KernelAdatron(C=1.0), K[np.ix_(train, train)], y[train], groups=groups,
                             cv=GroupKFold(5))
    assert scores.shape == (5,) and np.all(scores >= 0.95)


def test_the_unnormalised_kernel_breaks_eta_one(english_french):
    # K_ii of the raw 2-mer kernel is in the hundreds to thousands: eta * g overshoots every coordinate,
    # so the largest change never drops below tol (the handout's eta = 1 presumes a normalised kernel).
    _, y, train, _, _ = english_french
    raw = data.load_kernels().K_2mer[:390, :390][np.ix_(train, train)]
    _, _, n_iter, _ = kernel_adatron(raw, y[train], C=1.0, eta=1.0)
    assert n_iter == 10 * len(train)
    _, _, n_iter_scaled, _ = kernel_adatron(raw, y[train], C=1.0, eta=1.0 / raw.diagonal().max())
    assert n_iter_scaled < n_iter

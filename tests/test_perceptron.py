"""The perceptron of the exam question (seed 004, section 5), primal and dual, and the bound of part (d).

References are independent of the code under test: scikit-learn's Perceptron
(same update rule: y <w, x> <= 0, step 1, no bias, no shuffle), np.linalg on
small systems, brute force over every labelling of a small set, and the KKT
conditions that certify a maximum-margin solution.
"""

import itertools
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Perceptron
from sklearn.model_selection import cross_val_score
from sklearn.utils.estimator_checks import check_estimator

from kgslab.data import separable_data, xor_data
from kgslab.kernels import linear_kernel, rbf_kernel
from kgslab.kernels import normalise
from kgslab.perceptron import (KernelPerceptron, best_novikoff_bound, kernel_perceptron,
                               novikoff_bound, perceptron, separating_alpha)


def noisy_linear(m=40, d=4, seed=0):
    """A linear problem with label noise, so some runs converge and some do not."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    y = np.where(X @ rng.normal(size=d) + 0.5 * rng.normal(size=m) > 0, 1.0, -1.0)
    return X, y


# ---- part (a): the primal perceptron and w = sum alpha_i y_i x_i ----------------------------------

@pytest.mark.parametrize("epochs", [1, 3, 50])
def test_primal_perceptron_matches_sklearn(epochs):
    X, y = noisy_linear(seed=1)
    w, alpha = perceptron(X, y, max_epochs=epochs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        peer = Perceptron(fit_intercept=False, shuffle=False, max_iter=epochs, tol=None, eta0=1.0,
                          penalty=None).fit(X, y)
    np.testing.assert_allclose(w, peer.coef_.ravel(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shuffle", [False, True])
def test_w_is_the_update_counts_times_labels_times_points(shuffle):
    X, y = noisy_linear(seed=2)
    w, alpha = perceptron(X, y, max_epochs=7, shuffle=shuffle, random_state=3)
    assert np.all(alpha >= 0) and np.all(alpha == np.round(alpha)) and alpha.sum() > 0
    np.testing.assert_allclose(w, X.T @ (alpha * y), atol=1e-12)


# ---- part (b): the dual perceptron gives the primal's decisions ---------------------------------

@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("epochs", [1, 4, 200])
def test_dual_decision_values_equal_primal_on_linear_kernel(shuffle, epochs):
    X, y = noisy_linear(seed=4)
    X_test = np.random.default_rng(5).normal(size=(25, X.shape[1]))
    w, alpha_primal = perceptron(X, y, max_epochs=epochs, shuffle=shuffle, random_state=6)
    run = kernel_perceptron(linear_kernel(X), y, max_epochs=epochs, shuffle=shuffle, random_state=6)
    np.testing.assert_array_equal(run.alpha, alpha_primal)
    np.testing.assert_allclose(linear_kernel(X_test, X) @ (run.alpha * y), X_test @ w, rtol=1e-10, atol=1e-10)


def test_run_bookkeeping_is_consistent():
    X, y = noisy_linear(seed=7)
    run = kernel_perceptron(linear_kernel(X), y, max_epochs=30)
    assert run.n_updates == run.alpha.sum() == run.mistakes_per_epoch.sum()
    assert run.alpha_history.shape == (run.n_epochs, len(y))
    np.testing.assert_array_equal(run.alpha_history[-1], run.alpha)
    np.testing.assert_array_equal(np.diff(run.alpha_history, axis=0).sum(axis=1), run.mistakes_per_epoch[1:])
    assert run.converged == (run.mistakes_per_epoch[-1] == 0)


def test_separable_data_converge_with_every_training_point_correct():
    X, y = xor_data(60, noise=0.2, random_state=0)
    K = rbf_kernel(X, L=0.7)
    run = kernel_perceptron(K, y)
    assert run.converged
    assert np.all(y * (K @ (run.alpha * y)) > 0)


# ---- part (c): K + aI makes every labelling separable --------------------------------------------

def test_plain_perceptron_cycles_on_xor_and_modified_one_converges():
    X, y = xor_data(4, noise=0.0)  # the four corners: no line through the origin separates them
    K = normalise(linear_kernel(X))
    plain = kernel_perceptron(K, y, max_epochs=20)
    assert not plain.converged and np.all(plain.mistakes_per_epoch > 0)
    # w at the end of each epoch, as decision values on the training set: the same state recurs (a cycle)
    states = (K @ (plain.alpha_history * y).T).T
    assert np.allclose(states[5], states[6]) or np.allclose(states[5], states[7])
    modified = kernel_perceptron(K, y, a=0.5, max_epochs=20)
    assert modified.converged


def test_every_labelling_of_distinct_points_converges_with_a_positive():
    X = np.random.default_rng(8).normal(size=(8, 2))
    K = normalise(linear_kernel(X))  # rank 2: most labellings of 8 points are not separable
    a = 0.05
    inseparable = 0
    for signs in itertools.product([-1.0, 1.0], repeat=8):
        y = np.array(signs)
        if len(set(signs)) < 2:
            continue
        run = kernel_perceptron(K, y, a=a, max_epochs=100_000)
        assert run.converged
        inseparable += not kernel_perceptron(K, y, max_epochs=30).converged
    assert inseparable > 100  # the check above was not vacuous


@pytest.mark.parametrize("a", [0.01, 0.3, 2.0])
def test_separating_alpha_solves_the_system_and_classifies_all_points(a):
    X, _ = noisy_linear(m=30, seed=9)
    y = np.random.default_rng(10).choice([-1.0, 1.0], size=30)
    K = normalise(rbf_kernel(X, L=2.0))
    alpha = separating_alpha(K, y, a)
    np.testing.assert_allclose(alpha, np.linalg.solve(K + a * np.eye(30), y), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(y * ((K + a * np.eye(30)) @ alpha), 1.0, atol=1e-8)


# ---- part (d): the functional margin and Novikoff's bound ------------------------------------

@pytest.mark.parametrize("a", [0.02, 0.2, 1.0, 5.0])
def test_bound_of_part_d(a):
    X, _ = noisy_linear(m=30, seed=11)
    y = np.random.default_rng(12).choice([-1.0, 1.0], size=30)
    K = normalise(linear_kernel(X))
    result = novikoff_bound(K, y, a)
    K_tilde = K + a * np.eye(30)
    assert result.functional_margin == pytest.approx(1.0, abs=1e-9)
    assert result.radius_squared == pytest.approx(1.0 + a)
    assert result.norm_w_squared == pytest.approx(y @ np.linalg.inv(K_tilde) @ y, rel=1e-9)
    assert result.bound == pytest.approx((1 + a) * (y @ np.linalg.inv(K_tilde) @ y), rel=1e-9)
    assert result.bound <= result.worst_case_bound == pytest.approx(30 * (1 + a) / a)


@pytest.mark.parametrize("kernel", ["cosine", "rbf"])
@pytest.mark.parametrize("a", [0.01, 0.1, 1.0, 10.0])
def test_measured_updates_never_exceed_the_bound(kernel, a):
    X, y = xor_data(40, noise=0.5, random_state=13)
    K = normalise(linear_kernel(X)) if kernel == "cosine" else rbf_kernel(X, L=0.5)
    interpolating = novikoff_bound(K, y, a)
    best = best_novikoff_bound(K, y, a)
    assert best.bound <= interpolating.bound * (1 + 1e-9) <= interpolating.worst_case_bound * (1 + 1e-9)
    for seed in range(5):
        run = kernel_perceptron(K, y, a=a, max_epochs=100_000, shuffle=seed > 0, random_state=seed)
        assert run.converged
        assert run.n_updates <= best.bound


def test_best_bound_is_a_maximum_margin_solution():
    """KKT conditions certify the optimum of min ||w||^2 s.t. y_j <w, phi(x_j)> >= 1."""
    X, y = xor_data(30, noise=0.3, random_state=14)
    K = rbf_kernel(X, L=0.8)
    a = 0.1
    K_tilde = K + a * np.eye(30)
    result = best_novikoff_bound(K, y, a)
    beta = result.alpha * y
    margins = y * (K_tilde @ result.alpha)
    assert np.all(beta >= -1e-12)
    assert np.all(margins >= 1 - 1e-7)
    assert np.all(np.abs(beta * (margins - 1)) < 1e-7)  # complementary slackness
    assert np.sum(beta > 1e-9) < 30  # some points are not support vectors: the bound is tighter
    assert result.functional_margin == pytest.approx(1.0, abs=1e-7)
    assert result.norm_w_squared < novikoff_bound(K, y, a).norm_w_squared


def test_bound_at_a_zero_for_a_nonsingular_kernel_and_error_for_a_singular_one():
    X, y = xor_data(12, noise=0.3, random_state=15)
    assert np.isfinite(novikoff_bound(rbf_kernel(X, L=0.5), y, 0.0).bound)
    with pytest.raises(ValueError, match="a > 0"):
        novikoff_bound(np.ones((12, 12)), y, 0.0)


# ---- the estimator ---------------------------------------------------------------------------

@pytest.mark.parametrize("kernel", ["precomputed", "rbf", "linear"])
def test_passes_check_estimator(kernel):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check_estimator(KernelPerceptron(kernel=kernel, max_epochs=50))


def test_estimator_trains_on_k_plus_a_i_and_predicts_with_k():
    X, y = xor_data(40, noise=0.6, random_state=16)
    X_test, _ = xor_data(10, noise=0.6, random_state=17)
    K, K_test = rbf_kernel(X, L=0.4), rbf_kernel(X_test, X, L=0.4)
    model = KernelPerceptron(a=0.3).fit(K, y)
    run = kernel_perceptron(K + 0.3 * np.eye(40), y)
    np.testing.assert_array_equal(model.alpha_, run.alpha)
    np.testing.assert_allclose(model.decision_function(K_test), K_test @ (run.alpha * y))
    assert model.converged_ and model.n_updates_ == run.n_updates and model.n_iter_ == run.n_epochs
    on_features = KernelPerceptron(a=0.3, kernel="rbf", L=0.4).fit(X, y)
    np.testing.assert_allclose(on_features.decision_function(X_test), model.decision_function(K_test))


def test_estimator_warns_when_not_separated_and_not_otherwise():
    X, y = xor_data(4, noise=0.0)
    with pytest.warns(ConvergenceWarning, match="did not separate"):
        model = KernelPerceptron(kernel="linear", max_epochs=10).fit(X, y)
    assert not model.converged_ and model.n_iter_ == 10
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        assert KernelPerceptron(kernel="linear", a=0.5, max_epochs=10).fit(X, y).converged_


def test_any_two_labels_and_cross_validation_on_a_gram_matrix():
    X, y = xor_data(60, noise=0.3, random_state=18)
    labels = np.where(y > 0, "same sign", "opposite")
    model = KernelPerceptron(kernel="rbf", L=0.7).fit(X, labels)
    assert set(model.predict(X)) == {"same sign", "opposite"}
    assert np.mean(model.predict(X) == labels) == 1.0
    scores = cross_val_score(KernelPerceptron(), rbf_kernel(X, L=0.7), y, cv=3)
    assert np.mean(scores) > 0.8


# ---- bad input ---------------------------------------------------------------------------------

def test_bad_input_gets_clear_errors():
    X, y = xor_data(8, noise=0.3, random_state=19)
    K = rbf_kernel(X)
    with pytest.raises(ValueError, match=r"'a' parameter of KernelPerceptron must be a float in the range \[0.0"):
        KernelPerceptron(a=-0.1).fit(K, y)
    with pytest.raises(ValueError, match=r"'max_epochs' parameter of KernelPerceptron must be an int in the range \[1"):
        KernelPerceptron(max_epochs=0).fit(K, y)
    # InvalidParameterError is both a ValueError and a TypeError
    with pytest.raises(TypeError, match=r"'max_epochs' parameter of KernelPerceptron must be an int .* Got 2.5"):
        KernelPerceptron(max_epochs=2.5).fit(K, y)
    with pytest.raises(ValueError, match="square kernel matrix"):
        KernelPerceptron().fit(K[:, :5], y)
    with pytest.raises(ValueError, match="8 features"):
        KernelPerceptron().fit(K, y).predict(K[:, :5])
    with pytest.raises(ValueError, match="a must be >= 0"):
        kernel_perceptron(K, y, a=-1.0)
    with pytest.raises(ValueError, match="max_epochs must be >= 1"):
        perceptron(X, y, max_epochs=0)
    with pytest.raises(ValueError, match="y must have one entry per row"):
        kernel_perceptron(K, y[:5])
    with pytest.raises(ValueError, match="a must be > 0"):
        separating_alpha(K, y, 0.0)
    with pytest.raises(ValueError, match="positive semi-definite"):
        novikoff_bound(K - 2 * np.eye(8), y, 0.5)


# ---- the data of notebook 07 -----------------------------------------------------------------

def test_separable_data_has_the_margin_it_promises():
    X, y, u = separable_data(200, d=3, margin=0.25, random_state=20)
    assert X.shape == (200, 3) and set(y) == {-1.0, 1.0}
    assert np.linalg.norm(u) == pytest.approx(1.0)
    assert np.min(y * (X @ u)) >= 0.25 - 1e-12
    assert kernel_perceptron(linear_kernel(X), y).converged


def test_xor_data_is_balanced_and_not_linearly_separable():
    X, y = xor_data(8, noise=0.0)
    np.testing.assert_array_equal(X[:4], X[4:])
    assert np.sum(y > 0) == 4
    X, y = xor_data(101, noise=0.3, random_state=21)
    assert X.shape == (101, 2) and abs(np.sum(y)) <= 1
    assert np.all(np.sign(X[:, 0] * X[:, 1])[np.abs(X).min(axis=1) > 0.9] == y[np.abs(X).min(axis=1) > 0.9])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        assert not KernelPerceptron(kernel="linear", max_epochs=50).fit(X, y).converged_
    with pytest.raises(ValueError, match="noise must be >= 0"):
        xor_data(10, noise=-1.0)


def test_the_bound_of_any_separating_w_is_r2_norm2_over_margin2():
    # Part (d) for a w other than (c)'s: the kernel perceptron's own w on K~, whose margins differ from point to
    # point, against the three numbers computed by hand; a w that does not separate is refused.
    rng = np.random.default_rng(11)
    X = rng.standard_normal((14, 3))
    y = np.where(rng.random(14) < 0.5, -1.0, 1.0)
    K, a = rbf_kernel(X, L=1.0), 0.3
    K_tilde = K + a * np.eye(14)
    alpha = kernel_perceptron(K_tilde, y, max_epochs=1000).alpha * y
    margins = y * (K_tilde @ alpha)
    assert margins.min() > 0 and not np.isclose(margins.min(), 1.0)
    result = novikoff_bound(K, y, a, alpha)
    expected = np.max(np.diag(K_tilde)) * (alpha @ K_tilde @ alpha) / margins.min() ** 2
    assert result.bound == pytest.approx(expected, rel=1e-12)
    assert result.functional_margin == pytest.approx(margins.min(), rel=1e-12)
    with pytest.raises(ValueError, match="alpha must give a w that separates the training set"):
        novikoff_bound(K, y, a, -alpha)

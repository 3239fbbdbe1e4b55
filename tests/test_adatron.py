"""The kernel adatron against an independent optimiser (scipy's L-BFGS-B) and scikit-learn's SVC."""

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import check_estimator

from kgslab.adatron import KernelAdatron, dual_objective
from kgslab.adatron import kernel_adatron
from kgslab.kernels import rbf_kernel
from kgslab.kernels import normalise


def _blobs(n=40, separation=2.0, seed=0, d=2):
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    X = rng.normal(size=(n, d)) + separation * y[:, None] / 2
    return X, y


def _box_qp_optimum(K, y, C):
    """max 1'a - a'(K o yy')a/2 over 0 <= a <= C, by L-BFGS-B on the negated objective."""
    Q = K * np.outer(y, y)
    result = minimize(lambda a: 0.5 * a @ Q @ a - a.sum(), np.zeros(len(y)), jac=lambda a: Q @ a - 1,
                      method="L-BFGS-B", bounds=[(0, C)] * len(y), options={"ftol": 1e-15, "gtol": 1e-12,
                                                                             "maxiter": 10_000})
    return -result.fun


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
@pytest.mark.parametrize("seed", [0, 1])
def test_no_bias_reaches_the_box_constrained_optimum(C, seed):
    X, y = _blobs(seed=seed, separation=1.0)
    K = rbf_kernel(X, L=1.0)
    alpha, b, n_iter, objective = kernel_adatron(K, y, C=C, tol=1e-9, max_iter=200_000, bias=False)
    optimum = _box_qp_optimum(K, y, C)
    assert b == 0.0
    assert np.all(alpha >= 0) and np.all(alpha <= C)
    assert dual_objective(K, y, alpha) == pytest.approx(optimum, rel=1e-4)
    assert objective[-1] == pytest.approx(dual_objective(K, y, alpha), rel=1e-10)


def test_objective_never_decreases_with_eta_one_on_a_normalised_kernel():
    # With K_ii = 1 and eta = 1 each step maximises f exactly along one coordinate.
    X, y = _blobs(seed=3, separation=0.5)
    K = normalise(rbf_kernel(X, L=0.7))
    _, _, _, objective = kernel_adatron(K, y, C=5.0, tol=1e-6, bias=False, max_iter=5000)
    assert np.all(np.diff(objective) >= -1e-12)


def test_with_bias_separable_data_are_learnt_perfectly():
    X, y = _blobs(n=60, separation=6.0, seed=4)
    model = KernelAdatron(C=10.0, kernel="rbf", L=1.0, max_iter=20_000).fit(X, y)
    assert model.score(X, y) == 1.0
    assert model.n_iter_ > 0 and len(model.objective_) == model.n_iter_


def test_predictions_agree_with_svc_on_a_precomputed_kernel():
    X, y = _blobs(n=80, separation=2.0, seed=5)
    X_test, y_test = _blobs(n=200, separation=2.0, seed=6)
    K, K_test = rbf_kernel(X, L=1.0), rbf_kernel(X_test, X, L=1.0)
    ours = KernelAdatron(C=1.0, tol=1e-5, max_iter=50_000).fit(K, y)
    svc = SVC(kernel="precomputed", C=1.0).fit(K, y)
    agreement = np.mean(ours.predict(K_test) == svc.predict(K_test))
    assert agreement >= 0.95
    assert abs(ours.score(K_test, y_test) - svc.score(K_test, y_test)) <= 0.03


def test_incremental_gradient_matches_a_fresh_product():
    X, y = _blobs(n=30, seed=7)
    K = rbf_kernel(X, L=1.5)
    alpha, b, _, _ = kernel_adatron(K, y, C=2.0, tol=1e-4)
    model = KernelAdatron(C=2.0, tol=1e-4).fit(K, y)
    assert np.allclose(model.decision_function(K), K @ (y * alpha) + b)


@pytest.mark.parametrize("kernel", ["precomputed", "rbf"])
def test_passes_check_estimator(kernel):
    check_estimator(KernelAdatron(kernel=kernel, max_iter=2000))


def test_labels_of_any_kind_and_n_iter():
    X, y = _blobs(n=20, separation=5.0, seed=8)
    labels = np.where(y > 0, "french", "english")
    model = KernelAdatron(kernel="linear").fit(X, labels)
    assert set(model.predict(X)) <= {"english", "french"}
    assert list(model.classes_) == ["english", "french"]


@pytest.mark.parametrize("params, message", [
    # scikit-learn's parameter validation (KernelAdatron._parameter_constraints) words these
    ({"C": 0.0}, r"'C' parameter of KernelAdatron must be a float in the range \(0.0, inf\)"),
    ({"C": -1.0}, r"'C' parameter of KernelAdatron must be a float in the range \(0.0, inf\)"),
    ({"eta": 0.0}, r"'eta' parameter of KernelAdatron must be a float in the range \(0.0, inf\)"),
    ({"bias": "False"}, r"'bias' parameter of KernelAdatron must be an instance of 'bool'"),
])
def test_bad_parameters(params, message):
    X, y = _blobs(n=10)
    with pytest.raises(ValueError, match=message):
        KernelAdatron(kernel="rbf", **params).fit(X, y)


def test_bad_kernels_and_labels():
    X, y = _blobs(n=10)
    K = rbf_kernel(X)
    with pytest.raises(ValueError, match="square"):
        KernelAdatron().fit(K[:, :9], y)
    asymmetric = K.copy()
    asymmetric[0, 1] += 0.5
    with pytest.raises(ValueError, match="symmetric"):
        KernelAdatron().fit(asymmetric, y)
    with pytest.raises(ValueError, match="only one class"):
        KernelAdatron().fit(K, np.ones(10))

"""BayesianTransduction: the scikit-learn shell over the billiard."""

import numpy as np
import pytest
from sklearn.model_selection import cross_val_score
from sklearn.utils.estimator_checks import check_estimator

from kgslab.billiard import BayesianTransduction, billiard_probabilities
from kgslab.kernels import rbf_kernel

# scikit-learn's checks feed "precomputed kernels" that are not kernels; the billiard needs a PSD matrix.
PRECOMPUTED_FAILURES = {
    "check_positive_only_tag_during_fit": "the check's precomputed X is not positive semi-definite",
    "check_estimators_dtypes": "the check's precomputed X is not positive semi-definite",
    "check_decision_proba_consistency": "the check passes a (n, 2) feature matrix, not a square kernel",
}


@pytest.mark.parametrize("kernel, lam", [("rbf", 0.0), ("linear", 1.0), ("precomputed", 1.0)])
def test_passes_check_estimator(kernel, lam):
    # The hard version needs separable data; sklearn's linear/precomputed check data are not, so lam > 0.
    model = BayesianTransduction(kernel=kernel, L=1.0, lam=lam, n_bounces=30, burn_in=10, random_state=0)
    expected = PRECOMPUTED_FAILURES if kernel == "precomputed" else {}
    check_estimator(model, expected_failed_checks=expected)


def test_matches_the_functional_core_and_eq6_eq7():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 2))
    y = np.where(X[:, 0] ** 2 + X[:, 1] ** 2 > 1.2, "sick", "well")
    T = rng.standard_normal((30, 2))
    model = BayesianTransduction(n_bounces=400, kernel="rbf", L=0.8, random_state=3).fit(X, y)
    proba = model.predict_proba(T)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert list(model.classes_) == ["sick", "well"]
    # eq. 6: the label of highest probability; eq. 7: c = 2 max(p+, p-) - 1
    np.testing.assert_array_equal(model.predict(T), model.classes_[np.argmax(proba, axis=1)])
    np.testing.assert_allclose(model.confidence(T), 2 * proba.max(axis=1) - 1)
    # the same numbers as the functional core with the same start and seed
    y_pm1 = np.where(y == "well", 1.0, -1.0)
    p_plus = billiard_probabilities(rbf_kernel(X, L=0.8), y_pm1, rbf_kernel(T, X, L=0.8), 400,
                                    random_state=model.seed_, start=model.start_)
    np.testing.assert_allclose(proba[:, 1], p_plus)
    # training points lie on the right side of every perceptron in version space
    np.testing.assert_array_equal(model.predict(X), y)
    np.testing.assert_allclose(model.confidence(X), 1.0)


def test_no_version_space_error_at_fit_and_soft_version():
    X = np.array([[0.0], [0.0], [1.0], [2.0]])
    y = np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match="No version space"):
        BayesianTransduction(kernel="rbf").fit(X, y)
    BayesianTransduction(kernel="rbf", lam=0.5, n_bounces=50).fit(X, y).predict(X)


@pytest.mark.parametrize("params, error, message", [
    # scikit-learn's parameter validation (the estimator's _parameter_constraints) names each parameter
    (dict(n_bounces=0), ValueError, r"'n_bounces' parameter of BayesianTransduction must be an int in the range "
                                    r"\[1, inf\) or a str among \{'auto'\}"),
    (dict(n_bounces=2.5), TypeError, "'n_bounces' parameter of BayesianTransduction must be an int"),
    (dict(lam=-1.0), ValueError, r"'lam' parameter of BayesianTransduction must be a float in the range \[0.0, inf\)"),
    (dict(kernel="poly"), ValueError, "'kernel' parameter of BayesianTransduction must be a str among"),
])
def test_bad_parameters(params, error, message):
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    with pytest.raises(error, match=message):
        BayesianTransduction(kernel=params.pop("kernel", "rbf"), **params).fit(X, [0, 0, 1, 1])


def test_more_than_two_classes_and_non_psd_kernel():
    X = np.random.default_rng(0).normal(size=(9, 2))
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        BayesianTransduction(kernel="rbf").fit(X, np.arange(9) % 3)
    K = np.array([[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(ValueError, match="positive semi-definite.*-1"):
        BayesianTransduction().fit(K, [0, 1])


def test_cross_validation_on_a_precomputed_gram():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((60, 2))
    y = (X[:, 0] > 0).astype(int)
    K = rbf_kernel(X, L=1.0)
    scores = cross_val_score(BayesianTransduction(n_bounces=100, random_state=0), K, y, cv=3)
    assert np.mean(scores) > 0.85


def test_compare_with_svm_on_two_thyroid_splits():
    from sklearn.svm import SVC

    from kgslab.papers.bt1999 import compare_with_svm
    from kgslab.data import load_thyroid, random_split
    X, y = load_thyroid()
    results = compare_with_svm(X, y, 3.0, n_splits=2, n_bounces=200, random_state=np.random.default_rng(0))
    assert set(results) == {"trans_confidence", "trans_correct", "svm_confidence", "svm_correct"}
    assert all(value.shape == (2, 86) for value in results.values())
    assert np.all((results["trans_confidence"] >= 0) & (results["trans_confidence"] <= 1))
    assert results["trans_correct"].mean() > 0.9 and results["svm_correct"].mean() > 0.9
    # the SVM part is sklearn's RBF SVC on the same standardised split (gamma = 1 / (2 sigma^2))
    X_train, X_test, y_train, y_test = random_split(X, y, 0.6, random_state=np.random.default_rng(0))
    reference = SVC(kernel="rbf", gamma=1 / 18, C=1e6).fit(X_train, y_train)
    np.testing.assert_allclose(results["svm_confidence"][0], np.abs(reference.decision_function(X_test)),
                               rtol=1e-6, atol=1e-8)

"""The shared scikit-learn shell passes check_estimator (with a minimal classifier on top)."""

import numpy as np
import pytest
from sklearn.utils.estimator_checks import check_estimator

from kgslab._estimator import KernelClassifier


class KernelMeanClassifier(KernelClassifier):
    """f(x) = mean k(x, positives) - mean k(x, negatives): the smallest kernel classifier."""

    def __init__(self, kernel="precomputed", L=1.0):
        self.kernel = kernel
        self.L = L

    def fit(self, X, y):
        gram, y_pm1 = self._fit_inputs(X, y)
        self.weights_ = np.where(y_pm1 > 0, 1 / np.sum(y_pm1 > 0), -1 / np.sum(y_pm1 < 0))
        return self

    def _decision_gram(self, K_test):
        return K_test @ self.weights_


@pytest.mark.parametrize("kernel", ["precomputed", "rbf", "linear"])
def test_base_passes_check_estimator(kernel):
    check_estimator(KernelMeanClassifier(kernel=kernel))


def test_more_than_two_classes_is_refused():
    X = np.random.default_rng(0).normal(size=(9, 2))
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        KernelMeanClassifier(kernel="rbf").fit(X, np.arange(9) % 3)


def test_precomputed_kernel_must_be_symmetric():
    K = np.array([[1.0, 0.2], [0.9, 1.0]])
    with pytest.raises(ValueError, match="symmetric"):
        KernelMeanClassifier().fit(K, [0, 1])


def test_labels_map_back_to_classes():
    X = np.array([[0.0], [0.1], [3.0], [3.1]])
    model = KernelMeanClassifier(kernel="rbf").fit(X, ["no", "no", "yes", "yes"])
    assert list(model.predict(X)) == ["no", "no", "yes", "yes"]

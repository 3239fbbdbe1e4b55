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


# Every estimator's numeric parameters are checked once, by _parameter_constraints, as strictly as the kit's
# functions check theirs: scikit-learn's Interval alone takes True for 1 and inf for a regulariser.
def _numeric_parameters():
    from sklearn.utils._param_validation import InvalidParameterError  # noqa: F401  (the error expected below)

    from kgslab._estimator import StrictInterval
    from kgslab.adatron import KernelAdatron
    from kgslab.billiard import BayesianTransduction
    from kgslab.kfd import KFD, LabelNoiseKFD
    from kgslab.kgs import BayesPointMachine
    from kgslab.perceptron import KernelPerceptron
    for estimator in (KernelAdatron, KernelPerceptron, KFD, LabelNoiseKFD, BayesPointMachine, BayesianTransduction):
        for name, constraints in estimator._parameter_constraints.items():
            if any(isinstance(c, StrictInterval) for c in constraints):
                yield estimator, name


@pytest.mark.parametrize("estimator, name", list(_numeric_parameters()),
                         ids=lambda v: v if isinstance(v, str) else v.__name__)
@pytest.mark.parametrize("bad", [True, float("inf"), float("nan")], ids=["True", "inf", "nan"])
def test_numeric_parameters_refuse_booleans_and_non_finite_values(estimator, name, bad):
    from sklearn.utils._param_validation import InvalidParameterError
    K = np.array([[2.0, 1.0, 0.0, 0.0], [1.0, 2.0, 0.0, 0.0], [0.0, 0.0, 2.0, 1.0], [0.0, 0.0, 1.0, 2.0]])
    with pytest.raises(InvalidParameterError, match=rf"'{name}' parameter of {estimator.__name__}"):
        estimator(**{name: bad}).fit(K, [1, 1, -1, -1])

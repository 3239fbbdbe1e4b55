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
    from kgslab._parameters import Interval
    from kgslab.adatron import KernelAdatron
    from kgslab.billiard import BayesianTransduction
    from kgslab.kfd import KFD, LabelNoiseKFD
    from kgslab.kgs import BayesPointMachine
    from kgslab.perceptron import KernelPerceptron
    for estimator in (KernelAdatron, KernelPerceptron, KFD, LabelNoiseKFD, BayesPointMachine, BayesianTransduction):
        for name, constraints in estimator._parameter_constraints.items():
            if any(isinstance(c, Interval) for c in constraints):
                yield estimator, name


@pytest.mark.parametrize("estimator, name", list(_numeric_parameters()),
                         ids=lambda v: v if isinstance(v, str) else v.__name__)
@pytest.mark.parametrize("bad", [True, float("inf"), float("nan")], ids=["True", "inf", "nan"])
def test_numeric_parameters_refuse_booleans_and_non_finite_values(estimator, name, bad):
    from kgslab._parameters import InvalidParameterError
    K = np.array([[2.0, 1.0, 0.0, 0.0], [1.0, 2.0, 0.0, 0.0], [0.0, 0.0, 2.0, 1.0], [0.0, 0.0, 1.0, 2.0]])
    with pytest.raises(InvalidParameterError, match=rf"'{name}' parameter of {estimator.__name__}"):
        estimator(**{name: bad}).fit(K, [1, 1, -1, -1])


# ---- the kit's parameter check (kgslab._parameters) against scikit-learn's own ---------------------------------

def _sklearn_param_validation():
    """scikit-learn's private module, as an independent reference for the tests only (skip if it moved)."""
    try:
        from sklearn.utils import _param_validation
    except ImportError:   # pragma: no cover - a scikit-learn release that moved it
        pytest.skip("sklearn.utils._param_validation is gone: no reference to compare with")
    return _param_validation


INTERVALS = [("Real", 0, None, "neither"), ("Real", 0, None, "left"), ("Integral", 1, None, "left"),
             ("Integral", 0, None, "left"), ("Real", 1e-4, 0.5, "both"), ("Real", 0, 0.5, "left"),
             ("Integral", 8, 1_000_000, "both"), ("Real", None, 3, "right")]
VALUES = [0, 1, 2, 7, 8, 1_000_000, 1_000_001, -1, 0.0, 1e-4, 0.3, 0.5, 0.6, 3.0, 3.5, -2.5, np.int64(9),
          np.float32(0.25), "1", None, [1]]


@pytest.mark.parametrize("kind, left, right, closed", INTERVALS)
def test_intervals_read_and_decide_as_scikit_learns(kind, left, right, closed):
    from numbers import Integral, Real

    from kgslab._parameters import Interval
    reference = _sklearn_param_validation()
    number_type = {"Real": Real, "Integral": Integral}[kind]
    ours, theirs = Interval(number_type, left, right, closed=closed), \
        reference.Interval(number_type, left, right, closed=closed)
    assert str(ours) == str(theirs)
    for value in VALUES:
        assert ours.is_satisfied_by(value) == theirs.is_satisfied_by(value), value
    for stricter in (True, False, np.bool_(True), float("inf"), float("nan")):   # where the kit refuses more
        assert not ours.is_satisfied_by(stricter)


def test_the_error_reads_as_scikit_learns():
    from kgslab._parameters import InvalidParameterError, Options, validate_parameters
    reference = _sklearn_param_validation()

    class Toy(KernelMeanClassifier):
        _parameter_constraints = {"kernel": [Options({"rbf", "linear"})], "L": [None, "boolean"]}

    class ToyReference(KernelMeanClassifier):
        _parameter_constraints = {"kernel": [reference.StrOptions({"linear"})], "L": [None, "boolean"]}

    with pytest.raises(InvalidParameterError) as ours:
        validate_parameters(Toy(kernel="poly", L=None))
    assert str(ours.value) == "The 'kernel' parameter of Toy must be a str among {'linear', 'rbf'}. Got 'poly' instead."
    with pytest.raises(reference.InvalidParameterError) as theirs:
        reference.validate_parameter_constraints({"kernel": [reference.StrOptions({"linear"})]}, {"kernel": "poly"},
                                                 caller_name="Toy")
    assert str(theirs.value) == "The 'kernel' parameter of Toy must be a str among {'linear'}. Got 'poly' instead."
    with pytest.raises(InvalidParameterError, match=r"'L' parameter of Toy must be None or an instance of 'bool'"):
        validate_parameters(Toy(kernel="rbf", L="False"))
    validate_parameters(Toy(kernel="rbf", L=None))
    # a constraint written with scikit-learn's own classes is read by its is_satisfied_by and its words
    with pytest.raises(InvalidParameterError, match=r"must be a str among \{'linear'\}. Got 'rbf' instead"):
        validate_parameters(ToyReference(kernel="rbf", L=True))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")   # 40 sweeps on a toy
def test_fit_checks_parameters_unless_scikit_learn_is_told_to_skip_it():
    import sklearn

    from kgslab._parameters import InvalidParameterError
    from kgslab.adatron import KernelAdatron
    K = np.array([[2.0, 1.0, 0.0, 0.0], [1.0, 2.0, 0.0, 0.0], [0.0, 0.0, 2.0, 1.0], [0.0, 0.0, 1.0, 2.0]])
    with pytest.raises(InvalidParameterError, match=r"The 'max_iter' parameter of KernelAdatron must be an int in "
                                                    r"the range \[1, inf\) or None. Got 2.5 instead."):
        KernelAdatron(max_iter=2.5).fit(K, [1, 1, -1, -1])
    with pytest.raises(InvalidParameterError, match="'random_state' parameter of KernelPerceptron must be None, an "
                                                    "int in the range"):
        __import__("kgslab.perceptron").perceptron.KernelPerceptron(random_state="0").fit(K, [1, 1, -1, -1])
    with sklearn.config_context(skip_parameter_validation=True):   # scikit-learn's documented switch
        KernelAdatron(C=2).fit(K, [1, 1, -1, -1])                 # an int where a float is declared: skipped
        assert sklearn.get_config()["skip_parameter_validation"]
    with pytest.raises(InvalidParameterError, match="'C' parameter of KernelAdatron"):
        KernelAdatron(C=-2.0).fit(K, [1, 1, -1, -1])

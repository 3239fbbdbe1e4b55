"""The scikit-learn shell shared by the kit's kernel classifiers.

Every classifier in the kit (adatron, perceptron, Bayes point machine, kernel
billiard, Fisher discriminants) is a thin shell over a functional core that
works on Gram matrices.  This base class does the shell's common part:

* validates X and y the scikit-learn way (`validate_data` sets
  `n_features_in_`), maps any two labels to -1 / +1 and keeps `classes_`;
* builds the training Gram matrix K and, at prediction time, the cross-kernel
  K_test (n_test, n_train) from `kernel` ("precomputed", "rbf" or "linear")
  and the width `L`;
* tags `kernel="precomputed"` as pairwise, so cross-validation slices a Gram
  matrix on both axes, and declares the classifier binary only.

A subclass implements `_fit_gram(K, y)` (y in {-1, +1}) and
`_decision_gram(K_test)`; `predict` is the sign of the decision function.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from ._parameters import Interval, Options
from ._validation import as_gram, as_scalar, binary_classes, refuse_non_real
from .kernels import kernel_matrix

KERNELS = ("precomputed", "rbf", "linear")

# The parameter constraints the estimators declare (kgslab._parameters checks them when `fit` starts, so `fit`
# can trust a checked parameter and validate nothing twice).
POSITIVE = Interval(Real, 0, None, closed="neither")
NON_NEGATIVE = Interval(Real, 0, None, closed="left")
COUNT = Interval(Integral, 1, None, closed="left")
RANDOM_STATE = ["random_state"]
# The samplers' run lengths: burn-in may be 0; n_samples / n_bounces an integer or "auto"; the target MC error
# and the cap on an "auto" run as kgslab.stopping.check_targets accepts them.
NON_NEGATIVE_COUNT = Interval(Integral, 0, None, closed="left")
N_DRAWS = [COUNT, Options({"auto"})]
TARGET_ERROR = Interval(Real, 1e-4, 0.5, closed="both")
# The shell's own two parameters; a subclass declares `_parameter_constraints = {**KERNEL_CONSTRAINTS, ...}`
# (not on the base class: a subclass without constraints must not inherit an incomplete set).
KERNEL_CONSTRAINTS = {"kernel": [Options(KERNELS)], "L": [POSITIVE]}

# scikit-learn's estimator checks that cannot apply to a precomputed kernel, with the reason.
PRECOMPUTED_EXPECTED_FAILURES = {
    "check_decision_proba_consistency":
        "the check fits on raw (n, 2) features and ignores the pairwise tag; a precomputed kernel must be "
        "a square Gram matrix",
}


# The samplers (BayesPointMachine, BayesianTransduction) need a positive semi-definite kernel: their
# eigendecomposition of K is the sphere they sample on.  Two checks hand a precomputed estimator an indefinite one.
SAMPLER_PRECOMPUTED_EXPECTED_FAILURES = {
    "check_estimators_dtypes":
        "the check casts a precomputed Gram matrix to integers, which truncates it to an indefinite matrix "
        "(smallest eigenvalue -2); a sampler refuses a kernel that is not positive semi-definite",
    "check_positive_only_tag_during_fit":
        "the check subtracts the mean entry from a precomputed Gram matrix, which leaves it indefinite; a sampler "
        "refuses a kernel that is not positive semi-definite",
}

# BayesianTransduction with lam = 0 (its default) needs a version space: a hyperplane through the origin of
# feature space that separates the training labels.  scikit-learn's checks give a precomputed estimator the
# linear kernel X X' of a few features, whose classes no hyperplane through the origin separates, so these
# checks end at fit in "No version space ... use the soft version lam > 0" (the check suite passes with lam > 0:
# tests/test_estimator_checks.py runs it with lam = 1 too).
_NO_VERSION_SPACE = ("sklearn's check data under its linear kernel X X' is not separable by a hyperplane through "
                     "the origin; with lam = 0 the billiard has no version space and fit says so (use lam > 0)")
HARD_MARGIN_PRECOMPUTED_EXPECTED_FAILURES = {name: _NO_VERSION_SPACE for name in (
    "check_fit_score_takes_y", "check_dont_overwrite_parameters", "check_estimators_fit_returns_self",
    "check_readonly_memmap_input", "check_n_features_in_after_fitting", "check_dtype_object",
    "check_estimators_nan_inf", "check_f_contiguous_array_estimator", "check_classifier_data_not_an_array",
    "check_classifiers_train", "check_supervised_y_2d", "check_methods_sample_order_invariance",
    "check_methods_subset_invariance", "check_fit2d_1feature", "check_dict_unchanged", "check_fit_idempotent",
    "check_fit_check_is_fitted", "check_n_features_in", "check_fit2d_predict1d")}


# BayesianTransduction's "auto" run (its default) lasts until every *requested* test point's p+ has Monte Carlo
# error below target_error, so a subset of the points gets a run of another length and estimates that differ
# within that error.  The Bayes point machine monitors training quantities only, so its run does not depend on
# the points asked for.
TRANSDUCTION_AUTO_EXPECTED_FAILURES = {
    "check_methods_subset_invariance":
        "with n_bounces='auto' the billiard runs until every requested test point's p+ meets the Monte Carlo "
        "target, so a subset of the points gets another run length and estimates that differ within their "
        "Monte Carlo error (a fixed n_bounces passes this check)",
}


def expected_failed_checks(estimator) -> dict[str, str]:
    """{check name: reason} for the scikit-learn estimator checks that cannot apply to `estimator`.

    Pass it to ``check_estimator(estimator, expected_failed_checks=...)``.  Only a
    precomputed kernel has such checks; with kernel="rbf" or "linear" every check must pass.
    """
    if getattr(estimator, "kernel", None) != "precomputed":
        return {}
    checks = dict(PRECOMPUTED_EXPECTED_FAILURES)
    if not hasattr(estimator, "predict_proba"):
        del checks["check_decision_proba_consistency"]   # only run for estimators with predict_proba
    checks.update(getattr(estimator, "_precomputed_expected_failures", {}))
    if getattr(estimator, "n_bounces", None) == "auto":
        checks.update(getattr(estimator, "_auto_expected_failures", {}))
    if getattr(estimator, "lam", None) == 0:   # no version space at all: the first reason for these checks
        checks.update(getattr(estimator, "_hard_margin_expected_failures", {}))
    return checks


def _refuse_text(X):
    """scikit-learn turns numbers written as text ("1.5") into floats when asked for float64: refuse them."""
    if hasattr(X, "dtypes") or isinstance(X, (list, tuple, np.ndarray)):
        try:
            array = np.asarray(X)
        except (TypeError, ValueError):
            return   # ragged input: scikit-learn's own message follows
        if array.dtype.kind not in "cmM":   # complex and dates: scikit-learn refuses them itself
            refuse_non_real(array, "X")


def _n_rows(value):
    """The number of rows of an array-like, or None where that is not plain to read (left to scikit-learn)."""
    shape = getattr(value, "shape", None)
    if shape is not None:
        return shape[0] if len(shape) >= 1 else None
    if isinstance(value, (list, tuple)):
        return len(value)
    return None


def _is_scalar(value) -> bool:
    """None, a number or a text where an array goes (numpy would read it as a 0-d array, None as NaN)."""
    return (value is None or isinstance(value, (str, bytes, Real, np.generic))
            or (isinstance(value, np.ndarray) and value.ndim == 0))


@contextmanager
def _naming(estimator, names: str):
    """Prefix scikit-learn's validation messages that do not say which argument was wrong.

    ("Expected 2D array, got 1D array instead" becomes "X: Expected 2D array, ...".)  The
    original text is kept, so scikit-learn's own checks still recognise it.
    """
    try:
        yield
    except (ValueError, TypeError) as err:
        message = str(err)
        named = [name for name in names.split(" and ") if re.search(rf"\b{name}\b", message)]
        if type(err) not in (ValueError, TypeError) or len(named) == len(names.split(" and ")):
            raise
        what = names.replace("X", "X (the precomputed kernel matrix)") if estimator.kernel == "precomputed" else names
        raise type(err)(f"{what}: {message}") from err


class KernelClassifier(ClassifierMixin, BaseEstimator):
    """Base class: binary kernel classifier on a Gram matrix or on raw features."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.classifier_tags.multi_class = False
        return tags

    # ---- helpers for subclasses -------------------------------------------------
    def _check_kernel_params(self):
        if not isinstance(self.kernel, str) or self.kernel not in KERNELS:
            raise ValueError(f"kernel must be one of {KERNELS}, got {self.kernel!r}")
        if self.kernel == "rbf":
            as_scalar(self.L, "L", low=0.0, low_open=True)  # also refuses L=True

    def _fit_inputs(self, X, y, psd: bool = False):
        """Validate (X, y); return the training Gram matrix and labels in {-1, +1}.

        A precomputed kernel must be square and symmetric.  Positive
        semi-definiteness is checked only when `psd` is True: the adatron and
        the perceptron run on any symmetric matrix, while the samplers need a
        PSD kernel (and scikit-learn's estimator checks feed precomputed
        "kernels" shifted by a constant, which are not PSD).
        """
        self._check_kernel_params()
        X, y = self._validate_training_data(X, y)
        self.classes_, y_pm1 = binary_classes(y)
        if self.kernel == "precomputed":
            # For a precomputed kernel X *is* the Gram matrix.
            gram = as_gram(X, "X (the precomputed kernel matrix)", psd=psd)
        else:
            self.X_fit_ = X
            gram = kernel_matrix(X, None, kernel=self.kernel, L=self.L)
        return gram, y_pm1

    def _validate_training_data(self, X, y):
        """scikit-learn's validation of (X, y) for a binary classifier, its messages naming X and y."""
        what = "X (the precomputed kernel matrix)" if self.kernel == "precomputed" else "X"
        n_rows, n_labels = _n_rows(X), _n_rows(y)
        if _is_scalar(X):   # scikit-learn would speak of a "scalar array nan"
            columns = "n_features" if what == "X" else "n_samples"
            raise TypeError(f"{what} must be an array of shape (n_samples, {columns}), got {X!r:.60}")
        if n_rows == 0:   # scikit-learn's "Found array with 0 sample(s)" would come prefixed "X and y"
            raise ValueError(f"{what} must have at least one row (one point), got 0 rows")
        if n_rows and n_labels and n_rows != n_labels and getattr(X, "ndim", 2) == 2:
            raise ValueError(f"y must have one label per row of {what} ({n_rows}), got {n_labels} labels")
        with _naming(self, "X and y"):
            _refuse_text(X)
            X, y = validate_data(self, X, y, dtype=np.float64)
            check_classification_targets(y)
            target_type = type_of_target(y, input_name="y")
        if target_type not in ("binary", "unknown") and len(np.unique(y)) > 2:
            raise ValueError(
                f"Only binary classification is supported. The type of the target is {target_type}: "
                f"y has {len(np.unique(y))} classes."
            )
        return X, y

    def _validate_test_data(self, X):
        """New points (or, precomputed, the cross-kernel rows), validated against the fit."""
        with _naming(self, "X"):
            _refuse_text(X)
            return validate_data(self, X, reset=False, dtype=np.float64)

    def _cross_kernel(self, X):
        """The (n_test, n_train) kernel between new points and the training points."""
        check_is_fitted(self, "classes_")
        X = self._validate_test_data(X)
        if self.kernel == "precomputed":
            return X
        return kernel_matrix(X, self.X_fit_, kernel=self.kernel, L=self.L)

    def _labels_from_scores(self, scores):
        """Map decision values to the original labels: positive -> classes_[1]."""
        return self.classes_[(np.asarray(scores) > 0).astype(int)]

    # ---- the public prediction interface ----------------------------------------
    def decision_function(self, X):
        """Signed decision values: > 0 means classes_[1]."""
        return self._decision_gram(self._cross_kernel(X))

    def predict(self, X):
        """The label of classes_ on the side of the decision function's sign."""
        return self._labels_from_scores(self.decision_function(X))

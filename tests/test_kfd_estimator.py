"""KFD and LabelNoiseKFD pass scikit-learn's check_estimator."""

import pytest
from sklearn.utils.estimator_checks import check_estimator

from kgslab.kfd import KFD, LabelNoiseKFD

# sklearn's check_decision_proba_consistency fits a pairwise estimator on raw (80, 2)
# features (it ignores the pairwise tag), which a precomputed kernel cannot be.
PAIRWISE_IGNORED = {"check_decision_proba_consistency":
                    "sklearn feeds raw features, not a square kernel matrix, to a precomputed-kernel estimator"}


@pytest.mark.parametrize("estimator", [KFD(kernel="precomputed"), KFD(kernel="linear"),
                                       LabelNoiseKFD(kernel="precomputed", n_basis=30),
                                       LabelNoiseKFD(kernel="rbf", n_basis=20)], ids=repr)
def test_check_estimator(estimator):
    expected = PAIRWISE_IGNORED if estimator.kernel == "precomputed" else None
    check_estimator(estimator, expected_failed_checks=expected)



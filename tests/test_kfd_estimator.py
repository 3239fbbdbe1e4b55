"""KFD and LabelNoiseKFD pass scikit-learn's check_estimator with a small basis and a linear kernel.

(Their defaults, precomputed and rbf, are checked with every other estimator in
tests/test_estimator_checks.py.)
"""

import pytest
from sklearn.utils.estimator_checks import check_estimator

from kgslab._estimator import expected_failed_checks
from kgslab.kfd import KFD, LabelNoiseKFD


@pytest.mark.parametrize("estimator", [KFD(kernel="linear"),
                                       LabelNoiseKFD(kernel="precomputed", n_basis=30),
                                       LabelNoiseKFD(kernel="rbf", n_basis=20)], ids=repr)
def test_check_estimator(estimator):
    check_estimator(estimator, expected_failed_checks=expected_failed_checks(estimator))

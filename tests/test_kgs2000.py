"""The KGS paper's own computations (kgslab.papers.kgs2000)."""

import numpy as np
import pytest

from exact_posteriors import problem
from kgslab.kernels import linear_kernel
from kgslab.papers import kgs2000



def test_quadratic_svm_satisfies_kkt():
    X, y, _ = problem(3, m=40, flips=3, seed=4)
    lam = 0.05
    K = linear_kernel(X)
    beta = kgs2000.quadratic_svm(K, y, lam)
    alpha = beta * y
    margins = y * ((K + lam * np.eye(len(y))) @ beta)
    assert np.all(alpha >= 0)
    assert np.all(margins > 1 - 1e-5)  # hard margin on K + lam I
    support = alpha > 1e-6
    np.testing.assert_allclose(margins[support], 1.0, atol=1e-5)
    with pytest.raises(ValueError, match="lam must be > 0"):
        kgs2000.quadratic_svm(K, y, 0.0)

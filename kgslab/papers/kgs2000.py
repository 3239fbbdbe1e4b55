"""Experiments of the kernel Gibbs sampler paper (seed 001, Graepel and Herbrich, NIPS 2000).

Figure 4 compares the Bayes point of the KGS with the quadratic (2-norm) soft-margin SVM without bias on
the same kernel: the hard-margin SVM on K + lam I.
"""

from __future__ import annotations

import numpy as np

from .._validation import as_pm1_labels, as_scalar
from ..versionspace import kernel_coordinates, max_margin

__all__ = ["quadratic_svm"]


def quadratic_svm(K, y, lam):
    """Quadratic soft-margin SVM without bias: the hard-margin SVM on K + lam I (lam > 0).

    Each training point gets a private feature sqrt(lam) e_i, so K + lam I = [Phi, sqrt(lam) I][Phi, sqrt(lam) I]'
    and every labelling is separable; the maximum-margin hyperplane of `kgslab.versionspace.max_margin` in
    those coordinates is the SVM.  Returns beta = alpha * y, so f(x) = sum_i beta_i k(x, x_i) (for a new point x
    the private features are 0, as in the paper's kernel <x, x'> + lam I(x = x')).
    """
    features, _ = kernel_coordinates(K)
    y = as_pm1_labels(y, "y", length=features.shape[0])
    lam = as_scalar(lam, "lam", low=0.0, low_open=True)
    return max_margin(np.hstack([features, np.sqrt(lam) * np.eye(len(y))]), y)

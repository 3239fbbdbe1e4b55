"""The kernel adatron: a support vector machine by coordinate ascent (coursework, seed 004, section 3).

Dual problem, eq. (22):

    max_alpha  f(alpha) = 1'alpha - 1/2 alpha' (K o yy') alpha    subject to  0 <= alpha <= C

Without bias, each iteration
  1. computes the gradient g = 1 - (K o yy') alpha,
  2. forms beta_i = min(max(alpha_i + eta g_i, 0), C) for all i,
  3. picks the single i with the largest |alpha_i - beta_i| and sets alpha_i = beta_i.
With bias (the handout's second algorithm) the gradient is g = 1 - y o z with
z = K (y o alpha) + b, the loop stops when the largest change is below `tol`,
and after each step b = b + y'alpha / 4.

The handout recomputes K (y o alpha) every iteration, an O(l^2) product. Only
one alpha_i changes per iteration, so the product is kept up to date instead:
K (y o alpha) += K[:, i] y_i (new alpha_i - old alpha_i), which is O(l).
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from . import _adatron_loop
from ._estimator import COUNT, KERNEL_CONSTRAINTS, NON_NEGATIVE, POSITIVE, KernelClassifier
from ._parameters import checks_parameters
from ._validation import as_bool, as_gram, as_pm1_labels, as_vector

__all__ = ["dual_objective", "KernelAdatron"]


def dual_objective(K, y, alpha) -> float:
    """f(alpha) = 1'alpha - 1/2 alpha'(K o yy')alpha, eq. (22).

    K is a symmetric (l, l) matrix, y the l labels in {-1, +1} (or {0, 1}),
    alpha the l dual coefficients (any finite values: the objective is defined
    outside the box too).
    """
    K = as_gram(K, "K", psd=False)
    y = as_pm1_labels(y, "y", length=K.shape[0], length_of="K")
    alpha = as_vector(alpha, "alpha", length=K.shape[0], length_of="K")
    signed = y * alpha
    return float(np.sum(alpha) - 0.5 * signed @ K @ signed)


class KernelAdatron(KernelClassifier):
    """The kernel adatron as a scikit-learn classifier.

    Parameters follow the handout: C (box constraint), eta (step size), tol
    (stop when the largest change is below it), max_iter (default 10 l), bias
    (the handout's second algorithm), kernel ("precomputed", "rbf", "linear")
    and L (the RBF width).

    Fitted attributes: alpha_, b_, n_iter_, objective_ (dual objective per
    iteration), support_ (indices with alpha > 0), dual_coef_ (y o alpha).
    """

    _parameter_constraints = {**KERNEL_CONSTRAINTS, "C": [POSITIVE], "eta": [POSITIVE], "tol": [NON_NEGATIVE],
                              "max_iter": [COUNT, None], "bias": ["boolean"]}

    def __init__(self, C=1.0, eta=1.0, tol=0.005, max_iter=None, bias=True, kernel="precomputed", L=1.0):
        self.C = C
        self.eta = eta
        self.tol = tol
        self.max_iter = max_iter
        self.bias = bias
        self.kernel = kernel
        self.L = L

    @checks_parameters
    def fit(self, X, y):
        gram, y_pm1 = self._fit_inputs(X, y)
        C, eta, tol, max_iter = _adatron_loop.check_parameters(self.C, self.eta, self.tol, self.max_iter, gram.shape[0])
        gram = np.ascontiguousarray(gram)
        self.alpha_, self.b_, self.n_iter_, self.objective_ = _adatron_loop.coordinate_ascent(
            gram, y_pm1, C, eta, tol, max_iter, bias=as_bool(self.bias, "bias"))
        if self.n_iter_ >= max_iter:
            warnings.warn(f"KernelAdatron stopped at max_iter={max_iter} before the largest change fell "
                          f"below tol={self.tol}; raise max_iter or tol", ConvergenceWarning, stacklevel=2)
        self.dual_coef_ = y_pm1 * self.alpha_
        self.support_ = np.flatnonzero(self.alpha_ > 0)
        return self

    def _decision_gram(self, K_test):
        """f(x) = sum_i alpha_i y_i k(x_i, x) + b."""
        return K_test @ self.dual_coef_ + self.b_

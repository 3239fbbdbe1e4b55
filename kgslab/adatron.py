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

One loop (`_coordinate_ascent`) serves the function `kernel_adatron`, the two forms notebook 05 asks the student
for (`adatron_no_bias`, `adatron_with_bias`: its checks' references) and the estimator `KernelAdatron`.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ._estimator import COUNT, KERNEL_CONSTRAINTS, NON_NEGATIVE, POSITIVE, KernelClassifier
from ._parameters import checks_parameters
from ._validation import as_bool, as_gram, as_pm1_labels, as_positive_int, as_scalar, as_vector, check_work_budget

__all__ = ["dual_objective", "kernel_adatron", "adatron_no_bias", "adatron_with_bias", "KernelAdatron"]

# An iteration is a few numpy calls on l-vectors: 1e7 of them is minutes of work, and on data where the box never
# settles more would look like a hang.
MAX_ITERATIONS = 1e7


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


def _check_parameters(C, eta, tol, max_iter, n_points):
    C = as_scalar(C, "C", low=0.0, low_open=True)
    eta = as_scalar(eta, "eta", low=0.0, low_open=True)
    tol = as_scalar(tol, "tol", low=0.0)
    max_iter = 10 * n_points if max_iter is None else as_positive_int(max_iter, "max_iter")
    check_work_budget(max_iter, MAX_ITERATIONS, "max_iter", max_iter, "iterations")
    return C, eta, tol, max_iter


def _coordinate_ascent(K, y, C, eta, tol, max_iter, bias):
    """The loop of the handout (the module's docstring) on validated inputs: (alpha, b, n_iter, objective)."""
    n_points = K.shape[0]
    alpha = np.zeros(n_points)
    b = 0.0
    kernel_times_signed_alpha = np.zeros(n_points)   # K (y o alpha), kept up to date
    y_dot_alpha = 0.0                                  # y'alpha, for the bias step
    current_objective = 0.0                            # f(alpha), kept up to date too
    objective = []
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        z = kernel_times_signed_alpha + b              # step 1: predictions on the training set
        gradient = 1.0 - y * z                          # step 2
        beta = np.clip(alpha + eta * gradient, 0.0, C)  # step 3
        change = np.abs(alpha - beta)
        i = int(np.argmax(change))                      # step 4
        if change[i] < tol:
            n_iter -= 1                                 # this pass changed nothing
            break
        delta = beta[i] - alpha[i]
        signed_delta = y[i] * delta
        # f changes by delta - (signed_delta (K s)_i + signed_delta^2 K_ii / 2), with s = y o alpha.
        current_objective += delta - signed_delta * (kernel_times_signed_alpha[i] + 0.5 * signed_delta * K[i, i])
        objective.append(current_objective)
        alpha[i] = beta[i]                              # step 5
        kernel_times_signed_alpha += K[i] * signed_delta   # row i = column i (K is symmetric), contiguous
        y_dot_alpha += signed_delta
        if bias:
            b += y_dot_alpha / 4.0                      # step 6
    return alpha, b, n_iter, np.array(objective)


def kernel_adatron(K, y, C: float = 1.0, eta: float = 1.0, tol: float = 0.005, max_iter: int | None = None,
                   bias: bool = True):
    """Run the kernel adatron on a Gram matrix K with labels y in {-1, +1}.

    Returns (alpha, b, n_iter, objective): the dual coefficients, the bias
    (0 when bias=False), the number of iterations made (each changes one
    alpha_i), and the dual objective f(alpha) after each iteration.
    max_iter defaults to 10 l, as the handout suggests.
    """
    K = as_gram(K, "K", psd=False)
    y = as_pm1_labels(y, "y", length=K.shape[0], length_of="K")
    bias = as_bool(bias, "bias")
    return _coordinate_ascent(K, y, *_check_parameters(C, eta, tol, max_iter, K.shape[0]), bias=bias)


def adatron_no_bias(K, y, C, eta=1.0, tol=0.005, max_iter=None):
    """The handout's first algorithm (no bias), as notebook 05 asks for it: alpha only."""
    return kernel_adatron(K, y, C=C, eta=eta, tol=tol, max_iter=max_iter, bias=False)[0]


def adatron_with_bias(K, y, C, eta=1.0, tol=0.005, max_iter=None):
    """The handout's second algorithm, as notebook 05 asks for it: (alpha, b)."""
    alpha, b, _, _ = kernel_adatron(K, y, C=C, eta=eta, tol=tol, max_iter=max_iter, bias=True)
    return alpha, b


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
        C, eta, tol, max_iter = _check_parameters(self.C, self.eta, self.tol, self.max_iter, gram.shape[0])
        gram = np.ascontiguousarray(gram)
        self.alpha_, self.b_, self.n_iter_, self.objective_ = _coordinate_ascent(
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

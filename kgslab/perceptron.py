"""The perceptron, in input space and in feature space, and the diagonal trick K + aI.

Coursework (seed 004), section 5, "Exam style question", parts (a)-(d).

(a) The perceptron on ((x_1, y_1), ..., (x_m, y_m)) with w = 0 at the start:

        for i = 1 .. m:   if y_i <w, x_i> <= 0:   w <- w + y_i x_i

    Every update adds y_i x_i, so at any stage

        w = sum_i alpha_i y_i x_i,     alpha_i = number of updates made on x_i.

(b) Hence <w, x> = sum_i alpha_i y_i <x_i, x>: the algorithm needs inner
    products only, and in a feature space phi it needs only the kernel
    kappa(x, z) = <phi(x), phi(z)>.  The dual perceptron keeps alpha and tests
    y_i sum_j alpha_j y_j K_ji <= 0.

(c) For inseparable data the perceptron never stops.  With a normalised kernel
    kappa (kappa(x, x) = 1), distinct points and a > 0, the modified kernel

        kappa~(x, z) = kappa(x, z) + a delta(x, z)

    has the Gram matrix K~ = K + aI, positive definite (its eigenvalues are
    those of K plus a >= a), so K~ alpha = y has a solution.  The weight vector
    w = sum_i alpha_i phi~(x_i) then has <w, phi~(x_j)> = (K~ alpha)_j = y_j:
    every training point is on its correct side, the set is separable in the
    feature space of kappa~.

(d) That w has functional margin y_j <w, phi~(x_j)> = 1 on every point, and
    ||w||^2 = alpha' K~ alpha = y' K~^{-1} y <= ||y||^2 / a = m / a.  Every
    ||phi~(x_i)||^2 = 1 + a = R^2.  Novikoff's theorem bounds the number of
    updates by (R / gamma)^2 with the geometric margin gamma = 1 / ||w||:

        updates <= (1 + a) y' K~^{-1} y <= m (1 + a) / a.

    The tightest Novikoff bound uses the largest geometric margin (the
    maximum-margin w, a hard-margin SVM without bias): `best_novikoff_bound`.

A new point z is never equal to a training point, so delta(x_i, z) = 0 and a
test row of the kernel is used as given: the a*delta part only acts on the
training set.  (Classifying a training point again through `predict` therefore
uses K, not K + aI.)
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve
from sklearn.exceptions import ConvergenceWarning

from ._estimator import COUNT, KERNEL_CONSTRAINTS, NON_NEGATIVE, RANDOM_STATE, KernelClassifier
from ._parameters import checks_parameters
from ._validation import (as_bool, as_generator, as_gram, as_matrix, as_pm1_labels, as_positive_int,
                          as_scalar, as_vector, check_random_state_kind, check_work_budget)
from .versionspace import kernel_coordinates, max_margin

__all__ = [
    "perceptron", "kernel_perceptron", "PerceptronRun", "separating_alpha",
    "novikoff_bound", "best_novikoff_bound", "NovikoffBound", "KernelPerceptron",
]

DEFAULT_MAX_EPOCHS = 1000
# A pass over one example is a step of a Python loop: 1e8 steps is minutes.
# max_epochs beyond that on inseparable data would look like a hang, so it is refused up front.
MAX_EXAMPLE_VISITS = 1e8


class PerceptronRun(NamedTuple):
    """What a run of the dual perceptron did.

    alpha:              (m,) updates made on each example (the alpha_i of part (a))
    n_updates:          total number of updates, sum(alpha)
    converged:          True when the last epoch made no mistake
    n_epochs:           epochs run (including the final clean one when converged)
    mistakes_per_epoch: (n_epochs,) updates in each epoch
    alpha_history:      (n_epochs, m) alpha at the end of each epoch
    """

    alpha: np.ndarray
    n_updates: int
    converged: bool
    n_epochs: int
    mistakes_per_epoch: np.ndarray
    alpha_history: np.ndarray


class NovikoffBound(NamedTuple):
    """Part (d): a separating w = sum_i alpha_i phi~(x_i) and the update bound it gives.

    alpha:             (m,) signed dual coefficients of w (not update counts)
    functional_margin: min_j y_j <w, phi~(x_j)>
    norm_w_squared:    ||w||^2 = alpha' K~ alpha
    radius_squared:    R^2 = max_i K~_ii (= 1 + a for a normalised kernel)
    geometric_margin:  gamma = functional_margin / ||w||
    bound:             (R / gamma)^2, Novikoff's bound on the number of updates
    worst_case_bound:  m R^2 / a, the bound for any labelling (infinite at a = 0)
    """

    alpha: np.ndarray
    functional_margin: float
    norm_w_squared: float
    radius_squared: float
    geometric_margin: float
    bound: float
    worst_case_bound: float


def _epoch_orders(m: int, max_epochs: int, shuffle: bool, random_state):
    """The order of the examples in each epoch: 0..m-1, or a fresh permutation per epoch."""
    rng = as_generator(random_state) if shuffle else None
    for _ in range(max_epochs):
        # Python ints: indexing with them is faster than with numpy integers in the loops.
        yield rng.permutation(m).tolist() if shuffle else range(m)


def perceptron(X, y, max_epochs: int = DEFAULT_MAX_EPOCHS, *, shuffle: bool = False, random_state=None):
    """The primal perceptron of part (a); returns (w, alpha).

    w starts at 0; an example with y_i <w, x_i> <= 0 adds y_i x_i to w.
    Epochs repeat until one makes no mistake, or max_epochs have run (no
    warning here: compare `alpha` with `kernel_perceptron`'s run).  alpha[i]
    counts the updates made on x_i, so w == X' (alpha * y) at the end.
    With shuffle=True each epoch visits the examples in a fresh random order,
    the same orders `kernel_perceptron` uses for the same random_state.
    """
    X = as_matrix(X, "X")
    y = as_pm1_labels(y, "y", length=X.shape[0], length_of="X")
    max_epochs = as_positive_int(max_epochs, "max_epochs")
    check_work_budget(max_epochs * X.shape[0], MAX_EXAMPLE_VISITS, "max_epochs", max_epochs, "example visits")
    shuffle = as_bool(shuffle, "shuffle")
    check_random_state_kind(random_state)  # a bad seed is an error even when shuffle=False
    m, d = X.shape
    w = np.zeros(d)
    alpha = np.zeros(m)
    for order in _epoch_orders(m, max_epochs, shuffle, random_state):
        mistakes = 0
        for i in order:
            if y[i] * (w @ X[i]) <= 0:
                w += y[i] * X[i]
                alpha[i] += 1
                mistakes += 1
        if mistakes == 0:
            break
    return w, alpha


def kernel_perceptron(K, y, a: float = 0.0, max_epochs: int = DEFAULT_MAX_EPOCHS, *,
                      shuffle: bool = False, random_state=None) -> PerceptronRun:
    """The dual (kernel) perceptron of part (b), on K~ = K + aI (part (c)).

    Example i is a mistake when y_i f_i <= 0 with f = K~ (alpha * y), the
    decision values on the training set; an update adds 1 to alpha_i, so f
    moves by y_i times column i of K~ (O(m) per update, never a full
    matrix-vector product): an epoch costs O(m) tests plus O(m) per update.  Stops after the first epoch without a mistake or
    after max_epochs; `converged` says which.

    K is any symmetric (m, m) matrix; the guarantee of part (c) needs K
    positive semi-definite, distinct points and a > 0.
    """
    K = as_gram(K, "K", psd=False)
    y = as_pm1_labels(y, "y", length=K.shape[0], length_of="K")
    a = as_scalar(a, "a", low=0.0)
    max_epochs = as_positive_int(max_epochs, "max_epochs")
    check_work_budget(max_epochs * K.shape[0], MAX_EXAMPLE_VISITS, "max_epochs", max_epochs, "example visits")
    shuffle = as_bool(shuffle, "shuffle")
    check_random_state_kind(random_state)  # a bad seed is an error even when shuffle=False
    return _dual_perceptron(K, y, a, max_epochs, shuffle, random_state)


def _dual_perceptron(K, y, a, max_epochs, shuffle, random_state) -> PerceptronRun:
    """The loop of `kernel_perceptron` on validated inputs (the estimator has checked them already)."""
    m = K.shape[0]
    alpha = np.zeros(m)
    decision = np.zeros(m)  # f = (K + aI) @ (alpha * y), kept up to date
    mistakes_per_epoch, alpha_history = [], []
    converged = False
    for order in _epoch_orders(m, max_epochs, shuffle, random_state):
        mistakes = 0
        for i in order:
            if y[i] * decision[i] <= 0:
                alpha[i] += 1
                # f moves by y_i times column i of K + aI: row i of K (symmetric, and
                # contiguous in memory) plus a at position i.
                decision += y[i] * K[i]
                decision[i] += y[i] * a
                mistakes += 1
        mistakes_per_epoch.append(mistakes)
        alpha_history.append(alpha.copy())
        if mistakes == 0:
            converged = True
            break
    return PerceptronRun(alpha=alpha, n_updates=int(alpha.sum()), converged=converged,
                         n_epochs=len(mistakes_per_epoch),
                         mistakes_per_epoch=np.array(mistakes_per_epoch, dtype=int),
                         alpha_history=np.array(alpha_history))


def _modified_gram(K, y, a, *, a_low_open: bool):
    """Validate (K, y, a); return K + aI and y in {-1, +1}."""
    K = as_gram(K, "K", psd=True)
    y = as_pm1_labels(y, "y", length=K.shape[0], length_of="K")
    a = as_scalar(a, "a", low=0.0, low_open=a_low_open)
    return K + a * np.eye(K.shape[0]), y, a


def _cholesky(gram, a):
    try:
        return cho_factor(gram, lower=True)
    except LinAlgError as err:
        raise ValueError(
            f"K + a*I is singular (a = {a}): K~ alpha = y has no unique solution. "
            "Use a > 0 (part (c)) or a kernel matrix of distinct points."
        ) from err


def separating_alpha(K, y, a: float) -> np.ndarray:
    """Part (c): the alpha with (K + aI) alpha = y.

    K + aI is positive definite for a PSD K and a > 0, so the solution exists
    and is unique (a Cholesky solve).  w = sum_i alpha_i phi~(x_i) then gives
    <w, phi~(x_j)> = y_j on every training point.
    """
    gram, y, a = _modified_gram(K, y, a, a_low_open=True)
    return cho_solve(_cholesky(gram, a), y)


def _bound(gram, y, alpha, a) -> NovikoffBound:
    """Margins, norms and Novikoff's (R / gamma)^2 for w = sum_i alpha_i phi~(x_i)."""
    m = gram.shape[0]
    functional_margin = float(np.min(y * (gram @ alpha)))
    norm_w_squared = float(alpha @ gram @ alpha)
    radius_squared = float(np.max(np.diag(gram)))
    geometric_margin = functional_margin / np.sqrt(norm_w_squared)
    worst_case = m * radius_squared / a if a > 0 else np.inf
    return NovikoffBound(alpha=alpha, functional_margin=functional_margin,
                         norm_w_squared=norm_w_squared, radius_squared=radius_squared,
                         geometric_margin=float(geometric_margin),
                         bound=float(radius_squared / geometric_margin**2),
                         worst_case_bound=float(worst_case))


def novikoff_bound(K, y, a: float, alpha=None) -> NovikoffBound:
    """Part (d): the bound (R / gamma)^2 for w = sum_i alpha_i phi~(x_i), by default the w of part (c).

    alpha = (K + aI)^{-1} y (the default) gives functional margin 1 on every point and
    ||w||^2 = y' (K + aI)^{-1} y, so with R^2 = max_i K_ii + a (1 + a for a
    normalised K) the perceptron on K + aI makes at most

        R^2 y' (K + aI)^{-1} y  <=  m R^2 / a

    updates, in any order of the examples.  a = 0 is accepted when K itself is
    non-singular (e.g. an RBF kernel on distinct points).  Any other `alpha` whose w
    separates the training set (functional margin > 0) gives its own bound
    R^2 ||w||^2 / margin^2; one that does not is refused.
    """
    gram, y, a = _modified_gram(K, y, a, a_low_open=False)
    if alpha is None:
        alpha = cho_solve(_cholesky(gram, a), y)
    else:
        alpha = as_vector(alpha, "alpha", length=gram.shape[0], length_of="K")
        margin = float(np.min(y * (gram @ alpha)))
        if not margin > 0:
            raise ValueError(f"alpha must give a w that separates the training set (functional margin > 0), "
                             f"got margin {margin:.3g}")
    return _bound(gram, y, alpha, a)


def best_novikoff_bound(K, y, a: float) -> NovikoffBound:
    """The tightest Novikoff bound: R^2 / gamma*^2 with the largest geometric margin gamma*.

    The maximum-margin w without bias minimises ||w||^2 subject to
    y_j <w, phi~(x_j)> >= 1: the kit's one max-margin solver,
    `kgslab.versionspace.max_margin` (a non-negative least-squares problem,
    solved exactly by scipy's nnls).  The returned alpha has w = sum_i alpha_i phi~(x_i).
    Needs K + aI non-singular (a > 0, or a positive definite K such as an RBF
    kernel on distinct points); otherwise a ValueError says to use a > 0.
    """
    gram, y, a = _modified_gram(K, y, a, a_low_open=False)
    _cholesky(gram, a)  # same clear error for a singular K + aI
    features, _ = kernel_coordinates(gram, "K + aI")
    return _bound(gram, y, max_margin(features, y), a)


class KernelPerceptron(KernelClassifier):
    """The kernel perceptron on k + a*delta, as a scikit-learn classifier (parts (b) and (c)).

    Parameters
    ----------
    a : float >= 0
        Added to the diagonal of the training Gram matrix (K + aI).  With a > 0
        and distinct points every labelling is separable and training stops.
    max_epochs : int >= 1
        Passes over the training set; if the last one still made a mistake,
        fit warns (ConvergenceWarning) that the data were not separated.
    kernel : "precomputed", "rbf" or "linear"
        With "precomputed", X in fit is the (m, m) Gram matrix and X in
        predict the (n_test, m) cross-kernel.  There is no bias term (as in
        the exam question); add a constant to the kernel for one.
    L : float
        Width of the rbf kernel, eq. (4).
    shuffle : bool
        Visit the examples in a fresh random order each epoch.
    random_state : None, int or Generator
        Seeds the orders when shuffle=True.

    Attributes
    ----------
    alpha_ : (m,) updates made on each training example
    dual_coef_ : (m,) alpha_ * y, so decision_function = K_test @ dual_coef_
    n_updates_, converged_, n_iter_ (epochs run), mistakes_per_epoch_
    """

    _parameter_constraints = {**KERNEL_CONSTRAINTS, "a": [NON_NEGATIVE], "max_epochs": [COUNT],
                              "shuffle": ["boolean"], "random_state": RANDOM_STATE}

    def __init__(self, a=0.0, max_epochs=DEFAULT_MAX_EPOCHS, kernel="precomputed", L=1.0,
                 shuffle=False, random_state=None):
        self.a = a
        self.max_epochs = max_epochs
        self.kernel = kernel
        self.L = L
        self.shuffle = shuffle
        self.random_state = random_state

    @checks_parameters
    def fit(self, X, y):
        a = as_scalar(self.a, "a", low=0.0)
        max_epochs = as_positive_int(self.max_epochs, "max_epochs")
        shuffle = as_bool(self.shuffle, "shuffle")
        gram, y_pm1 = self._fit_inputs(X, y, psd=False)
        check_work_budget(max_epochs * gram.shape[0], MAX_EXAMPLE_VISITS, "max_epochs", max_epochs,
                          "example visits")
        run = _dual_perceptron(gram, y_pm1, a, max_epochs, shuffle, self.random_state)
        self.alpha_ = run.alpha
        self.dual_coef_ = run.alpha * y_pm1
        self.n_updates_ = run.n_updates
        self.converged_ = run.converged
        self.n_iter_ = run.n_epochs
        self.mistakes_per_epoch_ = run.mistakes_per_epoch
        if not run.converged:
            warnings.warn(
                f"KernelPerceptron did not separate the training data in max_epochs={max_epochs}: "
                f"the last epoch still made {run.mistakes_per_epoch[-1]} mistake(s). The data may not be "
                f"separable in the kernel's feature space (a = {a}); use a > 0 (the kernel k + a*delta) "
                "or more epochs.",
                ConvergenceWarning,
            )
        return self

    def _decision_gram(self, K_test):
        # A new point differs from every training point: delta = 0, K_test used as given.
        return K_test @ self.dual_coef_

"""Checks for notebook 07 (the kernel perceptron: the coursework's exam-style question, section 5 (a)-(d))."""

from __future__ import annotations

import numpy as np

from .. import perceptron as _kit_perceptron
from ..data import xor_data
from ..kernels import linear_kernel, rbf_kernel
from ..kernels import normalise as _normalise
from .cases import Case
from .exercise import Exercise
from .values import Problem, allclose

__all__ = ["nb07_exercise_5a", "nb07_exercise_5b", "nb07_exercise_5c", "nb07_exercise_5d"]


def _separable(m, d, seed):
    """m points in R^d on both sides of a plane through the origin (a margin of 0.2)."""
    rng = np.random.default_rng(seed)
    direction = rng.standard_normal(d)
    direction /= np.linalg.norm(direction)
    X = rng.standard_normal((m, d))
    side = np.where(X @ direction > 0, 1.0, -1.0)
    return X + 0.2 * np.outer(side, direction), side


def _primal_cases():
    X_sep, y_sep = _separable(20, 3, seed=1)
    X_xor, y_xor = xor_data(12, noise=0.3, random_state=2)
    X_one = np.array([[2.0], [-1.0], [0.5]])
    return [
        Case("20 separable points in R^3, max_epochs = 100", (X_sep, y_sep, 100)),
        Case("12 XOR points (no line separates them), max_epochs = 5", (X_xor, y_xor, 5)),
        Case("3 points on a line, labels +1, -1, +1, max_epochs = 1", (X_one, np.array([1.0, -1.0, 1.0]), 1)),
        Case("12 separable points in R^2 (an epoch with a single mistake, then more), max_epochs = 100",
             _separable(12, 2, seed=23) + (100,)),
    ]


def _kernel_cases():
    X_sep, y_sep = _separable(20, 3, seed=3)
    X_xor, y_xor = xor_data(16, noise=0.3, random_state=4)
    return [
        Case("linear kernel of 20 separable points, max_epochs = 100", (linear_kernel(X_sep), y_sep, 100)),
        Case("RBF kernel (L = 0.5) of 16 XOR points, max_epochs = 100", (rbf_kernel(X_xor, L=0.5), y_xor, 100)),
        Case("linear kernel of 16 XOR points (inseparable), max_epochs = 3", (linear_kernel(X_xor), y_xor, 3)),
        Case("linear kernel of 12 separable points in R^2 (an epoch with a single mistake, then more)",
             (linear_kernel(_separable(12, 2, seed=23)[0]), _separable(12, 2, seed=23)[1], 100)),
    ]


def _modified_cases():
    X_xor, y_xor = xor_data(16, noise=0.3, random_state=5)
    X_rand = np.random.default_rng(6).standard_normal((10, 4))
    y_rand = np.array([1.0, -1.0, -1.0, 1.0, 1.0, 1.0, -1.0, 1.0, -1.0, -1.0])
    return [
        Case("normalised linear kernel of 16 XOR points, a = 0.1", (_normalise(linear_kernel(X_xor)), y_xor, 0.1)),
        Case("RBF kernel (L = 1) of 16 XOR points, a = 1", (rbf_kernel(X_xor, L=1.0), y_xor, 1.0)),
        Case("normalised linear kernel of 10 points in R^4, random labels, a = 0.01",
             (_normalise(linear_kernel(X_rand)), y_rand, 0.01)),
        Case("linear kernel (not normalised: K_ii differ) of the same 10 points, a = 0.5",
             (linear_kernel(X_rand * np.linspace(0.5, 3.0, 10)[:, None]), y_rand, 0.5)),
    ]


# The references keep the notebook's signatures (and defaults), since a blank exercise is replaced by them.
def _perceptron(X, y, max_epochs=100):
    return _kit_perceptron.perceptron(X, y, max_epochs=max_epochs)


def _perceptron_alpha(K, y, max_epochs=100):
    return _kit_perceptron.kernel_perceptron(K, y, max_epochs=max_epochs).alpha


def _novikoff(K, y, a, alpha=None):
    result = _kit_perceptron.novikoff_bound(K, y, a, alpha)
    return result.functional_margin, result.norm_w_squared, result.radius_squared, result.bound


def _bound_cases():
    """(c)'s cases, then two with an alpha given whose margin is not 1.

    The alpha of (c) has functional margin exactly 1 on every point, where margin, margin^2 and the max of the
    margins all agree: only a w with another margin shows a bound without its square, or a max for the min.
    """
    cases = _modified_cases()
    X_xor, y_xor = xor_data(16, noise=0.3, random_state=5)
    K = rbf_kernel(X_xor, L=1.0)
    twice = 2.0 * _kit_perceptron.separating_alpha(K, y_xor, 0.5)
    perceptron_w = _kit_perceptron.kernel_perceptron(K + 0.5 * np.eye(16), y_xor, max_epochs=1000).alpha * y_xor
    return cases + [
        Case("RBF kernel (L = 1) of 16 XOR points, a = 0.5, alpha = twice the alpha of (c) (functional margin 2)",
             (K, y_xor, 0.5, twice)),
        Case("the same, alpha of the kernel perceptron's w on K~ (margins differ from point to point)",
             (K, y_xor, 0.5, perceptron_w)),
    ]


def _arrays(result):
    """The arrays of a result (one array, or the arrays of a tuple)."""
    parts = result if isinstance(result, tuple) else (result,)
    return [np.asarray(part, dtype=float) for part in parts if isinstance(part, np.ndarray)]


def _compare_updates(expected, got):
    """allclose, and a result with no update at all named: the test `< 0` where the question has `<= 0`."""
    problem = allclose(rtol=1e-9, atol=1e-9)(expected, got)
    if problem is None:
        return None
    mine, right = _arrays(got), _arrays(expected)
    if mine and len(mine) == len(right) and all(part.size and not np.any(part) for part in mine) \
            and any(np.any(part) for part in right):
        return Problem(problem, "strict-test",
                       "Your function made no update at all. At the start w = 0, so every margin y_i <w, x_i> is "
                       "exactly 0: a point on the boundary is a mistake (the question's test is <= 0; a test < 0 "
                       "never fires).")
    return problem


nb07_exercise_5a = Exercise(
    "nb07_exercise_5a", "Question 5(a) (the perceptron and its alpha)",
    _perceptron, _primal_cases, points=3, closed=("kgslab.perceptron.perceptron",),
    compare=_compare_updates,
    hint="Compare with your answer to (a): w starts at 0 and changes only in the update step, so alpha has to "
         "change exactly when w does, for the expansion of w in (a) to hold after every step. The test is the "
         "question's: a point with y_i <w, x_i> exactly 0 (as every point is while w = 0) is a mistake. "
         "Also check the stopping rule: one epoch is one visit to every example.",
    code_hint="w, alpha = np.zeros(d), np.zeros(m); for each epoch, for i in range(m): if y[i] * (w @ X[i]) <= 0: "
              "w = w + y[i] * X[i]; alpha[i] += 1; count the mistakes and break after an epoch without one.",
    worked=r"""The solution checks your $\mathbf{w}$ on the 60 points of (a) against scikit-learn's
`Perceptron` configured as the question's algorithm (no bias, step size 1, no shuffling, the same number of epochs):
the compiled perceptron arrives at the same vector (to $10^{-12}$). In that run the perceptron made 11 updates in
4 epochs, on only 8 of the 60 points, mostly points near the boundary or visited early: $\mathbf{w}$ is a
combination of those few points alone, and every other $\alpha_i$ is 0.""")


nb07_exercise_5b = Exercise(
    "nb07_exercise_5b", "Question 5(b) (the kernel perceptron)",
    _perceptron_alpha, _kernel_cases, points=3,
    closed=("kgslab.perceptron.kernel_perceptron", "kgslab.perceptron.KernelPerceptron.fit"),
    compare=_compare_updates,
    hint="Your answer to (b): the mistake test on example j needs only the coefficients of (a), the labels and "
         "the kernel values between x_j and the training points, and an update of w changes one coefficient. "
         "On the linear kernel your kernel_perceptron must make exactly the updates of your perceptron.",
    code_hint="alpha = np.zeros(m); in each epoch, for j in range(m): if y[j] * (K[j] @ (alpha * y)) <= 0: "
              "alpha[j] += 1 (and count a mistake); stop after a clean epoch or after max_epochs.",
    worked=r"""**On the linear kernel the dual is the primal.** Beyond the same update counts, the
kernel perceptron gives the same decision value $\langle\mathbf{w},\mathbf{x}\rangle$ as the perceptron of (a) on
500 new points (to $10^{-12}$), computed from kernel values only.

**A kernel separates what no line can.** In the solution's run on 80 XOR points (one class around $(1, 1)$ and
$(-1, -1)$, the other around $(1, -1)$ and $(-1, 1)$), the perceptron on the linear kernel is still making mistakes
after 100 epochs (59 in the last): no line separates the classes, so its line keeps turning and its $\alpha$s keep
growing. On the RBF kernel $\kappa(\mathbf{x},\mathbf{z}) = \exp(-\|\mathbf{x}-\mathbf{z}\|^2/2L^2)$ with $L = 0.5$ it
stops after 2 epochs and 4 updates with no training error, and scores 0.992 on 1000 new points. With $L = 0.5$ one
point of a cluster, added to $\mathbf{w}$, already classifies its neighbours, so $\boldsymbol\alpha$ is sparse; the
boundary bends around the four clusters, yet in feature space it is still a hyperplane through the origin.""")


nb07_exercise_5c = Exercise(
    "nb07_exercise_5c", "Question 5(c) (solve K~ alpha = y)",
    _kit_perceptron.separating_alpha, _modified_cases, points=2,
    compare=allclose(rtol=1e-7, atol=1e-9),
    hint="Which matrix is K~? Write out its entry (i, j), kappa~(x_i, x_j), for i = j and for i != j, with the "
         "training points distinct; then solve K~ alpha = y for alpha.",
    code_hint="np.linalg.solve(K + a * np.eye(len(y)), y) (or scipy.linalg.cho_solve: K~ is positive definite).",
    worked=r"""**What the diagonal buys: a regulariser.** Separable with $\tilde\kappa$ does not mean
that the classifier generalises: on a new point $\delta = 0$ and the classifier uses $\kappa$ alone. The diagonal is
useful on data that a kernel *could* separate except for a few wrong labels. The solution trains the perceptron on
$\mathbf{K} + a\mathbf{I}$ (RBF kernel, $L = 0.5$) on 100 XOR points with 10 labels flipped, and scores it with
$\kappa$ alone on 2000 clean points (mean of 5 random orders of the training set): the test error falls from 0.181
at $a = 0$, where the boundary bends around every flipped label, to 0.043 at $a = 3$, with far fewer updates. For
large $a$ almost every update happens in the first epoch, at most one per point, and the classifier approaches the
Parzen-window rule $\operatorname{sign}\sum_i y_i\kappa(\mathbf{x}_i,\mathbf{x})$ over the points that epoch got
wrong. (The error at $a = 0$ depends on the order of the points.) This is the same $\mathbf{K} + \lambda\mathbf{I}$
that the Kernel Gibbs Sampler paper uses for the soft-margin SVM it compares with, and that the kernel billiard uses
for data without a version space (notebooks 08 and 09).

**Choosing $a$.** $a$ is a hyperparameter like the ridge $\gamma$ of notebook 02: choose it, with the width $L$, by
5-fold cross-validation on the training set alone. The kit's `KernelPerceptron` is a scikit-learn classifier (with
`a`, `L`, `shuffle` and `random_state` as parameters), so `GridSearchCV` does it; on the flipped XOR points it
chooses $a = 1$, $L = 1$ (test error 0.059 on the clean points).""")


nb07_exercise_5d = Exercise(
    "nb07_exercise_5d", "Question 5(d) (the functional margin and the bound)",
    _novikoff, _bound_cases, points=3,
    closed=("kgslab.perceptron.novikoff_bound", "kgslab.perceptron.best_novikoff_bound"),
    compare=allclose(rtol=1e-7, atol=1e-9),
    hint="All four numbers concern the weight vector of the alpha given (by default the one of (c), from your "
         "separating_alpha), and every inner "
         "product of mapped training points is an entry of K~. The bound of (d) is a classical theorem on the perceptron's "
         "number of updates: state it, then compute what it needs for this w.",
    code_hint="K_tilde = K + a * np.eye(m); alpha = separating_alpha(K, y, a) when alpha is None; "
              "margin = min(y * (K_tilde @ alpha)); "
              "norm_w_squared = alpha @ K_tilde @ alpha; radius_squared = max(diag(K_tilde)); "
              "bound = radius_squared * norm_w_squared / margin**2.",
    worked=r"""In the solution's run the perceptron on $\mathbf{K} + a\mathbf{I}$ (the 40 noisy XOR points,
16 values of $a$ from $10^{-3}$ to $10^2$, 20 orders of the points each) never exceeds the bound, on the cosine kernel
(inseparable at $a = 0$) or on the RBF kernel (separable at $a = 0$). The bound must hold for every order of the
points, so it covers the worst one: on the cosine kernel the updates actually made grow much more slowly than the
bound as $a$ falls (from $a = 0.1$ to $a = 0.001$ the bound grows about ninetyfold, the most updates in 20 orders
only about thirteenfold), and the median run makes up to about twenty times fewer updates than even the tightest
bound of this kind, the one with the largest margin. On the RBF kernel the data are separable without help, so the
data-dependent bound stays finite as $a \to 0$ and the perceptron needs only a handful of updates.""")

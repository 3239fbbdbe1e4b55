"""Checks for notebook 08 (the kernel Gibbs sampler, seed 001): crossing angles, arc errors by sweep, one full
step of the sampler, the vote draws of several chains, the coordinates of a kernel matrix (section 3's "in kernel
space").  Each exercise's worked reasoning (`worked=`) is what `check.why` shows once the student's own function
has passed."""

from __future__ import annotations

import copy

import numpy as np

from .. import circle as _kit_circle, kgs as _kgs, versionspace as _vs
from ..kernels import linear_kernel, rbf_kernel
from ..versionspace import random_tangent
from .cases import Case
from .exercise import Exercise
from .values import Problem, allclose

__all__ = ["nb08_exercise_1", "nb08_exercise_2", "nb08_exercise_3", "nb08_exercise_4", "nb08_exercise_5"]


def _circle(m, seed, L=None):
    """Outputs <w, x_i>, <v, x_i> of a unit w and a unit v orthogonal to it, and labels."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, 3))
    K = linear_kernel(X) if L is None else rbf_kernel(X, L=L)
    features, _ = _kgs.kernel_coordinates(K)
    w = rng.standard_normal(features.shape[1])
    w /= np.linalg.norm(w)
    v = random_tangent(w, rng)
    y = np.where(rng.random(m) < 0.5, 1.0, -1.0)
    return features @ w, features @ v, y


def _angle_cases():
    cases = [Case("one point: <w,x> = 1, <v,x> = 0, y = +1 (errors from pi/2 to 3pi/2)",
                  (np.array([1.0]), np.array([0.0]), np.array([1.0]))),
             Case("two points in the plane: <w,x> = (1, -0.5), <v,x> = (1, 2), y = (+1, -1)",
                  (np.array([1.0, -0.5]), np.array([1.0, 2.0]), np.array([1.0, -1.0])))]
    cases.append(Case("8 points in R^3, linear kernel", _circle(8, seed=1)))
    cases.append(Case("20 points, RBF kernel (L = 1)", _circle(20, seed=2, L=1.0)))
    return cases


def _sweep_cases():
    cases = []
    for label, (w_out, v_out, y) in [("one point as above", (np.array([1.0]), np.array([0.0]), np.array([1.0]))),
                                     ("8 points in R^3, linear kernel", _circle(8, seed=3)),
                                     ("30 points, RBF kernel (L = 1)", _circle(30, seed=4, L=1.0))]:
        cases.append(Case(label, (_kit_circle.crossing_angles(w_out, v_out, y),)))
    return cases


# ---- one full step ------------------------------------------------------------------------------

def _step_case(label, m, seed, q, L=None, flips=0, start_in_version_space=False):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, 3))
    y = np.sign(X[:, 0] + 0.3 * X[:, 1])
    y[:flips] *= -1
    features, _ = _kgs.kernel_coordinates(linear_kernel(X) if L is None else rbf_kernel(X, L=L))
    if start_in_version_space:
        w = _kgs.consistent_start(features, y)
    else:
        w = rng.standard_normal(features.shape[1])
        w /= np.linalg.norm(w)
    v = random_tangent(w, rng)
    # the generator the step must use, as the notebook passes it: each call gets a fresh copy in the same state
    return Case(label, (features, y, w, v, q, np.random.default_rng(seed + 100)))


def _step_cases():
    return [_step_case("8 points in R^3 (linear kernel), q = 0.2, two labels flipped", 8, seed=11, q=0.2, flips=2),
            _step_case("12 points in R^3, q = 0 from a point of version space", 12, seed=12, q=0.0,
                       start_in_version_space=True),
            _step_case("25 points, RBF kernel (L = 1, 25 coordinates), q = 0.1, three labels flipped", 25, seed=13,
                       q=0.1, L=1.0, flips=3)]


def _step_slip(got, case):
    """(id, words) of a recognised slip of steps 6-8 that lands `got` elsewhere on the right circle, or None.

    Each slip is replayed with a copy of the case's generator, so its draw is the one the step would make.
    """
    features, y, w, v, q, rng = case.args
    features, y, w, v = (np.asarray(a, dtype=float) for a in (features, y, w, v))
    angles = _kit_circle.crossing_angles(features @ w, features @ v, y)
    boundaries, errors = _kit_circle.arc_errors_by_sweep(angles)
    m = len(y)
    slips = [("error-sign", boundaries, m - errors, 1.0,
              "your step drew the angle as if the arcs' counts were of correct points, not of errors (m - e "
              "for e): the error count goes up where a point becomes an error and down where it becomes correct "
              "again (Exercise 8.2), and eq. (3) weights an arc by q^e (1 - q)^(m - e) with e its errors"),
             ("sine-sign", boundaries, errors, -1.0,
              "your step drew the right angle theta but moved to cos(theta) w - sin(theta) v: the circle of steps "
              "3-8 is w(theta) = cos(theta) w + sin(theta) v, the one the crossing angles were computed on")]
    for name, bounds, counts, sign, words in slips:
        try:
            theta = _kit_circle.sample_angle(bounds, counts, q, copy.deepcopy(rng))
        except Exception:       # the slip's density is not a density here: not this slip
            continue
        slipped = np.cos(theta) * w + sign * np.sin(theta) * v
        if np.allclose(got, slipped, rtol=1e-9, atol=1e-9):
            return name, words
    return None


def _compare_step(expected, got, case):
    problem = allclose(rtol=1e-9, atol=1e-9)(expected, got)
    if problem is None or not isinstance(got, np.ndarray) or got.shape != expected.shape \
            or got.dtype.kind not in "iuf" or not np.all(np.isfinite(got)):
        return problem
    w, v = case.args[2], case.args[3]
    length = float(np.linalg.norm(got))
    if abs(length - 1) > 1e-6:
        return Problem(problem, "not-unit", f"your new point has length {length:.4g}, not 1: every hypothesis lies "
                                            f"on the unit sphere, and the point of step 8 is on the great circle "
                                            f"through w in direction v")
    off_circle = got - (got @ w) * w - (got @ v) * v
    if np.linalg.norm(off_circle) > 1e-6:
        return Problem(problem, "off-circle", "your new point is a unit vector but not on the great circle through "
                                              "w in direction v (step 8)")
    if np.allclose(got, w, atol=1e-9):
        return Problem(problem, "did-not-move", "your new point is the current point w: step 8 moves to the drawn "
                                                "angle theta")
    slip = _step_slip(got, case)
    if slip is not None:
        return Problem(problem, *slip)
    return Problem(problem, "wrong-angle", "your new point lies on the right great circle but at another angle. The "
                   "angle must come from the arcs of Exercises 8.1-8.2 (the crossings of w and v with the training "
                   "points, and the arc errors), drawn by the kit's step-7 function with the generator rng given, "
                   "and nothing else drawn from it before")


# ---- the vote draws -----------------------------------------------------------------------------

def _vote_cases():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((6, 2))
    return [
        Case("1 chain of 2 samples on 2 training points, 2 test points",
             (np.array([[[1.0, 0.0], [0.0, 1.0]]]), np.array([[1.0, 1.0], [1.0, -1.0]]))),
        Case("3 chains of 5 samples, 6 training points, 4 test points (RBF)",
             (rng.standard_normal((3, 5, 6)), rbf_kernel(X[:4] + 0.1, X))),
        Case("a test point with output exactly 0 (counts as no vote for +1)",
             (np.array([[[1.0, -1.0]], [[2.0, 1.0]]]), np.array([[1.0, 1.0]]))),
    ]


def _compare_votes(expected, got):
    problem = allclose()(expected, got)
    if not problem or not isinstance(got, np.ndarray) or got.dtype.kind not in "iuf":
        return problem                              # right, or a wrong type (booleans: the problem says so)
    if got.size == expected.size and got.shape != expected.shape:
        return Problem(problem, "shape", "the draws are indexed (chain, sample, test point), so that the "
                                         "diagnostics can compare the chains")
    if got.shape == expected.shape and np.all(np.isin(got, (0, 1))):
        return Problem(problem, "votes-flipped", "some votes are the other way round; a sample votes 1 on a test "
                                                 "point when its output there is positive (eq. 4), 0 otherwise")
    return problem


nb08_exercise_1 = Exercise(
    "nb08_exercise_1", "Exercise 8.1 (crossing angles, steps 3-4)",
    _kit_circle.crossing_angles, _angle_cases, points=3,
    closed=("kgslab.crossings.crossing_angle", "kgslab.crossings.crossing_half_angles"),
    compare=allclose(rtol=1e-9, atol=1e-9),
    hint="write the margin a_i cos(theta) + b_i sin(theta) of each point as one cosine with a "
         "phase: where is it positive, and where does it change sign? Check the order (the m 'becomes an error' "
         "angles first) and the range: every angle in [0, 2 pi), including those past 2 pi.",
    code_hint="the polar angle of (a, b) is np.arctan2(b, a) (in (-pi, pi]); shift it by pi / 2 and by 3 pi / 2 "
              "and wrap both into [0, 2 pi) with np.mod before joining the two halves.",
    worked=r"""As one cosine with a phase, the margin of point $i$ on the circle is

$$a_i\cos\theta + b_i\sin\theta = R_i\cos(\theta - \varphi_i), \qquad \varphi_i = \operatorname{atan2}(b_i, a_i),
\quad R_i = \sqrt{a_i^2 + b_i^2},$$

which is positive on the half circle $|\theta - \varphi_i| < \pi/2$. So point $i$ becomes an error at
$\varphi_i + \pi/2$ and correct again at $\varphi_i + 3\pi/2$: the two angles are antipodal, as in the paper's
$\theta_{2i} = \theta_{2i-1} + \pi$. `atan2` needs no division, unlike the paper's `arccos` of the hit points, which
divides by $\langle\mathbf v, \mathbf x_i\rangle$ and fails where that is 0.""")


nb08_exercise_2 = Exercise(
    "nb08_exercise_2", "Exercise 8.2 (arc errors by one sweep, step 6)",
    _kit_circle.arc_errors_by_sweep, _sweep_cases, points=3, closed=("kgslab.circle.arc_errors_direct",),
    compare=allclose(rtol=1e-9, atol=1e-9),
    hint="walking round the circle from theta = 0, every crossing changes the count by one: up at a 'becomes "
         "an error' angle (the first half of the input), down at a 'becomes correct' angle. The sum needs a "
         "start: the number of points that are errors at theta = 0, which each point's two angles "
         "tell you. errors[k] is the "
         "count just after the k-th boundary, so the last arc holds the current point.",
    code_hint="sort the angles and remember where each came from (np.argsort): an index below m is +1, else -1; "
              "a running total (np.cumsum) started from the count at theta = 0 gives every arc.",
    worked=r"""Just after $\theta = 0$ point $i$ is wrong exactly when its error interval wraps round through 0,
that is when it becomes correct *before* it becomes an error (`angles[i] > angles[m + i]`).
From that start, every sorted boundary moves the count by one: $+1$ at a "becomes an error" angle, $-1$ at a
"becomes correct" one, so one cumulative sum gives all $2m$ arcs in $O(m \log m)$ (the sort) where the paper's
evaluation of $R_{\rm emp}$ on every arc costs $O(m^2)$. The last arc wraps round to the first boundary and holds
$\theta = 0$, the current point.""")


nb08_exercise_3 = Exercise(
    "nb08_exercise_3", "Exercise 8.3 (one full step of the KGS, steps 3-8)",
    _kit_circle.step_on_circle, _step_cases, points=4, closed=("kgslab.circle.gibbs_step",),
    compare=_compare_step,
    hint="the step needs the outputs of w and of v on the training points (the features are their coordinates), "
         "your crossing angles and arc errors (Exercises 8.1-8.2), one angle theta drawn from the arcs by the kit's "
         "sample_angle with the q and the generator given (the only random draw of the step), and the point "
         "of the great circle at theta (step 8).",
    code_hint="the outputs are matrix-vector products of features with coords and with direction; pass them and "
              "y to your crossing_angles, its result to your arc_errors_by_sweep, and the boundaries and errors "
              "with q and rng to sample_angle; the new point is cos(theta) coords + sin(theta) direction.",
    worked=r"""On the great circle the posterior is constant on each of the $2m$ arcs, so its restriction to
the circle is the piecewise-uniform density of step 7: arc length times $q^{e}(1-q)^{m-e}$. Drawing $\theta^*$ from it
is an exact draw from the posterior along the circle (hit-and-run, the paper's reference [7]), so each step
leaves the posterior invariant, and a random great circle through every point lets the chain reach every cell.
The new point stays on the unit sphere because $\mathbf w \perp \mathbf v$ and both are unit vectors:
$\|\cos\theta\,\mathbf w + \sin\theta\,\mathbf v\|^2 = \cos^2\theta + \sin^2\theta = 1$. The step's only random
draw is $\theta^*$; with the generator given, the same draw lands on the same angle, which is how the check could
compare your point with the kit's.""")


nb08_exercise_4 = Exercise(
    "nb08_exercise_4", "Exercise 8.4 (the vote draws of several chains, eq. 4)",
    _kit_circle.vote_draws, _vote_cases, points=2,
    compare=_compare_votes,
    hint="sample j of chain c votes 1 on test point x when its output sum_i alpha_i k(x_i, x) is positive, 0 "
         "otherwise (an output of exactly 0 is no vote for +1). The result keeps the chains apart: shape "
         "(n_chains, n_samples, n_test), floats 0.0 and 1.0.",
    code_hint="K_test @ alphas[c].T gives the outputs of chain c, (n_test, n_samples); one product for all chains "
              "is alphas @ K_test.T, (n_chains, n_samples, n_test). Compare with 0 and convert with astype(float).",
    worked=r"""Sample $j$ votes $+1$ on $\mathbf x$ when its output there is positive; the mean of these 0/1 votes over the samples estimates
$p_+ = P(\langle\mathsf W, \mathbf x\rangle > 0)$, and which side of $1/2$ it falls on is eq. (4)'s label. An output
of exactly 0 is no vote for $+1$, as the likelihood counts $y\langle\mathbf w, \mathbf x\rangle \le 0$ as an error.
The chains are kept apart because agreement between independent chains is the evidence that they have forgotten
their starts: R-hat compares the spread of the chains' means with the spread within each chain, and a chain stuck
in one mode of Figure 1(a) shows there.""")


# ---- coordinates of a kernel matrix -------------------------------------------------------------

def _span_cases():
    rng = np.random.default_rng(8)
    X_repeated = rng.standard_normal((10, 2))
    X_repeated = np.vstack([X_repeated, X_repeated[:1]])
    return [Case("K = diag(4, 1): two points on the axes of R^2", (np.diag([4.0, 1.0]),)),
            Case("8 points in R^3, linear kernel (rank 3: five eigenvalues are rounding error, some negative)",
                 (linear_kernel(rng.standard_normal((8, 3))),)),
            Case("12 points in the plane, RBF kernel (L = 1, full rank)",
                 (rbf_kernel(1.5 * rng.standard_normal((12, 2)), L=1.0),)),
            Case("11 points, one of them twice, RBF kernel (L = 1): rank 10", (rbf_kernel(X_repeated, L=1.0),)),
            Case("20 points in the plane, RBF kernel (L = 0.7, eigenvalues down to 4e-5 of the largest)",
                 (rbf_kernel(rng.standard_normal((20, 2)), L=0.7),)),
            Case("6 points in R^2 a thousand units long, linear kernel (entries about 10^6, rank 2)",
                 (linear_kernel(1000.0 * rng.standard_normal((6, 2))),))]


def _singular_values(matrix):
    return np.sort(np.linalg.svd(matrix, compute_uv=False))


def _compare_span(expected, got):
    """Right when got = (Phi, to_alpha) is the kit's pair up to an orthogonal transform of the coordinates.

    Coordinates are not unique: any Phi Q with Q orthogonal (r x r) is as good (an eigenvector's sign, another
    order, another basis of an eigenspace, another eigen-solver), because the sphere and its uniform prior are
    invariant under rotations.  So the check compares what every right answer shares: the number of columns r
    (the rank, by the rule of the exercise), Phi Phi' = K on the span, and a to_alpha in the span of K with
    Phi' to_alpha = I (alpha = to_alpha @ c has coordinates c).
    """
    want_features, want_alpha = expected
    m, rank = want_features.shape
    if not isinstance(got, tuple) or len(got) != 2:
        return allclose()(expected, got)                 # says what came instead of a pair
    features, to_alpha = got
    for position, part in enumerate(got, 1):
        if not isinstance(part, np.ndarray) or part.ndim != 2 or part.dtype.kind not in "iuf":
            return allclose()(expected[position - 1], part) or f"part {position} of the result must be an (m, r) array"
    scale = float(np.max(np.sum(want_features**2, axis=0)))                     # the largest eigenvalue
    gram = want_features @ want_features.T                                      # K on the span
    problem = f"expected a pair of ({m}, {rank}) arrays (Phi Phi' = K, {rank} = the rank of K), got shapes " \
              f"{features.shape} and {to_alpha.shape}"
    if not np.all(np.isfinite(features)) or not np.all(np.isfinite(to_alpha)):
        return Problem(f"your result holds NaN or inf ({problem})", "negative-eigenvalue",
                       "the square root of a negative eigenvalue (or a division by a zero one): a PSD K's "
                       "eigenvalues at rounding level come out as tiny negative or zero numbers; they are no "
                       "directions of the span, and the rule of the exercise drops them")
    transposed = Problem(problem, "transposed", "your features are transposed: Phi has one ROW per training point "
                                              "(its coordinates), so that the outputs of c are Phi @ c")
    if features.shape == (rank, m) and rank != m:
        return transposed
    if features.shape[0] == m and features.shape[1] > rank:
        return Problem(problem, "kept-rounding", f"your Phi has {features.shape[1]} columns for a kernel of rank "
                       f"{rank}: you kept eigen-directions whose eigenvalues are rounding error (below 1e-10 of the "
                       f"largest, or negative); they are no directions of the span, and a unit c would then put "
                       f"weight where no hypothesis lives")
    if features.shape[0] == m and features.shape[1] < rank:
        return Problem(problem, "dropped-span", f"your Phi has {features.shape[1]} columns for a kernel of rank "
                       f"{rank}: you dropped eigen-directions that the training points span (eigenvalues above "
                       f"1e-10 of the largest)")
    if features.shape != (m, rank):
        return problem
    reconstruction = features.astype(float) @ features.T
    if not np.allclose(reconstruction, gram, atol=1e-8 * scale, rtol=0):
        text = (f"Phi Phi' differs from K by up to {np.max(np.abs(reconstruction - gram)):.3g} (the largest "
                f"eigenvalue of K is {scale:.3g})")
        if rank == m and np.allclose(features.T.astype(float) @ features, gram, atol=1e-8 * scale, rtol=0):
            return Problem(text, transposed.mistake, transposed.words)
        if np.allclose(reconstruction, gram @ gram, atol=1e-8 * scale**2, rtol=0):
            return Problem(text, "eigenvalues-not-roots", "your Phi Phi' is K squared: you scaled each "
                           "eigenvector by its eigenvalue, where Phi Phi' = K needs a factor whose square is "
                           "the eigenvalue")
        if np.allclose(_singular_values(features), 1.0, atol=1e-8):
            return Problem(text, "unscaled", "the columns of your Phi are unit vectors (the eigenvectors alone): "
                           "Phi Phi' is then a projection, not K; each column needs the scale of its eigenvalue")
        return text
    if to_alpha.shape != (m, rank):
        return problem
    basis = want_alpha * np.sqrt(np.sum(want_features**2, axis=0))            # U_r: an orthonormal basis of the span
    back = features.T.astype(float) @ to_alpha
    in_span = np.allclose(basis @ (basis.T @ to_alpha), to_alpha, atol=1e-8 * max(1.0, np.max(np.abs(to_alpha))),
                          rtol=0)
    if in_span and np.allclose(back, np.eye(rank), atol=1e-7, rtol=0):
        return None
    text = "your features are right, but Phi' to_alpha is not the identity: alpha = to_alpha @ c does not have " \
           "the coordinates c"
    roots = np.sort(np.sqrt(np.sum(want_features**2, axis=0)))
    for mistake, values, words in (
            ("alpha-by-eigenvalue", 1 / roots, "to_alpha divides each direction by its eigenvalue: Phi' to_alpha "
                                               "then scales coordinate k by 1 / sqrt(lambda_k), not 1"),
            ("alpha-unscaled", roots, "to_alpha is the bare eigenvectors: Phi' to_alpha scales coordinate k by "
                                      "sqrt(lambda_k), not 1; alpha must undo the scale of the features"),
            ("alpha-is-features", roots**2, "to_alpha scales the eigenvectors like the features do (or more), where "
                                            "it must undo that scale: Phi' to_alpha should be the identity")):
        if np.allclose(_singular_values(back), np.sort(values), rtol=1e-6, atol=0):
            return Problem(text, mistake, words)
    if not in_span:
        return Problem(text, "alpha-off-span", "to_alpha has parts outside the span of the training points")
    return text


nb08_exercise_5 = Exercise(
    "nb08_exercise_5", "Exercise 8.5 (coordinates from the kernel matrix)",
    _vs.kernel_coordinates, _span_cases, points=3, closed=("kgslab.versionspace.kernel_span",),
    compare=_compare_span,
    hint="K is symmetric and positive semi-definite, so its eigendecomposition K = U diag(lambda) U' gives an "
         "orthonormal basis of the span: scale each kept eigenvector so that Phi Phi' = K. Keep the directions "
         "whose eigenvalue is above 1e-10 times the largest (the rest are rounding error, and can be negative). "
         "to_alpha must undo that scale: Phi' to_alpha is the identity.",
    code_hint="np.linalg.eigh(K) returns the eigenvalues (ascending) and the eigenvectors as columns; select the "
              "kept columns with a boolean mask; multiply each kept column by the square root of its eigenvalue "
              "for the features, and divide by it for to_alpha.",
    worked=r"""With $\mathbf K = \mathbf U\boldsymbol\Lambda\mathbf U'$ and only the $r$ kept directions,
$\boldsymbol\Phi = \mathbf U_r\boldsymbol\Lambda_r^{1/2}$ gives $\boldsymbol\Phi\boldsymbol\Phi' =
\mathbf U_r\boldsymbol\Lambda_r\mathbf U_r' = \mathbf K$ (up to the dropped rounding). Row $i$ of $\boldsymbol\Phi$ is
$\boldsymbol\phi(\mathbf x_i)$ written in the orthonormal basis $\mathbf U_r$ of the span, so
$\langle\mathbf w, \mathbf x_i\rangle = (\boldsymbol\Phi\mathbf c)_i$: the sampler's steps need nothing but these rows.

The map back is $\boldsymbol\alpha = \mathbf U_r\boldsymbol\Lambda_r^{-1/2}\mathbf c$: then
$\boldsymbol\Phi'\boldsymbol\alpha = \mathbf c$ and $\boldsymbol\alpha'\mathbf K\boldsymbol\alpha = \mathbf c'\mathbf c$,
so a unit $\mathbf c$ is a unit $\mathbf w$ (section 2's $\|\mathbf w\|_{\mathcal K} = 1$).

Why drop the tiny eigenvalues: along such a direction no training output moves, and its $\alpha$ would carry a
factor $\lambda^{-1/2}$ of $10^5$ and more, rounding error only; a negative one is a rounded 0 and has no square root.
With them kept, a unit $\mathbf c$ would spend part of its length where no hypothesis lives, and the uniform prior on
the sphere would no longer be the uniform prior on the hypotheses.

Coordinates are not unique: $\boldsymbol\Phi\mathbf Q$ with any orthogonal $\mathbf Q$ (another sign of an
eigenvector, another solver, a Cholesky factor of a full-rank $\mathbf K$) is as good, because a rotation maps the
sphere and its uniform prior to themselves. That is why the check compared $\boldsymbol\Phi\boldsymbol\Phi'$ and
$\boldsymbol\Phi'\boldsymbol\alpha$, not your numbers.""")

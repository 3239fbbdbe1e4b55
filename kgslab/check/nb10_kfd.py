"""Checks for notebook 10 (the kernel Fisher discriminant under label noise, seed 003).

Exercises 10.1-10.5: the two flip-rate conventions, the E-step, the M-step,
the EM loop that runs the two steps, and the kernel Fisher direction.  Labels
inside these functions are class indices 0 / 1 (y_index), flip rates are in
the kit's convention gamma_k = P(y != k | yhat = k).

Hints come in two tiers: `hint` (printed after a wrong attempt) says which
equation or quantity is off, never a line of the solution; `code_hint` (on
request, `check.hint("nb10_exercise_N")`) is code-level.  The comparisons add
a diagnosis when the result is wrong in a recognisable way (a constant factor,
conditioning on the wrong variable, an EM loop that stops early): each returns a `values.Problem` whose words
the check's core formats.
"""

from __future__ import annotations

import numpy as np

from .. import data as _data, kfd as _kfd, label_noise as _label_noise
from ..papers import kfd2001 as _kfd2001
from .cases import Case
from .exercise import Exercise
from .values import Problem, allclose, constant_factor

__all__ = ["nb10_exercise_1", "nb10_exercise_2", "nb10_exercise_3", "nb10_exercise_4", "nb10_exercise_5"]


def _posterior_case(n, seed, d=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * [3.0, 1.0][:d] + rng.normal(size=d)
    y_index = (rng.random(n) < 0.4).astype(int)
    y_index[:2] = [0, 1]                                   # both classes present
    p_one = rng.random(n)
    return X, np.column_stack([1 - p_one, p_one]), y_index


def _diagnosed(base, diagnose):
    """`base` comparison; when it fails and the result has the expected structure, `diagnose(expected, got)` may
    name the mistake: (id, words) or None."""

    def compare(expected, got):
        problem = base(expected, got)
        if problem is None:
            return None
        if allclose(rtol=0.0, atol=1e300)(expected, got) is not None:     # a wrong type or shape: say only that
            return problem
        found = diagnose(expected, got)
        return Problem(problem, *found) if found else problem

    return compare


# ---- Exercise 10.1 ------------------------------------------------------------------------------

def _nb10_exercise_1_cases():
    """flip_rates_from_noise_rates(noise_rates, true_priors) -> (observed_priors, flip_rates).

    Not the paper's toy (noise 0.2 both ways, priors 0.8 / 0.2): the notebook asks for its flip rates, and a failed
    check prints what it expected on every case.  Symmetric noise with unequal priors, as the toy has.
    """
    cases = [Case("noise 0.25 both ways, priors 0.7 / 0.3", ([0.25, 0.25], [0.7, 0.3])),
             Case("one-sided noise 0.3 on class 0, priors 0.5 / 0.5", ([0.3, 0.0], [0.5, 0.5])),
             Case("no noise", ([0.0, 0.0], [0.3, 0.7]))]
    return cases


def _nb10_exercise_1_hidden(rng):
    """Grading cases: noise rates in [0, 0.4) and true priors drawn at grading time."""
    found = []
    for _ in range(3):
        noise = [float(rate) for rate in np.round(rng.uniform(0.0, 0.4, size=2), 3)]
        first = float(np.round(rng.uniform(0.1, 0.9), 3))
        found.append(Case(f"a grading case: noise {noise[0]:g} / {noise[1]:g}, priors {first:g} / {1 - first:g}",
                          (noise, [first, 1.0 - first])))
    return found


def _diagnose_1(expected, got):
    observed, flip = (np.asarray(part, float) for part in got)
    if np.allclose(observed, expected[0]) and np.allclose(flip, expected[1][::-1]):
        return "flip-rates-reversed", "Your flip rates are in the wrong order: gamma_0 belongs to the points LABELLED 0."
    if not np.isclose(observed.sum(), 1.0):
        return "priors-not-normalised", "Your observed priors do not sum to 1: every point carries one of the two labels."
    return None


nb10_exercise_1 = Exercise(
    "nb10_exercise_1", "Exercise 10.1 (from noise rates to flip rates)",
    _label_noise.flip_rates_from_noise_rates, _nb10_exercise_1_cases, points=2, hidden=_nb10_exercise_1_hidden,
    compare=_diagnosed(allclose(), _diagnose_1),
    hint="write down the joint table P(y, yhat) = P(yhat | y) P(y) (true class in the rows). The observed "
         "priors are its column sums; gamma_k is the part of column k that is off the diagonal, as a share of "
         "that column. Conditioning on the true class instead gives back the noise rates.",
    code_hint="P(yhat = 0) = (1 - e_0) p_0 + e_1 p_1 and P(yhat = 1) = e_0 p_0 + (1 - e_1) p_1; "
              "gamma_0 = e_1 p_1 / P(yhat = 0), gamma_1 = e_0 p_0 / P(yhat = 1); return two arrays of shape (2,).",
    worked=r"""The joint table $P(y = j, \hat y = k)$ holds both conventions: the noise rates divide
its off-diagonal entries by the row sums (the true priors), the flip rates by the column sums (the observed priors).
On the paper's toy, $P(\hat y = 2) = 0.8 \cdot 0.2 + 0.2 \cdot 0.8 = 0.32$, and the two off-diagonal entries are
equal ($0.16$ each), so half of the points labelled 2 are really class 1: $\gamma_2 = 0.5$, although only 20% of
each class was flipped.""")


# ---- Exercise 10.2 ------------------------------------------------------------------------------

def _nb10_exercise_2_cases():
    """e_step(log_density, y_index, flip_rates) -> (posterior (n, 2), log_likelihood)."""
    cases = []
    for n, rates, seed in [(6, (0.1, 0.3), 1), (40, (0.25, 0.05), 2), (30, (0.0, 0.2), 3)]:
        rng = np.random.default_rng(seed)
        log_density = rng.normal(size=(n, 2)) * 3 - 2
        y_index = (rng.random(n) < 0.5).astype(int)
        cases.append(Case(f"{n} points, flip rates {rates}", (log_density, y_index, np.array(rates))))
    return cases


def _diagnose_2(expected, got):
    posterior = np.asarray(got[0], float)
    if posterior.shape == expected[0].shape and not np.allclose(posterior.sum(axis=1), 1.0):
        return ("posterior-not-normalised",
                "Your posterior's rows do not sum to 1: q_n(y) is a distribution over the true class of point n.")
    if np.allclose(posterior, expected[0], rtol=1e-6, atol=1e-9):
        return ("log-likelihood", "The posterior is right; the log-likelihood is not: it is the sum over points of "
                                  "the log of each point's normaliser, sum_y p(x_n | y) P(y | yhat_n).")
    return None


nb10_exercise_2 = Exercise(
    "nb10_exercise_2", "Exercise 10.2 (the E-step)",
    _label_noise.e_step, _nb10_exercise_2_cases, points=3,
    compare=_diagnosed(allclose(rtol=1e-7, atol=1e-10), _diagnose_2),
    hint="the E-step is Bayes' rule for each point: the prior over its true class is the part of the flip-rate "
         "table P(y | yhat) that the point's OWN label picks; multiply by the class density and normalise over "
         "the two classes. Stay in logarithms throughout.",
    code_hint="for a point labelled k, P(y = k | yhat = k) = 1 - gamma_k and P(y != k | yhat = k) = gamma_k; add "
              "their logs to log_density, normalise each row with scipy.special.logsumexp, and sum the row "
              "logsumexps for the log-likelihood. A rate of 0 gives log 0 = -inf: let it (np.errstate).",
    worked=r"""The bound is tight when $q_n$ is the posterior over the point's true class, given its input and
its own label:
$$q_n(y) = P(y \mid \mathbf{x}_n, \hat y_n) = \frac{p(\mathbf{x}_n \mid y)\, P(y \mid \hat y_n)}{\sum_{y'} p(\mathbf{x}_n \mid y')\, P(y' \mid \hat y_n)}.$$
The denominator is the point's term of $\mathcal{L}$, so the same normalisation (a log-sum-exp, since in 50 dimensions
the densities underflow) gives the posterior and the log-likelihood at once. A point whose label's flip rate is 0 gets
$q_n(y \neq \hat y_n) = 0$ exactly.""")


# ---- Exercise 10.3 ------------------------------------------------------------------------------

def _nb10_exercise_3_cases():
    """m_step(X, posterior, y_index, shared_covariance) -> (means, covariances, flip_rates)."""
    cases = []
    for n, shared, seed in [(8, False, 4), (50, False, 5), (50, True, 6)]:
        X, posterior, y_index = _posterior_case(n, seed)
        cases.append(Case(f"{n} points in R^2, shared_covariance={shared}", (X, posterior, y_index, shared)))
    return cases


def _diagnose_3(expected, got):
    means, covariances, rates = (np.asarray(part, float) for part in got)
    if not np.allclose(means, expected[0]):
        return "means", "Your means are off: each is a posterior-weighted average, divided by that class's N_y."
    if not np.allclose(covariances, expected[1]):
        factors = [constant_factor(expected[1][c], covariances[c]) for c in (0, 1)]
        if all(f is not None for f in factors):
            return ("covariance-divisor", f"Your covariances are off by factors close to {factors[0]:.4g} and "
                    f"{factors[1]:.4g}: check what each scatter is divided by (maximum likelihood, and shared or not).")
        return "covariances", "Your covariances are off: a posterior-weighted scatter around each class's own new mean."
    return ("flip-rates", "Your flip rates are off: gamma_k is a mean over the points labelled k of the posterior "
                          "weight of the OTHER class.")


nb10_exercise_3 = Exercise(
    "nb10_exercise_3", "Exercise 10.3 (the M-step)",
    _label_noise.m_step, _nb10_exercise_3_cases, points=3,
    compare=_diagnosed(allclose(), _diagnose_3),
    hint="the M-step's estimates are the usual maximum-likelihood ones with every point weighted by q_n(y) "
         "(the updates you derived from the bound): class sizes N_y are the posterior's column sums; the flip "
         "rate of label k is estimated from the points labelled k only.",
    code_hint="N_y = sum_n q_n(y); m_y = sum_n q_n(y) x_n / N_y; C_y = sum_n q_n(y) (x_n - m_y)(x_n - m_y)' / N_y "
              "(maximum likelihood: divide by N_y, not N_y - 1); shared: one C = sum over both classes / N; "
              "gamma_k = mean of q_n(1 - k) over the points labelled k.",
    worked=r"""Setting the derivatives of the bound to zero, with the expected class sizes $N_y$ of the
text:
$$\mathbf{m}_y = \frac{1}{N_y}\sum_n q_n(y)\,\mathbf{x}_n, \qquad
\mathbf{C}_y = \frac{1}{N_y}\sum_n q_n(y)\,(\mathbf{x}_n - \mathbf{m}_y)(\mathbf{x}_n - \mathbf{m}_y)',$$
$$\gamma_k = \frac{1}{\#\{n : \hat y_n = k\}} \sum_{n : \hat y_n = k} q_n(y \neq k).$$
These are the updates of a mixture of two Gaussians, except that each point's mixing weights come from its own
label. With one **shared** covariance,
$\mathbf{C} = \frac{1}{N}\sum_y \sum_n q_n(y)(\mathbf{x}_n - \mathbf{m}_y)(\mathbf{x}_n - \mathbf{m}_y)'$.
A rate of exactly 0 stays 0: every point labelled $k$ then gets $q_n(y \neq k) = 0$ in the E-step, and the update of
$\gamma_k$ returns 0. That is the trap the text warns of: a rate to be learnt must start positive.""")


# ---- Exercise 10.4: the EM loop -----------------------------------------------------------------

def _nb10_exercise_4_cases():
    """run_em(X, y_index, initial_flip_rates, shared_covariance, max_iter, tol) on small samples of the toy."""
    cases = []
    # samples on which EM converges in under 80 iterations with both kinds of start (small, so the check is quick)
    for n, rates, shared, seed in [(150, (0.3, 0.3), False, 14), (80, (0.0, 0.0), False, 12),
                                   (100, (0.0, 0.2), True, 23)]:
        X, y, _ = _data.kfd_toy_data(n, random_state=seed)
        cases.append(Case(f"{n} toy points, initial flip rates {rates}, shared_covariance={shared}",
                          (X, (y == 2).astype(int), rates), dict(shared_covariance=shared)))
    # EM far from converged after 4 iterations: the cap is reached, and one iteration more or less shows
    X, y, _ = _data.kfd_toy_data(30, random_state=5)
    cases.append(Case("30 toy points, initial flip rates (0.1, 0.1), max_iter = 4 (stops at the cap)",
                      (X, (y == 2).astype(int), (0.1, 0.1)), dict(max_iter=4)))
    return cases


def _compare_em(expected, got, case=None):
    """EM's fixed point within 1e-3; its log-likelihood rising; stopped where the rule says (one step's leeway)."""
    if not isinstance(got, tuple) or len(got) != 5:
        return allclose()(expected, got)                       # names the type or the length it got
    shape_problem = allclose(rtol=0.0, atol=1e300)(expected[:4], got[:4])   # types and shapes only
    if shape_problem:
        return shape_problem
    history = np.asarray(got[4], float) if np.ndim(got[4]) == 1 else None
    if history is None or len(history) == 0 or not np.all(np.isfinite(history)):
        return f"part 5 (the log-likelihoods) should be a 1-d array with one finite value per E-step, got {got[4]!r:.80}"
    falls = np.flatnonzero(np.diff(history) < -1e-8 * (1 + np.abs(history[1:])))
    if len(falls):
        return (f"your log-likelihood went DOWN from iteration {falls[0] + 1} to {falls[0] + 2} "
                f"({history[falls[0]]:.6g} -> {history[falls[0] + 1]:.6g}). EM never decreases it: each E-step "
                "must use the parameters of the latest M-step, and each M-step the posterior of the latest E-step.")
    want = expected[4]
    if abs(history[-1] - want[-1]) > 1e-5 * (1 + abs(want[-1])):
        more = ("stopped early?" if history[-1] < want[-1] else
                "higher than EM can reach from the given start: were the flip rates started at initial_flip_rates, "
                "and a rate started at 0 kept at 0?")
        return (f"your last log-likelihood is {history[-1]:.8g}, the fixed point's is {want[-1]:.8g} ({more}) "
                f"after {len(history)} E-steps against {len(want)}: stop when it rises by less than tol.")
    cap = (case.kwargs if case is not None else {}).get("max_iter", 1000)
    if len(want) == cap and len(history) != cap:
        return (f"your loop ran {len(history)} E-steps with max_iter = {cap}: the loop stops after max_iter "
                "iterations (one E-step each) when the log-likelihood is still rising by tol or more.")
    if abs(len(history) - len(want)) > 1:
        return (f"your loop ran {len(history)} E-steps, the stopping rule gives {len(want)}: stop as soon as the "
                "log-likelihood rises by less than tol (counting the E-step that showed it).")
    names = ["means", "covariances", "flip rates", "posterior"]
    for name, want_part, have_part in zip(names, expected[:4], got[:4]):
        problem = allclose(rtol=1e-3, atol=1e-3)(want_part, have_part)
        if problem:
            return f"your {name} are not EM's fixed point: {problem}"
    frozen = np.asarray(expected[2]) == 0
    if np.any(np.asarray(got[2], float)[frozen] != 0):
        return "a flip rate that starts at 0 must stay exactly 0 (a frozen rate: 'this class is clean')."
    return None


nb10_exercise_4 = Exercise(
    "nb10_exercise_4", "Exercise 10.4 (the EM loop)",
    _label_noise.label_noise_em_as_tuple, _nb10_exercise_4_cases, points=3, closed=("kgslab.label_noise.label_noise_em",), compare=_compare_em,
    hint="start from the labels as they are (q_n one-hot at yhat_n) and one M-step for the Gaussians, with the "
         "flip rates at their starting values; then alternate: log-densities of the current Gaussians, E-step, "
         "stop once the log-likelihood rises by less than tol, else M-step. A rate started at 0 stays 0.",
    code_hint="posterior = np.eye(2)[y_index]; means, covariances, _ = m_step(...); in the loop: log_density = "
              "np.column_stack([multivariate_normal.logpdf(X, means[c], covariances[c]) for c in (0, 1)]); "
              "posterior, L = e_step(log_density, y_index, flip_rates); append L to the history and break when "
              "L - previous < tol; else means, covariances, new_rates = m_step(...) and keep 0 where the start was 0.")


# ---- Exercise 10.5: the kernel Fisher direction ------------------------------------------------

def _nb10_exercise_5_cases():
    """fisher_direction(K_basis, posterior, mu) -> alpha (b,)."""
    cases = []
    for n, b, mu, seed in [(12, 4, 0.1, 7), (60, 10, 1e-3, 8), (40, 40, 1.0, 9)]:
        rng = np.random.default_rng(seed)
        K_basis = rng.normal(size=(n, b))
        _, posterior, _ = _posterior_case(n, seed)
        cases.append(Case(f"{n} points, {b} basis points, mu = {mu:g}", (K_basis, posterior, mu)))
    return cases


def _either_sign(base):
    """`base`, passing alpha or -alpha: J(-alpha) = J(alpha), so both signs maximise the Rayleigh quotient."""

    def compare(expected, got):
        problem = base(expected, got)
        if problem is not None and isinstance(expected, np.ndarray) and base(-expected, got) is None:
            return None
        return problem

    return compare


def _diagnose_5(expected, got):
    factor = constant_factor(expected, got)
    if factor is not None:
        return ("length", f"Your alpha is all off by a factor close to {factor:.4g}: its direction is right, its "
                          "length is not (which of M_y, N or the right-hand side carries an extra factor?).")
    return None


nb10_exercise_5 = Exercise(
    "nb10_exercise_5", "Exercise 10.5 (the kernel Fisher direction)",
    _kfd.fisher_direction, _nb10_exercise_5_cases, points=3,
    closed=("kgslab.kfd.KFD.fit", "kgslab.kfd.LabelNoiseKFD.fit"),
    compare=_diagnosed(_either_sign(allclose(rtol=1e-6, atol=1e-9)), _diagnose_5),
    hint="the rows of K_basis play the role of the inputs: M_y are their posterior-weighted class means, N the "
         "two weighted scatters around those means added up (not normalised), and alpha the maximiser of the "
         "Rayleigh quotient J(alpha) with mu I added to N.",
    code_hint="M_y = sum_n q_n(y) k_n / N_y (rows of K_basis are k_n); N = sum_y sum_n q_n(y) (k_n - M_y)(k_n - M_y)' "
              "(not divided by anything); alpha = np.linalg.solve(N + mu I, M_1 - M_0).",
    worked=r"""$J$ is a ratio of two quadratic forms; its gradient vanishes where
$(\mathbf{N} + \mu\mathbf{I})\boldsymbol\alpha$ is parallel to $\mathbf{M}_1 - \mathbf{M}_0$ (the numerator's gradient
is along that vector), so
$$\boldsymbol\alpha^* \propto (\mathbf{N} + \mu\mathbf{I})^{-1}(\mathbf{M}_1 - \mathbf{M}_0).$$
One linear solve, no eigenproblem: the numerator has rank one. Any nonzero multiple of $\boldsymbol\alpha^*$, of either
sign, gives the same $J$.""")

"""The kernel billiard and Bayesian transduction (seed 002, Graepel, Herbrich and Obermayer, NIPS 1999).

One sampler (`KernelBilliard`) and its estimator (`billiard_run`, `BayesianTransduction`).  The geometry it shares
with the kernel Gibbs sampler is in `kgslab.versionspace`; the paper's own step and its stopping rule (eq. 8)
as written are kept apart, as references for the checks and the tests.

Version space and volume (section 3.1)
--------------------------------------
A kernel perceptron is f(x) = sign <w, phi(x)> with w = sum_i alpha_i phi(x_i) and ||w|| = 1.  Its version
space is the piece of the unit sphere where every training point is classified correctly,

    V(S) = { w : ||w|| = 1,  y_i <w, phi(x_i)> > 0  for i = 1..l },                         (eq. 2)

a convex polytope on the sphere whose walls are the great spheres <w, phi(x_i)> = 0.  A test point x cuts it
into V+ (perceptrons saying +1) and V- (saying -1); under a uniform prior on w the probability of the label
+1 is the volume ratio p+ = V+ / V, the label is argmax_y p^y (eq. 6) and the transductive confidence is

    c_trans = 2 max(p+, p-) - 1  in [0, 1].                                                  (eq. 7)

Runs and their diagnostics
--------------------------
The ball and its flight (section 3.2, and where the kit departs from the paper) are `kgslab.billiard_ball`.
Here several independent balls are flown and pooled into p+ (`billiard_run`, `billiard_probabilities`): their
batch fractions give R-hat, ESS and the MC error per test point, which decide how long to fly
(n_bounces = "auto"); Hoeffding's n of eq. (8) (`kgslab.stopping.hoeffding_bounces`) is there with `epsilon`.
`BayesianTransduction` is the estimator (by the billiard or by exact HMC, `kgslab.hmc`), and
`error_rejection_curve` the paper's Figure 2 read off its confidences.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import NamedTuple

import numpy as np

from sklearn.utils.validation import check_is_fitted

from ._estimator import (COUNT, HARD_MARGIN_PRECOMPUTED_EXPECTED_FAILURES, KERNEL_CONSTRAINTS, N_DRAWS,
                         NON_NEGATIVE, NON_NEGATIVE_COUNT, RANDOM_STATE, SAMPLER_PRECOMPUTED_EXPECTED_FAILURES,
                         TARGET_ERROR, TRANSDUCTION_AUTO_EXPECTED_FAILURES, KernelClassifier)
from ._parameters import Interval, Options, checks_parameters
from ._validation import (as_correct_flags, as_float_array, as_generator, as_positive_int, as_probabilities, as_scalar,
                          as_vector)
from .billiard_ball import MAX_BOUNCES, KernelBilliard
from .diagnostics import summarise
from .stopping import as_n_draws, check_targets, hoeffding_bounces, reported, run_until_converged
from .hmc import hmc_run
from .versionspace import kernel_span, version_space_start

# KernelBilliard is the ball (`kgslab.billiard_ball`), imported here with the runs that fly it
__all__ = ["BilliardRun", "billiard_run", "billiard_probabilities", "transductive_confidence", "BayesianTransduction",
           "error_rejection_curve"]


class BilliardRun(NamedTuple):
    """p+ of every test point from several trajectories, with its convergence diagnostics (per test point)."""

    p_plus: np.ndarray      # pooled over the trajectories: flight on the + side / all flight
    rhat: np.ndarray        # split, rank-normalised R-hat of the batch fractions
    ess: np.ndarray         # effective number of batches
    mc_error: np.ndarray    # Monte Carlo standard error of p+
    n_bounces: int          # bounces per trajectory (after the burn-in)
    converged: bool


def _batches(balls, n_batches, batch, record):
    """Run every ball `n_batches` batches of `batch` bounces; append each batch's fraction of flight on + to record."""
    for chain, ball in enumerate(balls):
        for _ in range(n_batches):
            plus_before, arc_before = ball.time_plus, ball.arc_length
            ball.run(batch)
            arc = ball.arc_length - arc_before
            record[chain].append((ball.time_plus - plus_before) / arc if arc > 0 else ball.p_plus)


def billiard_run(K, y, K_test, n_bounces="auto", *, n_chains: int = 4, lam: float = 0.0, epsilon=None,
                 eta: float = 0.01, burn_in: int = 100, refresh_every=None, target_error: float = 0.01,
                 target_rhat: float = 1.01, max_bounces: int = 1_000_000, random_state=None,
                 start=None) -> BilliardRun:
    """p+ for every test point from `n_chains` independent trajectories, with R-hat, ESS and MC error.

    Each trajectory starts at the maximum-margin point (or `start`), bounces `burn_in` times uncounted (which
    also sets its refresh clock), then flies in batches of bounces; the flight fraction on the + side of each
    batch is one draw for the diagnostics (`kgslab.diagnostics`).  n_bounces per trajectory: an integer, or
    "auto" (run until every p+ has MC error < target_error and R-hat < target_rhat, at most max_bounces per
    trajectory, with a ConvergenceWarning at the cap), or Hoeffding's n of eq. (8) when `epsilon` is given.

    How long "auto" runs is set by the uncertain test points: where p+ is near 1/2 a batch fraction has a
    spread of about 0.45, so MC error 0.01 needs about 2,000 effective draws, times the bounces it takes the
    trajectories to decorrelate (`benchmarks/agreement.py` measures both on the papers' data sets).  R-hat is
    waited for only where p+ is more than 2 target_error from 0 and 1: nearer, the label and c_trans are
    settled to the target, and the rank R-hat of a batch fraction that is 1 (or 0) in almost every batch is
    carried by the few batches that are not, so it can stay above target_rhat long after the MC error is met.
    """
    if K_test is None:   # KernelBilliard allows none (a trajectory to look at); here p+ is the answer
        raise TypeError("K_test must be the (m, l) cross-kernel of the test points, got None")
    lam = as_scalar(lam, "lam", low=0.0)
    n_chains = as_positive_int(n_chains, "n_chains")
    burn_in = as_positive_int(burn_in, "burn_in", minimum=0)
    eta = as_scalar(eta, "eta", low=0.0, high=1.0, low_open=True, high_open=True)   # also without epsilon
    target_error, target_rhat, max_bounces = check_targets(target_error, target_rhat, max_bounces, "max_bounces")
    if epsilon is not None:
        n_bounces = hoeffding_bounces(epsilon, eta)
    n_bounces = as_n_draws(n_bounces, "n_bounces")
    auto = n_bounces == "auto"
    limit = max_bounces if auto else n_bounces
    if limit > MAX_BOUNCES:
        raise ValueError(f"{'max_bounces' if auto else 'n_bounces'} must be at most {MAX_BOUNCES} per trajectory "
                         f"(got {limit}{'' if epsilon is None else f' from epsilon = {epsilon}'}): a run that long "
                         "takes hours")
    span = kernel_span(K, lam=lam)
    rng = as_generator(random_state)
    balls = [KernelBilliard(K, y, K_test, lam=lam, start=start, random_state=child, span=span)
             for child in rng.spawn(n_chains)]
    if refresh_every is None:
        refresh_every = max(10, span.gram.shape[0])
    refresh_every = as_scalar(refresh_every, "refresh_every", low=1.0)
    for ball in balls:
        ball.warm_up(burn_in, refresh_every)
    record = [[] for _ in balls]

    def draws():
        return np.array(record).reshape(n_chains, -1, len(balls[0].p_plus))   # (chains, batches, n_test)

    if auto:
        batch = 100

        def extend(n):
            _batches(balls, n, batch, record)
            return draws()

        result = run_until_converged(extend, first=20, max_draws=max(20, max_bounces // batch),
                                     target_error=target_error, target_rhat=target_rhat,
                                     what="the billiard (n_bounces='auto')", settled=2 * target_error)
        n_done = result.n_draws * batch
    else:
        n_batches = min(n_bounces, max(4, min(100, n_bounces // 20)))
        _batches(balls, n_batches - 1, n_bounces // n_batches, record)
        _batches(balls, 1, n_bounces - (n_batches - 1) * (n_bounces // n_batches), record)
        result = summarise(draws(), target_error, target_rhat, 2 * target_error) if n_batches >= 4 else None
        n_done = n_bounces
    time_plus = np.sum([ball.time_plus for ball in balls], axis=0)
    total = sum(ball.counted_arc for ball in balls)
    p_plus = time_plus / total if total > 0 else np.mean([ball.p_plus for ball in balls], axis=0)
    p_plus = np.where(balls[0]._orthogonal, 0.5, p_plus)
    return BilliardRun(p_plus=p_plus, n_bounces=n_done, **reported(result, len(p_plus)))


def billiard_probabilities(K, y, K_test, n_bounces="auto", *, n_chains: int = 4, lam: float = 0.0, epsilon=None,
                           eta: float = 0.01, burn_in: int = 100, refresh_every=None, random_state=None,
                           start=None, **targets) -> np.ndarray:
    """p+ for every test point: the fraction of flight length spent where sign <w, phi(x_test)> = +1.

    K (l, l) is the training kernel, y the labels (+-1 or 0/1), K_test (m, l) the cross-kernel.  Every
    trajectory serves every test point; `n_chains` independent trajectories are pooled (see `billiard_run`
    for the diagnostics and for n_bounces = "auto", the default).  With `epsilon` given, the number of
    bounces per trajectory comes from Hoeffding's rule (eq. 8) with confidence 1 - eta.

    lam > 0 is the soft version (K + lam I).  The direction is refreshed on a Poisson clock in arc length
    whose rate gives on average one refresh per `refresh_every` bounces (default max(10, l), which keeps
    the amortised cost of a bounce at O(l + m)); the rate is set from the mean flight length of the
    `burn_in` bounces, which are not counted.  With burn_in = 0 there is no refresh.
    """
    return billiard_run(K, y, K_test, n_bounces, n_chains=n_chains, lam=lam, epsilon=epsilon, eta=eta,
                        burn_in=burn_in, refresh_every=refresh_every, random_state=random_state, start=start,
                        **targets).p_plus


def transductive_confidence(p_plus) -> np.ndarray:
    """c_trans = 2 max(p+, p-) - 1 (eq. 7)."""
    p_plus = as_probabilities(p_plus, "p_plus")
    return 2.0 * np.maximum(p_plus, 1.0 - p_plus) - 1.0


class BayesianTransduction(KernelClassifier):
    """Bayesian transduction: labels by argmax p^y (eq. 6), confidence by eq. (7), volumes by a sampler.

    `fit` checks that version space exists and finds the starting point; each call of `predict`,
    `predict_proba` or `confidence` runs the sampler for all the points it is given.  `sampler`:

    * "billiard": the paper's kernel billiard, `n_chains` trajectories (default 4) of `n_bounces` bounces, or
      n_bounces "auto": until every p+ has MC error < target_error and R-hat < 1.01 (at most max_bounces).
    * "hmc": exact Hamiltonian Monte Carlo on the Gaussian truncated to version space (`kgslab.hmc`, the same
      posterior), `n_chains` chains (default 8) run to the same rule; n_bounces must be "auto".
    * "auto" (default): "hmc" when n_bounces is "auto" (it reaches the converged answer of a heart split in less
      CPU time than the billiard, with more effective samples per second: benchmarks/agreement.py,
      benchmarks/sampler_ess.py), the billiard when a number of bounces is asked for.

    burn_in, refresh_every and max_bounces are the billiard's.  The samplers depend only on the training data
    and the seed drawn at fit time, never on the test points; with a fixed n_bounces a point gets the same p+
    whichever batch it comes in, with "auto" the same up to its MC error.
    Predicting changes no attribute (so two threads may predict with one fitted model); `sampler_run(X)` returns
    the run behind the p+ of the rows of X with its diagnostics (R-hat, ESS, MC error, run length, converged).
    """

    _parameter_constraints = {**KERNEL_CONSTRAINTS, "n_bounces": N_DRAWS, "lam": [NON_NEGATIVE],
                              "burn_in": [NON_NEGATIVE_COUNT],
                              "refresh_every": [Interval(Real, 1, None, closed="left"), None], "n_chains": [COUNT, None],
                              "sampler": [Options({"auto", "billiard", "hmc"})], "target_error": [TARGET_ERROR],
                              "max_bounces": [Interval(Integral, 8, MAX_BOUNCES, closed="both")],
                              "random_state": RANDOM_STATE}
    _precomputed_expected_failures = SAMPLER_PRECOMPUTED_EXPECTED_FAILURES
    _hard_margin_expected_failures = HARD_MARGIN_PRECOMPUTED_EXPECTED_FAILURES
    _auto_expected_failures = TRANSDUCTION_AUTO_EXPECTED_FAILURES

    def __init__(self, n_bounces="auto", lam=0.0, kernel="precomputed", L=1.0, burn_in=100,
                 refresh_every=None, n_chains=None, target_error=0.01, max_bounces=1_000_000, random_state=None,
                 sampler="auto"):
        self.n_bounces = n_bounces
        self.lam = lam
        self.kernel = kernel
        self.L = L
        self.burn_in = burn_in
        self.refresh_every = refresh_every
        self.n_chains = n_chains
        self.target_error = target_error
        self.max_bounces = max_bounces
        self.random_state = random_state
        self.sampler = sampler

    @checks_parameters
    def fit(self, X, y):
        # each parameter is checked against _parameter_constraints; what is left is how two of them combine
        if self.sampler == "hmc" and not (isinstance(self.n_bounces, str) and self.n_bounces == "auto"):
            raise ValueError(f"n_bounces must be 'auto' with sampler='hmc' (exact HMC runs to its convergence "
                             f"rule; a number of bounces is the billiard's), got {self.n_bounces!r}")
        gram, y_pm1 = self._fit_inputs(X, y, psd=False)
        self.gram_, self.y_ = gram, y_pm1
        self.start_ = version_space_start(gram, y_pm1, lam=float(self.lam))
        self.seed_ = int(as_generator(self.random_state).integers(2**31 - 1))
        return self

    def _sampler(self):
        """"billiard" or "hmc": the one `sampler` names, or for "auto" the faster one for this run length."""
        if self.sampler != "auto":
            return self.sampler
        return "hmc" if isinstance(self.n_bounces, str) and self.n_bounces == "auto" else "billiard"

    def _run(self, K_test):
        if self._sampler() == "hmc":
            return hmc_run(self.gram_, self.y_, K_test, "auto", n_chains=self.n_chains or 8, lam=self.lam,
                           target_error=self.target_error, random_state=self.seed_, start=self.start_)
        return billiard_run(self.gram_, self.y_, K_test, self.n_bounces, n_chains=self.n_chains or 4,
                            lam=self.lam, burn_in=self.burn_in, refresh_every=self.refresh_every,
                            target_error=self.target_error, max_bounces=self.max_bounces,
                            random_state=self.seed_, start=self.start_)

    def _p_plus(self, K_test):
        return self._run(K_test).p_plus

    def sampler_run(self, X):
        """The sampler's run for the rows of X: p+ with its R-hat, ESS and MC error per row, the run length and
        whether it converged (a `BilliardRun`, or a `kgslab.hmc.HMCRun` for the HMC sampler).

        The run `predict`, `predict_proba` and `confidence` make for the same X (the same seed, the same p+).
        """
        check_is_fitted(self, "seed_")
        return self._run(self._cross_kernel(X))

    def _decision_gram(self, K_test):
        # p+ - 1/2: positive exactly when classes_[1] is the more probable label.
        return self._p_plus(K_test) - 0.5

    def predict_proba(self, X):
        """Columns (p-, p+): the estimated volume ratios for classes_[0] and classes_[1]."""
        p_plus = self._p_plus(self._cross_kernel(X))
        return np.column_stack([1.0 - p_plus, p_plus])

    def confidence(self, X):
        """c_trans = 2 max(p+, p-) - 1 (eq. 7) for every row of X."""
        return transductive_confidence(self._p_plus(self._cross_kernel(X)))


def error_rejection_curve(confidence, correct, thresholds):
    """For each threshold theta: the rejection rate (confidence < theta) and the error on the rest.

    Returns (rejection, error), arrays with one entry per threshold; the error is NaN where every point
    is rejected.
    """
    confidence = as_vector(confidence, "confidence")
    correct = as_correct_flags(correct, "correct", confidence.shape[0])
    thresholds = np.atleast_1d(as_float_array(thresholds, "thresholds", ndim=(0, 1)))
    rejected = confidence[None, :] < thresholds[:, None]
    accepted = ~rejected
    n_accepted = accepted.sum(axis=1)
    wrong = (accepted & ~correct[None, :]).sum(axis=1)
    error = np.divide(wrong, n_accepted, out=np.full(len(thresholds), np.nan), where=n_accepted > 0)
    return rejected.mean(axis=1), error

"""What the KGS samples are used for beyond the vote (section 4 of seed 001): the entropy of a candidate point for
active learning, the likelihood of eq. (3) and the evidence, the denominator of eq. (2), by thermodynamic
integration with the sampler itself.

Active learning.  With p+ = P(<W, x> > 0 | z), the vote of the posterior on a candidate x (eq. 4), the binary
entropy

    S(x, z) = -p+ log2 p+ - p- log2 p-                                                   (section 4)

is the information that the label of x would bring (query by committee): ask for the label where S is largest.

The likelihood (eq. 3) depends on w only through its number of training errors e = m R_emp[w, z]:

    ln L[w, z] = e ln q + (m - e) ln(1 - q) = m ln(1 - q) - t e,     t = ln((1 - q) / q).

The evidence E_W[L[W, z]] (the denominator of eq. 2) by thermodynamic integration.  With Z(s) = E_W[exp(-s e)],
d ln Z / ds = -E_s[e], where E_s is the expectation under exp(-s e) P_W: the KGS posterior with flip rate
1 / (1 + e^s).  So

    ln E_W[L[W, z]] = m ln(1 - q) + ln Z(t) = m ln(1 - q) - int_0^t E_s[e] ds,

and E_0[e] = m / 2 exactly (under the uniform prior every point is wrong with probability 1/2).  A ladder of KGS
runs from s = 0 to the largest t gives the evidence of every q at once.  Each rung runs `n_chains` independent
chains (advanced together by `kgslab._kgs_engine`): the R-hat and effective sample size of the error count say whether the rung
converged, and its Monte Carlo error sd / sqrt(ESS) comes from all the chains (`kgslab.diagnostics`).
The rungs run one after the other, or together by replica exchange (parallel tempering, `tempered=True`):
neighbouring rungs s_j < s_j+1 swap their states with probability min(1, exp((s_j+1 - s_j)(e_j+1 - e_j))),
which leaves every rung's posterior exact and lets a state stuck at large s (small q) escape through the small-s
rungs, where the sampler moves freely.  The integral
is by cumulative Simpson; the error of the evidence combines the rungs' Monte Carlo errors (through the trapezoid
weights; the rungs are independent runs) and the quadrature error |trapezoid - Simpson|.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.integrate import cumulative_simpson

from ._kgs_engine import Chains, PairTables, active_points, check_steps, start_points, steps
from ._validation import (as_bool, as_flip_rate, as_float_array, as_generator, as_pm1_labels, as_positive_int,
                          as_probabilities, as_scalar, as_signs)
from .diagnostics import ess, mcse, rhat
from .versionspace import kernel_coordinates

__all__ = ["binary_entropy", "training_errors", "log_likelihood", "EvidenceRun", "evidence_run", "label_noise_log_evidence"]


def binary_entropy(p_plus):
    """S = -p+ log2 p+ - p- log2 p- in bits (section 4, active learning); 0 log 0 = 0."""
    p = as_probabilities(p_plus, "p_plus")   # NaN refused: it would give -0. bits without a word
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = -(np.where(p > 0, p * np.log2(p), 0.0) + np.where(p < 1, (1 - p) * np.log2(1 - p), 0.0))
    return terms


ROWS_BYTES = 4_000_000   # `training_errors` counts a block of rows of at most about this many bytes at a time


def training_errors(outputs, y):
    """m R_emp: the number of training points with y_i <w, x_i> <= 0, for each row of outputs (n, m)."""
    outputs = np.atleast_2d(as_float_array(outputs, "outputs", ndim=(1, 2), copy=False))   # read, not changed
    y = as_signs(y, length=outputs.shape[1], length_of="the outputs' columns")
    # a block of rows at a time: the products y_i f_i of a large grid (notebook 08's Figure 1: 16,471 x 1,000)
    # would otherwise take as much memory again as the outputs, and their signs an eighth more
    rows = max(1, ROWS_BYTES // (8 * outputs.shape[1]))
    return np.concatenate([np.count_nonzero(y * outputs[start:start + rows] <= 0, axis=1)
                           for start in range(0, outputs.shape[0], rows)])


def log_likelihood(errors, n_points, q):
    """ln L[w, z] of eq. (3) from the error count e = m R_emp: e ln q + (m - e) ln(1 - q)."""
    q = as_flip_rate(q, allow_half=True)
    n_points = as_positive_int(n_points, "n_points")
    errors = as_float_array(errors, "errors")
    if np.any((errors < 0) | (errors > n_points) | (errors != np.round(errors))):
        raise ValueError(f"errors must be whole numbers of training errors in [0, n_points = {n_points}]")
    if q == 0.0:
        return np.where(errors == 0, 0.0, -np.inf)
    return errors * np.log(q) + (n_points - errors) * np.log1p(-q)


class EvidenceRun(NamedTuple):
    """The evidence by thermodynamic integration and what it rests on: per flip rate q, and per rung of the ladder.

    Rung 0 is the prior (s = 0), where E_0[e] = m / 2 is exact; the draws and their diagnostics (`error_draws`,
    `rhat`, `ess`) are those of the sampled rungs 1 .. n_rungs - 1, in that order.
    """

    log_evidence: np.ndarray        # ln E_W[L[W, z]] for each q
    standard_error: np.ndarray      # sqrt(monte_carlo_error^2 + quadrature_error^2) for each q
    monte_carlo_error: np.ndarray   # the larger of the rungs' errors propagated and the chains' spread, per q
    quadrature_error: np.ndarray    # |trapezoid - Simpson| up to t = ln((1 - q) / q), for each q
    ladder: np.ndarray              # s of each rung (n_rungs,): rung k samples the posterior of flip rate 1/(1+e^s)
    mean_errors: np.ndarray         # E_s[e] on each rung (n_rungs,), over all chains
    mc_error: np.ndarray            # its Monte Carlo standard error sd / sqrt(ESS of the mean); 0 on rung 0
    error_draws: np.ndarray         # training errors (n_chains, n_samples, n_rungs - 1) of every kept sample
    rhat: np.ndarray                # split, rank-normalised R-hat of the error count, per sampled rung
    ess: np.ndarray                 # bulk effective sample size of the error count (all chains), per sampled rung
    chain_log_evidence: np.ndarray  # (n_chains, len(q)): each chain's own ladder integrated alone; chains that
                                    # have not mixed disagree here by more than the standard error says
    swap_acceptance: np.ndarray | None = None   # tempered runs: the share of accepted swaps between rungs j, j + 1
                                                # (n_rungs - 1,); None for rung-by-rung runs

    @property
    def largest_rhat(self) -> float:
        """The largest R-hat over the sampled rungs (near 1 when every rung's chains agree)."""
        return float(np.max(self.rhat))

    @property
    def smallest_ess(self) -> float:
        """The smallest effective sample size over the sampled rungs."""
        return float(np.min(self.ess))


def _as_flip_rates(q):
    q_values = np.atleast_1d(as_float_array(q, "q (the assumed label flip rate)", ndim=(0, 1)))
    for value in q_values:
        as_scalar(float(value), "q (the assumed label flip rate)", low=0.0, high=0.5, low_open=True, high_open=True)
    return q_values


def _swap_log_ratio(s_low, s_high, errors_low, errors_high):
    """ln of the Metropolis ratio for exchanging the states of rungs s_low < s_high (replica exchange).

    Rung s has density exp(-s e) P_W(w) (up to its own constant).  Before the swap the pair has
    exp(-s_low e_low - s_high e_high), after it exp(-s_low e_high - s_high e_low): the ratio is
    exp((s_high - s_low) (e_high - e_low)), at least 1 when the hotter rung (s_low) holds the state with fewer
    errors, so good states move down the ladder towards large s.
    """
    return (s_high - s_low) * (errors_high - errors_low)


def _rung_by_rung_draws(features, y, ladder, n_chains, n_samples, thin, burn_in, rng):
    """The training errors (n_chains, n_samples, n_rungs - 1) of each rung's own chains, rung after rung, each
    chain warm-started where it ended the rung before."""
    # draws[c, j, k - 1]: the training errors of sample j of chain c on rung k
    draws = np.empty((n_chains, n_samples, len(ladder) - 1))
    starts = None
    for k in range(1, len(ladder)):
        rung_q = 1.0 / (1.0 + np.exp(ladder[k]))
        if starts is None:
            starts = start_points(features, y, rung_q, n_chains, rng)
        chains = Chains(features, y, rung_q, rng, starts)
        coords = chains.draw(n_samples, thin, burn_in)          # (n_chains, n_samples, r)
        starts = chains.coords
        draws[:, :, k - 1] = training_errors(coords.reshape(-1, coords.shape[2]) @ features.T, y).reshape(
            n_chains, n_samples)
    return draws


def _prior_points(rng, n, rank):
    """n points drawn uniformly on the unit sphere in `rank` dimensions (normalised Gaussians): the prior P_W."""
    points = rng.standard_normal((n, rank))
    points /= np.linalg.norm(points, axis=1, keepdims=True)
    return points


def _tempered_draws(features, y, ladder, n_chains, n_samples, thin, burn_in, swap_every, rng):
    """Replica exchange over the ladder: n_chains independent systems, each with one replica on every rung.

    Rung 0 (the prior, s = 0) is drawn afresh from the uniform prior before every swap (an exact draw is a valid
    move); rungs 1 .. are KGS steps at their own flip rates (`PairTables.stacked`), all rows advanced
    together.  Every `swap_every` steps the neighbouring pairs (j, j + 1) of each system, even j and odd j in
    turn, propose to exchange their states (coordinates and margins) with probability
    min(1, exp(_swap_log_ratio)).  Each move leaves the product of the rungs' posteriors invariant, so every
    rung's draws come from its own posterior.  Returns the training errors (n_chains, n_samples, n_rungs - 1)
    of the sampled rungs and the share of accepted swaps per neighbouring pair (n_rungs - 1,).
    """
    active = active_points(features)
    signed = y[active, None] * features[active]
    zero_points = features.shape[0] - signed.shape[0]     # always wrong: they add the same count on every rung
    n_rungs, k, rank = len(ladder), n_chains, signed.shape[1]
    # row rung * k + c holds system c's replica on that rung; rows k .. are the sampled rungs
    tables = PairTables.stacked(np.repeat(1.0 / (1.0 + np.exp(ladder[1:])), k), signed.shape[0])
    coords = _prior_points(rng, n_rungs * k, rank)       # every replica starts from the prior
    margins = coords @ signed.T
    sampled_coords, sampled_margins = coords[k:], margins[k:]     # views: the step moves them in place
    draws = np.empty((k, n_samples, n_rungs - 1))
    accepted, proposed = np.zeros(n_rungs - 1), np.zeros(n_rungs - 1)
    parity = 0
    for step in steps(signed, sampled_coords, sampled_margins, tables, rng, burn_in + n_samples * thin):
        if step % swap_every == swap_every - 1:
            # rung 0: an exact draw from the prior, needed only by the swaps (drawn where they need it)
            coords[:k] = _prior_points(rng, k, rank)
            margins[:k] = coords[:k] @ signed.T
            errors = np.count_nonzero(margins <= 0, axis=1).reshape(n_rungs, k)
            low = np.arange(parity, n_rungs - 1, 2)                # pairs (low, low + 1)
            parity = 1 - parity
            log_ratio = _swap_log_ratio(ladder[low, None], ladder[low + 1, None], errors[low], errors[low + 1])
            accept = np.log(rng.random(log_ratio.shape)) < log_ratio
            proposed[low] += k
            accepted[low] += accept.sum(axis=1)
            rung, chain = np.nonzero(accept)
            rows_low, rows_high = low[rung] * k + chain, (low[rung] + 1) * k + chain
            both, swapped = np.concatenate([rows_low, rows_high]), np.concatenate([rows_high, rows_low])
            coords[both] = coords[swapped]             # the states change rungs; the rungs stay put
            margins[both] = margins[swapped]
        if step >= burn_in and (step - burn_in) % thin == thin - 1:
            errors = np.count_nonzero(sampled_margins <= 0, axis=1) + zero_points
            draws[:, (step - burn_in) // thin] = errors.reshape(n_rungs - 1, k).T
    return draws, accepted / np.maximum(proposed, 1)


def evidence_run(K, y, q, *, n_rungs: int = 25, n_samples: int = 50, n_chains: int = 4, burn_in: int = 50,
                 thin: int = 3, tempered: bool = False, swap_every: int = 1, random_state=None) -> EvidenceRun:
    """ln E_W[L[W, z]] (the denominator of eq. 2) for one or more flip rates q > 0, with its errors and the
    convergence of every rung (an `EvidenceRun`; `label_noise_log_evidence` returns only the value and its error).

    The ladder has n_rungs values of s from 0 to the largest t = ln((1 - q) / q), spaced quadratically (E_s[e]
    falls steeply near s = 0, from m/2 to about the fewest errors, and is flat beyond).  On every rung after the
    first, n_chains independent KGS chains each run burn_in steps, then keep one sample every `thin` steps,
    n_samples per chain.  The chains of the first sampled rung start apart (`start_points`: the class-mean
    direction and points of the prior); each chain then starts a rung where it ended the one before (a warm
    start: the next posterior is close), so the chains stay independent of each other.
    The Monte Carlo error of the evidence is the larger of the rungs' errors (sd / sqrt(ESS) from all chains)
    propagated through the trapezoid weights and the spread of the chains' own estimates; the quadrature error
    is |trapezoid - Simpson|.  Read `largest_rhat` and `smallest_ess` before trusting either.

    tempered=True runs the rungs together instead, by replica exchange (`_tempered_draws`): each of the
    n_chains independent systems has a replica on every rung, all start from the prior, and after every
    `swap_every` steps neighbouring rungs propose to exchange their states.  A replica stuck in a poor cell at
    large s can climb to small s, where it moves freely, and come back elsewhere.  The work is the same as the
    rung-by-rung run with the same settings (burn_in + thin n_samples steps of every chain on every rung);
    `swap_acceptance` reports the share of accepted swaps per neighbouring pair.
    """
    features, _ = kernel_coordinates(K)
    m = features.shape[0]
    y = as_pm1_labels(y, "y", length=m, length_of="K")
    q_values = _as_flip_rates(q)
    n_rungs = as_positive_int(n_rungs, "n_rungs", minimum=3)
    n_samples = as_positive_int(n_samples, "n_samples", minimum=4)   # R-hat splits each chain in two
    n_chains = as_positive_int(n_chains, "n_chains", minimum=2)      # R-hat compares chains
    burn_in = as_positive_int(burn_in, "burn_in", minimum=0)
    thin = as_positive_int(thin, "thin")
    swap_every = as_positive_int(swap_every, "swap_every")
    tempered = as_bool(tempered, "tempered")
    check_steps(n_chains * n_rungs * (burn_in + thin * n_samples), "n_samples", n_samples)
    rng = as_generator(random_state)
    targets = np.log((1 - q_values) / q_values)
    ladder = float(np.max(targets)) * np.linspace(0.0, 1.0, n_rungs) ** 2

    # draws[c, j, k - 1]: the training errors of sample j of chain c on rung k
    if tempered and features.shape[1] > 1:    # (in one dimension the rung-by-rung draws are exact already)
        draws, swap_acceptance = _tempered_draws(features, y, ladder, n_chains, n_samples, thin, burn_in,
                                                 swap_every, rng)
    else:
        draws, swap_acceptance = _rung_by_rung_draws(features, y, ladder, n_chains, n_samples, thin, burn_in,
                                                     rng), None

    # Exact at s = 0: under the uniform prior each point is wrong with probability 1/2
    # (a point with a zero feature vector is always wrong).
    zero_points = m - np.count_nonzero(active_points(features))
    mean_errors = np.concatenate([[(m - zero_points) / 2.0 + zero_points], draws.mean(axis=(0, 1))])
    mc_error = np.concatenate([[0.0], mcse(draws)])

    exact = np.full((n_chains, 1), mean_errors[0])
    per_chain = cumulative_simpson(np.hstack([exact, draws.mean(axis=1)]), x=ladder, initial=0.0, axis=1)
    chain_log_evidence = m * np.log1p(-q_values) - np.array([np.interp(targets, ladder, row) for row in per_chain])
    simpson = cumulative_simpson(mean_errors, x=ladder, initial=0.0)
    widths = np.diff(ladder)
    trapezoid = np.concatenate([[0.0], np.cumsum(0.5 * widths * (mean_errors[1:] + mean_errors[:-1]))])
    # Monte-Carlo variance of the integral up to each rung: the rungs are independent runs,
    # and rung k enters the trapezoid rule with weight (width left + width right) / 2.
    monte_carlo_variance = np.zeros(n_rungs)
    for last in range(1, n_rungs):
        weights = np.zeros(n_rungs)
        weights[:last] += 0.5 * widths[:last]
        weights[1:last + 1] += 0.5 * widths[:last]
        monte_carlo_variance[last] = np.sum((weights * mc_error) ** 2)
    integral = np.interp(targets, ladder, simpson)
    quadrature = np.abs(np.interp(targets, ladder, trapezoid) - integral)
    # Two Monte Carlo errors from the chains: the rungs' errors (each from all chains' draws, through their
    # effective sample size) propagated to the integral, and the spread of the chains' own estimates (independent
    # repetitions, report.chain_mean).  With mixed chains they agree and the first is the steadier; chains
    # stuck in different modes show in the second first.  The larger is reported.
    propagated = np.sqrt(np.interp(targets, ladder, monte_carlo_variance))
    between_chains = chain_log_evidence.std(axis=0, ddof=1) / np.sqrt(n_chains)
    monte_carlo = np.maximum(propagated, between_chains)
    return EvidenceRun(log_evidence=m * np.log1p(-q_values) - integral,
                       standard_error=np.sqrt(monte_carlo**2 + quadrature**2), monte_carlo_error=monte_carlo,
                       quadrature_error=quadrature, ladder=ladder, mean_errors=mean_errors, mc_error=mc_error,
                       error_draws=draws, rhat=rhat(draws), ess=ess(draws), chain_log_evidence=chain_log_evidence,
                       swap_acceptance=swap_acceptance)


def label_noise_log_evidence(K, y, q, *, n_rungs: int = 25, n_samples: int = 50, n_chains: int = 4,
                             burn_in: int = 50, thin: int = 3, random_state=None):
    """(ln E_W[L[W, z]], standard error), each shaped like q: `evidence_run` without the diagnostics.

    The evidence of the KGS label-noise model (flip rate q, KGS eq. 3) with the prior uniform on the sphere; not
    `kgslab.regression.log_evidence`, the Gaussian process's ln p(y | K, sigma2).

    K: (m, m) symmetric PSD kernel matrix; y: labels in {-1, +1} (or {0, 1}); q in (0, 0.5), a number or a
    vector (one ladder serves them all).  The error combines the Monte Carlo error of the rungs (from their
    independent chains) and the quadrature error; `evidence_run` gives both apart, with every rung's R-hat and ESS.
    """
    run = evidence_run(K, y, q, n_rungs=n_rungs, n_samples=n_samples, n_chains=n_chains, burn_in=burn_in,
                       thin=thin, random_state=random_state)
    if np.ndim(q) == 0:
        return float(run.log_evidence[0]), float(run.standard_error[0])
    return run.log_evidence, run.standard_error

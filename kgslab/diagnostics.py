"""Convergence diagnostics for any sampler's output: R-hat, effective sample size, Monte Carlo standard error.

Current practice, as in Vehtari, Gelman, Simpson, Carpenter and Buerkner, "Rank-normalization, folding, and
localization: an improved R-hat for assessing convergence of MCMC", Bayesian Analysis 16 (2021) 667-718.

Input: `chains` of shape (n_chains, n_draws) for one scalar quantity (a vote indicator, a p+ of a batch of
billiard flight, a training-error count), or (n_chains, n_draws, n_quantities) for many at once.

* Split: each chain is cut in half, so a chain that drifts shows up as two halves that disagree.
* Rank normalisation: the pooled draws are replaced by normal scores z = Phi^-1((r - 3/8) / (S + 1/4)) of their
  ranks r (ties get their average rank), S the number of draws; this makes R-hat and ESS work for heavy tails
  and for bounded quantities such as 0/1 votes.
* R-hat (eq. 3-4 of the paper, on split, rank-normalised chains): with N draws per (split) chain, W the mean
  within-chain variance and B/N the variance of the chain means,
      var+ = (N - 1)/N W + B/N,     R-hat = sqrt(var+ / W);
  the reported R-hat is the larger of the bulk value and the value for the folded draws |x - median| (tails).
* ESS (eq. 10-11): S / tau with tau = 1 + 2 sum_t rho_t, the multi-chain autocorrelation
  rho_t = 1 - (W - mean_m autocov_m(t)) / var+, the sum cut by Geyer's initial positive and monotone
  sequence.  "bulk" is on the rank-normalised split chains; "mean" on the raw split chains (the one that
  gives the standard error of the mean).
* MCSE of the mean: sd / sqrt(ESS_mean).

A constant quantity (every draw the same, e.g. every sample votes +1 on a test point) has R-hat 1, ESS equal
to the number of draws and MCSE 0.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import ndtri
from scipy.stats import rankdata

from ._validation import as_float_array, as_positive_int, as_scalar, as_vector

__all__ = ["split_chains", "rank_normalise", "rhat", "ess", "mcse", "autocorrelation",
           "effective_sample_size", "Convergence", "summarise"]


def _as_chains(chains, name="chains", min_draws=4):
    """(n_chains, n_draws, n_quantities) float array from a 2-d or 3-d input."""
    array = as_float_array(chains, name, ndim=(2, 3))
    if array.ndim == 2:
        array = array[:, :, None]
    if array.shape[1] < min_draws:
        raise ValueError(f"{name} must have at least {min_draws} draws per chain, got {array.shape[1]}")
    return array


def _squeeze(values, chains):
    return float(values[0]) if np.asarray(chains).ndim == 2 else values


def split_chains(chains):
    """Cut every chain in two halves (dropping the middle draw of an odd length): (2 n_chains, n_draws // 2, k)."""
    array = _as_chains(chains)
    half = array.shape[1] // 2
    return np.concatenate([array[:, :half], array[:, array.shape[1] - half:]], axis=0)


def rank_normalise(chains):
    """Normal scores of the pooled ranks, per quantity (ties: average rank), same shape as the input."""
    array = _as_chains(chains, min_draws=1)
    n_chains, n_draws, k = array.shape
    size = n_chains * n_draws
    pooled = array.reshape(size, k)
    two_valued = _two_valued_ranks(pooled)
    if two_valued is not None:      # two normal scores per quantity, each computed once
        is_low, low_rank, high_rank = two_valued
        low_score, high_score = (ndtri((rank - 0.375) / (size + 0.25)) for rank in (low_rank, high_rank))
        return np.where(is_low, low_score, high_score).reshape(array.shape)
    return ndtri((rankdata(pooled, axis=0) - 0.375) / (size + 0.25)).reshape(array.shape)


def _two_valued_ranks(pooled):
    """(is_low, low_rank, high_rank) when every column holds at most two distinct values, else None.

    The samplers' votes are 0/1 draws: the n_low draws of the smaller value share the average rank (1 + n_low) / 2
    and the others n_low + (1 + n_high) / 2, the very numbers rankdata gives (halves of integers are exact), from
    a count instead of a sort of every column.
    """
    low, high = pooled.min(axis=0), pooled.max(axis=0)
    is_low = pooled == low
    n_low = is_low.sum(axis=0)
    n_high = (pooled == high).sum(axis=0)
    if not np.all((n_low + n_high == pooled.shape[0]) | (low == high)):
        return None
    return is_low, (1.0 + n_low) / 2, n_low + (1.0 + n_high) / 2


def _constant(array):
    return np.ptp(array.reshape(-1, array.shape[2]), axis=0) < 1e-12 * np.maximum(
        1.0, np.max(np.abs(array.reshape(-1, array.shape[2])), axis=0))


def _basic_rhat(array):
    n = array.shape[1]
    within = array.var(axis=1, ddof=1).mean(axis=0)
    between_over_n = array.mean(axis=1).var(axis=0, ddof=1)
    var_plus = (n - 1) / n * within + between_over_n
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sqrt(var_plus / within)


def rhat(chains):
    """Split, rank-normalised R-hat: max of the bulk and the folded (tail) value, per quantity.

    +inf when every split chain is constant but they disagree (the chains have not mixed at all).
    """
    array = _as_chains(chains)
    split = split_chains(array)
    return _squeeze(_rhat(array, split, rank_normalise(split)), chains)


def _rhat(array, split, scores):
    """R-hat of validated chains, given their split and its normal scores (`summarise` shares them with the ESS)."""
    bulk = _basic_rhat(scores)
    folded = np.abs(split - np.median(split.reshape(-1, split.shape[2]), axis=0))
    tail = _basic_rhat(rank_normalise(folded))
    values = np.fmax(bulk, tail)
    # constant: nothing to compare (an odd-length chain's split drops its middle draw, so test the split too)
    return np.where(_constant(array) | _constant(split), 1.0, values)


def _autocovariance(array):
    """Biased autocovariance along the draws, averaged over the chains, by FFT: (n_draws, k) for (n_chains, n_draws, k).

    The transform is linear, so the chains' power spectra are averaged before the one inverse transform.
    """
    n = array.shape[1]
    centred = array - array.mean(axis=1, keepdims=True)
    size = 1 << int(np.ceil(np.log2(2 * n)))
    spectrum = np.fft.rfft(centred, size, axis=1)
    power = (spectrum.real ** 2 + spectrum.imag ** 2).mean(axis=0)
    return np.fft.irfft(power, size, axis=0)[:n] / n


def _ess(array):
    """Multi-chain ESS of each quantity of (n_chains, n_draws, k), all quantities at once."""
    n_chains, n, k = array.shape
    autocov = _autocovariance(array)      # (n, k), the mean over the chains
    within = autocov[0] * n / (n - 1)
    var_plus = within * (n - 1) / n
    if n_chains > 1:
        var_plus = var_plus + array.mean(axis=1).var(axis=0, ddof=1)
    moves = var_plus > 0           # a quantity that never moves has ESS S (the callers' constant rule)
    rho = np.zeros((n, k))
    rho[:, moves] = 1.0 - (within[moves] - autocov[:, moves]) / var_plus[moves]
    return np.where(moves, n_chains * n / _tau(rho, n_chains), float(n_chains * n))


def _tau(rho, n_chains):
    """Integrated autocorrelation time 1 + 2 sum rho_t per column of rho (n lags, k quantities).

    Geyer's initial positive sequence (the paper's eq. 11): the pairs P_j = rho_2j + rho_2j+1 (rho_0 taken as 1)
    are summed while they are positive; the initial monotone sequence caps each pair by the one before (a
    running minimum); a positive rho_2j of the first pair not summed is added (Stan's improvement for antithetic
    chains).  At least 1 / log10(S), so the ESS of S draws is at most S log10(S).  Array operations over the
    quantities instead of a Python loop over the lags of each (`tests/test_diagnostics.py` keeps that loop as
    the reference): a sampler monitors thousands of test points or votes.
    """
    n, k = rho.shape
    last_pair = max(0, (n - 3) // 2)         # pairs beyond it would reach past the last lags the sequence reads
    pairs = np.empty((last_pair + 1, k))
    pairs[0] = 1.0 + rho[1]
    pairs[1:] = rho[2:2 * last_pair + 1:2] + rho[3:2 * last_pair + 2:2]
    stops = pairs <= 0
    # number of pairs summed: up to the first one that is not positive (P_0 included), at most last_pair
    summed = np.minimum(np.where(stops.any(axis=0), stops.argmax(axis=0), last_pair), last_pair)
    running = np.zeros((last_pair + 2, k))
    np.cumsum(np.minimum.accumulate(pairs, axis=0), axis=0, out=running[1:])
    columns = np.arange(k)
    even = np.where(summed > 0, rho[2 * summed, columns], 1.0)
    # the first pair not summed still counts with its even lag when that is positive, or when the pair
    # stopped the sum only by the length limit (the loop kept such a pair whole, its odd lag excepted)
    extra = np.where((summed == 0) | (pairs[summed, columns] >= 0) | (even > 0), even, 0.0)
    tau = -1.0 + 2.0 * running[summed, columns] + extra
    return np.maximum(tau, 1.0 / np.log10(n_chains * n))


def ess(chains, kind: str = "bulk"):
    """Effective sample size per quantity: kind "bulk" (rank-normalised split chains) or "mean" (raw split)."""
    if kind not in ("bulk", "mean"):
        raise ValueError(f"kind must be 'bulk' or 'mean', got {kind!r}")
    array = _as_chains(chains)
    split = split_chains(array)
    return _squeeze(_ess_of(array, rank_normalise(split) if kind == "bulk" else split), chains)


def _ess_of(array, split):
    """ESS of validated chains from their split (raw, or its normal scores); a constant quantity has S."""
    return np.where(_constant(array), float(array.shape[0] * array.shape[1]), _ess(split))


def mcse(chains):
    """Monte Carlo standard error of the mean of each quantity: sd / sqrt(ESS_mean)."""
    array = _as_chains(chains)
    return _squeeze(_mcse(array, split_chains(array)), chains)


def _mcse(array, split):
    sd = array.reshape(-1, array.shape[2]).std(axis=0, ddof=1)
    return np.where(_constant(array), 0.0, sd / np.sqrt(_ess_of(array, split)))


# ---- a single chain (notebook 08's autocorrelation plot) ----------------------------------------------------

def autocorrelation(chain, max_lag: int = 50):
    """Sample autocorrelation rho_0 .. rho_max_lag of one scalar chain (by FFT, O(n log n))."""
    chain = as_vector(chain, "chain")
    max_lag = as_positive_int(max_lag, "max_lag", minimum=0)
    covariance = _autocovariance(chain[None, :, None])[: min(max_lag, chain.shape[0] - 1) + 1, 0]
    if covariance[0] <= 0:
        raise ValueError("chain is constant: its autocorrelation is undefined")
    return covariance / covariance[0]


def effective_sample_size(chain):
    """ESS of one chain, n / (1 + 2 sum_k rho_k) with Geyer's initial monotone sequence (no split)."""
    chain = as_vector(chain, "chain")
    if np.ptp(chain) == 0:
        raise ValueError("chain is constant: its effective sample size is undefined")
    return float(_ess(chain[None, :, None])[0])


# ---- whether a multi-chain run has converged (kgslab.stopping runs samplers until it has) -------------------

class Convergence(NamedTuple):
    """Diagnostics of a multi-chain run, one entry per reported quantity."""

    rhat: np.ndarray        # split, rank-normalised R-hat
    ess: np.ndarray         # bulk effective sample size (in draws)
    mc_error: np.ndarray    # Monte Carlo standard error of the mean
    n_draws: int            # draws per chain
    converged: bool         # every mc_error < target_error, and rhat < target_rhat wherever the mean is
                            # more than target_error away from 0 and 1


# Quantities summarised together: a block of draws of at most about this many bytes.  The diagnostics of a block
# take about ten times its size (split, normal scores, folded draws, the padded spectra of the autocovariance);
# a vote on 760 test points of 4 chains x 2000 draws would take 450 MB at once, and blocks of 4 MB also run faster.
BLOCK_BYTES = 4_000_000


def _column_blocks(draws):
    """Slices of the quantities (last axis) into blocks of about BLOCK_BYTES, each of at least 2 quantities when
    there are 2 or more: every quantity's diagnostics come out the same to the last bit as from the whole array
    (NumPy reduces a lone column of a 2-d array in another order than a column among several)."""
    n_chains, n_draws, k = draws.shape
    per_block = max(2, BLOCK_BYTES // (8 * n_chains * n_draws))
    n_blocks = max(1, k // per_block)
    edges = np.arange(n_blocks + 1) * k // n_blocks      # every block has at least per_block quantities
    return [slice(start, stop) for start, stop in zip(edges[:-1], edges[1:])]


def _summarise_block(draws):
    """(R-hat, bulk ESS, MCSE) of validated draws (n_chains, n_draws, k)."""
    split = split_chains(draws)
    scores = rank_normalise(split)     # the bulk R-hat and the bulk ESS read the same normal scores
    return _rhat(draws, split, scores), _ess_of(draws, scores), _mcse(draws, split)


def summarise(draws, target_error: float = 0.01, target_rhat: float = 1.01, settled=None) -> Convergence:
    """R-hat, ESS and MCSE of draws (n_chains, n_draws, k) of probabilities, and whether they meet the targets.

    `settled` (default target_error): a probability within this distance of 0 or 1 is settled for what the
    kit reports (label and confidence to +-target_error); its rank-based R-hat, computed from a few rare
    draws below 1 (or above 0) among ties, is reported but does not hold up the run.
    """
    draws = _as_chains(draws, "draws")
    target_error, target_rhat = stopping_targets(target_error, target_rhat)
    if settled is not None:
        settled = as_scalar(settled, "settled", low=0.0, high=0.5)
    r_hat, effective, error = (np.concatenate(parts) for parts in zip(
        *(_summarise_block(draws[:, :, columns]) for columns in _column_blocks(draws))))
    settled = target_error if settled is None else settled
    mean = draws.mean(axis=(0, 1))
    open_ = (mean > settled) & (mean < 1 - settled)
    converged = bool(np.all(error < target_error) and np.all(r_hat[open_] < target_rhat))
    return Convergence(rhat=r_hat, ess=effective, mc_error=error, n_draws=draws.shape[1], converged=converged)


def stopping_targets(target_error, target_rhat):
    """Validate the targets a run is summarised against (a bad one could make an "auto" run go on for ever)."""
    target_error = as_scalar(target_error, "target_error", low=1e-4, high=0.5)
    target_rhat = as_scalar(target_rhat, "target_rhat", low=1.0, low_open=True, high=2.0)
    return target_error, target_rhat

"""Exact KGS posteriors on the circle (R^2) and the sphere (R^3), for the tests of kgs, evidence and the engine.

With the linear kernel in R^d the hypothesis space is the unit sphere S^(d-1) itself, small enough to integrate
the posterior of eqs. (2)-(3) of seed 001 on a fine grid (a uniform grid of angles on the circle, a Fibonacci
lattice on the sphere).  Written in plain numpy, independently of kgslab.
"""

import numpy as np


def circle_grid(n=200_000):
    angles = (np.arange(n) + 0.5) * 2 * np.pi / n
    return np.column_stack([np.cos(angles), np.sin(angles)])


def sphere_grid(n=200_000):
    """Fibonacci lattice: n nearly equal-area points on S^2."""
    index = np.arange(n) + 0.5
    z = 1 - 2 * index / n
    azimuth = np.pi * (1 + 5**0.5) * index
    radius = np.sqrt(1 - z**2)
    return np.column_stack([radius * np.cos(azimuth), radius * np.sin(azimuth), z])


def exact_posterior(grid, X, y, q):
    """Posterior weights of the grid points: q^e (1-q)^(m-e), normalised (uniform prior)."""
    errors = np.count_nonzero(y[None, :] * (grid @ X.T) <= 0, axis=1)
    if q == 0:
        weights = (errors == 0).astype(float)
    else:
        log_w = errors * np.log(q) + (len(y) - errors) * np.log(1 - q)
        weights = np.exp(log_w - log_w.max())
    return weights / weights.sum()


def exact_vote(grid, X, y, q, X_test):
    weights = exact_posterior(grid, X, y, q)
    return (grid @ X_test.T > 0).T.astype(float) @ weights


def exact_log_evidence(grid, X, y, q):
    errors = np.count_nonzero(y[None, :] * (grid @ X.T) <= 0, axis=1)
    log_l = errors * np.log(q) + (len(y) - errors) * np.log(1 - q)
    top = log_l.max()
    return top + np.log(np.mean(np.exp(log_l - top)))


def problem(d, m, flips, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, d))
    w_true = np.zeros(d)
    w_true[0] = 1.0
    y = np.where(X @ w_true > 0, 1.0, -1.0)
    y[:flips] *= -1
    X_test = rng.standard_normal((100, d))
    return X, y, X_test

"""Convergence diagnostics: the bulk ESS of many quantities at once against ArviZ's on the same array.

The samplers report an ESS for every monitored point (the billiard's test points, the KGS's monitored votes),
thousands of them on a large test set.  Row: `kgslab.diagnostics.ess` on (4 chains, 1000 draws, 2000 quantities),
a mix of AR(1) chains with coefficients 0-0.95 and 0/1 votes, against `arviz.ess(method="bulk")` on the same
draws (ArviZ is in the test extra).  Both rank-normalise every quantity's pooled draws (scipy's rankdata), which
is most of either's time.  The note says the largest relative difference of the two answers.
"""

import warnings

import numpy as np
from harness import Row, best_time

from kgslab import diagnostics


def _draws(n_chains, n_draws, n_quantities, seed=0):
    rng = np.random.default_rng(seed)
    coefficient = rng.uniform(0.0, 0.95, n_quantities)
    draws = np.zeros((n_chains, n_draws, n_quantities))
    noise = rng.standard_normal((n_chains, n_draws, n_quantities))
    for t in range(1, n_draws):
        draws[:, t] = coefficient * draws[:, t - 1] + noise[:, t]
    votes = n_quantities // 4
    draws[:, :, :votes] = draws[:, :, :votes] > 0.5          # a quarter are 0/1 votes, as the KGS monitors
    return draws


def rows(quick: bool = False):
    import arviz

    shape = (4, 100, 50) if quick else (4, 1000, 2000)
    repeat = 1 if quick else 3
    draws = _draws(*shape)
    dataset = arviz.convert_to_dataset({"x": draws})

    def peer():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")      # ArviZ announces its refactor
            return arviz.ess(dataset, method="bulk")["x"].values

    ours, theirs = diagnostics.ess(draws), peer()
    difference = float(np.max(np.abs(ours - theirs) / theirs))
    note = (f"{shape[2]} quantities, {shape[0]} chains x {shape[1]} draws; "
            f"{'same' if difference < 1e-8 else 'DIFFERENT'} ESS (largest relative difference {difference:.1e})")
    return [Row(f"bulk ESS of {shape[2]} quantities", best_time(lambda: diagnostics.ess(draws), repeat),
                "arviz.ess(method='bulk')", best_time(peer, repeat), note)]

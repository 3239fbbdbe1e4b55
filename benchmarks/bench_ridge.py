"""Ridge regression: kgslab's primal and dual solvers against scikit-learn's Ridge.

sklearn's Ridge minimises ||y - Xw||^2 + a ||w||^2, so a = gamma * l gives the
coursework's solution.  Primal wins when l >> d, dual when d >> l.
"""

import numpy as np
from harness import Row, best_time
from sklearn.linear_model import Ridge

from kgslab.regression import ridge, ridge_dual


def rows(quick: bool = False):
    repeat = 1 if quick else 5
    shapes = [(200, 20), (50, 400)] if quick else [(2000, 100), (200, 4000)]
    gamma = 1e-2
    out = []
    for n, d in shapes:
        rng = np.random.default_rng(0)
        X = rng.standard_normal((n, d))
        y = X @ rng.standard_normal(d) + 0.1 * rng.standard_normal(n)
        peer = Ridge(alpha=gamma * n, fit_intercept=False, solver="cholesky")
        peer_time = best_time(lambda: peer.fit(X, y), repeat)
        w_peer = peer.coef_
        primal_time = best_time(lambda: ridge(X, y, gamma), repeat)
        dual_time = best_time(lambda: ridge_dual(X, y, gamma), repeat)
        agree = np.allclose(ridge(X, y, gamma), w_peer, rtol=1e-6, atol=1e-8) and \
            np.allclose(X.T @ ridge_dual(X, y, gamma), w_peer, rtol=1e-6, atol=1e-8)
        note = "same w" if agree else "DIFFERENT w"
        out.append(Row(f"ridge (primal), l={n}, d={d}", primal_time, "sklearn Ridge(cholesky)", peer_time, note))
        out.append(Row(f"ridge_dual, l={n}, d={d}", dual_time, "sklearn Ridge(cholesky)", peer_time, note))
    return out

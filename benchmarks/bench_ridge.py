"""Ridge regression: kgslab's primal and dual solvers against scikit-learn's Ridge, kernel ridge against KernelRidge.

sklearn's Ridge minimises ||y - Xw||^2 + a ||w||^2, so a = gamma * l gives the
coursework's solution.  Primal wins when l >> d, dual when d >> l.
kgslab's kernel_ridge does one eigendecomposition (its PSD check, the rounding cut-off and the solve);
sklearn's KernelRidge one Cholesky factorisation, with no check.
"""

import numpy as np
from harness import Row, best_time
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import Ridge

from kgslab.data import sinc_data
from kgslab.kernels import rbf_kernel
from kgslab.regression import kernel_ridge, ridge, ridge_dual


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
    for n in ([100] if quick else [300, 1000]):
        X, y = sinc_data(n, random_state=0)
        K = rbf_kernel(X, L=0.5)
        peer = KernelRidge(kernel="precomputed", alpha=gamma * n)
        peer_time = best_time(lambda: peer.fit(K, y), repeat)
        kit_time = best_time(lambda: kernel_ridge(K, y, gamma), repeat)
        agree = np.allclose(kernel_ridge(K, y, gamma), peer.dual_coef_, rtol=1e-8, atol=1e-10)
        out.append(Row(f"kernel_ridge (RBF), l={n}", kit_time, "sklearn KernelRidge(precomputed)", peer_time,
                       "same alpha" if agree else "DIFFERENT alpha"))
    return out

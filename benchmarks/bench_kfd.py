"""LabelNoiseKFD: fit time against n with n_basis fixed must grow linearly in n (seed 003, section 4).

A fit costs the n x b kernel to the basis and one product K_basis' K_basis
(O(n b^2), formed once per fit), then O(n b + b^3) per EM iteration, with
b = n_basis basis points: with b fixed, linear in n.  Each row times a fit
with a fixed number of EM iterations (15, the authors' digits setting; tol=0 so
every size runs all of them) against a peer of known linear cost measured in
the same run: one product K_basis' K_basis of the n x b kernel to the basis
(n b^2 flops; before issue 17 the fit formed it at every iteration, so the
ratio was about 15, the number of iterations).  A constant
ratio across the rows means linear growth; the note also gives the growth of
the fit time from the previous row, t(n) / t(n / 2), which should be near 2.
The last rows compare with the full expansion (n_basis = n, O(n^3)) that the
basis subset avoids.  BLAS runs on one thread (threadpoolctl) so that the
timings measure the algorithm, not the contention on a shared machine.
"""

import numpy as np
from harness import Row, best_time
from threadpoolctl import threadpool_limits

from kgslab.kernels import rbf_kernel
from kgslab.kfd import LabelNoiseKFD


def _noisy_blobs(n, d=20, noise_rate=0.2, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.5).astype(int)
    X = rng.standard_normal((n, d)) + 1.5 * y[:, None] * np.ones(d) / np.sqrt(d)
    flipped = rng.random(n) < noise_rate
    return X, np.where(flipped, 1 - y, y)


def rows(quick: bool = False):
    with threadpool_limits(1):
        return _rows(quick)


def _rows(quick):
    repeat = 1 if quick else 2
    n_basis = 50 if quick else 200
    sizes = [250, 500] if quick else [500, 1000, 2000, 4000, 8000]
    out = []
    previous = None
    for n in sizes:
        X, y = _noisy_blobs(n)
        model = LabelNoiseKFD(mu=1e-6, n_basis=n_basis, max_iter=15, tol=0.0, kernel="rbf", L=4.0,
                              random_state=0)
        fit_time = best_time(lambda: model.fit(X, y), repeat)
        K_basis = rbf_kernel(X, X[model.basis_], L=4.0)
        product_time = best_time(lambda: K_basis.T @ K_basis, repeat)
        growth = "" if previous is None else f"t(n)/t(n/2) = {fit_time / previous:.2f}; "
        previous = fit_time
        out.append(Row(f"LabelNoiseKFD.fit n={n}, n_basis={n_basis}, 15 EM its", fit_time,
                       f"K_basis' K_basis ({n} x {n_basis})", product_time,
                       f"{growth}{fit_time / n * 1e6:.1f} us per point; flip rates "
                       f"{model.flip_rates_[0]:.2f}, {model.flip_rates_[1]:.2f}"))
    for n in ([250] if quick else [500, 1000]):
        X, y = _noisy_blobs(n)
        subset = LabelNoiseKFD(mu=1e-6, n_basis=n_basis, max_iter=15, tol=0.0, kernel="rbf", L=4.0, random_state=0)
        full = LabelNoiseKFD(mu=1e-6, n_basis=None, max_iter=15, tol=0.0, kernel="rbf", L=4.0)
        subset_time = best_time(lambda: subset.fit(X, y), repeat)
        full_time = best_time(lambda: full.fit(X, y), 1)
        agree = np.mean(subset.predict(X) == full.predict(X))
        out.append(Row(f"LabelNoiseKFD.fit n={n}, n_basis={n_basis} vs all n", subset_time,
                       "LabelNoiseKFD n_basis=None (O(n^3))", full_time, f"predictions agree on {agree:.1%}"))
    return out

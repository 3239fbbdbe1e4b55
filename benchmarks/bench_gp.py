"""GP evidence curve: kgslab's log_evidence against a loop of scikit-learn's GaussianProcessRegressor.

Exercise 4a plots ln p(y) (eq. 16) against sigma^2.  scikit-learn gets each
point of the curve from a fresh fit (kernel matrix, Cholesky of K + sigma^2 I,
log_marginal_likelihood_value_); kgslab builds K once, decomposes it once
(K = U diag(lambda) U') and then pays O(l) per sigma^2.  Both timings include
building the RBF kernel matrix from the data, so they do the same job.
"""

import numpy as np
from harness import Row, best_time
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF

from kgslab.data import sinc_data
from kgslab.kernels import rbf_kernel
from kgslab.regression import log_evidence

LENGTH_SCALE = 0.5


def _kgslab_curve(X, y, sigma2s):
    return log_evidence(rbf_kernel(X, L=LENGTH_SCALE), y, sigma2s)


def _sklearn_curve(X, y, sigma2s):
    return np.array([
        GaussianProcessRegressor(kernel=RBF(LENGTH_SCALE), alpha=sigma2, optimizer=None)
        .fit(X, y).log_marginal_likelihood_value_
        for sigma2 in sigma2s
    ])


def rows(quick: bool = False):
    n_points, n_sigma2, repeat = (200, 20, 1) if quick else (1000, 200, 3)
    X, y = sinc_data(n_points, noise=0.3, random_state=0)
    # From well below to well above the true noise 0.3^2; the low end is where K + sigma^2 I is
    # nearly singular and accuracy is tested.
    sigma2s = np.logspace(-4, 1, n_sigma2)
    curves = {}
    kgslab_time = best_time(lambda: curves.update(ours=_kgslab_curve(X, y, sigma2s)), repeat)
    # The peer's loop takes minutes on a busy machine: one timed run, which also gives its values.
    peer_time = best_time(lambda: curves.update(theirs=_sklearn_curve(X, y, sigma2s)), 1)
    worst = float(np.max(np.abs(curves["ours"] - curves["theirs"]) / np.abs(curves["theirs"])))
    note = f"same values (max rel. diff {worst:.1e})" if worst < 1e-8 else f"DIFFERENT values (rel. {worst:.1e})"
    return [Row(f"log evidence curve, {n_sigma2} sigma^2, l={n_points}", kgslab_time,
                f"sklearn GPR loop ({n_sigma2} fits)", peer_time, note)]

"""The kernel perceptron: kgslab against scikit-learn's Perceptron and against the plain dual loop.

Row 1, a linear problem: ``KernelPerceptron(kernel="linear").fit`` against
scikit-learn's compiled primal Perceptron with the same update rule
(y <w, x> <= 0, step 1, no bias, no shuffle) for exactly as many epochs as
kgslab needed (tol off), so both end at the same w (the note says whether they
did).  kgslab's time includes building and checking the Gram matrix.  The dual
cannot win here: it pays O(m^2) for the Gram matrix and O(m) per update where
the primal pays O(d); its use is the kernel.

Row 2, a kernel problem (RBF on noisy XOR data, K + 0.1 I, where a line would
not do): ``kernel_perceptron`` run to separation against scikit-learn's SVC on
the same precomputed K + 0.1 I (libsvm, C = 1e6, so also a separating
classifier, with a bias and the maximum margin).  Not the same algorithm: the
row says what separation costs each way; the note gives both training errors.
"""

import warnings

import numpy as np
from harness import Row, best_time
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Perceptron
from sklearn.svm import SVC

from kgslab.data import xor_data
from kgslab.kernels import rbf_kernel
from kgslab.perceptron import KernelPerceptron, kernel_perceptron


def linear_problem(m, d, seed=0):
    """m points in R^d separated by a hyperplane through 0 with margin 0.1 (so the perceptron stops)."""
    rng = np.random.default_rng(seed)
    direction = rng.standard_normal(d)
    direction /= np.linalg.norm(direction)
    X = rng.standard_normal((m, d))
    distance = X @ direction
    X += np.outer(0.1 * np.sign(distance), direction)  # push every point 0.1 further from the plane
    y = np.where(distance > 0, 1.0, -1.0)
    return X, y


def rows(quick: bool = False):
    repeat = 1 if quick else 5
    sizes = [200] if quick else [500, 1000, 2000]
    out = []
    for m in sizes:
        X, y = linear_problem(m, 10)
        model = KernelPerceptron(kernel="linear")
        kgslab_time = best_time(lambda: model.fit(X, y), repeat)
        epochs = model.n_iter_
        peer = Perceptron(fit_intercept=False, shuffle=False, max_iter=epochs, tol=None, eta0=1.0, penalty=None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            peer_time = best_time(lambda: peer.fit(X, y), repeat)
        same = np.allclose(X.T @ model.dual_coef_, peer.coef_.ravel())
        out.append(Row(f"KernelPerceptron(linear).fit, m={m}, d=10, {epochs} epochs", kgslab_time,
                       "sklearn Perceptron (primal, C)", peer_time, "same w" if same else "DIFFERENT w"))

        X, y = xor_data(m, noise=0.5, random_state=0)
        K_tilde = rbf_kernel(X, L=0.5) + 0.1 * np.eye(m)
        run = kernel_perceptron(K_tilde, y)
        core_time = best_time(lambda: kernel_perceptron(K_tilde, y), repeat)
        svm = SVC(kernel="precomputed", C=1e6)
        svm_time = best_time(lambda: svm.fit(K_tilde, y), repeat)
        perceptron_errors = int(np.sum(y * (K_tilde @ (run.alpha * y)) <= 0))
        svm_errors = int(np.sum(svm.predict(K_tilde) != y))
        out.append(Row(f"kernel_perceptron(rbf K + 0.1 I), m={m}, {run.n_epochs} epochs", core_time,
                       "sklearn SVC(precomputed, C=1e6)", svm_time,
                       f"training errors {perceptron_errors} vs {svm_errors}"))
    return out

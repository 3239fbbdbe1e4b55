"""The kernel adatron's loop (coursework, seed 004, section 3), shared by `kgslab.adatron.KernelAdatron` and the
exercise references of notebook 05 (`kgslab.adatron_reference`); see `kgslab.adatron` for the algorithm.

A private module: the loop is not part of the kit's API.
"""

from __future__ import annotations

import numpy as np

from ._validation import as_positive_int, as_scalar, check_work_budget

# An iteration is a few numpy calls on l-vectors (some 10 microseconds for the kit's sizes): 1e7 of
# them is minutes of work, and on data where the box never settles more would look like a hang.
MAX_ITERATIONS = 1e7


def check_parameters(C, eta, tol, max_iter, n_points):
    C = as_scalar(C, "C", low=0.0, low_open=True)
    eta = as_scalar(eta, "eta", low=0.0, low_open=True)
    tol = as_scalar(tol, "tol", low=0.0)
    max_iter = 10 * n_points if max_iter is None else as_positive_int(max_iter, "max_iter")
    check_work_budget(max_iter, MAX_ITERATIONS, "max_iter", max_iter, "iterations")
    return C, eta, tol, max_iter


def coordinate_ascent(K, y, C, eta, tol, max_iter, bias):
    """The loop of the handout on validated inputs (the algorithm: `kgslab.adatron`'s docstring)."""
    n_points = K.shape[0]
    alpha = np.zeros(n_points)
    b = 0.0
    kernel_times_signed_alpha = np.zeros(n_points)   # K (y o alpha), kept up to date
    y_dot_alpha = 0.0                                  # y'alpha, for the bias step
    current_objective = 0.0                            # f(alpha), kept up to date too
    objective = []
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        z = kernel_times_signed_alpha + b              # step 1: predictions on the training set
        gradient = 1.0 - y * z                          # step 2
        beta = np.clip(alpha + eta * gradient, 0.0, C)  # step 3
        change = np.abs(alpha - beta)
        i = int(np.argmax(change))                      # step 4
        if change[i] < tol:
            n_iter -= 1                                 # this pass changed nothing
            break
        delta = beta[i] - alpha[i]
        signed_delta = y[i] * delta
        # f changes by delta - (signed_delta (K s)_i + signed_delta^2 K_ii / 2), with s = y o alpha.
        current_objective += delta - signed_delta * (kernel_times_signed_alpha[i] + 0.5 * signed_delta * K[i, i])
        objective.append(current_objective)
        alpha[i] = beta[i]                              # step 5
        kernel_times_signed_alpha += K[i] * signed_delta   # row i = column i (K is symmetric), contiguous
        y_dot_alpha += signed_delta
        if bias:
            b += y_dot_alpha / 4.0                      # step 6
    return alpha, b, n_iter, np.array(objective)

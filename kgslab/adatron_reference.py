"""The handout's two kernel adatron algorithms in the form notebook 05 asks for them (exercise references).

Coursework (seed 004), section 3: the adatron without bias returns alpha, the one with bias (alpha, b).  Both
are `kernel_adatron` (the loop of `kgslab.adatron.KernelAdatron`, as a function) with the handout's stopping
rule; the checks of notebooks 05 and 06 compare the student's functions with these.  They live apart from
`kgslab.adatron`, which notebook 05 imports for its estimator, so that the notebook does not lead the student to
the exercise's answer.
"""

from __future__ import annotations

from ._validation import as_bool, as_gram, as_pm1_labels
from ._adatron_loop import check_parameters, coordinate_ascent

__all__ = ["kernel_adatron", "adatron_no_bias", "adatron_with_bias"]


def kernel_adatron(K, y, C: float = 1.0, eta: float = 1.0, tol: float = 0.005, max_iter: int | None = None,
                   bias: bool = True):
    """Run the kernel adatron on a Gram matrix K with labels y in {-1, +1}.

    Returns (alpha, b, n_iter, objective): the dual coefficients, the bias
    (0 when bias=False), the number of iterations made (each changes one
    alpha_i), and the dual objective f(alpha) after each iteration.
    max_iter defaults to 10 l, as the handout suggests.
    """
    K = as_gram(K, "K", psd=False)
    y = as_pm1_labels(y, "y", length=K.shape[0], length_of="K")
    bias = as_bool(bias, "bias")
    return coordinate_ascent(K, y, *check_parameters(C, eta, tol, max_iter, K.shape[0]), bias=bias)


def adatron_no_bias(K, y, C, eta=1.0, tol=0.005, max_iter=None):
    """The handout's first algorithm (no bias), as notebook 05 asks for it: alpha only."""
    return kernel_adatron(K, y, C=C, eta=eta, tol=tol, max_iter=max_iter, bias=False)[0]


def adatron_with_bias(K, y, C, eta=1.0, tol=0.005, max_iter=None):
    """The handout's second algorithm, as notebook 05 asks for it: (alpha, b)."""
    alpha, b, _, _ = kernel_adatron(K, y, C=C, eta=eta, tol=tol, max_iter=max_iter, bias=True)
    return alpha, b

"""The handout's two kernel adatron algorithms in the form notebook 05 asks for them (exercise references).

Coursework (seed 004), section 3: the adatron without bias returns alpha, the one with bias (alpha, b).  Both
are the kit's `kgslab.adatron.kernel_adatron` with the handout's stopping rule; the checks of notebooks 05 and
06 compare the student's functions with these.  They live apart from `kgslab.adatron`, which notebook 05
imports for its estimator, so that the notebook does not lead the student to the exercise's answer.
"""

from __future__ import annotations

from . import adatron

__all__ = ["adatron_no_bias", "adatron_with_bias"]


def adatron_no_bias(K, y, C, eta=1.0, tol=0.005, max_iter=None):
    """The handout's first algorithm (no bias), as notebook 05 asks for it: alpha only."""
    return adatron.kernel_adatron(K, y, C=C, eta=eta, tol=tol, max_iter=max_iter, bias=False)[0]


def adatron_with_bias(K, y, C, eta=1.0, tol=0.005, max_iter=None):
    """The handout's second algorithm, as notebook 05 asks for it: (alpha, b)."""
    alpha, b, _, _ = adatron.kernel_adatron(K, y, C=C, eta=eta, tol=tol, max_iter=max_iter, bias=True)
    return alpha, b

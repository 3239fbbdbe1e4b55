"""The kernel adatron against scikit-learn's SVC (libsvm) on the coursework task of Exercise 6.

English against French, the 390 documents of the two languages, the
normalised 2-mer kernel (Exercise 5a), eta = 1.  Both fit the same
precomputed Gram matrix; the timed operation is `fit`.  The note gives each
classifier's accuracy by 5-fold cross-validation grouped by article (an
article and its translation always in the same fold), the adatron's number
of iterations and the relative gap between the two dual objectives.

With the shipped corpus missing (a fresh checkout before `make data`) the
module yields no rows rather than timing something else.
"""

import numpy as np
from harness import Row, best_time
from sklearn.model_selection import GroupKFold, cross_val_score
from sklearn.svm import SVC

from kgslab import data
from kgslab.adatron import KernelAdatron, dual_objective
from kgslab.kernels import normalise


def _english_french(quick: bool):
    K_2mer = data.load_kernels().K_2mer
    articles = np.arange(0, 195, 3) if quick else np.arange(195)
    documents = np.r_[articles, articles + 195]          # english block, then french block
    y = np.r_[-np.ones(len(articles)), np.ones(len(articles))]
    return normalise(K_2mer[np.ix_(documents, documents)]), y, np.r_[articles, articles]


def rows(quick: bool = False):
    try:
        K, y, groups = _english_french(quick)
    except FileNotFoundError:
        return []
    repeat = 1 if quick else 5
    out = []
    for C in (1.0, 0.1):
        ours = KernelAdatron(C=C, eta=1.0)
        peer = SVC(kernel="precomputed", C=C)
        ours_time = best_time(lambda: ours.fit(K, y), repeat)
        peer_time = best_time(lambda: peer.fit(K, y), repeat)
        svc_alpha = np.zeros(len(y))
        svc_alpha[peer.support_] = np.abs(peer.dual_coef_[0])
        gap = dual_objective(K, y, svc_alpha) - dual_objective(K, y, ours.alpha_)
        cv = GroupKFold(5)
        ours_accuracy = cross_val_score(ours, K, y, groups=groups, cv=cv).mean()
        peer_accuracy = cross_val_score(peer, K, y, groups=groups, cv=cv).mean()
        note = (f"CV accuracy {ours_accuracy:.3f} vs {peer_accuracy:.3f}; {ours.n_iter_} iterations; "
                f"dual objective {gap / dual_objective(K, y, svc_alpha):.1e} below libsvm's")
        out.append(Row(f"KernelAdatron.fit, {len(y)} en+fr docs, 2-mer, C={C:g}", ours_time,
                       "SVC(kernel='precomputed')", peer_time, note))
    return out

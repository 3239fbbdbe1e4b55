"""Exercise 7's experiments on the corpus: time a kernel, compare two kernels, classify pairs of languages.

Coursework (seed 004), section 4, Exercise 7: "Implement the bag of words
kernel ... Test it on the documents of the swiss constitution using the kernel
adatron. Compare your results with the precomputed kernels and give running
times for computing the kernel."  Notebook 06 asks the student to write each of
these three experiments as a function; these are the kit's references.

* `kernel_timings`: the handout's tic/toc, best of `repeat` runs, for each
  kernel function on the first n documents, n in `sizes`.
* `pair_group_means`: two kernels compared where they differ, by kind of pair:
  the mean normalised value (eq. 19) over the pairs i < j of documents in the
  same language, in different languages (not translations), and translations
  (the same article in two languages).
* `pair_accuracy`: the adatron classifying one language against another, by
  cross-validation with folds grouped by article (a translation of a test
  article is never in the training folds); a test document's decision value is
  f(x) = sum_i alpha_i y_i K(x_i, x) + b over the training documents (eq. 6 with
  the adatron's bias).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np
from sklearn.model_selection import GroupKFold

from ._validation import as_gram, as_positive_int, as_scalar, as_vector
from .kernels import normalise

__all__ = ["kernel_timings", "pair_group_means", "pair_accuracy", "PAIR_GROUPS"]

#: The three kinds of document pairs of `pair_group_means`, in the order of its rows.
PAIR_GROUPS = ("same language", "different languages", "translations")


def kernel_timings(kernels: Sequence[Callable], docs: Sequence, sizes: Sequence[int], repeat: int = 3) -> np.ndarray:
    """Seconds to compute each kernel matrix on the first n documents: array of shape (len(kernels), len(sizes)).

    Entry [k, s] is the best (smallest) of `repeat` runs of ``kernels[k](docs[:sizes[s]])``, each timed
    with time.perf_counter() (tic before the call, toc after it).  The best run is the one least disturbed by
    the rest of the machine.
    """
    if not isinstance(kernels, Sequence) or not kernels or not all(callable(kernel) for kernel in kernels):
        raise TypeError(f"kernels must be a non-empty list of kernel functions, got {kernels!r:.80}")
    if isinstance(docs, str) or not isinstance(docs, Sequence):
        raise TypeError(f"docs must be a list of documents, got {type(docs).__name__}")
    if len(docs) == 0:
        raise ValueError("docs must contain at least one document, got an empty list")
    repeat = as_positive_int(repeat, "repeat")
    sizes = [as_positive_int(n, "sizes") for n in sizes]
    if not sizes or max(sizes) > len(docs):
        raise ValueError(f"sizes must be a non-empty list of numbers of documents up to len(docs) = {len(docs)}, "
                         f"got {sizes}")
    seconds = np.full((len(kernels), len(sizes)), np.inf)
    for k, kernel in enumerate(kernels):
        for s, n in enumerate(sizes):
            for _ in range(repeat):
                tic = time.perf_counter()
                kernel(docs[:n])
                seconds[k, s] = min(seconds[k, s], time.perf_counter() - tic)
    return seconds


def _languages(values, n: int) -> np.ndarray:
    """One language label (a string) per document."""
    if values is None or isinstance(values, (str, bytes)):
        raise TypeError(f"language must be an array of one label per document, got {values!r:.60}")
    values = np.asarray(values)
    if values.shape != (n,):
        raise ValueError(f"language must have one entry per document, shape ({n},), got shape {values.shape}")
    return values


def _articles(values, n: int) -> np.ndarray:
    """One article number per document (finite numbers: a translation shares its article's number)."""
    return as_vector(values, "article", length=n, length_of="the kernel")


def pair_group_means(K_first, K_second, language, article) -> np.ndarray:
    """Mean normalised kernel value by kind of pair: array of shape (3, 2), rows `PAIR_GROUPS`.

    Both kernels are normalised (eq. 19, K_ij / sqrt(K_ii K_jj)); over the pairs i < j, row 0 averages the
    pairs in the same language, row 1 the pairs in different languages that are not translations, row 2 the
    translations (same article, different language).  Column 0 is K_first, column 1 K_second.
    """
    K_first, K_second = as_gram(K_first, "K_first", psd=False), as_gram(K_second, "K_second", psd=False)
    n = K_first.shape[0]
    if K_second.shape != K_first.shape:
        raise ValueError(f"K_second must have the shape of K_first {K_first.shape}, got {K_second.shape}")
    language, article = _languages(language, n), _articles(article, n)
    upper_i, upper_j = np.triu_indices(n, k=1)
    same_language = language[upper_i] == language[upper_j]
    translation = (article[upper_i] == article[upper_j]) & ~same_language
    groups = [same_language, ~same_language & ~translation, translation]
    means = np.full((len(groups), 2), np.nan)
    for column, K in enumerate((K_first, K_second)):
        values = normalise(K)[upper_i, upper_j]
        for row, chosen in enumerate(groups):
            if np.any(chosen):
                means[row, column] = values[chosen].mean()
    return means


def pair_accuracy(K, language, article, first: str, second: str, adatron: Callable, C: float = 1.0,
                  n_folds: int = 5) -> np.ndarray:
    """Held-out accuracy of the adatron telling `first` (label -1) from `second` (+1): one value per fold.

    The documents of the two languages, in their order in K, are split by
    ``GroupKFold(n_splits=n_folds).split(K_pair, labels, groups=article)``; on each fold
    ``alpha, b = adatron(K_train, y_train, C)`` and a test document is classified by
    sign(K[test, train] @ (alpha * y_train) + b) (a decision value of exactly 0 counts as an error).  Returns the n_folds accuracies, in the folds' order.
    """
    K = as_gram(K, "K", psd=False)
    n = K.shape[0]
    language, article = _languages(language, n), _articles(article, n)
    if not callable(adatron):
        raise TypeError(f"adatron must be a function adatron(K, y, C) -> (alpha, b), got {adatron!r:.60}")
    C = as_scalar(C, "C", low=0.0, low_open=True)
    n_folds = as_positive_int(n_folds, "n_folds", minimum=2)
    index = np.flatnonzero((language == first) | (language == second))
    if not np.any(language == first) or not np.any(language == second):
        raise ValueError(f"first and second must both be languages of `language`, got {first!r} and {second!r}")
    labels = np.where(language[index] == first, -1.0, 1.0)
    if len(np.unique(article[index])) < n_folds:
        raise ValueError(f"n_folds must be at most the number of articles of the two languages, "
                         f"{len(np.unique(article[index]))}, got {n_folds}")
    K_pair = K[np.ix_(index, index)]
    accuracies = []
    for train, test in GroupKFold(n_splits=n_folds).split(K_pair, labels, groups=article[index]):
        alpha, b = adatron(K_pair[np.ix_(train, train)], labels[train], C)
        decision = K_pair[np.ix_(test, train)] @ (np.asarray(alpha) * labels[train]) + b
        accuracies.append(np.mean(np.sign(decision) == labels[test]))   # a value of exactly 0 is an error
    return np.array(accuracies)

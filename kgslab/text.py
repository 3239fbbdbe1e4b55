"""Text kernels: tokenising, stop words, stemming; the bag-of-words and k-mer kernels.

Coursework (seed 004), Exercises 5-7.  A document becomes a vector of counts
phi(d) in a huge but sparse feature space, and the kernel is the inner product

* bag of words (section 4):
      k(d1, d2) = sum over words w of (#occ. of w in d1) x (#occ. of w in d2)
  where a word is a lower-cased maximal run of letters ("L'Assemblée" gives
  "l" and "assemblée"; digits and punctuation separate words).
* k-mer (the handout's 2-mer kernel with k = 2):
      k(d1, d2) = sum over strings s of length k of (#occ. of s in d1) x (#occ. of s in d2)
  counting every window of k consecutive characters of the text as given
  (case, spaces and punctuation included).

Both are computed as K = C1 C2', where C[i, f] counts feature f in document i:
a sparse matrix (scipy.sparse) with one row per document and one column per
distinct word or k-gram of the collection.  A text has few distinct words, so
C is mostly zeros and the product costs about (number of shared words) per
pair instead of (size of the dictionary).

`preprocess(text, language)` reproduces the handout's precomputed K_bow,
"computed after stemming and stop word removal".  The features of one text
(words, k-grams, stop words, stems) are in `kgslab.tokens`, re-exported here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse

from ._validation import as_positive_int
# The features of one text live in `kgslab.tokens` (what the notebooks import); re-exported here, the public API.
from .tokens import LANGUAGES, STOP_WORDS, WORD_PATTERN, as_text, kmers, preprocess, words  # noqa: F401

__all__ = [
    "LANGUAGES",
    "STOP_WORDS",
    "words",
    "kmers",
    "preprocess",
    "count_matrix",
    "bag_of_words_kernel",
    "kmer_kernel",
]

# --------------------------------------------------------------------------- input checks

def _as_documents(docs, name: str) -> list[str]:
    """A non-empty sequence of strings (a list, a tuple or a numpy array of str)."""
    if isinstance(docs, str):
        # A lone string is a sequence of characters: refuse rather than treat each letter as a document.
        raise TypeError(f"{name} must be a list of strings (documents), got a single string: {docs!r:.60}")
    if isinstance(docs, np.ndarray):
        docs = docs.ravel().tolist()
    if not isinstance(docs, Sequence):
        raise TypeError(f"{name} must be a list of strings (documents), got {type(docs).__name__}")
    if len(docs) == 0:
        raise ValueError(f"{name} must contain at least one document, got an empty list")
    return [as_text(doc, f"{name}[{i}]") for i, doc in enumerate(docs)]


# --------------------------------------------------------------------------- sparse counts and kernels

def count_matrix(token_lists: list[list[str]], vocabulary: dict[str, int] | None = None):
    """Sparse counts C (documents x features) and the vocabulary {feature: column}.

    C[i, vocabulary[f]] = number of times f occurs in token_lists[i].  Pass a
    vocabulary to extend it: features already in it keep their column, so
    count matrices built in turn with the same dictionary share their columns.
    """
    token_lists = _as_token_lists(token_lists)
    if vocabulary is None:
        vocabulary = {}
    elif not isinstance(vocabulary, dict):
        raise TypeError(f"vocabulary must be a dict {{feature: column}} or None, got {type(vocabulary).__name__}")
    else:
        _check_columns(vocabulary)
    # setdefault gives a new feature the next free column and an old one its column.
    columns = [vocabulary.setdefault(token, len(vocabulary)) for tokens in token_lists for token in tokens]
    row_starts = np.cumsum([0] + [len(tokens) for tokens in token_lists])
    ones = np.ones(len(columns))
    counts = scipy.sparse.csr_matrix(
        (ones, np.asarray(columns, dtype=np.int64), row_starts),
        shape=(len(token_lists), max(len(vocabulary), 1)),
    )
    counts.sum_duplicates()  # repeated (row, column) entries add up to the count
    return counts, vocabulary


def _check_columns(vocabulary: dict) -> None:
    """A vocabulary's columns must be 0, 1, ..., len - 1, each once.

    Anything else gives a wrong matrix without an error: a column past the end
    is cut off by the shape, a negative one counts from the end, and two
    features sharing a column add up.
    """
    columns = list(vocabulary.values())
    if any(not isinstance(c, (int, np.integer)) or isinstance(c, bool) for c in columns):
        bad = next(c for c in columns if not isinstance(c, (int, np.integer)) or isinstance(c, bool))
        raise TypeError(f"vocabulary's columns must be integers, got {bad!r} ({type(bad).__name__})")
    if sorted(columns) != list(range(len(columns))):
        raise ValueError("vocabulary's columns must be 0, 1, ..., len(vocabulary) - 1, each used once "
                         "(as count_matrix builds them), got " + _describe_columns(columns))


def _describe_columns(columns: list) -> str:
    seen, repeated = set(), None
    for c in columns:
        if c in seen:
            repeated = c
            break
        seen.add(c)
    if repeated is not None:
        return f"column {repeated} used twice"
    outside = [c for c in columns if not 0 <= c < len(columns)]
    return f"column {outside[0]} for a vocabulary of {len(columns)} features"


def _as_token_lists(token_lists) -> list[list[str]]:
    """A non-empty list of token lists; a document given as a plain string is refused.

    A string is itself a sequence, so ``count_matrix(["the law"])`` would count
    single characters: the caller meant ``count_matrix([words("the law")])``.
    """
    if isinstance(token_lists, str) or not isinstance(token_lists, (Sequence, np.ndarray)):
        raise TypeError("token_lists must be a list of token lists, e.g. [words(doc) for doc in docs], "
                        f"got {type(token_lists).__name__}")
    if len(token_lists) == 0:
        raise ValueError("token_lists must contain at least one document, got an empty list")
    for i, tokens in enumerate(token_lists):
        if isinstance(tokens, str):
            raise TypeError(f"token_lists[{i}] must be a list of tokens, got the string {tokens!r:.60}: "
                            "split documents first, e.g. [words(doc) for doc in docs] or kmers(doc, k)")
        if not isinstance(tokens, (Sequence, np.ndarray)):
            raise TypeError(f"token_lists[{i}] must be a list of tokens, got {type(tokens).__name__}")
        for token in tokens:
            if not isinstance(token, str):
                raise TypeError(f"token_lists[{i}] must hold strings (tokens), got {token!r:.60}")
    return [list(tokens) for tokens in token_lists]


def _kernel_from_features(docs, others, featurise, what: str) -> np.ndarray:
    """K[i, j] = <phi(docs[i]), phi(others[j])> with phi = counts of featurise(text)."""
    docs = _as_documents(docs, "docs")
    features = [featurise(doc) for doc in docs]
    for i, found in enumerate(features):
        if not found:
            raise ValueError(f"docs[{i}] has no {what}, so its feature vector is zero: {docs[i]!r:.60}")
    counts, vocabulary = count_matrix(features)
    if others is None:
        other_counts = counts
    else:
        others = _as_documents(others, "others")
        other_features = [featurise(doc) for doc in others]
        for j, found in enumerate(other_features):
            if not found:
                raise ValueError(f"others[{j}] has no {what}, so its feature vector is zero: {others[j]!r:.60}")
        other_counts, vocabulary = count_matrix(other_features, vocabulary)
        # The first matrix was built before `others` added columns: widen it to the full dictionary.
        counts.resize((counts.shape[0], other_counts.shape[1]))
    return (counts @ other_counts.T).toarray()


def bag_of_words_kernel(docs, others=None) -> np.ndarray:
    """Bag-of-words kernel matrix (seed 004, section 4), shape (len(docs), len(others)).

    K[i, j] = sum over words w of (#w in docs[i]) x (#w in others[j]), words
    lower-cased, not stemmed (see `words`); others defaults to docs.
    A document without a single word is refused (ValueError).
    """
    return _kernel_from_features(docs, others, words, "words")


def kmer_kernel(docs, others=None, k: int = 2) -> np.ndarray:
    """k-mer (spectrum) kernel matrix, shape (len(docs), len(others)); k = 2 is the handout's 2-mer kernel.

    K[i, j] = sum over strings s of length k of (#s in docs[i]) x (#s in others[j]),
    counting overlapping windows of the text as given (see `kmers`).
    A document shorter than k characters is refused (ValueError).
    """
    k = as_positive_int(k, "k")
    return _kernel_from_features(docs, others, lambda text: kmers(text, k), f"{k}-mers (it is shorter than k={k})")

"""The bag-of-words kernel on the 780 documents: kgslab (sparse counts) against two peers.

* a plain-Python dictionary implementation, the obvious first attempt of
  Exercise 7: one Counter per document, then for every pair of documents a sum
  over the shorter document's words (n^2 / 2 dictionary dot products);
* scikit-learn's CountVectorizer with the same word pattern, then C C'.

A second row times the 2-mer kernel against CountVectorizer(analyzer="char",
ngram_range=(2, 2)) (which collapses runs of white space; the corpus has none).
Each peer must give the same matrix (the note says so).  The documents are the
shipped corpus (load_docs); when it is missing (a fresh checkout before `make
data`) a synthetic stand-in of the same size is used and the note says so.
"""

from collections import Counter

import numpy as np
from harness import Row, best_time
from sklearn.feature_extraction.text import CountVectorizer

from kgslab import data, text


def _documents(quick: bool) -> tuple[list[str], str]:
    try:
        docs = data.load_docs()
        documents = [article for language in data.LANGUAGES for article in getattr(docs, language)]
        source = "corpus"
    except FileNotFoundError:
        rng = np.random.default_rng(0)
        vocabulary = ["".join(rng.choice(list("abcdefghij"), size=rng.integers(2, 9))) for _ in range(4000)]
        documents = [" ".join(rng.choice(vocabulary, size=rng.integers(15, 151))) for _ in range(780)]
        source = "synthetic stand-in"
    return (documents[::10] if quick else documents), source


def dictionary_bag_of_words(documents: list[str]) -> np.ndarray:
    """The plain-Python version: word counts in dictionaries, a double loop over the pairs."""
    counts = [Counter(text.words(document)) for document in documents]
    n = len(counts)
    gram = np.zeros((n, n))
    for i in range(n):
        for j in range(i, n):
            small, large = (counts[i], counts[j]) if len(counts[i]) <= len(counts[j]) else (counts[j], counts[i])
            gram[i, j] = gram[j, i] = sum(count * large.get(word, 0) for word, count in small.items())
    return gram


def count_vectorizer_bag_of_words(documents: list[str]) -> np.ndarray:
    counts = CountVectorizer(token_pattern=text.WORD_PATTERN.pattern).fit_transform(documents)
    return (counts @ counts.T).toarray().astype(float)


def count_vectorizer_two_mers(documents: list[str]) -> np.ndarray:
    counts = CountVectorizer(analyzer="char", ngram_range=(2, 2), lowercase=False).fit_transform(documents)
    return (counts @ counts.T).toarray().astype(float)


def rows(quick: bool = False):
    repeat = 1 if quick else 3
    documents, source = _documents(quick)
    n = len(documents)
    ours = text.bag_of_words_kernel(documents)
    kgslab_time = best_time(lambda: text.bag_of_words_kernel(documents), repeat)
    out = []
    peers = [("plain Python dicts (pairwise)", dictionary_bag_of_words, 1),
             ("sklearn CountVectorizer, C C'", count_vectorizer_bag_of_words, repeat)]
    for name, peer, peer_repeat in peers:
        same = np.array_equal(peer(documents), ours)
        peer_time = best_time(lambda: peer(documents), peer_repeat)
        note = ("same K" if same else "DIFFERENT K") + f", {source}"
        out.append(Row(f"bag_of_words_kernel, {n} documents", kgslab_time, name, peer_time, note))
    two_mers = text.kmer_kernel(documents, k=2)
    same = np.array_equal(count_vectorizer_two_mers(documents), two_mers)
    kgslab_time = best_time(lambda: text.kmer_kernel(documents, k=2), repeat)
    peer_time = best_time(lambda: count_vectorizer_two_mers(documents), repeat)
    out.append(Row(f"kmer_kernel k=2, {n} documents", kgslab_time, "sklearn CountVectorizer(char 2-grams)",
                   peer_time, ("same K" if same else "DIFFERENT K") + f", {source}"))
    return out

"""Checks for notebook 06 (the bag-of-words kernel, coursework section 4 and Exercise 7).

The student writes the kernel twice, ``bow_kernel_naive(docs)`` (word counts in
dictionaries, a loop over pairs) and ``bow_kernel_sparse(docs)`` (a sparse
document x word count matrix C and K = C C').  Both must equal
`kgslab.text.bag_of_words_kernel`: words are lower-cased maximal runs of
letters (`kgslab.text.words`), not stemmed, stop words kept.
"""

from __future__ import annotations

from .. import text
from .core import Case, Exercise, allclose

__all__ = ["nb06_exercise_7_naive", "nb06_exercise_7_sparse"]


def _cases():
    return [
        Case("three short English sentences",
             (["The law protects the freedom of the person.",
               "Freedom of the press is guaranteed.",
               "The Federation shall legislate."],)),
        Case("repeated words and upper case (counts multiply: 'vote vote' x 'Vote' = 2)",
             (["vote vote VOTE", "Vote", "no shared words here", "vote"],)),
        Case("French with accents and apostrophes ('l'État' is 'l' and 'état')",
             (["L'État protège la liberté.", "La liberté de l'État et la liberté des cantons.",
               "Élection : l'élu prête serment."],)),
        Case("digits and punctuation separate words ('art.12' is 'art')",
             (["Art.12, paragraph 3: the cantons.", "art 7; the CANTONS (all 26)", "paragraph"],)),
        Case("a single document", (["one word and one more word"],)),
    ]


nb06_exercise_7_naive = Exercise(
    "nb06_exercise_7_naive", "Exercise 7 (bag-of-words kernel, dictionary version)",
    text.bag_of_words_kernel, _cases, points=3,
    compare=allclose(rtol=1e-12, atol=0.0),
    hint="count each document's words with collections.Counter(words(doc)); then "
         "K[i, j] = sum over the words w of document i of count_i[w] * count_j.get(w, 0). "
         "Return a float array of shape (n, n).")


nb06_exercise_7_sparse = Exercise(
    "nb06_exercise_7_sparse", "Exercise 7 (bag-of-words kernel, sparse counts)",
    text.bag_of_words_kernel, _cases, points=3,
    compare=allclose(rtol=1e-12, atol=0.0),
    hint="give every distinct word a column (a dict word -> column), collect one (row, "
         "column) pair per word occurrence, build scipy.sparse.csr_matrix((ones, (rows, "
         "columns)), shape=(n, n_words)) (repeated pairs add up), then "
         "(C @ C.T).toarray(). Return a float array of shape (n, n).")

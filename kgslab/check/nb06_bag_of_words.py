"""Checks for notebook 06 (the bag-of-words kernel, coursework section 4 and Exercise 7).

The student writes the kernel twice, ``bow_kernel_naive(docs)`` (word counts in
dictionaries, a loop over pairs) and ``bow_kernel_sparse(docs)`` (a sparse
document x word count matrix C and K = C C').  Both must equal
`kgslab.text.bag_of_words_kernel`: words are lower-cased maximal runs of
letters (`kgslab.text.words`), not stemmed, stop words kept.

Then the three experiments of Exercise 7, each a function the notebook runs on
the corpus (references in `kgslab.papers.coursework`):

* ``kernel_timings(kernels, docs, sizes, repeat, timer)``: checked with
  stand-in "kernels" that take a known time, longer on every call for each size
  but the second, and refuse anything but the first n documents for one of the
  sizes asked for, so that only a function that times the right call and keeps
  the best of the repeats (not the first, not the last) gets the time the
  stand-ins are built to take.  The function reads its clock through ``timer``
  (as `timeit` does); the check hands it a counting timer that moves only when a
  stand-in is called, by its designed time, so a measurement is exact on any
  machine, however busy, no wall clock is read, and a check run takes no time;
* ``pair_group_means(K_first, K_second, language, article)``: small kernels on
  a few "languages" and "articles" in a scrambled order;
* ``pair_accuracy(K, language, article, first, second, adatron, C, n_folds)``:
  noisy data, so the folds' accuracies differ, and a fixed stand-in adatron
  whose bias matters, and documents whose decision value is exactly 0 (an error).
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
from sklearn.model_selection import GroupKFold, KFold

from .. import text as _text
from ..adatron import adatron_with_bias as _adatron_with_bias
from ..papers import coursework as _coursework
from .cases import Case, Mistake
from .exercise import Exercise
from .values import Problem, allclose

__all__ = ["nb06_exercise_7_naive", "nb06_exercise_7_sparse", "nb06_exercise_7_timing",
           "nb06_exercise_7_compare", "nb06_exercise_7_classify"]


# ---- the two kernels -----------------------------------------------------------------------------

def _cases():
    found = [
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
    for case in found:
        case.mistakes = _kernel_mistakes(case.args[0])
    return found


def _sparse_cases():
    """The same, and a corpus whose count matrix is big when dense: 300 documents, a vocabulary of about 9000."""
    rng = np.random.default_rng(63)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    # one draw of all the letters, and an array to choose words from (numpy would convert a list at every choice):
    # the same words and documents as 20000 and 300 separate draws, drawn at once (every kernel running 06 builds them)
    vocabulary = np.array(["w" + "".join(word) for word in rng.choice(letters, (20000, 6)).tolist()])
    docs = [" ".join(rng.choice(vocabulary, 40)) for _ in range(300)]
    return _cases() + [Case("300 documents of 40 words from a vocabulary of 20000 words (a dense count matrix "
                            "would take 22 MB; this test allows 8 MB)", (docs,), memory_limit=8.0)]


_close = allclose(rtol=1e-12, atol=0.0)


def _compare_kernels(expected, got):
    """Exact agreement; the case's declared mistakes name the usual slips."""
    problem = _close(expected, got)
    if problem is None or not isinstance(got, np.ndarray) or got.shape != expected.shape:
        return problem
    if not np.allclose(got, np.asarray(got).T):
        return Problem(problem, "not-symmetric",
                       "Your matrix is not symmetric, but K[i, j] and K[j, i] count the same shared words.")
    return problem


def _kernel_of(counts: list[Counter]) -> np.ndarray:
    return np.array([[float(sum(n * other.get(w, 0) for w, n in mine.items())) for other in counts]
                     for mine in counts])


def _kernel_mistakes(docs) -> list[Mistake]:
    """What the usual slips give on these documents."""
    counts = [Counter(_text.words(doc)) for doc in docs]
    right = _kernel_of(counts)
    return [
        Mistake("counts-once", "each shared word counts once here: K[i, j] multiplies the numbers of occurrences "
                               "of each shared word, so a word that occurs twice in both documents adds 4.",
                result=_kernel_of([Counter(set(c)) for c in counts])),
        Mistake("split-on-spaces", "the words are split on spaces only: a word is a lower-cased run of letters "
                                   "(kgslab.text.words), so punctuation, digits and case do not make new words.",
                result=_kernel_of([Counter(doc.lower().split()) for doc in docs])),
        Mistake("no-lower-case", "upper and lower case are different words here: kgslab.text.words lower-cases.",
                result=_kernel_of([Counter(re.findall(r"[^\W\d_]+", doc)) for doc in docs])),
        Mistake("diagonal-missing", "the diagonal K[i, i] is missing: a document shares every word with itself.",
                result=right - np.diag(np.diag(right))),
        Mistake("last-document-missing", "the last document's row and column are missing: the loops run over all "
                                         "n documents.", result=_without_last(right)),
    ]


def _without_last(K):
    K = K.copy()
    K[-1, :] = 0.0
    K[:, -1] = 0.0
    return K


_NAIVE_CODE = ("counts = [Counter(words(doc)) for doc in docs]; then for i and j >= i: "
               "K[i, j] = K[j, i] = sum(n * counts[j].get(w, 0) for w, n in counts[i].items()). "
               "Return a float array of shape (n, n).")

_SPARSE_CODE = ("vocabulary.setdefault(word, len(vocabulary)) gives a word its column; collect rows and columns "
                "per occurrence; C = scipy.sparse.csr_matrix((np.ones(len(rows)), (rows, columns)), "
                "shape=(n, len(vocabulary))); return (C @ C.T).toarray().")

_KERNEL_HINT = ("K[i, j] is the sum, over the words the two documents share, of (#occ. in i) x (#occ. in j) "
                "(section 4): compare one wrong entry with the two documents of that test. Take the words from "
                "kgslab.text.words (lower-cased runs of letters), as the reference does.")

_HIDDEN_WORDS = ("the law protects freedom of person press canton Federation vote VOTE L'État liberté élu "
                 "art.12 paragraph 26 shall legislate guaranteed").split()


def _kernel_hidden(rng):
    """Grading cases: 2 to 6 documents of 1 to 12 words drawn from a vocabulary with case, accents and digits."""
    found = []
    for _ in range(2):
        docs = [" ".join(rng.choice(_HIDDEN_WORDS, size=int(rng.integers(1, 13))).tolist())
                for _ in range(int(rng.integers(2, 7)))]
        found.append(Case(f"a grading case: {len(docs)} documents drawn from a small vocabulary", (docs,)))
    return found


nb06_exercise_7_naive = Exercise(
    "nb06_exercise_7_naive", "Exercise 7 (bag-of-words kernel, dictionary version)",
    _text.bag_of_words_kernel, _cases, points=3, compare=_compare_kernels, hidden=_kernel_hidden,
    hint=_KERNEL_HINT, code_hint=_NAIVE_CODE)


nb06_exercise_7_sparse = Exercise(
    "nb06_exercise_7_sparse", "Exercise 7 (bag-of-words kernel, sparse counts)",
    _text.bag_of_words_kernel, _sparse_cases, points=3, compare=_compare_kernels, hidden=_kernel_hidden,
    hint=_KERNEL_HINT + " In the count matrix C, row d is document d and column w one dictionary word: "
                        "C[d, w] must be the number of occurrences, so repeated (row, column) pairs have to add up.",
    code_hint=_SPARSE_CODE,
    worked="The kernel is $\\mathbf{K} = \\mathbf{C}\\mathbf{C}'$: entry $(i, j)$ is $\\sum_w C_{iw} C_{jw}$, the sum "
           "over the dictionary of the products of the two documents' counts, which is the bag-of-words kernel of "
           "section 4. Collect one `(row, column)` pair per word occurrence; "
           "`scipy.sparse.csr_matrix((np.ones(m), (rows, columns)), shape=(n, n_words))` adds up repeated pairs, "
           "which gives the counts; `(C @ C.T).toarray()` multiplies only counts that are not zero, so its cost "
           "follows the pairs of documents that share a word, not the size of the dictionary.")


# ---- running times ---------------------------------------------------------------------------------

_TIMING_DOCS = tuple(f"document number {k}" for k in range(30))


class _CountingTimer:
    """The timer the check hands ``kernel_timings`` (``timer=``: a zero-argument callable returning seconds, as
    `timeit` takes one): it reads the seconds the stand-in kernels have taken so far.

    It moves only when a stand-in kernel is called, by exactly that stand-in's designed time (`take`), and reads no
    wall clock, so a measurement through it is exact on any machine, however busy, and a check run takes no time.
    The count is the process's (a class attribute), so the grader's child, which rebuilds the timer and the
    stand-ins from their fields (`kgslab.check.plain`), times them the same way.
    """

    _plain_fields = ()
    _taken_ns = 0

    @classmethod
    def take(cls, seconds: float) -> None:
        cls._taken_ns += int(round(seconds * 1e9))

    def __call__(self) -> float:
        return _CountingTimer._taken_ns / 1e9

    def __eq__(self, other):
        return isinstance(other, _CountingTimer)

    __hash__ = None

    def __repr__(self):
        return "<the check's timer>"


class _StandInKernel:
    """A stand-in kernel function: takes `per_document` x n seconds on n documents, plus `extra` on every call for
    each n except the second (so the best of three runs is the second, neither the first nor the last), and refuses
    anything but the first n documents of the case's list for one of the case's `sizes`.

    It computes nothing and takes its time on the check's timer (`_CountingTimer.take`): a function that reads
    the clock through the ``timer`` it is given sees exactly the designed time; any other clock sees almost none.

    Equal to any stand-in with the same parameters (its call record is not part of its value), so the check's
    changed-input test sees a fresh copy as unchanged. The grader sends it to its child as these fields
    (`kgslab.check.plain`), and the child builds a fresh one from the kit's code.
    """

    _plain_fields = ("name", "per_document", "extra", "sizes")

    def __init__(self, name, per_document, extra, sizes):
        self.name, self.per_document, self.extra, self.sizes = name, per_document, extra, list(sizes)
        self.calls = {}

    def __eq__(self, other):
        return isinstance(other, _StandInKernel) and (self.name, self.per_document, self.extra, self.sizes) == \
            (other.name, other.per_document, other.extra, other.sizes)

    __hash__ = None

    def __repr__(self):
        return f"<stand-in kernel {self.name}>"

    def __call__(self, docs):
        docs = list(docs)
        if docs != list(_TIMING_DOCS[:len(docs)]):
            raise ValueError(f"the stand-in kernel {self.name} expected the first n documents, docs[:n], "
                             f"and got another list of {len(docs)}")
        if len(docs) not in self.sizes:
            raise ValueError(f"the stand-in kernel {self.name} expected the first n documents for n in sizes = "
                             f"{self.sizes}, and got {len(docs)} documents")
        self.calls[len(docs)] = self.calls.get(len(docs), 0) + 1
        _CountingTimer.take(self.per_document * len(docs) + (0.0 if self.calls[len(docs)] == 2 else self.extra))
        return np.eye(len(docs))


# The stand-ins' extra time on a slow call: every wrong way of timing lands at least 2/3 of it off the design.
_EXTRA = 0.1


def _timing_cases():
    docs = list(_TIMING_DOCS)
    sizes = [5, 10, 30]
    slow, fast = _StandInKernel("slow", 0.001, _EXTRA, sizes), _StandInKernel("fast", 0.00025, _EXTRA, sizes)
    return [
        Case(f"two stand-in kernels that take 1 ms and 0.25 ms per document ({_EXTRA * 1000:.0f} ms more on every "
             "call for each n but the second), sizes [5, 10, 30], repeat = 3, the check's timer",
             ([slow, fast], docs, sizes, 3), {"timer": _CountingTimer()}),
        Case("one stand-in kernel, sizes [20], repeat = 1 (the first call is the only one), the check's timer",
             ([_StandInKernel("single", 0.001, _EXTRA, [20])], docs, [20], 1), {"timer": _CountingTimer()}),
    ]


def _timing_hidden(rng):
    """Grading cases the student cannot see: two stand-ins of other speeds, other sizes and another repeat."""
    per_document = rng.uniform(0.0003, 0.0015, 2)
    sizes = sorted(int(n) for n in rng.choice(np.arange(3, len(_TIMING_DOCS) + 1), 3, replace=False))
    kernels = [_StandInKernel(f"hidden {k}", float(rate), _EXTRA, sizes) for k, rate in enumerate(per_document)]
    return [Case("two stand-in kernels of other speeds, other sizes and another repeat, the check's timer",
                 (kernels, list(_TIMING_DOCS), sizes, int(rng.integers(3, 5))), {"timer": _CountingTimer()})]


# How far from its designed time a correct entry may land: the check's timer is exact (nanoseconds as a float),
# far below the distance of every wrong way of timing from the design: (repeat - 1) / repeat x _EXTRA, 67 ms for
# the mean of 3 runs (the closest), 100 ms for the first or the last run, per_document x n (at least 0.9 ms) for a
# clock that does not see the call.
_CLOCK = 1e-4


def _designed_best(case) -> np.ndarray:
    """The best of `repeat` runs each stand-in is built to take: per_document x n, plus `extra` if repeat is 1."""
    kernels, _, sizes, repeat = case.args
    return np.array([[kernel.per_document * n + (kernel.extra if repeat < 2 else 0.0) for n in sizes]
                     for kernel in kernels])


def _compare_timings(expected, got, case):
    """Each entry within _CLOCK (0.1 ms) of the stand-in's designed best time; the usual slips named.

    The anchor is the design, not the reference's own run (`expected`, used for the type and shape).  The
    stand-ins take their time on the timer the check hands the function, so a correct answer is the design on
    any machine, however busy, and a wrong way of timing is at least 0.9 ms off.
    """
    if isinstance(got, np.ndarray) and got.shape != expected.shape:
        swapped = " (rows and columns swapped?)" if got.shape == expected.shape[::-1] else ""
        return f"expected shape {expected.shape}, one row per kernel and one column per size, got {got.shape}{swapped}"
    problem = allclose(rtol=1e9)(expected, got)      # the type, the shape and finite values only
    if problem:
        return problem
    got = np.asarray(got, dtype=float)
    designed = _designed_best(case)
    off = np.abs(got - designed) > _CLOCK
    if not np.any(off):
        return None
    k, s = np.argwhere(off)[0]
    told = (f"values differ: entry [{k}, {s}] should be about {designed[k, s]:.3f} s (the best run of the stand-in "
            f"kernel, which takes a known time), got {got[k, s]:.3f} s.")
    expected = designed
    if np.allclose(got, 1000 * expected, rtol=0.3, atol=12.0):
        return Problem(told, "milliseconds", "Your times look like milliseconds: return seconds, as "
                                             "timer() gives them.")
    if np.all(got >= expected - _CLOCK) and np.any(got > expected + _CLOCK):
        return Problem(told, "not-the-best", "Your times are too long: the result is the *best* of the repeated "
                       "runs, the one least disturbed by the machine (here every run of each size but the second is "
                       "slow). The first or the last run, a total or a mean of the runs are too long; so is a time "
                       "that includes more than the one kernel call.")
    if np.any(got < expected - _CLOCK):
        return Problem(told, "too-short", "Your times are too short: does the clock start right before the kernel "
                                          "call and stop right after it, on the first n documents, for each kernel "
                                          "and each n? Read the clock through the `timer` your function is given "
                                          "(tic = timer()): the stand-in kernels compute nothing and take their "
                                          "time on that timer only, so a clock read another way (time.perf_counter() "
                                          "called by name, time.process_time) does not see it.")
    return told


nb06_exercise_7_timing = Exercise(
    "nb06_exercise_7_timing", "Exercise 7 (running times of the kernels)",
    _coursework.kernel_timings, _timing_cases, points=2, compare=_compare_timings, hidden=_timing_hidden,
    hint="Entry [k, s] is the running time of one call kernels[k](docs[:sizes[s]]), the best of `repeat` such "
         "runs: the clock, timer() (time.perf_counter by default), is read right before the call and right "
         "after it.",
    code_hint="seconds = np.full((len(kernels), len(sizes)), np.inf); for each k, s and repeat: "
              "tic = timer(); kernels[k](docs[:n]); "
              "seconds[k, s] = min(seconds[k, s], timer() - tic).")


# ---- comparing two kernels by kinds of pairs -----------------------------------------------------

def _gram(rng, n, d=6):
    counts = rng.poisson(1.5, size=(n, d)).astype(float)
    counts[:, 0] += 1.0                     # no document without a word
    return counts @ counts.T


def _compare_cases():
    rng = np.random.default_rng(61)
    two_languages = np.repeat(["en", "fr"], 4)
    two_articles = np.tile([1, 2, 3, 4], 2)
    order = rng.permutation(9)
    three_languages = np.repeat(["en", "de", "it"], 3)[order]
    three_articles = np.tile([7, 8, 9], 3)[order]
    K = _gram(rng, 9)
    scale = np.diag(rng.uniform(0.5, 3.0, 9))
    return [
        Case("8 documents: 2 languages x 4 articles", (_gram(rng, 8), _gram(rng, 8), two_languages, two_articles)),
        Case("9 documents: 3 languages x 3 articles, in a scrambled order",
             (K, _gram(rng, 9), three_languages, three_articles)),
        Case("the second kernel is the first with every document rescaled (the same after normalising)",
             (K, scale @ K @ scale, three_languages, three_articles)),
    ]


def _compare_means(expected, got):
    problem = allclose(rtol=1e-9, atol=1e-12)(expected, got)
    if problem and isinstance(got, np.ndarray) and got.shape == expected.shape:
        return Problem(problem, None, "Rows: same language, different languages (translations excluded), "
                       "translations; columns: K_first, K_second. Each entry is a mean of *normalised* values "
                       "(eq. 19) over the pairs i < j of that kind: not the diagonal, and each pair once.")
    return problem


nb06_exercise_7_compare = Exercise(
    "nb06_exercise_7_compare", "Exercise 7 (your kernel against K_bow, by kind of pair)",
    _coursework.pair_group_means, _compare_cases, points=2, compare=_compare_means,
    hint="Normalise both kernels first (eq. 19). A pair i < j is a translation when the article is the same and "
         "the language differs; 'different languages' are the other pairs whose languages differ.",
    code_hint="upper_i, upper_j = np.triu_indices(n, k=1); same = language[upper_i] == language[upper_j]; "
              "translation = (article[upper_i] == article[upper_j]) & ~same; then for each normalised kernel "
              "values = Kn[upper_i, upper_j] and the means of values[same], values[~same & ~translation], "
              "values[translation].")


# ---- classifying pairs of languages ----------------------------------------------------------------

class _FixedRule:
    """A stand-in adatron: alpha_i = C for every training point and a bias b = `bias` (no training at all)."""

    _plain_fields = ("bias",)               # how the grader sends it to its child (kgslab.check.plain)

    def __init__(self, bias):
        self.bias = bias

    def __eq__(self, other):
        return isinstance(other, _FixedRule) and other.bias == self.bias

    __hash__ = None

    def __repr__(self):
        return f"<stand-in adatron: alpha = C, b = {self.bias}>"

    def __call__(self, K, y, C):
        return np.full(len(y), float(C)), self.bias


def _classify_cases():
    rng = np.random.default_rng(62)
    language = np.repeat(["english", "french", "german"], 10)
    # german lists its articles in the opposite order: folds that follow the documents' order instead of their
    # articles (GroupKFold on one group per document) then split translations, as they do on other corpora
    article = np.concatenate([np.arange(1, 11), np.arange(1, 11), np.arange(10, 0, -1)])
    centres = {"english": [1.0, 0.0], "french": [0.0, 1.0], "german": [-1.0, 0.0]}
    X = np.array([centres[lang] for lang in language]) + 0.9 * rng.standard_normal((30, 2))
    K = X @ X.T + 1.0
    return [
        Case("30 noisy points, 3 languages x 10 articles; french (-1) against german (+1), the kit's adatron, "
             "C = 1, 5 folds", (K, language, article, "french", "german", _adatron_with_bias, 1.0, 5)),
        Case("the same points, english (-1) against french (+1), C = 0.1, 2 folds",
             (K, language, article, "english", "french", _adatron_with_bias, 0.1, 2)),
        Case("a stand-in adatron returning alpha = C and b = -0.5: german (-1) against english (+1), 5 folds",
             (K, language, article, "german", "english", _FixedRule(-0.5), 0.2, 5)),
        Case("linear kernel with 8 empty documents (all their kernel values 0), a stand-in adatron with b = 0: their "
             "decision value is exactly 0, an error; french (-1) against german (+1), 5 folds",
             (_with_empty_documents(X, language), language, article, "french", "german", _FixedRule(0.0), 1.0, 5)),
    ]


def _with_empty_documents(X, language):
    """X X' with the feature vectors of articles 1-4 in french and german set to 0."""
    X = X.copy()
    X[np.flatnonzero(np.isin(language, ["french", "german"]))[[0, 1, 2, 3, 10, 11, 12, 13]]] = 0.0
    return X @ X.T


def _accuracies_split_by(case, split):
    """pair_accuracy's folds made by `split(K_pair, labels, article)` instead of GroupKFold by article."""
    K, language, article, first, second, adatron, C, n_folds = case.args
    K, language, article = np.asarray(K, dtype=float), np.asarray(language), np.asarray(article)
    index = np.flatnonzero((language == first) | (language == second))
    labels = np.where(language[index] == first, -1.0, 1.0)
    K_pair = K[np.ix_(index, index)]
    accuracies = []
    for train, test in split(K_pair, labels, article[index], n_folds):
        alpha, b = adatron(K_pair[np.ix_(train, train)], labels[train], C)
        decision = K_pair[np.ix_(test, train)] @ (np.asarray(alpha) * labels[train]) + b
        accuracies.append(np.mean(np.sign(decision) == labels[test]))
    return np.array(accuracies)


# Folds that ignore the articles: a translation of a test article can then sit in the training block.
_UNGROUPED = (
    ("KFold(n_splits=n_folds)", lambda K, y, groups, k: KFold(n_splits=k).split(K, y)),
    ("GroupKFold without the articles as groups", lambda K, y, groups, k: GroupKFold(n_splits=k).split(
        K, y, groups=np.arange(len(y)))),
)


def _ungrouped_folds(expected, got, case) -> bool:
    """True when `got` is what folds that ignore the articles give on this case (and not what GroupKFold gives)."""
    if case is None or len(case.args) != 8:
        return False
    for _, split in _UNGROUPED:
        if split is None:
            continue
        try:
            other = _accuracies_split_by(case, split)
        except Exception:     # a case the other splitter cannot split: not this mistake
            continue
        if other.shape == got.shape and not np.allclose(other, expected) and np.allclose(other, got):
            return True
    return False


def _compare_accuracies(expected, got, case=None):
    problem = allclose(rtol=1e-9, atol=1e-12)(expected, got)
    if problem and isinstance(got, np.ndarray) and got.shape == expected.shape:
        if _ungrouped_folds(expected, got, case):
            return Problem(problem, "folds-ignore-articles",
                           "These are the accuracies of folds that ignore the articles (KFold, or one group per "
                           "document): a translation of a test article then sits among the training documents. "
                           "Group the folds by article (GroupKFold with groups=article).")
        if np.allclose(np.sort(got), np.sort(expected)):
            return Problem(problem, "fold-order", "The same accuracies in another order: keep the folds in "
                                                  "GroupKFold's order.")
        if np.allclose(got, 1.0 - expected):
            return Problem(problem, "labels-reversed", "Your accuracies are one minus the right ones: are the labels "
                                                       "the right way round (`first` is -1, `second` is +1)?")
        return Problem(problem, None, "On each fold the adatron is trained on the training documents' kernel block; "
                       "a test document's decision value uses its kernel values with the *training* documents, their "
                       "alpha_i y_i, and the bias b (eq. 6 plus b); a decision value of exactly 0 is an error.")
    return problem


nb06_exercise_7_classify = Exercise(
    "nb06_exercise_7_classify", "Exercise 7 (the adatron on a pair of languages)",
    _coursework.pair_accuracy, _classify_cases, points=3, compare=_compare_accuracies,
    hint="Keep only the documents of the two languages (labels: first -1, second +1), split them with "
         "GroupKFold(n_splits=n_folds) grouped by article, train on the training block of K and classify each "
         "test document by the sign of its decision value f(x) = sum_i alpha_i y_i K(x_i, x) + b.",
    code_hint="index = np.flatnonzero((language == first) | (language == second)); "
              "for train, test in GroupKFold(n_splits=n_folds).split(Kp, labels, groups=article[index]): "
              "alpha, b = adatron(Kp[np.ix_(train, train)], labels[train], C); "
              "decision = Kp[np.ix_(test, train)] @ (alpha * labels[train]) + b.")

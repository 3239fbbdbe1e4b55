"""Text: the features of one text (words, k-grams, stop words, stems) and the text kernels built on them.

Coursework (seed 004), Exercises 5-7.  A document becomes a vector of counts
phi(d) in a huge but sparse feature space, and the kernel is the inner product

* bag of words (section 4):
      k(d1, d2) = sum over words w of (#occ. of w in d1) x (#occ. of w in d2)
  where a word is a lower-cased maximal run of letters ("L'Assemblée" gives
  "l" and "assemblée"; digits and punctuation separate words): `words`.
* k-mer (the handout's 2-mer kernel with k = 2):
      k(d1, d2) = sum over strings s of length k of (#occ. of s in d1) x (#occ. of s in d2)
  counting every window of k consecutive characters of the text as given
  (case, spaces and punctuation included): `kmers`.

Both are computed as K = C1 C2', where C[i, f] counts feature f in document i:
a sparse matrix (scipy.sparse) with one row per document and one column per
distinct word or k-gram of the collection.  A text has few distinct words, so
C is mostly zeros and the product costs about (number of shared words) per
pair instead of (size of the dictionary).

`preprocess(text, language)` gives the text the handout's precomputed K_bow was "computed after stemming and
stop word removal": lower-case, drop the language's function words (the lists at the end of this module), then
reduce each word to its stem with the Snowball stemmer of that language ("Verfassungen" -> "verfass").

Text is first put in Unicode NFC form so that an accented letter typed as one code point or as letter + accent
counts as the same character.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import scipy.sparse
import snowballstemmer

from ._validation import as_bool, as_positive_int

__all__ = [
    "LANGUAGES",
    "STOP_WORDS",
    "WORD_PATTERN",
    "words",
    "kmers",
    "preprocess",
    "count_matrix",
    "bag_of_words_kernel",
    "kmer_kernel",
]

#: The corpus languages, in the handout's order.
LANGUAGES = ("english", "french", "german", "italian")

# A word: one or more letters of any alphabet ("[^\W\d_]" is "a word character
# that is neither a digit nor the underscore", i.e. a letter).
WORD_PATTERN = re.compile(r"[^\W\d_]+")


def as_text(text, name: str) -> str:
    """A str in Unicode NFC form; anything else is a TypeError naming the argument."""
    if not isinstance(text, str):
        raise TypeError(f"{name} must be a string, got {type(text).__name__}: {text!r:.60}")
    return unicodedata.normalize("NFC", text)


# --------------------------------------------------------------------------- features of one text

def words(text: str) -> list[str]:
    """The lower-cased words of `text`, in order: the bag-of-words kernel's features."""
    return WORD_PATTERN.findall(as_text(text, "text").lower())


def kmers(text: str, k: int = 2) -> list[str]:
    """Every window of k consecutive characters of `text` (len(text) - k + 1 of them)."""
    k = as_positive_int(k, "k")
    text = as_text(text, "text")
    return [text[start:start + k] for start in range(len(text) - k + 1)]


@lru_cache(maxsize=None)
def _stemmer(language: str):
    # Building a Snowball stemmer compiles its tables: do it once per language.
    return snowballstemmer.stemmer(language)


@lru_cache(maxsize=200_000)
def _stem(language: str, word: str) -> str:
    # The stemmer is pure Python, far slower than a dictionary look-up, and a corpus
    # repeats its words many times: stem each distinct word once.
    return _stemmer(language).stemWord(word)


def _as_language(language) -> str:
    if not isinstance(language, str) or language.lower() not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}; got {language!r}")
    return language.lower()


def preprocess(text: str, language: str, stem: bool = True, stop_words: bool = True) -> str:
    """The words of `text`, stop words removed and stemmed, joined by single spaces.

    language is "english", "french", "german" or "italian".  Stop words are
    removed before stemming, because the lists hold words as written.  The
    result is again a text, so ``bag_of_words_kernel([preprocess(d, "german")
    for d in docs])`` is the handout's "stemmed, stop words removed" kernel.

    Raises ValueError when the text has no words, or nothing but stop words
    (its feature vector would be zero and it could not be normalised).
    """
    text = as_text(text, "text")
    language = _as_language(language)
    stem = as_bool(stem, "stem")
    stop_words = as_bool(stop_words, "stop_words")
    tokens = words(text)
    if not tokens:
        raise ValueError(f"text must contain at least one word, got {text!r:.60}")
    if stop_words:
        tokens = [word for word in tokens if word not in STOP_WORDS[language]]
        if not tokens:
            raise ValueError(f"text has only {language} stop words, nothing is left: {text!r:.60}")
    if stem:
        tokens = [_stem(language, word) for word in tokens]
    return " ".join(tokens)


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


# --------------------------------------------------------------------------- stop words
# Written for this kit from the closed classes of each language's grammar
# (articles, pronouns and possessives, prepositions and their contractions with
# the article, conjunctions, the forms of "to be" and "to have", modal verbs,
# negation and a few quantifiers), not copied from an existing list.  Pieces
# left by splitting at apostrophes are included (English "s" from "people's",
# French "l", "d", "qu" from "l'État", "d'un", "qu'il"; Italian "dell", "all"
# from "dell'Unione").  Content words are never on a list, so a text keeps what
# it is about.

_STOP_WORD_TEXT = {
    "english": """
        a an the this that these those
        i me my mine myself we us our ours ourselves you your yours yourself yourselves
        he him his himself she her hers herself it its itself they them their theirs themselves
        who whom whose which what whoever whatever
        am is are was were be been being have has had having do does did doing done
        will would shall should can could may might must
        and or but nor if then than so as because while whereas although though unless until whether
        either neither both
        of at by for with about against between into through during before after above below to from
        up down in out on off over under again further once upon within without among towards
        here there when where why how all any each every few more most other others some such
        no not only own same too very also just
        s t d ll re ve m
    """,
    "french": """
        le la les l un une des du de d au aux
        ce cet cette ces c ceci cela ça
        je j me m moi tu te t toi il elle on nous vous ils elles lui leur leurs eux se s soi
        mon ma mes ton ta tes son sa ses notre nos votre vos
        qui que qu quoi dont où lequel laquelle lesquels lesquelles auquel auxquels auxquelles
        duquel desquels desquelles
        et ou mais ni car donc or si comme quand lorsque lorsqu puisque puisqu quoique
        à en dans par pour sur sous avec sans entre vers chez contre pendant avant après depuis selon
        dès jusqu jusque
        ne n pas plus moins non aussi très tout tous toute toutes même mêmes autre autres y
        être est sont était étaient sera seront serait seraient été étant suis es sommes êtes
        soit soient fut furent
        avoir ai as a avons avez ont avait avaient aura auront aurait auraient eu ayant
        peut peuvent pouvoir pourra pourront doit doivent devoir devra devront
        chaque chacun chacune aucun aucune ainsi celui celle ceux celles
    """,
    "german": """
        der die das den dem des ein eine einer eines einem einen
        ich mich mir du dich dir er sie es ihn ihm ihr ihnen wir uns euch sich man
        mein meine meiner meines meinem meinen dein deine sein seine seiner seines seinem seinen
        ihre ihrer ihres ihrem ihren unser unsere unserer unseres unserem unseren euer eure
        dieser diese dieses diesem diesen jener jene jenes jenem jenen
        welcher welche welches welchem welchen
        und oder aber sondern denn doch wenn weil dass ob als wie so sowie
        in im an am auf aus bei beim mit nach von vom zu zum zur über unter vor hinter neben zwischen
        durch für gegen ohne um bis seit während wegen gemäss gemäß innerhalb ausserhalb außerhalb
        nicht kein keine keiner keines keinem keinen auch nur noch schon sehr mehr
        alle aller alles allen allem jede jeder jedes jedem jeden
        ist sind war waren bin bist seid wird werden wurde wurden worden wäre wären
        hat haben hatte hatten habe hast habt gehabt
        kann können konnte muss müssen soll sollen sollte darf dürfen will wollen mag
        da dort hier dann
        wer wen wem wessen deren dessen niemand jemand weder sofern soweit etwa
        andere anderer anderes anderem anderen
    """,
    "italian": """
        il lo la i gli le l un uno una
        di a da in con su per tra fra
        del dello della dei degli delle dell al allo alla ai agli alle all
        dal dallo dalla dai dagli dalle dall nel nello nella nei negli nelle nell
        sul sullo sulla sui sugli sulle sull
        io me mi tu te ti lui lei egli ella esso essa noi ci voi vi essi esse loro si sé ne
        mio mia miei mie tuo tua tuoi tue suo sua suoi sue
        nostro nostra nostri nostre vostro vostra vostri vostre
        questo questa questi queste quello quella quelli quelle quel quei quegli quest quell
        che chi cui quale quali
        e ed o od ma né se come anche però quando mentre perché poiché
        non più meno molto tutto tutti tutta tutte ogni altro altra altri altre
        stesso stessa stessi stesse
        è sono era erano sarà saranno sarebbe sarebbero essere stato stata stati state
        sia siano fosse fossero
        ha hanno ho hai abbiamo avete aveva avevano avrà avranno avere avuto
        può possono deve devono
        d ad senza prima dopo entro contro verso presso soltanto solo
        nessuno nessuna ognuno ognuna qualsiasi qualunque
    """,
}

#: The stop words of each language (lower-case, NFC), as frozensets.
STOP_WORDS = {
    language: frozenset(unicodedata.normalize("NFC", text).split())
    for language, text in _STOP_WORD_TEXT.items()
}

"""kgslab.text against independent references: scikit-learn's CountVectorizer and brute-force counts."""

import itertools
import unicodedata

import numpy as np
import pytest
import snowballstemmer
from sklearn.feature_extraction.text import CountVectorizer

from kgslab import text
from kgslab.text import STOP_WORDS, bag_of_words_kernel, kmer_kernel, preprocess

SENTENCES = [
    "The Federal Assembly shall elect the judges; the judges are independent.",
    "Every person has the right to life and to personal liberty.",
    "L'Assemblée fédérale élit les juges. Les juges sont indépendants!",
    "Die Bundesversammlung wählt die Richterinnen und Richter (Art. 12).",
    "L'Assemblea federale elegge i giudici dell'Unione, 2024.",
    "Élections: ÉLECTIONS élections",
]
OTHERS = ["the judges", "Liberté, égalité", "die Richter und die Richterinnen"]


def count_vectorizer():
    """CountVectorizer with the kit's word definition: lower-cased runs of letters."""
    return CountVectorizer(lowercase=True, token_pattern=text.WORD_PATTERN.pattern)


def brute_force_kmer(a: str, b: str, k: int) -> int:
    """The number of pairs of positions (s, t) whose k-character windows in a and b are equal."""
    windows_a = [a[s:s + k] for s in range(len(a) - k + 1)]
    windows_b = [b[t:t + k] for t in range(len(b) - k + 1)]
    return sum(x == y for x in windows_a for y in windows_b)


# --------------------------------------------------------------------------- bag of words

def test_bag_of_words_equals_count_vectorizer_gram():
    counts = count_vectorizer().fit_transform(SENTENCES).toarray().astype(float)
    np.testing.assert_array_equal(bag_of_words_kernel(SENTENCES), counts @ counts.T)


def test_bag_of_words_cross_kernel_equals_count_vectorizer():
    vectorizer = count_vectorizer().fit(SENTENCES + OTHERS)
    left = vectorizer.transform(SENTENCES).toarray().astype(float)
    right = vectorizer.transform(OTHERS).toarray().astype(float)
    K = bag_of_words_kernel(SENTENCES, OTHERS)
    assert K.shape == (len(SENTENCES), len(OTHERS))
    np.testing.assert_array_equal(K, left @ right.T)
    # A word only in `others` ("liberté") must not shift the columns of the words in `docs`.
    np.testing.assert_array_equal(bag_of_words_kernel(OTHERS, SENTENCES), K.T)


def test_bag_of_words_small_case_by_hand():
    # "the": 2 x 1, "cat": 1 x 0, "dog": 1 x 2  ->  2 + 0 + 2 = 4
    assert bag_of_words_kernel(["The cat and the dog."], ["dog, DOG: the"])[0, 0] == 4.0


def test_bag_of_words_is_raw_words_not_stems():
    K = bag_of_words_kernel(["constitution", "constitutions"])
    assert K[0, 1] == 0.0  # different words; only preprocess() stems


def test_bag_of_words_unicode_forms_are_one_word():
    composed = "élection"
    decomposed = unicodedata.normalize("NFD", composed)
    assert composed != decomposed
    assert bag_of_words_kernel([composed], [decomposed])[0, 0] == 1.0


def test_bag_of_words_gram_is_symmetric_psd_with_integer_entries():
    K = bag_of_words_kernel(SENTENCES)
    assert K.dtype == float
    np.testing.assert_array_equal(K, K.T)
    np.testing.assert_array_equal(K, np.round(K))
    assert np.linalg.eigvalsh(K)[0] > -1e-9 * np.abs(K).max()


def test_numpy_array_of_strings_is_accepted():
    as_array = np.array(SENTENCES, dtype=object)
    np.testing.assert_array_equal(bag_of_words_kernel(as_array), bag_of_words_kernel(SENTENCES))


# --------------------------------------------------------------------------- k-mers

@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_kmer_kernel_equals_brute_force_on_random_strings(k):
    rng = np.random.default_rng(k)
    alphabet = list("abcé ,")
    strings = ["".join(rng.choice(alphabet, size=rng.integers(k, 25))) for _ in range(7)]
    others = ["".join(rng.choice(alphabet, size=rng.integers(k, 25))) for _ in range(4)]
    expected = np.array([[brute_force_kmer(a, b, k) for b in others] for a in strings], dtype=float)
    np.testing.assert_array_equal(kmer_kernel(strings, others, k=k), expected)
    expected_gram = np.array([[brute_force_kmer(a, b, k) for b in strings] for a in strings], dtype=float)
    np.testing.assert_array_equal(kmer_kernel(strings, k=k), expected_gram)


def test_two_mer_kernel_equals_character_count_vectorizer():
    # CountVectorizer(analyzer="char") collapses runs of white space, so use texts with single spaces only.
    vectorizer = CountVectorizer(analyzer="char", ngram_range=(2, 2), lowercase=False)
    counts = vectorizer.fit_transform(SENTENCES).toarray().astype(float)
    np.testing.assert_array_equal(kmer_kernel(SENTENCES), counts @ counts.T)


def test_kmer_kernel_counts_case_and_punctuation():
    assert kmer_kernel(["Ab"], ["ab"])[0, 0] == 0.0
    assert kmer_kernel(["a, b"], [", "])[0, 0] == 1.0


def test_kmer_diagonal_is_sum_of_squared_counts():
    # "aaaa" has the 2-mer "aa" three times: 3^2 = 9.
    assert kmer_kernel(["aaaa"])[0, 0] == 9.0
    assert text.kmers("abcd", 3) == ["abc", "bcd"]


# --------------------------------------------------------------------------- preprocessing

def test_preprocess_removes_stop_words_and_stems():
    processed = preprocess("The judges of the courts are elected", "english")
    assert processed.split() == ["judg", "court", "elect"]


@pytest.mark.parametrize("language, singular, plural", [
    ("english", "constitution", "constitutions"),
    ("french", "droit", "droits"),
    ("german", "Verfassung", "Verfassungen"),
    ("italian", "costituzione", "costituzioni"),
])
def test_preprocess_maps_inflected_forms_to_one_stem(language, singular, plural):
    assert preprocess(singular, language) == preprocess(plural, language)
    assert bag_of_words_kernel([preprocess(singular, language)], [preprocess(plural, language)])[0, 0] == 1.0


@pytest.mark.parametrize("language, sentence, stop, content", [
    ("english", "The people shall elect their council", "the", "people"),
    ("french", "Le peuple élit le Conseil d'État", "le", "peuple"),
    ("german", "Das Volk wählt den Rat und die Regierung", "das", "volk"),
    ("italian", "Il popolo elegge il Consiglio dello Stato", "il", "popolo"),
])
def test_preprocess_options(language, sentence, stop, content):
    unstemmed = preprocess(sentence, language, stem=False).split()
    assert stop not in unstemmed and content in unstemmed
    kept = preprocess(sentence, language, stem=False, stop_words=False).split()
    assert kept == text.words(sentence)
    stemmed = preprocess(sentence, language, stop_words=False).split()
    assert stemmed == snowballstemmer.stemmer(language).stemWords(text.words(sentence))


def test_stop_word_lists_are_lower_case_single_words():
    for language, stop_words in STOP_WORDS.items():
        assert len(stop_words) >= 100, language
        for word in stop_words:
            assert text.words(word) == [word], (language, word)
            assert unicodedata.is_normalized("NFC", word)


# --------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("call, error, message", [
    (lambda: bag_of_words_kernel(["fine", ""]), ValueError, r"docs\[1\] has no words"),
    (lambda: bag_of_words_kernel(["fine", "12, 13."]), ValueError, r"docs\[1\] has no words"),
    (lambda: bag_of_words_kernel(["fine"], ["  "]), ValueError, r"others\[0\] has no words"),
    (lambda: bag_of_words_kernel(["fine", 3]), TypeError, r"docs\[1\] must be a string, got int"),
    (lambda: bag_of_words_kernel("one string"), TypeError, "docs must be a list of strings"),
    (lambda: bag_of_words_kernel([]), ValueError, "at least one document"),
    (lambda: bag_of_words_kernel(None), TypeError, "docs must be a list of strings"),
    (lambda: kmer_kernel(["ab", "a"]), ValueError, r"docs\[1\] has no 2-mers"),
    (lambda: kmer_kernel(["ab"], k=0), ValueError, "k must be >= 1"),
    (lambda: kmer_kernel(["ab"], k=2.0), TypeError, "k must be an integer"),
    (lambda: preprocess("Some words", "spanish"), ValueError, "language must be one of english, french"),
    (lambda: preprocess("Some words", None), ValueError, "language must be one of"),
    (lambda: preprocess("", "english"), ValueError, "text must contain at least one word"),
    (lambda: preprocess(b"bytes", "english"), TypeError, "text must be a string, got bytes"),
    (lambda: preprocess("of the and", "english"), ValueError, "only english stop words"),
])
def test_bad_input_gets_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_all_pairs_of_small_inputs_agree_with_brute_force():
    # Every pair from a small set, k = 2: catches an off-by-one in the window count.
    texts = ["", "a", "ab", "aba", "abab", "ba"]
    usable = [t for t in texts if len(t) >= 2]
    K = kmer_kernel(usable)
    for (i, a), (j, b) in itertools.product(enumerate(usable), repeat=2):
        assert K[i, j] == brute_force_kmer(a, b, 2)

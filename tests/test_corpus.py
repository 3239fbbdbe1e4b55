"""The shipped corpus: 195 aligned articles per language, real prose, and .mat files that match a rebuild."""

import re
from collections import Counter

import numpy as np
import pytest
import scipy.io

from kgslab import kernels, text
from kgslab.data import corpus

LANGUAGES = corpus.LANGUAGES


@pytest.fixture(scope="module")
def articles():
    return {language: corpus.read_constitution(language) for language in LANGUAGES}


@pytest.fixture(scope="module")
def raw_files():
    return {language: (corpus.CONSTITUTION_DIR / f"{language}.txt").read_text(encoding="utf-8")
            for language in LANGUAGES}


def test_195_articles_per_language_numbered_1_to_195(raw_files, articles):
    for language, content in raw_files.items():
        numbers = [int(n) for n in re.findall(r"^Article (\d+)$", content, flags=re.MULTILINE)]
        assert numbers == list(range(1, 196)), language
        assert len(articles[language]) == 195


def test_articles_are_aligned_across_languages(raw_files, articles):
    # The same article has the same paragraphs, the same numbers (dates, amounts,
    # article references) and a comparable length in every language.
    paragraphs = {language: [block.count("\n") for block in content.strip().split("\n\n")]
                  for language, content in raw_files.items()}
    for language in LANGUAGES[1:]:
        assert paragraphs[language] == paragraphs["english"], language
    for i in range(195):
        numbers = {language: sorted(re.findall(r"\d+", articles[language][i])) for language in LANGUAGES}
        assert all(found == numbers["english"] for found in numbers.values()), (i + 1, numbers)
        lengths = np.array([len(text.words(articles[language][i])) for language in LANGUAGES])
        assert lengths.max() <= 2 * lengths.min(), (i + 1, dict(zip(LANGUAGES, lengths)))


def test_articles_have_15_to_150_words(articles):
    for language, texts in articles.items():
        lengths = [len(text.words(article)) for article in texts]
        assert min(lengths) >= 15 and max(lengths) <= 150, (language, min(lengths), max(lengths))
        # Varied lengths, as a constitution has: not all of one size.
        assert np.std(lengths) > 10, language


def test_no_two_articles_alike(articles):
    for language, texts in articles.items():
        assert len(set(texts)) == 195, language
        # No near-copies or templates either: the cosine similarity of two different
        # articles' stemmed content words stays well below 1.
        processed = [text.preprocess(article, language) for article in texts]
        cosine = kernels.normalise(text.bag_of_words_kernel(processed))
        np.fill_diagonal(cosine, 0.0)
        i, j = np.unravel_index(np.argmax(cosine), cosine.shape)
        assert cosine[i, j] < 0.8, (language, i + 1, j + 1, cosine[i, j])


def test_each_language_function_words_dominate_its_texts(articles):
    # Only the function words no other language shares ("the", "les", "und", "della"...).
    own_words = {language: text.STOP_WORDS[language].difference(
        *(text.STOP_WORDS[other] for other in LANGUAGES if other != language)) for language in LANGUAGES}
    for language, texts in articles.items():
        for number, article in enumerate(texts, start=1):
            counts = Counter()
            for word in text.words(article):
                counts.update(other for other in LANGUAGES if word in own_words[other])
            strongest_other = max(counts[other] for other in LANGUAGES if other != language)
            assert counts[language] > strongest_other, (language, number, dict(counts))


def test_vocabulary_of_at_least_1500_distinct_words(articles):
    for language, texts in articles.items():
        vocabulary = {word for article in texts for word in text.words(article)}
        assert len(vocabulary) >= 1500, (language, len(vocabulary))


def test_accents_and_umlauts_present(articles):
    # Natural spelling, not ASCII transliteration.
    letters = {"french": "éèàçê", "german": "äöüß", "italian": "àèéìòù"}
    for language, accented in letters.items():
        joined = " ".join(articles[language])
        assert sum(joined.count(letter) for letter in accented) > 200, language


# --------------------------------------------------------------------------- the .mat files

def test_docs_mat_has_the_handout_cell_arrays(articles):
    raw = scipy.io.loadmat(corpus.DATA_DIR / "docs.mat")
    for language in LANGUAGES:
        assert raw[language].dtype == object and raw[language].shape == (195, 1)
    docs = corpus.load_docs()
    assert docs._fields == LANGUAGES
    for language in LANGUAGES:
        assert getattr(docs, language) == articles[language], f"docs.mat differs from {language}.txt: rebuild"


def test_shipped_kernels_equal_a_rebuild(articles):
    shipped = corpus.load_kernels()
    rebuilt = corpus.build_kernels(corpus.Docs(**articles))
    for name in ("K_bow", "K_2mer"):
        assert getattr(shipped, name).shape == (780, 780)
        np.testing.assert_array_equal(getattr(shipped, name), getattr(rebuilt, name),
                                      err_msg=f"Ks.mat's {name} differs from a rebuild: run `make data`")


def test_kernels_are_ordered_english_french_german_italian(articles):
    K_bow, K_2mer = corpus.load_kernels()
    # German article 10 is document 2 * 195 + 9 (0-based), as the handout says.
    german_10 = articles["german"][9]
    assert K_2mer[2 * 195 + 9, 2 * 195 + 9] == text.kmer_kernel([german_10])[0, 0]
    assert K_bow[2 * 195 + 9, 2 * 195 + 9] == text.bag_of_words_kernel([text.preprocess(german_10, "german")])[0, 0]
    for K in (K_bow, K_2mer):
        np.testing.assert_array_equal(K, K.T)
        assert np.all(np.diag(K) > 0)

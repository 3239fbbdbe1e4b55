"""The corpus file format and the .mat round trip, on a tiny corpus."""

import numpy as np
import pytest
import scipy.io

from kgslab import text
from kgslab.data import corpus

TINY = {
    "english": ["The people elect the council.", "Every person has the right to life.", "Taxes are fair."],
    "french": ["Le peuple élit le conseil.", "Toute personne a droit à la vie.", "Les impôts sont équitables."],
    "german": ["Das Volk wählt den Rat.", "Jeder Mensch hat das Recht auf Leben.", "Die Steuern sind gerecht."],
    "italian": ["Il popolo elegge il consiglio.", "Ogni persona ha diritto alla vita.", "Le imposte sono eque."],
}


def write_language(directory, language, articles, first=1):
    blocks = [f"Article {first + i}\n{article}" for i, article in enumerate(articles)]
    (directory / f"{language}.txt").write_text("\n\n".join(blocks) + "\n", encoding="utf-8")


@pytest.fixture
def tiny_corpus(tmp_path, monkeypatch):
    monkeypatch.setattr(corpus, "N_ARTICLES", 3)
    for language, articles in TINY.items():
        write_language(tmp_path, language, articles)
    return tmp_path


def test_parse_joins_paragraph_lines_and_keeps_numbers():
    content = "Article 7\n1 First paragraph.\n2 Second one.\n\nArticle 8\nOnly one.\n"
    assert corpus.parse_articles(content) == [(7, "1 First paragraph. 2 Second one."), (8, "Only one.")]


@pytest.mark.parametrize("content, message", [
    ("Preamble without heading\n\nArticle 1\nText.\n", "line 1: text before the first 'Article N'"),
    ("Article 1\n\nArticle 2\nText.\n", "Article 1 has no text"),
])
def test_parse_refuses_malformed_text(content, message):
    with pytest.raises(ValueError, match=message):
        corpus.parse_articles(content, "test")


def test_read_constitution_checks_numbering(tiny_corpus):
    assert corpus.read_constitution("german", tiny_corpus) == TINY["german"]
    (tiny_corpus / "german.txt").write_text("Article 1\nA.\n\nArticle 3\nB.\n\nArticle 2\nC.\n", encoding="utf-8")
    with pytest.raises(ValueError, match="at position 2 expected Article 2, found 3"):
        corpus.read_constitution("german", tiny_corpus)
    (tiny_corpus / "german.txt").write_text("Article 1\nA.\n\nArticle 2\nB.\n", encoding="utf-8")
    with pytest.raises(ValueError, match="expected Article 3, found the end of the file"):
        corpus.read_constitution("german", tiny_corpus)
    with pytest.raises(ValueError, match="language must be one of"):
        corpus.read_constitution("spanish", tiny_corpus)


def test_build_writes_handout_names_and_loaders_read_them_back(tiny_corpus):
    paths = corpus.build_corpus_files(tiny_corpus, tiny_corpus)
    assert sorted(path.name for path in paths) == ["Ks.mat", "docs.mat"]
    raw = scipy.io.loadmat(tiny_corpus / "docs.mat")
    assert {"english", "french", "german", "italian"} <= set(raw)
    assert raw["german"].dtype == object and raw["german"].shape == (3, 1)  # a MATLAB cell array
    docs = corpus.load_docs(tiny_corpus)
    assert docs == corpus.Docs(**TINY)  # accents survive the round trip
    K_bow, K_2mer = corpus.load_kernels(tiny_corpus)
    all_texts = [article for language in corpus.LANGUAGES for article in TINY[language]]
    processed = [text.preprocess(article, language) for language in corpus.LANGUAGES for article in TINY[language]]
    np.testing.assert_array_equal(K_2mer, text.kmer_kernel(all_texts))
    np.testing.assert_array_equal(K_bow, text.bag_of_words_kernel(processed))
    assert K_bow.shape == K_2mer.shape == (12, 12)


def test_rebuild_is_byte_identical(tiny_corpus, tmp_path_factory):
    first = {path.name: path.read_bytes() for path in corpus.build_corpus_files(tiny_corpus, tiny_corpus)}
    again = tmp_path_factory.mktemp("again")
    second = {path.name: path.read_bytes() for path in corpus.build_corpus_files(again, tiny_corpus)}
    assert first == second
    assert first["Ks.mat"].startswith(b"MATLAB 5.0 MAT-file, written by kgslab")

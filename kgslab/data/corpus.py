"""The coursework corpus: a constitution of 195 articles in English, French, German and Italian.

Coursework (seed 004), Exercises 5-7.  The handout's docs.mat held 195
articles of the Swiss constitution in four languages, and Ks.mat two kernels
on all 780 = 4 x 195 texts.  That text is not shipped; the kit carries its own
constitution, written for the kit, the i-th article in every language a
translation of the same article (data/README.md).  The files keep the
handout's names and layout, so its instructions still apply:

* data/constitution/{english,french,german,italian}.txt: the source, one file
  per language, each article a line "Article N", its text (one line per
  paragraph), then a blank line.
* data/docs.mat: four cell arrays `english`, `french`, `german`, `italian`
  of 195 texts each (an article's paragraphs joined by single spaces).
* data/Ks.mat: `K_bow` (bag of words after stop-word removal and stemming,
  as the handout's precomputed kernel was) and `K_2mer` (2-mers of the raw
  text), both 780 x 780, documents ordered english, french, german, italian,
  so the translations of english document i (0-based) sit at i + 195, i + 390
  and i + 585.

``python -m kgslab.data build`` (``make data``) rebuilds both .mat files from
the text files; a test fails when the shipped files differ from a rebuild.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import NamedTuple

import numpy as np
import scipy.io

from .. import text
from ._paths import DATA_DIR

__all__ = ["LANGUAGES", "N_ARTICLES", "Docs", "Kernels", "read_constitution", "load_docs", "load_kernels",
           "build_kernels", "build_corpus_files"]

LANGUAGES = text.LANGUAGES  # english, french, german, italian: the handout's order
N_ARTICLES = 195
CONSTITUTION_DIR = DATA_DIR / "constitution"

# A fixed description in the 116-byte MAT-file header instead of scipy's "Created on: <date>",
# so that rebuilding unchanged data gives byte-identical files (and no spurious git changes).
_MAT_HEADER = b"MATLAB 5.0 MAT-file, written by kgslab (python -m kgslab.data build)"
_ARTICLE_LINE = re.compile(r"Article (\d+)")


class Docs(NamedTuple):
    """The four languages' article lists, in the handout's order."""

    english: list[str]
    french: list[str]
    german: list[str]
    italian: list[str]


class Kernels(NamedTuple):
    """The precomputed kernels of Ks.mat, 780 x 780 (english, french, german, italian)."""

    K_bow: np.ndarray
    K_2mer: np.ndarray


# --------------------------------------------------------------------------- the text files

def parse_articles(content: str, source: str = "text") -> list[tuple[int, str]]:
    """(number, text) for each article of a text in the "Article N" format, in file order.

    An article's lines (its paragraphs) are joined with single spaces.  A
    line of text before the first "Article N" or an article without text is
    an error naming the source and the line.
    """
    articles: list[tuple[int, list[str]]] = []
    for line_number, line in enumerate(content.splitlines(), start=1):
        line = line.strip()
        heading = _ARTICLE_LINE.fullmatch(line)
        if heading:
            articles.append((int(heading.group(1)), []))
        elif line:
            if not articles:
                raise ValueError(f"{source}, line {line_number}: text before the first 'Article N' line")
            articles[-1][1].append(line)
    for number, lines in articles:
        if not lines:
            raise ValueError(f"{source}: Article {number} has no text")
    return [(number, " ".join(lines)) for number, lines in articles]


def _check_numbering(articles, source: str, first: int = 1, count: int | None = None) -> None:
    numbers = [number for number, _ in articles]
    expected = list(range(first, first + (len(numbers) if count is None else count)))
    if numbers != expected:
        wrong = next((i for i, (have, want) in enumerate(zip(numbers, expected)) if have != want),
                     min(len(numbers), len(expected)))
        found = numbers[wrong] if wrong < len(numbers) else "the end of the file"
        want = expected[wrong] if wrong < len(expected) else "no more articles"
        raise ValueError(
            f"{source}: articles must be numbered {first}..{expected[-1] if expected else first - 1} "
            f"in order; at position {wrong + 1} expected Article {want}, found {found}"
        )


def _as_directory(value, name: str) -> Path:
    """An existing directory, named in the error when it is not one."""
    if not isinstance(value, (str, Path)):
        raise TypeError(f"{name} must be a path (str or pathlib.Path), got {type(value).__name__}: {value!r:.60}")
    path = Path(value)
    if not path.is_dir():
        raise FileNotFoundError(f"{name} must be an existing directory, got {str(path)!r}")
    return path


def read_constitution(language: str, directory: Path | str = CONSTITUTION_DIR) -> list[str]:
    """The 195 articles of `language` (english, french, german or italian) from its text file."""
    if not isinstance(language, str) or language not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}; got {language!r}")
    path = _as_directory(directory, "directory") / f"{language}.txt"
    articles = parse_articles(path.read_text(encoding="utf-8"), str(path))
    _check_numbering(articles, str(path), count=N_ARTICLES)
    return [article for _, article in articles]


# --------------------------------------------------------------------------- kernels and .mat files

def _all_documents(docs: Docs) -> list[str]:
    return [article for language in LANGUAGES for article in getattr(docs, language)]


def build_kernels(docs: Docs) -> Kernels:
    """K_bow (stop words removed, stemmed, per language) and K_2mer (raw text) on all documents."""
    if not isinstance(docs, tuple) or len(docs) != len(LANGUAGES) or isinstance(docs, str):
        raise TypeError(f"docs must be a Docs (english, french, german, italian lists of texts), "
                        f"got {type(docs).__name__}")
    docs = Docs(*docs)
    for language in LANGUAGES:
        if isinstance(getattr(docs, language), str):
            raise TypeError(f"docs.{language} must be a list of texts, got a single string")
    processed = [text.preprocess(article, language)
                 for language in LANGUAGES for article in getattr(docs, language)]
    return Kernels(K_bow=text.bag_of_words_kernel(processed),
                   K_2mer=text.kmer_kernel(_all_documents(docs), k=2))


def _mat_bytes(variables: dict) -> bytes:
    """A compressed MAT-file (version 5) with a fixed header, as bytes."""
    buffer = io.BytesIO()
    scipy.io.savemat(buffer, variables, do_compression=True, oned_as="column")
    content = bytearray(buffer.getvalue())
    content[:116] = _MAT_HEADER.ljust(116)
    return bytes(content)


def _cell_array(strings: list[str]) -> np.ndarray:
    """A column of strings that scipy.io writes as a MATLAB cell array."""
    cells = np.empty(len(strings), dtype=object)
    cells[:] = strings
    return cells


def build_corpus_files(data_dir: Path | str = DATA_DIR, constitution_dir: Path | str | None = None) -> list[Path]:
    """Write data_dir/docs.mat and data_dir/Ks.mat from the constitution's text files; return their paths."""
    data_dir = _as_directory(data_dir, "data_dir")
    constitution_dir = _as_directory(CONSTITUTION_DIR if constitution_dir is None else constitution_dir,
                                     "constitution_dir")
    docs = Docs(*(read_constitution(language, constitution_dir) for language in LANGUAGES))
    kernels = build_kernels(docs)
    files = {
        data_dir / "docs.mat": {language: _cell_array(getattr(docs, language)) for language in LANGUAGES},
        data_dir / "Ks.mat": kernels._asdict(),
    }
    for path, variables in files.items():
        path.write_bytes(_mat_bytes(variables))
    return list(files)


def _existing(path: Path) -> Path:
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: rebuild it with `python -m kgslab.data build` (make data)")
    return path


def load_docs(data_dir: Path | str = DATA_DIR) -> Docs:
    """The texts of docs.mat: (english, french, german, italian), each a list of 195 strings.

    The i-th text of each language is a translation of the same article.
    """
    contents = scipy.io.loadmat(_existing(_as_directory(data_dir, "data_dir") / "docs.mat"), simplify_cells=True)
    return Docs(*([str(article) for article in contents[language]] for language in LANGUAGES))


def load_kernels(data_dir: Path | str = DATA_DIR) -> Kernels:
    """The kernels of Ks.mat: (K_bow, K_2mer), each 780 x 780, ordered english, french, german, italian.

    K_bow is the bag-of-words kernel after stop-word removal and stemming,
    K_2mer the 2-mer kernel of the raw texts; neither is normalised or centred
    (that is Exercise 5).
    """
    contents = scipy.io.loadmat(_existing(_as_directory(data_dir, "data_dir") / "Ks.mat"))
    return Kernels(K_bow=np.asarray(contents["K_bow"], dtype=float),
                   K_2mer=np.asarray(contents["K_2mer"], dtype=float))

"""kgslab.kernels.normalise (eq. 19) and centre (eq. 21) against explicit feature-space computations.

For a kernel K = X X' with known features X, normalising must equal the Gram
matrix of the rows of X scaled to unit length (eq. 18), and centring must
equal the Gram matrix of X minus its column means (eq. 20); centring must also
agree with scikit-learn's KernelCenterer.  The same is checked on text
kernels, whose feature vectors are CountVectorizer's counts.
"""

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.metrics.pairwise import cosine_similarity
from sklearn.preprocessing import KernelCenterer

from kgslab import text
from kgslab.kernels import centre, normalise

DOCS = [
    "The Confederation protects the freedom and the rights of the people.",
    "Short text.",
    "La Confédération protège la liberté et les droits du peuple.",
    "Die Eidgenossenschaft schützt die Freiheit und die Rechte des Volkes, heute und morgen.",
    "La Confederazione tutela la libertà e i diritti del popolo.",
    "Rights, rights and more rights.",
]


@pytest.fixture
def features():
    rng = np.random.default_rng(4)
    return rng.standard_normal((12, 5)) * rng.uniform(0.1, 10.0, size=(12, 1))


def test_normalise_equals_gram_of_unit_feature_vectors(features):
    unit = features / np.linalg.norm(features, axis=1, keepdims=True)  # eq. (18)
    K_n = normalise(features @ features.T)
    np.testing.assert_allclose(K_n, unit @ unit.T, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.diag(K_n), 1.0, rtol=1e-12)


def test_centre_equals_gram_of_centred_features_and_kernel_centerer(features):
    K = features @ features.T
    centred = features - features.mean(axis=0)  # eq. (20)
    K_c = centre(K)
    np.testing.assert_allclose(K_c, centred @ centred.T, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(K_c, KernelCenterer().fit_transform(K), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(K_c.mean(axis=0), 0.0, atol=1e-10)


def test_normalised_bag_of_words_is_cosine_similarity_of_counts():
    counts = CountVectorizer(token_pattern=text.WORD_PATTERN.pattern).fit_transform(DOCS)
    K_n = normalise(text.bag_of_words_kernel(DOCS))
    np.testing.assert_allclose(K_n, cosine_similarity(counts), rtol=1e-12, atol=1e-12)


def test_normalised_then_centred_text_kernel_matches_feature_space():
    counts = CountVectorizer(analyzer="char", ngram_range=(2, 2), lowercase=False).fit_transform(DOCS).toarray()
    unit = counts / np.linalg.norm(counts, axis=1, keepdims=True)
    centred = unit - unit.mean(axis=0)
    K_nc = centre(normalise(text.kmer_kernel(DOCS)))
    np.testing.assert_allclose(K_nc, centred @ centred.T, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(K_nc, KernelCenterer().fit_transform(normalise(text.kmer_kernel(DOCS))),
                               rtol=1e-10, atol=1e-12)


def test_short_texts_get_small_raw_values_but_unit_normalised_ones():
    K = text.bag_of_words_kernel(DOCS)
    lengths = np.array([len(text.words(doc)) for doc in DOCS])
    assert np.argmin(np.diag(K)) == np.argmin(lengths)  # "Short text." has the smallest self-similarity
    np.testing.assert_allclose(np.diag(normalise(K)), 1.0)


def test_normalise_refuses_a_zero_feature_vector():
    K = np.array([[1.0, 0.0], [0.0, 0.0]])
    with pytest.raises(ValueError, match="positive diagonal"):
        normalise(K)

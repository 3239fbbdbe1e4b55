"""The exercise checks of notebooks 05 (adatron) and 06 (bag of words).

Written solutions that follow the handout literally (a full gradient every
iteration, a dictionary per document) pass; a blank falls back to the
reference; the usual slips are caught.
"""

from collections import Counter

import numpy as np
import pytest
import scipy.sparse

from kgslab import check, text


def blank(*args, **kwargs):
    raise NotImplementedError()


def literal_adatron(K, y, C, eta=1.0, tol=0.005, max_iter=None, bias=True, b_with_old_alpha=False,
                    stop_on_tol=True):
    """The handout's algorithms as written: z and g recomputed from scratch every iteration (O(l^2))."""
    l = len(y)
    alpha, b = np.zeros(l), 0.0
    for _ in range(10 * l if max_iter is None else max_iter):
        z = K @ (y * alpha) + b
        g = 1 - y * z
        beta = np.minimum(np.maximum(alpha + eta * g, 0), C)
        i = np.argmax(np.abs(alpha - beta))
        if stop_on_tol and abs(alpha[i] - beta[i]) < tol:
            break
        old = y @ alpha
        alpha[i] = beta[i]
        if bias:
            b += (old if b_with_old_alpha else y @ alpha) / 4
    return (alpha, b) if bias else alpha


def no_bias(K, y, C, eta=1.0, tol=0.005, max_iter=None):
    return literal_adatron(K, y, C, eta, tol, max_iter, bias=False)


def with_bias(K, y, C, eta=1.0, tol=0.005, max_iter=None):
    return literal_adatron(K, y, C, eta, tol, max_iter, bias=True)


def naive_bow(docs):
    counts = [Counter(text.words(doc)) for doc in docs]
    return np.array([[sum(n * other[word] for word, n in mine.items()) for other in counts] for mine in counts],
                    dtype=float)


def sparse_bow(docs):
    vocabulary, rows, columns = {}, [], []
    for row, doc in enumerate(docs):
        for word in text.words(doc):
            rows.append(row)
            columns.append(vocabulary.setdefault(word, len(vocabulary)))
    C = scipy.sparse.csr_matrix((np.ones(len(rows)), (rows, columns)), shape=(len(docs), len(vocabulary)))
    return (C @ C.T).toarray()


def test_literal_solutions_pass(capsys):
    assert check.nb05_exercise_6_no_bias(no_bias) is no_bias
    assert check.nb05_exercise_6_with_bias(with_bias) is with_bias
    assert check.nb06_exercise_7_naive(naive_bow) is naive_bow
    assert check.nb06_exercise_7_sparse(sparse_bow) is sparse_bow
    assert capsys.readouterr().out.count("✔") == 4


@pytest.mark.parametrize("exercise", ["nb05_exercise_6_no_bias", "nb05_exercise_6_with_bias", "nb06_exercise_7_naive",
                                      "nb06_exercise_7_sparse"])
def test_blank_falls_back_to_a_working_reference(exercise, capsys):
    returned = getattr(check, exercise)(blank)
    assert returned is not blank
    assert "not attempted yet" in capsys.readouterr().out
    # The fallback has the student's signature and works.
    if exercise.startswith("nb05_exercise_6"):
        K = np.eye(4)
        result = returned(K, np.array([1.0, -1.0, 1.0, -1.0]), 1.0)
        alpha = result[0] if exercise.endswith("with_bias") else result
        assert np.allclose(alpha, 1.0)
    else:
        assert np.array_equal(returned(["a b a", "b"]), [[5.0, 1.0], [1.0, 1.0]])


@pytest.mark.parametrize("slip", [
    lambda K, y, C, eta=1.0, tol=0.005, max_iter=None: literal_adatron(K, y, C, eta, tol, max_iter,
                                                                        b_with_old_alpha=True),
    lambda K, y, C, eta=1.0, tol=0.005, max_iter=None: literal_adatron(K, y, C, eta, tol, max_iter,
                                                                        stop_on_tol=False),
    lambda K, y, C, eta=1.0, tol=0.005, max_iter=None: literal_adatron(K, y, C, eta, tol, max_iter)[0],
], ids=["bias from the old alpha", "ignores tol", "returns alpha only"])
def test_adatron_slips_are_caught(slip, capsys):
    assert check.nb05_exercise_6_with_bias(slip) is not slip
    assert "✘" in capsys.readouterr().out


def test_adatron_without_bias_slips_are_caught(capsys):
    def all_coordinates(K, y, C, eta=1.0, tol=0.005, max_iter=None):
        alpha = np.zeros(len(y))
        for _ in range(10 * len(y) if max_iter is None else max_iter):
            beta = np.clip(alpha + eta * (1 - y * (K @ (y * alpha))), 0, C)
            if np.max(np.abs(beta - alpha)) < tol:
                break
            alpha = beta                      # every coordinate at once: a projected gradient step instead
        return alpha

    def bias_left_in(K, y, C, eta=1.0, tol=0.005, max_iter=None):
        return literal_adatron(K, y, C, eta, tol, max_iter, bias=True)[0]

    for slip in (all_coordinates, bias_left_in):
        assert check.nb05_exercise_6_no_bias(slip) is not slip
    assert capsys.readouterr().out.count("✘") == 2


def test_bag_of_words_slips_are_caught(capsys):
    def presence_only(docs):                  # sets instead of counts
        sets = [set(text.words(doc)) for doc in docs]
        return np.array([[len(a & b) for b in sets] for a in sets], dtype=float)

    def case_sensitive(docs):
        counts = [Counter(doc.split()) for doc in docs]
        return np.array([[sum(n * other[w] for w, n in mine.items()) for other in counts] for mine in counts],
                        dtype=float)

    for slip in (presence_only, case_sensitive):
        assert check.nb06_exercise_7_naive(slip) is not slip
        assert check.nb06_exercise_7_sparse(slip) is not slip
    assert capsys.readouterr().out.count("✘") == 4

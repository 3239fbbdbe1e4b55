"""The exercise checks of notebook 04: written solutions pass, a blank falls back, a near miss is caught."""

import numpy as np
import pytest

from kgslab import check, kernels, text


def blank(K):
    raise NotImplementedError()


def normalise_as_in_the_notebook(K):
    norms = np.sqrt(np.diag(K))
    return K / np.outer(norms, norms)


def centre_as_in_the_notebook(K):
    J = np.ones_like(K) / len(K)
    return K - J @ K - K @ J + J @ K @ J


def norms_and_means_as_in_the_notebook(K):
    return np.sqrt(np.diag(K)), np.sqrt(max(K.mean(), 0.0))


def test_written_solutions_pass(capsys):
    assert check.nb04_exercise_5a(normalise_as_in_the_notebook) is normalise_as_in_the_notebook
    assert check.nb04_exercise_5b(centre_as_in_the_notebook) is centre_as_in_the_notebook
    assert check.nb04_exercise_5b_norms(norms_and_means_as_in_the_notebook) is norms_and_means_as_in_the_notebook
    assert capsys.readouterr().out.count("✔") == 3


@pytest.mark.parametrize("exercise", ["nb04_exercise_5a", "nb04_exercise_5b", "nb04_exercise_5b_norms"])
def test_blank_exercise_falls_back_to_a_working_reference(exercise, capsys):
    returned = getattr(check, exercise)(blank)
    assert returned is not blank
    assert "not attempted yet" in capsys.readouterr().out
    K = text.kmer_kernel(["abcab", "bca", "aab"])
    returned(K)  # the fallback runs


@pytest.mark.parametrize("exercise, near_miss", [
    # dividing by K_ii K_jj instead of its square root
    ("nb04_exercise_5a", lambda K: K / np.outer(np.diag(K), np.diag(K))),
    # dividing by the largest entry: right on the diagonal only when all norms are equal
    ("nb04_exercise_5a", lambda K: K / K.max()),
    # subtracting the column means only (centres the feature vectors' inner products on one side)
    ("nb04_exercise_5b", lambda K: K - K.mean(axis=0)),
    # forgetting to add back the grand mean
    ("nb04_exercise_5b", lambda K: K - K.mean(axis=0) - K.mean(axis=1)[:, None]),
    # the squared norms instead of the norms
    ("nb04_exercise_5b_norms", lambda K: (np.diag(K), np.sqrt(max(K.mean(), 0.0)))),
])
def test_near_misses_are_caught(exercise, near_miss, capsys):
    returned = getattr(check, exercise)(near_miss)
    assert returned is not near_miss
    assert "✘" in capsys.readouterr().out


def test_reference_of_norms_and_means_is_right_for_explicit_features():
    features = np.array([[3.0, 4.0], [1.0, 0.0], [0.0, 2.0]])
    norms, mean_norm = kernels.norms_and_means(features @ features.T)
    np.testing.assert_allclose(norms, [5.0, 1.0, 2.0])
    np.testing.assert_allclose(mean_norm, np.linalg.norm(features.mean(axis=0)))
    centred = kernels.centre(features @ features.T)
    assert kernels.norms_and_means(centred)[1] < 1e-7

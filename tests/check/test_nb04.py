"""The exercise checks of notebook 04: written solutions pass, a blank falls back, a near miss is caught."""

import numpy as np
import pytest

from checking import blank, blank_falls_back, solutions_pass, worked_reasoning_opens_only_after_a_pass
from kgslab import check, kernels, text


def normalise_as_in_the_notebook(K):
    norms = np.sqrt(np.diag(K))
    return K / np.outer(norms, norms)


def centre_as_in_the_notebook(K):
    J = np.ones_like(K) / len(K)
    return K - J @ K - K @ J + J @ K @ J


def norms_and_means_as_in_the_notebook(K):
    return np.sqrt(np.diag(K)), np.sqrt(max(K.mean(), 0.0))


def test_written_solutions_pass(capsys):
    solutions_pass(capsys, nb04_exercise_5a=normalise_as_in_the_notebook, nb04_exercise_5b=centre_as_in_the_notebook,
                   nb04_exercise_5b_norms=norms_and_means_as_in_the_notebook)


@pytest.mark.parametrize("exercise", ["nb04_exercise_5a", "nb04_exercise_5b", "nb04_exercise_5b_norms"])
def test_blank_exercise_falls_back_to_a_working_reference(exercise, capsys):
    returned = blank_falls_back(exercise, capsys)
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


# ---- the experiments of Exercise 5 (issue 16): printing a block, the table of norms and means ------------

def kernel_block_as_in_the_notebook(K, rows):
    return K[np.ix_(rows, rows)]


def table_as_in_the_notebook(kernel_list):
    rows = []
    for K in kernel_list:
        norms, mean_norm = norms_and_means_as_in_the_notebook(K)
        rows.append([norms.min(), norms.max(), mean_norm])
    return np.array(rows)


def test_the_experiments_pass_when_written_as_in_the_notebook(capsys):
    def rows_then_columns(K, rows):
        return K[rows][:, rows]

    assert check.nb04_exercise_5a_block(kernel_block_as_in_the_notebook) is kernel_block_as_in_the_notebook
    assert check.nb04_exercise_5a_block(rows_then_columns) is rows_then_columns
    assert check.nb04_exercise_5b_table(table_as_in_the_notebook) is table_as_in_the_notebook
    assert capsys.readouterr().out.count("✔") == 3


def test_kernel_block_slips_are_caught(capsys):
    def paired_indices(K, rows):          # K[rows, rows]: the diagonal entries only
        return K[rows, rows]

    def sorted_rows(K, rows):             # the order of the rows is lost
        rows = sorted(rows)
        return K[np.ix_(rows, rows)]

    def sorts_in_place(K, rows):          # right values, but the caller's list is sorted
        block = K[np.ix_(rows, rows)]
        if isinstance(rows, list):
            rows.sort()
        return block

    def first_rows(K, rows):              # the top-left corner instead of the chosen documents
        return K[:len(rows), :len(rows)]

    check.nb04_exercise_5a_block(paired_indices)
    assert "only the diagonal entries" in capsys.readouterr().out
    for slip in (sorted_rows, sorts_in_place, first_rows):
        assert check.nb04_exercise_5a_block(slip) is not slip
    out = capsys.readouterr().out
    assert out.count("✘") == 3 and "changed its input `rows`" in out


def test_table_slips_are_caught(capsys):
    def squared_norms(kernel_list):
        return np.array([[np.diag(K).min(), np.diag(K).max(), np.sqrt(max(K.mean(), 0.0))] for K in kernel_list])

    def transposed(kernel_list):
        return table_as_in_the_notebook(kernel_list).T

    def mean_of_norms(kernel_list):       # the mean of the norms is not the norm of the mean
        return np.array([[np.sqrt(np.diag(K)).min(), np.sqrt(np.diag(K)).max(), np.sqrt(np.diag(K)).mean()]
                         for K in kernel_list])

    for slip in (squared_norms, transposed, mean_of_norms):
        assert check.nb04_exercise_5b_table(slip) is not slip
    assert capsys.readouterr().out.count("✘") == 3


def test_the_5a_hint_gives_no_code_until_asked(capsys):
    check.nb04_exercise_5a(lambda K: K / np.outer(np.diag(K), np.diag(K)))
    out = capsys.readouterr().out
    assert "np.outer" not in out and "square root" in out
    check.hint("nb04_exercise_5a")
    assert "np.outer" in capsys.readouterr().out


def test_the_worked_reasoning_opens_only_after_the_students_own_pass(capsys, monkeypatch):
    """check.why shows 5b's norms-and-means reasoning once the student's own function passed, never before."""
    worked_reasoning_opens_only_after_a_pass("nb04_exercise_5b_norms", norms_and_means_as_in_the_notebook, (blank,),
                                             capsys, monkeypatch, words="mean of all entries")

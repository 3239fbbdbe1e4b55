"""Checks for notebook 04 (normalising and centring kernel matrices, coursework Exercise 5)."""

from __future__ import annotations

import numpy as np

from .. import kernels as _kernels, text as _text
from .cases import Case
from .exercise import Exercise
from .values import Problem, allclose

__all__ = ["nb04_exercise_5a_block", "nb04_exercise_5a", "nb04_exercise_5b", "nb04_exercise_5b_norms",
           "nb04_exercise_5b_table"]

_TEXTS = [
    "The Federation protects freedom.",
    "Every person has the right to life and to personal freedom, and to the protection of the law.",
    "La Fédération protège la liberté.",
    "Der Bund schützt die Freiheit.",
    "La Federazione tutela la libertà e i diritti di ogni persona.",
]


def _cases():
    rng = np.random.default_rng(5)
    features = rng.standard_normal((6, 3)) * rng.uniform(0.5, 5.0, size=(6, 1))
    return [
        Case("the 2-mer kernel of five short texts", (_text.kmer_kernel(_TEXTS),)),
        Case("the bag-of-words kernel of the same texts", (_text.bag_of_words_kernel(_TEXTS),)),
        Case("K = X X' for 6 points in R^3 of very different lengths", (features @ features.T,)),
        Case("a diagonal 3 x 3 kernel", (np.diag([4.0, 1.0, 9.0]),)),
    ]


def _kernel_hidden(rng):
    """Grading cases of other sizes: Gram matrices of 2 to 12 points in 1 to 6 dimensions, lengths far apart."""
    found = []
    for n, d in [(int(rng.integers(2, 5)), 1), (int(rng.integers(8, 13)), int(rng.integers(2, 7)))]:
        features = rng.standard_normal((n, d)) * rng.uniform(0.3, 6.0, size=(n, 1))
        found.append(Case(f"a grading case: K = X X' for {n} points in R^{d}", (features @ features.T,)))
    return found


nb04_exercise_5a = Exercise(
    "nb04_exercise_5a", "Exercise 5a (normalise a kernel, eq. 19)",
    _kernels.normalise, _cases, points=2, hidden=_kernel_hidden,
    compare=allclose(rtol=1e-9, atol=1e-12),
    hint="eq. (19) divides every entry K_ij by the lengths of both feature vectors (each read off the diagonal of "
         "K), so every diagonal entry of the result is 1 and no entry exceeds 1 in size. If yours are off by a "
         "square root, check which power of K_ii you divide by.",
    code_hint="np.diag(K) is the vector of K_ii; np.outer(u, v) is the matrix u_i v_j, so the division "
              "needs no diagonal matrices (and no loops); build a new array rather than dividing K in place.")


nb04_exercise_5b = Exercise(
    "nb04_exercise_5b", "Exercise 5b (centre a kernel, eq. 21)",
    _kernels.centre, _cases, points=2, hidden=_kernel_hidden,
    compare=allclose(rtol=1e-9, atol=1e-9),
    hint="eq. (21) subtracts from K the mean of each column, the mean of each row, and adds back the mean "
         "of all entries (the (1/l) 1 1' K, (1/l) K 1 1' and (1/l^2) 1 1' K 1 1' terms). Every row and "
         "every column of the result sums to 0; if only the columns do, a term is missing.",
    code_hint="(1/l) 1 1' is np.ones((l, l)) / l, a matrix you can multiply with @; or use K.mean(axis=0), "
              "K.mean(axis=1) and K.mean() with broadcasting ([:, None] makes a column).")


def _nb04_exercise_5b_norms_cases():
    """The norms sqrt(K_ii) and the norm of the mean feature vector, sqrt(1'K1) / l."""
    cases = _cases()
    cases.append(Case("a centred kernel (its mean feature vector is 0)",
                      (_kernels.centre(_text.kmer_kernel(_TEXTS)),)))
    return cases


nb04_exercise_5b_norms = Exercise(
    "nb04_exercise_5b_norms", "Exercise 5b (norms and means in feature space)",
    _kernels.norms_and_means, _nb04_exercise_5b_norms_cases, points=2,
    compare=allclose(rtol=1e-7, atol=1e-7),
    hint="both numbers are read off K alone: write each squared norm as an inner product of feature vectors "
         "(for the mean feature vector, expand the sum first) and replace every inner product by an entry of K. "
         "Return the norms, not their squares. For a centred K the mean feature vector is 0, and its squared "
         "norm can come out a tiny negative number by rounding.",
    code_hint="np.diag(K) and K.mean(); clip a negative rounding value at 0 before the square root "
              "(max(value, 0.0)), or np.sqrt gives nan.",
    worked=r"""Every squared norm is an inner product, and every inner product of feature vectors is an entry of
$\mathbf{K}$:

* $\|\phi(x_i)\|^2 = \langle\phi(x_i), \phi(x_i)\rangle = \mathbf{K}_{ii}$, so the norms are $\sqrt{\mathbf{K}_{ii}}$: all 1
  after normalising;
* $\|\bar\phi\|^2 = \frac{1}{l^2}\sum_{i,j}\langle\phi(x_i), \phi(x_j)\rangle = \frac{1}{l^2}\sum_{i,j}\mathbf{K}_{ij}$,
  the mean of all entries of $\mathbf{K}$: 0 after centring (and then every row of $\mathbf{K}$ has mean 0 too, since
  row $i$'s mean is $\phi(x_i)'\bar\phi$).

In floating point the mean of a centred $\mathbf{K}$ is a rounding error of either sign, so it is clipped at 0 before
the square root.""")


def _kernel_block(K, rows):
    rows = np.asarray(rows)
    return K[np.ix_(rows, rows)]


def _nb04_exercise_5a_block_cases():
    """The square block of K for a list of documents (all pairs of the chosen rows)."""
    K = _text.kmer_kernel(_TEXTS)
    return [
        Case("the 2-mer kernel of five texts, rows [0, 2, 4]", (K, [0, 2, 4])),
        Case("the same kernel, rows [3, 1] (order kept)", (K, [3, 1])),
        Case("a 6 x 6 kernel, rows as a numpy array [5, 0, 2, 1]", (_cases()[2].args[0], np.array([5, 0, 2, 1]))),
    ]


def _diagnose_block(expected, got):
    problem = allclose(rtol=0, atol=0)(expected, got)
    if problem and isinstance(got, np.ndarray) and got.ndim == 1 and got.shape[0] == expected.shape[0] \
            and np.allclose(got, np.diag(expected)):
        return Problem(problem, "diagonal-only", "These are only the diagonal entries K[r, r] of the block: "
                       "indexing K with two lists pairs them element by element. The block has every chosen row "
                       "with every chosen column.")
    return problem


nb04_exercise_5a_block = Exercise(
    "nb04_exercise_5a_block", "Exercise 5a (print part of a kernel: the block of chosen documents)",
    _kernel_block, _nb04_exercise_5a_block_cases, points=1,
    compare=_diagnose_block,
    hint="the result is the len(rows) x len(rows) matrix whose entry (a, b) is K[rows[a], rows[b]]: every chosen "
         "row with every chosen column, in the order given.",
    code_hint="np.ix_(rows, rows) builds the open mesh that selects all pairs; or select the rows first and "
              "then the columns of the result.")


def _norms_and_means_table(kernels_list):
    table = []
    for K in kernels_list:
        norms, mean_norm = _kernels.norms_and_means(K)
        table.append([norms.min(), norms.max(), mean_norm])
    return np.array(table)


def _nb04_exercise_5b_table_cases():
    """One row per kernel: smallest norm, largest norm, norm of the mean feature vector."""
    K = _text.kmer_kernel(_TEXTS)
    normalised = _kernels.normalise(K)
    return [
        Case("[K, K_n, K_nc] of the 2-mer kernel of five texts", ([K, normalised, _kernels.centre(normalised)],)),
        Case("one kernel: K = X X' for 6 points of very different lengths", ([_cases()[2].args[0]],)),
    ]


nb04_exercise_5b_table = Exercise(
    "nb04_exercise_5b_table", "Exercise 5b (the table of norms and means)",
    _norms_and_means_table, _nb04_exercise_5b_table_cases, points=1,
    compare=allclose(rtol=1e-7, atol=1e-7),
    hint="one row per kernel in the list, in the same order, with three columns: the smallest and the largest "
         "feature-space norm, and the norm of the mean feature vector (your norms_and_means gives all three).",
    code_hint="loop over the list, call norms_and_means(K), collect [norms.min(), norms.max(), mean_norm] and "
              "turn the list of rows into an array with np.array.")

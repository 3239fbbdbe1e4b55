"""kgslab.papers.kfd2001 (notebook 10's experiments) and the checks behind what the notebook says about them."""

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from kgslab import data
from kgslab.kfd import _ScatterFromMoments, fisher_direction
from kgslab.label_noise import label_noise_em
from kgslab.papers import kfd2001 as paper


@pytest.mark.parametrize("offset", [0.0, 1e3])
def test_scatter_from_moments_equals_the_explicit_fisher_direction(offset):
    """EM's O(n b) scatter (K'K once) against the textbook sum over points, on large kernel values too."""
    rng = np.random.default_rng(0)
    K_basis = rng.standard_normal((300, 20)) + offset
    posterior = rng.dirichlet([1.0, 1.0], size=300)          # rows sum to one, as EM's do
    for mu in (1e-6, 1.0):
        fast = _ScatterFromMoments(K_basis).direction(posterior, mu)
        explicit = fisher_direction(K_basis, posterior, mu)
        assert np.allclose(fast, explicit, rtol=1e-7, atol=1e-9 * np.abs(explicit).max())


def test_em_reaches_the_maximum_likelihood_found_by_a_general_optimiser():
    """EM's fixed point on the toy is the maximum of the likelihood (brute force: BFGS from several starts).

    So the flip rates in notebook 10's Table 1 are maximum-likelihood estimates; a deviation from the
    population value is the sample's (and the MLE's finite-N spread), not a bug of the EM updates.
    """
    X, y, _ = data.kfd_toy_data(300, random_state=3)
    fit = label_noise_em(X, y, initial_flip_rates=(0.3, 0.3), tol=1e-12, max_iter=5000)
    best_log_likelihood, rates = paper.toy_likelihood_maximum(X, y, fit.means, n_starts=4, random_state=1)
    assert best_log_likelihood <= fit.log_likelihood[-1] + 1e-4     # nobody beats EM's likelihood ...
    assert np.allclose(rates, fit.flip_rates, atol=2e-3)             # ... and the maximiser is EM's point


def test_the_general_optimiser_beats_a_point_that_is_not_the_maximum():
    """The check has teeth: EM stopped after 2 iterations is beaten, and its flip rates are not the optimiser's."""
    X, y, _ = data.kfd_toy_data(300, random_state=3)
    early = label_noise_em(X, y, initial_flip_rates=(0.3, 0.3), max_iter=2)
    best_log_likelihood, rates = paper.toy_likelihood_maximum(X, y, early.means, n_starts=2, random_state=1)
    assert best_log_likelihood > early.log_likelihood[-1] + 1.0
    assert not np.allclose(rates, early.flip_rates, atol=2e-3)


def test_toy_negative_log_likelihood_equals_scipy_densities():
    """The hand-written Cholesky parameterisation against scipy's multivariate normal on one point of theta."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(50, 2))
    y_index = rng.integers(0, 2, 50)
    theta = rng.normal(size=12)
    expected = 0.0
    rates = 1 / (1 + np.exp(-theta[10:12]))
    densities = []
    for c in (0, 1):
        a, b, d = theta[4 + 3 * c: 7 + 3 * c]
        factor = np.array([[np.exp(a), 0.0], [b, np.exp(d)]])
        densities.append(multivariate_normal.logpdf(X, theta[2 * c: 2 * c + 2], factor @ factor.T))
    for n in range(50):
        own, other = 1 - rates[y_index[n]], rates[y_index[n]]
        weights = [own, other] if y_index[n] == 0 else [other, own]
        expected -= np.logaddexp(densities[0][n] + np.log(weights[0]), densities[1][n] + np.log(weights[1]))
    assert np.isclose(paper._toy_negative_log_likelihood(theta, X, y_index), expected, rtol=1e-10)


def test_toy_table_sample_statistics_and_shapes():
    truth, estimates, samples = paper.toy_table(sizes=(300,), n_repeats=3, random_state=0)
    assert truth.shape == (15,) and estimates[300].shape == samples[300].shape == (3, 15)
    assert np.isclose(truth[paper.TOY_STATISTICS.index("gamma_2")], 0.5)
    # a sample's own gamma_2 is the share of labelled-2 points that are class 1
    X, y, y_true = data.kfd_toy_data(300, random_state=np.random.default_rng(0))
    assert np.isclose(samples[300][0, paper.TOY_STATISTICS.index("gamma_2")], np.mean(y_true[y == 2] == 1))


def test_sky_splits_hold_whole_photographs_out():
    pairs = paper.sky_test_pairs()
    assert len(pairs) == 12 and all(data.SKY_PHOTOGRAPHS[a] and not data.SKY_PHOTOGRAPHS[b] for a, b in pairs)
    grids = paper.sky_grids(stride=8)
    split = paper.sky_split(("rocket", "chelsea"), grids)
    assert "rocket" not in split["train"] and "chelsea" not in split["train"] and len(split["train"]) == 5
    train_rows = {tuple(row) for row in split["X_train"].round(9)}
    assert not any(tuple(row) in train_rows for row in split["X_test"].round(9))
    validation = paper._validation_pair(split["train"])
    assert set(validation) <= set(split["train"]) and data.SKY_PHOTOGRAPHS[validation[0]]
    with pytest.raises(ValueError, match="photographs among"):
        paper.sky_split(("moon",), grids)


def test_load_result_names_the_missing_file():
    with pytest.raises(FileNotFoundError, match="python -m kgslab.papers.kfd2001"):
        paper.load_result("no_such_result.json")


def test_a_sample_too_small_for_em_is_refused_naming_sizes():
    # EM on a few dozen points can leave a class of a handful of points and a singular covariance; toy_table has no
    # reg_covar to pass, so its error names the argument the caller can change, with the sample's size
    def collapsing_em(X, y_index, initial_flip_rates):
        from kgslab.label_noise import label_noise_em
        return label_noise_em(X[:3], y_index[:3], initial_flip_rates=initial_flip_rates)   # 3 points: singular

    with pytest.raises(ValueError, match=r"^sizes: a sample of 30 points left EM a class covariance .* got 30$"):
        paper.toy_table(sizes=(30,), n_repeats=1, random_state=0, em=collapsing_em)

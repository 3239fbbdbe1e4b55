"""Regression tests for the worst cases of issue 18 (bad input must never give a silent answer).

Each test is one case the issue's fuzz run found; the general properties are in tests/test_fuzz.py.
"""

import re
import warnings

import numpy as np
import pytest

from kgslab import billiard, evidence, hmc, kernels, kgs, regression, text
from kgslab.adatron import KernelAdatron
from kgslab.adatron import kernel_adatron
from kgslab.data import sinc_data, xor_data
from kgslab.kfd import LabelNoiseKFD
from kgslab.label_noise import flip_rates_from_noise_rates, label_noise_em, noise_rates_from_flip_rates
from kgslab.perceptron import KernelPerceptron, kernel_perceptron


def _rbf_problem(n=30, L=1.0, seed=0):
    X, y = sinc_data(n, random_state=seed)
    return kernels.rbf_kernel(X, L=L), y


# ---- rbf_kernel at a tiny width ---------------------------------------------------------------------

def test_rbf_kernel_refuses_a_width_whose_square_underflows():
    X = np.array([[0.0], [1.0]])
    with pytest.raises(ValueError, match=r"L = 1e-170 is too small"):
        kernels.rbf_kernel(X, L=1e-170)   # used to return a NaN diagonal


def test_rbf_kernel_just_above_the_underflow_is_the_identity():
    X = np.array([[0.0], [1.0], [2.0]])
    np.testing.assert_array_equal(kernels.rbf_kernel(X, L=1e-150), np.eye(3))


@pytest.mark.parametrize("estimator", [KernelAdatron(kernel="rbf", L=1e-170),
                                       KernelPerceptron(kernel="rbf", L=1e-170),
                                       LabelNoiseKFD(kernel="rbf", L=1e-170)])
def test_rbf_estimators_refuse_an_underflowing_width(estimator):
    X, y = xor_data(12, random_state=0)
    with pytest.raises(ValueError, match=r"\bL = 1e-170"):   # used to predict one class for everything
        estimator.fit(X, y)


# ---- bools are bools ------------------------------------------------------------------------------

def test_truthy_strings_are_not_booleans():
    K, _ = _rbf_problem(8)
    y = np.where(np.arange(8) % 2 == 0, 1.0, -1.0)
    with pytest.raises(TypeError, match=r"bias must be True or False, got 'False'"):
        kernel_adatron(K, y, bias="False")   # used to run the bias version
    with pytest.raises(TypeError, match=r"shuffle must be True or False"):
        kernel_perceptron(K, y, shuffle="False")
    with pytest.raises(TypeError, match=r"shared_covariance must be True or False"):
        label_noise_em(np.random.default_rng(0).normal(size=(8, 2)), y, shared_covariance="False")
    with pytest.raises(TypeError, match=r"stem must be True or False"):
        text.preprocess("the law of the land", "english", stem="False")
    with pytest.raises(ValueError, match=r"'shuffle' parameter of KernelPerceptron must be an instance of 'bool'"):
        KernelPerceptron(shuffle="False").fit(K, y)


def test_the_string_false_and_the_bool_false_differ():
    """The bias=False run is what bias=False means (b stays 0); "False" is refused, not mistaken for True."""
    K, _ = _rbf_problem(10)
    y = np.where(np.arange(10) % 3 == 0, 1.0, -1.0)
    assert kernel_adatron(K, y, bias=False)[1] == 0.0
    assert kernel_adatron(K, y, bias=np.bool_(False))[1] == 0.0


# ---- messages name the caller's arguments -----------------------------------------------------------

def test_k_based_functions_name_k_not_x():
    K, _ = _rbf_problem(6)
    with pytest.raises(ValueError, match=r"y must have one entry per row of K \(6\), got 5"):
        kernel_adatron(K, [1, -1, 1, -1, 1])
    with pytest.raises(ValueError, match=r"y must have one entry per row of K"):
        kernel_perceptron(K, [1, -1, 1, -1, 1])
    with pytest.raises(ValueError, match=r"y must have one entry per row of K"):
        regression.kernel_ridge(K, np.ones(5), 0.1)


def test_ridge_errors_names_y_test():
    X, y = sinc_data(20, random_state=1)
    with pytest.raises(ValueError, match=r"y_test must have one entry per row of X_test \(10\), got 9"):
        regression.ridge_errors(X[:10], y[:10], X[10:], y[10:19], [0.1])


def test_ridge_errors_refuses_gammas_none():
    X, y = sinc_data(20, random_state=1)
    with pytest.raises(TypeError, match=r"gammas must be an array of numbers, got None"):
        regression.ridge_errors(X[:10], y[:10], X[10:], y[10:], None)   # used to say "gamma ... nan"
    with pytest.raises(ValueError, match=r"gammas must all be >= 0"):
        regression.ridge_errors(X[:10], y[:10], X[10:], y[10:], [0.1, -1.0])


# ---- labels ---------------------------------------------------------------------------------------

def test_pm1_functions_refuse_string_labels_and_map_zero_one():
    K, _ = _rbf_problem(6)
    with pytest.raises(TypeError, match=r"\by must be an array of real numbers"):
        kernel_adatron(K, ["a", "b", "a", "b", "a", "b"])
    zero_one = kernel_adatron(K, [1, 0, 1, 0, 1, 0])
    plus_minus = kernel_adatron(K, [1, -1, 1, -1, 1, -1])
    np.testing.assert_array_equal(zero_one[0], plus_minus[0])


def test_numbers_written_as_text_are_refused():
    with pytest.raises(TypeError, match=r"\bX must be an array of real numbers"):
        kernels.linear_kernel(np.array([["1.0", "2.0"]]))
    with pytest.raises(TypeError, match=r"\bK must be an array of real numbers"):
        kernels.centre(np.eye(2) + 1j)   # numpy would drop the imaginary part with a warning


# ---- text ------------------------------------------------------------------------------------------

def test_count_matrix_refuses_documents_given_as_strings():
    with pytest.raises(TypeError, match=r"token_lists\[0\] must be a list of tokens, got the string 'the law'"):
        text.count_matrix(["the law", "a law law"])   # used to build a vocabulary of single characters
    counts, vocabulary = text.count_matrix([text.words("the law"), text.words("a law law")])
    assert sorted(vocabulary) == ["a", "law", "the"]
    assert counts[1, vocabulary["law"]] == 2



@pytest.mark.parametrize("vocabulary, words", [
    ({"a": 5}, r"column 5 for a vocabulary of 1 features"),     # used to be cut off by the shape: 'a' dropped
    ({"a": -1}, r"column -1 for a vocabulary of 1 features"),   # used to count in the last column
    ({"a": 0, "b": 0}, r"column 0 used twice"),                 # used to add 'a' and 'b' up
])
def test_count_matrix_refuses_a_vocabulary_whose_columns_are_not_0_to_n_minus_1(vocabulary, words):
    with pytest.raises(ValueError, match=r"vocabulary's columns must be 0, 1, \.\.\., len\(vocabulary\) - 1.*" + words):
        text.count_matrix([["a", "b"]], vocabulary)
    with pytest.raises(TypeError, match=r"vocabulary's columns must be integers, got 1.5 \(float\)"):
        text.count_matrix([["a"]], {"a": 1.5})


def test_count_matrix_extends_a_vocabulary_it_built():
    first, vocabulary = text.count_matrix([["a", "b"]])
    second, vocabulary = text.count_matrix([["b", "c"]], vocabulary)
    assert vocabulary == {"a": 0, "b": 1, "c": 2}
    np.testing.assert_array_equal(second.toarray(), [[0, 1, 1]])

# ---- kfd ------------------------------------------------------------------------------------------

def test_priors_must_sum_to_one():
    with pytest.raises(ValueError, match=r"observed_priors must sum to 1.*summing to 1.4"):
        noise_rates_from_flip_rates([0.1, 0.2], [0.7, 0.7])
    with pytest.raises(ValueError, match=r"true_priors must sum to 1"):
        flip_rates_from_noise_rates([0.1, 0.2], [0.5, 0.4])
    # The conversions are inverse to each other on valid input (independent of the check above).
    priors, flips = flip_rates_from_noise_rates([0.2, 0.2], [0.8, 0.2])
    true_priors, noise = noise_rates_from_flip_rates(flips, priors)
    np.testing.assert_allclose(true_priors, [0.8, 0.2])
    np.testing.assert_allclose(noise, [0.2, 0.2])


# ---- numerically meaningless regression inputs -----------------------------------------------------

def test_log_evidence_refuses_a_noise_variance_below_rounding_on_a_singular_kernel():
    K, y = _rbf_problem(40)   # an RBF Gram matrix of 40 points in [-4, 4]: numerically singular
    with pytest.raises(ValueError, match=r"sigma2 = 1e-300 is below the rounding level"):
        regression.log_evidence(K, y, 1e-300)   # used to return -1.6e299
    with pytest.raises(ValueError, match=r"sigma2"):
        regression.log_evidence(K, y, np.array([1e-2, 1e-300]))
    value = regression.log_evidence(K, y, 1e-2)
    # Independent reference: the Gaussian log density of y under N(0, K + sigma^2 I).
    from scipy.stats import multivariate_normal
    assert value == pytest.approx(multivariate_normal(np.zeros(40), K + 1e-2 * np.eye(40)).logpdf(y), rel=1e-9)


def test_log_evidence_keeps_tiny_noise_on_a_well_conditioned_kernel():
    """sigma^2 = 1e-300 is meaningful when K itself is far from singular: -y'y/2 - l/2 ln(2 pi)."""
    y = np.array([1.0, -2.0, 0.5])
    expected = -0.5 * y @ y - 1.5 * np.log(2 * np.pi)
    assert regression.log_evidence(np.eye(3), y, 1e-300) == pytest.approx(expected, rel=1e-12)


def test_kernel_ridge_without_regulariser_on_a_singular_kernel_warns_and_stays_bounded():
    # What the method guarantees, not what rounding decides: alpha itself is decided by eigenvalues at the rounding
    # level (two CPUs' answers differ by percents), so the test asserts the warning, the bound that the cut-off
    # gives and the least-squares property, each of which holds on any CPU.
    K, y = _rbf_problem(40)
    with pytest.warns(regression.NumericallySingularWarning, match=r"gamma = 0 leaves K \+ gamma l I numerically"):
        alpha = regression.kernel_ridge(K, y, 0.0)
    # every eigenvalue kept is above the cut-off l * eps * largest, so |alpha| <= |y| / cut-off (with 1% slack for
    # the eigenvalues' own rounding); the issue saw |alpha| ~ 7e15 without the cut-off
    cut_off = 40 * np.finfo(float).eps * np.linalg.eigvalsh(K)[-1]
    assert np.linalg.norm(alpha) <= 1.01 * np.linalg.norm(y) / cut_off
    assert np.max(np.abs(alpha)) < 1e13
    # a least-squares solution over the kept directions fits at least as well as alpha = 0
    assert np.linalg.norm(K @ alpha - y) <= np.linalg.norm(y) * (1 + 1e-8)


def test_kernel_ridge_with_a_regulariser_does_not_warn():
    K, y = _rbf_problem(40)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        alpha = regression.kernel_ridge(K, y, 1e-8)
    np.testing.assert_allclose((K + 1e-8 * 40 * np.eye(40)) @ alpha, y, atol=1e-6)


# ---- widgets --------------------------------------------------------------------------------------

def test_panels_refuse_starting_values_off_their_sliders():
    from kgslab.widgets import gp_panel, kernel_ridge_panel, kgs_panel, toy_noise_panel
    with pytest.raises(ValueError, match=r"^L = 10 is outside the range of its slider \[0.05, 3\]"):
        kernel_ridge_panel(L=10)   # used to draw L = 3 without a word
    with pytest.raises(ValueError, match=r"^gamma = 1e\+06 is outside the range of its slider \[1e-09, 100\]"):
        kernel_ridge_panel(gamma=1e6)
    with pytest.raises(ValueError, match=r"^sigma2 = 100 is outside"):
        gp_panel(sigma2=100.0)
    with pytest.raises(ValueError, match=r"^noise_rate = 0.9 is outside"):
        toy_noise_panel(noise_rate=0.9)
    with pytest.raises(ValueError, match=r"^q = 0.9 is outside"):
        kgs_panel(q=0.9)
    with pytest.raises(TypeError, match=r"^L must be a real number"):
        kernel_ridge_panel(L="0.5")


def test_kgs_panel_reports_the_samplers_own_error():
    """At q = 0 without a version space the panel shows the sampler's message, not a fixed label."""
    from kgslab.kgs import gibbs_sample
    from kgslab.widgets import kgs_panel
    X = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 1.0], [2.0, 0.0]])
    y = np.array([1.0, -1.0, 1.0, -1.0])   # the same point with both labels: no classifier is consistent
    panel = kgs_panel(X, y, q=0.1, n_samples=3, burn_in=2, thin=1, grid_size=10)
    panel.q.value = 0.0
    with pytest.raises(ValueError) as direct:
        gibbs_sample(kernels.rbf_kernel(X, L=1.0), y, 0.0, 3, burn_in=2, thin=1, random_state=0)
    assert panel.values["error"] == str(direct.value)


# ---- caps on work ---------------------------------------------------------------------------------

def test_loops_that_would_look_like_a_hang_are_refused_before_they_start():
    X, y = xor_data(40, noise=0.6, random_state=3)   # not separable by a line: the perceptron never stops
    K = kernels.linear_kernel(X)
    with pytest.raises(ValueError, match=r"max_epochs = 100000000 allows 4e\+09 example visits, above the kit's budget"):
        kernel_perceptron(K, y, max_epochs=10**8)
    with pytest.raises(ValueError, match=r"max_epochs = 100000000 allows"):
        KernelPerceptron(max_epochs=10**8).fit(K, y)
    with pytest.raises(ValueError, match=r"max_iter = 1000000000 allows 1e\+09 iterations"):
        kernel_adatron(K, y, max_iter=10**9)
    # Within the budget the same calls run (and stop at their limit).
    assert kernel_perceptron(K, y, max_epochs=50).n_epochs == 50


# ---- the samplers and the papers' experiments (issue 18, second part) --------------------------------

def _separable_kernel(m=12, seed=0):
    from kgslab.data import separable_data
    X, y, _ = separable_data(m, 2, margin=0.5, random_state=seed)
    return kernels.rbf_kernel(X, L=1.0), y


@pytest.mark.parametrize("ladder, message", [({"thin": 0}, r"\bthin must be >= 1, got 0"),
                                             ({"burn_in": -5}, r"\bburn_in must be >= 0, got -5")])
def test_log_evidence_refuses_run_lengths_that_leave_memory_uninitialised(ladder, message):
    """thin = 0 / burn_in = -5 used to return (-13.61, 1.80) computed from uninitialised memory."""
    from kgslab.evidence import label_noise_log_evidence
    K, y = _separable_kernel()
    with pytest.raises(ValueError, match=message):
        label_noise_log_evidence(K, y, 0.1, n_rungs=3, n_samples=5, **{"burn_in": 2, "thin": 1, **ladder})
    value, error = label_noise_log_evidence(K, y, 0.1, n_rungs=3, n_samples=5, burn_in=2, thin=1, random_state=0)
    assert np.isfinite(value) and np.isfinite(error)


def test_binary_entropy_refuses_nan_and_values_off_zero_one():
    from kgslab.evidence import binary_entropy
    with pytest.raises(ValueError, match=r"\bp_plus must contain only finite numbers"):
        binary_entropy([np.nan, 0.5])   # used to give [-0., 1.]
    with pytest.raises(ValueError, match=r"\bp_plus must hold probabilities in \[0, 1\], got 1.5"):
        binary_entropy([0.2, 1.5])      # used to be clipped to 1 without a word
    # Closed form: 1 bit at 1/2, 0 at 0 and 1, and H(1/4) = 2 - 3/4 log2 3.
    np.testing.assert_allclose(binary_entropy([0.0, 0.25, 0.5, 1.0]), [0.0, 2 - 0.75 * np.log2(3), 1.0, 0.0])


def test_training_errors_and_log_likelihood_refuse_labels_and_counts_they_cannot_use():
    from kgslab.evidence import log_likelihood, training_errors
    with pytest.raises(ValueError, match=r"\by must hold the labels -1 and \+1"):
        training_errors(np.array([[1.0, -1.0, 2.0]]), [1, 0, 1])   # 0 would count every output as an error
    assert training_errors(np.array([[1.0, -1.0, 2.0]]), [1, -1, -1]).tolist() == [1]
    with pytest.raises(ValueError, match=r"\berrors must be whole numbers of training errors in \[0, n_points = 5\]"):
        log_likelihood([6], 5, 0.1)
    with pytest.raises(ValueError, match=r"\berrors must contain only finite numbers"):
        log_likelihood([np.nan], 5, 0.1)


def test_compare_with_svm_maps_zero_one_labels_like_plus_minus_one():
    """0/1 labels used to report 41.7% error where +-1 labels give 0% (Figure 2's input)."""
    from kgslab.data import separable_data
    from kgslab.papers.bt1999 import compare_with_svm
    X, y, _ = separable_data(20, 2, margin=1.0, random_state=1)
    settings = dict(sigma=1.0, n_splits=1, n_bounces=200, random_state=0)
    pm1 = compare_with_svm(X, y, **settings)
    zero_one = compare_with_svm(X, (y > 0).astype(int), **settings)
    for key in pm1:
        np.testing.assert_array_equal(zero_one[key], pm1[key])
    assert pm1["svm_correct"].all()   # separable with a wide margin: the SVM makes no error
    with pytest.raises(ValueError, match=r"\by must hold the labels -1 and \+1 \(or 0 and 1\)"):
        compare_with_svm(X, np.where(y > 0, 2, 1), **settings)


def test_error_rejection_curve_refuses_plus_minus_one_as_correct():
    """+-1 "correct" values used to count every point as correct (bool(-1) is True)."""
    from kgslab.billiard import error_rejection_curve
    confidence = np.array([0.9, 0.8, 0.1, 0.5])
    with pytest.raises(ValueError, match=r"\bcorrect must hold True / False \(or 1 / 0\) per point, got the values \[-1.0, 1.0\]"):
        error_rejection_curve(confidence, [1, -1, 1, -1], [0.0, 0.6])
    rejection, error = error_rejection_curve(confidence, [True, False, True, False], [0.0, 0.6])
    np.testing.assert_array_equal(rejection, [0.0, 0.5])
    np.testing.assert_array_equal(error, [0.5, 0.5])   # by hand: 2 of 4 wrong; above 0.6: 0.9 right, 0.8 wrong


def test_billiard_work_caps_refuse_before_running():
    import time

    from kgslab.billiard import KernelBilliard, billiard_probabilities
    K, y = _separable_kernel()
    started = time.perf_counter()
    with pytest.raises(ValueError, match=r"\brefresh_rate must be <= 10000.0, got 1000000.0"):
        KernelBilliard(K, y, refresh_rate=1e6)   # used to run for more than 10 s on .run(20)
    with pytest.raises(ValueError, match=r"\bn_bounces must be at most 10000000 per trajectory \(got 230258510 from "
                                         r"epsilon = 0.0001\)"):
        billiard_probabilities(K, y, K[:2], epsilon=1e-4)   # used to plan 230 million bounces without a word
    assert time.perf_counter() - started < 5   # refused before any bouncing
    # Within the caps the same calls run.
    assert KernelBilliard(K, y, refresh_rate=1.0, random_state=0).run(20) is None


def test_spherical_polygon_area_of_lunes_and_repeated_walls():
    """The fuzz found volume_ratio_on_sphere refusing a version space (a repeated wall) and returning NaN."""
    from kgslab.papers.bt1999 import spherical_polygon_area, volume_ratio_on_sphere
    e1, e2, e3 = np.eye(3)
    assert spherical_polygon_area([e1, e3]) == pytest.approx(np.pi)               # a lune of angle pi/2
    assert spherical_polygon_area([e1, e3, e1 + e3]) == pytest.approx(np.pi)      # a redundant third wall
    assert spherical_polygon_area([e1, e1, e1 + e3]) == pytest.approx(1.5 * np.pi)  # a repeated wall
    assert spherical_polygon_area([e1, e2, e3]) == pytest.approx(np.pi / 2)       # an octant
    X = np.array([[0.25, 0, 0], [0.25, 0, 0.25], [-0.25, 0, 0]])
    y = np.array([1.0, 1.0, -1.0])
    p_plus = volume_ratio_on_sphere(X, y, [[0, 0, 0.25]])      # used to be "No version space" / NaN
    # Independent reference: uniform points of the sphere, the fraction of version space on the + side.
    w = np.random.default_rng(0).standard_normal((200_000, 3))
    inside = np.all(w @ (y[:, None] * X).T > 0, axis=1)
    assert p_plus[0] == pytest.approx(np.mean(w[inside, 2] > 0), abs=0.01)
    assert p_plus[0] == pytest.approx(2 / 3)


def test_rhat_of_chains_whose_halves_are_constant_is_one_not_nan():
    """The fuzz found R-hat NaN: an odd-length chain's split drops its middle draw, the only one that moved."""
    from kgslab.diagnostics import rhat
    chains = np.array([[0.0, 0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0, 0.0]])
    assert rhat(chains) == 1.0
    assert rhat(np.array([[0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0]])) == np.inf   # stuck apart: not mixed


def test_gibbs_step_when_its_generator_redraws_the_current_point():
    """The fuzz drew coords and rng from the same seed: the first direction was coords itself, and the
    projected tangent 0 / 0 made every arc NaN ("no arc ... has positive posterior mass")."""
    from kgslab.circle import gibbs_step
    coords = np.random.default_rng(0).standard_normal(3)
    coords /= np.linalg.norm(coords)
    step = gibbs_step(np.eye(3), np.array([-1.0, -1.0, 1.0]), coords, 0.125, 0)
    assert np.isfinite(step["theta"]) and abs(step["direction"] @ coords) < 1e-12
    assert np.linalg.norm(step["coords"]) == pytest.approx(1.0)


def test_the_billiard_gives_the_same_answer_for_a_kernel_in_any_memory_layout():
    """The deep fuzz found billiard_run answering differently for K as a DataFrame (Fortran-ordered values):
    LAPACK's rounding depends on the layout and the billiard is chaotic (4 seeds in 30 differed)."""
    import pandas as pd

    from kgslab.billiard import billiard_run
    K = np.array([[14.0, 0, 6, 0, 3, 0], [0, 10, 0, 0, 0, 0], [6, 0, 6, 0, 2, 0], [0, 0, 0, 1, 0, 0],
                  [3, 0, 2, 0, 2, 0], [0, 0, 0, 0, 0, 1]])
    y = np.array([-1.0, -1, 1, -1, -1, -1])
    K_test = np.array([[0.0, -3, -1, 0, 0, 0], [1.0, 0, 0, 0, 2, 0]])
    for seed in range(30):
        runs = [billiard_run(kernel, y, K_test, 8, n_chains=1, burn_in=0, random_state=seed)
                for kernel in (K, pd.DataFrame(K), np.asfortranarray(K))]
        for run in runs[1:]:
            np.testing.assert_array_equal(run.p_plus, runs[0].p_plus)


def test_probabilities_of_a_matrix_get_a_message_not_a_crash():
    """as_probabilities took the worst entry with a flat index into a 2-d array: a TypeError naming nothing."""
    from kgslab._validation import as_probabilities
    with pytest.raises(ValueError, match=r"p must hold probabilities in \[0, 1\], got 1.5"):
        as_probabilities(np.array([[0.5, 1.5], [0.0, 1.0]]), "p")


def test_figure4_refuses_chains_too_short_for_rhat():
    """samples_per_chain = 2 or 3 gave rhat NaN for every set (a half chain of one draw): refused now."""
    from kgslab.papers.kgs2000 import figure4
    with pytest.raises(ValueError, match="samples_per_chain must be >= 4"):
        figure4(2, [0.1], [1.0], n_train=20, n_test=10, samples_per_chain=3)
    with pytest.raises(ValueError, match="samples_per_chain = 1000000000 allows"):
        figure4(2, [0.1], [1.0], samples_per_chain=10**9)
    with pytest.raises(ValueError, match=r"q_levels must hold assumed flip rates in \[0, 0.5\)"):
        figure4(2, [0.5], [1.0])


def test_write_figure4_refuses_a_bad_run_before_writing(monkeypatch, tmp_path):
    import kgslab.data
    from kgslab.papers.kgs2000 import write_figure4
    monkeypatch.setattr(kgslab.data, "RESULTS_DIR", tmp_path)
    run = {"q_levels": [0.1], "lambdas": [1.0, 2.0], "bpm": [[0.1], [0.2]], "svm": [[0.1, 0.2], [0.3, 0.4]],
           "rhat": [[1.0], [1.01]]}
    for bad, match in (({**run, "bpm": [[1.5], [0.2]]}, r"run\['bpm'\] must hold probabilities"),
                       ({**run, "svm": [[0.1], [0.3]]}, r"run\['svm'\] must have the shape"),
                       ({"bpm": 1}, "run must be the dict figure4 returns")):
        with pytest.raises((ValueError, TypeError), match=match):
            write_figure4(bad)
    assert not list(tmp_path.iterdir())
    assert write_figure4(run).exists()


def test_study_results_names_a_missing_level():
    """study_results(study, "trans") with no level read list(levels).index(None): 'None is not in list'."""
    from kgslab.papers.bt1999 import load_figure2, study_results
    study, _, _ = load_figure2("heart")
    with pytest.raises(ValueError, match=r"level must be one of the study's levels \[1000, 10000, 'auto'\]"):
        study_results(study, "trans")
    with pytest.raises(ValueError, match="trajectory must be < the study's 2 trajectories"):
        study_results(study, "trans", 1000, trajectory=2)
    assert study_results(study, "trans", 10000)["trans_confidence"].shape == study["y_test"].shape


def test_step_on_circle_refuses_a_direction_that_is_not_a_tangent():
    from kgslab.circle import step_on_circle
    features, y, coords = np.eye(3), np.array([1.0, -1.0, 1.0]), np.array([1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="direction must be a unit vector orthogonal to coords"):
        step_on_circle(features, y, coords, np.array([1.0, 0.0, 0.0]), 0.1, 0)
    new = step_on_circle(features, y, coords, np.array([0.0, 1.0, 0.0]), 0.1, 0)
    assert np.linalg.norm(new) == pytest.approx(1.0)


def test_error_at_rejection_refuses_a_rate_that_rejects_every_point():
    """The deep fuzz: 2 points per split at rate 0.75 rejected both, and the error was NaN (mean of nothing)."""
    from kgslab.papers.bt1999 import error_at_rejection
    with pytest.raises(ValueError, match="rates must leave at least one of the 2 points"):
        error_at_rejection(np.array([[0.0, 1.0]]), np.array([[False, True]]), [0.75])
    np.testing.assert_array_equal(error_at_rejection(np.array([[0.0, 1.0]]), np.array([[False, True]]), [0.0, 0.5]),
                                  [[0.5, 0.0]])
    with pytest.raises(ValueError, match="correct must hold True / False"):
        error_at_rejection(np.array([[0.0, 1.0]]), np.array([[-1.0, 1.0]]), [0.0])


# ---- messages name the argument the caller passed ----------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda K, y: kgs.gibbs_run(K, y, 0.1),
    lambda K, y: kgs.gibbs_sample(K, y, 0.1, 5),
    lambda K, y: kgs.monitor_kernel(K, y),
    lambda K, y: billiard.billiard_run(K, y, K),
    lambda K, y: evidence.evidence_run(K, y, [0.1]),
], ids=["gibbs_run", "gibbs_sample", "monitor_kernel", "billiard_run", "evidence_run"])
def test_samplers_say_y_must_match_the_rows_of_K_the_argument_they_take(call):
    # The samplers take a kernel matrix K: a message about "rows of X" named an argument they do not have.
    with pytest.raises(ValueError, match=r"y must have one entry per row of K \(4\), got 3"):
        call(np.eye(4), [1, -1, 1])


def test_a_length_without_the_name_of_its_argument_is_refused():
    from kgslab._validation import as_vector
    with pytest.raises(TypeError, match="length_of must name the argument"):
        as_vector([1.0, 2.0], "y", length=2)


# ---- issue 42's silent accepts: each refused, naming the argument, what it expected and what came ------------

@pytest.mark.parametrize("bad", ["False", "no", 2, None, 0.0], ids=repr)
@pytest.mark.parametrize("which", ["force", "student_copy"])
def test_copy_one_takes_only_booleans_and_writes_nothing_otherwise(tmp_path, which, bad):
    from kgslab import notebooks
    source, target = tmp_path / "01_a.ipynb", tmp_path / "copy" / "01_a.ipynb"
    source.write_text("{}")
    target.parent.mkdir()
    target.write_text("my edited copy")
    flags = {"force": False, "student_copy": True, which: bad}
    with pytest.raises(TypeError, match=rf"^{which} must be True or False, got {re.escape(repr(bad))}"):
        notebooks.copy_one(source, target, **flags)
    assert target.read_text() == "my edited copy" and sorted(p.name for p in target.parent.iterdir()) == ["01_a.ipynb"]


@pytest.mark.parametrize("bad", ["False", "no", 2, None], ids=repr)
def test_why_keep_takes_only_a_boolean_student_copy(tmp_path, bad):
    from kgslab import notebooks
    with pytest.raises(TypeError, match=rf"^student_copy must be True or False, got {re.escape(repr(bad))}"):
        notebooks.why_keep(tmp_path / "01_a.ipynb", bad)
    # the answers for the two booleans (a solution is always kept; an unreadable student copy too)
    assert notebooks.why_keep(tmp_path / "01_a.ipynb", False).startswith("it differs from the kit's solution")
    assert "not a readable notebook" in notebooks.why_keep(tmp_path / "missing.ipynb", True)


@pytest.mark.parametrize("call, argument", [
    (lambda n, t: n.copy_one(3, t, student_copy=True, force=False), "source"),
    (lambda n, t: n.copy_one(t, None, student_copy=True, force=False), "target"),
    (lambda n, t: n.why_keep(b"01_a.ipynb", True), "target"),
])
def test_copy_one_and_why_keep_take_paths(tmp_path, call, argument):
    from kgslab import notebooks
    with pytest.raises(TypeError, match=rf"^{argument} must be a path"):
        call(notebooks, tmp_path / "01_a.ipynb")


@pytest.mark.parametrize("bad", ["python", "raw", "Code", None, 3, ["code"]], ids=repr)
def test_strip_solutions_takes_code_or_markdown_cells_only(bad):
    from kgslab import release
    with pytest.raises(ValueError, match=rf"^cell_type must be one of \('code', 'markdown'\), got {re.escape(repr(bad))}"):
        release.strip_solutions("x = 1", bad)


def test_strip_solutions_refuses_a_source_or_where_that_is_not_text():
    from kgslab import release
    with pytest.raises(TypeError, match=r"^source must be a cell's source text \(a str\), got list"):
        release.strip_solutions(["x = 1"], "code")
    with pytest.raises(TypeError, match=r"^where must be a str"):
        release.strip_solutions("x = 1", "code", 3)
    assert release.strip_solutions("x = 1", "markdown") == "x = 1"


def _two_language_corpus():
    rng = np.random.default_rng(0)
    factor = rng.normal(size=(12, 3))
    language = np.repeat(["english", "french"], 6)
    article = np.tile(np.arange(1.0, 7.0), 2)
    return factor @ factor.T + np.eye(12), language, article


@pytest.mark.parametrize("which, bad, error, message", [
    ("first", ["english"], TypeError, r"first must be one language name \(a str\), got \['english'\]"),
    ("second", np.array(["french"]), TypeError, r"second must be one language name \(a str\), got array"),
    ("first", None, TypeError, r"first must be one language name \(a str\), got None"),
    ("second", "klingon", ValueError, r"second must be a language of `language` \['english', 'french'\], "
                                      r"got 'klingon'"),
    ("second", "english", ValueError, r"second must be another language than first, got 'english' twice"),
])
def test_pair_accuracy_takes_one_language_name_per_side(which, bad, error, message):
    from kgslab.adatron import adatron_with_bias
    from kgslab.papers import coursework
    K, language, article = _two_language_corpus()
    names = {"first": "english", "second": "french", which: bad}
    with pytest.raises(error, match=message):
        coursework.pair_accuracy(K, language, article, names["first"], names["second"], adatron_with_bias, n_folds=2)
    accuracy = coursework.pair_accuracy(K, language, article, "english", "french", adatron_with_bias, n_folds=2)
    assert accuracy.shape == (2,) and np.all((accuracy >= 0) & (accuracy <= 1))


def test_monitor_kernel_refuses_a_kernel_that_is_not_psd():
    # symmetric, indefinite (eigenvalues 3 and -1): its "distances" k_ii + k_jj - 2 k_ij are negative
    K = np.array([[1.0, 2.0, 0.0, 0.0], [2.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 2.0], [0.0, 0.0, 2.0, 1.0]])
    with pytest.raises(ValueError, match=r"^K must be positive semi-definite, but its smallest eigenvalue is -1"):
        kgs.monitor_kernel(K, [1, -1, 1, -1])
    psd = K + 1.5 * np.eye(4)
    rows = kgs.monitor_kernel(psd, [1, -1, 1, -1])
    # each point's nearest other-class point in feature space (distance k_ii + k_jj - 2 k_ij): 0 <-> 1, 2 <-> 3
    np.testing.assert_allclose(rows[4:], [(psd[0] + psd[1]) / 2, (psd[2] + psd[3]) / 2])


@pytest.mark.parametrize("bad", [True, False, np.bool_(True), [True, 3], np.array([True, False])], ids=repr)
def test_hoeffding_epsilon_refuses_booleans_for_the_number_of_bounces(bad):
    from kgslab.stopping import hoeffding_epsilon
    with pytest.raises(TypeError, match=r"^n_bounces must be a number of bounces \(or an array of them\), got"):
        hoeffding_epsilon(bad)
    # eq. (8) solved for epsilon: sqrt(log(1 / eta) / (2 n))
    np.testing.assert_allclose(hoeffding_epsilon([1, 100], eta=0.05), np.sqrt(np.log(20.0) / (2 * np.array([1, 100]))))


@pytest.mark.parametrize("function", ["kernel_span", "kernel_coordinates"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_span_refuses_a_kernel_narrower_than_float64(function, dtype):
    from kgslab import versionspace
    rng = np.random.default_rng(1)
    factor = rng.normal(size=(6, 2))
    K = factor @ factor.T
    with pytest.raises(TypeError, match=rf"^K must hold float64 \(or integer\) numbers, got dtype "
                                        rf"{np.dtype(dtype).name}: .* pass K.astype\(float\)"):
        getattr(versionspace, function)(K.astype(dtype))
    # why: the rounding moves entries by far more than the rank rule's 1e-10 of the largest eigenvalue
    rounding = np.max(np.abs(K.astype(dtype).astype(float) - K)) / np.max(np.linalg.eigvalsh(K))
    assert rounding > 100 * versionspace.RANK_RTOL
    # the same numbers as integers, a list or float64 give one answer
    integer_factor = np.round(factor * 4)
    exact = integer_factor @ integer_factor.T
    spans = [versionspace.kernel_span(value) for value in (exact, exact.astype(int), exact.tolist())]
    for span in spans[1:]:
        np.testing.assert_array_equal(span.features, spans[0].features)


# ---- errors that named another argument or spoke numpy's language ------------------------------------

@pytest.mark.parametrize("estimator", [KernelAdatron(), KernelPerceptron(), LabelNoiseKFD(),
                                       KernelAdatron(kernel="precomputed")])
@pytest.mark.parametrize("X", [None, 1.0, "1.0", np.float64(2.0)])
def test_an_estimator_refuses_a_number_or_none_for_X_naming_X(estimator, X):
    """scikit-learn read None as the "scalar array nan"; the message now says X must be a matrix."""
    with pytest.raises(TypeError, match=r"^X( \(the precomputed kernel matrix\))? must be an array of shape "
                                        r"\(n_samples, n_(features|samples)\), got "):
        estimator.fit(X, [1, -1, 1, -1])


@pytest.mark.parametrize("estimator", [KernelAdatron(), KernelPerceptron(), LabelNoiseKFD()])
def test_an_estimator_says_y_is_one_label_short_of_X(estimator):
    X, y = xor_data(8, random_state=0)
    with pytest.raises(ValueError, match=r"^y must have one label per row of X( \(the precomputed kernel matrix\))? "
                                         r"\(8\), got 7 labels$"):
        estimator.fit(X, y[:7])


def test_hmc_run_names_n_iterations_when_it_is_a_wrong_text_with_one_chain():
    """With n_chains=1 a text n_iterations was reported as n_chains being too small for 'auto'."""
    K, y = np.eye(4), np.array([1.0, -1.0, 1.0, -1.0])
    with pytest.raises(ValueError, match=r"^n_iterations must be a positive integer or 'auto', got 'many'"):
        hmc.hmc_run(K, y, K[:2], "many", n_chains=1)
    with pytest.raises(ValueError, match=r"^n_chains must be >= 2 for n_iterations='auto'"):
        hmc.hmc_run(K, y, K[:2], "auto", n_chains=1)


@pytest.mark.parametrize("X", [np.empty((0, 2)), []])
def test_an_estimator_refuses_an_X_without_rows_naming_X(X):
    with pytest.raises(ValueError, match=r"^X must have at least one row \(one point\), got 0 rows$"):
        KernelAdatron(kernel="linear").fit(X, [])

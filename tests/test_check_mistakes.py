"""The mistakes issue 27 found passing, each a variant of the solution's own function: every one gets ✘, on a
value (not on an error of the harness), and the allowed variants get ✔.

Each wrong function is the solution's function with the mistake typed in (`solution_code.variant`); the same
harness runs the solution itself first, so a ✘ here is the mistake's and not the harness's.
"""

import numpy as np
import pytest

from kgslab import check
from solution_code import definition, function, variant

SPARSE = ("counts = scipy.sparse.csr_matrix((np.ones(len(rows)), (rows, columns)), "
          "shape=(len(docs), len(vocabulary)))")

# (notebook, exercise, text in the solution, the mistake typed in its place, what it is)
WRONG = [
    ("02_kernel_ridge", "nb02_exercise_3a_tune_width",
     "    row, column = np.unravel_index(np.argmin(cv_map), cv_map.shape)\n",
     "    i = int(np.argmin(cv_map))\n    row, column = i // len(widths), i % len(gammas)\n",
     "the flat index divided by the wrong grid's length"),
    ("09_kernel_billiard", "nb09_exercise_2", "    if last_wall >= 0:\n        times[last_wall] = np.inf\n",
     "    times[last_wall] = np.inf\n", "no guard: the default last_wall = -1 deletes the last wall"),
    ("09_kernel_billiard", "nb09_exercise_2", "if last_wall >= 0:", "if last_wall > 0:",
     "wall 0 never skipped"),
    ("09_kernel_billiard", "nb09_exercise_1", "np.arctan2(np.maximum(margins, 0.0), -slopes)",
     "np.arctan2(margins, -slopes)", "a margin of -1e-17 not clipped"),
    ("09_kernel_billiard", "nb09_exercise_1", "np.arctan2(np.maximum(margins, 0.0), -slopes)",
     "np.mod(np.arctan2(margins, -slopes), 2 * np.pi)", "not clipped, wrapped into [0, 2 pi)"),
    ("03_gp_evidence", "nb03_exercise_4b", "var = k_test_diag - np.sum(V**2, axis=0)",
     "var = 1.0 - np.sum(V**2, axis=0)", "k(x, x) taken as 1"),
    ("06_bag_of_words", "nb06_exercise_7_timing",
     "seconds[k, s] = min(seconds[k, s], timer() - tic)",
     "seconds[k, s] = timer() - tic", "the last run kept, not the best"),
    ("06_bag_of_words", "nb06_exercise_7_timing", "kernel(docs[:n])", "kernel(docs[:n + 1])",
     "one document too many"),
    ("06_bag_of_words", "nb06_exercise_7_sparse", SPARSE,
     "counts = np.zeros((len(docs), len(vocabulary)))\n    np.add.at(counts, (rows, columns), 1.0)",
     "a dense count matrix"),
    ("06_bag_of_words", "nb06_exercise_7_classify", "np.mean(np.sign(decisions) == labels[test])",
     "np.mean(np.where(decisions >= 0, 1.0, -1.0) == labels[test])", "a decision value of 0 counted as +1"),
    ("10_noisy_kfd", "nb10_exercise_4", "for _ in range(max_iter):", "for _ in range(max_iter - 1):",
     "one iteration too few"),
    ("10_noisy_kfd", "nb10_exercise_4", "for _ in range(max_iter):", "for _ in range(max_iter + 1):",
     "one iteration too many"),
    ("07_kernel_perceptron", "nb07_exercise_5d", "radius_squared / gamma**2", "radius_squared / gamma",
     "the bound without its square"),
    ("07_kernel_perceptron", "nb07_exercise_5d", "np.min(y * (K_tilde @ alpha))", "np.max(y * (K_tilde @ alpha))",
     "the largest margin for the smallest"),
    ("08_kernel_gibbs_sampler", "nb08_exercise_5", "np.sqrt(eigenvalues[kept])", "eigenvalues[kept]",
     "the eigenvalues for their square roots"),
    ("08_kernel_gibbs_sampler", "nb08_exercise_5", "eigenvalues > 1e-10 * eigenvalues.max()", "eigenvalues != 0",
     "negative eigenvalues of rounding kept"),
    ("08_kernel_gibbs_sampler", "nb08_exercise_5", "eigenvalues > 1e-10 * eigenvalues.max()", "eigenvalues > 0",
     "positive eigenvalues of rounding kept"),
    ("08_kernel_gibbs_sampler", "nb08_exercise_5", "return basis * roots, basis / roots",
     "return (basis * roots).T, (basis / roots).T", "transposed"),
    ("08_kernel_gibbs_sampler", "nb08_exercise_5", "return basis * roots, basis / roots",
     "return basis * roots, basis / roots**2", "to_alpha divided by the eigenvalues"),
]


def _fixed(source_old, source_new, stem, key):
    if source_new.startswith("counts = np.zeros"):
        source = definition(stem, "bow_kernel_sparse").replace(source_old, source_new)
        return function(stem, key, source.replace("(counts @ counts.T).toarray()", "counts @ counts.T"))
    return variant(stem, key, source_old, source_new)


@pytest.mark.parametrize("stem, key, old, new, what", WRONG, ids=[f"{w[1]}: {w[4]}" for w in WRONG])
def test_the_issues_wrong_functions_get_a_cross(stem, key, old, new, what):
    exercise = check.exercises()[key]
    assert exercise.judge(function(stem, key)).passed          # the harness runs the solution to a ✔
    verdict = exercise.judge(_fixed(old, new, stem, key))
    assert not verdict.passed, verdict.text
    assert verdict.cases_failed and {m["mistake"] for m in verdict.mistakes}.isdisjoint({"closed", "time-limit"}), \
        verdict.text


def test_07d_the_alpha_of_c_alone_could_not_tell_the_missing_square():
    """Why 5(d) takes an alpha: y * (K~ alpha) = y * y = 1 for the alpha of (c), so margin**2 == margin there and
    only a w of another margin (the check's last two cases) shows a bound without its square."""
    rng = np.random.default_rng(0)
    for _ in range(20):
        m = int(rng.integers(2, 12))
        X = rng.standard_normal((m, 3))
        y = np.where(rng.random(m) < 0.5, -1.0, 1.0)
        K, a = X @ X.T, float(rng.uniform(0.01, 2.0))
        alpha = np.linalg.solve(K + a * np.eye(m), y)
        assert np.isclose(np.min(y * ((K + a * np.eye(m)) @ alpha)), 1.0)
    margins = [case.args[1] * ((case.args[0] + case.args[2] * np.eye(len(case.args[1]))) @ case.args[3])
               for case in check.exercises()["nb07_exercise_5d"].cases() if len(case.args) == 4]
    assert len(margins) == 2 and all(np.min(margin) > 0 and not np.isclose(np.min(margin), 1.0) for margin in margins)


def test_a_top_noise_level_of_3_is_as_large_as_the_signal():
    noise = variant("01_duality", "nb01_exercise_1_noise", "np.array([0.1, 1.0, 3.0, 10.0])",
                    "np.array([0.5, 1.0, 3.0])")
    assert check.nb01_exercise_1_noise.judge(noise).passed
    low_only = variant("01_duality", "nb01_exercise_1_noise", "np.array([0.1, 1.0, 3.0, 10.0])",
                       "np.array([0.1, 0.5, 1.0])")
    assert "as large as the signal" in check.nb01_exercise_1_noise.judge(low_only).text


def test_the_step_of_08_uses_the_generator_it_is_given():
    stem, key = "08_kernel_gibbs_sampler", "nb08_exercise_3"
    assert check.nb08_exercise_3.judge(function(stem, key)).passed          # the solution draws from rng
    own = variant(stem, key, "q, rng)", "q, np.random.default_rng(0))")     # a generator of its own
    assert not check.nb08_exercise_3.judge(own).passed



# Exercise 9.3 (the bounce, issue 44): each wrong reflection typed into the solution gets a ✘ naming its mistake, and
# honest rewrites (another order of normalising, the normal's squared norm computed otherwise) get a ✔.
_REFLECT = "new_beta[wall] -= 2.0 * (K[wall] @ new_beta) / K[wall, wall]"
_RENORMALISE = "    new_alpha /= np.sqrt(new_alpha @ K @ new_alpha)\n    new_beta /= np.sqrt(new_beta @ K @ new_beta)\n"
BOUNCE_WRONG = [
    (_REFLECT, "new_beta[wall] = -new_beta[wall]", "reflection-without-kernel"),
    (_REFLECT, "new_beta[wall] += 2.0 * (K[wall] @ new_beta) / K[wall, wall]", "wrong-sign"),
    (_REFLECT, "new_beta[wall] -= 2.0 * (K[wall] @ new_beta)", "normal-norm-missing"),
    (_REFLECT, "new_beta[wall] -= (K[wall] @ new_beta) / K[wall, wall]", "component-removed"),
    (_REFLECT, "new_beta -= 2.0 * (K[wall] @ new_beta) / (K[wall] @ K[wall]) * K[wall]",
     "reflection-in-coefficient-space"),
    (_REFLECT, _REFLECT + "\n    new_beta = -new_beta", "reversed"),
    (_RENORMALISE, "", "not-renormalised"),
    ("    new_beta = -np.sin(arc) * alpha + np.cos(arc) * beta\n", "    new_beta = beta.copy()\n",
     "direction-not-turned"),
]
BOUNCE_HONEST = [
    (_REFLECT, "new_beta[wall] -= 2.0 * (new_beta @ K[:, wall]) / np.sqrt(K[wall, wall]) ** 2",
     "the inner product from K's column, the squared norm as a square of the norm"),
]


@pytest.mark.parametrize("old, new, mistake", BOUNCE_WRONG, ids=[w[2] for w in BOUNCE_WRONG])
def test_09_wrong_bounces_get_a_cross_naming_the_mistake(old, new, mistake):
    stem, key = "09_kernel_billiard", "nb09_exercise_3"
    assert check.nb09_exercise_3.judge(function(stem, key)).passed
    verdict = check.nb09_exercise_3.judge(variant(stem, key, old, new))
    assert not verdict.passed and {m["mistake"] for m in verdict.mistakes} == {mistake}, verdict.text


def test_09_honest_bounces_get_a_tick():
    stem, key = "09_kernel_billiard", "nb09_exercise_3"
    other_norm = variant(stem, key, _REFLECT, BOUNCE_HONEST[0][1])
    assert check.nb09_exercise_3.judge(other_norm).passed
    source = definition(stem, "billiard_bounce").replace(_RENORMALISE, "").replace(
        "    new_alpha = np.cos(arc)", "    alpha = alpha / np.sqrt(alpha @ K @ alpha)\n"
        "    beta = beta / np.sqrt(beta @ K @ beta)\n    new_alpha = np.cos(arc)")
    inputs_first = function(stem, key, source)            # unit inputs stay unit: rotation and reflection keep lengths
    assert check.nb09_exercise_3.judge(inputs_first).passed

# ---- messages that named the wrong thing -----------------------------------------------------------------------

def test_a_single_number_is_never_off_by_a_constant_factor():
    ignores_folds = variant("02_kernel_ridge", "nb02_exercise_3a_cv",
                            "KFold(n_folds, shuffle=True, random_state=random_state)",
                            "KFold(5, shuffle=True, random_state=0)")
    verdict = check.nb02_exercise_3a_cv.judge(ignores_folds)
    assert not verdict.passed and "constant factor" not in verdict.text


def test_booleans_are_called_a_wrong_type():
    source = definition("08_kernel_gibbs_sampler", "vote_draws")
    votes = function("08_kernel_gibbs_sampler", "nb08_exercise_4",
                     source.replace(".astype(float)", "") if ".astype(float)" in source else source)
    verdict = check.nb08_exercise_4.judge(votes)
    if ".astype(float)" in source:
        assert not verdict.passed and "booleans" in verdict.text and "other way round" not in verdict.text


def test_a_pair_the_other_way_round_is_called_so():
    norms = variant("04_normalise_centre", "nb04_exercise_5b_norms", "return norms, mean_norm",
                    "return mean_norm, norms")
    verdict = check.nb04_exercise_5b_norms.judge(norms)
    assert "other way round" in verdict.text and "convert it" not in verdict.text, verdict.text
    curve = variant("09_kernel_billiard", "nb09_exercise_4", "return rejected.mean(axis=1), error",
                    "return error, rejected.mean(axis=1)")
    verdict = check.nb09_exercise_4.judge(curve)
    assert "other way round" in verdict.text and "strictly below theta" not in verdict.text
    as_lists = variant("09_kernel_billiard", "nb09_exercise_4", "return rejected.mean(axis=1), error",
                       "return rejected.mean(axis=1).tolist(), error.tolist()")
    verdict = check.nb09_exercise_4.judge(as_lists)
    assert "numpy array" in verdict.text and "strictly below theta" not in verdict.text


def test_a_warning_is_called_a_warning():
    source = definition("03_gp_evidence", "log_evidence")

    def warns(K, y, sigma2):
        import warnings
        warnings.warn("divide by zero encountered in log", RuntimeWarning)
        return function("03_gp_evidence", "nb03_exercise_4a", source)(K, y, sigma2)

    verdict = check.nb03_exercise_4a.judge(warns)
    assert "raised a warning: RuntimeWarning: divide by zero" in verdict.text and "printed" not in verdict.text


def test_every_failing_case_is_reported_with_its_declared_mistake():
    without_l = variant("01_duality", "nb01_exercise_1_primal", "gamma * l * np.eye(d)", "gamma * np.eye(d)") \
        if "gamma * l * np.eye(d)" in definition("01_duality", "ridge_primal") else None
    if without_l is None:
        pytest.skip("the solution's ridge_primal is written another way")
    verdict = check.nb01_exercise_1_primal.judge(without_l)
    assert verdict.cases_failed == [case.label for case in check.nb01_exercise_1_primal.cases()]
    assert {entry["mistake"] for entry in verdict.mistakes} == {"gamma-without-l"}
    assert verdict.text.count("What it looks like") == 3
    assert verdict.metadata(0, 2) == {"exercise": "nb01_exercise_1_primal", "passed": False, "points": 0.0,
                                      "max_points": 2.0, "cases_failed": verdict.cases_failed,
                                      "mistakes": verdict.mistakes}


@pytest.mark.parametrize("stem, key, old, new, mistake", [
    ("05_adatron", "nb05_exercise_6_with_bias", "b += y @ alpha / 4", "b += y @ alpha", "no-quarter"),
    ("05_adatron", "nb05_exercise_6_no_bias", "alpha + eta * gradient", "alpha + gradient", "eta-ignored"),
    ("06_bag_of_words", "nb06_exercise_7_naive", "counts = [Counter(words(document)) for document in docs]",
     "counts = [Counter(set(words(document))) for document in docs]", "counts-once"),
    ("06_bag_of_words", "nb06_exercise_7_naive", "counts = [Counter(words(document)) for document in docs]",
     "counts = [Counter(document.lower().split()) for document in docs]", "split-on-spaces"),
    ("06_bag_of_words", "nb06_exercise_7_naive", "for j in range(i, n):", "for j in range(i + 1, n):",
     "diagonal-missing"),
])
def test_a_declared_mistake_is_named_by_its_words_on_every_case_it_explains(stem, key, old, new, mistake):
    verdict = check.exercises()[key].judge(variant(stem, key, old, new))
    assert not verdict.passed and verdict.mistakes
    named = [entry for entry in verdict.mistakes if entry["mistake"] == mistake]
    assert named and all(entry["words"] in verdict.text for entry in named), verdict.text
    assert "Does a word that occurs several times" not in verdict.text


def test_a_cases_generator_crosses_to_the_graders_child_as_its_state_only():
    from kgslab.check import plain

    generator = np.random.default_rng(5)
    generator.random()
    text = plain.dumps([generator], kit_objects=True)
    (rebuilt,) = plain.loads(text, kit_objects=True)
    assert rebuilt is not generator and rebuilt.random() == generator.random()
    with pytest.raises(ValueError, match="generator"):
        plain.loads(text)                               # never from the child back to the grader
    with pytest.raises(plain.Unsendable):
        plain.dumps(generator)                          # nor as a student's result

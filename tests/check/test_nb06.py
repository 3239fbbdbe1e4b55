"""Notebook 06's checks: the bag-of-words kernel and Exercise 7's experiments.

Kernels written literally (a dictionary per document, a sparse count matrix) pass and the usual slips are caught.
For the experiments: the solutions pass, and attempts to fool them fail.

The solutions are read from solutions/06_bag_of_words.ipynb (tests/solution_code.py), and the slips are changes
of their text, so a change of the notebook is tested as it stands.

Each experiment check (timings, the comparison with K_bow, the classification of pairs of languages) is tried
blank, wrong in the usual ways, re-run after a fall-back, with a changed input and with an endless loop; the
references in `kgslab.papers.coursework` are compared with independent computations (scikit-learn's cross-validation
with the kit's KernelAdatron, brute-force loops over pairs).
"""

import time
import warnings
from collections import Counter

import numpy as np
import pytest
import scipy.sparse
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GroupKFold, cross_val_score

from checking import blank, blank_falls_back, solutions_pass, worked_reasoning_opens_only_after_a_pass
from kgslab import check, data, text
from kgslab.papers import coursework
from kgslab.adatron import KernelAdatron
from kgslab.adatron import adatron_with_bias
from kgslab.kernels import normalise
from solution_code import function, variant


# ---- the kernel, written literally -------------------------------------------------------------------

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


def test_the_sparse_kernels_worked_reasoning_opens_only_after_the_students_own_pass(capsys, monkeypatch):
    """check.why shows why K = CC' (and why the sparse product is cheap) once the student's own sparse kernel
    passed: not for a blank, not for a wrong one, not while grading."""
    def presence(docs):                   # a wrong one: C holds 0/1 for a word's presence, not its count
        sets = [set(text.words(doc)) for doc in docs]
        return np.array([[len(mine & other) for other in sets] for mine in sets], dtype=float)

    worked_reasoning_opens_only_after_a_pass("nb06_exercise_7_sparse", sparse_bow, (blank, presence), capsys,
                                             monkeypatch, words="adds up repeated pairs")


# ---- the notebook's solutions, read from solutions/06_bag_of_words.ipynb ----------------------------------

STEM = "06_bag_of_words"
kernel_timings = function(STEM, "nb06_exercise_7_timing")
pair_group_means = function(STEM, "nb06_exercise_7_compare")
pair_accuracy = function(STEM, "nb06_exercise_7_classify")


def test_literal_solutions_pass(capsys):
    solutions_pass(capsys, nb06_exercise_7_naive=naive_bow, nb06_exercise_7_sparse=sparse_bow,
                   nb06_exercise_7_timing=kernel_timings, nb06_exercise_7_compare=pair_group_means,
                   nb06_exercise_7_classify=pair_accuracy)


@pytest.mark.parametrize("exercise", ["nb06_exercise_7_naive", "nb06_exercise_7_sparse"])
def test_a_blank_kernel_falls_back_to_a_working_reference(exercise, capsys):
    assert np.array_equal(blank_falls_back(exercise, capsys)(["a b a", "b"]), [[5.0, 1.0], [1.0, 1.0]])


@pytest.mark.parametrize("exercise", ["nb06_exercise_7_timing", "nb06_exercise_7_compare", "nb06_exercise_7_classify"])
def test_blank_falls_back_and_a_rerun_says_still_open(exercise, capsys):
    returned = blank_falls_back(exercise, capsys)
    again = getattr(check, exercise)(returned)
    assert "still open" in capsys.readouterr().out and again is not blank
    with pytest.raises(AssertionError):
        import os
        os.environ["NBGRADER_EXECUTION"] = "autograde"
        try:
            getattr(check, exercise).grade()
        finally:
            del os.environ["NBGRADER_EXECUTION"]


# ---- timings ------------------------------------------------------------------------------------
# The check hands kernel_timings its own timer (timer=, as timeit takes one); the stand-in kernels take their
# designed time on it.  Each slip reads its clock through `timer` too, so what it gets wrong is what it times.

def total_of_repeats(kernels, docs, sizes, repeat=3, timer=time.perf_counter):
    seconds = np.zeros((len(kernels), len(sizes)))
    for k, kernel in enumerate(kernels):
        for s, n in enumerate(sizes):
            for _ in range(repeat):
                tic = timer()
                kernel(docs[:n])
                seconds[k, s] += timer() - tic
    return seconds


def mean_of_repeats(kernels, docs, sizes, repeat=3, timer=time.perf_counter):
    return total_of_repeats(kernels, docs, sizes, repeat, timer) / repeat


def first_run_only(kernels, docs, sizes, repeat=3, timer=time.perf_counter):
    return kernel_timings(kernels, docs, sizes, repeat=1, timer=timer)


def all_documents(kernels, docs, sizes, repeat=3, timer=time.perf_counter):
    return kernel_timings([lambda _, kernel=kernel: kernel(docs) for kernel in kernels], docs, sizes, repeat, timer)


def swapped_axes(kernels, docs, sizes, repeat=3, timer=time.perf_counter):
    return kernel_timings(kernels, docs, sizes, repeat, timer).T


def clock_around_the_loop(kernels, docs, sizes, repeat=3, timer=time.perf_counter):
    seconds = np.zeros((len(kernels), len(sizes)))
    for k, kernel in enumerate(kernels):
        for s, n in enumerate(sizes):
            tic = timer()
            for _ in range(repeat):
                kernel(docs[:n])
            seconds[k, s] = timer() - tic
    return seconds


def made_up(kernels, docs, sizes, repeat=3, timer=time.perf_counter):
    return np.outer(np.arange(1, len(kernels) + 1), np.asarray(sizes, dtype=float)) * 1e-3


def as_a_list(kernels, docs, sizes, repeat=3, timer=time.perf_counter):
    return kernel_timings(kernels, docs, sizes, repeat, timer).tolist()


def reverses_docs(kernels, docs, sizes, repeat=3, timer=time.perf_counter):
    docs.reverse()
    docs.reverse()
    docs.append("one more")
    return kernel_timings(kernels, docs, sizes, repeat, timer)


def ignores_the_timer(kernels, docs, sizes, repeat=3, timer=time.perf_counter):
    return kernel_timings(kernels, docs, sizes, repeat)         # the wall clock: the stand-ins take no time there


@pytest.mark.parametrize("slip", [total_of_repeats, mean_of_repeats, first_run_only, all_documents, swapped_axes,
                                  clock_around_the_loop, made_up, as_a_list, reverses_docs, ignores_the_timer],
                         ids=lambda f: f.__name__)
def test_timing_slips_are_caught(slip, capsys):
    assert check.nb06_exercise_7_timing(slip) is not slip
    out = capsys.readouterr().out
    assert "✘" in out and ("Hint" in out or "changed its input `docs`" in out)


def test_timing_hint_tiers(capsys):
    check.nb06_exercise_7_timing(mean_of_repeats)
    out = capsys.readouterr().out
    assert "best" in out and 'check.hint("nb06_exercise_7_timing")' in out
    assert "timer() - tic" not in out                   # the code-level hint only on request
    check.hint("nb06_exercise_7_timing")
    assert "timer() - tic" in capsys.readouterr().out


def test_timing_endless_loop_ends_in_a_verdict(capsys):
    def endless(kernels, docs, sizes, repeat=3, timer=time.perf_counter):
        while True:
            time.sleep(0.01)

    started = time.perf_counter()
    assert check.nb06_exercise_7_timing(endless) is not endless
    assert time.perf_counter() - started < 15
    assert "time limit" in capsys.readouterr().out


def _no_sleep(seconds):
    raise AssertionError(f"time.sleep({seconds}) called: the stand-ins should take their time on the check's timer")


def test_timing_reference_measures_the_calls_on_the_checks_timer(monkeypatch):
    """The reference against stand-ins of known duration, timed with the case's timer: exactly their designed
    best, and no real sleep."""
    from kgslab.check.nb06_bag_of_words import _designed_best

    monkeypatch.setattr(time, "sleep", _no_sleep)
    for case in check.nb06_exercise_7_timing.cases() + check.nb06_exercise_7_timing.hidden(np.random.default_rng(6)):
        seconds = coursework.kernel_timings(*case.args, **case.kwargs)
        np.testing.assert_allclose(seconds, _designed_best(case), rtol=0, atol=1e-9)


def test_the_timing_check_sleeps_nowhere(monkeypatch, capsys):
    # a correct answer and the slips get their verdicts with time.sleep forbidden (in the forked child too):
    # the verdict cannot depend on how late a sleep wakes up, and a check run takes no time
    monkeypatch.setattr(time, "sleep", _no_sleep)
    solution = function("06_bag_of_words", "nb06_exercise_7_timing")
    assert check.nb06_exercise_7_timing(solution) is solution
    for slip in (mean_of_repeats, first_run_only, clock_around_the_loop):
        assert check.nb06_exercise_7_timing(slip) is not slip
    assert "AssertionError" not in capsys.readouterr().out


def _jumping(real):
    """A wall clock on a machine under heavy load: every reading is 10 s later than the last."""
    jumps = iter(range(10 ** 9))

    def clock(*args):
        return real(*args) + 10.0 * next(jumps)
    return clock


def test_the_timing_verdict_reads_no_wall_clock(monkeypatch):
    # time.perf_counter and time.time jump by seconds between any two readings (in the forked child too; the
    # child's time limit runs on time.monotonic): the solution still passes and the slips still fail with the same
    # mistakes, so load cannot flip the verdict either way
    solution = function("06_bag_of_words", "nb06_exercise_7_timing")
    for name in ("perf_counter", "time"):
        monkeypatch.setattr(time, name, _jumping(getattr(time, name)))
    verdict = check.nb06_exercise_7_timing.judge(solution)
    assert verdict.passed, verdict.text
    for slip in (mean_of_repeats, first_run_only):
        verdict = check.nb06_exercise_7_timing.judge(slip)
        assert not verdict.passed and {m["mistake"] for m in verdict.mistakes} == {"not-the-best"}, verdict.text


# Honest ways of timing through the timer a student may write: each passes.
_TIMED = """
def kernel_timings(kernels, docs, sizes, repeat=3, timer={default}):
    seconds = np.full((len(kernels), len(sizes)), np.inf)
    for k, kernel in enumerate(kernels):
        for s, n in enumerate(sizes):
            for _ in range(repeat):
                tic = timer()
                kernel(docs[:n])
                seconds[k, s] = min(seconds[k, s], timer() - tic)
    return seconds
"""
HONEST = {
    "timer=time.perf_counter": _TIMED.format(default="time.perf_counter"),
    "timer=time.time": _TIMED.format(default="time.time"),
    "timer=perf_counter (imported by name)": _TIMED.format(default="perf_counter"),
    "timer=timeit.default_timer": _TIMED.format(default="timeit.default_timer"),
    "timeit.repeat": "def kernel_timings(kernels, docs, sizes, repeat=3, timer=time.perf_counter):\n"
                     "    return np.array([[min(timeit.repeat(lambda: kernel(docs[:n]), repeat=repeat, number=1,\n"
                     "                                        timer=timer))\n"
                     "                      for n in sizes] for kernel in kernels])",
    "timeit.Timer": "def kernel_timings(kernels, docs, sizes, repeat=3, timer=time.perf_counter):\n"
                    "    return np.array([[min(timeit.Timer(lambda: kernel(docs[:n]), timer=timer).repeat(repeat, 1))\n"
                    "                      for n in sizes] for kernel in kernels])",
    "a helper that takes the timer": "def once(call, clock):\n"
                                     "    tic = clock()\n    call()\n    return clock() - tic\n"
                                     "def kernel_timings(kernels, docs, sizes, repeat=3, timer=time.perf_counter):\n"
                                     "    return np.array([[min(once(lambda: kernel(docs[:n]), timer)\n"
                                     "                          for _ in range(repeat)) for n in sizes]\n"
                                     "                     for kernel in kernels])",
}
_IMPORTS = "import time, timeit\nimport numpy as np\nfrom time import perf_counter\n"


def _defined(source):
    namespace = {}
    exec(_IMPORTS + source, namespace)      # as a notebook does: the imports bind names in the function's module
    return namespace["kernel_timings"]


@pytest.mark.parametrize("way", HONEST)
def test_every_honest_way_of_timing_through_the_timer_passes(way, monkeypatch):
    monkeypatch.setattr(time, "sleep", _no_sleep)
    verdict = check.nb06_exercise_7_timing.judge(_defined(HONEST[way]))
    assert verdict.passed, verdict.text


@pytest.mark.parametrize("clock", ["time.perf_counter()", "time.time()", "time.process_time()"])
def test_a_clock_read_past_the_timer_is_told_why_its_times_are_too_short(clock, monkeypatch):
    # the student's own loop reads a clock by name instead of `timer`: the stand-ins take no time there
    monkeypatch.setattr(time, "sleep", _no_sleep)
    source = _TIMED.format(default="time.perf_counter").replace("timer()", clock)
    verdict = check.nb06_exercise_7_timing.judge(_defined(source))
    assert not verdict.passed and {m["mistake"] for m in verdict.mistakes} == {"too-short"}, verdict.text
    assert "Read the clock through the `timer` your function is given" in verdict.text


def test_a_function_without_the_timer_argument_is_told_so():
    source = _TIMED.replace(", timer={default}", "").replace("timer()", "time.perf_counter()")
    verdict = check.nb06_exercise_7_timing.judge(_defined(source))
    assert not verdict.passed and "unexpected keyword argument 'timer'" in verdict.text, verdict.text


def test_the_reference_refuses_a_timer_that_is_not_a_function():
    with pytest.raises(TypeError, match=r"timer must be a function of no arguments returning seconds .* got float"):
        coursework.kernel_timings([len], ["a", "b"], [1], timer=1.5)


@pytest.mark.parametrize("slip, mistake", [(mean_of_repeats, "not-the-best"), (total_of_repeats, "not-the-best"),
                                           (first_run_only, "not-the-best"), (clock_around_the_loop, "not-the-best"),
                                           (ignores_the_timer, "too-short")])
def test_each_wrong_way_of_timing_is_named(slip, mistake, monkeypatch):
    monkeypatch.setattr(time, "sleep", _no_sleep)
    verdict = check.nb06_exercise_7_timing.judge(slip)
    assert not verdict.passed and {m["mistake"] for m in verdict.mistakes} == {mistake}, verdict.text


def test_the_timing_band_is_the_clocks_rounding_and_every_wrong_way_is_far_outside_it():
    # no clock read here: the compare against the design, with what each way of timing gives on the check's timer
    from kgslab.check.nb06_bag_of_words import _CLOCK, _EXTRA, _compare_timings, _designed_best

    for case in check.nb06_exercise_7_timing.cases():
        designed = _designed_best(case)
        repeat = case.args[3]
        assert _compare_timings(designed, designed + 0.9 * _CLOCK, case=case) is None       # clock rounding
        assert _compare_timings(designed, designed - 0.9 * _CLOCK, case=case) is None
        assert _compare_timings(designed, np.round(designed, 6), case=case) is None         # datetime's microseconds
        assert _compare_timings(designed, designed + 2 * _CLOCK, case=case) is not None
        assert _compare_timings(designed, np.zeros_like(designed), case=case) is not None   # a clock that never moves
        if repeat > 1:
            assert _compare_timings(designed, designed + (repeat - 1) / repeat * _EXTRA, case=case) is not None  # mean
        ms = _compare_timings(designed, 1000 * designed, case=case)
        assert ms is not None and ms.mistake == "milliseconds"


def test_a_dense_count_matrix_is_stopped_when_it_allocates(monkeypatch):
    # the memory verdict comes at the allocation, before any slow work (here, on the big case, a sleep that would
    # run into the time limit): it does not depend on how fast the machine is
    solution = variant("06_bag_of_words", "nb06_exercise_7_sparse", SPARSE_MATRIX,
                       "counts = np.zeros((len(docs), len(vocabulary)))\n"
                       "    np.add.at(counts, (rows, columns), 1.0)\n"
                       "    if len(docs) > 100:\n        time.sleep(60)\n"
                       "    counts = scipy.sparse.csr_matrix(counts)")
    verdict = check.nb06_exercise_7_sparse.judge(solution)
    assert not verdict.passed and verdict.mistakes[-1]["mistake"] == "memory", verdict.text
    swallowed = variant("06_bag_of_words", "nb06_exercise_7_sparse", SPARSE_MATRIX,
                        "try:\n        np.zeros((len(docs), len(vocabulary)))\n    except BaseException:\n"
                        "        pass\n    " + SPARSE_MATRIX)
    verdict = check.nb06_exercise_7_sparse.judge(swallowed)
    assert not verdict.passed and verdict.mistakes[-1]["mistake"] == "memory", verdict.text


SPARSE_MATRIX = ("counts = scipy.sparse.csr_matrix((np.ones(len(rows)), (rows, columns)), "
                 "shape=(len(docs), len(vocabulary)))")


# ---- comparison by kind of pair -----------------------------------------------------------------

def raw_values(K_first, K_second, language, article):
    first_index, second_index = np.triu_indices(len(language), k=1)
    same = language[first_index] == language[second_index]
    translated = (article[first_index] == article[second_index]) & ~same
    kinds = [same, ~same & ~translated, translated]
    return np.array([[K[first_index, second_index][kind].mean() for K in (K_first, K_second)] for kind in kinds])


def with_diagonal(K_first, K_second, language, article):
    first_index, second_index = np.triu_indices(len(language), k=0)
    same = language[first_index] == language[second_index]
    translated = (article[first_index] == article[second_index]) & ~same
    kinds = [same, ~same & ~translated, translated]
    return np.array([[normalise(K)[first_index, second_index][kind].mean() for K in (K_first, K_second)]
                     for kind in kinds])


def translations_counted_twice(K_first, K_second, language, article):
    first_index, second_index = np.triu_indices(len(language), k=1)
    same = language[first_index] == language[second_index]
    translated = (article[first_index] == article[second_index]) & ~same
    kinds = [same, ~same, translated]                 # translations left among "different languages"
    return np.array([[normalise(K)[first_index, second_index][kind].mean() for K in (K_first, K_second)]
                     for kind in kinds])


def by_block_position(K_first, K_second, language, article):
    """Assumes the documents come in language blocks of equal size (true of the corpus, not of every input)."""
    n = len(language)
    block = n // len(set(language.tolist()))
    return pair_group_means(K_first, K_second, np.arange(n) // block, np.arange(n) % block)


def normalises_in_place(K_first, K_second, language, article):
    d = np.sqrt(np.diag(K_first).copy())
    K_first /= np.outer(d, d)
    return pair_group_means(K_first, K_second, language, article)


@pytest.mark.parametrize("slip", [raw_values, with_diagonal, translations_counted_twice, by_block_position,
                                  normalises_in_place], ids=lambda f: f.__name__)
def test_compare_slips_are_caught(slip, capsys):
    assert check.nb06_exercise_7_compare(slip) is not slip
    assert "✘" in capsys.readouterr().out


def test_pair_group_means_against_a_loop_over_pairs():
    rng = np.random.default_rng(3)
    counts = rng.poisson(2.0, size=(12, 5)) + np.eye(12, 5)
    K_first, K_second = counts @ counts.T, (counts[:, ::-1] ** 2) @ (counts[:, ::-1] ** 2).T
    language = np.array(list("abc") * 4)
    article = np.repeat(np.arange(4), 3)
    sums = np.zeros((3, 2))
    n_pairs = np.zeros(3)
    for i in range(12):
        for j in range(i + 1, 12):
            kind = 0 if language[i] == language[j] else 2 if article[i] == article[j] else 1
            n_pairs[kind] += 1
            for column, K in enumerate((K_first, K_second)):
                sums[kind, column] += K[i, j] / np.sqrt(K[i, i] * K[j, j])
    assert np.allclose(coursework.pair_group_means(K_first, K_second, language, article), sums / n_pairs[:, None])


# ---- classification of pairs of languages --------------------------------------------------------

def _classify_slip(old, new):
    return lambda: variant(STEM, "nb06_exercise_7_classify", old, new)


def _classify_call(change):
    def slip(K, language, article, first, second, adatron, C=1.0, n_folds=5):
        return change(pair_accuracy, K, language, article, first, second, adatron, C, n_folds)
    return lambda: slip


@pytest.mark.parametrize("make_slip", [
    _classify_slip("(alpha * labels[train]) + b", "(alpha * labels[train])"),
    _classify_slip("np.where(language[chosen] == first, -1.0, 1.0)", "np.where(language[chosen] == first, 1.0, -1.0)"),
    _classify_slip("GroupKFold(n_splits=n_folds).split(K_chosen, labels, groups=article[chosen])",
                   "__import__('sklearn.model_selection').model_selection.KFold(n_folds).split(K_chosen)"),
    _classify_slip("groups=article[chosen]", "groups=np.arange(len(chosen))"),   # passed before german's order
    _classify_call(lambda solution, *args: solution(*args).mean()),
    _classify_call(lambda solution, K, language, article, first, second, adatron, C, n_folds:
                   solution(K, language, article, first, second, adatron, 1.0, n_folds)),
    _classify_call(lambda solution, K, language, article, first, second, adatron, C, n_folds:
                   solution(K, language, article, first, second, adatron_with_bias, C, n_folds)),
], ids=["bias ignored", "labels swapped", "folds not grouped by article", "one group per document",
        "returns the mean", "C ignored",
        "the kit's adatron instead of the one given"])
def test_classify_slips_are_caught(make_slip, capsys):
    slip = make_slip()
    assert check.nb06_exercise_7_classify(slip) is not slip
    assert "✘" in capsys.readouterr().out


@pytest.mark.parametrize("make_slip", [
    _classify_slip("GroupKFold(n_splits=n_folds).split(K_chosen, labels, groups=article[chosen])",
                   "__import__('sklearn.model_selection').model_selection.KFold(n_folds).split(K_chosen)"),
    _classify_slip("groups=article[chosen]", "groups=np.arange(len(chosen))"),
], ids=["KFold", "one group per document"])
def test_folds_that_ignore_the_articles_are_named(make_slip, capsys):
    """The ✘ of ungrouped folds names the folds, not the decision value (issue 44)."""
    slip = make_slip()
    assert check.nb06_exercise_7_classify(slip) is not slip
    out = capsys.readouterr().out
    assert "folds that ignore the articles" in out and "eq. 6 plus b" not in out


def test_the_bias_slip_is_not_blamed_on_the_folds(capsys):
    slip = _classify_slip("(alpha * labels[train]) + b", "(alpha * labels[train])")()
    assert check.nb06_exercise_7_classify(slip) is not slip
    assert "folds that ignore the articles" not in capsys.readouterr().out


def test_classify_changed_input_is_caught(capsys):
    def scales_K(K, language, article, first, second, adatron, C=1.0, n_folds=5):
        K *= 1.0
        K[0, 0] += 1e-3
        return pair_accuracy(K, language, article, first, second, adatron, C, n_folds)

    assert check.nb06_exercise_7_classify(scales_K) is not scales_K
    assert "changed its input `K`" in capsys.readouterr().out


def test_pair_accuracy_against_sklearn_cross_validation():
    """On the corpus's 2-mer kernel, one pair: the reference equals cross_val_score of the kit's KernelAdatron."""
    kernels, docs = data.load_kernels(), data.load_docs()
    language = np.repeat(np.array(data.LANGUAGES), 195)
    article = np.tile(np.arange(1, 196), 4)
    index = np.flatnonzero(np.isin(language, ["french", "italian"]))
    K = normalise(kernels.K_2mer)[np.ix_(index, index)][::3, ::3]      # every third document: a hard, small task
    lang, art = language[index][::3], article[index][::3]
    ours = coursework.pair_accuracy(K, lang, art, "french", "italian", adatron_with_bias, C=0.05)
    labels = np.where(lang == "french", -1.0, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        theirs = cross_val_score(KernelAdatron(C=0.05, eta=1.0), K, labels, groups=art, cv=GroupKFold(n_splits=5))
    assert len(docs.english) == 195
    assert np.allclose(ours, theirs)


def test_references_refuse_bad_input():
    K = np.eye(4)
    with pytest.raises(ValueError, match="language"):
        coursework.pair_group_means(K, K, np.array(["a", "b"]), np.arange(4))
    with pytest.raises(ValueError, match="first and second"):
        coursework.pair_accuracy(K, np.array(list("aabb")), np.arange(4), "a", "c", adatron_with_bias)
    with pytest.raises(ValueError, match="sizes"):
        coursework.kernel_timings([len], ["x", "y"], [3])
    with pytest.raises(TypeError, match="kernels"):
        coursework.kernel_timings("len", ["x"], [1])

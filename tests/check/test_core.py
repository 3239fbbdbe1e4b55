"""The check-and-fall-back mechanism and the panel shell shared by every notebook.

Each test below is an attempt to get a tick (or a graded point) from work that is not the student's own,
or to hang or bury the verdict: blank, wrong, re-run after a fall-back, changed inputs, wrong types,
endless loops, sys.exit(), a flood of prints.  None may succeed.
"""

import re
import threading
import time

import numpy as np
import pytest

from kgslab import check
from kgslab._notebook_list import NOTEBOOKS
from kgslab.check import Case, Exercise, allclose, run_exercise
from kgslab.check import records, running
from kgslab.check.fallback import reference_of
from kgslab.widgets import Panel, float_slider
from written_out import written_out  # noqa: E402


def reference(x, power=2):
    return np.asarray(x, dtype=float) ** power


CASES = [Case("three numbers", (np.array([1.0, 2.0, 3.0]),)), Case("cubes", (np.array([2.0]),), {"power": 3})]


def blank(*args, **kwargs):
    raise NotImplementedError()


def is_kit_reference(function):
    wrapped = reference_of(function)                 # the reference, behind the guard that closes it
    return wrapped is reference or getattr(wrapped, "__name__", None) == "reference" and \
        getattr(wrapped, "_kgslab_closed_name", None) is not None


@pytest.fixture
def demo():
    """An Exercise on the demo reference, its record cleared."""
    records.LAST_RUNS.pop("demo", None)
    yield Exercise("demo", "Demo", reference, lambda: CASES, points=2)
    records.LAST_RUNS.pop("demo", None)


def test_a_correct_function_is_returned(capsys):
    def student(x, power=2):
        return np.power(x, power)
    assert run_exercise("Demo", student, reference, CASES) is student
    assert "✔ correct on both tests" in capsys.readouterr().out


def test_a_blank_exercise_falls_back_kindly(capsys):
    returned = run_exercise("Demo", blank, reference, CASES)
    assert is_kit_reference(returned) and returned(np.array([3.0])) == 9.0
    out = capsys.readouterr().out
    assert "not attempted yet" in out and "reference implementation" in out and "✔" not in out


def test_a_wrong_answer_names_the_case_and_gives_the_hint(capsys):
    def student(x, power=2):
        return np.asarray(x) * power
    assert is_kit_reference(run_exercise("Demo", student, reference, CASES, hint="use **"))
    out = capsys.readouterr().out
    assert "not yet right on 2 of the 2 tests" in out and "on test 1 (three numbers)" in out and "Hint: use **" in out


def test_a_crash_is_reported_not_raised(capsys):
    def student(x, power=2):
        return x.nonexistent
    assert is_kit_reference(run_exercise("Demo", student, reference, CASES))
    assert "raised AttributeError on test 1" in capsys.readouterr().out


# ---- re-running a check after a fall-back ---------------------------------------------------------

def test_rerun_after_fallback_says_still_open_and_never_ticks(demo, capsys):
    name = demo(blank)                     # the cell `f = check.demo(f)` run once with f blank ...
    again = demo(name)                     # ... and run again: f is now the kit's reference
    out = capsys.readouterr().out
    assert "✔" not in out and "still open" in out and "is the kit's reference" in out
    assert again is name and is_kit_reference(again)
    assert records.LAST_RUNS["demo"].passed is False


def test_handing_in_the_reference_itself_is_not_a_tick(capsys):
    assert is_kit_reference(run_exercise("Demo", reference, reference, CASES))
    out = capsys.readouterr().out
    assert "still open" in out and "✔" not in out


# ---- inputs: fresh copies, changes detected --------------------------------------------------------

def test_a_function_that_changes_its_input_is_told_and_not_adopted(capsys):
    def squares_in_place(x, power=2):
        x **= power                       # right values, but the caller's array is overwritten
        return x
    assert is_kit_reference(run_exercise("Demo", squares_in_place, reference, CASES))
    out = capsys.readouterr().out
    assert "changed its input `x` in place on test 1" in out and "✔" not in out


def test_in_place_normalisation_is_caught_as_in_notebook_04(capsys):
    def normalise_in_place(K):
        d = np.sqrt(np.diag(K))
        K /= np.outer(d, d)
        return K
    assert check.nb04_exercise_5a(normalise_in_place) is not normalise_in_place
    assert "changed its input `K` in place" in capsys.readouterr().out


def test_in_place_ridge_is_caught_as_in_notebook_02(capsys):
    def kernel_ridge_in_place(K, y, gamma):
        K += gamma * len(y) * np.eye(len(y))
        return np.linalg.solve(K, y)
    assert check.nb02_exercise_3a(kernel_ridge_in_place) is not kernel_ridge_in_place
    assert "changed its input `K` in place" in capsys.readouterr().out


def test_cases_sharing_one_array_get_fresh_copies(capsys):
    shared = np.array([1.0, 2.0])
    cases = [Case("first", (shared,)), Case("second", (shared,))]
    seen = []

    def spoiler(x, power=2):
        seen.append(x.copy())
        result = np.asarray(x, float) ** power
        x[:] = 99.0                        # writes into its input: must not reach the next case or the reference
        return result

    run_exercise("Demo", spoiler, reference, cases)
    assert np.array_equal(shared, [1.0, 2.0])
    assert "changed its input" in capsys.readouterr().out

    def reader(x, power=2):
        seen.append(x.copy())
        return np.asarray(x, float) ** power
    assert run_exercise("Demo", reader, reference, cases) is reader
    assert all(np.array_equal(copy, [1.0, 2.0]) for copy in seen)


def test_a_changed_keyword_argument_or_list_is_detected(capsys):
    def appends(docs, extra=None):
        docs.append("more")
        return len(docs) - 1
    cases = [Case("two documents", (["a", "b"],), {"extra": [1]})]
    run_exercise("Demo", appends, lambda docs, extra=None: len(docs), cases)
    assert "changed its input `docs`" in capsys.readouterr().out


# ---- types ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("expected, got, words", [
    (np.zeros(3), [0.0, 0.0, 0.0], "got a list"),
    (np.zeros(2), (0.0, 0.0), "got a tuple"),
    ((1.0, 2.0), np.array([1.0, 2.0]), "expected a tuple of 2 values, got a numpy array"),
    ((1.0, 2.0), [1.0, 2.0], "expected a tuple of 2 values, got a list"),
    (1.5, "1.5", "got a str"),
    (1.5, 1.5 + 0j, "got a complex"),
    (np.ones(2), np.ones(2, dtype=complex), "complex numbers"),
    (np.ones(2), np.array(["1", "1"]), "strings"),
    (1.0, True, "got a bool"),
    (np.ones(2), np.ones(2, dtype=object), "Python objects"),
])
def test_types_are_compared_and_the_returned_type_is_named(expected, got, words):
    problem = allclose()(expected, got)
    assert problem and words in problem


def test_right_types_pass():
    compare = allclose()
    assert compare(np.ones(3), np.ones(3, dtype=int)) is None
    assert compare(2.0, np.float64(2.0)) is None and compare(2.0, 2) is None and compare(2, np.int64(2)) is None
    assert compare((1.0, np.ones(2)), (1.0 + 1e-12, np.ones(2))) is None


def test_wrong_shape_and_tuples_are_explained():
    compare = allclose()
    assert "expected shape (3,), got shape (2,)" in compare(np.zeros(3), np.zeros(2))
    assert "in part 2" in compare((1.0, np.ones(2)), (1.0, np.zeros(2)))
    assert "NaN" in compare(np.ones(2), np.array([1.0, np.nan]))


def test_a_list_where_an_array_is_meant_is_refused_by_a_real_check(capsys):
    def as_list(X, y, gamma):
        return list(np.linalg.solve(X.T @ X + gamma * len(y) * np.eye(X.shape[1]), X.T @ y))
    assert check.nb01_exercise_1_primal(as_list) is not as_list
    assert "got a list" in capsys.readouterr().out


# ---- time limit -------------------------------------------------------------------------------------

def endless(x, power=2):
    while True:
        pass


def swallows_exceptions(x, power=2):
    while True:                            # a student's catch-all: the time limit is not an Exception
        try:
            time.sleep(10)
        except Exception:
            pass


@pytest.mark.parametrize("student", [endless, swallows_exceptions, lambda x, power=2: time.sleep(60)])
def test_an_endless_loop_is_stopped_by_the_time_limit(student, capsys):
    started = time.perf_counter()
    assert is_kit_reference(run_exercise("Demo", student, reference, CASES, time_limit=0.5))
    assert time.perf_counter() - started < 30.0     # stopped (not 60 s of sleep, nor forever); a loaded machine's slack
    assert "did not finish within the time limit of 0.5 s" in capsys.readouterr().out


def test_the_time_limit_also_works_outside_the_main_thread(capsys):
    returned = []
    worker = threading.Thread(target=lambda: returned.append(
        run_exercise("Demo", endless, reference, CASES, time_limit=0.5)))
    worker.start()
    worker.join(5.0)
    assert not worker.is_alive() and is_kit_reference(returned[0])
    assert "did not finish within the time limit" in capsys.readouterr().out


def test_the_limit_is_stated_and_tighter_for_students_than_for_grading():
    assert 1 <= check.TIME_LIMIT <= 10 and check.TIME_LIMIT < check.GRADING_TIME_LIMIT < 30


def test_no_alarm_is_left_behind_after_a_check(capsys, monkeypatch):
    # in this process (no fork: the path that arms SIGALRM), with a limit no machine's load makes a correct
    # function miss; read the timer and the handler afterwards instead of sleeping past the limit
    import signal

    def slow_but_fine(x, power=2):
        return np.asarray(x, float) ** power
    monkeypatch.setattr(running.forked, "available", lambda: False)
    handler = signal.getsignal(signal.SIGALRM)
    assert run_exercise("Demo", slow_but_fine, reference, CASES, time_limit=20.0) is slow_but_fine
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0) and signal.getsignal(signal.SIGALRM) is handler


# ---- printed output, sys.exit, KeyboardInterrupt ----------------------------------------------------

def test_a_print_flood_is_summarised_and_the_verdict_comes_last(capsys):
    def chatty(x, power=2):
        for step in range(1000):
            print(f"step {step}")
        return np.asarray(x, float) ** power
    assert run_exercise("Demo", chatty, reference, CASES[:1]) is chatty
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) < 10
    assert "printed 1000 lines (first 3 shown)" in out[0] and "step 0" in out[1] and "step 999" not in "".join(out)
    assert "✔ correct on the test" in out[-1]


@pytest.mark.parametrize("exit_how, words", [(SystemExit, "sys.exit()"), (KeyboardInterrupt, "interrupted")])
def test_sys_exit_and_keyboard_interrupt_give_a_verdict(exit_how, words, capsys):
    def quits(x, power=2):
        raise exit_how()
    assert is_kit_reference(run_exercise("Demo", quits, reference, CASES))
    out = capsys.readouterr().out
    assert words in out and "✘" in out


# ---- grading ----------------------------------------------------------------------------------------

def test_grade_silent_when_passed_and_one_line_when_not_while_a_student_works(demo, capsys, monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    demo.grade()
    assert "has not been run" in capsys.readouterr().out
    demo(lambda x, power=2: np.asarray(x, float) ** power)
    capsys.readouterr()
    demo.grade()
    assert capsys.readouterr().out == ""
    demo(blank)
    capsys.readouterr()
    demo.grade()
    assert capsys.readouterr().out == "Graded test (2 points): not passed yet: not attempted yet (blank still raises " \
                                      "NotImplementedError).\n"


@pytest.mark.parametrize("mode", ["autograde", "validate"])
def test_grade_raises_under_nbgrader_unless_the_students_own_function_passed(demo, monkeypatch, mode, capsys):
    monkeypatch.setenv("NBGRADER_EXECUTION", mode)
    with pytest.raises(AssertionError, match="has not been run"):
        demo.grade()
    fallback = demo(blank)
    with pytest.raises(AssertionError, match="not attempted"):
        demo.grade()
    demo(fallback)                          # a re-run after the fall-back
    with pytest.raises(AssertionError, match="still open"):
        demo.grade()
    demo(lambda x, power=2: np.asarray(x, float) ** power)
    demo.grade()
    demo(lambda x, power=2: np.asarray(x, float))   # the last run counts
    with pytest.raises(AssertionError, match="not yet right"):
        demo.grade()


# ---- every real check -------------------------------------------------------------------------------

EXERCISES = check.exercises()


def test_one_naming_scheme():
    # every name a check module exports is found, and nothing else
    modules = [getattr(check, name) for name in dir(check) if re.fullmatch(r"nb\d\d_\w+", name)
               and hasattr(getattr(check, name), "__all__")]
    assert sorted(module.__name__ for module in modules) == sorted(f"kgslab.check.{n.check}" for n in NOTEBOOKS)
    assert sorted(EXERCISES) == sorted(name for module in modules for name in module.__all__)
    for name, exercise in EXERCISES.items():
        assert exercise.key == name and name.startswith("nb") and "_exercise_" in name, name
        assert exercise.points >= 1


@pytest.mark.parametrize("name", list(EXERCISES))
def test_every_check_ticks_only_the_students_own_work(name, capsys, monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    exercise = EXERCISES[name]

    def retyped(*args, **kwargs):          # a student who wrote out the reference's code
        return written_out(exercise._reference)(*args, **kwargs)
    assert exercise(retyped) is retyped
    exercise.grade()

    fallback = exercise(blank)
    assert fallback is not blank
    with pytest.raises(AssertionError):
        exercise.grade()
    assert exercise(fallback) is fallback  # the re-run
    with pytest.raises(AssertionError, match="still open"):
        exercise.grade()

    def as_lists(*args, **kwargs):         # the right values, as lists instead of arrays
        result = written_out(exercise._reference)(*args, **kwargs)
        if isinstance(result, tuple):
            return [np.asarray(part).tolist() for part in result]
        return np.asarray(result).tolist() if isinstance(result, np.ndarray) else str(result)
    assert exercise(as_lists) is not as_lists

    def spoils_input(*args, **kwargs):     # the right values, but an input array is changed
        result = written_out(exercise._reference)(*args, **kwargs)
        for value in args:
            if isinstance(value, np.ndarray) and value.size:
                value.flat[0] = value.flat[0] + 1.0
                break
            if isinstance(value, list) and value:
                value.append(value[0])
                break
        return result
    has_mutable_input = any(isinstance(value, (np.ndarray, list)) for value in exercise.cases()[0].args)
    assert (exercise(spoils_input) is spoils_input) == (not has_mutable_input)
    out = capsys.readouterr().out
    assert out.count("✔") == 1 + (not has_mutable_input)
    assert ("changed its input" in out) == has_mutable_input


# ---- the panel shell --------------------------------------------------------------------------------

def test_panel_redraws_and_reports_when_a_slider_moves():
    def draw(figure, a):
        ax = figure.subplots()
        x = np.linspace(0, 1, 50)
        ax.plot(x, np.sin(a * x))
        return {"twice a": 2 * a}

    panel = Panel({"a": float_slider("a", 1.0, 0.0, 5.0, 0.1)}, draw)
    first_png = panel.png
    assert panel.values == {"twice a": 2.0} and first_png.startswith(b"\x89PNG")
    panel.a.value = 3.0
    assert panel.values == {"twice a": 6.0}
    assert panel.png != first_png and panel.image.value == panel.png
    assert "twice a" in panel.report.value
    assert not panel.a.continuous_update


def test_the_time_limit_stops_an_endless_loop_in_a_real_notebook_kernel():
    """A notebook cell runs in the main thread of an ipykernel, where the SIGALRM timer is used."""
    from nbconvert.preprocessors import ExecutePreprocessor
    from nbformat.v4 import new_code_cell, new_notebook

    notebook = new_notebook(cells=[new_code_cell(
        "import time\n"
        "import numpy as np\n"
        "from kgslab.check import Case, run_exercise\n"
        "def endless(x):\n"
        "    while True:\n"
        "        pass\n"
        "started = time.perf_counter()\n"
        "f = run_exercise('Demo', endless, np.square, [Case('one', (np.ones(2),))], time_limit=1.0)\n"
        "print('seconds', round(time.perf_counter() - started))\n"
        "print('fell back', f(np.array([3.0]))[0] == 9.0)")])
    ExecutePreprocessor(timeout=60, kernel_name="python3").preprocess(notebook, {})
    text = "".join(output.get("text", "") for output in notebook.cells[0].outputs)
    assert "did not finish within the time limit of 1 s" in text
    assert "fell back True" in text and int(text.split("seconds ")[1].split()[0]) <= 30   # stopped; load's slack


# ---- hints in tiers (issue 16) -----------------------------------------------------------------------

def _tiered_exercise():
    from kgslab.check import Exercise
    return Exercise("demo_tiers", "Demo", lambda x: x ** 2, lambda: CASES[:1], points=1,
                    hint="square the input (eq. 1)", code_hint="return x ** 2")


def test_a_failure_prints_the_conceptual_hint_and_not_the_code_hint(capsys):
    exercise = _tiered_exercise()
    exercise(lambda x: x * 3)
    out = capsys.readouterr().out
    assert "square the input (eq. 1)" in out
    assert "x ** 2" not in out
    assert 'check.hint("demo_tiers")' in out


def test_the_code_hint_comes_on_request_and_never_while_grading(capsys, monkeypatch):
    from kgslab.check import show_hint
    exercise = _tiered_exercise()
    show_hint(exercise)
    assert "return x ** 2" in capsys.readouterr().out
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    show_hint(exercise)
    out = capsys.readouterr().out
    assert "x ** 2" not in out and "hints are off" in out
    exercise(lambda x: x * 3)
    assert "check.hint" not in capsys.readouterr().out


def test_check_hint_by_name_refuses_an_unknown_name():
    from kgslab import check
    with pytest.raises(ValueError, match="name must be the name of a check"):
        check.hint("nb99_exercise_1")
    with pytest.raises(ValueError, match="did you mean"):
        check.hint("exercise_5a")


# ---- the experiment checks of notebooks 01-02 (the student's function runs a whole study) -------------------

@pytest.mark.parametrize("name", ["nb01_exercise_1_noise", "nb02_exercise_2_table", "nb02_exercise_3a_tune_gamma",
                                  "nb02_exercise_3a_tune_width"])
def test_an_endless_experiment_ends_in_a_verdict(name, capsys, monkeypatch):
    monkeypatch.setattr(check.time_limit, "TIME_LIMIT", 0.5)

    def endless(*args, **kwargs):
        while True:
            pass
    result = check.exercises()[name](endless)
    assert result is not endless and "time limit" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["nb01_exercise_1_noise", "nb02_exercise_2_table", "nb02_exercise_3a_tune_gamma",
                                  "nb02_exercise_3a_tune_width"])
def test_code_hints_come_on_request_only(name, capsys, monkeypatch):
    check.hint(name)
    assert "code-level hint" in capsys.readouterr().out
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    check.hint(name)
    assert "hints are off" in capsys.readouterr().out


# ---- the worked reasoning, offered once the student's own function passed -----------------------------------

def _worked_exercise():
    return Exercise("test_worked", "Exercise W (square)", _square, lambda: [Case("x = 3", (3.0,))], points=1,
                    worked="Squaring twice gives the fourth power: SECRET-DERIVATION.")


def _square(x):
    return x ** 2


def test_the_worked_reasoning_opens_only_after_the_students_own_function_passed(capsys):
    from kgslab import check
    exercise = _worked_exercise()
    check.why(exercise)                                   # before the check ran
    assert "SECRET-DERIVATION" not in capsys.readouterr().out
    exercise(lambda x: x ** 3)                            # a wrong answer: the fall-back stands in
    out = capsys.readouterr().out
    assert "check.why" not in out
    check.why(exercise)
    out = capsys.readouterr().out
    assert "SECRET-DERIVATION" not in out and "opens here once your own function passes" in out
    exercise(lambda x: x * x)                             # right: offered, then shown
    assert 'check.why("test_worked")' in capsys.readouterr().out
    check.why(exercise)
    assert "SECRET-DERIVATION" in capsys.readouterr().out
    exercise(lambda x: x + 1)                             # wrong again: closed again
    capsys.readouterr()
    check.why(exercise)
    assert "SECRET-DERIVATION" not in capsys.readouterr().out


def test_the_worked_reasoning_is_off_while_grading_and_not_in_tab_completion(capsys, monkeypatch):
    from kgslab import check
    exercise = _worked_exercise()
    exercise(lambda x: x * x)
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    capsys.readouterr()
    check.why(exercise)
    assert "SECRET-DERIVATION" not in capsys.readouterr().out
    assert not [name for name in dir(exercise) if "worked" in name and not name.startswith("_")]
    with pytest.raises(ValueError, match="nb08_exercise_1"):
        check.why("no_such_exercise")
    with pytest.raises(TypeError, match="worked"):
        Exercise("k", "t", _square, lambda: [], points=1, worked=3)


# ---- the memory limit: a bare except around the allocation swallows the early stop, not the verdict ----------

def _swallows_the_stop(x, power=2):
    try:
        big = np.ones(4_000_000)                # 32 MB, over the case's 8 MB
        big[0] = 1.0
    except:                                     # noqa: E722 -- catches the check's early stop (OverMemory)
        print("swallowed")                      # a C call: a profile function still installed would stop it here
    return np.asarray(x, dtype=float) ** power


MEMORY_CASES = [Case("three numbers, 8 MB", (np.array([1.0, 2.0, 3.0]),), memory_limit=8.0)]


def test_a_bare_except_swallows_the_early_stop_once_and_the_peak_after_return_decides():
    # CPython removes a profile function once it raises: the function sees the stop once, swallows it, runs on
    # and returns the right value; the peak traced over the call is what the verdict rests on
    outcome = running.run_one_case(_swallows_the_stop, MEMORY_CASES[0], reference, frozenset(), None)
    assert outcome["kind"] == "returned" and "swallowed" in outcome["printed"], outcome
    assert outcome["peak_mb"] > 30, outcome
    verdict = check.verdicts.judge("Demo", _swallows_the_stop, reference, MEMORY_CASES, outcomes=[outcome])
    assert not verdict.passed and verdict.mistakes[-1]["mistake"] == "memory", verdict.text


@pytest.mark.parametrize("forked", [True, False], ids=["forked child", "in process"])
def test_a_bare_except_around_the_allocation_still_gets_the_memory_verdict(forked, monkeypatch):
    if not forked:
        monkeypatch.setattr(running.forked, "available", lambda: False)
    elif not running.forked.available():
        pytest.skip("needs os.fork")
    verdict = check.verdicts.judge("Demo", _swallows_the_stop, reference, MEMORY_CASES)
    assert not verdict.passed and verdict.mistakes[-1]["mistake"] == "memory", verdict.text
    assert "allocated" in verdict.text and "more than the 8 MB" in verdict.text and "swallowed" in verdict.text


def test_the_same_function_without_the_allocation_passes():
    def modest(x, power=2):
        try:
            small = np.ones(1000)
            small[0] = 1.0
        except:                                 # noqa: E722
            print("swallowed")
        return np.asarray(x, dtype=float) ** power

    verdict = check.verdicts.judge("Demo", modest, reference, MEMORY_CASES)
    assert verdict.passed, verdict.text


# ---- the grader's flags know the mechanism's modules --------------------------------------------------------

@pytest.mark.parametrize("imports, reach", [
    ("from kgslab.check import records", "records.LAST_RUNS.clear()"),
    ("from kgslab.check.records import LastRun", "LastRun('x', print, True, 'passed')"),
    ("from kgslab.check import verdicts", "verdicts.judge"),
    ("from kgslab.check import time_limit", "time_limit.grading_mode = lambda: None"),
    ("from kgslab.check import exercise", "exercise.Exercise.grade = None"),
    ("from kgslab.check import fallback", "fallback.reference_of(print)"),
    ("from kgslab.check import running", "running.run_one_case"),
    ("from kgslab.check import memory_limit", "memory_limit.stop_over"),
    ("import kgslab.check.values", "kgslab.check.values.allclose"),
])
def test_a_graded_function_reaching_into_the_checks_modules_is_flagged(imports, reach):
    from kgslab.check import flags

    source = f"def ridge_primal(X, y, gamma):\n    {reach}\n    return X.T @ y"
    notes = flags.flags(["import numpy as np", imports, source], "ridge_primal", "nb01_exercise_1_primal")
    assert any("internals" in note for note in notes), notes
    assert flags.flags(["import numpy as np", "def ridge_primal(X, y, gamma):\n    return X.T @ y"], "ridge_primal",
                       "nb01_exercise_1_primal") == []

"""The pieces of the grader outside nbgrader: the submission read as definitions, the child, hidden cases, flags.

The whole path with the real nbgrader is tests/test_grading_cheats.py; these are the fast checks of each piece.
"""

import os

import numpy as np
import pytest

from kgslab import check, release
from kgslab.check import flags, hidden, plain, sandbox, submission

SOLVED = '''
import numpy as np
from kgslab import regression
LIMIT = 3
def ridge_primal(X, y, gamma):
    l, d = X.shape
    return np.linalg.solve(X.T @ X + gamma * l * np.eye(d), X.T @ y)
print("this call is left out")
check.nb01_exercise_1_primal.grade = lambda: None
'''


def test_a_submission_is_read_as_its_definitions_only():
    kept = submission.definitions(["%matplotlib inline\nimport os", SOLVED, "def broken(:\n    pass"])
    assert kept[0] == "import os" and any(s.startswith("def ridge_primal") for s in kept)
    assert "LIMIT = 3" in kept and not any("print" in s or ".grade" in s for s in kept)


def test_the_function_of_each_exercise_comes_from_the_instructors_cells():
    found = submission.exercise_functions(["ridge_primal = check.nb01_exercise_1_primal(ridge_primal)", "x = 1"])
    assert found == {"nb01_exercise_1_primal": "ridge_primal"}


def _request(source, key="nb01_exercise_1_primal", function="ridge_primal", cases=None):
    return {"key": key, "function": function, "others": {}, "definitions": submission.definitions([source]),
            "cases": cases or [{"public": i} for i in range(len(check.exercises()[key].cases()))], "reseed": 1}


def test_the_child_runs_honest_work_and_refuses_the_reference():
    honest = sandbox.run_sandboxed(_request(SOLVED), 20)
    assert [o["kind"] for o in honest] == ["returned"] * 3
    wrapper = sandbox.run_sandboxed(_request("from kgslab import regression\n"
                                             "def ridge_primal(X, y, gamma):\n    return regression.ridge(X, y, gamma)"),
                                    20)
    assert wrapper[-1] == {"kind": "closed", "value": "kgslab.regression.ridge", "printed": ""}


def test_the_child_has_a_scrubbed_environment_in_an_empty_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    monkeypatch.setenv("KGSLAB_COURSE_SECRET_PROBE", "x")
    spy = ("import os\ndef ridge_primal(X, y, gamma):\n"
           "    return (sorted(os.environ), os.getcwd(), os.listdir('.'))")
    (answer,) = sandbox.run_sandboxed(_request(spy, cases=[{"public": 0}]), 20)
    names, folder, listing = plain.loads(answer["value"])
    assert "NBGRADER_EXECUTION" not in names and "KGSLAB_COURSE_SECRET_PROBE" not in names
    assert folder != os.getcwd() and listing == [] and not os.path.exists(folder)


def test_the_child_finds_the_set_up_cells_imports_already_made():
    """pyplot's import cost each child 0.45 CPU-s (a font list in its fresh MPLCONFIGDIR): the zygote makes it once."""
    spy = ("import sys\ndef ridge_primal(X, y, gamma):\n"
           f"    return [name in sys.modules for name in {list(sandbox.PRELOADED)!r}]")
    (answer,) = sandbox.run_sandboxed(_request(spy, cases=[{"public": 0}]), 20)
    assert plain.loads(answer["value"]) == [True] * len(sandbox.PRELOADED)
    assert "matplotlib.pyplot" in sandbox.PRELOADED


def test_the_child_is_stopped_at_the_limit_even_under_a_bare_except():
    loop = ("import time\ndef ridge_primal(X, y, gamma):\n    while True:\n        try:\n"
            "            time.sleep(1)\n        except:\n            pass")
    answers = sandbox.run_sandboxed(_request(loop), 2)
    assert answers == [{"kind": "timeout"}]


# ---- one fork server per submission: each request still gets a clean child ---------------------------------------

def _running(pid):
    """Whether process `pid` still exists (a zombie, whose parent has not collected it yet, counts)."""
    return os.path.exists(f"/proc/{pid}")


def test_what_one_child_patches_never_reaches_the_next_one():
    patcher = ("import numpy, kgslab.regression\nfrom kgslab import check\ndef ridge_primal(X, y, gamma):\n"
               "    numpy.linalg.solve = lambda *a, **k: 0\n    kgslab.regression.ridge = lambda *a, **k: 0\n"
               "    check.exercises().clear()\n    return numpy.zeros(X.shape[1])")
    alone = sandbox.run_sandboxed(_request(SOLVED), 20)
    with sandbox.session():
        patched = sandbox.run_sandboxed(_request(patcher), 20)
        after = sandbox.run_sandboxed(_request(SOLVED), 20)
        wrapper = sandbox.run_sandboxed(_request("from kgslab import regression\n"
                                                 "def ridge_primal(X, y, gamma):\n"
                                                 "    return regression.ridge(X, y, gamma)"), 20)
    assert [o["kind"] for o in patched] == ["returned"] * 3
    assert after == alone                                   # the same values as a child of its own server
    assert wrapper[-1]["kind"] == "closed"                  # the guards were not cleared for the next child


def test_a_child_cannot_signal_its_server_and_its_attempt_costs_only_its_own_request():
    killer = ("import os, signal\ndef ridge_primal(X, y, gamma):\n"
              "    os.kill(os.getppid(), signal.SIGKILL)\n    return X[0]")
    with sandbox.session():
        (refused,) = sandbox.run_sandboxed(_request(killer), 20)
        server = sandbox._SESSIONS.servers[-1].pid
        after = sandbox.run_sandboxed(_request(SOLVED), 20)
        assert _running(server) and sandbox._SESSIONS.servers[-1].pid == server   # the same server, alive
    assert refused["kind"] == "raised" and refused["value"][0] == "PermissionError", refused
    assert [o["kind"] for o in after] == ["returned"] * 3


def _parent_of(pid):
    return int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])


def test_each_session_gets_its_own_server_forked_from_one_zygote():
    servers = []
    for _ in range(2):
        with sandbox.session():
            assert [o["kind"] for o in sandbox.run_sandboxed(_request(SOLVED), 20)] == ["returned"] * 3
            servers.append(sandbox._SESSIONS.servers[-1].pid)
            parents = _parent_of(servers[-1])
        assert parents == sandbox._ZYGOTE.process.pid != os.getpid()
    assert servers[0] != servers[1] and not any(_running(pid) for pid in servers)


def test_a_child_cannot_signal_the_zygote_and_a_patching_child_changes_no_later_answer():
    killer = ("import os, signal\ndef ridge_primal(X, y, gamma):\n"
              "    server = os.getppid()\n"
              "    zygote = int(open(f'/proc/{server}/stat').read().rsplit(')', 1)[1].split()[1])\n"
              "    os.kill(zygote, signal.SIGKILL)\n    return X[0]")
    blind_killer = ("import os, signal\ndef ridge_primal(X, y, gamma):\n"
                    "    for pid in range(2, 5000):\n"
                    "        try:\n            os.kill(pid, signal.SIGKILL)\n"
                    "        except OSError:\n            pass\n    return X[0]")
    patcher = ("import numpy, kgslab.regression\ndef ridge_primal(X, y, gamma):\n"
               "    numpy.linalg.solve = lambda *a, **k: 0\n    kgslab.regression.ridge = lambda *a, **k: 0\n"
               "    return numpy.zeros(X.shape[1])")
    alone = sandbox.run_sandboxed(_request(SOLVED), 20)
    with sandbox.session():
        sandbox.run_sandboxed(_request(patcher), 20)
        first = sandbox._ZYGOTE.process.pid
        (refused,) = sandbox.run_sandboxed(_request(killer), 20)
        sandbox.run_sandboxed(_request(blind_killer), 20)
        assert sandbox.run_sandboxed(_request(SOLVED), 20) == alone
    assert refused["kind"] == "raised" and refused["value"][0] in ("PermissionError", "FileNotFoundError"), refused
    with sandbox.session():
        after = sandbox.run_sandboxed(_request(SOLVED), 20)
    assert after == alone and sandbox._ZYGOTE.process.pid == first and _running(first)


def test_sessions_in_threads_each_use_their_own_server():
    """A Dask worker may grade a submission in each of its threads: each thread's session, its own server."""
    from concurrent.futures import ThreadPoolExecutor

    alone = sandbox.run_sandboxed(_request(SOLVED), 20)

    def grade_twice(_):
        with sandbox.session():
            answers = [sandbox.run_sandboxed(_request(SOLVED), 20) for _ in range(2)]
            return answers, sandbox._SESSIONS.servers[-1].pid

    with ThreadPoolExecutor(3) as pool:
        results = list(pool.map(grade_twice, range(3)))
    assert all(answers == [alone, alone] for answers, _ in results)
    assert len({server for _, server in results}) == 3


def test_children_of_one_server_draw_fresh_seeds_and_leave_nothing_behind():
    drawer = ("import numpy as np, os, random\ndef ridge_primal(X, y, gamma):\n"
              "    return [np.random.rand(), random.random(), os.getpid(), os.getcwd()]")
    with sandbox.session():
        draws = [plain.loads(sandbox.run_sandboxed(_request(drawer, cases=[{"public": 0}]), 20)[0]["value"])
                 for _ in range(3)]
        looping = sandbox.run_sandboxed(_request("def ridge_primal(X, y, gamma):\n    while True:\n        pass"), 1)
        assert looping == [{"kind": "timeout"}]
        server, server_home = sandbox._SESSIONS.servers[-1].pid, sandbox._SESSIONS.servers[-1].home
    assert len({draw[0] for draw in draws}) == 3 and len({draw[1] for draw in draws}) == 3
    folders = [server_home] + [draw[3] for draw in draws]
    assert len(set(folders)) == 4 and not any(os.path.exists(folder) for folder in folders)   # each its own, gone
    assert not any(_running(pid) for pid in [server] + [draw[2] for draw in draws])   # none left running


def test_hidden_cases_differ_by_student_and_never_equal_the_public_ones():
    exercise = check.nb01_exercise_1_primal
    public = exercise.cases()
    alice = hidden.hidden_cases(exercise, "secret", "alice")
    bob = hidden.hidden_cases(exercise, "secret", "bob")
    assert len(alice) == len(public) + 3                    # reseeded public cases, then other shapes (hidden=)
    shapes = {case.args[0].shape for case in alice}
    assert len(shapes) >= 5 and any(n < d for n, d in shapes) and any(n > d for n, d in shapes)
    for mine, theirs, shown in zip(alice, bob, public):
        assert mine.args[0].shape == shown.args[0].shape
        assert not np.allclose(mine.args[0], shown.args[0]) and not np.allclose(mine.args[0], theirs.args[0])
    assert np.random.default_rng(1).random() == np.random.Generator(np.random.PCG64(1)).random()   # restored


def test_plain_data_refuses_objects():
    assert plain.loads(plain.dumps((np.arange(3.0), [1, "a"], {"k": 2.5}, None))) [1] == [1, "a"]
    with pytest.raises(plain.Unsendable):
        plain.dumps(lambda: 0)


def test_flags_name_what_reached_for_the_grade():
    wrapper = ["from kgslab import regression, check", "import os",
               "def ridge_primal(X, y, gamma):\n    os.environ.pop('NBGRADER_EXECUTION', None)\n"
               "    check.nb01_exercise_1_primal.grade = None\n    return regression.ridge(X, y, gamma)"]
    notes = flags.flags(wrapper, "ridge_primal", "nb01_exercise_1_primal")
    assert any("closed reference `kgslab.regression.ridge`" in n for n in notes)
    assert any("internals" in n for n in notes) and any("environ" in n for n in notes)
    copied = ["import numpy as np", "def mine(A, b, g):\n    return np.linalg.solve(*_check_problem(A, b, g))"]
    assert flags.flags(["import numpy as np", SOLVED.split("print")[0].split("LIMIT = 3\n")[1]],
                       "ridge_primal", "nb01_exercise_1_primal") == []
    assert flags.flags(copied, "absent", "nb01_exercise_1_primal") == []
    assert flags.notebook_flags(["import os\nos.environ.pop('NBGRADER_EXECUTION')"]) != []


def test_a_renamed_copy_of_the_reference_is_flagged():
    renamed = ["import numpy as np", "from kgslab.regression import _check_problem, _solve_spd",
               "def ridge_primal(A, b, g):\n    '''My own.'''\n    A, b, g = _check_problem(A, b, g)\n"
               "    rows, cols = A.shape\n    M = A.T @ A + g * rows * np.eye(cols)\n    return _solve_spd(M, A.T @ b)"]
    notes = flags.flags(renamed, "ridge_primal", "nb01_exercise_1_primal")
    assert "its syntax tree equals the reference's up to names" in notes


# ---- every solution passes outside the kernel, on public and hidden cases -------------------------------------

def _solution_cells(stem):
    import nbformat

    from kgslab import release

    notebook = nbformat.read(release.SOLUTIONS / f"{stem}.ipynb", as_version=4)
    return notebook, [cell.source for cell in notebook.cells if cell.cell_type == "code"]


STEMS = sorted(path.stem for path in __import__("kgslab.release", fromlist=["x"]).SOLUTIONS.glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("stem", STEMS)
def test_every_solution_passes_outside_the_kernel(stem):
    from kgslab.grader import GradeOutsideKernel

    notebook, sources = _solution_cells(stem)
    functions = submission.exercise_functions(sources)
    grader = GradeOutsideKernel(secret="a course secret")
    assert functions
    with sandbox.session():                      # as the grader grades a submission: one fork server
        for key in functions:
            passed, verdict = grader._verdict(check.exercises()[key], functions, key, sources, "alice")
            assert passed, verdict


def test_constants_made_from_modules_are_kept_and_work_is_not():
    kept = submission.definitions(["import numpy as np\nEPS = np.finfo(float).eps\nGRID = np.logspace(-3, 3, 7)\n"
                                   "w = ridge_primal(X, y, 0.1)\nf = lambda: 0"])
    assert kept == ["import numpy as np", "EPS = np.finfo(float).eps", "GRID = np.logspace(-3, 3, 7)"]


def test_in_the_child_the_reference_cannot_be_dug_out_of_its_guard():
    digger = ("from kgslab import regression\ndef ridge_primal(X, y, gamma):\n"
              "    for cell in regression.ridge.__closure__ or ():\n"
              "        if callable(cell.cell_contents):\n            return cell.cell_contents(X, y, gamma)\n"
              "    return regression.ridge(X, y, gamma)")
    answers = sandbox.run_sandboxed(_request(digger), 20)
    assert answers[-1]["kind"] in ("closed", "raised"), answers


# ---- cases holding the kit's objects (06: stand-in kernels, the adatron) cross to the child by name ----------------

def _literal_answers(key, function, signature):
    """A submission that returns the reference's answers to the public cases, matched by all their arguments."""
    exercise = check.exercises()[key]
    table = []
    for case in exercise.cases():
        # 06's stand-in kernels take their time on the check's timer (a case's argument): the table is exact
        table.append((plain.dumps(list(case.args), kit_objects=True),
                      plain.dumps(exercise._reference(*case.args, **case.kwargs))))
    return [f"from kgslab.check import plain\nTABLE = {table!r}",
            f"def {function}(*args, **kwargs):\n    key = plain.dumps(list(args), kit_objects=True)\n"
            "    return plain.loads(next(answer for shown, answer in TABLE if shown == key))"]


@pytest.mark.parametrize("key, function, signature", [
    ("nb06_exercise_7_timing", "kernel_timings", "first, docs, sizes, repeat=3"),
    ("nb06_exercise_7_classify", "pair_accuracy", "first, language, article, a, b, adatron, C=1.0, n_folds=5"),
])
def test_literal_answers_to_the_public_cases_of_06_fail_on_hidden_ones(key, function, signature):
    from kgslab.grader import GradeOutsideKernel

    sources = _literal_answers(key, function, signature)
    grader = GradeOutsideKernel(secret="a course secret")
    passed, verdict = grader._verdict(check.exercises()[key], {key: function}, key, sources, "alice")
    public_labels = [case.label for case in check.exercises()[key].cases()]
    assert not passed and not any(f"({label})" in verdict for label in public_labels)   # a hidden case failed
    # the same literal answers pass without the secret: the hidden cases are what catches them
    passed, _ = GradeOutsideKernel(secret="")._verdict(check.exercises()[key], {key: function}, key, sources, "alice")
    assert passed


_BEST_OF_RUNS = ("def kernel_timings(kernels, docs, sizes, repeat=3, timer=perf_counter):\n"
                 "    seconds = np.full((len(kernels), len(sizes)), np.inf)\n"
                 "    for k, kernel in enumerate(kernels):\n        for s, n in enumerate(sizes):\n"
                 "            for _ in range(repeat):\n                tic = timer()\n"
                 "                kernel(docs[:n])\n"
                 "                seconds[k, s] = {keep}\n    return seconds")


@pytest.mark.parametrize("keep, passes", [("min(seconds[k, s], timer() - tic)", True),
                                          ("timer() - tic", False)], ids=["best", "last"])
def test_in_the_grader_child_the_stand_ins_take_their_time_on_the_checks_timer(keep, passes):
    # the grader's fresh child rebuilds 06's stand-ins and the check's timer from their fields, and they time the
    # same way there: the best of the runs passes public and hidden cases exactly (a band of 0.1 ms), the last fails
    from kgslab.grader import GradeOutsideKernel

    key = "nb06_exercise_7_timing"
    sources = ["import numpy as np\nfrom time import perf_counter", _BEST_OF_RUNS.format(keep=keep)]
    passed, verdict = GradeOutsideKernel(secret="a course secret")._verdict(
        check.exercises()[key], {key: "kernel_timings"}, key, sources, "alice")
    assert passed == passes, verdict


def test_kit_objects_cross_to_the_child_only():
    case = check.exercises()["nb06_exercise_7_classify"].cases()[2]
    text = plain.dumps(list(case.args), kit_objects=True)
    rebuilt = plain.loads(text, kit_objects=True)
    assert rebuilt[5] is check.exercises()["nb06_exercise_7_classify"].cases()[0].args[5] or callable(rebuilt[5])
    assert rebuilt[6] == case.args[6]                       # the stand-in adatron, rebuilt from its fields
    with pytest.raises(ValueError, match="kit objects cross only from the grader"):
        plain.loads(text)                                   # what a child writes back is never read as kit objects
    with pytest.raises(plain.Unsendable):
        plain.dumps(case.args)                              # a student's returned kit object is unreadable
    forged = text.replace("kgslab.check.nb06_bag_of_words:_FixedRule", "os:system")
    with pytest.raises(ValueError, match="not a kit object"):
        plain.loads(forged, kit_objects=True)


def test_a_child_whose_server_ends_ends_with_it():
    """A grading process killed mid-request closes its server, and the child must not spin on alone."""
    import signal
    import threading
    import time

    spinner = "def ridge_primal(X, y, gamma):\n    while True:\n        pass"
    with sandbox.session():
        sandbox.run_sandboxed(_request(SOLVED), 20)                 # the server is up
        server = sandbox._SESSIONS.servers[-1].pid
        killer = threading.Timer(1.0, os.kill, (server, signal.SIGKILL))   # as a grading process's end would
        started = time.monotonic()
        killer.start()
        answers = sandbox.run_sandboxed(_request(spinner), 30)
    assert answers == [{"kind": "crashed"}] and time.monotonic() - started < 10, answers


@pytest.mark.parametrize("stem", [path.stem for path in sorted(release.SOLUTIONS.glob("[0-9][0-9]_*.ipynb"))])
def test_no_flag_fires_on_a_solved_notebook(stem):
    """A flag names what a student's code reached for: the solutions reach for nothing (the provided cells, the
    same in every copy, are not looked at by the grader)."""
    import nbformat

    solution = nbformat.read(release.SOLUTIONS / f"{stem}.ipynb", as_version=4)
    sources = [cell.source for cell in solution.cells if cell.cell_type == "code"]
    functions = submission.exercise_functions(sources)
    definitions = submission.definitions(sources)
    for key, function in functions.items():
        assert flags.flags(definitions, function, key) == [], (key, flags.flags(definitions, function, key))
    solved = [cell.source for cell in solution.cells if cell.cell_type == "code" and release.has_solution(cell)]
    assert flags.notebook_flags(solved) == [], flags.notebook_flags(solved)


def test_flags_name_the_routes_around_the_name():
    body = {"gc": "import gc\ndef ridge_primal(X, y, gamma):\n    return [f for f in gc.get_objects()][0](X, y, gamma)",
            "runpy": "import runpy\ndef ridge_primal(X, y, gamma):\n"
                     "    return runpy.run_module('kgslab.regression')['ridge'](X, y, gamma)",
            "inspect": "import inspect\nfrom kgslab import regression\ndef ridge_primal(X, y, gamma):\n"
                       "    return inspect.getclosurevars(regression.ridge).nonlocals['original'](X, y, gamma)",
            "subprocess": "import subprocess\ndef ridge_primal(X, y, gamma):\n    subprocess.Popen(['true'])",
            "os.kill": "import os\ndef ridge_primal(X, y, gamma):\n    os.kill(os.getppid(), 9)",
            "__name__": "def ridge_primal(X, y, gamma):\n    if __name__ != '__student__':\n"
                        "        raise NotImplementedError()"}
    for route, source in body.items():
        found = flags.flags(submission.definitions([source]), "ridge_primal", "nb01_exercise_1_primal")
        assert any(route in note for note in found), (route, found)


def test_a_stuck_kernel_run_is_given_up():
    import time

    from kgslab.grader import _deadline, _StuckKernel

    started = time.monotonic()
    with pytest.raises(_StuckKernel):
        with _deadline(0.3):
            time.sleep(5)
    assert time.monotonic() - started < 2


def test_a_syntax_error_is_reported_with_its_line():
    cells = ["import numpy as np", "def ridge_primal(X, y, gamma):\n    l, d = X.shape\n    return (np.eye(d)"]
    (answer,) = sandbox.run_sandboxed({**_request("\n".join(cells)), "cases": [{"public": 0}],
                                       "syntax_error": submission.syntax_error(cells, "ridge_primal")}, 20)
    assert answer["kind"] == "raised" and answer["value"][0] == "SyntaxError", answer
    assert "line 3 of the cell defining ridge_primal" in answer["value"][1]


def test_a_line_that_is_no_message_costs_that_exercise_only():
    writer = ("import os\ndef ridge_primal(X, y, gamma):\n"
              "    for fd in range(64):\n        try:\n            os.write(fd, b'not json\\n')\n"
              "        except OSError:\n            pass\n    return X[0]")
    with sandbox.session():
        (garbled,) = sandbox.run_sandboxed(_request(writer), 20)
        after = sandbox.run_sandboxed(_request(SOLVED), 20)
    assert garbled["kind"] == "garbled" and [o["kind"] for o in after] == ["returned"] * 3


def test_the_students_own_check_refuses_the_reference_found_by_any_route(capsys):
    """In the notebook too: the check's fork takes the reference out, so a route around its name earns a ✘."""
    import gc
    import runpy

    def by_gc(X, y, gamma):
        original = next(f for f in gc.get_objects() if getattr(f, "__qualname__", "") == "ridge"
                        and getattr(f, "__module__", "") == "kgslab.regression"
                        and not hasattr(f, "_kgslab_closed_name"))
        return original(X, y, gamma)

    def by_runpy(X, y, gamma):
        return runpy.run_module("kgslab.regression")["ridge"](X, y, gamma)

    for cheat in (by_gc, by_runpy):
        assert check.nb01_exercise_1_primal(cheat) is not cheat
    printed = capsys.readouterr().out
    assert printed.count("✘") == 2 and "✔" not in printed


def test_a_dual_on_the_students_own_primal_passes_in_the_notebook_whether_the_primal_passed_or_not(capsys):
    import numpy as np

    def own_primal(X, y, gamma):
        l, d = X.shape
        return np.linalg.solve(X.T @ X + gamma * l * np.eye(d), X.T @ y)

    for primal in (own_primal, lambda X, y, gamma: None):
        ridge_primal = check.nb01_exercise_1_primal(primal)

        def ridge_dual(X, y, gamma):
            return (y - X @ ridge_primal(X, y, gamma)) / (gamma * X.shape[0])

        assert check.nb01_exercise_1_dual(ridge_dual) is ridge_dual
    assert "called" not in capsys.readouterr().out


def test_a_child_writes_no_file_over_the_size_limit():
    writer = ("import os\ndef ridge_primal(X, y, gamma):\n"
              "    with open('big', 'wb') as out:\n"
              "        for _ in range(100):\n            out.write(b'x' * 2 ** 20)\n    return X[0]")
    (answer,) = sandbox.run_sandboxed(_request(writer, cases=[{"public": 0}]), 20)
    assert answer["kind"] == "raised" and answer["value"][0] == "OSError" and "too large" in answer["value"][1]

"""The grade, decided outside the student's kernel: kgslab's nbgrader preprocessors.

nbgrader scores an autograded test cell by its outputs (an error: no points).
Those outputs come from the student's kernel, which the submission controls:
an earlier cell can patch ``check.X.grade``, the records, ``grading_mode`` or
the environment.  So the course's nbgrader_config.py (written by ``python -m
kgslab.assignments``) adds `GradeOutsideKernel` after nbgrader's Execute.  It
runs in nbgrader's own process, which never runs student code, and for each
autograded test cell ``check.nbNN_exercise_X.grade()``:

1. finds the function that exercise grades from the instructor's source cells
   in the gradebook (``f = check.nbNN_exercise_X(f)``), not from the
   submission;
2. takes the submission's definitions (`kgslab.check.submission`) and runs the
   function in a child process of its own with a scrubbed environment in a
   temporary directory (`kgslab.check.sandbox`: a fork of a clean process that
   imported the kit once for this submission), on the public cases and on
   cases drawn from the course's secret (`kgslab.check.hidden`), with the
   exercise's references closed and a hard time limit;
3. computes the expected values here and compares, with the check's own
   comparison, and replaces the test cell's outputs by that verdict: nothing
   when it passed, an error naming what failed otherwise.

What happened in the kernel does not enter the grade at all; the notebook's
outputs stay for the instructor to read.  `ExecuteAndCarryOn` lets a
submission whose kernel dies or times out still be graded this way, and
`FlagsForTheInstructor` writes `kgslab.check.flags`' findings as the
gradebook's comment on the exercise.

Each test cell also keeps the verdict as data, for the class report
(``python -m kgslab.grade ... --report``): ``cell.metadata["kgslab"]["verdict"]``
holds the exercise, passed, points and max_points, the labels of the failing
cases and, for each, the mistake (an id when the check names one, else None)
in the check's own words.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
import tempfile

from nbformat.v4 import new_output

try:
    import nbformat
    from jupyter_client.asynchronous import AsyncKernelClient
    from jupyter_client.manager import AsyncKernelManager
    from nbconvert.exporters import NotebookExporter
    from traitlets import Float, Unicode                 # nbgrader's configuration system
    from nbgrader.api import Gradebook
    from nbgrader.preprocessors import Execute, NbGraderPreprocessor, OverwriteCells
except ModuleNotFoundError as missing:      # students never need it: grading happens on the instructor's side
    raise ModuleNotFoundError("kgslab.grader runs inside nbgrader, on the instructor's side: pip install nbgrader "
                              "(the kit's test extra has it)") from missing

__all__ = ["GradeOutsideKernel", "ExecuteAndCarryOn", "FlagsForTheInstructor", "RestoreDeletedCells",
           "SubmissionExporter"]


def _grade_id(cell) -> str:
    return cell.metadata.get("nbgrader", {}).get("grade_id", "") or ""


def _exercise_key(cell, known) -> str | None:
    """The exercise a test cell grades: its grade_id is ``<notebook>-<key>`` (python -m kgslab.release --tag)."""
    meta = cell.metadata.get("nbgrader", {})
    if cell.cell_type != "code" or not meta.get("grade") or meta.get("solution"):
        return None
    key = _grade_id(cell).split("-", 1)[-1]
    return key if key in known else None


NOT_A_NOTEBOOK = "not_a_notebook"


class SubmissionExporter(NotebookExporter):
    """nbconvert's NotebookExporter, except that a submitted file that is not a notebook is still graded.

    nbgrader reads each submission with nbformat; a file that is not one (broken JSON, a renamed PDF, an empty
    file) made autograde skip it, and the student had no row in the gradebook.  Here such a file is graded as
    the released notebook with nothing written in it, and its notebook metadata keeps the reason
    (``metadata.kgslab.not_a_notebook``): every exercise scores 0 with "not a notebook: ..." as its verdict
    (`GradeOutsideKernel`) and as the instructor's comment (`FlagsForTheInstructor`).
    """

    def from_filename(self, filename, resources=None, **kw):
        try:
            with open(filename, encoding="utf-8") as stream:
                nbformat.read(stream, as_version=4)
        except Exception as error:  # noqa: BLE001 -- whatever is wrong with the file, the student gets a row
            return self.from_notebook_node(self._stand_in(filename, resources, error), resources, **kw)
        return super().from_filename(filename, resources, **kw)

    def _stand_in(self, filename, resources, error):
        """The released notebook (or an empty one), marked with why the submission could not be read."""
        info = (resources or {}).get("nbgrader", {})
        converter, notebook = self.parent, None
        try:
            released = converter.coursedir.format_path(converter.coursedir.release_directory, ".",
                                                       info["assignment"])
            with open(f"{released}/{info['notebook']}.ipynb", encoding="utf-8") as stream:
                notebook = nbformat.read(stream, as_version=4)
        except Exception:  # noqa: BLE001 -- no released copy here: nbgrader puts the grade cells back itself
            notebook = nbformat.v4.new_notebook()
        reason = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"[:300]
        notebook.metadata.setdefault("kgslab", {})[NOT_A_NOTEBOOK] = \
            f"the submitted file {filename.rsplit('/', 1)[-1]} could not be read as a notebook ({reason})"
        self.log.warning("kgslab: %s is not a notebook (%s); graded as the released notebook, left blank",
                         filename, reason)
        return notebook


class RestoreDeletedCells(OverwriteCells):
    """nbgrader's OverwriteCells, with deleted grade cells put back after the nearest cell that is still there.

    nbgrader's own ``add_missing_cells`` puts a deleted grade cell after the
    source cell just before it, which it assumes is a solution or grade cell;
    a kgslab test cell follows its locked check cell, so nbgrader 0.9 stops with
    a KeyError.  Here the anchor is the nearest earlier source cell that the
    submission still has (any cell with nbgrader metadata), or the top.
    """

    def add_missing_grade_cells(self, nb, resources):
        source = self.gradebook.find_notebook(self.notebook_id, self.assignment_id)
        names = [cell.name for cell in source.source_cells]
        solutions = {cell.name for cell in source.solution_cells}
        for grade_cell in source.grade_cells:
            present = {_grade_id(cell): index for index, cell in enumerate(nb.cells) if _grade_id(cell)}
            if grade_cell.name in present:
                continue
            self.log.warning("kgslab: grade cell %s was deleted; putting it back", grade_cell.name)
            position = names.index(grade_cell.name)
            anchors = [present[name] for name in names[:position] if name in present]
            restored = self.missing_cell_transform(source.source_cells[position], grade_cell.max_score,
                                                   is_solution=grade_cell.name in solutions)
            nb.cells.insert(anchors[-1] + 1 if anchors else 0, restored)
        return nb, resources


class ClientWithoutHeartbeat(AsyncKernelClient):
    """A kernel client that opens no heartbeat channel: a kernel that writes on its own sockets could leave the
    heartbeat's thread waiting for ever, and with it nbclient's clean-up (whether the kernel lives is asked of its
    process instead)."""

    def start_channels(self, shell=True, iopub=True, stdin=True, hb=True, control=True):
        super().start_channels(shell=shell, iopub=iopub, stdin=stdin, hb=False, control=control)


class ConfinedKernelManager(AsyncKernelManager):
    """The kernel manager of a graded submission: its kernel is `kgslab.check.graded_kernel`, confined before it
    starts, in a folder of its own; `end` kills its process group (all it started) and removes the folder."""

    client_class = "kgslab.grader.ClientWithoutHeartbeat"

    def format_kernel_cmd(self, extra_arguments=None):
        if not getattr(self, "home", None):
            self.home = tempfile.mkdtemp(prefix="kgslab-kernel-")
        return [sys.executable, "-m", "kgslab.check.graded_kernel", "--home", self.home,
                "-f", os.path.realpath(self.connection_file), *(extra_arguments or [])]

    async def start_kernel(self, **kwargs):
        await super().start_kernel(**kwargs)
        self.group = getattr(self.provisioner, "pgid", None) or getattr(self.provisioner, "pid", None)

    def end(self) -> None:
        group = getattr(self, "group", None)
        if group:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(group, signal.SIGKILL)
        if getattr(self, "home", None):
            shutil.rmtree(self.home, ignore_errors=True)


class ExecuteAndCarryOn(Execute):
    """nbgrader's Execute in a confined kernel (`ConfinedKernelManager`), except that a kernel that dies or a cell
    that times out does not drop the submission: the grade is decided afterwards, outside the kernel, so it can
    still be given.  Whatever the kernel started ends with it."""

    def preprocess(self, nb, resources, *args, **kwargs):
        self.kernel_manager_class = ConfinedKernelManager
        managers = []
        original = self.create_kernel_manager

        def create_kernel_manager():
            manager = original()
            managers.append(manager)
            return manager

        self.create_kernel_manager = create_kernel_manager
        cells = sum(cell.cell_type == "code" for cell in nb.cells)
        try:
            with _deadline((self.timeout or 60) * (cells + 2) + self.startup_timeout + 60):
                return super().preprocess(nb, resources, *args, **kwargs)
        except Exception as err:  # noqa: BLE001 -- CellTimeoutError, DeadKernelError, a stuck clean-up, ...
            self.log.warning("kgslab: the submission's kernel did not finish (%s); grading outside it", err)
            return nb, resources
        finally:
            for manager in managers:
                manager.end()


class _StuckKernel(Exception):
    """The notebook's run outlasted every cell's time limit together (a client left waiting on a kernel)."""


@contextlib.contextmanager
def _deadline(seconds: float):
    """Raise _StuckKernel in this (main) thread after `seconds`: the run of one submission never holds up the
    next.  Elsewhere (another thread) nothing is armed."""
    import threading

    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def expired(signum, frame):
        raise _StuckKernel(f"the kernel's run took more than {seconds:.0f} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class GradeOutsideKernel(NbGraderPreprocessor):
    """Write each autograded test cell's outcome from a verdict computed outside the student's kernel."""

    secret = Unicode("", help="The course's secret, from which the hidden grading cases are drawn.").tag(config=True)
    time_limit = Float(20.0, help="Seconds one exercise's function may take over all its grading cases.").tag(
        config=True)

    def preprocess(self, nb, resources):
        from kgslab import check
        from kgslab.check import sandbox, submission

        info = resources["nbgrader"]
        with Gradebook(info["db_url"]) as gradebook:
            source = gradebook.find_notebook(info["notebook"], info["assignment"])
            sources = [cell.source for cell in source.source_cells]
        functions = submission.exercise_functions(sources)
        known = check.exercises()
        verdicts = resources.setdefault("kgslab", {}).setdefault("verdicts", {})
        unreadable = nb.metadata.get("kgslab", {}).get(NOT_A_NOTEBOOK)
        if unreadable:
            self._not_a_notebook(nb, functions, known, verdicts, unreadable)
            return nb, resources
        with sandbox.session():                   # one fork server for this submission (a fork of the zygote)
            self._grade_cells(nb, functions, known, verdicts, info)
        return nb, resources

    def _not_a_notebook(self, nb, functions, known, verdicts, reason):
        """Every test cell scores 0, its verdict the reason the submission could not be read."""
        verdict = f"not a notebook: {reason}"
        for cell in nb.cells:
            key = _exercise_key(cell, known)
            if key is None:
                continue
            max_points = float(cell.metadata["nbgrader"].get("points", 0))
            cell.metadata.setdefault("kgslab", {})["verdict"] = {
                "exercise": key, "passed": False, "points": 0.0, "max_points": max_points, "cases_failed": [],
                "mistakes": [{"case": "the submitted file", "mistake": "not-a-notebook", "words": verdict}]}
            cell.outputs = [new_output("error", ename="AssertionError", evalue=verdict,
                                       traceback=[f"Graded outside your notebook's kernel: {verdict}"])]
            verdicts[key] = {"passed": False, "verdict": verdict, "function": functions.get(key, key),
                             "definitions": [], "confinement": {}, "notes": [verdict]}

    def _grade_cells(self, nb, functions, known, verdicts, info):
        """Grade each test cell in notebook order; then again any that failed while another exercise it may call
        had not yet been graded and then failed too (it now gets that exercise's fall-back)."""
        from kgslab.check import submission

        graded, order, unknown_then = {}, [], {}
        for index, cell in enumerate(nb.cells):
            key = _exercise_key(cell, known)
            if key is None:
                continue
            if key not in functions:
                self.log.warning("kgslab: no check cell for %s in the source notebook; left as executed", key)
                continue
            earlier = [c.source for c in nb.cells[:index] if c.cell_type == "code"]
            unknown_then[key] = {other for other in functions if other != key and other not in graded}
            graded[key] = self._confined_verdict(known[key], functions, key, earlier, info.get("student", ""), graded)
            order.append((index, cell, key, earlier))
        failed = {key for key, (judged, _) in graded.items() if not judged.passed}
        for index, cell, key, earlier in order:
            if key in failed and unknown_then[key] & failed:
                graded[key] = self._confined_verdict(known[key], functions, key, earlier, info.get("student", ""),
                                                     graded)
        for index, cell, key, earlier in order:
            judged, confinement = graded[key]
            passed, verdict = judged.passed, _shown(judged)
            verdicts[key] = {"passed": passed, "verdict": verdict, "function": functions[key],
                             "definitions": submission.definitions(earlier), "confinement": confinement}
            max_points = float(cell.metadata["nbgrader"].get("points", 0))
            cell.metadata.setdefault("kgslab", {})["verdict"] = {
                **judged.metadata(max_points if passed else 0.0, max_points), "exercise": key}
            cell.outputs = [] if passed else [new_output(
                "error", ename="AssertionError", evalue=verdict.splitlines()[0],
                traceback=[f"Graded outside your notebook's kernel: {verdict}"])]
            self.log.info("kgslab: %s %s", key, "passed" if passed else "not passed")
            missing = [f"{name}: {state[5:]}" for name, state in confinement.items() if str(state).startswith("off")]
            if missing:
                self.log.warning("kgslab: %s graded with defences off: %s", key, "; ".join(missing))

    def _verdict(self, exercise, functions, key, earlier_sources, student):
        """(passed, the verdict's text) of the submission's function for `key`: public cases, then hidden ones."""
        judged = self._graded(exercise, functions, key, earlier_sources, student)
        return judged.passed, _shown(judged)

    def _graded(self, exercise, functions, key, earlier_sources, student, graded=None):
        """The check's `Verdict` on the submission's function for `key`: public cases, then hidden ones."""
        return self._confined_verdict(exercise, functions, key, earlier_sources, student, graded or {})[0]

    def _confined_verdict(self, exercise, functions, key, earlier_sources, student, graded):
        """(the check's `Verdict` on the submission's function: public cases, then hidden ones; the confinement
        the child reported).

        `graded` holds the verdicts of the exercises graded so far: those that did not pass are the kit's
        fall-backs in the child (computed here, on the child's request); every other function is the student's.
        """
        from kgslab import check
        from kgslab.check import fallback, hidden, plain, sandbox, submission

        public = list(exercise.cases())
        specs = [{"public": index} for index in range(len(public))]
        secret_cases = []
        seed = hidden.grading_seed(self.secret, key, student)
        if self.secret:
            for case in hidden.hidden_cases(exercise, self.secret, student):
                try:
                    specs.append({"label": case.label,
                                  "args": plain.dumps([list(case.args), case.kwargs], kit_objects=True)})
                except plain.Unsendable:
                    continue                  # a case of objects that are neither plain nor the kit's: public only
                secret_cases.append(case)
        others = {functions[other]: other for other, (judged, _) in graded.items()
                  if other != key and not judged.passed and functions[other] != functions[key]}
        known = check.exercises()

        def serve(message, index):
            asked = message.get("key")
            if asked not in others.values():
                return fallback.refused_fallback(asked, known)
            with hidden.reseeded(seed) if "args" in specs[min(index, len(specs) - 1)] else contextlib.nullcontext():
                return fallback.serve_reference(known[asked], message)

        request = {"key": key, "function": functions[key], "others": others,
                   "definitions": submission.definitions(earlier_sources), "cases": specs, "reseed": seed,
                   "syntax_error": submission.syntax_error(earlier_sources, functions[key])}
        greeting: dict = {}
        outcomes = sandbox.run_sandboxed(request, self.time_limit, serve=serve, greeting=greeting)
        confinement = greeting.get("confinement") or {"child": "off: the child never said it was confined"}
        judged = self._judge(exercise, functions[key], public, outcomes[:len(public)])
        if judged.passed and secret_cases:
            with hidden.reseeded(seed):
                judged = self._judge(exercise, functions[key], secret_cases, outcomes[len(public):])
        return judged, confinement

    def _judge(self, exercise, name, cases, outcomes):
        """The check's own `Verdict` on outcomes computed elsewhere (nothing printed, nothing recorded)."""
        from kgslab.check import verdicts

        def placeholder(*args, **kwargs):
            raise AssertionError("graded from outcomes")

        placeholder.__name__ = name
        return verdicts.judge(exercise.title, placeholder, exercise._reference, cases, compare=exercise.compare,
                              hint="", key=None, time_limit=self.time_limit, closed=exercise._closed,
                              outcomes=outcomes or [{"kind": "crashed"}])


def _shown(verdict) -> str:
    """The verdict's text as the test cell shows it: without the note on the kit's fall-back (no kernel runs on)."""
    return "\n".join(line for line in verdict.text.strip().splitlines() if "reference implementation" not in line)


class FlagsForTheInstructor(NbGraderPreprocessor):
    """After SaveAutoGrades: the gradebook comment of each flagged exercise says what the grader noticed."""

    def preprocess(self, nb, resources):
        from kgslab.check import flags

        info = resources["nbgrader"]
        verdicts = resources.get("kgslab", {}).get("verdicts", {})
        released = self._released_sources(info)
        students_cells = [cell.source for cell in nb.cells if cell.cell_type == "code"
                          and not cell.metadata.get("nbgrader", {}).get("locked")
                          and cell.source.strip() not in released]
        in_notebook = [f"the notebook {note}" for note in flags.notebook_flags(students_cells)]
        with Gradebook(info["db_url"]) as gradebook:
            for key, found in verdicts.items():
                notes = list(found.get("notes", [])) + flags.flags(found["definitions"], found["function"], key) \
                    + in_notebook
                missing = [f"{name} {state}" for name, state in found.get("confinement", {}).items()
                           if str(state).startswith("off")]
                if missing:
                    notes.append("graded with defences off: " + "; ".join(missing))
                if not notes:
                    continue
                text = f"kgslab flags {found['function']} ({key}): " + "; ".join(notes)
                self.log.warning("kgslab: %s", text)
                comment_cell = self._solution_cell(nb, found["function"])
                if comment_cell is None:
                    continue
                comment = gradebook.find_comment(comment_cell, info["notebook"], info["assignment"],
                                                 info["student"])
                comment.auto_comment = "\n".join(filter(None, [comment.auto_comment, text]))
                gradebook.db.commit()
        return nb, resources

    def _released_sources(self, info) -> set:
        """The code cells of the released notebook, as the student received them: code the student did not write
        (the notebook's own plotting, its settings) is no finding of theirs."""
        try:
            from nbgrader.coursedir import CourseDirectory

            course = CourseDirectory(config=self.config)
            folder = course.format_path(course.release_directory, ".", info["assignment"])
            with open(f"{folder}/{info['notebook']}.ipynb", encoding="utf-8") as stream:
                released = nbformat.read(stream, as_version=4)
        except Exception:  # noqa: BLE001 -- no released copy here: every unlocked cell is looked at
            return set()
        return {cell.source.strip() for cell in released.cells if cell.cell_type == "code"}

    @staticmethod
    def _solution_cell(nb, function):
        """The grade_id of the solution cell that defines `function` (where nbgrader keeps comments)."""
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if cell.cell_type == "code" and meta.get("solution") and f"def {function}(" in cell.source:
                return meta.get("grade_id")
        return None

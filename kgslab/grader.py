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

from nbformat.v4 import new_output

try:
    from traitlets import Float, Unicode                 # nbgrader's configuration system
    from nbgrader.api import Gradebook
    from nbgrader.preprocessors import Execute, NbGraderPreprocessor, OverwriteCells
except ModuleNotFoundError as missing:      # students never need it: grading happens on the instructor's side
    raise ModuleNotFoundError("kgslab.grader runs inside nbgrader, on the instructor's side: pip install nbgrader "
                              "(the kit's test extra has it)") from missing

__all__ = ["GradeOutsideKernel", "ExecuteAndCarryOn", "FlagsForTheInstructor", "RestoreDeletedCells"]


def _grade_id(cell) -> str:
    return cell.metadata.get("nbgrader", {}).get("grade_id", "") or ""


def _exercise_key(cell, known) -> str | None:
    """The exercise a test cell grades: its grade_id is ``<notebook>-<key>`` (python -m kgslab.release --tag)."""
    meta = cell.metadata.get("nbgrader", {})
    if cell.cell_type != "code" or not meta.get("grade") or meta.get("solution"):
        return None
    key = _grade_id(cell).split("-", 1)[-1]
    return key if key in known else None


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


class ExecuteAndCarryOn(Execute):
    """nbgrader's Execute, except that a kernel that dies or a cell that times out does not drop the submission:
    the grade is decided afterwards, outside the kernel, so it can still be given."""

    def preprocess(self, nb, resources, *args, **kwargs):
        try:
            return super().preprocess(nb, resources, *args, **kwargs)
        except Exception as err:  # noqa: BLE001 -- CellTimeoutError, DeadKernelError, ...
            self.log.warning("kgslab: the submission's kernel did not finish (%s); grading outside it", err)
            return nb, resources


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
        with sandbox.session():                   # one fork server for this submission (a fork of the zygote)
            self._grade_cells(nb, functions, known, verdicts, info)
        return nb, resources

    def _grade_cells(self, nb, functions, known, verdicts, info):
        from kgslab.check import submission

        for index, cell in enumerate(nb.cells):
            key = _exercise_key(cell, known)
            if key is None:
                continue
            if key not in functions:
                self.log.warning("kgslab: no check cell for %s in the source notebook; left as executed", key)
                continue
            earlier = [c.source for c in nb.cells[:index] if c.cell_type == "code"]
            judged = self._graded(known[key], functions, key, earlier, info.get("student", ""))
            passed, verdict = judged.passed, _shown(judged)
            verdicts[key] = {"passed": passed, "verdict": verdict, "function": functions[key],
                             "definitions": submission.definitions(earlier)}
            max_points = float(cell.metadata["nbgrader"].get("points", 0))
            cell.metadata.setdefault("kgslab", {})["verdict"] = {
                **judged.metadata(max_points if passed else 0.0, max_points), "exercise": key}
            cell.outputs = [] if passed else [new_output(
                "error", ename="AssertionError", evalue=verdict.splitlines()[0],
                traceback=[f"Graded outside your notebook's kernel: {verdict}"])]
            self.log.info("kgslab: %s %s", key, "passed" if passed else "not passed")

    def _verdict(self, exercise, functions, key, earlier_sources, student):
        """(passed, the verdict's text) of the submission's function for `key`: public cases, then hidden ones."""
        judged = self._graded(exercise, functions, key, earlier_sources, student)
        return judged.passed, _shown(judged)

    def _graded(self, exercise, functions, key, earlier_sources, student):
        """The check's `Verdict` (kgslab.check.core) on the submission's function: public cases, then hidden ones."""
        from kgslab.check import hidden, plain, sandbox, submission

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
        others = {name: other for other, name in functions.items() if other != key and name != functions[key]}
        request = {"key": key, "function": functions[key], "others": others,
                   "definitions": submission.definitions(earlier_sources), "cases": specs, "reseed": seed}
        outcomes = sandbox.run_sandboxed(request, self.time_limit)
        judged = self._judge(exercise, functions[key], public, outcomes[:len(public)])
        if judged.passed and secret_cases:
            with hidden.reseeded(seed):
                judged = self._judge(exercise, functions[key], secret_cases, outcomes[len(public):])
        return judged

    def _judge(self, exercise, name, cases, outcomes):
        """The check's own `Verdict` on outcomes computed elsewhere (nothing printed, nothing recorded)."""
        from kgslab.check import core

        def placeholder(*args, **kwargs):
            raise AssertionError("graded from outcomes")

        placeholder.__name__ = name
        return core.judge(exercise.title, placeholder, exercise._reference, cases, compare=exercise.compare, hint="",
                          key=None, time_limit=self.time_limit, closed=exercise._closed,
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
        students_cells = [cell.source for cell in nb.cells if cell.cell_type == "code"
                          and not cell.metadata.get("nbgrader", {}).get("locked")]
        in_notebook = [f"the notebook {note}" for note in flags.notebook_flags(students_cells)]
        with Gradebook(info["db_url"]) as gradebook:
            for key, found in verdicts.items():
                notes = flags.flags(found["definitions"], found["function"], key) + in_notebook
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

    @staticmethod
    def _solution_cell(nb, function):
        """The grade_id of the solution cell that defines `function` (where nbgrader keeps comments)."""
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if cell.cell_type == "code" and meta.get("solution") and f"def {function}(" in cell.source:
                return meta.get("grade_id")
        return None

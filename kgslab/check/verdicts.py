"""A check's verdict on the student's function: `judge` reads the outcome of each case, `run_exercise` prints it.

The verdict is one of

* not attempted yet (the function still raises NotImplementedError),
* still open (the check was handed the kit's fall-back, not the student's code),
* a run that ended at a case: a closed reference called, the time limit, the checker's channel written to, the
  process ended, the memory limit, an error, a result the check cannot read, an input changed in place,
* wrong results, every one reported with the expected and received values summarised and the known mistake it
  matches in words (`values.diagnose`),
* correct on every case.

A failed verdict ends with the conceptual hint, the way to ask for the code-level one (never while nbgrader
grades), and the fall-back it hands back, so the rest of the notebook runs.  `judge` returns the `Verdict` as data
and prints nothing; `run_exercise` prints it and keeps the check's last run (`records.LAST_RUNS`).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Callable

from . import closed as _closed
from . import fallback, plain
from .cases import Case, non_negative, require
from .records import LAST_RUNS, LastRun, Verdict
from .running import PRINTED_LINES_SHOWN, WARNING_MARK, student_outcomes
from .time_limit import grading_mode, limit_in_force
from .values import Problem, allclose, as_problem, compare_on, describe_type, diagnose

__all__ = ["judge", "run_exercise"]

FALLBACK_NOTE = "  -> Using the kit's reference implementation for now, so the rest of the notebook runs."


def judge(title: str, student: Callable, reference: Callable, cases: list[Case], *,
          compare: Callable | None = None, hint: str = "", key: str | None = None, time_limit: float | None = None,
          code_hint: bool = False, closed=(), outcomes: list[dict] | None = None) -> Verdict:
    """Check `student` against `reference` on `cases` and return the `Verdict` (nothing printed, nothing recorded).

    The arguments are `run_exercise`'s.  Every case that returned is compared (every failing one is reported);
    the first case that did not return (an error, a time-out, ...) ends the run, as it ends the student's calls.
    """
    _check_arguments(title, reference, cases, compare, hint, key, code_hint, time_limit)
    compare = compare or allclose()
    closed = frozenset(closed) | ({_closed.closed_name(reference)} - {None})
    time_limit = limit_in_force() if time_limit is None else time_limit
    if not callable(student):
        return _not_a_function(title, key, student, reference)
    name = getattr(student, "__name__", "your function")
    if fallback.is_kit_reference(student, reference):
        return _still_open(title, key, name, student, reference)
    draft = _Draft(title, key, name, fallback.reference_fallback(reference, name, key),
                   _failed_tail(hint, key, code_hint))
    if outcomes is None:
        outcomes = student_outcomes(student, cases, reference, time_limit, closed, key)
    for number, (case, outcome) in enumerate(zip(cases, outcomes), start=1):
        where = f"on test {number} ({case.label})"
        draft.shown.extend(printed_summary(outcome.get("printed", "")))
        if outcome["kind"] == "blank":
            return _not_attempted(draft, cases, case)
        ended = _run_ended(draft, case, outcome, where, time_limit)
        if ended is not None:
            return ended
        problem = _wrong_result(case, outcome, reference, compare)
        if problem is not None:
            draft.wrong.append((where, case.label, problem))
    return _after_every_case(draft, student, len(cases))


def run_exercise(title: str, student: Callable, reference: Callable, cases: list[Case], *,
                 compare: Callable[[Any, Any], str | None] | None = None, hint: str = "",
                 key: str | None = None, time_limit: float | None = None,
                 code_hint: bool = False, closed=(), outcomes: list[dict] | None = None) -> Callable:
    """Check `student` against `reference` on `cases`; print a verdict; return the function to use.

    `hint` is the conceptual hint printed on a failure; `code_hint` says that a
    code-level hint exists for `key` (the verdict then says how to ask for it).
    `key` names the exercise for grading (its last run, which keeps the structured
    `Verdict`); `time_limit` overrides the limit in seconds for the student's calls
    over all cases; `closed` are the dotted names of the kit functions the
    student's function may not call (`kgslab.check.closed`).  `outcomes`, when
    given, are the student's outcomes already computed elsewhere (the grader's
    child process), one per case as `running.run_one_case` writes them; the student's
    function is then not called.  `compare(expected, got)` (or with ``case=``)
    returns None, a sentence, or a `Problem`; a case's declared `Mistake`s name
    what a wrong result matches.  `judge` returns the same verdict as data.
    """
    found = judge(title, student, reference, cases, compare=compare, hint=hint, key=key, time_limit=time_limit,
                  code_hint=code_hint, closed=closed, outcomes=outcomes)
    print(found.text)
    if key is not None:
        LAST_RUNS[key] = LastRun(title, student if found.passed else None, found.passed, found.text, found)
    return found.result


def _check_arguments(title, reference, cases, compare, hint, key, code_hint, time_limit) -> None:
    """A clear error for a check written wrongly (the kit's own code, never the student's)."""
    require(isinstance(title, str), "title", "the exercise's title (str)", title)
    require(callable(reference), "reference", "the kit's reference function", reference)
    require(isinstance(cases, (list, tuple)) and bool(cases) and all(isinstance(case, Case) for case in cases),
            "cases", "a non-empty list of Case", cases)
    require(compare is None or callable(compare), "compare", "None or a function compare(expected, got)", compare)
    require(isinstance(hint, str), "hint", "a sentence (str)", hint)
    require(key is None or isinstance(key, str), "key", "None or the exercise's name (str)", key)
    require(isinstance(code_hint, bool), "code_hint", "True or False", code_hint)
    if time_limit is not None and non_negative(time_limit, "time_limit") == 0:
        raise ValueError("time_limit must be > 0 seconds, got 0")


def _failed_tail(hint: str, key: str | None, code_hint: bool) -> str:
    """What follows a failed verdict: the conceptual hint, how to ask for the code-level one, the fall-back."""
    ask = (f"  For a code-level hint run check.hint(\"{key}\")." if code_hint and key and not grading_mode()
           else "")
    return "\n".join(filter(None, [f"  Hint: {hint}" if hint else "", ask, FALLBACK_NOTE]))


@dataclass
class _Draft:
    """The verdict on one student function while `judge` reads its outcomes case by case: the printed lines shown
    so far, the wrong results found, and what a failed verdict hands back (`fallback`) and ends with (`tail`)."""

    title: str
    key: str | None
    name: str
    fallback: Callable
    tail: str
    shown: list[str] = field(default_factory=list)
    wrong: list[tuple[str, str, Problem]] = field(default_factory=list)     # (where, case label, problem)

    def verdict(self, status: str, summary: str, result: Callable, failed_cases=(), found=(),
                tail: str = "") -> Verdict:
        text = "\n".join(self.shown + [f"{self.title}: {summary}" + (f"\n{tail}" if tail else "")])
        return Verdict(self.key, self.title, status, summary.splitlines()[0], text, list(failed_cases), list(found),
                       result)

    def stop(self, summary: str, case: Case, mistake: str, tail: str | None = None) -> Verdict:
        """The run ended at `case` (`mistake` names how); the wrong results before it are reported too."""
        if self.wrong:
            summary = f"{summary}\n" + "\n".join(wrong_lines(self.wrong))
        found = [{"case": label, "mistake": p.mistake, "words": p.words or p.text} for _, label, p in self.wrong]
        found.append({"case": case.label, "mistake": mistake, "words": summary.splitlines()[0]})
        return self.verdict("failed", summary, self.fallback, [label for _, label, _ in self.wrong] + [case.label],
                            found, self.tail if tail is None else tail)


def _not_a_function(title: str, key: str | None, student, reference: Callable) -> Verdict:
    summary = f"✘ expected a function, got {describe_type(student)}."
    return Verdict(key, title, "failed", summary, f"{title}: {summary}\n{FALLBACK_NOTE}", [], [],
                   fallback.reference_fallback(reference, "the reference", key))


def _still_open(title: str, key: str | None, name: str, student, reference: Callable) -> Verdict:
    """A check handed the kit's fall-back (a re-run after a fall-back): the exercise is still open."""
    kit = student if getattr(student, "_kgslab_reference", None) else \
        fallback.reference_fallback(reference, name, key)
    summary = f"still open. {name} is the kit's reference (it fell back earlier), not your code."
    return Verdict(key, title, "open", summary,
                   f"{title}: {summary}\n  Run the cell that defines {name} again, then this cell.", [], [], kit)


def _not_attempted(draft: _Draft, cases: list[Case], case: Case) -> Verdict:
    """The function still raises NotImplementedError (on `case`): every case counts as failed, and that is fine."""
    return draft.verdict("blank", f"not attempted yet ({draft.name} still raises NotImplementedError).",
                         draft.fallback, [each.label for each in cases],
                         [{"case": case.label, "mistake": "not-attempted", "words": "not attempted yet"}],
                         f"  That's fine: write {draft.name} above and run this cell again when you are ready.\n"
                         f"{FALLBACK_NOTE}")


def _over_memory(case: Case, outcome: dict) -> bool:
    """Stopped at the limit, or returned with a peak over it: the peak after return decides, since the early stop
    can be swallowed by a bare ``except:`` (`memory_limit`)."""
    peak = outcome.get("peak_mb")
    return outcome["kind"] == "memory" or outcome["kind"] == "returned" and case.memory_limit is not None and \
        peak is not None and peak > case.memory_limit and not outcome.get("changed")


def _run_ended(draft: _Draft, case: Case, outcome: dict, where: str, time_limit: float) -> Verdict | None:
    """The verdict of a case that ended the run (anything but a readable result on unchanged inputs), else None."""
    name, kind, got = draft.name, outcome["kind"], outcome.get("value")
    if kind == "closed":
        return draft.stop(f"✘ {name} called `{got}` {where}: that is this exercise's reference (or computes the same "
                          f"answer), closed while your function runs. Write it yourself.", case, "closed")
    if kind == "timeout":
        return draft.stop(f"✘ {name} did not finish within the time limit of {time_limit:g} s {where}: an endless "
                          f"loop? The cases are small; a correct function takes well under a second.", case,
                          "time-limit")
    if kind == "garbled":
        return draft.stop(f"✘ {name} wrote something other than its result on the checker's own channel {where} "
                          f"({str(got)[:60]!r}): what a function prints is captured, but a file descriptor of the "
                          f"checker's is not its to write.", case, "garbled")
    if kind == "crashed":
        return draft.stop(f"✘ {name} ended the Python process {where} (os._exit, or a crash in C code).", case,
                          "crashed")
    if _over_memory(case, outcome):
        limit = case.memory_limit or 0.0
        peak = outcome.get("peak_mb")
        peak = float(peak if peak is not None else limit)
        return draft.stop(f"✘ {name} allocated {peak:.0f} MB {where}, more than the {limit:g} MB this case "
                          f"needs: a matrix with a column for every word of the vocabulary should be sparse (only "
                          f"its non-zero entries stored).", case, "memory")
    if kind == "raised":
        error, message = got
        what = {"SystemExit": "called sys.exit() or exit() (SystemExit)",
                "KeyboardInterrupt": "was interrupted (KeyboardInterrupt)"}.get(error) or f"raised {error}"
        detail = f": {message}" if message and error != "SystemExit" else ""
        return draft.stop(f"✘ {name} {what} {where}{detail}", case, "raised")
    if kind == "unreadable":
        return draft.stop(f"✘ {name} returned {got} {where}, which the check cannot read: return numbers, numpy "
                          f"arrays, strings, or tuples and lists of them.", case, "wrong-type")
    if outcome["changed"]:
        names = ", ".join(f"`{argument}`" for argument in outcome["changed"])
        return draft.stop(f"✘ {name} changed its input {names} in place {where}. The caller's data must stay as it "
                          f"was: work on a copy (e.g. K = K.copy()) or build a new array (K = K / ... rather than "
                          f"K /= ...).", case, "changed-input", tail=FALLBACK_NOTE)
    return None


def _wrong_result(case: Case, outcome: dict, reference: Callable, compare: Callable) -> Problem | None:
    """What is wrong with a returned result against the reference's on a fresh copy of the case, or None."""
    got = plain.loads(outcome["value"])
    args, kwargs = copy.deepcopy((case.args, case.kwargs))
    expected = reference(*args, **kwargs)
    problem = as_problem(compare_on(compare, expected, got, case))
    return None if problem is None else diagnose(case, expected, got, compare, problem)


def _after_every_case(draft: _Draft, student: Callable, n_cases: int) -> Verdict:
    """Every case returned: correct on all of them, or every wrong result reported."""
    wrong = draft.wrong
    if not wrong:
        tests = {1: "the test", 2: "both tests"}.get(n_cases, f"all {n_cases} tests")
        return draft.verdict("passed", f"✔ correct on {tests}. Using your {draft.name}.", student)
    found = [{"case": label, "mistake": p.mistake, "words": p.words or p.text.splitlines()[0]}
             for _, label, p in wrong]
    if len(wrong) == 1:
        summary = f"✘ not yet right {wrong[0][0]}: " + "\n".join(wrong_lines(wrong, single=True))
    else:
        summary = f"✘ not yet right on {len(wrong)} of the {n_cases} tests:\n" + "\n".join(wrong_lines(wrong))
    return draft.verdict("failed", summary, draft.fallback, [label for _, label, _ in wrong], found, draft.tail)


def wrong_lines(wrong, single: bool = False) -> list[str]:
    """Every wrong result, each with the words of the mistake it matches (the one place they are formatted)."""
    lines = []
    for where, _, problem in wrong:
        lines.extend((problem.text if single else f"  {where}: {problem.text}").splitlines())
        if problem.words:
            lines.append(f"  What it looks like: {problem.words}")
    return lines


def printed_summary(text: str) -> list[str]:
    """What the function printed and the warnings it raised, in a few lines (first lines and a count)."""
    warned = [line[len(WARNING_MARK):] for line in text.splitlines() if line.startswith(WARNING_MARK)]
    lines = [line for line in text.splitlines() if not line.startswith(WARNING_MARK)]
    said = [f"  Your function raised a warning: {line[:160]}" for line in dict.fromkeys(warned)]
    if not lines:
        return said
    shown = [f"  | {line[:120]}" for line in lines[:PRINTED_LINES_SHOWN]]
    more = f" (first {PRINTED_LINES_SHOWN} shown)" if len(lines) > PRINTED_LINES_SHOWN else ""
    return said + [f"  Your function printed {len(lines)} line{'s' if len(lines) != 1 else ''}{more}:"] + shown

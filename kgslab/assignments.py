"""Build an nbgrader course directory from solutions/, or bring an existing one up to date (``make assignments``).

    python -m kgslab.assignments [COURSE_DIR] [--only 01,07] [--exchange DIR] [--force]

writes COURSE_DIR (default ``course/``) with

* ``source/NN_topic/NN_topic.ipynb``: each solution notebook as an nbgrader
  source (its grading metadata, points and locked test cells come from
  ``python -m kgslab.release --tag``), without its ``solution-only`` cells
  (worked answers' follow-ups) and without anything running it left: no
  output, no execution count, no saved widget state (the solution's slider
  values and numbers).  nbgrader copies a source's notebook metadata into the
  students' release, so this is where they are removed, as the kit's own
  release (`kgslab.release.clear_outputs`) removes them; the instructor reads
  the outputs in solutions/;
* ``nbgrader_config.py``: between the lines ``# >>> kgslab course settings``
  and ``# <<< kgslab course settings``, the course id, the solution stubs the
  kit uses, a cell time-out long enough for the paper-sized cells, kgslab's
  grading preprocessors (`kgslab.grader`: the grade is decided outside the
  student's kernel), the feedback's figures and code (`kgslab.feedback`: under
  500 KB a notebook, alt text on every figure), the exchange (``--exchange``)
  and the course's secret for the hidden grading cases.  The file is readable
  by its owner only.

Running it again on an existing course merges: only the kit's block of
nbgrader_config.py is rewritten (your own lines before and after it are kept;
a setting of yours after the block overrides the block's), the course's secret
and exchange are kept, and a source notebook is rewritten only when it is the
kit's earlier version.  A config file without the kit's block (written by hand
or by an older kit) or a source notebook you edited is refused, naming it;
``--force`` replaces it after keeping the old one as ``NAME.bak`` (``.bak1``
...).  After rebuilding, ``nbgrader generate_assignment NN_topic --force``
regenerates a release (README, "Re-releasing a corrected assignment").

Data are found through the installed kgslab package, so nothing else is
copied.  Then, from COURSE_DIR: ``nbgrader generate_assignment 01_duality``,
``nbgrader release_assignment``, ``nbgrader collect``, ``nbgrader autograde``,
``nbgrader generate_feedback``, ``nbgrader export`` (README, "For instructors").
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import secrets
import shutil
import sys
from pathlib import Path

import nbformat

from ._validation import as_bool, as_path
from .release import (SOLUTIONS, ReleaseError, solution_sources, clear_outputs, drop_solution_only, read_notebook,
                      release_notebook, render)

COURSE_ID = "kgslab"
CELL_TIMEOUT = 600

BLOCK_BEGIN = "# >>> kgslab course settings: python -m kgslab.assignments rewrites this block; add yours after it >>>"
BLOCK_END = "# <<< kgslab course settings <<<"
_BEGIN_PREFIX = "# >>> kgslab course settings"

CONFIG = BLOCK_BEGIN + '''
c = get_config()  # noqa: F821
c.CourseDirectory.course_id = "{course_id}"
# The stubs kgslab's own release writes, so student copies look the same either way.
c.ClearSolutions.code_stub = {{"python": "# YOUR CODE HERE\\nraise NotImplementedError()"}}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
# Long enough for the paper-sized cells (benchmarks/notebooks.md times every notebook); it ends only a cell
# that hangs: each check limits a student's function on its own.
c.Execute.timeout = {timeout}
# A deleted test cell comes back (and scores from the grader's verdict), not "needs manual grade";
# kgslab.grader.RestoreDeletedCells puts it back after its check cell (nbgrader 0.9's own placement fails there).
c.OverwriteCells.add_missing_cells = True
# A submitted file that is not a notebook is graded as the released notebook left blank, with the reason as its
# verdict and comment, instead of getting no row (kgslab.grader.SubmissionExporter).
c.Autograde.exporter_class = "kgslab.grader.SubmissionExporter"
c.Autograde.sanitize_preprocessors = [
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "kgslab.grader.RestoreDeletedCells",
    "nbgrader.preprocessors.CheckCellMetadata",
]
# The grade is decided outside the student's kernel (kgslab.grader): after the notebook runs, each graded
# function is run again in a fresh, scrubbed child process on public and secret cases, and the test cell's
# outcome is written from that verdict; the instructor's comments flag code that reached for the grade.
c.Autograde.autograde_preprocessors = [
    "kgslab.grader.ExecuteAndCarryOn",
    "kgslab.grader.GradeOutsideKernel",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "kgslab.grader.FlagsForTheInstructor",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]
# What a student receives (kgslab.feedback): smaller figures with alt text (their titles), code without syntax
# colouring (its markup would be most of the page), so a notebook's feedback stays under 500 KB.
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
    "kgslab.feedback.FiguresForFeedback",
]
c.HTMLExporter.filters = {{"highlight_code": "kgslab.feedback.plain_code"}}
{exchange}# The secret the hidden grading cases are drawn from. It stays in this course directory: never release it.
c.GradeOutsideKernel.secret = "{secret}"
''' + BLOCK_END + "\n"

# What a new config file has after the block: where the instructor's own settings go.
YOURS = ("\n# Your own settings go below: rebuilding the course keeps them, and a setting here overrides the\n"
         "# block's (this file runs top to bottom).\n")

_SECRET_LINE = re.compile(r'^c\.GradeOutsideKernel\.secret = "([0-9a-f]+)"$', re.MULTILINE)
_EXCHANGE_LINE = re.compile(r'^c\.Exchange\.root = (".*")$', re.MULTILINE)
_HASH_KEY = "course_source_hash"


class CourseError(ValueError):
    """An existing course file that rebuilding would overwrite with the instructor's work in it."""


def _course_secret(config: Path) -> str:
    """The secret of an existing course (so rebuilding keeps its hidden cases), else a new one."""
    if config.exists():
        found = _SECRET_LINE.search(config.read_text(encoding="utf-8"))
        if found:
            return found.group(1)
    return secrets.token_hex(32)


def _split(text: str):
    """(before, after) the kit's block in a config file's text, or None when it has no (single, whole) block.

    before + block + after is the text again (the block ends with its newline)."""
    lines = text.split("\n")
    begins = [i for i, line in enumerate(lines) if line.startswith(_BEGIN_PREFIX)]
    ends = [i for i, line in enumerate(lines) if line.strip() == BLOCK_END]
    if len(begins) != 1 or len(ends) != 1 or ends[0] < begins[0]:
        return None
    before = "".join(line + "\n" for line in lines[:begins[0]])
    return before, "\n".join(lines[ends[0] + 1:])


def _exchange_lines(exchange, config: Path) -> str:
    """The exchange setting of the block: `exchange` (made absolute), else the existing block's, else none
    (nbgrader's default, or the instructor's own setting outside the block)."""
    if exchange is not None:
        value = json.dumps(str(Path(exchange).expanduser().resolve()))
    else:
        text = config.read_text(encoding="utf-8") if config.exists() else ""
        parts = _split(text)
        block = text[len(parts[0]):len(text) - len(parts[1])] if parts else ""
        found = _EXCHANGE_LINE.search(block)
        if not found:
            return ""
        value = found.group(1)
    return ("# Where release_assignment, fetch, submit and collect meet (the students' config must say the same).\n"
            f"c.Exchange.root = {value}\n")


def _backup(path: Path) -> Path:
    backup, number = path.with_name(path.name + ".bak"), 1
    while backup.exists():
        backup, number = path.with_name(f"{path.name}.bak{number}"), number + 1
    shutil.copy2(path, backup)
    return backup


def _as_course_dir(course_dir) -> Path:
    return as_path(course_dir, "course_dir")


def _as_exchange(exchange) -> Path | None:
    """None (keep the course's exchange setting, if any) or a folder."""
    return None if exchange is None else as_path(exchange, "exchange")


def _as_only(only, sources: list[Path]) -> list[Path]:
    """The solution notebooks that `only` names by prefix: None (all), a list of prefixes or "01,07".

    Every prefix must name at least one notebook: a typo builds nothing rather than less than asked."""
    if only is None:
        return sources
    if isinstance(only, str):
        prefixes = [part.strip() for part in only.split(",")]
    elif isinstance(only, (list, tuple)) and all(isinstance(part, str) for part in only):
        prefixes = [part.strip() for part in only]
    else:
        raise TypeError(f"only must be a list of notebook prefixes (str) or a comma-separated string such as "
                        f"'01,07', got {only!r:.60}")
    if not prefixes or any(not prefix for prefix in prefixes):
        raise ValueError(f"only must name notebooks by non-empty prefixes such as '01' (or be None for all), "
                         f"got {only!r:.60}")
    names = [path.stem for path in sources]
    unknown = [prefix for prefix in prefixes if not any(name.startswith(prefix) for name in names)]
    if unknown:
        raise ValueError(f"only names no solution notebook with {', '.join(map(repr, unknown))}; the notebooks are "
                         f"{', '.join(names)}")
    return [path for path in sources if any(path.stem.startswith(prefix) for prefix in prefixes)]


def write_config(course_dir: Path, *, exchange=None, force: bool = False) -> list[str]:
    """Write or merge COURSE_DIR/nbgrader_config.py; return what happened, one line each.

    Only the kit's block is rewritten; the lines before and after it are kept
    as they are.  A file without the block is refused (CourseError) unless
    `force`, which keeps it as nbgrader_config.py.bak first (its secret is kept).
    """
    course_dir, exchange, force = _as_course_dir(course_dir), _as_exchange(exchange), as_bool(force, "force")
    config = course_dir / "nbgrader_config.py"
    block = CONFIG.format(course_id=COURSE_ID, timeout=CELL_TIMEOUT, secret=_course_secret(config),
                          exchange=_exchange_lines(exchange, config))
    said = []
    if not config.exists():
        text = block + YOURS
    else:
        old = config.read_text(encoding="utf-8")
        parts = _split(old)
        if parts is None and not force:
            raise CourseError(f"{config} has no kgslab block (the lines '{_BEGIN_PREFIX} ...' and '{BLOCK_END}'): "
                              f"it was written by hand or by an older kit, and rebuilding would lose its settings. "
                              f"Re-run with --force to rewrite it (the old file is kept as {config.name}.bak, and "
                              f"its secret is kept), then copy your own settings from the backup to after the block")
        if parts is None:
            said.append(f"kept the old {config.name} as {_backup(config).name} (it had no kgslab block)")
            text = block + YOURS
        else:
            before, after = parts
            text = before + block + after
            if text == old:
                return [f"{config.name}: current"]
    config.write_text(text, encoding="utf-8")
    config.chmod(0o600)                                # the secret: readable by the instructor only
    return said + [f"wrote {config.name}"]


def _source_hash(notebook) -> str:
    """A hash of a course source notebook as the kit wrote it (its own recorded hash left out)."""
    plain = nbformat.from_dict(notebook)
    plain.metadata.get("kgslab", {}).pop(_HASH_KEY, None)
    return hashlib.sha256(render(plain).encode("utf-8")).hexdigest()[:16]


def _edited(path: Path) -> bool:
    """True when the existing source notebook `path` is not as the kit wrote it (an instructor's edit)."""
    try:
        existing = read_notebook(path)
    except ReleaseError:
        return True
    recorded = existing.metadata.get("kgslab", {}).get(_HASH_KEY)
    return recorded is None or recorded != _source_hash(existing)


def course_source(path: Path):
    """The nbgrader source of one solution notebook: no solution-only cells, no outputs, no widget state."""
    notebook = read_notebook(path)
    drop_solution_only(notebook, path.stem)
    clear_outputs(notebook)
    notebook.metadata["kgslab"] = {"role": "nbgrader source, written by python -m kgslab.assignments"}
    notebook.metadata["kgslab"][_HASH_KEY] = _source_hash(notebook)
    return notebook


def build_course(course_dir: Path, solutions_dir: Path = SOLUTIONS, only: list[str] | None = None, *,
                 exchange=None, force: bool = False, report=None) -> list[str]:
    """Write (or merge into) the course directory; return the assignment names (one per notebook).

    Every notebook is validated as the release validates it, and every file
    that would be overwritten is checked, before anything is written: a
    solution that would leak (ReleaseError), or an instructor's edit without
    `force` (CourseError), stops the build.  `only` picks notebooks by prefix: None (all of them), a list
    (``["01", "07"]``) or a comma-separated string (``"01,07"``); a prefix that names no notebook is refused.
    `report` gets one line per file.
    """
    course_dir, solutions_dir = _as_course_dir(course_dir), as_path(solutions_dir, "solutions_dir")
    exchange, force = _as_exchange(exchange), as_bool(force, "force")
    if report is not None and not callable(report):
        raise TypeError(f"report must be None or a function taking one line (str), got {report!r:.60}")
    report = report or (lambda line: None)
    sources = _as_only(only, solution_sources(solutions_dir))
    planned = []
    for path in sources:
        notebook = read_notebook(path)
        notebook.metadata.setdefault("kgslab", {})["name"] = path.stem
        release_notebook(notebook)                     # raises on anything that could publish a solution
        planned.append((course_dir / "source" / path.stem / path.name, render(course_source(path))))
    edited = [target for target, text in planned
              if target.exists() and target.read_text(encoding="utf-8") != text and _edited(target)]
    if edited and not force:
        raise CourseError("these source notebooks were edited since the kit wrote them (or written by an older "
                          "kit, which recorded no hash), and rebuilding would lose any edits: " + ", ".join(str(t) for t in edited) + ". Make the change in "
                          "solutions/ instead, or re-run with --force (each is kept as NAME.bak first)")
    config = course_dir / "nbgrader_config.py"
    if config.exists() and not force and _split(config.read_text(encoding="utf-8")) is None:
        write_config(course_dir, exchange=exchange)    # raises its CourseError before anything is written
    course_dir.mkdir(parents=True, exist_ok=True)
    for target, text in planned:
        shown = target.relative_to(course_dir)
        if target.exists() and target.read_text(encoding="utf-8") == text:
            report(f"{shown}: current")
            continue
        if target in edited:
            report(f"kept your edited {shown} as {_backup(target).name}")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        report(f"wrote {shown}")
    for line in write_config(course_dir, exchange=exchange, force=force):
        report(line)
    return [path.stem for path in sources]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kgslab.assignments", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("course_dir", nargs="?", default="course", help="where to write (default: course/)")
    parser.add_argument("--only", default="", help="comma-separated notebook prefixes, e.g. 01,07")
    parser.add_argument("--exchange", metavar="DIR", default=None,
                        help="nbgrader's exchange folder (c.Exchange.root), kept when rebuilt without this option; "
                             "on a hub, the shared folder the students' config names too (docs/jupyterhub.md)")
    parser.add_argument("--force", action="store_true",
                        help="rewrite a config file without the kit's block, and source notebooks you edited "
                             "(each is kept as NAME.bak first)")
    args = parser.parse_args(argv)
    try:
        names = build_course(args.course_dir, only=args.only or None,
                             exchange=args.exchange, force=args.force, report=print)
    except (TypeError, ValueError) as err:            # ReleaseError, CourseError and a bad --only among them
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"{args.course_dir}/ has {len(names)} assignments: {', '.join(names)}")
    print(f"next: cd {args.course_dir} && nbgrader generate_assignment {names[0]}  (with --force after a rebuild "
          f"changed a source)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

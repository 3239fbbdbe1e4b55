"""Copy the kit's notebooks out of the installed package into a folder of your own.

    python -m kgslab.notebooks DEST               # the ten student notebooks into DEST
    python -m kgslab.notebooks DEST --solutions   # ... and the solutions into DEST/solutions/
    python -m kgslab.notebooks DEST --force       # replace edited copies too (each one backed up first)

This is what a JupyterHub start-up script runs (``python -m kgslab.notebooks ~/kgslab``) and
what a student who installed the kit's wheel (``make wheel``, README) runs once.  Running it again
is safe, at every login if you like:

* a notebook that is not in DEST yet is copied;
* a copy that is identical to the kit's is left alone;
* a student copy that is an earlier release, never run and never edited, is updated to the
  kit's current one (a new version of the kit reaches students who have not started);
* a copy that has been run or edited is never overwritten: it is kept, and the command says
  so.  With ``--force`` it is replaced, after being renamed to ``NAME.backup-N.ipynb``.

The exit status is 0 when every notebook is in place (copied, current or kept), and 2 when
DEST cannot be written or the installed kit has no notebooks.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from ._resources import backup_path, kit_folder, solutions_missing
from ._validation import as_bool, as_path
from .release import student_state

PATTERN = "[0-9][0-9]_*.ipynb"


def packaged_notebooks(kind: str = "notebooks") -> list[Path]:
    """The installed kit's student notebooks (kind="notebooks") or solutions (kind="solutions"), in order."""
    folder = kit_folder(kind)
    found = sorted(folder.glob(PATTERN))
    if not found and kind == "solutions":
        raise FileNotFoundError(solutions_missing())
    if not found:
        raise FileNotFoundError(f"the installed kit has no {kind} in {folder}: reinstall kgslab")
    return found


def why_keep(target: Path, student_copy: bool) -> str | None:
    """Why the existing copy `target` must not be replaced, or None when it is an untouched earlier release.

    student_copy is True for a student notebook and False for a solution (which is never replaced unasked).
    """
    target = as_path(target, "target")
    if not as_bool(student_copy, "student_copy"):   # student_copy="False" would treat a solution as a student copy
        return "it differs from the kit's solution (edited, or from another version of the kit)"
    try:
        return student_state(target)
    except Exception as error:  # not a readable notebook: certainly not ours to replace
        return f"it cannot be read as a notebook ({type(error).__name__})"


def copy_one(source: Path, target: Path, *, student_copy: bool, force: bool) -> str:
    """Copy one notebook; return what happened, as a line for the user.

    student_copy: True for a student notebook, False for a solution; force: replace a run or edited copy
    (after a backup).  Both must be True or False: the string "False" would otherwise mean yes.
    """
    source, target = as_path(source, "source"), as_path(target, "target")
    student_copy, force = as_bool(student_copy, "student_copy"), as_bool(force, "force")
    shown = target.name if student_copy else f"solutions/{target.name}"
    if not target.exists():
        shutil.copyfile(source, target)
        return f"copied    {shown}"
    if target.read_bytes() == source.read_bytes():
        return f"current   {shown}"
    reason = why_keep(target, student_copy)
    if reason is None:
        shutil.copyfile(source, target)
        return f"updated   {shown} (an earlier release you had not run or edited)"
    if not force:
        return f"kept      {shown}: {reason}; the kit's version was not copied (--force replaces it, with a backup)"
    backup = backup_path(target)
    target.rename(backup)
    shutil.copyfile(source, target)
    return f"replaced  {shown}: {reason}; your copy is now {backup.name}"


def copy_notebooks(destination, *, solutions: bool = False, force: bool = False) -> list[str]:
    """Copy the student notebooks (and with solutions=True the solutions, into destination/solutions/).

    Returns one line per notebook saying what happened (see the module docstring).
    """
    destination = as_path(destination, "destination")
    solutions = as_bool(solutions, "solutions")   # solutions="False" would copy the answers to students
    force = as_bool(force, "force")
    jobs = [(destination, packaged_notebooks("notebooks"), True)]
    if solutions:
        jobs.append((destination / "solutions", packaged_notebooks("solutions"), False))
    lines = []
    for folder, sources, student_copy in jobs:
        if folder.exists() and not folder.is_dir():
            raise NotADirectoryError(f"{folder} exists and is not a folder")
        folder.mkdir(parents=True, exist_ok=True)
        for source in sources:
            lines.append(copy_one(source, folder / source.name, student_copy=student_copy, force=force))
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kgslab.notebooks", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("destination", metavar="DEST", help="folder to copy the notebooks into (created if needed)")
    parser.add_argument("--solutions", action="store_true", help="also copy the solutions into DEST/solutions/")
    parser.add_argument("--force", action="store_true",
                        help="replace copies that were run or edited (each is first renamed NAME.backup-N.ipynb)")
    args = parser.parse_args(argv)
    try:
        lines = copy_notebooks(args.destination, solutions=args.solutions, force=args.force)
    except OSError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for line in lines:
        print(line)
    counts = {word: sum(line.startswith(word) for line in lines)
              for word in ("copied", "updated", "current", "kept", "replaced")}
    print(f"{Path(args.destination).expanduser()}: " + ", ".join(f"{n} {word}" for word, n in counts.items() if n))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

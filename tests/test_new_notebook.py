"""One list of the notebooks (kgslab/_notebook_list.py): the files agree with it, and a new notebook is picked up.

What a new notebook brings (NOTEBOOK_GUIDE.md, "What a new notebook brings"): its solution notebook, its student
copy (`make notebooks`), its check module kgslab/check/nbNN_topic.py, its widget module if it has sliders, its line
in the list, its row in README's points table, and its entry in the reader's table of what its written answers state.

* `disagreements` compares the list with the tree: every listed notebook has its solution, its student copy, its
  check module (named nbNN_..., exporting only nbNN_ keys) and its widget module; every solution, every check
  module and every panel module on disk is on a line.  Each message says what to add.
* the per-notebook tables of the tests are keyed by the list's numbers (`table_gaps`).
* `test_a_throw_away_notebook_is_picked_up` builds, in a temporary copy of the kit, a notebook after the last one
  from a tiny solution notebook, its check module, its widget module and its line, runs `make notebooks` there,
  builds its panel from `kgslab.widgets`, and runs the generic tests of the copy (the list against the tree, the
  student path, the grading layout, the release, the check registry, the packaged notebooks, the reader of its
  copy), which find it without any other list being touched.
  Cost: about 10 CPU-s (a Python process that imports the kit and releases, and one pytest run).
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from kgslab._notebook_list import NOTEBOOKS, Notebook

ROOT = Path(__file__).resolve().parents[1]
LIST_FILE = "kgslab/_notebook_list.py"


def disagreements(root: Path, notebooks, exports: dict[str, list[str]]) -> list[str]:
    """What the tree at `root` and the list `notebooks` disagree on, each with what to add; `exports` is
    {check module: its __all__} for the listed check modules that exist."""
    problems = []
    stems = [notebook.stem for notebook in notebooks]
    if stems != sorted(stems) or len({stem[:2] for stem in stems}) != len(stems):
        problems.append(f"{LIST_FILE}: the notebooks must be in order, one per number NN: {stems}")
    for path in sorted((root / "solutions").glob("[0-9][0-9]_*.ipynb")):
        if path.stem not in stems:
            problems.append(f"solutions/{path.name} has no line in {LIST_FILE}: add "
                            f"Notebook({path.stem!r}, 'nb{path.stem[:2]}_<topic>', <its widget module or None>)")
    listed_checks = {notebook.check for notebook in notebooks}
    for path in sorted((root / "kgslab" / "check").glob("nb[0-9][0-9]_*.py")):
        if path.stem not in listed_checks:
            problems.append(f"kgslab/check/{path.name} is no notebook's check module: name it on its notebook's "
                            f"line in {LIST_FILE}")
    listed_widgets = {notebook.widgets for notebook in notebooks}
    for path in sorted((root / "kgslab" / "widgets").glob("*.py")):
        if path.stem not in ("__init__", "base") and path.stem not in listed_widgets:
            problems.append(f"kgslab/widgets/{path.name} is no notebook's panels: name it on the line of the notebook "
                            f"that displays them in {LIST_FILE}")
    for notebook in notebooks:
        where = f"{notebook.stem} ({LIST_FILE})"
        if not (root / "solutions" / f"{notebook.stem}.ipynb").is_file():
            problems.append(f"{where}: solutions/{notebook.stem}.ipynb is missing")
        if not (root / "notebooks" / f"{notebook.stem}.ipynb").is_file():
            problems.append(f"{where}: its student copy notebooks/{notebook.stem}.ipynb is missing: "
                            "run `make notebooks`")
        if not notebook.check.startswith(notebook.key_prefix):
            problems.append(f"{where}: its check module {notebook.check!r} must be named {notebook.key_prefix}<topic>")
        if not (root / "kgslab" / "check" / f"{notebook.check}.py").is_file():
            problems.append(f"{where}: its check module kgslab/check/{notebook.check}.py is missing")
        else:
            keys = exports.get(notebook.check, [])
            if not keys or any(not key.startswith(notebook.key_prefix) for key in keys):
                problems.append(f"{where}: kgslab/check/{notebook.check}.py must list its checks in __all__, each "
                                f"named {notebook.key_prefix}exercise_<number>; it lists {keys}")
        if notebook.widgets and not (root / "kgslab" / "widgets" / f"{notebook.widgets}.py").is_file():
            problems.append(f"{where}: its widget module kgslab/widgets/{notebook.widgets}.py is missing")
    return problems


def check_exports(notebooks) -> dict[str, list[str]]:
    exports = {}
    for notebook in notebooks:
        try:
            exports[notebook.check] = list(importlib.import_module(f"kgslab.check.{notebook.check}").__all__)
        except ModuleNotFoundError:
            pass
    return exports


def test_the_list_is_what_is_on_disk():
    problems = disagreements(ROOT, NOTEBOOKS, check_exports(NOTEBOOKS))
    assert not problems, "the notebooks on disk and the one list disagree:\n  " + "\n  ".join(problems)


# ---- the tests' per-notebook tables ------------------------------------------------------------------------

def table_gaps(notebooks) -> list[str]:
    """The reader's table of what each notebook's written answers state (ANSWER_FACTS) has an entry for every
    notebook ({} for one without a written answer), and every per-notebook table of the tests names only listed
    notebooks (a renumbered notebook leaves no entry behind)."""
    import mutation_equivalent
    import test_check_mistakes
    import test_prose_numbers
    import test_student_reading as reading

    numbers = {notebook.number for notebook in notebooks}
    prefixes = tuple(notebook.key_prefix for notebook in notebooks)
    gaps = [f"tests/test_student_reading.py: ANSWER_FACTS has no entry for notebook {number}: add "
            f"\"{number}\": {{<model answer cell id>: [<the facts it states>]}} ({{}} when it asks no written question)"
            for number in sorted(numbers - set(reading.ANSWER_FACTS))]
    keyed = {"test_student_reading." + name: getattr(reading, name) for name in (
        "ANSWER_FACTS", "SPECIFIED_CODE", "ANSWER_CODE", "ANSWER_FORMULAS", "SPECIFIED_FORMULAS", "SPECIFIED_NUMBERS",
        "FALLBACK_FED", "KEY_CALLS", "KEY_CALLS_ELSEWHERE", "HINT_FACTS", "FALLBACK_HELP_ANSWERS", "PAPER_CASES")
        if hasattr(reading, name)}
    keyed["test_prose_numbers.ALLOWED"] = {stem for stem, _, _ in test_prose_numbers.ALLOWED}
    keyed["test_prose_numbers.CITES"] = {stem for stem, _ in test_prose_numbers.CITES}
    for name, table in keyed.items():
        gaps += [f"tests/{name.replace('.', '.py: ', 1)} names notebook {key!r}, which is not in {LIST_FILE}"
                 for key in sorted(table) if key not in numbers]
    exercise_keys = {"mutation_equivalent.EQUIVALENT": set(mutation_equivalent.EQUIVALENT),
                     "test_check_mistakes.WRONG": {entry[1] for entry in test_check_mistakes.WRONG}}
    for name, keys in exercise_keys.items():
        gaps += [f"tests/{name.replace('.', '.py: ', 1)} names {key!r}, of no notebook in {LIST_FILE}"
                 for key in sorted(keys) if not key.startswith(prefixes)]
    return gaps


def test_every_per_notebook_table_has_each_notebook_and_no_other():
    gaps = table_gaps(NOTEBOOKS)
    assert not gaps, "\n".join(gaps)


# ---- a throw-away notebook in a copy of the kit ---------------------------------------------------------------

def _tiny_solution(number: str):
    """The smallest notebook the guide allows: a title, a set-up, one code exercise and its check, a panel, a
    written answer, a closing cell."""
    cells = [
        new_markdown_cell(f"# {number} · A throw-away notebook\n\n**Source:** none; tests/test_new_notebook.py "
                          "builds it to show that the kit's machinery finds a new notebook."),
        new_code_cell("import numpy as np\n\nfrom kgslab import check\n\nrng = np.random.default_rng(0)"),
        new_markdown_cell("**Exercise 1.** Write the linear kernel's Gram matrix $K = XX'$."),
        new_code_cell('def gram(X):\n    """The Gram matrix of the rows of X."""\n    ### BEGIN SOLUTION\n'
                      "    return X @ X.T\n    ### END SOLUTION"),
        new_code_cell(f"gram = check.nb{number}_exercise_1(gram)"),
        new_markdown_cell("Move the slider: the line's slope follows."),
        new_code_cell("from kgslab import widgets\n\npanel = widgets.slope_panel()\npanel"),
        new_markdown_cell("Why is K symmetric?"),
        new_markdown_cell("### BEGIN SOLUTION\nBecause the inner product of two rows is symmetric.\n### END SOLUTION"),
        new_markdown_cell("That is all: the next notebook is the first one again."),
    ]
    for index, cell in enumerate(cells):
        cell["id"] = f"c{index:02d}"
    cells[6].metadata["tags"] = ["nbval-ignore-output"]            # a widget panel
    notebook = new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python",
                                       "name": "python3"}
    notebook.metadata["language_info"] = {"name": "python"}
    return notebook


def _tiny_check_module(number: str) -> str:
    return textwrap.dedent(f'''\
        """Checks for the throw-away notebook {number} (tests/test_new_notebook.py)."""

        import numpy as np

        from ..kernels import linear_kernel
        from . import Case, Exercise

        __all__ = ["nb{number}_exercise_1"]


        def _cases():
            rng = np.random.default_rng(1)
            return [Case("3 points in R^2", (rng.standard_normal((3, 2)),)),
                    Case("5 points in R^4", (rng.standard_normal((5, 4)),))]


        nb{number}_exercise_1 = Exercise("nb{number}_exercise_1", "Exercise 1 (the Gram matrix)", linear_kernel,
                                         _cases, points=1, hint="K_ij is the inner product of rows i and j.")
        ''')


TINY_WIDGETS = '''\
"""The throw-away notebook's panel (tests/test_new_notebook.py): a line whose slope a slider sets."""

import numpy as np

from .base import Panel, float_slider

__all__ = ["slope_panel"]


def slope_panel(slope=1.0):
    def draw(figure, slope):
        axes = figure.add_subplot()
        axes.plot([0.0, 1.0], [0.0, slope])
        axes.set(xlabel="x", ylabel="y", title=f"y = {slope:g} x")
        return {"y(1)": float(np.float64(slope))}
    return Panel({"slope": float_slider("slope", slope, 0.0, 2.0, 0.1)}, draw)
'''


def _copy_of_the_kit(destination: Path) -> None:
    """The kit's code, notebooks and tests in `destination` (the data are linked, read only): a clone of its own,
    so that nothing the test writes can reach the repository."""
    from kgslab._resources import kit_folder

    skip = shutil.ignore_patterns("browser", "_files", "_notebooks", ".hypothesis")   # compiled files kept: faster
    for folder in ("kgslab", "solutions", "notebooks", "tests"):
        shutil.copytree(ROOT / folder, destination / folder, ignore=skip)
    for name in ("pyproject.toml", "conftest.py"):
        shutil.copy2(ROOT / name, destination / name)
    # where an editable install maps kgslab._files and kgslab._notebooks (_resources): the copy's own folders
    (destination / "kgslab" / "_files").symlink_to(kit_folder("data"), target_is_directory=True)
    (destination / "kgslab" / "_notebooks").symlink_to(destination / "notebooks", target_is_directory=True)


def _add_line(list_file: Path, line: str) -> None:
    """Add `line` as the last notebook of the list (before the tuple's closing parenthesis)."""
    text = list_file.read_text(encoding="utf-8")
    anchor = text.index("\n)\n", text.index("NOTEBOOKS: tuple"))
    list_file.write_text(text[:anchor] + "\n" + line + text[anchor:], encoding="utf-8")


def _run(arguments, copy: Path, timeout: float = 240):
    env = dict(os.environ, PYTHONPATH=str(copy), OPENBLAS_NUM_THREADS="1")
    env.pop("COVERAGE_PROCESS_START", None)
    return subprocess.run([sys.executable, *arguments], cwd=copy, env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_a_throw_away_notebook_is_picked_up(tmp_path):
    copy = tmp_path / "kit"
    _copy_of_the_kit(copy)
    number = f"{int(NOTEBOOKS[-1].number) + 1:02d}"
    stem, check_module = f"{number}_throw_away", f"nb{number}_throw_away"
    nbformat.write(_tiny_solution(number), copy / "solutions" / f"{stem}.ipynb")
    (copy / "kgslab" / "check" / f"{check_module}.py").write_text(_tiny_check_module(number), encoding="utf-8")
    (copy / "kgslab" / "widgets" / "throw_away.py").write_text(TINY_WIDGETS, encoding="utf-8")

    # Without its line the list test says what to add; the kit's checks do not know it yet.
    problems = disagreements(copy, NOTEBOOKS, check_exports(NOTEBOOKS))
    assert any(f"solutions/{stem}.ipynb has no line in {LIST_FILE}: add Notebook('{stem}'" in p for p in problems)
    assert any(f"kgslab/check/{check_module}.py is no notebook's check module" in p for p in problems)
    assert any("kgslab/widgets/throw_away.py is no notebook's panels" in p for p in problems)

    # Its line in the one list, then `make notebooks` in the copy (`python -m kgslab.release --tag`: the grading
    # layout, then the student copies), and what the copy's kit sees: the list, the check registry, the student
    # copies it packages, none stale.
    _add_line(copy / LIST_FILE, f"    Notebook({stem!r}, {check_module!r}, 'throw_away'),")
    probe = _run(["-c", textwrap.dedent(f"""\
        import json, kgslab, pathlib
        import nbformat
        from kgslab import _notebook_list, check, grading_layout, notebooks, release, widgets
        copy = pathlib.Path({str(copy)!r})      # nothing is written before the kit is known to be the copy's
        assert pathlib.Path(kgslab.__file__).is_relative_to(copy) and release.SOLUTIONS == copy / "solutions" \
            and release.NOTEBOOKS.resolve() == (copy / "notebooks").resolve(), (kgslab.__file__, release.NOTEBOOKS)
        made = release.main(["--tag"])
        print(json.dumps({{"made": made, "kit": kgslab.__file__, "stems": _notebook_list.stems(),
                           "keys": [key for key in check.exercises() if key.startswith("nb{number}_")],
                           "packaged": [path.stem for path in notebooks.packaged_notebooks("notebooks")],
                           "panel": widgets.slope_panel(slope=0.5).values, "stale": release.check(),
                           "points": grading_layout.notebook_points(nbformat.read(
                               release.SOLUTIONS / "{stem}.ipynb", as_version=4))}}))""")], copy)
    assert probe.returncode == 0, probe.stdout[-2000:] + probe.stderr[-2000:]
    seen = json.loads(probe.stdout.strip().splitlines()[-1])
    assert Path(seen["kit"]).is_relative_to(copy) and seen["made"] == 0, seen
    assert seen["stems"] == [notebook.stem for notebook in NOTEBOOKS] + [stem]
    assert seen["keys"] == [f"nb{number}_exercise_1"] and seen["stale"] == []
    assert seen["packaged"] == seen["stems"] and seen["panel"] == {"y(1)": 0.5}
    assert seen["points"] == [1, 2]     # autograded, by hand: README's row | NN_topic | 1 | 2 | 3 |

    student = nbformat.read(copy / "notebooks" / f"{stem}.ipynb", as_version=4)
    text = "\n".join(cell.source for cell in student.cells)
    assert "raise NotImplementedError()" in text and "X @ X.T" not in text and "YOUR ANSWER HERE" in text
    graded = [cell for cell in student.cells if f"check.nb{number}_exercise_1.grade()" in cell.source.splitlines()]
    assert len(graded) == 1 and graded[0].metadata["nbgrader"]["points"] == 1, "no graded test cell after the check"

    # The generic tests, run in the copy, find it among the others and pass.
    generic = ["tests/test_new_notebook.py::test_the_list_is_what_is_on_disk",
               "tests/test_student_path.py",
               "tests/check/test_core.py::test_one_naming_scheme",
               "tests/test_packaging.py::test_the_kit_has_each_listed_notebook_of_each_kind",
               "tests/test_grading_layout.py::test_repository_solutions_are_tagged_for_grading",
               "tests/test_release.py::test_repository_notebooks_are_a_fresh_release",
               "tests/test_release.py::test_repository_solutions_exist_and_carry_nbgrader_metadata",
               "tests/test_release.py::test_student_notebooks_hold_no_solutions_and_no_outputs",
               f"tests/test_student_reading.py::test_a_student_reading_the_copy_finds_no_answer[{number}]"]
    run = _run(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-rA", *generic], copy)
    lines = run.stdout.splitlines()
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert f"PASSED tests/test_student_path.py::test_a_students_path_is_within_the_limits[{number}]" in lines
    assert f"PASSED tests/test_student_path.py::test_nothing_graded_is_in_an_appendix[{number}]" in lines
    assert f"PASSED {generic[-1]}" in lines

    # The reader's table of what its written answer states asks for its entry too.
    listed = (*NOTEBOOKS, Notebook(stem, check_module, "throw_away"))
    assert [gap for gap in table_gaps(listed) if number in gap] == [
        f"tests/test_student_reading.py: ANSWER_FACTS has no entry for notebook {number}: add \"{number}\": "
        "{<model answer cell id>: [<the facts it states>]} ({} when it asks no written question)"]

"""The solution notebooks' exercise functions, as the grader reads them, and variants of them.

`program(stem)` is what the grader's child runs for a submission (`kgslab.check.sandbox`): the notebook's
definitions (`kgslab.check.submission`), with the names of the notebook's exercise functions bound to the kit's
references so that one exercise is judged on its own code only.  `function(stem, key, source)` defines one
exercise's function from `source` (the solution's own, or a variant of it) in a copy of that program.
"""

from __future__ import annotations

import functools
import warnings

import nbformat

from kgslab import check, release
from kgslab.check import fallback, submission

STEMS = sorted(path.stem for path in release.SOLUTIONS.glob("[0-9][0-9]_*.ipynb"))


@functools.lru_cache(maxsize=None)
def _sources(stem: str) -> tuple:
    notebook = nbformat.read(release.SOLUTIONS / f"{stem}.ipynb", as_version=4)
    return tuple(cell.source for cell in notebook.cells if cell.cell_type == "code")


def exercise_functions(stem: str) -> dict[str, str]:
    """{exercise key: the name of the function its check cell checks} of one solution notebook."""
    return submission.exercise_functions(list(_sources(stem)))


def definition(stem: str, name: str) -> str:
    """The source of the solution's ``def name(...)`` as the grader keeps it."""
    found = [source for source in submission.definitions(list(_sources(stem))) if source.startswith(f"def {name}(")]
    assert len(found) == 1, (stem, name, len(found))
    return found[0]


@functools.lru_cache(maxsize=None)
def program(stem: str) -> dict:
    """The notebook's definitions run in a namespace, every exercise function bound to its reference's fall-back."""
    namespace = {"__name__": "__student__", "__builtins__": __builtins__}
    for statement in submission.definitions(list(_sources(stem))):
        try:
            exec(compile(statement, "<solution>", "exec"), namespace)   # noqa: S102 -- the kit's own solutions
        except Exception:  # noqa: BLE001 -- a definition that fails is left out, as the grader's child does
            pass
    exercises = check.exercises()
    for key, name in exercise_functions(stem).items():
        namespace[name] = fallback.reference_fallback(exercises[key]._reference, name, key)
    return namespace


def function(stem: str, key: str, source: str | None = None):
    """The function of exercise `key` defined from `source` (default: the solution's) in a copy of the program."""
    name = exercise_functions(stem)[key]
    namespace = dict(program(stem))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)       # a mutant such as 0[...] compiles with a warning
        code = compile(source if source is not None else definition(stem, name), "<variant>", "exec")
    exec(code, namespace)  # noqa: S102
    return namespace[name]


def variant(stem: str, key: str, old: str, new: str):
    """The solution's function of exercise `key` with the last occurrence of the text `old` (in its code, after
    the docstring and the signature) replaced by `new`."""
    source = definition(stem, exercise_functions(stem)[key])
    assert old in source, f"{old!r} is not in {key}'s solution"
    head, _, tail = source.rpartition(old)
    return function(stem, key, head + new + tail)

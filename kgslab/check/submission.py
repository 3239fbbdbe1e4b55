"""Reading a submitted notebook as source code: which function each exercise grades, and its definition.

The grader (`kgslab.grader`) never trusts the state of the student's kernel,
so it reads the submission's text instead:

* `exercise_functions(sources)`: which name each check takes, from the
  instructor's source cells (``ridge_primal = check.nb01_exercise_1_primal(
  ridge_primal)``), never from the submission, whose check cells a student
  can edit;
* `definitions(cells)`: the student's program as definitions only: the
  top-level ``import``, ``def``, ``class`` and assignments of constants (a
  literal, or an expression of imported modules only: ``EPS =
  np.finfo(float).eps``) of every code cell, in order.  Statements that do work at the top level (a
  call, a loop, a print) are left out, so nothing the notebook did in its
  kernel (patching the kit, spoiling the records) is part of what is graded.
"""

from __future__ import annotations

import ast
import re

__all__ = ["exercise_functions", "definitions", "syntax_error"]

_CHECK_LINE = re.compile(r"^\s*(\w+)\s*=\s*check\.(nb\d\d_exercise_\w+)\(\s*(\w+)\s*\)", re.MULTILINE)


def exercise_functions(sources: list[str]) -> dict[str, str]:
    """{exercise key: the function name its check takes}, from the instructor's cell sources."""
    found = {}
    for source in sources:
        for match in _CHECK_LINE.finditer(source or ""):
            found[match.group(2)] = match.group(3)
    return found


def _literal(node) -> bool:
    try:
        ast.literal_eval(node)
        return True
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False


_PLAIN_BUILTINS = {"float", "int", "complex", "bool", "str", "range", "len", "tuple", "list", "dict", "min", "max",
                   "abs", "round", "sum", "sorted", "True", "False", "None"}


def _constant(value, imported: set[str]) -> bool:
    """A literal, or an expression of imported modules and plain builtins only (EPS = np.finfo(float).eps)."""
    if _literal(value):
        return True
    names = {node.id for node in ast.walk(value) if isinstance(node, ast.Name)}
    return names <= imported | _PLAIN_BUILTINS and not any(isinstance(node, ast.Lambda) for node in ast.walk(value))


def _kept(statement, imported: set[str]) -> bool:
    if isinstance(statement, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return True
    return isinstance(statement, ast.Assign) and all(isinstance(t, ast.Name) for t in statement.targets) and \
        _constant(statement.value, imported)


def _bound_by(statement) -> set[str]:
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).split(".")[0] for alias in statement.names}
    return set()


def without_magics(source: str) -> str:
    """IPython's magics and shell escapes (%matplotlib, !pip) are not Python: blank them out."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())


def definitions(cells: list[str]) -> list[str]:
    """The kept top-level statements of each code cell, as source texts in order (a cell that does not parse
    contributes nothing)."""
    kept, imported = [], set()
    for source in cells:
        text = without_magics(source or "")
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        for statement in tree.body:
            imported |= _bound_by(statement)
            if _kept(statement, imported):
                kept.append(ast.get_source_segment(text, statement))
    return [statement for statement in kept if statement]


def syntax_error(cells: list[str], function: str) -> str | None:
    """The syntax error of the cell that defines `function` (else of the first cell that does not parse), in the
    words a student reads: ``"invalid syntax (line 3 of the cell defining ridge_dual): return (y - X @ w"``;
    None when every cell parses."""
    found = None
    for source in cells:
        text = without_magics(source or "")
        try:
            ast.parse(text)
        except SyntaxError as error:
            defines = re.search(rf"^\s*def\s+{re.escape(function)}\s*\(", text, re.MULTILINE) is not None
            where = f"the cell defining {function}" if defines else "a cell"
            line = (error.text or "").strip()
            words = f"{error.msg} (line {error.lineno} of {where})" + (f": {line[:100]}" if line else "")
            if defines:
                return words
            found = found or words
        except ValueError as error:             # a null byte
            found = found or f"the cell cannot be read as Python ({error})"
    return found

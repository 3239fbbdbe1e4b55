"""What the grader tells the instructor about a submission: code that tried to reach the grade, not earn it.

The grade itself never depends on these findings (`kgslab.grader` decides it
outside the kernel); they are written as the gradebook's comment on the
exercise so that the instructor sees them in formgrader and the feedback.
A graded function, or a helper it calls, is flagged when it

* calls one of the exercise's closed functions (its reference or a twin),
* touches the checks' internals (``kgslab.check`` beyond calling a check:
  ``._reference``, ``.grade``, the mechanism's modules, the records, ``grading_mode``),
* touches the environment or the interpreter's machinery (``os.environ``,
  ``sys.modules``, ``importlib``, ``exec``/``eval``/``compile``, a function's
  ``__closure__``/``__globals__``/``__wrapped__``/``__code__``, tracing hooks,
  the garbage collector's objects, a module run again, ``inspect``, ``ctypes``,
  pickling, ``__name__``),
* starts or signals processes or writes on file descriptors (``subprocess``,
  ``multiprocessing``, ``os.fork``/``system``/``kill``/``write``..., ``signal``,
  ``sys.executable``, ``socket``),
* or has the same syntax tree as the reference up to names (a renamed copy).

`notebook_flags` looks at every code cell for the same kinds of reach
(``os.environ.pop("NBGRADER_EXECUTION")`` in a cell of its own, a patched
``check.X.grade``).
"""

from __future__ import annotations

import ast
import inspect
import textwrap

__all__ = ["flags", "notebook_flags"]

_MACHINERY_ATTRIBUTES = {"environ", "modules", "__closure__", "__globals__", "__wrapped__", "__code__",
                         "settrace", "setprofile", "_getframe", "cell_contents", "putenv", "unsetenv"}
_MACHINERY_NAMES = {"importlib", "exec", "eval", "compile", "__import__", "globals", "builtins", "__builtins__",
                    "__name__", "vars", "locals"}
_MACHINERY_MODULES = {"gc", "runpy", "inspect", "ctypes", "pickle", "marshal", "subprocess", "multiprocessing",
                      "signal", "socket", "importlib", "builtins", "dis", "types", "pty", "resource", "sqlite3",
                      "shutil", "concurrent"}
_OS_CALLS = {"system", "popen", "fork", "forkpty", "kill", "killpg", "getppid", "setsid", "setpgid", "write", "dup",
             "dup2", "open", "execv", "execve", "execl", "execlp", "execvp", "execvpe", "spawnv", "spawnl",
             "posix_spawn", "posix_spawnp", "pidfd_open", "remove", "unlink", "rename", "replace", "chmod"}
_SYS_ATTRIBUTES = {"executable", "modules", "_getframe", "settrace", "setprofile", "addaudithook", "stdout",
                   "__stdout__", "stderr", "__stderr__"}
_CHECK_INTERNALS = {"reference", "_reference", "grade", "records", "LAST_RUNS", "LastRun", "grading_mode",
                    "time_limit", "TIME_LIMIT", "GRADING_TIME_LIMIT", "memory_limit", "closed", "_closed",
                    "exercise", "Exercise", "verdicts", "run_exercise", "judge", "Verdict", "running", "fallback",
                    "reference_fallback", "reference_of", "code_hint", "cases", "compare", "values", "inputs",
                    "forked", "sandbox", "plain", "hidden", "confine"}


def _aliases(tree) -> dict[str, str]:
    """{local name: dotted kit name} from the imports of a module's source."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else \
                    alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                found[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return found


def _dotted(node, aliases) -> str | None:
    """'kgslab.regression.ridge' for `regression.ridge` when `regression` was imported from kgslab."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    head = aliases.get(node.id, node.id)
    return ".".join([head] + parts[::-1])


def _reach(tree, aliases, closed) -> list[str]:
    notes = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Attribute, ast.Name)):
            dotted = _dotted(node, aliases) or ""
            if dotted in closed:
                notes.append(f"calls the closed reference `{dotted}`")
            elif dotted.startswith("kgslab.check.") and set(dotted.split(".")[2:]) & _CHECK_INTERNALS:
                notes.append(f"touches the checks' internals (`{dotted}`)")
            if isinstance(node, ast.Attribute) and node.attr in _MACHINERY_ATTRIBUTES:
                notes.append(f"touches `{dotted or node.attr}`")
            if isinstance(node, ast.Name) and node.id in _MACHINERY_NAMES:
                notes.append(f"uses `{node.id}`")
            head, _, rest = dotted.partition(".")
            if isinstance(node, ast.Name) and head in _MACHINERY_MODULES and \
                    not isinstance(node.ctx, ast.Store):
                notes.append(f"uses `{head}`")
            if isinstance(node, ast.Attribute) and head == "os" and rest.split(".")[0] in _OS_CALLS:
                notes.append(f"calls `os.{rest.split('.')[0]}`")
            if isinstance(node, ast.Attribute) and head == "sys" and rest.split(".")[0] in _SYS_ATTRIBUTES:
                notes.append(f"touches `sys.{rest.split('.')[0]}`")
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for module in modules:
                if module.split(".")[0] in _MACHINERY_MODULES:
                    notes.append(f"imports `{module}`")
    return list(dict.fromkeys(notes))


class _Anonymous(ast.NodeTransformer):
    """Every name, argument and function name replaced by one placeholder; docstrings dropped."""

    def visit_Name(self, node):
        return ast.copy_location(ast.Name(id="_", ctx=node.ctx), node)

    def visit_arg(self, node):
        node.arg, node.annotation = "_", None
        return node

    def visit_FunctionDef(self, node):
        node.name, node.returns = "_", None
        if node.body and isinstance(node.body[0], ast.Expr) and isinstance(getattr(node.body[0], "value", None),
                                                                           ast.Constant):
            node.body = node.body[1:] or [ast.Pass()]
        self.generic_visit(node)
        return node


def _shape(tree) -> str:
    return ast.dump(_Anonymous().visit(tree), annotate_fields=False)


def _reference_source(exercise) -> str | None:
    function = exercise._reference
    for cell in getattr(function, "__closure__", None) or ():
        if callable(cell.cell_contents) and getattr(cell.cell_contents, "__name__", "") == function.__name__:
            function = cell.cell_contents
    try:
        return textwrap.dedent(inspect.getsource(function))
    except (OSError, TypeError):
        return None


def _function_and_helpers(definitions: list[str], name: str):
    """The graded function's definition and the top-level functions it names (one level), as parsed trees."""
    trees = {}
    for source in definitions:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                trees[node.name] = node
    main = trees.get(name)
    if main is None:
        return None, []
    used = {node.id for node in ast.walk(main) if isinstance(node, ast.Name)}
    return main, [tree for helper, tree in trees.items() if helper in used and helper != name]


def flags(definitions: list[str], function: str, key: str) -> list[str]:
    """What the grader notes about the submission's `function` for exercise `key` (empty: nothing)."""
    from kgslab import check

    exercise = check.exercises()[key]
    main, helpers = _function_and_helpers(definitions, function)
    if main is None:
        return []
    aliases = _aliases(ast.parse("\n".join(s for s in definitions if s.lstrip().startswith(("import", "from")))))
    notes = []
    for tree in [main] + helpers:
        notes += _reach(tree, aliases, exercise._closed)
    reference = _reference_source(exercise)
    if reference:
        try:
            if _shape(ast.parse(reference).body[0]) == _shape(main):
                notes.append("its syntax tree equals the reference's up to names")
        except (SyntaxError, IndexError):
            pass
    return list(dict.fromkeys(notes))


def notebook_flags(cells: list[str]) -> list[str]:
    """Reach into the environment or the checks anywhere in the notebook's code cells (top-level code too)."""
    from .submission import without_magics

    notes, trees = [], []
    for source in cells:
        try:
            trees.append(ast.parse(without_magics(source or "")))
        except (SyntaxError, ValueError):
            continue
    aliases = {}
    for tree in trees:
        aliases.update(_aliases(tree))
    for tree in trees:
        notes += _reach(tree, aliases, closed=())
    return list(dict.fromkeys(notes))

"""The kit's import structure, read from the source (issue 26): no circle, and no private name crossing a module.

A circle (kgs imports evidence imports kgs) means two modules that can only be understood together; a private
name used from another module (`kgs._Chains` in evidence) is an interface nobody declared.  Every `import` in
kgslab/, at the top of a module or inside a function, is an edge; `from M import _x` and `M._x` on an imported
kgslab module are crossings.  A module whose own name is private (kgslab._validation) may be imported: its
public names are the interface it offers inside the kit.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import kgslab

PACKAGE = Path(kgslab.__file__).parent


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def resolve(current: str, is_package: bool, level: int, target: str | None) -> str:
    """The absolute module name of a (relative) import in `current`."""
    if level == 0:
        return target or ""
    base = current.split(".") if is_package else current.split(".")[:-1]
    base = base[:len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def kit_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


MODULES = kit_modules()


def imports_of(name: str, path: Path):
    """(imported kit module, names taken from it, local aliases of kit modules) for one module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_package = path.name == "__init__.py"
    edges, taken, aliases = set(), [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("kgslab"):
                    edges.add(alias.name)
                    aliases[alias.asname or alias.name] = alias.name
        elif isinstance(node, ast.ImportFrom):
            source = resolve(name, is_package, node.level, node.module)
            if not source.startswith("kgslab"):
                continue
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                if submodule in MODULES:              # `from . import kgs`: the module itself
                    edges.add(submodule)
                    aliases[alias.asname or alias.name] = submodule
                else:
                    edges.add(source)
                    taken.append((source, alias.name, node.lineno))
    return edges, taken, aliases, tree


def crossings():
    """Every private name one kit module takes from another: (module, line, 'source.name')."""
    found = []
    for name, path in MODULES.items():
        _, taken, aliases, tree = imports_of(name, path)
        for source, imported, line in taken:
            if imported.startswith("_") and not imported.startswith("__") and source != name:
                found.append((name, line, f"{source}.{imported}"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                    and node.attr.startswith("_") and not node.attr.startswith("__")):
                found.append((name, node.lineno, f"{aliases[node.value.id]}.{node.attr}"))
    return sorted(found)


def graph() -> dict[str, set[str]]:
    edges = {}
    for name, path in MODULES.items():
        targets, _, _, _ = imports_of(name, path)
        # importing kgslab.a.b runs kgslab/a/__init__ first: an edge to the package, not a circle through it
        edges[name] = {target for target in targets if target in MODULES and target != name
                       and not name.startswith(target + ".")}
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, components, counter = {}, {}, [], set(), [], [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in edges.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return components


def test_the_kits_imports_have_no_circle():
    found = cycles(graph())
    assert not found, "modules that import each other (directly or round a circle): " + "; ".join(
        " <-> ".join(component) for component in found)


MAX_LINES = 600


def test_no_kit_module_is_over_600_lines():
    """One module per idea, read top to bottom: a module over 600 lines holds more than one."""
    long = {path.relative_to(PACKAGE.parent).as_posix(): n for path in sorted(PACKAGE.rglob("*.py"))
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines (split each by idea): {long}"


# Crossings allowed for a while (none now): the list may only shrink, an entry that no longer occurs must go.
NOT_YET: set = set()


def test_no_private_name_crosses_a_module_boundary():
    found = [(module, line, name) for module, line, name in crossings() if (module, name) not in NOT_YET]
    assert not found, "private names used from another module:\n" + "\n".join(
        f"  {module}:{line} uses {name}" for module, line, name in found)
    gone = NOT_YET - {(module, name) for module, _, name in crossings()}
    assert not gone, f"no longer crossing, delete from NOT_YET: {sorted(gone)}"


# ---- the test can fail: fed the structures it must refuse ---------------------------------------------

def test_a_circle_is_found():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("source, expected", [
    ("from .kgs import _Chains\n", "kgslab.kgs._Chains"),
    ("from . import kgs\nkgs._step(1)\n", "kgslab.kgs._step"),
    ("import kgslab.kgs as k\nk._PairTables\n", "kgslab.kgs._PairTables"),
])
def test_a_private_name_taken_from_another_module_is_found(tmp_path, monkeypatch, source, expected):
    fake = tmp_path / "kgslab" / "fake.py"
    fake.parent.mkdir()
    fake.write_text(source)
    monkeypatch.setitem(MODULES, "kgslab.fake", fake)
    monkeypatch.setitem(MODULES, "kgslab.kgs", PACKAGE / "kgs.py")
    monkeypatch.setattr(__import__(__name__), "PACKAGE", tmp_path / "kgslab", raising=False)
    assert any(name == expected for module, _, name in crossings() if module == "kgslab.fake")


# ---- one direction: notebooks, checks and widgets -> papers -> the library ------------------------------

PAPERS = ("kgslab.papers",)
CALLERS_OF_PAPERS = ("kgslab.check", "kgslab.widgets")
COURSE_TOOLS = ("kgslab._notebook_files", "kgslab.assignments", "kgslab.feedback", "kgslab.grade", "kgslab.grader",
                "kgslab.grading_layout", "kgslab.notebooks", "kgslab.release")


def layer(module: str) -> str:
    def within(prefixes):
        return any(module == prefix or module.startswith(prefix + ".") for prefix in prefixes)
    if within(PAPERS):
        return "papers"
    if within(CALLERS_OF_PAPERS):
        return "checks and widgets"
    if within(COURSE_TOOLS):
        return "course tools"
    return "library"


# what each layer may import, besides itself (kgslab/papers/__init__.py says the same in words)
MAY_IMPORT = {"library": {"library"}, "papers": {"library"},
              "checks and widgets": {"library", "papers", "checks and widgets"},
              "course tools": {"library", "checks and widgets", "course tools"}}


def against_the_direction(edges: dict[str, set[str]]) -> list[str]:
    return sorted(f"{module} ({layer(module)}) imports {target} ({layer(target)})"
                  for module, targets in edges.items() for target in targets
                  if layer(target) != layer(module) and layer(target) not in MAY_IMPORT[layer(module)])


def test_the_kit_imports_in_one_direction():
    found = against_the_direction(graph())
    assert not found, "imports against kgslab/papers/__init__.py's direction:\n  " + "\n  ".join(found)


def test_an_import_against_the_direction_is_found():
    assert against_the_direction({"kgslab.kgs": {"kgslab.papers.bt1999"}}) == [
        "kgslab.kgs (library) imports kgslab.papers.bt1999 (papers)"]
    assert against_the_direction({"kgslab.papers.coursework": {"kgslab.check.verdicts"}})
    assert against_the_direction({"kgslab.papers.bt1999": {"kgslab.widgets.billiard"}})
    assert against_the_direction({"kgslab.text": {"kgslab.release"}})
    assert not against_the_direction({"kgslab.check.nb01_duality": {"kgslab.papers.coursework", "kgslab.regression"},
                                      "kgslab.widgets.billiard": {"kgslab.papers.bt1999"}})


# ---- other packages' private names ------------------------------------------------------------------------
# A name that starts with an underscore in another package (sklearn.utils._param_validation, sklearn.base's
# _fit_context) is no interface: any release may move it, and then `import kgslab` fails for every student.
# Two underscore names are the Python library's documented interface and are allowed.
DOCUMENTED_UNDERSCORE_NAMES = {
    "os._exit": "documented in the Python library reference (os: process management)",
    "sys._getframe": "documented in the Python library reference (sys)",
}


def _private(dotted: str) -> bool:
    return any(part.startswith("_") and not part.startswith("__") for part in dotted.split("."))


def _dotted(node, foreign):
    """'package.a.b' for an attribute chain `alias.a.b` on another package's module, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in foreign:
        return None
    return ".".join([foreign[node.id], *reversed(parts)])


def foreign_private_names(modules=None):
    """Every private name of another package a kit module imports or reads: (module, line, 'package.name')."""
    found = []
    for name, path in sorted((modules or MODULES).items()):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        foreign = {}   # local name -> the other package's dotted name it stands for
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] != "kgslab":
                        if _private(alias.name):
                            found.append((name, node.lineno, alias.name))
                        foreign[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else \
                            alias.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module.split(".")[0] != "kgslab":
                if _private(node.module):
                    found.append((name, node.lineno, node.module))
                    continue
                for alias in node.names:
                    if _private(alias.name):
                        found.append((name, node.lineno, f"{node.module}.{alias.name}"))
                    else:
                        foreign[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _private(node.attr):
                dotted = _dotted(node, foreign)
                if dotted and dotted not in DOCUMENTED_UNDERSCORE_NAMES:
                    found.append((name, node.lineno, dotted))
    return sorted(set(found))


def test_no_kit_module_uses_another_packages_private_name():
    found = foreign_private_names()
    assert not found, "private names of other packages (use a public interface, or the kit's own):\n" + "\n".join(
        f"  {module}:{line} uses {name}" for module, line, name in found)


@pytest.mark.parametrize("source, expected", [
    ("from sklearn.base import _fit_context\n", "sklearn.base._fit_context"),
    ("from sklearn.utils._param_validation import Interval\n", "sklearn.utils._param_validation"),
    ("import sklearn.utils._param_validation as pv\n", "sklearn.utils._param_validation"),
    ("import sklearn.base\nsklearn.base._fit_context\n", "sklearn.base._fit_context"),
    ("from sklearn import base\nbase._fit_context\n", "sklearn.base._fit_context"),
    ("import nbgrader.preprocessors as p\np._load\n", "nbgrader.preprocessors._load"),
])
def test_a_private_name_of_another_package_is_found(tmp_path, source, expected):
    fake = tmp_path / "fake.py"
    fake.write_text(source)
    assert [name for _, _, name in foreign_private_names({"kgslab.fake": fake})] == [expected]


@pytest.mark.parametrize("source", [
    "import os\nos._exit(0)\n",
    "from sklearn.base import BaseEstimator\n",
    "from ._estimator import KernelClassifier\n",     # the kit's own (private modules inside the kit are allowed)
    "import numpy as np\nnp.random.default_rng(0)\n",
    "x = {}\nx._private\n",                            # not a module
])
def test_public_names_and_the_kits_own_are_not_flagged(tmp_path, source):
    fake = tmp_path / "fake.py"
    fake.write_text(source)
    assert foreign_private_names({"kgslab.fake": fake}) == []

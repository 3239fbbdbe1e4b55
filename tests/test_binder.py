"""Binder (repo2docker) builds the kit from environment.yml alone: every package the kit imports must be in it.

The scan reads the import statements of the package (kgslab/), the tests, the
benchmarks and the code cells of every notebook (solutions/ and notebooks/),
keeps the third-party ones (not the standard library, not the kit's own modules)
and maps each import name to the distribution that provides it (``sklearn`` is
scikit-learn).  A package that is only installed because another one pulls it in
(threadpoolctl comes with scikit-learn) still has to be declared: a later release
of its parent may drop it.

Imports that are optional by construction are not required: those inside a
``try`` whose handler catches ImportError, and those under an ``if`` on
``sys.version_info`` (a backport for older Pythons; conda-forge and Binder build
with a current Python).
"""

import ast
import json
import re
import sys
from importlib.metadata import packages_distributions
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
SOURCE_FOLDERS = ("kgslab", "tests", "benchmarks")
NOTEBOOK_FOLDERS = ("solutions", "notebooks")

# Import names whose distribution is called something else (independent of what happens to be installed).
IMPORT_TO_DISTRIBUTION = {
    "sklearn": "scikit-learn",
    "skimage": "scikit-image",
    "yaml": "pyyaml",
    "IPython": "ipython",
    "PIL": "pillow",
    "dateutil": "python-dateutil",
    "bs4": "beautifulsoup4",
    "cv2": "opencv-python",
}
# conda-forge names that differ from the PyPI name pyproject.toml uses.
CONDA_TO_PYPI = {"playwright-python": "playwright"}


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


class _ImportCollector(ast.NodeVisitor):
    """Top-level module names of absolute imports, except optional and version-conditional ones."""

    def __init__(self):
        self.required: set[str] = set()
        self._optional_depth = 0

    def _add(self, dotted: str):
        if not self._optional_depth:
            self.required.add(dotted.split(".")[0])

    def visit_Import(self, node):
        for alias in node.names:
            self._add(alias.name)

    def visit_ImportFrom(self, node):
        if node.level == 0 and node.module:
            self._add(node.module)

    def _visit_optional(self, nodes):
        self._optional_depth += 1
        for child in nodes:
            self.visit(child)
        self._optional_depth -= 1

    def visit_Try(self, node):
        catches_import_error = any(
            handler.type is not None and re.search(r"\b(ImportError|ModuleNotFoundError)\b",
                                                   ast.unparse(handler.type))
            for handler in node.handlers)
        if catches_import_error:
            self._visit_optional(node.body)
        else:
            for child in node.body:
                self.visit(child)
        for child in node.handlers + node.orelse + node.finalbody:
            self.visit(child)

    visit_TryStar = visit_Try

    def visit_If(self, node):
        if "version_info" in ast.unparse(node.test):
            self._visit_optional(node.body + node.orelse)
        else:
            self.generic_visit(node)


def imports_in(source: str) -> set[str]:
    collector = _ImportCollector()
    collector.visit(ast.parse(source))
    return collector.required


def notebook_code(path: Path) -> str:
    """The code cells of a notebook as one Python source, IPython magics and shell lines dropped."""
    cells = json.loads(path.read_text())["cells"]
    chunks = []
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if source.lstrip().startswith("%%"):
            continue  # a cell magic: not Python
        chunks.append("\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))))
    return "\n".join(chunks)


def local_module_names() -> set[str]:
    """The kit's own modules: kgslab and every module or package inside the scanned folders."""
    names = {"kgslab"}
    for folder in SOURCE_FOLDERS:
        for path in (ROOT / folder).rglob("*.py"):
            names.add(path.stem)
            names.update(parent.name for parent in path.parents if parent != ROOT and ROOT in parent.parents)
    return names


def kit_imports() -> dict[str, set[str]]:
    """{top-level import name: files that import it} over the package, tests, benchmarks and notebooks."""
    found: dict[str, set[str]] = {}
    files = [(path, path.read_text()) for folder in SOURCE_FOLDERS for path in (ROOT / folder).rglob("*.py")]
    files += [(path, notebook_code(path)) for folder in NOTEBOOK_FOLDERS
              for path in sorted((ROOT / folder).glob("*.ipynb"))]
    for path, source in files:
        try:
            names = imports_in(source)
        except SyntaxError as error:
            raise AssertionError(f"{path.relative_to(ROOT)} does not parse: {error}") from error
        for name in names:
            found.setdefault(name, set()).add(str(path.relative_to(ROOT)))
    return found


def third_party_distributions() -> dict[str, set[str]]:
    """{distribution (normalised): files} for every third-party import of the kit."""
    local, installed = local_module_names(), packages_distributions()
    distributions: dict[str, set[str]] = {}
    for name, where in kit_imports().items():
        if name in sys.stdlib_module_names or name == "__future__" or name in local:
            continue
        if name in IMPORT_TO_DISTRIBUTION:
            distribution = IMPORT_TO_DISTRIBUTION[name]
        elif name in installed:
            distribution = installed[name][0]
        else:
            distribution = name
        distributions.setdefault(normalise(distribution), set()).update(where)
    return distributions


def environment_yml_packages() -> set[str]:
    environment = yaml.safe_load((ROOT / "environment.yml").read_text())
    names = set()
    for entry in environment["dependencies"]:
        if isinstance(entry, str):
            name = normalise(re.match(r"^\s*([A-Za-z0-9_.\-]+)", entry).group(1))
            names.add(normalise(CONDA_TO_PYPI.get(name, name)))
    return names


def test_every_package_the_kit_imports_is_declared_in_environment_yml():
    declared = environment_yml_packages()
    missing = {name: sorted(where) for name, where in third_party_distributions().items() if name not in declared}
    assert not missing, "imported but not declared in environment.yml (Binder would not install them):\n" + "\n".join(
        f"  {name}: imported in {', '.join(where[:4])}{' ...' if len(where) > 4 else ''}"
        for name, where in sorted(missing.items()))


def test_the_scan_sees_the_kit_imports():
    # The kit's core dependencies are found, under their distribution names, where they are imported.
    found = third_party_distributions()
    for distribution in ("numpy", "scipy", "scikit-learn", "matplotlib", "ipywidgets"):
        assert distribution in found, f"the scan did not see {distribution}"
    assert "kgslab/widgets/base.py" in found["ipywidgets"]
    assert not {"kgslab", "harness", "os", "sklearn"} & set(found)


def test_the_scanner_keeps_required_imports_and_drops_optional_ones():
    source = (
        "import numpy as np\nfrom scipy.linalg import eigh\nfrom . import sibling\nimport os.path\n"
        "try:\n    import tomllib\nexcept ModuleNotFoundError:\n    import tomli as tomllib\n"
        "if sys.version_info < (3, 11):\n    import exceptiongroup\n"
        "try:\n    import pandas\nexcept ValueError:\n    pass\n"
        "def f():\n    import sklearn.svm\n")
    # tomllib is optional (its ImportError is handled); tomli, the fallback, is what older Pythons need.
    assert imports_in(source) == {"numpy", "scipy", "os", "tomli", "pandas", "sklearn"}


def test_notebook_magics_are_dropped(tmp_path):
    notebook = tmp_path / "n.ipynb"
    notebook.write_text(json.dumps({"cells": [
        {"cell_type": "code", "source": ["%matplotlib inline\n", "import numpy as np\n", "!ls\n"]},
        {"cell_type": "code", "source": "%%bash\necho hi\n"},
        {"cell_type": "markdown", "source": "import not_code"}]}))
    assert imports_in(notebook_code(notebook)) == {"numpy"}


def test_environment_yml_is_what_repo2docker_builds_from():
    """repo2docker picks environment.yml at the root; it installs a local pip requirement (`-e .`) after
    copying the repository, so the kit is importable; JupyterLab and the widget front end must be in it
    for the Binder link (urlpath=lab/...) to open the notebooks with working sliders."""
    assert (ROOT / "environment.yml").is_file()
    assert not any((ROOT / name).exists() for name in ("binder", ".binder")), \
        "a binder/ folder would make repo2docker ignore the root environment.yml"
    declared = environment_yml_packages()
    for package in ("jupyterlab", "ipywidgets", "ipykernel", "matplotlib"):
        assert package in declared, f"Binder needs {package} in environment.yml"
    readme = (ROOT / "README.md").read_text()
    assert re.search(r"mybinder\.org/v2/gh/[^)\s]+\?urlpath=lab/tree/notebooks", readme), \
        "README's Binder link should open JupyterLab on notebooks/"
    for notebook in sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb")):
        kernel = json.loads(notebook.read_text())["metadata"].get("kernelspec", {}).get("name")
        assert kernel == "python3", f"{notebook.name} asks for kernel {kernel!r}; Binder has python3"

"""Where the kit's files are: the data, the solution notebooks and the student notebooks.

The repository keeps them in three top-level folders, ``data/``, ``solutions/`` and
``notebooks/``.  pyproject.toml and setup.py map ``data/`` and ``notebooks/`` onto packages
of their own (``kgslab._files``, ``kgslab._notebooks``; the small ``__init__.py`` in each
folder is what makes it one), so the files ship inside the wheel and are found the same way
in both installs, with ``importlib.resources``:

* installed from a wheel: the folders inside site-packages (``kgslab/_files/`` ...);
* installed editable from a clone (``make lab``, ``make test``): the clone's own folders,
  so ``make data`` and ``make notebooks`` still write into the repository.

The solutions do not ship: the wheel is what a student installs, and a grade is only worth
defending if the student's install holds no answers.  `kit_folder("solutions")` is the
clone's ``solutions/`` (an editable install, an instructor's machine); in an installed wheel
it does not exist, and `solutions_missing()` says where instructors get them.

Every other module asks here; none guesses from its own location on disk.
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path

#: folder in the repository -> the package it is installed as.
PACKAGES = {"data": "kgslab._files", "notebooks": "kgslab._notebooks"}

#: the clone this kit runs from, when it runs from one (an editable install); None for an installed wheel.
_CLONE = Path(str(importlib.resources.files("kgslab"))).resolve().parent
if not ((_CLONE / "pyproject.toml").is_file() and (_CLONE / "kgslab" / "_resources.py").is_file()):
    _CLONE = None


def from_clone() -> bool:
    """True when the kit runs from a clone (an editable install), False for an installed wheel."""
    return _CLONE is not None


def solutions_missing() -> str:
    """Where an instructor gets the solutions when this install has none (a student's wheel never has them)."""
    return ("the solutions are not part of the installed kit (a student's wheel carries none); instructors get "
            "them from the repository (solutions/ in a clone: git clone the kit, then `make lab` or "
            "`pip install -e .`) or from the instructor artifact `make solutions-zip` builds in a clone "
            "(dist/kgslab-solutions.zip)")


def kit_folder(name: str) -> Path:
    """The folder that holds the kit's `name` files ("data", "solutions" or "notebooks").

    For "solutions": the clone's solutions/ (which may not exist: an installed wheel has none).
    """
    if name == "solutions":
        return (_CLONE or Path(str(importlib.resources.files("kgslab"))) / "_no_solutions") / "solutions"
    if name not in PACKAGES:
        raise ValueError(f"name must be one of {sorted([*PACKAGES, 'solutions'])}, got {name!r}")
    package = PACKAGES[name]
    try:
        folder = importlib.resources.files(package)
    except ModuleNotFoundError as error:
        raise ModuleNotFoundError(
            f"the kit's {name} files (package {package}) are not installed; this kgslab installation predates "
            f"them or is broken: reinstall it (`pip install -e .` in a clone, `make .venv/.installed`, or "
            f"the kit's wheel again: `make wheel` in a clone, then `pip install dist/kgslab-*.whl`)") from error
    if not isinstance(folder, Path):
        # A zipped install: the loaders read files by path, which a zip cannot give.
        raise RuntimeError(f"kgslab is installed as a zip archive ({folder}); install it unpacked (pip does)")
    return folder


def backup_path(target: Path) -> Path:
    """The first free NAME.backup-N.ipynb next to target: where a tool keeps a copy before it replaces it.

    One name for every tool (release, notebooks), so an instructor looks for backups in one place.
    """
    number = 1
    while (candidate := target.with_name(f"{target.stem}.backup-{number}{target.suffix}")).exists():
        number += 1
    return candidate

"""Where the kit's files are: the data, the solution notebooks and the student notebooks.

The repository keeps them in three top-level folders, ``data/``, ``solutions/`` and
``notebooks/``.  pyproject.toml and setup.py map each folder onto a package of its own
(``kgslab._files``, ``kgslab._solutions``, ``kgslab._notebooks``; the small ``__init__.py``
in each folder is what makes it one), so the files ship inside the wheel and are found
the same way in both installs, with ``importlib.resources``:

* installed from a wheel: the folders inside site-packages (``kgslab/_files/`` ...);
* installed editable from a clone (``make lab``, ``make test``): the clone's own folders,
  so ``make data`` and ``make notebooks`` still write into the repository.

Every other module asks here; none guesses from its own location on disk.
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path

#: folder in the repository -> the package it is installed as.
PACKAGES = {"data": "kgslab._files", "solutions": "kgslab._solutions", "notebooks": "kgslab._notebooks"}


def kit_folder(name: str) -> Path:
    """The folder that holds the kit's `name` files ("data", "solutions" or "notebooks")."""
    if name not in PACKAGES:
        raise ValueError(f"name must be one of {sorted(PACKAGES)}, got {name!r}")
    package = PACKAGES[name]
    try:
        folder = importlib.resources.files(package)
    except ModuleNotFoundError as error:
        raise ModuleNotFoundError(
            f"the kit's {name} files (package {package}) are not installed; this kgslab installation predates "
            f"them or is broken: reinstall it (`pip install -e .` in a clone, `make .venv/.installed`, or "
            f"`pip install kgslab`)") from error
    if not isinstance(folder, Path):
        # A zipped install: the loaders read files by path, which a zip cannot give.
        raise RuntimeError(f"kgslab is installed as a zip archive ({folder}); install it unpacked (pip does)")
    return folder

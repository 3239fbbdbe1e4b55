"""The package list, which pyproject.toml cannot express: kgslab's own packages plus data/ as package data.

The repository's data/ and notebooks/ folders are installed as the packages kgslab._files
and kgslab._notebooks (the folder mapping and the file globs are in pyproject.toml,
[tool.setuptools.package-dir] and [tool.setuptools.package-data]).  solutions/ does not ship:
the wheel is what students install (instructors: the repository, or `make solutions-zip`).
Every subfolder of data/ (constitution/, sky_masks/, results/, and any added later) is listed
as a package too, so that its files ship without setuptools' "package would be ignored" warning.
kgslab's own packages are found as namespace packages, so a subfolder of kgslab/ ships whether
or not it has an __init__.py. Everything else about the build is in pyproject.toml.
"""

from setuptools import find_namespace_packages, setup

NOT_PACKAGES = ["*__pycache__*", "*.ipynb_checkpoints*"]
kit = find_namespace_packages(include=["kgslab", "kgslab.*"], exclude=NOT_PACKAGES)
data_subfolders = find_namespace_packages(where="data", exclude=NOT_PACKAGES)
setup(packages=kit + ["kgslab._files", "kgslab._notebooks"]
      + [f"kgslab._files.{name}" for name in data_subfolders])

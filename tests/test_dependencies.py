"""pyproject.toml, environment.yml and the README tell the same story."""

import re
from pathlib import Path

import pytest
import yaml

# tomllib is in the standard library from Python 3.11; on 3.10 these checks are skipped
# rather than adding a dependency that conda cannot declare for one Python version only.
tomllib = pytest.importorskip("tomllib", reason="tomllib needs Python 3.11; checked on newer Pythons")

ROOT = Path(__file__).resolve().parents[1]


def _split(requirement: str):
    """'numpy>=1.24,<3' -> ('numpy', '<3,>=1.24'): a normalised name and a sorted specifier."""
    match = re.match(r"^\s*([A-Za-z0-9_.\-]+)\s*(.*)$", requirement)
    name = re.sub(r"[-_.]+", "-", match.group(1)).lower()
    specifier = ",".join(sorted(part.strip() for part in match.group(2).split(",") if part.strip()))
    return name, specifier


def pyproject_requirements():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = project["dependencies"] + project["optional-dependencies"]["test"]
    return dict(_split(r) for r in requirements)


# conda-forge names that differ from the PyPI names in pyproject.toml.
CONDA_TO_PYPI = {"playwright-python": "playwright"}


def environment_requirements():
    environment = yaml.safe_load((ROOT / "environment.yml").read_text())
    conda = [entry for entry in environment["dependencies"] if isinstance(entry, str)]
    pip_entries = [entry for entry in environment["dependencies"] if isinstance(entry, dict)]
    assert pip_entries and pip_entries[0]["pip"] == ["-e ."], "environment.yml must pip-install the kit itself"
    requirements = dict(_split(r) for r in conda if _split(r)[0] not in ("python", "pip"))
    return {CONDA_TO_PYPI.get(name, name): specifier for name, specifier in requirements.items()}


def test_environment_yml_matches_pyproject():
    ours, theirs = pyproject_requirements(), environment_requirements()
    assert set(ours) == set(theirs), (
        f"only in pyproject.toml: {sorted(set(ours) - set(theirs))}; "
        f"only in environment.yml: {sorted(set(theirs) - set(ours))}")
    for name in ours:
        assert ours[name] == theirs[name], f"{name}: pyproject says {ours[name]!r}, environment.yml {theirs[name]!r}"


def test_environment_yml_uses_conda_forge_and_python_version():
    environment = yaml.safe_load((ROOT / "environment.yml").read_text())
    assert environment["channels"] == ["conda-forge"]
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert f"python{requires}" in environment["dependencies"]


def test_readme_names_the_commands_and_every_notebook():
    readme = (ROOT / "README.md").read_text()
    for command in ("make lab", "make test", "conda env create -f environment.yml", "make notebooks",
                    "KGSLAB_FULL=1"):
        assert command in readme, f"README does not mention `{command}`"
    for notebook in sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb")):
        assert notebook.stem in readme, f"README does not list {notebook.stem}"


def test_ci_runs_the_readme_test_command():
    assert "make test" in (ROOT / ".ci" / "run").read_text()


def _release(version: str) -> tuple[int, ...]:
    """'6.0' and '6.0.0' are the same release."""
    parts = [int(part) for part in version.split(".")]
    while parts and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def test_oldest_constraints_pin_exactly_the_floors_of_pyproject():
    """CI's oldest job installs .ci/constraints-oldest.txt: it must be the floors pyproject.toml declares."""
    floors = {}
    for name, specifier in pyproject_requirements().items():
        found = re.search(r"(?:^|,)>=([0-9.]+)(?:,|$)", specifier)
        assert found, f"{name} has no floor (>=X) in pyproject.toml; every dependency needs one"
        floors[name] = found.group(1)
    pins = {}
    for line in (ROOT / ".ci" / "constraints-oldest.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            match = re.fullmatch(r"([A-Za-z0-9_.\-]+)==([0-9.]+)", line)
            assert match, f".ci/constraints-oldest.txt: {line!r} is not NAME==VERSION"
            pins[_split(match.group(1))[0]] = match.group(2)
    assert set(pins) == set(floors), (
        f"pin in .ci/constraints-oldest.txt, at its floor: {sorted(set(floors) - set(pins))}; "
        f"not declared in pyproject.toml: {sorted(set(pins) - set(floors))}")
    for name, floor in floors.items():
        assert _release(pins[name]) == _release(floor), \
            f"{name}: pyproject.toml's floor is {floor}, .ci/constraints-oldest.txt pins {pins[name]}"


# A cap that a current release really needs goes here, with the reason (and the issue that removes it).
ALLOWED_CAPS: dict[str, str] = {
    "arviz": "arviz 1.x is the ArviZverse rewrite and needs Python >= 3.12; CI runs Python 3.11, so the kit's "
             "tests against it (tests/test_diagnostics.py) have never run on 1.x. Lift the cap with a 3.12 job.",
    "nbgrader": "kept from issue 15 (grading layout tested on 0.9.x); no current release is above it (0.9.6 is "
                "the newest), so it costs no student a downgrade today.",
}


def test_no_dependency_is_capped():
    """A cap (<X) makes pip downgrade, or refuse, a student's current environment; floors only."""
    capped = {name: spec for name, spec in pyproject_requirements().items() if "<" in spec and name not in ALLOWED_CAPS}
    assert not capped, (f"capped in pyproject.toml: {capped}; CI's newest job tests the newest releases: fix the "
                        f"kit, or add the cap to ALLOWED_CAPS with the reason")

"""The JupyterHub recipe (docs/jupyterhub.md, docs/hub/) agrees with itself and with the kit.

What nbgrader reads from the hub's nbgrader_config.py (with traitlets' loader, as nbgrader loads it) is the course
id and the exchange the instructor's course is built with; the students' image installs the kit's wheel (whose
version is pyproject's) and nbgrader as the test extra pins it, and copies no solutions; the start-up hook copies
the ten student notebooks and keeps a student's work. About two seconds.
"""

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from kgslab import assignments

ROOT = Path(__file__).resolve().parents[1]
HUB = ROOT / "docs" / "hub"
DOC = (ROOT / "docs" / "jupyterhub.md").read_text(encoding="utf-8")


def _load(folder: Path):
    from traitlets.config.loader import PyFileConfigLoader
    return PyFileConfigLoader("nbgrader_config.py", path=str(folder)).load_config()


def _pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_hub_config_names_the_course_and_the_exchange_the_instructor_builds_with(tmp_path):
    hub = _load(HUB)
    assert hub.CourseDirectory.course_id == assignments.COURSE_ID
    exchanges = set(re.findall(r"kgslab\.assignments course --exchange (\S+)", DOC))
    assert exchanges == {hub.Exchange.root}, "the recipe's --exchange and the hub's Exchange.root differ"
    assert f"mkdir -p {hub.Exchange.root} " in DOC and f"mountPath: {hub.Exchange.root}" in DOC
    # the course the recipe's command builds reads the same settings (a local stand-in for /srv/...)
    exchange = tmp_path / "srv" / "nbgrader" / "exchange"
    assert assignments.main([str(tmp_path / "course"), "--only", "01", "--exchange", str(exchange)]) == 0
    course = _load(tmp_path / "course")
    assert course.CourseDirectory.course_id == hub.CourseDirectory.course_id
    assert course.Exchange.root == str(exchange)


def test_nbgraders_own_apps_read_the_hubs_exchange_and_course(tmp_path, monkeypatch):
    """nbgrader's exchange classes, configured from the hub's file as a student's server loads it."""
    pytest.importorskip("nbgrader")
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange.default.submit import ExchangeSubmit
    config = _load(HUB)
    submit = ExchangeSubmit(coursedir=CourseDirectory(config=config), config=config)
    assert submit.root == "/srv/nbgrader/exchange" and submit.coursedir.course_id == "kgslab"


def test_the_students_image_installs_the_kits_wheel_and_nbgrader_and_no_solutions():
    version = _pyproject()["project"]["version"]
    wheel = f"kgslab-{version}-py3-none-any.whl"
    requirements = [line.strip() for line in (HUB / "requirements.txt").read_text().splitlines()
                    if line.strip() and not line.startswith("#")]
    nbgrader_pin = next(spec for spec in _pyproject()["project"]["optional-dependencies"]["test"]
                        if spec.startswith("nbgrader"))
    assert requirements == [f"./{wheel}", nbgrader_pin]
    dockerfile = (HUB / "Dockerfile").read_text()
    instructions = [line for line in dockerfile.splitlines() if line and not line.lstrip().startswith("#")]
    assert f"COPY --chown=${{NB_UID}}:${{NB_GID}} requirements.txt {wheel} /tmp/kgslab/" in instructions
    assert any("pip install --no-cache-dir -r requirements.txt" in line for line in instructions)
    assert "COPY nbgrader_config.py /etc/jupyter/nbgrader_config.py" in instructions
    assert "COPY kgslab-notebooks.sh /usr/local/bin/before-notebook.d/kgslab-notebooks.sh" in instructions
    assert not re.search(r"solution", "\n".join(instructions), re.IGNORECASE)
    copied = {part for line in instructions if line.startswith("COPY") for part in line.split()[1:-1]
              if not part.startswith("--")}
    assert copied <= {"requirements.txt", wheel, "nbgrader_config.py", "kgslab-notebooks.sh"}
    assert f"cp dist/{wheel} docs/hub/" in DOC and f"cp dist/{wheel} docs/hub/" in dockerfile
    for name in copied - {wheel}:
        assert (HUB / name).is_file(), name


def test_the_wheel_copied_next_to_the_dockerfile_is_ignored_by_git():
    if not (ROOT / ".git").exists():
        pytest.skip("needs the git repository")
    done = subprocess.run(["git", "check-ignore", "--no-index", "docs/hub/kgslab-0.1.0-py3-none-any.whl",
                           "docs/hub/Dockerfile"], cwd=ROOT, capture_output=True, text=True)
    assert done.stdout.split() == ["docs/hub/kgslab-0.1.0-py3-none-any.whl"]


def test_the_start_up_hook_copies_the_notebooks_and_keeps_a_students_work(tmp_path):
    hook = HUB / "kgslab-notebooks.sh"
    assert os.access(hook, os.X_OK), "the hook must be executable (before-notebook.d runs it)"
    commands = [line for line in hook.read_text().splitlines() if line.strip() and not line.startswith("#")]
    assert commands and not any("--solutions" in line for line in commands)
    env = dict(os.environ, HOME=str(tmp_path), PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    first = subprocess.run(["bash", str(hook)], env=env, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    copied = sorted(path.name for path in (tmp_path / "kgslab").glob("*.ipynb"))
    assert len(copied) == 10 and copied[0].startswith("01_") and copied[-1].startswith("10_")
    work = tmp_path / "kgslab" / copied[0]
    work.write_text(work.read_text().replace('"outputs": []', '"outputs": [{"output_type": "stream", '
                                                               '"name": "stdout", "text": "mine"}]', 1))
    edited = work.read_text()
    again = subprocess.run(["bash", str(hook)], env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and work.read_text() == edited
    assert f"kept      {copied[0]}" in again.stdout

"""The JupyterHub recipe (docs/jupyterhub.md, docs/hub/) agrees with itself and with the kit.

What nbgrader reads from the hub's nbgrader_config.py (with traitlets' loader, as nbgrader loads it) is the course
id and the exchange the instructor's course is built with; the students' image installs the kit's wheel (whose
version is pyproject's) and nbgrader as the test extra pins it, copies no solutions, and locks the instructor
plugins it disables; the start-up hook copies the ten student notebooks, keeps a student's work and leaves a git
clone alone; the one-machine Spawner.cmd wrapper runs the hook, then the server with the hub's arguments; the
recipe's jupyterhub_config.py lines load and start instructors from their own clone's environment; formgrader's
course root is set where the instructor builds the course. A few seconds.
"""

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from kgslab import assignments
from kgslab._notebook_list import NOTEBOOKS

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
    # no path in the requirements file: pip reads it from the folder pip runs in, so `pip install -r
    # docs/hub/requirements.txt` from a clone failed ("looks like a filename, but the file does not exist")
    assert requirements == [nbgrader_pin]
    assert f"pip install -r docs/hub/requirements.txt dist/{wheel}" in DOC
    dockerfile = (HUB / "Dockerfile").read_text()
    instructions = [line for line in dockerfile.splitlines() if line and not line.lstrip().startswith("#")]
    assert f"COPY --chown=${{NB_UID}}:${{NB_GID}} requirements.txt {wheel} /tmp/kgslab/" in instructions
    assert any(f"pip install --no-cache-dir -r requirements.txt ./{wheel}" in line for line in instructions)
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
    assert copied == [f"{notebook.stem}.ipynb" for notebook in NOTEBOOKS]
    work = tmp_path / "kgslab" / copied[0]
    work.write_text(work.read_text().replace('"outputs": []', '"outputs": [{"output_type": "stream", '
                                                               '"name": "stdout", "text": "mine"}]', 1))
    edited = work.read_text()
    again = subprocess.run(["bash", str(hook)], env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and work.read_text() == edited
    assert f"kept      {copied[0]}" in again.stdout


def _run_hook(hook, home, **extra):
    env = dict(os.environ, HOME=str(home), PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
               **extra)
    return subprocess.run(["bash", str(hook)], env=env, capture_output=True, text=True, timeout=120)


def test_the_hook_leaves_an_instructors_clone_alone(tmp_path):
    clone = tmp_path / "kgslab"
    (clone / ".git").mkdir(parents=True)
    (clone / "README.md").write_text("the kit's clone")
    done = _run_hook(HUB / "kgslab-notebooks.sh", tmp_path)
    assert done.returncode == 0 and "is a git clone, left alone" in done.stderr
    assert sorted(path.name for path in clone.iterdir()) == [".git", "README.md"]     # git status stays clean


def test_the_single_machine_wrapper_runs_the_hook_then_the_server_with_the_hubs_arguments(tmp_path):
    wrapper = HUB / "kgslab-singleuser.sh"
    assert os.access(wrapper, os.X_OK), "Spawner.cmd must be executable"
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    for name in ("kgslab-singleuser.sh", "kgslab-notebooks.sh"):                  # installed side by side
        (bin_folder / name).write_bytes((HUB / name).read_bytes())
        (bin_folder / name).chmod(0o755)
    server = bin_folder / "fake-singleuser"
    server.write_text('#!/bin/bash\necho "server started with: $*"; ls "$HOME/kgslab" | wc -l\n')
    server.chmod(0o755)
    env = dict(os.environ, HOME=str(tmp_path), KGSLAB_SINGLEUSER=str(server),
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    done = subprocess.run([str(bin_folder / "kgslab-singleuser.sh"), "--port=12345", "--debug"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "server started with: --port=12345 --debug" in lines and lines[-1].strip() == str(len(NOTEBOOKS))   # hook ran first
    hub = _load_file(HUB / "jupyterhub_config.py")
    assert hub.Spawner.cmd == ["/usr/local/bin/kgslab-singleuser.sh"]
    assert "install -m 755 docs/hub/kgslab-singleuser.sh docs/hub/kgslab-notebooks.sh /usr/local/bin/" in DOC
    # an instructor's server starts from their clone's environment, a student's keeps the wrapper
    spawned = {}
    for name in ("instructor", "student1"):
        spawner = type("Spawner", (), {"user": type("User", (), {"name": name})(), "cmd": hub.Spawner.cmd})()
        hub.Spawner.pre_spawn_hook(spawner)
        spawned[name] = spawner.cmd
    assert spawned == {"instructor": ["/home/instructor/kgslab-instructor/.venv/bin/jupyterhub-singleuser"],
                       "student1": ["/usr/local/bin/kgslab-singleuser.sh"]}
    assert "git clone https://github.com/kgslab/kgslab.git ~/kgslab-instructor" in DOC


def _load_file(path: Path):
    from traitlets.config.loader import PyFileConfigLoader
    return PyFileConfigLoader(path.name, path=str(path.parent)).load_config()


def test_the_image_locks_every_plugin_it_disables_and_the_commands_take_those_names(tmp_path, monkeypatch):
    dockerfile = (HUB / "Dockerfile").read_text()
    disabled = re.findall(r"jupyter labextension disable --level=sys_prefix (\S+)", dockerfile)
    locked = re.findall(r"jupyter labextension lock --level=sys_prefix (\S+)", dockerfile)
    assert disabled == locked == ["@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:create-assignment"]
    for plugin in disabled:
        assert f'labextension lock --level=sys_prefix "$plugin"' in DOC and plugin in DOC
    # what `jupyter labextension disable/lock` call, at a level this test may write (a config folder of its own):
    # JupyterLab records the lock (in-process: the command line starts JupyterLab's app each time, 7 s a call)
    from jupyterlab.commands import disable_extension, lock_extension
    monkeypatch.setenv("JUPYTER_CONFIG_DIR", str(tmp_path))
    for plugin in disabled:
        disable_extension(plugin, level="user")
        lock_extension(plugin, level="user")
    import json
    page = json.loads((tmp_path / "labconfig" / "page_config.json").read_text())
    assert page["lockedExtensions"] == page["disabledExtensions"] == {plugin: True for plugin in disabled}


def test_formgrader_is_told_where_the_course_is():
    """A hub server starts in the home folder: formgrader lists nothing until CourseDirectory.root names the
    course, which the recipe writes where it builds the course."""
    section = DOC[DOC.index("## 4. The instructor's server"):]
    build = section.index("python -m kgslab.assignments course --exchange")
    root = section.index("c.CourseDirectory.root = '$PWD/course'")
    assert build < root < section.index("cd course")

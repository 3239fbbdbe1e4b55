"""The hub recipe under a real JupyterHub (`make test-hub`): JupyterHub from PyPI, configurable-http-proxy from npm.

On 127.0.0.1, with local Unix users made for the test and removed after (it runs as root), and the recipe's own
files (docs/hub/): the students' environment is a fresh virtual environment installed and locked as the
one-machine route says (`pip install -r docs/hub/requirements.txt <wheel>`, formgrader and create-assignment
disabled and locked); the hub runs the recipe's `jupyterhub_config.py` lines with two stand-ins for machine-wide
places (the folder of the `Spawner.cmd` wrapper, for /usr/local/bin; the exchange and /etc/jupyter, given to the
servers as JUPYTER_CONFIG_PATH). Asserted, step by step:

* a student's server, started through the hub's REST API, runs the start-up hook: ~/kgslab holds the ten
  notebooks, owned by the student;
* the instructor (this process's clone and .venv) builds the course against the exchange and releases 01;
* two students fetch it and submit it as their Unix users with the students' nbgrader (one solved, one blank);
* the instructor collects, grades with `python -m kgslab.grade`, generates and releases feedback; the gradebook
  has full points for the solved one and 0 for the blank one;
* each student fetches their feedback as their Unix user;
* formgrader, told the course's root as the recipe says, lists the assignment.

Minutes (two pip installs of the kit's dependencies, from the package index); skipped unless KGSLAB_HUB_TEST=1
and run as root on Linux with npm. Not in `make test`.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

from kgslab._notebook_list import NOTEBOOKS

ROOT = Path(__file__).resolve().parents[1]
HUB = ROOT / "docs" / "hub"
STEM = "01_duality"
STUDENTS = {"kgshub-solved": "solved", "kgshub-blank": "blank"}

pytestmark = pytest.mark.skipif(
    os.environ.get("KGSLAB_HUB_TEST") != "1" or not sys.platform.startswith("linux") or os.geteuid() != 0
    or not shutil.which("npm") or not shutil.which("useradd"),
    reason="minutes, as root with npm and useradd: run with `make test-hub` (KGSLAB_HUB_TEST=1)")


def _run(command, **kwargs):
    done = subprocess.run(command, capture_output=True, text=True, timeout=kwargs.pop("timeout", 1800), **kwargs)
    assert done.returncode == 0, f"{command} failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _api(url, token, method="GET", body=None):
    request = urllib.request.Request(url, method=method, data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        text = answer.read().decode()
        return answer.status, (json.loads(text) if text else None)


@pytest.fixture(scope="module")
def place():
    """A folder of its own in the system's temporary folder that the test users can traverse, removed after (not
    pytest's, whose root every pytest session of this user makes private again)."""
    folder = Path(tempfile.mkdtemp(prefix="kgslab-hub-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def students_env(place):
    """The students' environment as the one-machine route installs it, with jupyterhub (the hub's own)."""
    dist = place / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(dist), str(ROOT)])
    wheel = next(dist.glob("kgslab-*.whl"))
    env = place / "students-env"
    # the students' servers run as their users: the interpreter must be one every user may run (not a
    # Python under root's home, as pyenv's is); the system's, or KGSLAB_HUB_PYTHON
    python = os.environ.get("KGSLAB_HUB_PYTHON", "/usr/bin/python3")
    _run([python, "-m", "venv", str(env)])
    _run([str(env / "bin" / "pip"), "install", "--quiet", "jupyterhub", "-r", str(HUB / "requirements.txt"),
          str(wheel)])
    jupyter = str(env / "bin" / "jupyter")
    _run([jupyter, "server", "extension", "disable", "--sys-prefix", "nbgrader.server_extensions.formgrader"])
    for plugin in ("@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:create-assignment"):
        _run([jupyter, "labextension", "disable", "--level=sys_prefix", plugin])
        _run([jupyter, "labextension", "lock", "--level=sys_prefix", plugin])
    return env


@pytest.fixture(scope="module")
def proxy(place):
    folder = place / "chp"
    folder.mkdir()
    _run(["npm", "install", "--no-audit", "--no-fund", "--silent", "configurable-http-proxy"], cwd=folder)
    return folder / "node_modules" / ".bin" / "configurable-http-proxy"


@pytest.fixture(scope="module")
def users():
    made = []
    try:
        for name in STUDENTS:
            assert subprocess.run(["id", name], capture_output=True).returncode != 0, f"user {name} exists already"
            _run(["useradd", "--create-home", "--shell", "/bin/bash", name])
            made.append(name)
        yield made
    finally:
        for name in made:
            subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True)
            subprocess.run(["userdel", "--remove", name], capture_output=True)


def _as(user, command, env, cwd):
    home = pwd.getpwnam(user).pw_dir
    return _run(["runuser", "-u", user, "--", "env", f"HOME={home}", f"USER={user}", *[f"{k}={v}" for k, v in
                                                                                     env.items()], *command],
                cwd=cwd)


def test_the_recipe_under_a_real_hub(place, students_env, proxy, users):
    exchange, config_dir, bin_folder = place / "exchange", place / "etc-jupyter", place / "bin"
    for folder in (exchange, config_dir, bin_folder):
        folder.mkdir()
    exchange.chmod(0o777)
    # /etc/jupyter/nbgrader_config.py: the recipe's file, with this test's exchange instead of /srv/nbgrader/exchange
    (config_dir / "nbgrader_config.py").write_text((HUB / "nbgrader_config.py").read_text()
                                                   + f"\nc.Exchange.root = {str(exchange)!r}\n")
    for name in ("kgslab-singleuser.sh", "kgslab-notebooks.sh"):              # install -m 755 ... /usr/local/bin/
        shutil.copy(HUB / name, bin_folder / name)
        (bin_folder / name).chmod(0o755)
    server_env = {"PATH": f"{students_env / 'bin'}:/usr/bin:/bin", "JUPYTER_CONFIG_PATH": str(config_dir)}
    port, api_port, hub_port, token = _free_port(), _free_port(), _free_port(), "kgslab-hub-test-token-0123456789"
    hub_config = place / "jupyterhub_config.py"
    hub_config.write_text(
        f"c = get_config()\nload_subconfig({str(HUB / 'jupyterhub_config.py')!r})   # the recipe's lines\n"
        f"c.Spawner.cmd = [{str(bin_folder / 'kgslab-singleuser.sh')!r}]   # its /usr/local/bin, here\n"
        f"c.Spawner.environment = {server_env!r}\n"
        f"c.Spawner.start_timeout = 300\nc.Spawner.http_timeout = 300\n"
        f"c.JupyterHub.bind_url = 'http://127.0.0.1:{port}'\nc.JupyterHub.hub_bind_url = 'http://127.0.0.1:{hub_port}'\n"
        f"c.ConfigurableHTTPProxy.command = [{str(proxy)!r}]\n"
        f"c.ConfigurableHTTPProxy.api_url = 'http://127.0.0.1:{api_port}'\n"
        f"c.JupyterHub.authenticator_class = 'dummy'\nc.Authenticator.allowed_users = {set(users)!r}\n"
        f"c.JupyterHub.services = [{{'name': 'kgslab-test', 'api_token': {token!r}}}]\n"
        f"c.JupyterHub.load_roles = [{{'name': 'kgslab-test', 'services': ['kgslab-test'], "
        f"'scopes': ['admin:users', 'admin:servers', 'list:users', 'read:users']}}]\n"
        f"c.JupyterHub.db_url = 'sqlite:///{place / 'jupyterhub.sqlite'}'\n"
        f"c.JupyterHub.cookie_secret_file = {str(place / 'cookie_secret')!r}\n"
        f"c.JupyterHub.pid_file = {str(place / 'jupyterhub.pid')!r}\n")
    log = open(place / "jupyterhub.log", "w")
    hub = subprocess.Popen([str(students_env / "bin" / "jupyterhub"), "-f", str(hub_config)], cwd=place,
                           stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                           env=dict(os.environ, PATH=f"{students_env / 'bin'}:{os.environ['PATH']}"))
    api = f"http://127.0.0.1:{port}/hub/api"
    try:
        for _ in range(120):
            time.sleep(1)
            try:
                if _api(api, token)[0] == 200:
                    break
            except OSError:
                assert hub.poll() is None, (place / "jupyterhub.log").read_text()[-3000:]
        # a student's server, through the hub: the start-up hook has copied the ten notebooks
        for user in users:
            status, _ = _api(f"{api}/users/{user}/server", token, "POST", {})
            assert status in (201, 202), status
        for user in users:
            for _ in range(300):
                model = _api(f"{api}/users/{user}", token)[1]
                if model["servers"].get("", {}).get("ready"):
                    break
                time.sleep(1)
            else:
                raise AssertionError(f"{user}'s server did not start:\n"
                                     + (place / "jupyterhub.log").read_text()[-4000:])
            home = Path(pwd.getpwnam(user).pw_dir)
            notebooks = sorted(path.name for path in (home / "kgslab").glob("*.ipynb"))
            assert notebooks == [f"{notebook.stem}.ipynb" for notebook in NOTEBOOKS], notebooks
            assert (home / "kgslab" / notebooks[0]).stat().st_uid == pwd.getpwnam(user).pw_uid

        # the instructor: the course against the exchange, 01 released (this clone's .venv)
        course = place / "course"
        _run([sys.executable, "-m", "kgslab.assignments", str(course), "--only", "01", "--exchange", str(exchange)])
        nbgrader = [sys.executable, "-m", "nbgrader"]
        instructor_env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
        _run([*nbgrader, "generate_assignment", STEM], cwd=course, env=instructor_env)
        _run([*nbgrader, "release_assignment", STEM], cwd=course, env=instructor_env)

        # the students fetch and submit as their Unix users, with the students' nbgrader
        student_env = {"PATH": server_env["PATH"], "JUPYTER_CONFIG_PATH": str(config_dir)}
        source = nbformat.read(course / "source" / STEM / f"{STEM}.ipynb", as_version=4)
        for user, kind in STUDENTS.items():
            home = Path(pwd.getpwnam(user).pw_dir)
            _as(user, ["nbgrader", "fetch_assignment", STEM], student_env, home)
            fetched = home / STEM / f"{STEM}.ipynb"
            assert fetched.is_file()
            if kind == "solved":
                nbformat.write(source, fetched)
                shutil.chown(fetched, user, user)
            _as(user, ["nbgrader", "submit", STEM], student_env, home)

        # collect, grade with kgslab.grade, feedback
        _run([*nbgrader, "collect", STEM], cwd=course, env=instructor_env)
        _run([sys.executable, "-m", "kgslab.grade", str(course), STEM, "--jobs", "2", "--quiet"], env=instructor_env)
        from nbgrader.api import Gradebook
        with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
            scores = {user: gradebook.find_submission(STEM, user) for user in STUDENTS}
            got = {user: (s.code_score, s.max_code_score) for user, s in scores.items()}
        full = got["kgshub-solved"][1]
        assert full > 0 and got == {"kgshub-solved": (full, full), "kgshub-blank": (0.0, full)}, got
        _run([*nbgrader, "generate_feedback", STEM], cwd=course, env=instructor_env)
        _run([*nbgrader, "release_feedback", STEM], cwd=course, env=instructor_env)
        for user in STUDENTS:
            home = Path(pwd.getpwnam(user).pw_dir)
            _as(user, ["nbgrader", "fetch_feedback", STEM], student_env, home)
            assert list((home / STEM / "feedback").glob(f"*/{STEM}.html")), f"{user} got no feedback"

        # formgrader, told the course's root as the recipe does, lists the assignment
        assert _formgrader_assignments(course, place) == [STEM]
    except BaseException:
        log.flush()
        print("jupyterhub's log, its end:\n" + (place / "jupyterhub.log").read_text()[-8000:], flush=True)
        raise
    finally:
        os.killpg(hub.pid, signal.SIGTERM)
        try:
            hub.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(hub.pid, signal.SIGKILL)
        log.close()


def _formgrader_assignments(course: Path, place: Path) -> list[str]:
    config = place / "instructor-jupyter"
    config.mkdir()
    (config / "nbgrader_config.py").write_text(f"c.CourseDirectory.root = {str(course)!r}\n")   # the recipe's line
    port, token = _free_port(), "kgslab-formgrader-token"
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(config), JUPYTER_TOKEN=token,
               PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    server = subprocess.Popen([sys.executable, "-m", "jupyter", "server", "--no-browser", f"--port={port}",
                               "--allow-root"], cwd=place, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, start_new_session=True)
    try:
        for _ in range(120):
            time.sleep(1)
            try:
                status, listed = _api(f"http://127.0.0.1:{port}/formgrader/api/assignments", token)
                return sorted(item["name"] for item in listed)
            except OSError:
                assert server.poll() is None, server.stdout.read().decode()[-3000:]
        raise AssertionError("formgrader did not answer within 2 minutes")
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)

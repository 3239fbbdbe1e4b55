"""JupyterLab in a real browser: one server and one headless Chromium for the whole session.

The tests here open every solution notebook in JupyterLab, run all cells and move
every slider panel with the keyboard, as a student would.  They need Debian's
Chromium (``/usr/bin/chromium``, or the binary named by ``KGSLAB_CHROMIUM``) and
the ``playwright`` package (in the ``test`` extra); Playwright's own browser
download is never used.  Without either, every test here is skipped with a
reason that says how to enable them.

What the fixtures set up, and why:

* ``lab_server``: a temporary copy of the repository (JupyterLab saves notebooks
  it opens, and the tests must not touch the work tree), then ``jupyter lab`` on
  a free loopback port with a one-off token, its config, runtime, settings and
  workspace folders all inside the temporary folder.  The kernel imports kgslab
  from the copy (``PYTHONPATH``).  The server is stopped at the end of the session
  and its kernels with it.
* ``browser``: Chromium started headless with ``--no-sandbox`` (needed as root)
  and every background-networking feature off: the machine has no network, and
  the tests must not depend on one.

Environment variables: ``KGSLAB_BROWSER_NOTEBOOKS=02,03`` runs only the notebooks
whose names start with those prefixes; ``KGSLAB_BROWSER_EXTRA=/tmp/my.ipynb`` adds
notebooks from outside the repository (try one before committing it);
``KGSLAB_SCREENSHOTS=<folder>`` moves the screenshots (default ``tests/browser/screenshots/``);
``KGSLAB_REQUIRE_BROWSER=1`` (set by ``.ci/run``) turns the skip into an error.
"""

from __future__ import annotations

import importlib.util
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from labdriver import REPORT, SCREENSHOTS, solution_notebooks

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CHROMIUM = Path(os.environ.get("KGSLAB_CHROMIUM", "/usr/bin/chromium"))

HOW_TO_ENABLE = (
    "to enable the browser tests install Debian's Chromium "
    "(`sudo apt-get install chromium chromium-driver`, or set KGSLAB_CHROMIUM to a Chromium binary) "
    "and Playwright for Python (`pip install -e '.[test]'`); `.ci/run` does both")

# Chromium as root needs --no-sandbox; the rest keep it off the network (this machine has none).
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--no-default-browser-check",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--disable-domain-reliability",
    "--disable-client-side-phishing-detection", "--disable-breakpad", "--metrics-recording-only",
    "--mute-audio", "--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication",
]

# JupyterLab user settings for the test server: every cell in the DOM (so widgets render off screen too),
# no news or update checks (they would reach for the network).
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": '{"windowingMode": "none"}',
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings":
        '{"fetchNews": "false", "checkForUpdates": false}',
}

# What the served copy of the repository leaves out. ".venv*": .venv-oldest too, which CI creates (1.1 GB).
COPY_IGNORE = shutil.ignore_patterns(".venv*", ".hypothesis", ".git", "__pycache__", ".pytest_cache", "*.egg-info",
                                     ".ipynb_checkpoints", "screenshots", "build", "dist", "results")


def why_skip() -> str | None:
    """None when Chromium and Playwright are both here, else the reason (with how to enable the tests)."""
    missing = []
    if not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)):
        missing.append(f"no Chromium at {CHROMIUM}")
    if importlib.util.find_spec("playwright") is None:
        missing.append("the playwright package is not installed")
    return f"{' and '.join(missing)}: {HOW_TO_ENABLE}" if missing else None


def pytest_configure(config):
    config.addinivalue_line("markers", "browser: end-to-end test in JupyterLab and headless Chromium")


def pytest_collection_modifyitems(config, items):
    reason = why_skip()
    # The tests that need the browser are those using its fixtures; the helpers' own tests run anywhere.
    needs_browser = [item for item in items if HERE in Path(str(item.path)).parents
                     and {"browser", "lab_server"} & set(getattr(item, "fixturenames", ()))]
    if reason and needs_browser and os.environ.get("KGSLAB_REQUIRE_BROWSER") == "1":
        # CI (.ci/run) sets this: there a skipped browser suite would hide a broken widget.
        raise pytest.UsageError(f"KGSLAB_REQUIRE_BROWSER=1 but {reason}")
    for item in needs_browser:
        item.add_marker(pytest.mark.browser)
        if reason:
            item.add_marker(pytest.mark.skip(reason=reason))


def pytest_terminal_summary(terminalreporter):
    if not (REPORT["screenshots"] or REPORT["run_seconds"]):
        return
    write = terminalreporter.write_line
    terminalreporter.section("browser tests")
    for name, seconds in REPORT["run_seconds"].items():
        write(f"{name}: opened and ran all cells in JupyterLab in {seconds:.1f} s")
    if REPORT["screenshots"]:
        write(f"screenshots ({len(REPORT['screenshots'])}) in {SCREENSHOTS}")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class LabServer:
    url: str
    token: str
    root: Path
    log_path: Path
    process: subprocess.Popen

    def log_tail(self, offset: int = 0) -> str:
        """The server's log (which holds the kernels' stderr) from byte `offset` on."""
        with open(self.log_path, "rb") as log:
            log.seek(offset)
            return log.read().decode("utf-8", "replace")

    def log_size(self) -> int:
        return self.log_path.stat().st_size


def _wait_until_up(url: str, process: subprocess.Popen, log_path: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"jupyter lab exited with code {process.returncode}:\n"
                               f"{log_path.read_text(errors='replace')[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"jupyter lab did not answer {url} within {timeout:.0f} s:\n"
                       f"{log_path.read_text(errors='replace')[-3000:]}")


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory):
    """`jupyter lab` on a free loopback port with a one-off token, serving a temporary copy of the repository."""
    base = tmp_path_factory.mktemp("kgslab-lab")
    root = base / "kgslab"
    shutil.copytree(ROOT, root, ignore=COPY_IGNORE)
    for notebook in solution_notebooks():  # the KGSLAB_BROWSER_EXTRA ones, from outside the repository
        if not (root / "solutions" / notebook.name).exists():
            shutil.copy2(notebook, root / "solutions" / notebook.name)
    settings = base / "settings"
    for relative, text in LAB_SETTINGS.items():
        (settings / relative).parent.mkdir(parents=True, exist_ok=True)
        (settings / relative).write_text(text)
    for folder in ("config", "runtime", "workspaces", "ipython"):
        (base / folder).mkdir()

    port, token = _free_port(), secrets.token_hex(24)
    env = {key: value for key, value in os.environ.items() if key != "KGSLAB_FULL"}
    env.update(PYTHONPATH=os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")])),
               JUPYTER_CONFIG_DIR=str(base / "config"), JUPYTER_RUNTIME_DIR=str(base / "runtime"),
               IPYTHONDIR=str(base / "ipython"), JUPYTER_PLATFORM_DIRS="1", PYDEVD_DISABLE_FILE_VALIDATION="1")
    command = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
               "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
               "--LabApp.expose_app_in_browser=True", "--LabApp.extension_manager=readonly",
               f"--LabApp.user_settings_dir={settings}", f"--LabApp.workspaces_dir={base / 'workspaces'}",
               "--ServerApp.allow_root=True"]
    log_path = base / "jupyter-lab.log"
    with open(log_path, "wb") as log:
        # A session of its own, so that the teardown can stop the server and every kernel it started.
        process = subprocess.Popen(command, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(f"{url}/api/status?token={token}", process, log_path, timeout=120)
        yield LabServer(url=url, token=token, root=root, log_path=log_path, process=process)
    finally:
        _stop(process)


def _stop(process: subprocess.Popen) -> None:
    """SIGTERM lets jupyter shut its kernels down; whatever is left of its process group is killed."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if process.poll() is None:
        process.wait(timeout=10)


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium from the system, driven by Playwright (whose own browser download is never used)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()

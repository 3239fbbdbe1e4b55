"""Drive a notebook in JupyterLab through the page, as a student would, and read back what it shows.

The server runs with ``expose_app_in_browser``, so the page's ``window.jupyterapp``
gives the notebook model: which cells ran, which outputs are errors and which are
widget views.  Everything the student sees (the rendered widgets, the picture of a
panel, its line of numbers, the slider handles) is read from the DOM, and sliders
are moved with the keyboard on the focused handle, exactly as in the browser.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCREENSHOTS = Path(os.environ.get("KGSLAB_SCREENSHOTS", HERE / "screenshots")).resolve()

ROOT = HERE.parents[1]


def solution_notebooks() -> list[Path]:
    """solutions/NN_*.ipynb, narrowed by KGSLAB_BROWSER_NOTEBOOKS=02,03 (name prefixes), plus the notebooks
    listed in KGSLAB_BROWSER_EXTRA (paths, comma-separated: try a notebook in the browser before committing it)."""
    notebooks = sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))
    wanted = [prefix.strip() for prefix in os.environ.get("KGSLAB_BROWSER_NOTEBOOKS", "").split(",") if prefix.strip()]
    if wanted:
        notebooks = [nb for nb in notebooks if any(nb.name.startswith(prefix) for prefix in wanted)]
    extra = [Path(p.strip()).resolve() for p in os.environ.get("KGSLAB_BROWSER_EXTRA", "").split(",") if p.strip()]
    return notebooks + extra


# What the session measured, printed by conftest's terminal summary.
REPORT: dict = {"screenshots": [], "run_seconds": {}}

# ---------------------------------------------------------------- JavaScript run in the page

# The current notebook's state: kernel status, which code cells ran, error outputs, widget-view outputs.
STATE_JS = """
(path) => {
  const app = window.jupyterapp;
  if (!app || !app.shell) return {ready: false, why: 'JupyterLab has not started'};
  const notebook = app.shell.currentWidget;
  if (!notebook || !notebook.context || notebook.context.path !== path || !notebook.content
      || !notebook.content.widgets || !notebook.sessionContext) {
    return {ready: false, why: 'the notebook is not the current tab yet'};
  }
  const session = notebook.sessionContext.session;
  const kernel = session && session.kernel;
  const state = {ready: true, kernel: kernel ? kernel.status : 'none', code: 0, executed: 0, pending: 0,
                 unexecuted: [], errors: [], widget_views: []};
  notebook.content.widgets.forEach((cell, index) => {
    if (cell.model.type !== 'code') return;
    state.code++;
    const prompt = (cell.node.querySelector('.jp-InputPrompt') || {}).textContent || '';
    if (prompt.includes('*')) state.pending++;
    else if (cell.model.executionCount !== null) state.executed++;
    else state.unexecuted.push(index);
    cell.model.outputs.toJSON().forEach((output, k) => {
      if (output.output_type === 'error') {
        state.errors.push({cell: index, ename: output.ename, evalue: output.evalue,
                           traceback: (output.traceback || []).join('\\n')});
      }
      if (output.data && output.data['application/vnd.jupyter.widget-view+json']) {
        state.widget_views.push({cell: index, output: k});
      }
    });
  });
  return state;
}
"""

# Fire "Run All Cells" and note when its promise settles (it resolves false after a failing cell).
RUN_ALL_JS = """
() => {
  window.__kgslabRun = {done: false};
  window.jupyterapp.commands.execute('notebook:run-all-cells').then(
    (ok) => { window.__kgslabRun = {done: true, ok: ok}; },
    (error) => { window.__kgslabRun = {done: true, ok: false, error: String(error)}; });
}
"""

# Collect what the kernel says on iopub in answer to widget messages (a slider callback that raises).
LISTEN_JS = """
() => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  window.__kgslabWidgetTalk = [];
  kernel.iopubMessage.connect((_, message) => {
    const parent = message.parent_header && message.parent_header.msg_type;
    const type = message.header.msg_type;
    if (parent !== 'comm_msg') return;
    if (type === 'error') {
      window.__kgslabWidgetTalk.push(message.content.ename + ': ' + message.content.evalue + '\\n'
                                     + (message.content.traceback || []).join('\\n'));
    } else if (type === 'stream' && message.content.name === 'stderr') {
      window.__kgslabWidgetTalk.push(message.content.text);
    }
  });
}
"""

# Every widget-view output: rendered, not "Error displaying widget", not still "Loading widget...".
WIDGET_PROBLEMS_JS = """
() => {
  const notebook = window.jupyterapp.shell.currentWidget;
  const problems = [];
  let views = 0;
  notebook.content.widgets.forEach((cell, index) => {
    if (cell.model.type !== 'code') return;
    const children = cell.node.querySelectorAll('.jp-OutputArea-child');
    cell.model.outputs.toJSON().forEach((output, k) => {
      if (!(output.data && output.data['application/vnd.jupyter.widget-view+json'])) return;
      views++;
      const child = children[k];
      const text = child ? child.innerText : '';
      if (!child) problems.push({cell: index, problem: 'no output node in the page'});
      else if (text.includes('Error displaying widget')) problems.push({cell: index, problem: text.trim()});
      else if (text.includes('Loading widget')) problems.push({cell: index, problem: 'still "Loading widget..."'});
      else if (child.querySelector('.jupyter-widgets-error-widget'))
        problems.push({cell: index, problem: 'the widget view failed: "Click to show javascript error."'});
      else if (!child.querySelector('.jupyter-widgets .jupyter-widgets, .jupyter-widgets.widget-container, '
                                    + '.jupyter-widgets.widget-inline-hbox, .jupyter-widgets.widget-html'))
        problems.push({cell: index, problem: 'no widget was drawn'});
    });
    cell.node.querySelectorAll('.jp-OutputArea img.widget-image').forEach((img) => {
      if (!(img.complete && img.naturalWidth > 0)) problems.push({cell: index, problem: 'a widget image did not load'});
    });
  });
  const all = (document.querySelector('.jp-Notebook') || document.body).innerText;
  if (!problems.length && (all.includes('Error displaying widget')
                           || document.querySelector('.jp-Notebook .jupyter-widgets-error-widget')))
    problems.push({cell: null, problem: 'the page shows a widget that failed to display'});
  return {views: views, problems: problems};
}
"""

# A panel (kgslab.widgets.base.Panel): a VBox with a row of sliders, an Image and an HTML report line.
PANEL_CSS = ".jp-Notebook .widget-vbox:has(> .widget-image):has(> .widget-box .widget-slider)"

PANEL_STATE_JS = """
async (panel) => {
  const sliders = Array.from(panel.querySelectorAll(':scope > .widget-box .widget-slider')).map((slider) => {
    const handle = slider.querySelector('.noUi-handle');
    return {label: (slider.querySelector('.widget-label') || {}).textContent || '',
            readout: ((slider.querySelector('.widget-readout') || {}).textContent || '').trim(),
            min: handle ? Number(handle.getAttribute('aria-valuemin')) : null,
            max: handle ? Number(handle.getAttribute('aria-valuemax')) : null,
            now: handle ? Number(handle.getAttribute('aria-valuetext')) : null};
  });
  const report = panel.querySelector(':scope > .widget-html');
  const img = panel.querySelector(':scope > .widget-image');
  let picture = null;
  if (img && img.src) {
    try {
      const bytes = await (await fetch(img.src)).arrayBuffer();
      const digest = await crypto.subtle.digest('SHA-256', bytes);
      picture = {size: bytes.byteLength,
                 sha256: Array.from(new Uint8Array(digest)).map((b) => b.toString(16).padStart(2, '0')).join('')};
    } catch (error) {
      picture = null;  // the view swapped its blob URL while we read it: read again
    }
  }
  return {sliders: sliders, report: report ? report.innerText : '', picture: picture};
}
"""

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def strip_ansi(text: str) -> str:
    return ANSI.sub("", text)


# ---------------------------------------------------------------- waiting

def wait_for(predicate, timeout: float, interval: float = 0.25, what: str = "condition"):
    """Poll `predicate()` until it returns something truthy; return it, or raise TimeoutError naming `what`."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what} (last seen: {last!r})")


# ---------------------------------------------------------------- the report line

def parse_report(text: str) -> dict:
    """'train_mse = 0.0993 | mean vote entropy (bits) = 0.41' -> {'train_mse': 0.0993, 'mean vote entropy (bits)': 0.41}.

    The report line of a Panel is "name = value" items joined by "|"; names may hold spaces, values that are
    not numbers are kept as text.
    """
    values = {}
    for item in text.replace("\xa0", " ").split("|"):
        name, equals, raw = item.rpartition("=")
        if not equals or not name.strip():
            continue
        raw = raw.strip()
        try:
            values[name.strip()] = float(raw)
        except ValueError:
            values[name.strip()] = raw
    return values


# ---------------------------------------------------------------- a notebook open in JupyterLab

@dataclass
class NotebookRun:
    """A solution notebook opened in JupyterLab, all cells run; what the run left behind."""
    name: str
    path: str          # relative to the server root, e.g. "solutions/02_kernel_ridge.ipynb"
    page: object       # playwright Page
    state: dict        # STATE_JS after the run
    run_ok: bool
    seconds: float
    console_start: int  # where this notebook's browser console errors begin
    source: str        # all code cells' source, from the file

    @property
    def console_errors(self) -> list:
        return self.page.console_errors[self.console_start:]

    def widget_problems(self) -> dict:
        return self.page.evaluate(WIDGET_PROBLEMS_JS)

    def widget_talk(self) -> list:
        """What the kernel wrote to stderr or raised while handling widget messages since the run."""
        return self.page.evaluate("() => window.__kgslabWidgetTalk || []")

    def panels(self):
        return self.page.locator(PANEL_CSS)


def open_lab(browser, server):
    """One JupyterLab page for the session (loading the app costs seconds; notebooks then open as tabs)."""
    page = browser.new_page(viewport={"width": 1500, "height": 1100})
    page.console_errors = []
    page.on("console", lambda message: page.console_errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: page.console_errors.append(str(error)))
    page.goto(f"{server.url}/lab?reset&token={server.token}")
    wait_for(lambda: page.evaluate("() => !!(window.jupyterapp && window.jupyterapp.shell"
                                   " && document.querySelector('#jp-main-dock-panel'))"),
             timeout=120, what="JupyterLab to start in the page")
    page.evaluate("async () => { await window.jupyterapp.restored; window.jupyterapp.shell.collapseLeft(); }")
    return page


def open_and_run(page, path: str, timeout: float = 300.0) -> tuple[dict, bool, float]:
    """Open `path` in a JupyterLab tab, wait for an idle kernel, Run All Cells, wait until the kernel is idle."""
    page.evaluate("async (path) => { await window.jupyterapp.commands.execute("
                  "'docmanager:open', {path: path, factory: 'Notebook'}); }", path)
    wait_for(lambda: (lambda s: s.get("ready") and s["kernel"] == "idle")(page.evaluate(STATE_JS, path)),
             timeout=120, what=f"{path} to open with an idle kernel")
    page.evaluate(LISTEN_JS)
    started = time.monotonic()
    page.evaluate(RUN_ALL_JS)
    wait_for(lambda: page.evaluate("() => window.__kgslabRun && window.__kgslabRun.done"), timeout=timeout,
             interval=0.5, what=f"Run All Cells to finish in {path}")
    # The run's promise settles when the last cell replies; widget messages may still be in flight.
    wait_for(lambda: (lambda s: s["kernel"] == "idle" and s["pending"] == 0)(page.evaluate(STATE_JS, path)),
             timeout=60, what=f"the kernel of {path} to go idle")
    seconds = time.monotonic() - started
    run = page.evaluate("() => window.__kgslabRun")
    return page.evaluate(STATE_JS, path), bool(run.get("ok")), seconds


def close_notebook(page) -> None:
    """Shut the current notebook's kernel down (frees a core for the next notebook) and close its tab unsaved.

    Never raises: it runs in a fixture's teardown, where an error would hide the test's own failure; a page
    that no longer answers is replaced before the next notebook, and the server's teardown stops any kernel.
    """
    try:
        page.evaluate("""async () => {
          const notebook = window.jupyterapp.shell.currentWidget;
          if (!notebook || !notebook.sessionContext) return;
          await notebook.sessionContext.shutdown();
          notebook.dispose();
        }""")
    except Exception:
        pass


def screenshot_path(folder: Path, *parts: str) -> Path:
    name = "-".join(re.sub(r"[^A-Za-z0-9_.]+", "_", part).strip("_") for part in parts) + ".png"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / name

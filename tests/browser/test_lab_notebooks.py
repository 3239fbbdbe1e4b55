"""Every solution notebook in JupyterLab: runs clean, every widget renders, every slider panel redraws.

The notebooks are found at collection time (``solutions/NN_*.ipynb``), so a notebook
that lands later is covered without touching this file.  For each one the page
opens it, runs all cells and waits for an idle kernel; then:

* no cell shows an error and every code cell ran;
* every widget view rendered: no "Error displaying widget", no "Loading widget...",
  every panel picture loaded;
* every slider of every panel (a `kgslab.widgets.base.Panel`: sliders, a picture, a
  report line) is moved with the keyboard on its focused handle (End, or Home when
  it already sits at its maximum).  The picture's bytes must change, the slider's
  readout must change, the kernel must not raise, and the reported numbers must
  change: in the direction the theory says for the panels listed in KNOWN_PANELS,
  at least one of them for any other panel.  Screenshots of the panel before and
  after each move are saved (the folder is printed in the summary).
"""

from __future__ import annotations

import math
import re
import shutil
import time
from dataclasses import dataclass
from typing import Callable

import pytest

from labdriver import (PANEL_STATE_JS, REPORT, SCREENSHOTS, NotebookRun, close_notebook, open_and_run, open_lab,
                       parse_report, screenshot_path, solution_notebooks, strip_ansi, wait_for)

NOTEBOOKS = solution_notebooks()

# ---------------------------------------------------------------- what a slider move should do to the numbers


@dataclass(frozen=True)
class Expect:
    says: str
    holds: Callable[[dict, dict], bool]


def _compare(name: str, says: str, holds) -> Expect:
    """An expectation on every reported number whose name matches `name` (a regex; at least one must)."""
    pattern = re.compile(name)

    def check(before: dict, after: dict) -> bool:
        names = [key for key in before if pattern.fullmatch(key)]
        return bool(names) and all(isinstance(before[key], float) and isinstance(after.get(key), float)
                                   and holds(before[key], after[key]) for key in names)

    return Expect(f"{name} {says}", check)


def rises(name: str) -> Expect:
    return _compare(name, "rises", lambda before, after: after > before)


def falls(name: str) -> Expect:
    return _compare(name, "falls", lambda before, after: after < before)


def stays(name: str) -> Expect:
    return _compare(name, "stays", lambda before, after: math.isclose(after, before, rel_tol=1e-3))


def moves(name: str) -> Expect:
    return _compare(name, "changes", lambda before, after: not math.isclose(after, before, rel_tol=1e-3))


# A panel is known by the labels of its sliders.  (slider label, key pressed) -> what must happen.
# End moves the slider to its maximum, Home to its minimum.  Names are regular expressions over the
# report's names.  Other panels get the generic checks only (picture and numbers change).
KNOWN_PANELS: dict[frozenset, dict[tuple[str, str], list[Expect]]] = {
    # kgslab.widgets.kernel_ridge_panel (notebook 02).  alpha = (K + gamma l I)^-1 y: the training error
    # never falls as gamma grows and the dual weights shrink; a wide kernel is too smooth for sinc.
    frozenset({"L (width)", "gamma"}): {
        ("gamma", "End"): [rises("train_mse"), falls("max_abs_alpha")],
        ("gamma", "Home"): [falls("train_mse"), rises("max_abs_alpha")],
        ("L (width)", "End"): [rises("train_mse")],
        ("L (width)", "Home"): [falls("train_mse")],
    },
    # kgslab.widgets.gp_panel (notebook 03).  The posterior variance (eq. 14) grows with the noise sigma^2;
    # the evidence curve over sigma^2 (eq. 16) depends on L only, so its maximum stays when sigma^2 moves
    # and moves when L does.
    frozenset({"sigma^2 (noise)", "L (width)"}): {
        ("sigma^2 (noise)", "End"): [rises("mean_sigma_error"), rises("train_mse"), stays("best_sigma2"),
                                     moves("log_evidence")],
        ("sigma^2 (noise)", "Home"): [falls("mean_sigma_error"), falls("train_mse"), stays("best_sigma2"),
                                      moves("log_evidence")],
        ("L (width)", "End"): [rises("train_mse"), moves("best_sigma2"), moves("log_evidence")],
        ("L (width)", "Home"): [falls("train_mse"), moves("best_sigma2"), moves("log_evidence")],
    },
    # kgslab.widgets.kgs_panel (notebook 08).  A larger assumed flip rate q flattens the likelihood, so the
    # sampled boundaries spread out: the vote is less certain and each sample makes more training errors.
    frozenset({"assumed flip rate q"}): {
        ("assumed flip rate q", "End"): [rises("q"), rises(r"mean vote entropy.*"),
                                         rises(r"mean training errors per sample")],
        ("assumed flip rate q", "Home"): [falls("q"), falls(r"mean vote entropy.*"),
                                          falls(r"mean training errors per sample")],
    },
    # kgslab.widgets.rejection_panel (notebook 09).  A higher confidence threshold theta rejects more points,
    # for transduction and the SVM alike.
    frozenset({"rejection threshold theta"}): {
        ("rejection threshold theta", "End"): [rises("theta"), rises(r".* rejection %")],
        ("rejection threshold theta", "Home"): [falls("theta"), falls(r".* rejection %")],
    },
    # kgslab.widgets.toy_noise_panel (notebook 10).  More induced noise means larger true flip rates, and a
    # fit without the noise model is pulled further off: each observed class mixes in more of the other.
    frozenset({"induced noise rate"}): {
        ("induced noise rate", "End"): [rises(r"true gamma_\d"), rises("mean error without model")],
        ("induced noise rate", "Home"): [falls(r"true gamma_\d"), falls("mean error without model")],
    },
}

PANEL_CALL = re.compile(r"(?<!def )\b(\w+_panel)\s*\(")


# ---------------------------------------------------------------- one notebook, opened and run once


@pytest.fixture(scope="session")
def lab(browser, lab_server):
    """The JupyterLab page every notebook opens in, one after the other (held in a dict: it may be replaced)."""
    holder = {"page": open_lab(browser, lab_server)}
    yield holder
    holder["page"].close()


def _page_is_alive(page) -> bool:
    try:
        return not page.is_closed() and page.evaluate("() => !!window.jupyterapp")
    except Exception:
        return False


@pytest.fixture(scope="module", params=NOTEBOOKS, ids=[nb.stem for nb in NOTEBOOKS])
def notebook_run(request, lab, lab_server, browser):
    """The notebook opened in a JupyterLab tab, all cells run; its kernel is shut down after its tests."""
    import nbformat

    notebook = request.param
    path = f"solutions/{notebook.name}"
    if not _page_is_alive(lab["page"]):  # a previous notebook broke the page: start a fresh one
        lab["page"] = open_lab(browser, lab_server)
    page = lab["page"]
    console_start = len(page.console_errors)
    shutil.rmtree(SCREENSHOTS / notebook.stem, ignore_errors=True)  # no stale pictures from an earlier run
    try:
        state, run_ok, seconds = open_and_run(page, path)
        REPORT["run_seconds"][notebook.stem] = seconds
        shot = screenshot_path(SCREENSHOTS / notebook.stem, "notebook-after-run-all")
        page.screenshot(path=str(shot))
        REPORT["screenshots"].append(shot)
        source = "\n".join(cell.source for cell in nbformat.read(notebook, as_version=4).cells
                           if cell.cell_type == "code")
        yield NotebookRun(name=notebook.stem, path=path, page=page, state=state, run_ok=run_ok, seconds=seconds,
                          console_start=console_start, source=source)
    finally:
        close_notebook(page)


def test_notebook_runs_without_errors(notebook_run):
    state = notebook_run.state
    errors = [f"cell {error['cell']}: {error['ename']}: {error['evalue']}\n{strip_ansi(error['traceback'])[-1500:]}"
              for error in state["errors"]]
    assert not errors, f"{notebook_run.name} shows errors in JupyterLab:\n" + "\n\n".join(errors)
    assert notebook_run.run_ok and state["executed"] == state["code"], (
        f"{notebook_run.name}: {state['code'] - state['executed']} of {state['code']} code cells did not run "
        f"(cells {state['unexecuted']}); browser console: {notebook_run.console_errors[-5:]}")


def test_every_widget_renders(notebook_run):
    def settled():
        result = notebook_run.widget_problems()
        loading = any("Loading widget" in problem["problem"] for problem in result["problems"])
        return None if loading else result

    try:
        result = wait_for(settled, timeout=30, what="widgets to finish loading")
    except TimeoutError:
        result = notebook_run.widget_problems()
    problems = [f"cell {p['cell']}: {p['problem']}" for p in result["problems"]]
    assert not problems, (f"{notebook_run.name}: widgets did not render in JupyterLab:\n" + "\n".join(problems)
                          + f"\nbrowser console: {notebook_run.console_errors[-5:]}")
    assert result["views"] == len(notebook_run.state["widget_views"])


# ---------------------------------------------------------------- the slider panels


def read_panel(page, panel) -> dict:
    """The panel's sliders, report line and picture hash (read again while the view swaps its image)."""
    return wait_for(lambda: (lambda s: s if s["picture"] else None)(panel.evaluate(PANEL_STATE_JS)),
                    timeout=10, interval=0.1, what="the panel's picture")


def move_slider(run: NotebookRun, server, panel, panel_index: int, slider_index: int) -> list[str]:
    """Move one slider to an end with the keyboard; return what went wrong (empty when all is well)."""
    before = read_panel(run.page, panel)
    slider = before["sliders"][slider_index]
    label = slider["label"]
    at_max = slider["now"] is not None and slider["now"] >= slider["max"] - 1e-9 * max(1.0, abs(slider["max"]))
    key = "Home" if at_max else "End"
    where = f"{run.name} panel {panel_index} ({' / '.join(s['label'] for s in before['sliders'])}), slider {label!r}"

    folder = SCREENSHOTS / run.name
    before_shot = screenshot_path(folder, f"panel{panel_index}", label, key, "before")
    after_shot = screenshot_path(folder, f"panel{panel_index}", label, key, "after")
    panel.screenshot(path=str(before_shot))
    log_offset = server.log_size()
    talk_offset = len(run.widget_talk())

    handle = panel.locator(":scope > .widget-box .widget-slider").nth(slider_index).locator(".noUi-handle")
    handle.focus()
    handle.press(key)

    def redrawn():
        now = panel.evaluate(PANEL_STATE_JS)
        if now["picture"] and now["picture"]["sha256"] != before["picture"]["sha256"] \
                and now["report"] != before["report"]:
            return now
        return None

    try:
        after = wait_for(redrawn, timeout=30, interval=0.2, what="the panel to redraw")
    except TimeoutError:
        time.sleep(1.0)
        after = read_panel(run.page, panel)
    panel.screenshot(path=str(after_shot))
    REPORT["screenshots"] += [before_shot, after_shot]
    shots = f"\n  screenshots: {before_shot} and {after_shot}"

    failures = []
    if after["sliders"][slider_index]["readout"] == slider["readout"]:
        return [f"{where}: pressing {key} on the handle did not move the slider "
                f"(readout still {slider['readout']}){shots}"]
    # The kernel's complaint reaches the page on iopub (ipykernel) or only its stderr, i.e. the server's log.
    raised = [strip_ansi(text) for text in run.widget_talk()[talk_offset:]]
    log = server.log_tail(log_offset)
    if not raised and "Traceback" in log:
        raised.append(log[log.index("Traceback"):])
    if raised:
        # The last frames and the exception say what broke; the widget machinery above them does not.
        failures.append(f"{where}: the kernel raised while redrawing after {key}:\n"
                        + "\n".join("  ..." + text[-1200:] if len(text) > 1200 else text for text in raised))
    if after["picture"]["sha256"] == before["picture"]["sha256"]:
        failures.append(f"{where}: the picture did not change after {key} "
                        f"(readout {slider['readout']} -> {after['sliders'][slider_index]['readout']})")
    numbers_before, numbers_after = parse_report(before["report"]), parse_report(after["report"])
    if not numbers_before:
        failures.append(f"{where}: the report line shows no numbers: {before['report']!r}")
    elif numbers_after == numbers_before:
        failures.append(f"{where}: the reported numbers did not change after {key}: {after['report']!r}")
    else:
        known = KNOWN_PANELS.get(frozenset(s["label"] for s in before["sliders"]), {})
        for expect in known.get((label, key), []):
            if not expect.holds(numbers_before, numbers_after):
                failures.append(f"{where}: after {key}, expected {expect.says}: "
                                f"{before['report']!r} -> {after['report']!r}")
    return ["\n".join(failures) + shots] if failures else []


def test_slider_panels_redraw_in_the_page(notebook_run, lab_server):
    panels = notebook_run.panels()
    count = panels.count()
    calls = sorted(set(PANEL_CALL.findall(notebook_run.source)))
    if count == 0:
        assert not calls, f"{notebook_run.name} calls {calls} but no slider panel is on the page"
        pytest.skip(f"{notebook_run.name} has no slider panel")
    failures = []
    for panel_index in range(count):
        panel = panels.nth(panel_index)
        panel.scroll_into_view_if_needed()
        n_sliders = len(read_panel(notebook_run.page, panel)["sliders"])
        for slider_index in range(n_sliders):
            failures += move_slider(notebook_run, lab_server, panel, panel_index, slider_index)
    print(f"{notebook_run.name}: moved the sliders of {count} panel(s); screenshots in {SCREENSHOTS / notebook_run.name}")
    assert not failures, "\n".join(failures)

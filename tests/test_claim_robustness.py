"""Every verdict a solution notebook stores holds with other random numbers (issue 31; `make claims`).

Each notebook that draws at random is rerun with every literal seed shifted (``default_rng(N)`` ->
``default_rng(N + shift)``, five shifts); every ✔ / ✘ line it prints (the claims and the checks' verdicts) must be
what the stored output says, and no cell may fail. A claim that flips under a shift was sized to one machine's
random numbers: another CPU's rounding gives other numbers too. At the end the run prints, for every claim that
gives its margin (``report.claim(..., margin=...)``), the worst margin over the shifts (the summary in conftest.py).

The unit tests of the harness itself (a flipped verdict is caught, a failing cell is caught) run in ``make test``;
the notebook reruns (about 5 minutes on 2 cores) carry the ``claims`` marker and run in ``make claims``.
"""
import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

import claim_robustness as robustness

SHIFTS = (1, 2, 3, 4, 5)
# The longest stored runs first: `make claims` hands the reruns to its workers in this order, so the last ones
# (when a core may wait for the others) are the shortest.
RANDOM = sorted((path for path in robustness.SOLUTIONS if robustness.has_seeds(path)),
                key=robustness.stored_seconds, reverse=True)


@pytest.mark.claims
@pytest.mark.parametrize("shift", SHIFTS)
@pytest.mark.parametrize("path", RANDOM, ids=[path.stem for path in RANDOM])
def test_every_stored_verdict_holds_with_shifted_seeds(path, shift, record_property):
    run = robustness.run_shifted(path, shift)
    record_property("claims", [(path.stem, shift, entry) for entry in run.margins])
    problems = robustness.differences(robustness.stored_verdicts(path), run)
    assert not problems, f"{path.name} with seeds shifted by {shift}:\n" + "\n".join(problems)


def test_the_notebooks_without_seeds_draw_nothing_at_random():
    # a notebook left out of the shifts must be deterministic: no generator, no global numpy draw
    for path in robustness.SOLUTIONS:
        if path not in RANDOM:
            code = "\n".join(cell.source for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "code")
            assert "np.random." not in code.replace("random_state=0", ""), path.name


def _notebook(tmp_path, *sources):
    notebook = new_notebook(cells=[new_code_cell(source) for source in sources])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return notebook


def _store(tmp_path, notebook, name="probe.ipynb"):
    """Run the notebook once at shift 0 and store its outputs, as a solution notebook is stored."""
    from nbclient import NotebookClient
    NotebookClient(notebook, timeout=60, kernel_name="python3").execute()
    path = tmp_path / name
    nbformat.write(notebook, path)
    return path


SETUP = "import numpy as np\nfrom kgslab.report import claim\nrng = np.random.default_rng(4)"


def test_a_claim_that_depends_on_the_draw_is_caught(tmp_path):
    # the first draw of default_rng(4) is above 0.5 (stored ✔); some shift from 1 to 5 draws one below
    path = _store(tmp_path, _notebook(tmp_path, SETUP, 'x = rng.random()\nclaim("x is large", x > 0.5, margin=x - 0.5)'))
    stored = robustness.stored_verdicts(path)
    assert [str(v) for v in stored] == ["✔ x is large"]
    runs = [robustness.run_shifted(path, shift) for shift in SHIFTS]
    assert any(robustness.differences(stored, run) for run in runs)
    assert all(run.margins and run.margins[0]["statement"] == "x is large" for run in runs)


def test_a_claim_that_holds_on_every_draw_passes_and_reports_its_margin(tmp_path):
    path = _store(tmp_path, _notebook(tmp_path, SETUP, 'x = rng.random()\nclaim("x is below 2", x < 2, margin=2 - x)'))
    for shift in (1, 2):
        run = robustness.run_shifted(path, shift)
        assert robustness.differences(robustness.stored_verdicts(path), run) == []
        assert 1 < run.margins[0]["margin"] <= 2


def test_a_cell_that_fails_under_a_shift_is_caught(tmp_path):
    # the cell raises for any generator but default_rng(4): every shift stops the notebook there
    path = _store(tmp_path, _notebook(tmp_path, SETUP, "assert rng.integers(1000) == np.random.default_rng(4 + 0).integers(1000) - 0 * 4",
                                      'claim("reached the end", True)'))
    run = robustness.run_shifted(path, 1)
    assert run.error and run.error.startswith("cell 1")
    problems = robustness.differences(robustness.stored_verdicts(path), run)
    assert problems[0].startswith("the notebook stopped") and "1 verdicts stored, 0 printed" in problems[-1]


def test_shift_changes_every_literal_seed_and_clears_outputs():
    notebook = _notebook(None, "a = np.random.default_rng(7)\nb = np.random.default_rng(11).choice(3)")
    notebook.cells[0].outputs = [nbformat.v4.new_output("stream", text="✔ stale\n")]
    shifted = robustness.shift_seeds(notebook, 3)
    assert shifted.cells[0].source == "a = np.random.default_rng(10)\nb = np.random.default_rng(14).choice(3)"
    assert shifted.cells[0].outputs == [] and notebook.cells[0].source.startswith("a = np.random.default_rng(7)")


def test_a_shifted_run_runs_its_figure_cells_without_encoding_them(tmp_path):
    # the run is read for its verdicts only (claim_robustness.NO_FIGURE_IMAGES): the figure's cell runs, no PNG
    path = tmp_path / "figure.ipynb"
    nbformat.write(_notebook(tmp_path, SETUP, "%matplotlib inline\nimport matplotlib.pyplot as plt\n"
                             "plt.plot(rng.random(3)); plt.show()\n"
                             'claim("no PNG", not get_ipython().display_formatter.formatters["image/png"].enabled)'),
                   path)
    run = robustness.run_shifted(path, 1)
    assert run.error is None and [str(verdict) for verdict in run.verdicts] == ["✔ no PNG"]

"""The feedback a student receives (kgslab.feedback): figures with alt text and within a budget, plain code.

nbconvert's own HTML exporter renders the result (the classic template, which nbgrader's feedback template
extends): every image has the alt text given and the exporter does not warn. About five seconds.
"""

import base64
import io
import logging

import nbformat
import numpy as np
import pytest
from PIL import Image

from kgslab import release
from kgslab.feedback import FiguresForFeedback, alt_text, figure_titles, plain_code


def _png(width, height, seed=0) -> str:
    """A noisy RGBA PNG (incompressible, like a dense scatter plot), base64."""
    pixels = np.random.default_rng(seed).integers(0, 256, (height, width, 4), dtype=np.uint8)
    pixels[..., 3] = 255
    buffer = io.BytesIO()
    Image.fromarray(pixels, "RGBA").save(buffer, "PNG")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _figure_cell(source, *images):
    cell = nbformat.v4.new_code_cell(source)
    cell.outputs = [nbformat.v4.new_output("display_data", data={"image/png": image, "text/plain": "<Figure>"})
                    for image in images]
    return cell


def _images(notebook):
    return [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs
            if "image/png" in output.get("data", {})]


def test_titles_come_from_the_cells_code_suptitle_first():
    source = ('fig.suptitle(f"Figure 3: KGS samples, q = {q:.2f}; {{braces}}")\n'
              'ax.set_title("left panel")\nplt.title(\'it\\\'s $R^3$\')')
    assert figure_titles(source) == ["Figure 3: KGS samples, q = …; {braces}"]
    assert figure_titles('ax.set_title("left")\naxes[1].set_title(f"{name}: autocorrelation")\n'
                         'ax.set_title("left")') == ["left", "…: autocorrelation"]
    assert figure_titles("plt.plot(x, y)") == []
    assert alt_text("plt.plot(x, y)", 2).startswith("Figure 2 drawn by the code cell above")
    assert alt_text('ax.set_title("Ridge on $R^{10}$")', 1) == "Figure: Ridge on R^{10}"


def test_every_figure_gets_alt_text_and_the_exporter_no_longer_warns(caplog):
    from nbconvert import HTMLExporter
    notebook = release.read_notebook(release.SOLUTIONS / "01_duality.ipynb")
    assert len(_images(notebook)) == 3
    exporter = HTMLExporter(template_name="classic")
    with caplog.at_level(logging.WARNING):
        exporter.from_notebook_node(notebook)
    assert "Alternative text is missing on 3 image(s)" in caplog.text      # the problem, as nbconvert says it
    caplog.clear()
    FiguresForFeedback().preprocess(notebook, {})
    alts = [output.metadata["image/png"]["alt"] for output in _images(notebook)]
    assert all(alt.startswith("Figure: ") and len(alt) > 30 and "{n_" not in alt for alt in alts), alts
    with caplog.at_level(logging.WARNING):
        html, _ = exporter.from_notebook_node(notebook)
    assert "Alternative text" not in caplog.text
    import re
    from html import unescape
    assert [unescape(alt) for alt in re.findall(r'<img[^>]* alt="([^"]*)"', html)] == alts


def test_figures_fit_the_budget_and_stay_pictures():
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [_figure_cell('fig.suptitle("wide")', _png(1000, 300, 1)),
                      _figure_cell("plt.plot(x)", _png(500, 300, 2), _png(250, 150, 3)),
                      nbformat.v4.new_markdown_cell("text")]
    before = sum(len(output.data["image/png"]) for output in _images(notebook))
    assert before > 2_000_000
    FiguresForFeedback(budget=60_000).preprocess(notebook, {})
    after = [output.data["image/png"] for output in _images(notebook)]
    assert sum(map(len, after)) <= 60_000
    sizes = [Image.open(io.BytesIO(base64.b64decode(image))).size for image in after]
    assert all(width <= 800 for width, _ in sizes) and sizes[0][0] > sizes[1][0] > sizes[2][0] > 50
    assert [output.metadata["image/png"]["alt"] for output in _images(notebook)] == [
        "Figure: wide", "Figure 1 drawn by the code cell above (the figure has no title in the cell's code)",
        "Figure 2 drawn by the code cell above (the figure has no title in the cell's code)"]


def test_a_small_figure_and_an_unreadable_one_are_left_as_they_came():
    small = _png(40, 30)
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [_figure_cell('ax.set_title("tiny")', small), _figure_cell("x", "bm90IGEgcG5n")]
    FiguresForFeedback().preprocess(notebook, {})
    images = _images(notebook)
    assert images[1].data["image/png"] == "bm90IGEgcG5n"
    assert len(images[0].data["image/png"]) <= len(small)
    assert images[0].metadata["image/png"]["alt"] == "Figure: tiny"


def test_plain_code_escapes_and_keeps_every_character():
    source = 'if a < b and c > d:\n    print("&", \'x\')'
    html = plain_code(source)
    assert "<span class=" not in html and "&lt; b" in html and "&amp;" in html
    from html import unescape
    assert unescape(html.split("</span>", 1)[1].rsplit("\n</pre>", 1)[0]) == source


@pytest.mark.parametrize("stem", ["01_duality"])
def test_the_course_config_wires_the_feedback(stem, tmp_path):
    from traitlets.config.loader import PyFileConfigLoader

    from kgslab import assignments
    assignments.build_course(tmp_path, only=[stem[:2]])
    config = PyFileConfigLoader("nbgrader_config.py", path=str(tmp_path)).load_config()
    assert "kgslab.feedback.FiguresForFeedback" in config.GenerateFeedback.preprocessors
    assert config.GenerateFeedback.preprocessors[0] == "nbgrader.preprocessors.GetGrades"
    assert config.HTMLExporter.filters == {"highlight_code": "kgslab.feedback.plain_code"}

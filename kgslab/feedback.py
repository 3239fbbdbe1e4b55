"""Feedback a student can read: kgslab's preprocessor for ``nbgrader generate_feedback``.

The course's nbgrader_config.py (``python -m kgslab.assignments``) adds `FiguresForFeedback` to nbgrader's
GenerateFeedback.  The feedback page embeds every figure of the graded notebook as it was drawn, and stored
figures (RGBA, up to 1600 pixels wide, base64-encoded in the page) make up most of a page's size
(benchmarks/measured.md).  Each figure is redrawn for a page a student reads in a browser:

* at most `max_width` pixels wide (the page is narrower than that), flattened on white, with an adaptive palette
  of `colours` colours (matplotlib's flat colours and antialiased edges survive; a PNG with a palette is 3 to 4
  times smaller than the RGBA one); when a notebook's figures still take more than `budget` bytes, all of them
  are scaled down by one factor;
* with alt text (nbconvert's classic template, which nbgrader's feedback template extends, writes
  ``output.metadata["image/png"]["alt"]`` as the image's ``alt``; without it the exporter warns "Alternative
  text is missing" and writes "No description has been provided for this image"): the figure's title as the
  cell draws it (``suptitle``, else its axes' ``set_title``), so the description is the one the kit's
  plotting convention already requires (a title that says what the plot shows).  A title computed at run time
  (an f-string) keeps its words with "…" for the values.

And the code cells are shown without syntax colouring (`plain_code`): Pygments' markup, a ``<span>`` per
token, is several times the size of the code.  So a notebook's feedback stays under 500 KB.

The grade is untouched: the preprocessor runs on the feedback copy only, after the grades are read.
"""

from __future__ import annotations

import base64
import io
import re

try:
    from nbconvert.preprocessors import Preprocessor
    from traitlets import Bool, Int                      # nbgrader's configuration system
except ModuleNotFoundError as missing:      # students never need it: feedback is made on the instructor's side
    raise ModuleNotFoundError("kgslab.feedback runs inside nbgrader, on the instructor's side: pip install nbgrader "
                              "(the kit's test extra has it)") from missing

__all__ = ["FiguresForFeedback", "plain_code"]

_TITLE_CALL = r"\b(?:suptitle|set_title|title)\(\s*(f?)(\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')"


def figure_titles(source: str) -> list[str]:
    """The titles a cell's code gives its figure, suptitle first: f-string fields become "…", maths loses its $."""
    found = []
    for kind in ("suptitle", "set_title|title"):
        for prefix, literal in re.findall(_TITLE_CALL.replace("suptitle|set_title|title", kind), source):
            text = literal[1:-1].replace("\\n", " ")
            if prefix:
                text = re.sub(r"\{\{", "{", re.sub(r"\}\}", "}", re.sub(r"(?<!\{)\{[^{}]*\}(?!\})", "…", text)))
            text = re.sub(r"\s+", " ", text.replace("$", "")).strip(" :;,")
            if text and text != "…" and text not in found:
                found.append(text)
        if found:
            break
    return found


def alt_text(source: str, number: int) -> str:
    """The alt text of the `number`-th figure of a cell with code `source`."""
    titles = figure_titles(source)
    if titles:
        return "Figure: " + "; ".join(titles)
    return f"Figure {number} drawn by the code cell above (the figure has no title in the cell's code)"


class FiguresForFeedback(Preprocessor):
    """Smaller figures with alt text in the feedback a student receives (module docstring)."""

    enabled = Bool(True, help="Listed in GenerateFeedback.preprocessors: on (nbconvert's default is off).").tag(
        config=True)
    max_width = Int(800, help="Widest figure in the feedback, in pixels.").tag(config=True)
    colours = Int(32, help="Colours of each figure's adaptive palette.").tag(config=True)
    budget = Int(250_000, help="Bytes all figures of one notebook may take in the page (base64): when they "
                               "take more, every figure is scaled down by the same factor.").tag(config=True)

    def preprocess(self, nb, resources):
        figures = []                                  # (output, decoded image, alt text)
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            number = 0
            for output in cell.get("outputs", []):
                if "image/png" not in output.get("data", {}):
                    continue
                number += 1
                image = self._read(output["data"]["image/png"])
                metadata = output.setdefault("metadata", {}).setdefault("image/png", {})
                metadata.setdefault("alt", alt_text(cell.source, number))
                if image is not None:
                    figures.append((output, image))
        scale = 1.0
        for _ in range(4):                            # bytes grow as the area: a few rounds meet the budget
            encoded = [self._encode(image, scale) for _, image in figures]
            total = sum(map(len, encoded))
            if total <= self.budget:
                break
            scale *= 0.95 * (self.budget / total) ** 0.5
        for (output, _), smaller in zip(figures, encoded):
            if len(smaller) < len(output["data"]["image/png"]):
                output["data"]["image/png"] = smaller
                for key in ("width", "height"):       # the stored size was the old image's
                    output["metadata"]["image/png"].pop(key, None)
        if figures:
            self.log.info("kgslab: %d figures in %d KB for the feedback (scale %.2f)", len(figures),
                          total // 1000, scale)
        return nb, resources

    def _read(self, encoded: str):
        from PIL import Image

        try:
            image = Image.open(io.BytesIO(base64.b64decode(encoded)))
            image.load()
        except Exception as error:  # noqa: BLE001 -- not an image we can read: leave it as it came
            self.log.warning("kgslab: a figure could not be read (%s); left as it was", error)
            return None
        white = Image.new("RGBA", image.size, "white")
        white.alpha_composite(image.convert("RGBA"))
        return white.convert("RGB")

    def _encode(self, image, scale: float) -> str:
        from PIL import Image

        width = min(self.max_width, image.width) * scale
        if width < image.width:
            image = image.resize((max(1, round(width)), max(1, round(image.height * width / image.width))),
                                 Image.Resampling.LANCZOS)
        buffer = io.BytesIO()
        image.quantize(self.colours).save(buffer, "PNG", optimize=True)
        return base64.b64encode(buffer.getvalue()).decode("ascii")


def plain_code(source, language=None, metadata=None, **kwargs) -> str:
    """A code cell's source as plain, escaped HTML: nbconvert's `highlight_code` filter without the colouring.

    Pygments wraps every token in its own ``<span>``, several times the size of the code it colours.
    The course's config (``c.HTMLExporter.filters``) puts this in its place for nbgrader's feedback.
    """
    from html import escape

    return f'<div class="highlight hl-ipython3"><pre><span></span>{escape(source or "", quote=False)}\n</pre></div>'

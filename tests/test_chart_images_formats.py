"""Chart images only for the formats that show them: an HTML-only report draws none.

The HTML page draws each chart from its spec; only the PDF (Typst) needs a static image. A runner told
not to draw (:attr:`NotebookRunner.draw_images`, set from the report's formats) starts no drawing process
and leaves each chart's placeholder, which :func:`evalreport.report.render.load_executed` drops for HTML
and turns into the same image for a PDF rendered later.
"""
from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("papermill")
pytest.importorskip("vl_convert")

from evalreport.report.display import MIME_DEFERRED_PNG, chart_image_mime  # noqa: E402
from evalreport.report.kernel import NotebookRunner  # noqa: E402
from evalreport.report.render import load_executed  # noqa: E402

CHART = """\
import altair as alt
import pandas as pd
from evalreport.report.display import Chart
Chart(alt.Chart(pd.DataFrame({"x": [1, 2], "y": [2, 1]})).mark_bar().encode(x="x:Q", y="y:N"), name="bars",
      caption="Bars")
"""


def _notebook(path: Path) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("n = 1", metadata={"tags": ["parameters"]}), nbformat.v4.new_code_cell(CHART)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(path))
    return path


def test_a_runner_that_draws_no_images_leaves_the_placeholders_and_a_pdf_load_draws_them(tmp_path):
    nb = _notebook(tmp_path / "c.ipynb")
    with NotebookRunner(tmp_path / "run") as runner:
        runner.draw_images = False
        runner.warm_images()                                   # no drawing process for an HTML-only report
        html_only = runner.execute(nb, tmp_path / "run" / "html.ipynb", {})
        assert runner.image_seconds == 0 and not runner._images._all
        runner.draw_images = True
        drawn = runner.execute(nb, tmp_path / "run" / "pdf.ipynb", {})
    kept = nbformat.read(str(html_only), as_version=4).cells[-1].outputs[0]
    mime = chart_image_mime()
    assert MIME_DEFERRED_PNG in kept["data"] and mime not in kept["data"]
    for_html = load_executed(html_only, images=False).cells[-1].outputs[0]
    assert set(for_html["data"]) == {"text/html", "text/plain"}
    late = load_executed(html_only).cells[-1].outputs[0]           # a PDF rendered later: drawn now
    now = nbformat.read(str(drawn), as_version=4).cells[-1].outputs[0]
    assert late["data"][mime] == now["data"][mime]                   # the same image, byte for byte
    assert late["metadata"][mime] == now["metadata"][mime]

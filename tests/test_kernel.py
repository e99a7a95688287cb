"""One kernel for a report's notebooks (evalreport.report.kernel): each notebook as if in a kernel
of its own, chart images drawn by the executor and put where the chart put them before, a failing
cell named as before."""
from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("papermill")
pytest.importorskip("vl_convert")
alt = pytest.importorskip("altair")

from evalreport.report import display
from evalreport.report.display import DEFER_ENV, MIME_DEFERRED_PNG, Chart
from evalreport.report.kernel import NotebookRunner, _ChartImages, fill_chart_images
from evalreport.report.render import RenderError, execute

CHART = """\
import altair as alt
import pandas as pd
from evalreport.report.display import Chart
frame = pd.DataFrame({"system": list(system_names), "score": [0.9, 0.7]})
Chart(alt.Chart(frame).mark_bar().encode(x="score:Q", y="system:N"), name="bars", caption="Scores")
"""


def _notebook(path: Path, *cells: str) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell('system_names = ["a", "b"]', metadata={"tags": ["parameters"]}),
                *(nbformat.v4.new_code_cell(c) for c in cells)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(path))
    return path


def _outputs(path: Path) -> list:
    """Cells as the report sees them: source, execution count and outputs (papermill's timings
    and the kernel's own metadata left out)."""
    nb = nbformat.read(str(path), as_version=4)
    return [(c.source, c.get("execution_count"), c.get("outputs")) for c in nb.cells if c.cell_type == "code"]


def _spec() -> dict:
    import pandas as pd

    frame = pd.DataFrame({"x": [1, 2, 3], "y": [3, 1, 2]})
    return Chart(alt.Chart(frame).mark_line().encode(x="x:Q", y="y:Q"), name="line").spec


def _is_image(mime: str, data: str) -> bool:
    """Whether ``data`` is a static chart image of the kind ``mime``: SVG text or base64 PNG."""
    if mime == "image/svg+xml":
        return data.startswith("<svg") and data.rstrip().endswith("</svg>")
    return base64.b64decode(data)[:8] == b"\x89PNG\r\n\x1a\n"


def test_one_kernel_gives_what_a_kernel_per_notebook_gives(tmp_path):
    """Two notebooks in one kernel: the same cells, execution counts and outputs (chart images
    included, byte for byte) as each executed alone; the second does not see the first's names."""
    first = _notebook(tmp_path / "first.ipynb", CHART, "secret = 41\nsecret + 1")
    second = _notebook(tmp_path / "second.ipynb", "'secret' in dir()", CHART, "print(len(system_names))")
    alone = tmp_path / "alone"
    shared = tmp_path / "shared"
    shared.mkdir()
    for nb in (first, second):
        execute(nb, alone / nb.name, {"system_names": ["x", "y"]}, progress=False)
    with NotebookRunner(shared, preload=("evalreport.report.display",)) as runner:
        runner.start()
        done = [runner.execute(nb, shared / nb.name, {"system_names": ["x", "y"]}) for nb in (first, second)]
    assert done == [shared / "first.ipynb", shared / "second.ipynb"]
    for nb in (first, second):
        assert _outputs(shared / nb.name) == _outputs(alone / nb.name)
    cells = _outputs(shared / "second.ipynb")
    assert cells[2][2][0]["data"]["text/plain"] == "False"            # a fresh namespace
    assert [c[1] for c in cells] == [1, 2, 3, 4, 5]                    # counts from 1 again
    image = cells[3][2][0]
    assert MIME_DEFERRED_PNG not in image["data"] and MIME_DEFERRED_PNG not in image["metadata"]
    mime = display.chart_image_mime()
    assert _is_image(mime, image["data"][mime])
    assert image["metadata"][mime]["alt"] == "Scores" and image["metadata"][mime]["width"] > 0
    assert not list(shared.glob(".evalreport-kernel-*"))              # the private kernelspec is gone


def test_images_later_then_filled(tmp_path):
    """``images=False`` leaves the spec in the notebook until :meth:`fill_images`, which puts the
    same image in as the notebook executed with images."""
    nb = _notebook(tmp_path / "c.ipynb", CHART)
    with NotebookRunner(tmp_path / "run") as runner:
        later = runner.execute(nb, tmp_path / "run" / "later.ipynb", {}, images=False)
        deferred = nbformat.read(str(later), as_version=4).cells[-1].outputs[0]
        assert MIME_DEFERRED_PNG in deferred["data"] and display.chart_image_mime() not in deferred["data"]
        runner.fill_images([later])
        now = runner.execute(nb, tmp_path / "run" / "now.ipynb", {})
        assert runner.image_seconds > 0
    assert _outputs(later) == _outputs(now)


def test_a_failing_cell_names_the_notebook_and_keeps_it(tmp_path):
    nb = _notebook(tmp_path / "boom.ipynb", CHART, "1 / 0")
    out = tmp_path / "run" / "boom.ipynb"
    with NotebookRunner(tmp_path / "run") as runner:
        with pytest.raises(RenderError, match=r"^boom\.ipynb: cell 3 failed: ZeroDivisionError: division by zero "
                                              r"\(partly executed notebook: .*boom\.ipynb\)$"):
            runner.execute(nb, out, {"system_names": ["x", "y"]})
        # the kernel goes on: the next notebook runs
        assert runner.execute(_notebook(tmp_path / "ok.ipynb", "2 + 2"), tmp_path / "run" / "ok.ipynb", {})
    cells = [c for c in nbformat.read(str(out), as_version=4).cells if c.cell_type == "code"]
    assert display.chart_image_mime() in cells[-2].outputs[0]["data"]   # the chart before it, complete
    assert cells[-1].outputs[0]["output_type"] == "error"


def test_a_failed_report_notebook_is_kept_beside_the_output(tmp_path, monkeypatch):
    """The build's path (one runner for all notebooks): the failure names a copy that survives."""
    from evalreport._atomic import atomic_dir
    from evalreport.report import build, resources
    from evalreport.report.build import Stages

    books = tmp_path / "books"
    books.mkdir()
    _notebook(books / "fine.ipynb", CHART)
    _notebook(books / "boom.ipynb", "raise KeyError('gone')")
    monkeypatch.setattr(resources, "notebooks_dir", lambda: books)
    out = tmp_path / "report"
    with pytest.raises(RenderError) as caught:
        with atomic_dir(out) as staging:
            (staging / "tables").mkdir()
            build.execute_and_render(staging, ["fine", "boom"], title="t", formats=("html",), engine="builtin",
                                      stages=Stages(False), subtitle="")
    message = str(caught.value)
    assert message.startswith("boom.ipynb: cell 2 failed: KeyError: 'gone'")
    kept = Path(re.search(r"partly executed notebook: (.+?\.ipynb)\)", message).group(1))
    assert kept.is_file() and kept.parent.parent.name.startswith("report.failed-")
    assert not out.exists()


def test_a_deferred_chart_filled_equals_the_chart_drawn_in_the_kernel(monkeypatch):
    """The display data of a chart whose image the executor drew is the one the chart makes itself."""
    chart = Chart(alt.Chart(alt.Data(values=[{"a": 1, "b": 2}])).mark_point().encode(x="a:Q", y="b:Q"),
                  name="pt", caption="A point")
    direct = chart._repr_mimebundle_()
    monkeypatch.setenv(DEFER_ENV, "1")
    data, meta = chart._repr_mimebundle_()
    assert display.chart_image_mime() not in data and data[MIME_DEFERRED_PNG] == {"spec": chart.spec}
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x", outputs=[nbformat.v4.new_output("display_data", data=data,
                                                                               metadata=meta)])]
    drawn = []
    assert fill_chart_images(nb, lambda spec: drawn.append(spec) or display.chart_image_output(spec)) == 1
    assert drawn == [chart.spec]
    out = nb.cells[0].outputs[0]
    assert (dict(out["data"]), dict(out["metadata"])) == direct


def test_a_spec_shown_twice_is_drawn_once():
    images = _ChartImages()
    try:
        spec = _spec()
        first = images.submit(spec)
        assert images.submit(dict(spec)) is first
        assert images.submit({**spec, "width": 123}) is not first
        assert images.result(spec) == display.chart_image_output(spec)
    finally:
        images.close()


def test_a_notebook_still_lacking_an_image_gets_it_drawn_for_a_pdf_only(tmp_path, monkeypatch):
    """A notebook whose charts' images were left for later (a report rendered as HTML only draws
    none): loaded for a PDF, each image is drawn then; for HTML the placeholder is dropped."""
    from evalreport.report.render import load_executed

    monkeypatch.setenv(DEFER_ENV, "1")
    chart = Chart(alt.Chart(alt.Data(values=[{"a": 1}])).mark_point().encode(x="a:Q"), name="p")
    data, meta = chart._repr_mimebundle_()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x", execution_count=1,
                                          outputs=[nbformat.v4.new_output("display_data", data=data, metadata=meta)])]
    nbformat.write(nb, str(tmp_path / "half.ipynb"))
    for_html = load_executed(tmp_path / "half.ipynb", images=False).cells[0].outputs[0]
    mime = display.chart_image_mime()
    assert MIME_DEFERRED_PNG not in for_html["data"] and mime not in for_html["data"]
    assert "text/html" in for_html["data"] and MIME_DEFERRED_PNG not in for_html.get("metadata", {})
    for_pdf = load_executed(tmp_path / "half.ipynb").cells[0].outputs[0]
    assert MIME_DEFERRED_PNG not in for_pdf["data"]
    assert _is_image(mime, for_pdf["data"][mime])
    assert for_pdf["metadata"][mime]["alt"] == "p" and for_pdf["metadata"][mime]["width"] > 0
    # the file keeps the placeholder (a later PDF render draws it)
    assert MIME_DEFERRED_PNG in nbformat.read(str(tmp_path / "half.ipynb"), as_version=4).cells[0].outputs[0]["data"]


def test_a_kernel_started_before_its_folder_runs_each_notebook_in_the_folder_set_later(tmp_path):
    """:func:`~evalreport.report.build.start_runner` starts the kernel before the report's folder
    exists (the demo trains its classifiers meanwhile); each notebook runs in ``runner.cwd`` as
    set when it runs, and sees a fresh namespace there."""
    from evalreport.report.build import start_runner

    nb = _notebook(tmp_path / "where.ipynb", "import os\nos.getcwd()", "sorted(k for k in dir() if not k.startswith('_') and k not in ('In', 'Out', 'exit', 'quit', 'open', 'get_ipython'))")
    with start_runner(preload=()) as runner:
        assert runner.cwd is None
        with pytest.raises(ValueError, match="not set"):
            runner.execute(nb, tmp_path / "nowhere.ipynb", {})
        for name in ("a", "b"):
            runner.cwd = tmp_path / name / "notebooks"
            runner.execute(nb, runner.cwd / "where.ipynb", {})
    for name in ("a", "b"):
        cells = _outputs(tmp_path / name / "notebooks" / "where.ipynb")
        assert cells[1][2][0]["data"]["text/plain"] == repr(str((tmp_path / name / "notebooks").resolve()))
        assert cells[2][2][0]["data"]["text/plain"] == "['os', 'system_names']"


def test_the_notebooks_share_one_client_waited_for_once_and_the_kernel_is_stopped(tmp_path, monkeypatch):
    """jupyter_client's ``wait_for_ready`` waits for 0.2 s of silence on IOPub: once per runner,
    not once or twice per notebook. Closing the runner stops the kernel process."""
    import os

    from jupyter_client.client import KernelClient

    waits = []
    original = KernelClient._async_wait_for_ready

    async def counting(self, timeout=None):
        waits.append(timeout)
        return await original(self, timeout=timeout)

    monkeypatch.setattr("jupyter_client.asynchronous.client.AsyncKernelClient.wait_for_ready", counting)
    notebooks = [_notebook(tmp_path / f"n{i}.ipynb", f"{i} * 2") for i in range(3)]
    with NotebookRunner(tmp_path / "run") as runner:   # (no preload: its client is a thread's own)
        for nb in notebooks:
            runner.execute(nb, tmp_path / "run" / nb.name, {})
        pid = runner._km.provisioner.process.pid
    assert len(waits) == 1
    assert [_outputs(tmp_path / "run" / nb.name)[1][2][0]["data"]["text/plain"] for nb in notebooks] == ["0", "2", "4"]
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_prefetching_imports_never_raises():
    import sys

    from evalreport.report.build import prefetch_imports

    prefetch_imports(("colorsys", "evalreport_no_such_module")).join()
    assert "colorsys" in sys.modules


def test_images_are_drawn_in_a_process_of_their_own_with_vl_converts_messages():
    """vl-convert holds the GIL while it draws: the runner's images are drawn by
    :mod:`evalreport.report.chart_worker`, the same PNG as in this process, and a spec vl-convert
    rejects raises its message here, as drawing it in this process would."""
    import os

    from evalreport.report.kernel import _ChartProcess

    worker = _ChartProcess()
    try:
        assert worker._proc.pid != os.getpid()
        spec = _spec()
        assert worker.draw(spec) == display.chart_image_output(spec)
        bad = {**spec, "mark": "no-such-mark"}
        with pytest.raises(Exception) as here:
            display.chart_image_output(bad)
        with pytest.raises(ValueError) as there:
            worker.draw(bad)
        # the message's first line; the JavaScript stack under it depends on what the engine compiled
        assert str(there.value).splitlines()[0] == str(here.value).splitlines()[0]
        assert worker.draw(spec) == display.chart_image_output(spec)        # it goes on after an error
        worker._proc.kill()
        worker._proc.wait()
        with pytest.raises(RenderError, match=r"^the chart drawing process ended \(exit status -9\)$"):
            worker.draw(spec)
    finally:
        worker.close()

"""Execute a report's notebooks one after the other in ONE kernel, charts' images drawn beside it.

:func:`evalreport.report.render.execute` starts a kernel per notebook: each pays the kernel's
start, the imports of the report code and vl-convert's first image again (about 3 s of a
notebook's 4 s in the demo). :class:`NotebookRunner` starts one kernel (the running
interpreter, as ``execute`` does), may start it early (while the analyses run) and import what
the notebooks need, then runs any number of notebooks with papermill, each as if in a kernel of
its own: before each one the kernel's namespace is emptied and its execution counter set back
to 1 (IPython's ``reset(new_session=True)``), so the executed notebook is the one a fresh kernel
writes (same cells, outputs and execution counts; papermill's timing metadata aside).

The static image of a chart (the SVG or PNG the PDF shows, :class:`~evalreport.report.display.Chart`,
:func:`~evalreport.report.display.chart_image_output`) costs 0.1-0.7 s of vl-convert per chart. In the runner's kernel a chart leaves it out and names
its spec instead (:data:`~evalreport.report.display.MIME_DEFERRED_PNG`; the kernel is told by
:data:`~evalreport.report.display.DEFER_ENV`); the runner draws the image in a drawing process
(:mod:`~evalreport.report.chart_worker`; vl-convert holds the GIL, so not in a thread of this
one) while the kernel goes on to the next cell (the kernel and the drawing use the two cores),
once per distinct spec, and puts it into the notebook where the chart would have: the
notebook on disk holds the same display data as one executed the plain way. A kernel started
elsewhere (Jupyter, ``quarto render --execute``) draws its images itself.
"""
from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from evalreport.report.display import DEFER_ENV, MIME_DEFERRED_PNG, VALIDATE_ENV
from evalreport.report.output import RenderError

__all__ = ["NotebookRunner", "fill_chart_images"]

log = logging.getLogger("evalreport.report")

#: Run silently in the kernel before each notebook: a fresh namespace, execution counts from 1,
#: the working directory the notebook runs in (the kernel may have started elsewhere, before the
#: report's folder existed). Binds no name: the namespace stays empty.
_RESET = "get_ipython().reset(new_session=True); __import__('os').chdir({cwd!r})"


def _reused_client_class(base):
    """``base`` (jupyter_client's AsyncKernelClient) made to serve every notebook of a runner: channels
    started and readiness awaited once (``wait_for_ready`` costs ~1 s a notebook); a client reads only the
    replies to its own requests, so what an earlier notebook left on a channel is skipped."""

    class ReusedClient(base):
        _evalreport_ready = False

        def start_channels(self, *args, **kwargs):
            if not self.channels_running:
                super().start_channels(*args, **kwargs)

        async def wait_for_ready(self, timeout=None):
            if not self._evalreport_ready:
                await base.wait_for_ready(self, timeout=timeout)
                self._evalreport_ready = True

        def stop_channels(self):   # the runner closes it (close_now)
            pass

        def close_now(self):
            base.stop_channels(self)

    return ReusedClient


def _spec_key(spec: Any) -> str:
    return hashlib.sha256(json.dumps(spec, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


class _ChartProcess:
    """One drawing process (vl-convert holds the GIL while it draws, which would stall the executor)."""

    def __init__(self):
        self._proc = subprocess.Popen([sys.executable, "-m", "evalreport.report.chart_worker"],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=_worker_env())

    def draw(self, spec) -> tuple[str, str, int, int]:
        try:
            self._proc.stdin.write(json.dumps({"spec": spec}, ensure_ascii=False).encode("utf-8") + b"\n")
            self._proc.stdin.flush()
            line = self._proc.stdout.readline()
        except OSError:     # (a broken pipe: the process is gone; said below)
            line = b""
        if not line:
            raise RenderError(f"the chart drawing process ended (exit status {self._proc.poll()})")
        reply = json.loads(line)
        if "error" in reply:
            raise ValueError(reply["error"])
        return reply["mime"], reply["data"], reply["width"], reply["height"]

    def close(self) -> None:
        try:
            self._proc.stdin.close()
        except OSError:
            pass
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        self._proc.stdout.close()


def _worker_env() -> dict[str, str]:
    """The drawing process imports this evalreport (wherever it is imported from here)."""
    import evalreport

    root = str(Path(evalreport.__file__).resolve().parent.parent)
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": root if not path else root + os.pathsep + path}


#: The chart a drawing process draws first, to start its engine.
_TINY_CHART = {"$schema": "https://vega.github.io/schema/vega-lite/v6.json", "data": {"values": [{"a": 1}]},
               "mark": "point", "encoding": {"x": {"field": "a", "type": "quantitative"}}}


class _ChartImages:
    """Static chart images drawn beside the kernel, each distinct spec once, by drawing processes."""

    def __init__(self, workers: int = 1):
        self._workers = workers
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="evalreport-chart")
        self._futures: dict[str, Future] = {}
        self._lock = threading.Lock()
        self._idle: list[_ChartProcess] = []
        self._all: list[_ChartProcess] = []
        self.seconds = 0.0

    def _draw(self, spec):
        started = time.perf_counter()
        with self._lock:
            worker = self._idle.pop() if self._idle else None
        try:
            if worker is None:
                worker = _ChartProcess()
                with self._lock:
                    self._all.append(worker)
            return worker.draw(spec)
        finally:
            with self._lock:
                if worker is not None:
                    self._idle.append(worker)
                self.seconds += time.perf_counter() - started

    def warm(self) -> None:
        """Start every drawing process now and draw a tiny chart in each: vl-convert's first image
        pays its engine's start (about 0.7 s), better spent while the analyses run than when the
        charts wait."""
        for _ in range(self._workers):
            self._pool.submit(self._warm_one)

    def _warm_one(self) -> None:
        worker = _ChartProcess()
        with self._lock:
            self._all.append(worker)
        try:
            worker.draw(_TINY_CHART)
        except Exception as exc:   # only a head start: a chart that needs this process says what is wrong
            log.debug("warming a chart drawing process: %s", exc)
        finally:
            with self._lock:
                self._idle.append(worker)

    def submit(self, spec) -> Future:
        key = _spec_key(spec)
        if key not in self._futures:
            self._futures[key] = self._pool.submit(self._draw, spec)
        return self._futures[key]

    def submit_outputs(self, outputs) -> None:
        for out in outputs or ():
            deferred = out.get("data", {}).get(MIME_DEFERRED_PNG) if isinstance(out, Mapping) else None
            if deferred is not None:
                self.submit(deferred["spec"])

    def result(self, spec):
        return self.submit(spec).result()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
        for worker in self._all:
            worker.close()
        self._all.clear()
        self._idle.clear()


def fill_chart_images(nb, draw) -> int:
    """Replace every deferred chart image of the notebook ``nb`` (in place) by its static image, drawn
    by ``draw(spec) -> (mime type, image, width, height)``
    (:func:`~evalreport.report.display.chart_image_output`); return how many were filled."""
    n = 0
    for cell in nb.cells:
        for out in cell.get("outputs", []) if cell.cell_type == "code" else ():
            data = out.get("data")
            if not data or MIME_DEFERRED_PNG not in data:
                continue
            mime, image, width, height = draw(data.pop(MIME_DEFERRED_PNG)["spec"])
            data[mime] = image
            meta = out.setdefault("metadata", {})
            image_meta = dict(meta.pop(MIME_DEFERRED_PNG, {}))
            meta[mime] = {"width": width, "height": height, **image_meta}
            n += 1
    return n


class NotebookRunner:
    """Execute notebooks in one kernel whose working directory is ``cwd``.

    ``preload``: modules the kernel imports as soon as it starts (silently, while this process
    does something else). Use as a context manager (the kernel is shut down on exit); the kernel
    starts at :meth:`start` or at the first :meth:`execute`.
    """

    def __init__(self, cwd: Path | None, *, preload: Sequence[str] = (), image_workers: int | None = None):
        #: The notebooks' working directory; None until it is known (the kernel may start before
        #: the report's folder exists: it then starts in the system's temporary folder, and each
        #: notebook moves it to ``cwd``). Set it before :meth:`execute`.
        self.cwd = None if cwd is None else Path(cwd)
        self.preload = tuple(preload)
        # two drawing processes on two cores or more: the images left when the kernel is done
        # (the charts of the last cells) are drawn two at a time
        self._images = _ChartImages(image_workers or min(2, os.cpu_count() or 1))
        self._images_warm = False
        #: Whether the charts' static images are drawn while the notebooks run (only a PDF needs them):
        #: False leaves each chart's placeholder in the notebook (:func:`~evalreport.report.render.load_executed`
        #: draws it if a PDF is rendered later)
        self.draw_images = True
        self._km: Any = None                   # an instance of a class built on first start
        self._kernelspec: contextlib.AbstractContextManager | None = None
        self._started = False
        self._preloading: threading.Thread | None = None
        self._clients: list = []

    # -- lifecycle ---------------------------------------------------------------------------
    def __enter__(self) -> NotebookRunner:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def start(self) -> NotebookRunner:
        """Start the kernel (and the image thread's vl-convert) now, import ``preload`` in it."""
        if self._started:
            return self
        from jupyter_core.utils import run_sync

        from evalreport.report.render import quiet_kernel_manager, running_interpreter_kernel

        if self.cwd is not None:
            self.cwd.mkdir(parents=True, exist_ok=True)
        start_in = self.cwd if self.cwd is not None else Path(tempfile.gettempdir())
        if self.cwd is not None:   # (started early, before its folder: the caller does more first)
            self.warm_images()
        self._kernelspec = running_interpreter_kernel(self.cwd, env={DEFER_ENV: "1", VALIDATE_ENV: "0"})
        self._kernelspec.__enter__()
        try:
            clients = self._clients

            class _Tracked(quiet_kernel_manager()):  # type: ignore[misc]  # a base class built at run time
                """Gives every notebook the same client; ``client(fresh=True)``: a client of its own."""

                def client(self, fresh: bool = False, **kwargs):
                    if not fresh and clients:
                        return clients[0]
                    kc = super().client(**kwargs)
                    if not fresh:
                        kc.__class__ = _reused_client_class(type(kc))
                        clients.append(kc)
                    return kc

            self._km = _Tracked(kernel_name="python3")
            # as nbclient starts a kernel: IPython's history in memory, not in the user's profile
            run_sync(self._km.start_kernel)(cwd=str(start_in),
                                            extra_arguments=["--HistoryManager.hist_file=:memory:"])
            self._started = True
            if self.preload:   # in a thread: the kernel takes about a second to answer
                self._preloading = threading.Thread(target=self._preload, name="evalreport-preload", daemon=True)
                self._preloading.start()
        except BaseException:
            self.close()
            raise
        return self

    def warm_images(self) -> None:
        """Start the chart drawing processes now (once): a runner started before its folder
        existed (:func:`evalreport.report.build.start_runner`) starts them when it gets one, so
        that they do not compete with what the caller does meanwhile (the demo's training)."""
        if not self._images_warm and self.draw_images:
            self._images_warm = True
            self._images.warm()

    def close(self) -> None:
        from jupyter_core.utils import run_sync

        self._wait_preload()
        self._close_clients()
        if self._km is not None:
            try:
                if self._started:
                    # Stopped at once (SIGKILL): every notebook is written, the kernel holds
                    # nothing to save (history in memory), and a polite shutdown request waits
                    # for the kernel's exit, 0.5-1 s at the end of every report.
                    run_sync(self._km.shutdown_kernel)(now=True)
            except Exception as exc:   # a kernel that died already: nothing left to stop
                log.debug("kernel shutdown: %s", exc)
            self._km = None
        self._started = False
        if self._kernelspec is not None:
            self._kernelspec.__exit__(None, None, None)
            self._kernelspec = None
        self._images.close()

    def _close_clients(self) -> None:
        while self._clients:
            kc = self._clients.pop()
            try:
                kc.close_now()
            except Exception as exc:   # (a client that never started)
                log.debug("closing a kernel client: %s", exc)

    def _preload(self) -> None:
        try:   # (a thread and an event loop of its own: a client of its own)
            asyncio.run(self._silent("\n".join(f"import {m}" for m in self.preload), fresh=True))
        except Exception as exc:   # the notebook that imports it says what is wrong, in its cell
            log.debug("preloading %s failed: %s", self.preload, exc)

    def _wait_preload(self) -> None:
        if self._preloading is not None:
            self._preloading.join()
            self._preloading = None

    async def _silent(self, code: str, *, wait: bool = True, fresh: bool = False) -> None:
        """Run ``code`` in the kernel without output or history (``wait``: until done; ``fresh``: own client)."""
        kc = self._km.client(fresh=fresh)
        kc.start_channels()
        try:
            await kc.wait_for_ready(timeout=60)
            msg_id = kc.execute(code, silent=True, store_history=False)
            while wait:
                reply = await kc.get_shell_msg(timeout=600)
                if reply["parent_header"].get("msg_id") != msg_id:
                    continue
                if reply["content"].get("status") != "ok":
                    raise RenderError(f"the report kernel could not run {code!r}: "
                                      f"{reply['content'].get('ename')}: {reply['content'].get('evalue')}")
                break
        finally:
            if fresh:
                kc.stop_channels()

    @property
    def image_seconds(self) -> float:
        """Time the image thread spent drawing chart images so far."""
        return self._images.seconds

    # -- execution ---------------------------------------------------------------------------
    def execute(self, notebook: Path, out: Path, parameters: Mapping[str, Any], *, images: bool = True) -> Path:
        """Run ``notebook`` with papermill in this runner's kernel, injecting ``parameters``; write
        it, chart images filled in, to ``out``. A failing cell raises :class:`RenderError` naming
        the notebook and the cell, the partly executed notebook (images filled) left at ``out``,
        as :func:`~evalreport.report.render.execute` does.

        ``images=False``: return without waiting for the chart images (the kernel can go on to
        the next notebook while they are drawn); :meth:`fill_images` puts them in later."""
        import papermill as pm
        from jupyter_core.utils import run_sync

        notebook, out = Path(notebook), Path(out)
        if not notebook.is_file():
            raise RenderError(f"notebook not found: {notebook}")
        if self.cwd is None:
            raise ValueError("NotebookRunner.cwd (the notebooks' working directory) is not set")
        out.parent.mkdir(parents=True, exist_ok=True)
        self.start()
        if not run_sync(self._km.is_alive)():
            raise RenderError(f"{notebook.name}: the report kernel died before it could run")
        self._wait_preload()
        self.cwd.mkdir(parents=True, exist_ok=True)
        run_sync(self._silent)(_RESET.format(cwd=str(self.cwd.resolve())))
        started = time.perf_counter()
        drawer = self._images

        def on_cell_executed(cell, cell_index, execute_reply):   # draw while the kernel goes on
            if self.draw_images:
                drawer.submit_outputs(cell.get("outputs"))

        failure = None
        try:
            pm.execute_notebook(str(notebook), str(out), parameters=dict(parameters), kernel_name="python3",
                                language="python", progress_bar=False, cwd=str(self.cwd), km=self._km,
                                on_cell_executed=on_cell_executed, request_save_on_cell_execute=False)
        except pm.PapermillExecutionError as exc:
            first = next((line.strip() for line in str(exc.evalue).splitlines() if line.strip()), "")
            failure = RenderError(f"{notebook.name}: cell {exc.cell_index} failed: {exc.ename}"
                                  f"{': ' + first if first else ''} (partly executed notebook: {out})")
            failure.__cause__ = exc
        except BaseException:
            self._close_clients()   # a client in an unknown state: the next notebook opens another
            raise
        if failure is not None:
            self._close_clients()
            if out.is_file():
                self.fill_images([out])
            raise failure
        if images:
            self.fill_images([out])
        log.info("executed %s in %.2f s (one kernel)", notebook.name, time.perf_counter() - started)
        return out

    def fill_images(self, executed: Sequence[Path]) -> None:
        """Put the chart images, drawn or waited for now, into the ``executed`` notebooks (files)."""
        import nbformat

        if not self.draw_images:
            return
        for path in executed:
            nb = nbformat.read(str(path), as_version=4)
            try:
                filled = fill_chart_images(nb, self._images.result)
            except Exception as exc:   # vl-convert's errors are plain exceptions (ValueError...)
                raise RenderError(f"{Path(path).name}: a chart's image could not be drawn: {exc}") from exc
            if filled:
                nbformat.write(nb, str(path))

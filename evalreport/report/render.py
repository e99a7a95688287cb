"""Execute report notebooks (papermill) and render them to ONE HTML page and ONE PDF.

Two engines behind :func:`render`:

``builtin``
    HTML: nbconvert with our cells template (inputs hidden, stderr dropped), every notebook a
    ``<section>`` of one page, our CSS inlined, a table of contents, and the Vega bundle from
    vl-convert inlined once (cached on disk). PDF: pandoc reads each notebook
    (``-f ipynb --ipynb-output=all``) through ``templates/typst/select-output.lua``, the
    documents are joined, written as Typst with ``templates/typst/report.typ`` and compiled
    with the typst Python binding (embedded fonts only, so every machine gives the same PDF).
``quarto``
    A temporary Quarto project (see :mod:`evalreport.report.quarto`): ``_quarto.yml`` plus the
    files it names, one notebook that joins the executed notebooks (carrying the same options
    in its front matter), rendered with ``quarto render --no-execute``; its HTML is cleaned of
    the CDN scripts Quarto adds.

Whichever engine made it, the HTML must not load anything from the network
(:func:`evalreport.report.output.check_offline`), or nothing is written. Nothing is executed
while rendering. Outputs appear atomically: everything is built in a temporary directory
inside ``out_dir`` and moved into place only when every format worked.
"""
from __future__ import annotations

import contextlib
import html as html_mod
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from evalreport.report.display import MIME_DEFERRED_PNG as _MIME_DEFERRED_PNG
from evalreport.report.fonts import beyond_bundled_fonts, chart_font_dir, uncovered_by_system_fonts
from evalreport.report.output import RenderError, check_offline
from evalreport.report.quarto import fresh_name, quarto_commands, quarto_project
from evalreport.report.resources import templates_dir
from evalreport.report.typst_pdf import drop_false_suspects

__all__ = [
    "RenderError",
    "execute",
    "render",
    "vega_bundle",
    "quarto_project",
    "quarto_commands",
    "FORMATS",
    "ENGINES",
    "METADATA_KEYS",
    "check_metadata", "load_executed", "pandoc_path", "quiet_kernel_manager", "running_interpreter_kernel",
]

log = logging.getLogger("evalreport.report")

FORMATS = ("html", "pdf")
ENGINES = ("auto", "quarto", "builtin")
#: Keys accepted in ``render(metadata=...)`` (all optional strings).
METADATA_KEYS = ("subtitle", "author", "date", "lang")

# --------------------------------------------------------------------------------------------
# Execution
# --------------------------------------------------------------------------------------------
@contextlib.contextmanager
def running_interpreter_kernel(where: Path | None = None, env: Mapping[str, str] | None = None) -> Iterator[None]:
    """Make the ``python3`` kernel mean *this* interpreter while executing.

    jupyter_client already maps ``python3`` to ``sys.executable`` when no ``python3``
    kernelspec is installed, but a user-level one (pointing at another Python) would win. A
    private kernelspec first on JUPYTER_PATH removes that doubt without installing anything.
    It is written under ``where`` (a report's staging folder, swept if the process is killed).
    ``env``: variables set in the kernel's environment (the kernelspec's ``env``).
    """
    with tempfile.TemporaryDirectory(prefix=".evalreport-kernel-", dir=where) as tmp:
        spec_dir = Path(tmp) / "kernels" / "python3"
        spec_dir.mkdir(parents=True)
        spec = {
            # log level ERROR: ipykernel 7 warns on stderr that a local TCP kernel is unencrypted
            "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}",
                     "--IPKernelApp.log_level=ERROR"],
            "display_name": "Python 3 (evalreport)",
            "language": "python",
            "metadata": {"debugger": False},
        }
        if env:
            spec["env"] = dict(env)
        (spec_dir / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
        old = os.environ.get("JUPYTER_PATH")
        os.environ["JUPYTER_PATH"] = tmp if not old else tmp + os.pathsep + old
        try:
            yield
        finally:
            if old is None:
                os.environ.pop("JUPYTER_PATH", None)
            else:
                os.environ["JUPYTER_PATH"] = old


def quiet_kernel_manager():
    """An AsyncKernelManager that does not interrupt an idle kernel to shut it down.

    jupyter_client's ``shutdown_kernel`` first sends SIGINT, then the shutdown request. When
    the signal lands while ipykernel is inside a message handler (a race: the kernel is idle
    for papermill but still finishing a reply), ipykernel logs ``[IPKernelApp] ERROR |
    KeyboardInterrupt caught in kernel.`` on the terminal. papermill only shuts a kernel down
    after every cell has replied, so the interrupt has nothing to stop; the shutdown request
    (and, after the wait, the kill) still end the kernel.
    """
    from jupyter_client import AsyncKernelManager

    class QuietShutdownKernelManager(AsyncKernelManager):
        _evalreport_shutting_down = False

        # a coroutine, as in AsyncKernelManager; jupyter_client's annotations describe the synchronous one
        async def shutdown_kernel(  # type: ignore[override]
                self, now: bool = False, restart: bool = False) -> None:
            self._evalreport_shutting_down = True
            try:
                await super().shutdown_kernel(now=now, restart=restart)
            finally:
                self._evalreport_shutting_down = False

        async def _async_interrupt_kernel(self) -> None:
            if self._evalreport_shutting_down:
                return
            await super()._async_interrupt_kernel()

    return QuietShutdownKernelManager


def execute(
    notebook: Path,
    out: Path,
    parameters: Mapping[str, Any],
    *,
    cwd: Path | None = None,
    progress: bool = True,
) -> Path:
    """Run ``notebook`` with papermill, injecting ``parameters``; write it to ``out``.

    The kernel is the running interpreter. ``cwd`` (default: ``out``'s directory) is the
    kernel's working directory. On a failing cell a :class:`RenderError` names the notebook
    and the cell; the partly executed notebook is left at ``out`` for inspection.
    """
    import papermill as pm

    notebook, out = Path(notebook), Path(out)
    if not notebook.is_file():
        raise RenderError(f"notebook not found: {notebook}")
    out.parent.mkdir(parents=True, exist_ok=True)
    cwd = Path(cwd) if cwd is not None else out.parent
    started = time.perf_counter()
    with running_interpreter_kernel(out.parent):
        try:
            pm.execute_notebook(
                str(notebook),
                str(out),
                parameters=dict(parameters),
                kernel_name="python3",
                language="python",
                progress_bar=progress,
                cwd=str(cwd),
                kernel_manager_class=quiet_kernel_manager(),
                request_save_on_cell_execute=False,   # (see NotebookRunner.execute)
            )
        except pm.PapermillExecutionError as exc:
            # one line: the exception's first line (Altair's MaxRowsError, for one, runs to ten)
            first = next((line.strip() for line in str(exc.evalue).splitlines() if line.strip()), "")
            raise RenderError(
                f"{notebook.name}: cell {exc.cell_index} failed: {exc.ename}{': ' + first if first else ''} "
                f"(partly executed notebook: {out})"
            ) from exc
    log.info("executed %s in %.2f s", notebook.name, time.perf_counter() - started)
    return out


# --------------------------------------------------------------------------------------------
# Shared: loading executed notebooks, metadata, the Vega bundle
# --------------------------------------------------------------------------------------------
def load_executed(path: Path, *, images: bool = True):
    """The executed notebook at ``path``, ready to render. A chart whose static image was left for later
    (:data:`~evalreport.report.display.MIME_DEFERRED_PNG`: a report rendered as HTML only draws none) gets
    its image drawn now when ``images`` (a PDF needs it), else the placeholder is dropped (the HTML page
    draws the chart from its spec); the file keeps the placeholder either way."""
    import nbformat

    path = Path(path)
    if not path.is_file():
        raise RenderError(f"executed notebook not found: {path}")
    nb = nbformat.read(str(path), as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    if code and all(c.get("execution_count") is None and not c.get("outputs") for c in code):
        raise RenderError(f"{path.name} has not been executed (run it with execute() first)")
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                raise RenderError(f"{path.name} contains a failed cell: {out.get('ename')}")
            if _MIME_DEFERRED_PNG in out.get("data", {}) and not images:
                out["data"].pop(_MIME_DEFERRED_PNG)
                out.get("metadata", {}).pop(_MIME_DEFERRED_PNG, None)
        # Warnings and logging on stderr are not part of a report.
        cell.outputs = [
            o for o in cell.get("outputs", []) if not (o.output_type == "stream" and o.name == "stderr")
        ]
    if images:
        _draw_deferred(nb, path)
    return nb


def _draw_deferred(nb, path: Path) -> None:
    """Draw, in this process, the chart images the notebook ``nb`` left for later."""
    from evalreport.report.display import chart_image_output
    from evalreport.report.kernel import fill_chart_images

    try:
        fill_chart_images(nb, chart_image_output)
    except Exception as exc:   # vl-convert's errors are plain exceptions (ValueError...)
        raise RenderError(f"{path.name}: a chart's image could not be drawn: {exc}") from exc


def check_metadata(title: str, metadata: Mapping[str, Any] | None) -> dict[str, str]:
    if not isinstance(title, str) or not title.strip():
        raise ValueError("title must be a non-empty string")
    meta = dict(metadata or {})
    unknown = sorted(set(meta) - set(METADATA_KEYS))
    if unknown:
        raise ValueError(f"unknown metadata keys {unknown}; allowed: {list(METADATA_KEYS)}")
    out = {"title": title.strip()}
    for key, value in meta.items():
        if value is not None and str(value).strip():
            out[key] = str(value).strip()
    out.setdefault("lang", "en")
    return out


def _generator() -> str:
    try:
        from importlib.metadata import version

        return f"evalreport {version('evalreport')}"
    except Exception:  # not installed (source checkout)
        return "evalreport"


def _cache_dir() -> Path:
    env = os.environ.get("EVALREPORT_CACHE_DIR")
    if env:
        return Path(env)
    try:
        from platformdirs import user_cache_dir

        return Path(user_cache_dir("evalreport", appauthor=False))
    except ImportError:  # pragma: no cover - platformdirs ships with jupyter_core
        base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
        return Path(base) / "evalreport"


def vega_bundle() -> str:
    """The Vega + Vega-Lite + Vega-Embed JavaScript, wrapped so only ``window.vega``,
    ``window.vegaLite`` and ``window.vegaEmbed`` leak. Cached per vl-convert version."""
    import vl_convert as vlc

    # (vl-convert's type stubs declare neither __version__ nor javascript_bundle's default snippet)
    name = f"vega-bundle-vlconvert-{vlc.__version__}.js"  # type: ignore[attr-defined]
    cache = _cache_dir() / name
    if cache.is_file():
        return cache.read_text(encoding="utf-8")
    started = time.perf_counter()
    raw = vlc.javascript_bundle()  # type: ignore[call-arg]
    if "</script" in raw.lower():  # never seen; would end the inline <script> early
        raw = re.sub(r"</(script)", r"<\\/\1", raw, flags=re.IGNORECASE)
    wrapped = "(function () {\n" + raw + "\n}).call(window);\n"
    log.info("built the Vega bundle in %.2f s", time.perf_counter() - started)
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache.parent, prefix=".bundle-", suffix=".js")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(wrapped)
        os.replace(tmp, cache)
    except OSError as exc:  # a read-only home must not stop a report
        log.warning("could not cache the Vega bundle in %s: %s", cache.parent, exc)
    return wrapped


# --------------------------------------------------------------------------------------------
# Builtin HTML
# --------------------------------------------------------------------------------------------
_HEADING_RE = re.compile(r"<h([1-6])((?:\s[^>]*)?)>(.*?)</h\1>", re.DOTALL | re.IGNORECASE)
_ID_RE = re.compile(r'\sid="([^"]*)"')
_TAG_RE = re.compile(r"<[^>]+>")
_ANCHOR_RE = re.compile(r'<a class="anchor-link"[^>]*>.*?</a>', re.DOTALL)


def _slug(text: str) -> str:
    slug = re.sub(r"[^\w\- ]+", "", text.lower()).strip().replace(" ", "-")
    return slug or "section"


def _link_headings(sections: list[str], *, toc_depth: int = 2) -> tuple[list[str], str]:
    """Give every heading a unique id and build the nested table of contents."""
    seen: set[str] = set()
    entries: list[tuple[int, str, str]] = []

    def fix(match: re.Match) -> str:
        level, attrs, inner = int(match.group(1)), match.group(2) or "", match.group(3)
        text = html_mod.unescape(_TAG_RE.sub("", _ANCHOR_RE.sub("", inner))).strip()
        found = _ID_RE.search(attrs)
        old = found.group(1) if found else None
        new = fresh_name(old or _slug(text), seen)
        if old is None:
            attrs = f' id="{html_mod.escape(new, quote=True)}"' + attrs
        elif new != old:
            attrs = attrs.replace(f'id="{old}"', f'id="{new}"', 1)
            inner = inner.replace(f'href="#{old}"', f'href="#{new}"')
        if "er-title" not in attrs:
            entries.append((level, new, text))
        return f"<h{level}{attrs}>{inner}</h{level}>"

    out = [_HEADING_RE.sub(fix, s) for s in sections]
    if not entries:
        return out, ""
    top = min(level for level, _, _ in entries)
    parts, depth = ["<ul>"], 0
    items = [(level - top, hid, text) for level, hid, text in entries if level - top < toc_depth]
    for i, (rel, hid, text) in enumerate(items):
        rel = 0 if i == 0 else min(rel, depth + 1)  # never skip a nesting level
        if i:
            parts.append("<ul>" if rel > depth else "</li>" + "</ul></li>" * (depth - rel))
        depth = rel
        parts.append(f'<li><a href="#{html_mod.escape(hid, quote=True)}">{html_mod.escape(text)}</a>')
    parts.append("</li>" + "</ul></li>" * depth + "</ul>")
    return out, "".join(parts)


_CHART_ID_RE = re.compile(r'(<div\b[^>]*\sid=")(chart-[^"]*)(")')


def _unique_chart_ids(sections: list[str]) -> list[str]:
    """Charts are named by their authors; a name used twice gets ``-2``, ``-3``... (warned)."""
    seen: set[str] = set()

    def fix(match: re.Match) -> str:
        base = match.group(2)
        new = fresh_name(base, seen)
        if new != base:
            log.warning("chart id %s used more than once in the report; renamed to %s", base, new)
        return match.group(1) + new + match.group(3)

    return [_CHART_ID_RE.sub(fix, s) for s in sections]


def _html_exporter(tdir: Path):
    from nbconvert import HTMLExporter
    from traitlets.config import Config

    c = Config()
    c.HTMLExporter.extra_template_basedirs = [str(tdir / "html")]
    c.HTMLExporter.template_name = "cells"
    c.HTMLExporter.require_js_url = ""
    c.HTMLExporter.mathjax_url = ""
    c.HTMLExporter.exclude_input = True
    c.HTMLExporter.exclude_input_prompt = True
    c.HTMLExporter.exclude_output_prompt = True
    c.HTMLExporter.embed_images = True
    c.HTMLExporter.sanitize_html = False
    return HTMLExporter(config=c)


def _builtin_html(notebooks: Sequence[tuple[str, Any]], work: Path, meta: Mapping[str, str],
                  templates: Path | None = None) -> Path:
    import jinja2
    import vl_convert as vlc
    from markupsafe import Markup

    templates = Path(templates) if templates is not None else templates_dir()
    exporter = _html_exporter(templates)
    bodies = []
    for name, nb in notebooks:
        body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": name}})
        bodies.append(body)
    bodies, toc = _link_headings(_unique_chart_ids(bodies))
    needs_vega = any('class="vega-chart"' in b for b in bodies)
    tdir = templates / "html"
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(tdir)), autoescape=True, undefined=jinja2.StrictUndefined
    )
    page = env.get_template("page.html.j2").render(
        title=meta["title"],
        subtitle=meta.get("subtitle"),
        author=meta.get("author"),
        date=meta.get("date"),
        lang=meta.get("lang", "en"),
        generator=_generator(),
        css=Markup((tdir / "report.css").read_text(encoding="utf-8")),
        vega_bundle=Markup(vega_bundle()) if needs_vega else None,
        vl_convert_version=vlc.__version__,  # type: ignore[attr-defined]  # not in vl-convert's stubs
        toc=Markup(toc) if toc else None,
        sections=[{"name": n, "html": Markup(b)} for (n, _), b in zip(notebooks, bodies)],
    )
    path = work / "report.html"
    path.write_text(page, encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------------
# Builtin PDF: pandoc (ipynb -> Typst) + typst
# --------------------------------------------------------------------------------------------
def pandoc_path() -> str:
    try:
        import pypandoc

        return pypandoc.get_pandoc_path()
    except (ImportError, OSError) as error:
        found = shutil.which("pandoc")
        if not found:
            raise RenderError("pandoc not found: install pypandoc-binary (evalreport[report])") from error
        return found


def _run(cmd: list[str], *, cwd: Path, input_text: str | None = None, what: str) -> str:
    proc = subprocess.run(
        cmd, cwd=str(cwd), input=input_text, capture_output=True, text=True, encoding="utf-8"
    )
    if proc.returncode != 0:
        raise RenderError(f"{what} failed (exit {proc.returncode}):\n{proc.stderr.strip()}")
    if proc.stderr.strip():
        log.debug("%s: %s", what, proc.stderr.strip())
    return proc.stdout


def _builtin_pdf(notebooks: Sequence[tuple[str, Any]], work: Path, meta: Mapping[str, str],
                 templates: Path | None = None) -> Path:
    import nbformat
    import typst

    work.mkdir(parents=True, exist_ok=True)
    tdir = (Path(templates) if templates is not None else templates_dir()) / "typst"
    pandoc = pandoc_path()
    started = time.perf_counter()
    blocks: list = []
    api_version = None

    def read(i: int, name: str, nb) -> str:
        src = work / f"nb{i:02d}.ipynb"
        nbformat.write(nb, str(src))
        return _run(
            [pandoc, src.name, "--from=ipynb", "--to=json", "--ipynb-output=all",
             f"--lua-filter={tdir / 'select-output.lua'}", "--extract-media=media"],
            cwd=work, what=f"pandoc (reading {name})",
        )

    # one pandoc per notebook, side by side (separate processes; the media names are content hashes)
    with ThreadPoolExecutor(max_workers=min(len(notebooks), os.cpu_count() or 1) or 1) as pool:
        read_out = list(pool.map(read, range(len(notebooks)), *zip(*notebooks))) if notebooks else []
    for out in read_out:
        doc = json.loads(out)
        api_version = doc["pandoc-api-version"]
        blocks.extend(doc["blocks"])
    merged: dict[str, Any] = {"pandoc-api-version": api_version, "meta": {}, "blocks": blocks}
    cmd = [pandoc, "--from=json", "--to=typst", "--standalone",
           f"--template={tdir / 'report.typ'}", "--output=report.typ"]
    for key in ("title", "subtitle", "author", "date", "lang"):
        if meta.get(key):
            cmd.append(f"--metadata={key}:{meta[key]}")
    cmd.append(f"--metadata=generator:{_generator()}")
    _run(cmd, cwd=work, input_text=json.dumps(merged), what="pandoc (writing Typst)")
    t_typst = time.perf_counter()
    log.info("pandoc -> Typst in %.2f s", t_typst - started)
    pdf = work / "report.pdf"
    # the charts' SVG text counts too: typst sets it (in Liberation Sans, or a machine font beyond it)
    charts_text = "".join(p.read_text(encoding="utf-8", errors="replace") for p in sorted(work.glob("media/*.svg")))
    beyond = beyond_bundled_fonts((work / "report.typ").read_text(encoding="utf-8") + charts_text)
    if beyond:
        missing = uncovered_by_system_fonts(beyond)
        log.info("%d character(s) beyond typst's bundled fonts (%s): the machine's fonts are fallbacks",
                 len(beyond), "".join(beyond[:10]))
        if missing:
            log.warning("the PDF shows empty boxes for %s: no installed font has %s (install one that does, "
                        "e.g. a Noto font for the script; the HTML report shows them)",
                        ", ".join(repr(c) for c in missing), "it" if len(missing) == 1 else "them")
    try:
        chart_fonts = chart_font_dir(work) if charts_text else None
        typst.compile(
            str(work / "report.typ"), output=str(pdf), root=str(work), ignore_system_fonts=not beyond,
            font_paths=[str(chart_fonts)] if chart_fonts is not None else [],
        )
    except Exception as exc:  # typst.TypstError; keep the .typ for inspection in the message
        raise RenderError(f"typst failed on the generated report.typ: {exc}") from exc
    log.info("typst -> PDF in %.2f s", time.perf_counter() - t_typst)
    return pdf


# --------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------
def preload(engine: str = "auto") -> threading.Thread:
    """Import what the ``engine``'s renderer needs in a daemon thread, and return it: a report's
    process calls this while its kernel executes the notebooks (nbconvert alone takes ~1 s)."""
    modules = (("nbformat", "jinja2", "nbconvert", "pypandoc", "typst") if _resolve_engine(engine) == "builtin"
               else ("nbformat",))

    def run() -> None:
        import importlib

        for name in modules:
            try:
                importlib.import_module(name)
            except ImportError:   # reported where it is used
                pass
        if "nbconvert" in modules:
            _warm_builtin()

    thread = threading.Thread(target=run, name="evalreport-preload-render", daemon=True)
    thread.start()
    return thread


def _warm_builtin() -> None:
    """Do once, on a tiny document, what the builtin engine's first render does slowly: nbconvert
    loads and compiles its templates (about 0.2 s), typst loads its fonts. Both stay cached in
    the process, so the report's own render, at the end, does not pay for them."""
    try:
        import nbformat
        import typst

        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("warm")])
        _html_exporter(templates_dir()).from_notebook_node(nb)
        with tempfile.TemporaryDirectory(prefix=".evalreport-warm-") as tmp:
            (Path(tmp) / "warm.typ").write_text("warm", encoding="utf-8")
            typst.compile(str(Path(tmp) / "warm.typ"), ignore_system_fonts=True)
    except Exception as exc:   # only a head start: the render itself reports what is wrong
        log.debug("warming the builtin engine: %s", exc)


def _resolve_engine(engine: str) -> str:
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    if engine == "auto":
        return "quarto" if shutil.which("quarto") else "builtin"
    return engine


def render(
    executed_notebooks: Sequence[Path],
    out_dir: Path,
    *,
    title: str,
    formats: Sequence[str] = FORMATS,
    engine: str = "auto",
    metadata: Mapping[str, Any] | None = None,
    resources: Path | None = None,
) -> dict[str, Path]:
    """Render already executed notebooks, in order, as ONE report per format.

    Returns ``{"html": out_dir/"report.html", "pdf": out_dir/"report.pdf"}`` (the formats
    asked for). ``metadata`` may hold :data:`METADATA_KEYS`. ``engine="auto"`` uses Quarto
    when ``quarto`` is on PATH, else the builtin engine. ``resources``: a folder holding
    ``templates/`` (and, for Quarto, ``_quarto.yml``) used instead of evalreport's own, e.g. a
    report folder whose templates a user edited. Either every format is written or none is
    (existing files are only replaced on success); an HTML page that would load anything
    from the network is refused (:class:`RenderError`).
    """
    formats = tuple(formats)
    bad = [f for f in formats if f not in FORMATS]
    if bad or not formats or len(set(formats)) != len(formats):
        raise ValueError(f"formats must be distinct values from {FORMATS}, got {formats!r}")
    engine = _resolve_engine(engine)
    meta = check_metadata(title, metadata)
    paths = [Path(p) for p in executed_notebooks]
    if not paths:
        raise ValueError("no notebooks to render")
    notebooks = [(p.stem, load_executed(p, images="pdf" in formats)) for p in paths]

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    tdir = Path(resources).resolve() / "templates" if resources is not None else None
    stage = Path(tempfile.mkdtemp(prefix=".evalreport-render-", dir=out_dir))
    try:
        built: dict[str, Path] = {}
        if engine == "builtin":
            def build(fmt: str) -> Path:
                started = time.perf_counter()
                if fmt == "html":
                    path = _builtin_html(notebooks, stage, meta, tdir)
                else:
                    path = _builtin_pdf(notebooks, stage / "pdf", meta, tdir)
                log.info("builtin %s in %.2f s", fmt, time.perf_counter() - started)
                return path

            # the PDF (pandoc and typst, outside the GIL) beside the HTML page (nbconvert)
            with ThreadPoolExecutor(max_workers=len(formats)) as pool:
                futures = {fmt: pool.submit(build, fmt) for fmt in formats}
                built = {fmt: futures[fmt].result() for fmt in formats}
        else:
            from evalreport.report.quarto import render_quarto

            built = render_quarto(notebooks, stage, meta, formats,
                                  templates_root=Path(resources).resolve() if resources is not None else None)
        if "html" in built:
            check_offline(Path(built["html"]).read_text(encoding="utf-8"), f"report.html ({engine} engine)")
        if "pdf" in built:   # Typst's "/Suspects false" makes poppler print a syntax error (either engine)
            drop_false_suspects(built["pdf"])
        result = {}
        for fmt in formats:
            final = out_dir / f"report.{fmt}"
            os.replace(built[fmt], final)
            result[fmt] = final
        return result
    finally:
        shutil.rmtree(stage, ignore_errors=True)

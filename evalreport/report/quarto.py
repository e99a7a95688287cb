"""The Quarto engine: a Quarto project made of the executed notebooks, rendered with ``--no-execute``.

Facts about Quarto this module is built around (Quarto 1.7 and 1.10, see docs):

* Quarto ignores every file under a path with a component starting with ``.`` (quarto-cli
  issue 3186), so ``_quarto.yml`` next to a notebook staged in ``.out.tmp/`` would be skipped.
  The project is therefore staged in a temporary folder without hidden components
  (:func:`render_folder`), and the joined notebook carries the ``format:`` and ``execute:``
  options in its own front matter, which Quarto honours wherever the notebook lies.
* A figure cell without ``#| fig-cap:`` is captioned "Figure N" only, so each chart cell gets
  the caption its display data carries (escaped: a caption is Quarto markdown).
* With a ``text/html`` output Quarto adds require.js and jQuery from a CDN plus a
  ``define('jquery', ...)`` stub; :func:`clean_html` removes them (the charts never use them).
* Quarto picks one representation per output itself (text/html for HTML, text/markdown for Typst),
  so a table would be Pandoc's pipe table in the PDF, sized by its dashes. Each table cell of the
  joined notebook therefore carries the table's Typst source at the head of its text/markdown and
  the class ``er-table-cell`` (:func:`table_cell`); the builtin engine's Lua filter, named under
  ``filters:``, sets that source in the PDF and widens the cell in the HTML page.
* A failing Quarto run raises :class:`RenderError` with the command, its exit status and the
  end of its stderr; warnings on stderr are logged, one line each, at WARNING level.
"""
from __future__ import annotations

import copy
import json
import logging
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from evalreport import escape
from evalreport.report.output import RenderError
from evalreport.report.resources import data_root, quarto_config, templates_dir
from evalreport.report.typst_table import MIME_TYPST

__all__ = ["quarto_project", "quarto_commands", "front_matter", "caption_option", "table_cell", "clean_html",
           "render_folder", "hidden_component", "render_quarto", "run_quarto", "BUNDLE_MARKER", "NOTEBOOK"]

log = logging.getLogger("evalreport.report")

BUNDLE_MARKER = "<!-- evalreport:vega-bundle -->"
#: The joined notebook Quarto renders (report.html, report.pdf next to it).
NOTEBOOK = "report.ipynb"
#: Keys of the report metadata that go into the front matter.
_META_KEYS = ("title", "subtitle", "author", "date", "lang")
#: Options of ``_quarto.yml`` that name files (copied into the project, valid relative to it); a
#: ``filters:`` entry is a path or a mapping with a ``path``.
_FILE_KEYS = frozenset({"css", "include-in-header", "include-before-body", "include-after-body",
                        "template", "template-partials", "pre-render", "post-render", "filters"})
#: Keys of ``_quarto.yml`` repeated in the notebook's front matter (they hold where Quarto skips the file).
_FRONT_KEYS = ("filters", "evalreport-quarto", "format", "execute")
#: Class of a cell that shows an evalreport table (the Lua filter looks for it).
TABLE_CLASS = "er-table-cell"
#: Lines of Quarto's stderr that are shown to the user.
_WARNING_RE = re.compile(r"\bWARN(ING)?\b|Could not fetch resource|\bERROR\b", re.IGNORECASE)
_TAIL_LINES = 15


# --------------------------------------------------------------------------------------------
# Where the project is staged
# --------------------------------------------------------------------------------------------
def hidden_component(path: Path) -> str | None:
    """The first component of ``path`` (resolved) that Quarto treats as hidden, or None."""
    for part in Path(path).resolve().parts:
        if part.startswith(".") and part not in (".", ".."):
            return part
    return None


def render_folder(near: Path | None = None, candidates: Sequence[Path] | None = None) -> Path | None:
    """A writable base folder without hidden components for a temporary Quarto project.

    Tried in order: the system temporary folder, ``/tmp``, ``/var/tmp``, then the nearest
    non-hidden ancestor of ``near`` (e.g. the folder that will hold the report). None when
    none fits (the caller then relies on the notebook's front matter alone).
    """
    if candidates is None:
        candidates = [Path(tempfile.gettempdir()), Path("/tmp"), Path("/var/tmp")]
        if near is not None:   # the longest leading part of its path without a hidden component
            parts = Path(near).resolve().parts
            visible = next((i for i, part in enumerate(parts) if part.startswith(".")), len(parts))
            candidates.append(Path(*parts[:visible]))
    for base in candidates:
        base = Path(base)
        if base.is_dir() and hidden_component(base) is None and os.access(base, os.W_OK | os.X_OK):
            return base.resolve()
    return None


# --------------------------------------------------------------------------------------------
# The project: _quarto.yml, the files it names, one joined notebook with front matter
# --------------------------------------------------------------------------------------------
def _quarto_files(config: Mapping[str, Any]) -> list[str]:
    """Relative paths of the files a ``_quarto.yml`` names (css, includes, partials)."""
    found: list[str] = []

    def walk(node: Any, key: str | None = None) -> None:
        if isinstance(node, Mapping):
            for k, v in node.items():
                walk(v, "filters" if key == "filters" and k == "path" else str(k))
        elif isinstance(node, list):
            for v in node:
                walk(v, key)
        elif isinstance(node, str) and key in _FILE_KEYS:
            found.append(node)

    walk(config)
    return found


def _load_config(cfg_path: Path | None = None) -> tuple[Path, dict]:
    import yaml

    cfg_path = Path(cfg_path) if cfg_path is not None else quarto_config()
    config = yaml.safe_load(cfg_path.read_text(encoding="utf-8")) or {}
    if not isinstance(config, dict):
        raise RenderError(f"{cfg_path} is not a YAML mapping")
    return cfg_path, config


def front_matter(meta: Mapping[str, str], config: Mapping[str, Any]) -> str:
    """The first raw cell of the joined notebook: title etc. plus ``format:``, ``execute:`` and the
    table filter (``filters:``, ``evalreport-quarto:``).

    Quarto honours a notebook's own front matter even where it skips ``_quarto.yml`` (a hidden
    folder), so the report keeps its formats, CSS, Vega header, TOC, A4 paper and tables either way.
    """
    import yaml

    doc: dict[str, Any] = {k: meta[k] for k in _META_KEYS if meta.get(k)}
    for key in _FRONT_KEYS:
        if config.get(key):
            doc[key] = copy.deepcopy(config[key])
    return ("---\n# Written by evalreport from notebooks/*.ipynb: edit those, then run `evalreport render`\n"
            "# on this folder\n" + yaml.safe_dump(doc, allow_unicode=True, sort_keys=False, width=1000) + "---")


def caption_option(caption: str) -> str:
    """``#| fig-cap: ...`` for a caption shown literally.

    Quarto reads a caption as markdown: it goes through :func:`evalreport.escape.markdown`
    (every ASCII punctuation character backslash-escaped), so ``*x*``, ``[a](http://x)``, ``<b>``,
    ``@ref`` or `` `x`{=typst} `` stay text. The value is then written as a double-quoted YAML
    scalar (:func:`evalreport.escape.yaml`).
    """
    return "#| fig-cap: " + escape.yaml(escape.markdown(caption))


def _chart_caption(cell) -> str | None:
    for out in cell.get("outputs", []):
        if out.get("output_type") in ("display_data", "execute_result"):
            meta = out.get("metadata") or {}
            cap = (meta.get("image/png") or meta.get("image/svg+xml") or {}).get("caption")
            if isinstance(cap, str) and cap.strip():
                return cap
    return None


_FIGCAPTION_RE = re.compile(r"\s*<figcaption>.*?</figcaption>", re.DOTALL)


_FIG_LABEL_RE = re.compile(r"^(#\|\s*label:\s*)fig-", re.MULTILINE)


def _add_caption(cell) -> None:
    """Give a chart cell its ``fig-cap``; a ``fig-`` cell without an image loses the prefix."""
    caption = _chart_caption(cell)
    if caption is None:
        if not any("image/png" in (o.get("data") or {}) or "image/svg+xml" in (o.get("data") or {})
                   for o in cell.get("outputs", [])):
            cell.source = _FIG_LABEL_RE.sub(r"\1", cell.source)
        return
    lines = cell.source.split("\n")
    n = 0
    while n < len(lines) and lines[n].startswith("#|"):
        n += 1
    lines = [ln for ln in lines[:n] if not ln.startswith("#| fig-cap:")] + [caption_option(caption)] + lines[n:]
    cell.source = "\n".join(lines)
    for out in cell.get("outputs", []):
        data = out.get("data") or {}
        if isinstance(data.get("text/html"), str):
            data["text/html"] = _FIGCAPTION_RE.sub("", data["text/html"])
        elif isinstance(data.get("text/html"), list):
            data["text/html"] = _FIGCAPTION_RE.sub("", "".join(data["text/html"]))


def _option_block(source: str) -> tuple[list[str], list[str]]:
    """A cell's leading ``#|`` option lines and the rest of its lines."""
    lines = source.split("\n")
    n = 0
    while n < len(lines) and lines[n].startswith("#|"):
        n += 1
    return lines[:n], lines[n:]


def _json_fence(payload: Mapping[str, Any]) -> str:
    """``payload`` as a fenced ``json`` block, ``<``/``>`` escaped so no data can form a Quarto shortcode."""
    text = json.dumps(dict(payload), ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e")
    ticks = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", text)), default=0))
    return f"{ticks}json\n{text}\n{ticks}\n"


_TBL_LABEL_RE = re.compile(r"^(#\|\s*label:\s*)tbl-", re.MULTILINE)


def table_cell(cell) -> None:
    """Make a cell that shows evalreport tables render as evalreport lays them out, whichever
    representation Quarto picks (see the module doc; the filter is templates/typst/select-output.lua):

    * each table's text/markdown starts with its Typst source (the ``json`` code block pandoc's
      ipynb reader makes of the Typst output in the builtin engine); the pipe table stays after it
      for formats other than Typst;
    * ``#| classes: ["er-table-cell"]`` (a list: Quarto prefixes each item with a dot) and
      ``#| html-table-processing: none`` (Quarto shows the HTML table as it is, classes, widths and
      upright headers included, instead of re-parsing it);
    * a ``tbl-x`` label becomes ``table-x``: the table carries its own caption, numbered by Typst in
      the PDF as in the builtin engine; as a Quarto table float it would get a second, bare "Table N"
      (and plain ``x`` would repeat the id of the heading above it).

    Applying it twice changes nothing more. A cell without a table is left alone."""
    tables = [out for out in cell.get("outputs", [])
              if isinstance((out.get("data") or {}).get(MIME_TYPST), Mapping)]
    if not tables:
        return
    for out in tables:
        data = out["data"]
        block = _json_fence(data[MIME_TYPST])
        md = data.get("text/markdown", "")
        md = "".join(md) if isinstance(md, list) else md
        if not md.startswith(block):
            data["text/markdown"] = block + "\n" + md
    import yaml

    opts, rest = _option_block(_TBL_LABEL_RE.sub(r"\1table-", cell.source))
    classes: list[str] = []
    kept = []
    for line in opts:
        key = line[2:].split(":", 1)[0].strip()
        if key == "classes":
            try:
                value = (yaml.safe_load(line[2:]) or {}).get("classes")
            except yaml.YAMLError:    # not ours to repair (Quarto names it); the PDF table works anyway
                cell.source = "\n".join(opts + rest)
                return
            classes = [value] if isinstance(value, str) else [str(v) for v in value or []]
        elif key != "html-table-processing":
            kept.append(line)
    classes += [TABLE_CLASS] * (TABLE_CLASS not in classes)
    kept += ["#| classes: " + json.dumps(classes, ensure_ascii=False), "#| html-table-processing: none"]
    cell.source = "\n".join(kept + rest)


_LABEL_RE = re.compile(r"^(#\|\s*label:\s*)(\S+)\s*$", re.MULTILINE)


def unique_label(source: str, seen: set[str]) -> str:
    """``source`` with its ``#| label:`` made unique among ``seen`` (which it joins): a notebook
    shown once per task of a benchmark repeats its labels, and Quarto's cross-references need
    each once. The second ``fig-leaderboard`` becomes ``fig-leaderboard-2``."""
    return _LABEL_RE.sub(lambda m: m.group(1) + fresh_name(m.group(2), seen), source, count=1)


def fresh_name(base: str, seen: set[str]) -> str:
    """``base``, or ``base-2``, ``base-3``... whichever is not in ``seen`` first; added to ``seen``
    (labels, chart ids and heading ids that a report repeats)."""
    new, n = base, 1
    while new in seen:
        n += 1
        new = f"{base}-{n}"
    seen.add(new)
    return new


def joined_notebook(notebooks: Sequence[tuple[str, Any]], meta: Mapping[str, str], config: Mapping[str, Any]):
    """One notebook of the executed notebooks' cells, behind the front matter. Table cells are prepared
    for the table filter (:func:`table_cell`) only when ``config`` runs it (``evalreport-quarto: true``):
    under a ``_quarto.yml`` without it, Quarto would print the Typst source as text."""
    import nbformat

    merged = nbformat.v4.new_notebook()
    merged.metadata = copy.deepcopy(notebooks[0][1].metadata) if notebooks else {}
    merged.metadata.pop("papermill", None)
    merged.cells.append(nbformat.v4.new_raw_cell(front_matter(meta, config)))
    labels: set[str] = set()
    for _, nb in notebooks:
        for cell in nb.cells:
            cell = copy.deepcopy(cell)
            cell["id"] = f"evalreport-{len(merged.cells):04d}"  # unique across notebooks
            if cell.cell_type == "code":
                cell.metadata.pop("papermill", None)
                cell.source = unique_label(cell.source, labels)
                # Belt and braces next to `execute: echo: false` in the front matter.
                if not cell.source.lstrip().startswith("#| echo:"):
                    cell.source = "#| echo: false\n" + cell.source
                _add_caption(cell)
                if config.get("evalreport-quarto"):   # the configuration runs the filter that reads it
                    table_cell(cell)
            merged.cells.append(cell)
    return merged


def quarto_project(notebooks: Sequence[tuple[str, Any]], project: Path, meta: Mapping[str, str], *,
                   config_path: Path | None = None, templates_root: Path | None = None) -> Path:
    """Write a Quarto project rendering the joined notebooks; return the notebook path.

    ``project`` receives ``_quarto.yml``, every file it names (the Vega bundle written into
    the header include) and ``report.ipynb``. ``templates_root``: where the named files are
    looked up (default: beside ``_quarto.yml``, else evalreport's data folder).
    """
    import nbformat

    from evalreport.report.render import vega_bundle

    project = Path(project)
    project.mkdir(parents=True, exist_ok=True)
    cfg_path, config = _load_config(config_path)
    if templates_root is not None:
        root = Path(templates_root)
    else:
        root = cfg_path.parent if (cfg_path.parent / "templates").is_dir() else data_root()
    for rel in _quarto_files(config):
        src, dst = root / rel, project / rel
        if not src.is_file():
            raise RenderError(f"{cfg_path} names {rel}, which does not exist under {root}")
        dst.parent.mkdir(parents=True, exist_ok=True)
        text = src.read_text(encoding="utf-8")
        if BUNDLE_MARKER in text:
            text = text.replace(BUNDLE_MARKER, "<script>\n" + vega_bundle() + "</script>")
        if src.resolve() != dst.resolve() or BUNDLE_MARKER in src.read_text(encoding="utf-8"):
            dst.write_text(text, encoding="utf-8")
    if cfg_path.resolve() != (project / "_quarto.yml").resolve():
        shutil.copyfile(cfg_path, project / "_quarto.yml")
    nb_path = project / NOTEBOOK
    nbformat.write(joined_notebook(notebooks, meta, config), str(nb_path))
    return nb_path


def quarto_commands(quarto: str, notebook_name: str, formats: Iterable[str]) -> list[list[str]]:
    """The ``quarto render`` calls (one per format; nothing is executed)."""
    to = {"html": "html", "pdf": "typst"}
    return [[quarto, "render", notebook_name, "--to", to[f], "--no-execute"] for f in formats]


# --------------------------------------------------------------------------------------------
# Running Quarto and cleaning its HTML
# --------------------------------------------------------------------------------------------
def run_quarto(cmd: Sequence[str], cwd: Path) -> None:
    """Run one ``quarto render``: a failure raises, warnings are logged one line each."""
    shown = " ".join(["quarto", *cmd[1:]])
    try:
        proc = subprocess.run(list(cmd), cwd=str(cwd), capture_output=True, text=True, encoding="utf-8",
                              errors="replace")
    except OSError as exc:
        raise RenderError(f"`{shown}` could not be started: {exc}") from exc
    lines = [ln.rstrip() for ln in (proc.stderr or "").splitlines() if ln.strip()]
    if proc.returncode != 0:
        tail = "\n".join("  " + ln for ln in lines[-_TAIL_LINES:]) or "  (nothing on stderr)"
        raise RenderError(f"`{shown}` failed with exit status {proc.returncode}; the end of its stderr:\n{tail}")
    for line in lines:
        if _WARNING_RE.search(line):
            log.warning("quarto warned (%s): %s", cmd[cmd.index("--to") + 1] if "--to" in cmd else "render",
                        line.strip())
        else:
            log.debug("quarto: %s", line)


#: The post-render script of ``_quarto.yml`` that removes the CDN require.js/jQuery tags from Quarto's
#: HTML (see its header); evalreport runs the same file after its own Quarto renders.
OFFLINE_SCRIPT = "templates/quarto/offline.lua"


def clean_files(paths: Sequence[Path], *, script: Path | None = None) -> None:
    """Run :data:`OFFLINE_SCRIPT` over the HTML files ``paths`` in place, exactly as Quarto runs a Lua
    post-render script: ``pandoc --from markdown --to plain --lua-filter SCRIPT`` on an empty document in
    the files' folder, with ``QUARTO_PROJECT_OUTPUT_FILES`` listing them (pandoc from pypandoc-binary)."""
    from evalreport.report.render import pandoc_path

    paths = [Path(p).resolve() for p in paths]
    if not paths:
        return
    script = Path(script) if script is not None else templates_dir() / "quarto" / "offline.lua"
    folder = paths[0].parent
    env = dict(os.environ, QUARTO_PROJECT_OUTPUT_FILES="\n".join(os.path.relpath(p, folder) for p in paths))
    env.pop("QUARTO_USE_FILE_FOR_PROJECT_OUTPUT_FILES", None)
    proc = subprocess.run([pandoc_path(), "--from", "markdown", "--to", "plain", "--lua-filter", str(script)],
                          input="", capture_output=True, text=True, cwd=folder, env=env, check=False)
    said = (proc.stderr or "").strip()
    if proc.returncode != 0 or said:
        raise RenderError(f"{OFFLINE_SCRIPT} failed on {', '.join(p.name for p in paths)}: "
                          f"{said or f'exit status {proc.returncode}'}")


def clean_html(html: str) -> str:
    """Quarto's HTML without the CDN require.js/jQuery tags and the ``define('jquery')`` stub (the stub
    goes only together with a removed require.js): :func:`clean_files` on a copy."""
    with tempfile.TemporaryDirectory(prefix="evalreport-clean-") as tmp:
        page = Path(tmp) / "page.html"
        page.write_text(html, encoding="utf-8")
        clean_files([page])
        return page.read_text(encoding="utf-8")


def render_quarto(notebooks: Sequence[tuple[str, Any]], work: Path, meta: Mapping[str, str],
                  formats: Sequence[str], *, templates_root: Path | None = None) -> dict[str, Path]:
    """Render with Quarto; return ``{fmt: path}`` of the outputs, moved into ``work``."""
    quarto = shutil.which("quarto")
    if quarto is None:
        raise RenderError("engine 'quarto' needs the quarto executable on PATH (pip install quarto-cli)")
    work = Path(work)
    base = render_folder(near=work)
    if base is None:
        log.info("no temporary folder without a hidden path component; Quarto will skip _quarto.yml and "
                 "use the notebook's front matter")
        project = Path(tempfile.mkdtemp(prefix="quarto-", dir=work))
    else:
        project = Path(tempfile.mkdtemp(prefix="evalreport-quarto-", dir=base))
    try:
        config_path = None
        if templates_root is not None and (Path(templates_root) / "_quarto.yml").is_file():
            config_path = Path(templates_root) / "_quarto.yml"
        nb_path = quarto_project(notebooks, project, meta, config_path=config_path, templates_root=templates_root)
        built = {}
        for fmt, cmd in zip(formats, quarto_commands(quarto, nb_path.name, formats)):
            started = time.perf_counter()
            run_quarto(cmd, project)
            out = project / f"{nb_path.stem}.{fmt}"
            if not out.is_file():
                raise RenderError(f"`quarto render --to {cmd[4]}` reported success but wrote no {out.name}")
            final = work / out.name
            if fmt == "html":      # Quarto ran the script already where it read _quarto.yml; again is a no-op
                staged = project / OFFLINE_SCRIPT
                clean_files([out], script=staged if staged.is_file() else None)
            shutil.copyfile(out, final)
            log.info("quarto %s in %.2f s", fmt, time.perf_counter() - started)
            built[fmt] = final
        return built
    finally:
        shutil.rmtree(project, ignore_errors=True)

"""Display objects for report notebooks.

Each object carries several representations of the same content in ONE display-data output,
and every renderer picks the one it can use:

=========  =========================================  ======================================
object     HTML page (builtin engine, Quarto HTML)      PDF (Typst via pandoc, Quarto typst)
=========  =========================================  ======================================
Chart      ``text/html``: a ``div.vega-chart``, its     ``image/svg+xml`` made by vl-convert
           spec as JSON and a tiny ``vegaEmbed`` call   (Typst sets its text in Liberation
                                                       Sans); ``image/png`` (ppi 144, text
                                                       baked in) where that font is missing
Table      ``text/html`` (styled ``table.er-table``)    Typst source (``MIME_TYPST``, laid out
                                                       in :mod:`.typst_table`); ``text/markdown``
                                                       (pipe table) for other consumers
Note       ``text/html``                                ``text/markdown``
Heading    ``text/markdown`` (a real heading, so the    ``text/markdown``
           table of contents sees it)
=========  =========================================  ======================================

Charts deliberately do NOT carry ``application/vnd.vegalite.v*+json``: a front end that knows
that mime type prefers it over ``text/html`` and then loads Vega from a CDN (nothing is drawn
offline), and Altair 6 writes Vega-Lite v6 specs which no mime type version describes.
The Vega/Vega-Lite/Vega-Embed JavaScript is NOT in the chart output either: the renderer
writes it once per page (see :mod:`evalreport.report.render`). Without it (e.g. a notebook
opened in JupyterLab) the chart shows a short text placeholder.

These objects only present data; they compute nothing.
"""
from __future__ import annotations

import base64
import html
import json
import math
import os
import re
from collections.abc import Callable, Mapping
from typing import Any, cast

from evalreport import escape
from evalreport.report.typst_table import MIME_TYPST, PROSE_EM, choose_layout, table_source, text_width, upright_texts

__all__ = ["Chart", "Table", "Note", "Heading", "UNDEFINED_MARK", "CHART_PPI", "VALIDATE_ENV", "chart_png_output",
           "chart_svg_output", "chart_image_output", "chart_image_mime", "CHART_IMAGES_ENV", "integer_text",
           "GROUP_DIGITS_FROM"]

#: Resolution of the static chart images (PNG). 144 = twice CSS pixel density.
CHART_PPI = 144
#: Set to "1" in a kernel whose executor draws the charts' PNG images itself
#: (:class:`evalreport.report.kernel.NotebookRunner`): a chart then carries its spec under
#: :data:`MIME_DEFERRED_PNG` instead of ``image/png``, and the executor puts the PNG in its place.
DEFER_ENV = "EVALREPORT_DEFER_CHART_IMAGES"
#: "svg" or "png": the kind of static chart image, whatever :func:`chart_image_mime` would choose.
CHART_IMAGES_ENV = "EVALREPORT_CHART_IMAGES"
MIME_DEFERRED_PNG = "application/vnd.evalreport.deferred-png+json"
#: Set to "0" in a kernel that runs the report's own notebooks
#: (:class:`evalreport.report.kernel.NotebookRunner`): a :class:`Chart` then does not validate its
#: spec against the Vega-Lite JSON schema (about 40 ms a chart, 1 s of the demo report). The
#: builders are evalreport's own and the tests validate every chart of every report
#: (tests/test_report.py, test_multilabel_report.py, test_benchmark_report.py); the spec is the
#: same dict either way. Anywhere else (a notebook opened in Jupyter, a user's own chart) a chart
#: validates, so a bad chart fails in the cell that made it.
VALIDATE_ENV = "EVALREPORT_VALIDATE_CHARTS"
#: Text shown in a table cell flagged undefined (the reason is given as a tooltip in HTML and
#: as a lettered note under the table in both HTML and PDF).
UNDEFINED_MARK = "\u2014"  # em dash

_NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
_MIME_MD = "text/markdown"
_MIME_HTML = "text/html"
_MIME_PLAIN = "text/plain"
_MIME_PNG = "image/png"
_MIME_SVG = "image/svg+xml"


def _check_name(name: str) -> str:
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise ValueError(
            f"chart name must start with a letter and contain only letters, digits, '-' "
            f"and '_' (it becomes an HTML id): {name!r}"
        )
    return name


def _script_json(obj: Any) -> str:
    """JSON safe inside ``<script type="application/json">``: ``<`` as ``\\u003c``, so no ``</script>`` or ``<!--``."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")


def _markdown_to_html(text: str) -> str:
    import mistune  # a dependency of nbconvert, always present with the report extra

    # escape=True: text from the inputs (a class named <abstain>, a system named <b>) shows as written
    markdown = mistune.create_markdown(escape=True, plugins=["strikethrough", "footnotes", "table"])
    return cast(str, markdown(text))              # the HTML renderer returns text, not the token list


# The per-chart script: finds its own figure through document.currentScript (so duplicate
# ids cannot confuse it), then draws once the page (and the Vega bundle) is loaded.
_EMBED_JS = (
    "(function(me){var fig=me.parentNode,el=fig.querySelector('.vega-chart'),"
    "spec=JSON.parse(fig.querySelector('script.vega-spec').textContent);"
    "function draw(){if(!window.vegaEmbed){return;}el.textContent='';"
    "window.vegaEmbed(el,spec,{actions:false,renderer:'svg'})"
    ".catch(function(e){el.textContent='Chart could not be drawn: '+e;});}"
    "if(document.readyState==='loading'){document.addEventListener('DOMContentLoaded',draw);}"
    "else{draw();}})(document.currentScript);"
)


#: What a character that :func:`evalreport.escape.printable` replaces looks like in
#: ``json.dumps(..., ensure_ascii=False)``: C0 controls are written as ``\u00XX``, ``\b`` or ``\f``
#: (tab, newline and carriage return as ``\t``, ``\n``, ``\r``), DEL, C1 and the bidi controls
#: as they are. A match may be a false alarm (a backslash before a "b"); a miss is impossible.
_JSON_CONTROL = re.compile(r"[\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\\u00[01]|\\b|\\f")


def printable_spec(node: Any) -> Any:
    """``node`` (a Vega-Lite spec) with the control characters of every string (keys too, so field
    names still match) shown as U+FFFD (:func:`evalreport.escape.printable`). A spec without
    any (the usual case, found by one scan of its JSON text) is returned as it is."""
    try:
        clean = _JSON_CONTROL.search(json.dumps(node, ensure_ascii=False)) is None
    except (TypeError, ValueError):   # not JSON (not a to_dict result): walk it
        clean = False
    return node if clean else _printable_walk(node)


def _printable_walk(node: Any) -> Any:
    if isinstance(node, str):
        return escape.printable(node)
    if isinstance(node, dict):
        return {escape.printable(k) if isinstance(k, str) else k: _printable_walk(v)
                for k, v in node.items()}
    if isinstance(node, list):
        return [_printable_walk(v) for v in node]
    return node


_HOVER_CLAUSE = re.compile(r"\s*[(;,][^();,.]*\bhover\b[^();.]*[)]?(?=[.;)]|$)", re.IGNORECASE)
_HOVER_SENTENCE = re.compile(r"(?:^|(?<=[.!?]))\s*[^.!?]*\bhover\b[^.!?]*[.!?]", re.IGNORECASE)


def print_text(text: str | None) -> str | None:
    """``text`` for a static image: a bracketed or comma clause that asks the reader to hover
    ("(hover a cell for the value)") is dropped, then any sentence that still says "hover"."""
    if not text or "hover" not in text.lower():
        return text
    out = _HOVER_CLAUSE.sub("", text)
    out = _HOVER_SENTENCE.sub("", out).strip()
    return out


class Chart:
    """An Altair chart shown live in HTML and as a static image (SVG, or PNG) in PDF (:func:`chart_image_output`).

    ``name`` identifies the chart (HTML id ``chart-<name>``; keep it unique in a report).
    ``caption`` (plain text) is shown under the chart in HTML; ``print_caption`` under its static
    image (PDF), by default the caption without what only a live chart offers (a clause or
    sentence that says "hover", :func:`print_text`). ``validate``: check the spec against the
    Vega-Lite schema (default: yes, unless :data:`VALIDATE_ENV` is "0"). ``print_chart``: another
    chart for the static image only (e.g. the first 40 of 100 systems, which a page holds legibly,
    while the live chart scrolls through all of them); default: the chart itself.
    """

    def __init__(self, chart: Any, *, name: str, caption: str | None = None, validate: bool | None = None,
                 print_caption: str | None = None, print_chart: Any = None):
        self.name = _check_name(name)
        self.caption = caption
        self.print_caption = print_caption if print_caption is not None else print_text(caption)
        if validate is None:
            validate = os.environ.get(VALIDATE_ENV) != "0"
        # Validated, a bad chart fails in the notebook cell that made it, not in the browser.
        # Control characters from the data (a label "a\x07b") show as U+FFFD: vl-convert's text
        # measurement panics on them and takes the whole kernel (the report) down.
        self.spec: dict = printable_spec(chart.to_dict(validate=validate))
        self.print_spec: dict = (self.spec if print_chart is None
                                 else printable_spec(print_chart.to_dict(validate=validate)))

    def _html(self) -> str:
        cap = f"\n<figcaption>{escape.html(self.caption)}</figcaption>" if self.caption else ""
        label = escape.html(self.caption or self.name)
        return (
            f'<figure class="er-chart">\n'
            f'<div class="vega-chart" id="chart-{self.name}" role="img" aria-label="{label}">'
            f'<p class="er-chart-placeholder">[chart {self.name}: drawn when the report '
            f"page is rendered]</p></div>\n"
            f'<script type="application/json" class="vega-spec">{_script_json(self.spec)}</script>\n'
            f"<script>{_EMBED_JS}</script>{cap}\n"
            f"</figure>"
        )

    def _repr_mimebundle_(self, include=None, exclude=None):
        data = {_MIME_HTML: self._html(), _MIME_PLAIN: f"<Chart {self.name}>"}
        # pandoc's ipynb reader turns these keys into image attributes, which our Typst
        # filter reads (the caption makes a figure).
        png_meta: dict = {"alt": self.print_caption or self.name}
        if self.print_caption:
            png_meta["caption"] = self.print_caption
        if os.environ.get(DEFER_ENV) == "1":     # the executor draws the image (in parallel)
            data[MIME_DEFERRED_PNG] = {"spec": self.print_spec}
            return data, {MIME_DEFERRED_PNG: png_meta}
        mime, image, w, h = chart_image_output(self.print_spec)
        data[mime] = image
        # width/height in CSS pixels; pandoc turns them into a physical size (96 px/in).
        return data, {mime: {"width": w, "height": h, **png_meta}}

    def __repr__(self) -> str:
        return f"Chart(name={self.name!r})"


def _chart_png(spec: dict) -> tuple[bytes, int, int]:
    """The static image of a Vega-Lite ``spec`` (vl-convert, :data:`CHART_PPI`) and its size in CSS pixels."""
    import vl_convert as vlc

    png = vlc.vegalite_to_png(spec, ppi=CHART_PPI)
    # PNG header: width and height are big-endian at bytes 16..24.
    w = int.from_bytes(png[16:20], "big")
    h = int.from_bytes(png[20:24], "big")
    scale = CHART_PPI / 72
    return png, round(w / scale), round(h / scale)


def chart_png_output(spec: dict) -> tuple[str, int, int]:
    """What a chart's display data holds for its static image: the PNG of ``spec`` as base64 text
    (as in a notebook), and its width and height in CSS pixels."""
    png, w, h = _chart_png(spec)
    return base64.b64encode(png).decode("ascii"), w, h


_SVG_SIZE = re.compile(rb'<svg[^>]*?\swidth="([0-9.]+)"[^>]*?\sheight="([0-9.]+)"')


def chart_svg_output(spec: dict) -> tuple[str, int, int]:
    """The static image of a Vega-Lite ``spec`` as SVG text (vl-convert; its text stays ``<text>``
    in the spec's fonts) and its size in CSS pixels.

    Text in the generic ``sans-serif`` (a chart without the theme's fonts) is given the charts' font:
    typst maps the generic name to a serif face, and vl-convert measured it with Liberation Sans."""
    import vl_convert as vlc

    from evalreport.charts.theme import FONT

    svg = vlc.vegalite_to_svg(spec).replace('font-family="sans-serif"', f'font-family="{FONT}"')
    size = _SVG_SIZE.search(svg[:2000].encode("utf-8"))
    if size is None:
        raise ValueError("vl-convert wrote an SVG image without a width and height")
    return svg, round(float(size.group(1))), round(float(size.group(2)))


def chart_image_mime() -> str:
    """The kind of static chart image a report uses: ``image/svg+xml`` (vector, and a third less
    drawing than PNG) where the machine has Liberation Sans for typst to set the charts' text in
    (:func:`evalreport.report.fonts.liberation_sans_files`), else ``image/png``;
    :data:`CHART_IMAGES_ENV` ("svg" or "png") overrides the choice."""
    from evalreport.report.fonts import liberation_sans_files

    asked = os.environ.get(CHART_IMAGES_ENV, "").strip().lower()
    if asked in ("svg", "png"):
        return _MIME_SVG if asked == "svg" else _MIME_PNG
    return _MIME_SVG if liberation_sans_files() else _MIME_PNG


def chart_image_output(spec: dict) -> tuple[str, str, int, int]:
    """What a chart's display data holds for its static image: the mime type
    (:func:`chart_image_mime`), the image (SVG text, or PNG as base64 text) and its width and height
    in CSS pixels.

    Parameters
    ----------
    spec : dict
        A Vega-Lite specification.

    Returns
    -------
    tuple of (str, str, int, int)
        Mime type, image data, width and height.
    """
    if chart_image_mime() == _MIME_SVG:
        return (_MIME_SVG, *chart_svg_output(spec))
    return (_MIME_PNG, *chart_png_output(spec))


def _column_label(col: Any) -> str:
    if isinstance(col, tuple):
        return " / ".join(str(c) for c in col if str(c) != "")
    return str(col)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) or (
        hasattr(v, "dtype") and getattr(v.dtype, "kind", "") in "iuf"
    )


def _whole_column(series: Any) -> bool:
    """Whether a float column prints without decimals: whole numbers beyond 1, or ranks with ties."""
    if getattr(series.dtype, "kind", "") != "f":
        return False
    values = series.dropna()
    values = values[values.abs() != float("inf")]
    if not len(values) or not bool((values.abs() >= 2).any()):
        return False
    return bool((values % 1 == 0).all()) or bool(((values * 2) % 1 == 0).all() and (values >= 1).all())


#: Integers from this size on are printed with thousands separators ("12,000") in display tables (the
#: CSV and JSON tables keep plain numbers); smaller ones, and codes, are printed as they are.
GROUP_DIGITS_FROM = 10_000
#: Columns of integers that are codes rather than amounts (the last word of the column label): no separators.
_CODE_COLUMNS = frozenset({"seed", "seeds", "id", "year", "fold"})


def integer_text(value: int, col: Any = None) -> str:
    """An integer as a display table shows it: with thousands separators from
    :data:`GROUP_DIGITS_FROM` on ("12,000", "-25,000"; "9999" stays), unless the column ``col`` holds
    codes (a seed, an id, a year, a fold).

    Parameters
    ----------
    value : int
        The number.
    col : object, optional
        The column label (a tuple for a MultiIndex column).

    Returns
    -------
    str
        The text of the cell.
    """
    words = _column_label(col).lower().replace("_", " ").split() if col is not None else []
    if abs(value) < GROUP_DIGITS_FROM or (words and words[-1] in _CODE_COLUMNS):
        return str(value)
    return f"{value:,}"


def _note_letter(i: int) -> str:
    letters = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        letters = chr(ord("a") + r) + letters
    return letters


#: A run of this many characters without a space: a name that may have to break for the table to fit.
_LONG_WORD = re.compile(r"\S{21,}")
#: A short text without words (an interval "[0.939, 0.982]", a rank range "1–7", a verdict "✗¹ (✓)"): kept on
#: one line.
_NUMBERS_TEXT = re.compile(r"[^A-Za-z]{1,24}")
#: Least width (em) of a column of long names: a name breaks over a few lines, not one letter a line.
NAME_EM = 12.0


class Table:
    """A data frame as a styled HTML table and a Markdown pipe table.

    ``undefined`` is an optional boolean frame (same index/columns as ``df``, missing cells
    count as False) marking cells whose value is undefined (e.g. 0/0); those cells show
    :data:`UNDEFINED_MARK` with a superscript letter, and ``reasons`` (a frame of strings,
    same shape) gives the text of each letter, listed under the table and as tooltips in HTML.
    ``digits`` sets decimals for floats; ``formats`` maps a column to a format string
    (``"{:.1%}"``) or a callable. A float column whose values are all whole numbers, some of
    them beyond 1 (ranks, counts that became floats through a missing value), prints without
    decimals, and so does a column of ranks with ties (halves, all at least 1: only a tie shows
    a decimal); a column of 0.0/1.0 keeps them (a score). The index is shown when it is named or
    not a plain range.
    """

    def __init__(
        self,
        df: Any,
        *,
        caption: str | None = None,
        undefined: Any = None,
        reasons: Any = None,
        digits: int = 3,
        formats: Mapping[Any, str | Callable[[Any], str]] | None = None,
        index: bool | None = None,
    ):
        import pandas as pd

        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"Table needs a pandas DataFrame, got {type(df).__name__}")
        self.df = df
        self.caption = caption
        self.digits = digits
        self.formats = dict(formats or {})
        if index is None:
            index = not (isinstance(df.index, pd.RangeIndex) and df.index.name is None)
        self.index = index
        self._whole = {c for c in df.columns if _whole_column(df[c])}
        self.undefined = self._align(undefined, bool_frame=True)
        self.reasons = self._align(reasons, bool_frame=False)
        self._cells_cache = None

    def _align(self, frame: Any, *, bool_frame: bool):
        if frame is None:
            return None
        import pandas as pd

        if not isinstance(frame, pd.DataFrame):
            raise TypeError("undefined/reasons must be DataFrames shaped like the table")
        extra_rows = frame.index.difference(self.df.index)
        extra_cols = frame.columns.difference(self.df.columns)
        if len(extra_rows) or len(extra_cols):
            raise ValueError(
                f"undefined/reasons frame has labels not in the table: rows {list(extra_rows)[:5]}, "
                f"columns {list(extra_cols)[:5]}"
            )
        out = frame.reindex(index=self.df.index, columns=self.df.columns)
        if bool_frame:
            out = out.astype(object).where(out.notna(), False).astype(bool)
        return out

    # -- cell model shared by both representations ------------------------------------------
    def _format(self, col: Any, value: Any) -> str:
        fmt = self.formats.get(col)
        if fmt is not None:
            return fmt(value) if callable(fmt) else fmt.format(value)
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return ""
        try:
            import pandas as pd

            if value is pd.NA or value is pd.NaT:
                return ""
        except ImportError:  # pragma: no cover
            pass
        if isinstance(value, bool):
            return str(value)
        if isinstance(value, float) or (hasattr(value, "dtype") and value.dtype.kind == "f"):
            if col in self._whole and math.isfinite(value):
                return integer_text(int(value), col) if float(value) % 1 == 0 else f"{float(value):g}"
            text = f"{float(value):.{self.digits}f}"
            return text[1:] if text.startswith("-") and not text.strip("-0.") else text  # no "-0.000"
        if isinstance(value, int) or (hasattr(value, "dtype") and value.dtype.kind in "iu"):
            return integer_text(int(value), col)
        return str(value)

    def _cells(self):
        """Rows of (text, numeric, note_letter_or_None, reason) plus the lettered notes, worked out once."""
        if self._cells_cache is None:
            self._cells_cache = self._make_cells()
        return self._cells_cache

    def _make_cells(self):
        notes: dict[str, str] = {}
        rows = []
        cols = list(self.df.columns)
        # column by column, so each value keeps its column's type (a row of an all-number frame
        # would turn its integers into floats: "12000.000")
        values = [self.df.iloc[:, c].tolist() for c in range(len(cols))]
        for r, idx in enumerate(self.df.index):
            cells = []
            for c, col in enumerate(cols):
                value = values[c][r]
                flagged = self.undefined is not None and bool(self.undefined.iat[r, c])
                if flagged:
                    reason = ""
                    if self.reasons is not None:
                        raw = self.reasons.iat[r, c]
                        reason = "" if raw is None or (isinstance(raw, float) and math.isnan(raw)) else str(raw)
                    reason = reason or "undefined"
                    letter = notes.setdefault(reason, _note_letter(len(notes)))
                    cells.append((UNDEFINED_MARK, True, letter, reason))
                else:
                    cells.append((self._format(col, value), _is_number(value), None, None))
            rows.append((idx, cells))
        legend = {letter: reason for reason, letter in notes.items()}
        return rows, legend

    def _numeric_columns(self) -> list[bool]:
        return [self.df[c].dtype.kind in "iuf" if hasattr(self.df[c], "dtype") else False
                for c in self.df.columns]

    def _index_label(self) -> str:
        names = [n for n in (self.df.index.names or []) if n is not None]
        return " / ".join(str(n) for n in names)

    @staticmethod
    def _index_text(idx: Any) -> str:
        return " / ".join(str(i) for i in idx) if isinstance(idx, tuple) else str(idx)

    # -- representations --------------------------------------------------------------------
    def _html_columns(self, rows) -> tuple[list[bool], list[str]]:
        """Per column (index first): the upright header and a ``min-width`` that keeps short texts unwrapped."""
        header = [_column_label(c) for c in self.df.columns]
        texts = [[c[0] for c in cells] for _, cells in rows]
        if self.index:
            header.insert(0, self._index_label())
            texts = [[self._index_text(idx)] + t for (idx, _), t in zip(rows, texts)]
        layout = choose_layout(header, texts, attempts=((13.5, False, False, True), (13.5, True, False, True)),
                               portrait_pt=840.0)   # sans-serif: ~15% wider than the metrics
        upright = layout.rotated or [False] * len(header)
        numeric = [False] * self.index + self._numeric_columns()
        ems = []
        for j, num in enumerate(numeric):
            short = [w for w in (text_width(t[j]) for t in texts) if w <= PROSE_EM]
            em = min(1.1 * max(short, default=0.0), 16.0)
            if not short and any(_LONG_WORD.search(t[j]) for t in texts):     # only long names
                em = NAME_EM
            ems.append(em if not num and em >= 4 else 0.0)
        # the minimums of all text columns together leave room for the rest (no forced scrolling)
        scale = min(1.0, 40.0 / sum(ems)) if sum(ems) else 1.0
        styles = [f' style="min-width:{em * scale:.1f}em"' if em else "" for em in ems]
        return upright, styles

    def _html(self) -> str:
        rows, legend = self._cells()
        numeric = self._numeric_columns()
        esc = escape.html
        # The caption is outside the scrolling box: a wide table scrolls, its caption does not.
        out = ['<figure class="er-table-figure">']
        if self.caption:
            out.append(f"<figcaption>{esc(self.caption)}</figcaption>")
        upright, widths = self._html_columns(rows)
        dense = " er-dense" if any(upright) else ""    # many narrow columns: tighter cells
        out += ['<div class="er-table-wrap">', f'<table class="er-table{dense}">']
        head = []
        if self.index:
            head.append(f'<th scope="col" class="er-index"{widths[0]}>{esc(self._index_label())}</th>')
            upright, widths = upright[1:], widths[1:]
        labels = [_column_label(col) for col in self.df.columns]
        for label, short, num, up, width in zip(labels, upright_texts(labels, upright), numeric, upright, widths):
            cls = " ".join(["num"] * num + ["er-upright"] * up)
            cls = f' class="{cls}"' if cls else ""
            text = esc(label)
            full = f' title="{text}"' if short != label else ""      # a long upright header is shortened
            head.append(f'<th scope="col"{cls}{width}><span{full}>{esc(short)}</span></th>' if up
                        else f'<th scope="col"{cls}{width}>{text}</th>')
        out.append("<thead><tr>" + "".join(head) + "</tr></thead>")
        out.append("<tbody>")
        for idx, cells in rows:
            tds = []
            if self.index:
                tds.append(f'<th scope="row" class="er-index">{esc(self._index_text(idx))}</th>')
            for (text, num, letter, reason), col_num in zip(cells, numeric):
                if letter is not None:
                    tds.append(
                        f'<td class="num er-undefined" title="{esc(reason)}">'
                        f"{esc(text)}<sup>{letter}</sup></td>"
                    )
                else:
                    # a long name without spaces (a system, a file) may break anywhere (report.css)
                    cls = ' class="num"' if (num or col_num) else (' class="er-long"' if _LONG_WORD.search(text)
                                                                   else ' class="er-nowrap"'
                                                                   if _NUMBERS_TEXT.fullmatch(text) else "")
                    tds.append(f"<td{cls}>{esc(text)}</td>")
            out.append("<tr>" + "".join(tds) + "</tr>")
        out.append("</tbody></table>")
        out.append("</div>")
        if legend:
            items = "".join(
                f"<li><sup>{letter}</sup> {UNDEFINED_MARK} {esc(reason)}</li>"
                for letter, reason in legend.items()
            )
            out.append(f'<ul class="er-table-notes">{items}</ul>')
        out.append("</figure>")
        return "\n".join(out)

    def _markdown(self) -> str:
        rows, legend = self._cells()
        numeric = self._numeric_columns()
        header, align = [], []
        if self.index:
            header.append(escape.markdown(self._index_label()) or " ")
            align.append(":--")
        for col, num in zip(self.df.columns, numeric):
            header.append(escape.markdown(_column_label(col)) or " ")
            align.append("--:" if num else ":--")
        # pandoc sizes wrapped pipe-table columns by the dashes of the separator line: make them
        # proportional to each column's longest text (capped), so long texts get room in the PDF
        texts = [[self._index_text(idx)] * bool(self.index) + [c[0] for c in cells] for idx, cells in rows]
        for k, head in enumerate(header):
            longest = max([len(head)] + [len(t[k]) for t in texts if k < len(t)])
            dashes = "-" * max(3, min(longest, 48))
            align[k] = (dashes[:-1] + ":") if align[k] == "--:" else (":" + dashes[1:])
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
        for idx, cells in rows:
            parts = [escape.markdown(self._index_text(idx))] if self.index else []
            for text, num, letter, _reason in cells:
                cell = text if num else escape.markdown(text)    # a number is ours: 0.500, not 0\.500
                if letter is not None:
                    cell += f"^{letter}^"
                parts.append(cell)
            lines.append("| " + " | ".join(parts) + " |")
        md = "\n".join(lines)
        if self.caption:
            md += f"\n\n: {escape.markdown(self.caption)}"
        if legend:
            md += "\n\n::: {.er-table-notes}\n" + "\\\n".join(
                f"^{letter}^ {UNDEFINED_MARK} {escape.markdown(reason)}" for letter, reason in legend.items()
            ) + "\n:::"
        return md + "\n"

    def _typst(self) -> str:
        rows, legend = self._cells()
        numeric = self._numeric_columns()
        # string literals (typst_table); control characters and bidi overrides as U+FFFD, as in the HTML
        show = escape.printable
        header = [show(_column_label(c)) for c in self.df.columns]
        if self.index:
            header.insert(0, show(self._index_label()))
            numeric = [False] + numeric
        body = []
        for idx, cells in rows:
            row = [(show(self._index_text(idx)), None)] if self.index else []
            row += [(show(text), letter) for text, _num, letter, _reason in cells]
            body.append(row)
        # a column is right-aligned when it holds numbers (undefined marks included)
        for j in range(int(self.index), len(header)):
            k = j - int(self.index)
            numeric[j] = numeric[j] or all(c[k][1] for _, c in rows) and bool(rows)
        return table_source(header, body, numeric, caption=show(self.caption) if self.caption else None,
                            legend=[(letter, show(reason)) for letter, reason in legend.items()])

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {
            _MIME_HTML: self._html(),
            _MIME_MD: self._markdown(),
            MIME_TYPST: {"evalreport": "typst-table", "typst": self._typst()},
            _MIME_PLAIN: self.df.to_string(),
        }

    def __repr__(self) -> str:
        return f"Table(shape={self.df.shape}, caption={self.caption!r})"


class Note:
    """A paragraph (or a few) of Markdown computed in a cell, e.g. a finding with numbers.

    ``details``: more Markdown a reader opens on demand: in HTML a ``<details>`` element titled
    ``summary`` inside the note; in the PDF (no clicks there) a titled paragraph after it."""

    def __init__(self, markdown_text: str, *, kind: str = "note", details: str | None = None,
                 summary: str = "More"):
        if kind not in ("note", "warning"):
            raise ValueError(f"kind must be 'note' or 'warning', got {kind!r}")
        self.text = markdown_text
        self.kind = kind
        self.details = details or ""
        self.summary = summary

    @property
    def full(self) -> str:
        """The text and the details, as one Markdown string."""
        return self.text + (f"\n\n{self.details}" if self.details else "")

    def _repr_mimebundle_(self, include=None, exclude=None):
        body = _markdown_to_html(self.text)
        md = self.text
        if self.details:
            body += (f'<details class="er-more"><summary>{html.escape(self.summary)}</summary>\n'
                     f"{_markdown_to_html(self.details)}</details>\n")
            md += f"\n\n**{self.summary}**\n\n{self.details}"
        return {
            _MIME_HTML: f'<div class="er-note er-note-{self.kind}">\n{body}</div>',
            # A pandoc fenced div: the Typst filter draws the box; elsewhere it is harmless.
            _MIME_MD: f"::: {{.er-note .er-note-{self.kind}}}\n{md}\n:::\n",
            _MIME_PLAIN: self.full,
        }

    def __repr__(self) -> str:
        return f"Note({self.text[:40]!r})"


class Heading:
    """A heading computed in a cell (e.g. one section per system).

    Markdown only, so every renderer treats it as a real heading (table of contents, PDF
    outline). Prefer a Markdown cell when the text is fixed.
    """

    def __init__(self, text: str, *, level: int = 2):
        if level not in range(1, 7):
            raise ValueError(f"heading level must be 1..6, got {level!r}")
        self.text = " ".join(str(text).split())
        self.level = level

    def _repr_mimebundle_(self, include=None, exclude=None):
        # the text is plain text (often a name from the data): no markup, no raw Typst/HTML
        md = "#" * self.level + " " + escape.markdown(self.text)
        return {_MIME_MD: md, _MIME_PLAIN: self.text}

    def __repr__(self) -> str:
        return f"Heading({self.text!r}, level={self.level})"

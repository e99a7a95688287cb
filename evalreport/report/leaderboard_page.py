"""The interactive leaderboard: one self-contained HTML page (``evalreport leaderboard``) and the same
component inside the HTML report's leaderboard section.

The reader picks the measure (every measure of the comparison, grouped, its definition one click away),
switches between raw and prevalence-calibrated scores, sorts the columns, filters the systems by name and
opens a system's drill-down (per-class scores, confusion matrix, chance baselines; on label sets per-label
scores, :mod:`evalreport.report.leaderboard_sets`). The page carries its
data as JSON (:mod:`evalreport.report.leaderboard_data`), its script and style
(``evalreport/_data/leaderboard/``) and the Vega bundle for the chart (:func:`evalreport.report.render.vega_bundle`),
so it works from ``file://`` and from any static host; a Content-Security-Policy of ``default-src 'none'``
makes the browser refuse any request the page might make.

Every text from the data reaches the page as JSON inside a ``<script type="application/json">`` (``<`` written
as ``\\u003c``) and is set as ``textContent`` by the script, or is escaped here (:func:`evalreport.escape.html`).
"""
from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from evalreport import escape
from evalreport.charts._common import shown_names
from evalreport.charts.names import label_expr
from evalreport.errors import InputError
from evalreport.report.display import Table, integer_text
from evalreport.report.leaderboard_data import page_csv

__all__ = ["assets_html", "chart_spec", "component_html", "document", "page_html", "write_page", "write_html", "CSP", "InteractiveTable", "report_component"]

_ASSETS = Path(__file__).resolve().parent.parent / "_data" / "leaderboard"

#: The page's Content-Security-Policy: inline script and style only (Vega compiles its expressions, hence
#: 'unsafe-eval'), images from data: URLs, no request of any kind.
CSP = ("default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; "
       "img-src data:; font-src data:; connect-src 'none'; form-action 'none'; base-uri 'none'")

#: Okabe-Ito colours (Okabe & Ito 2008): told apart under the common colour-vision deficiencies.
TIER_COLOURS = {"first or tied with first": "#E69F00", "separated from the first": "#0072B2", "not tested": "#999999"}
#: The marks' shapes, in the order of :data:`TIER_COLOURS`: shape repeats what colour says.
TIER_SHAPES = ["diamond", "circle", "square"]


@cache
def _asset(name: str) -> str:
    """The text of one of the page's assets (script or style)."""
    return (_ASSETS / name).read_text(encoding="utf-8")


def _script_json(obj: Any) -> str:
    """JSON safe inside ``<script type="application/json">``: ``<`` as ``\\u003c`` (no ``</script>``, no ``<!--``)."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False).replace("<", "\\u003c")


#: Room (px) for a system's name on the chart's axis; a longer name is shortened in the middle.
NAME_LIMIT = 260
#: The page draws in the reader's system-ui font, which may run up to ~15% wider than the Arial metrics
#: the shortening measures with: names are shortened to this share of the room, so none is cut again.
_FONT_SLACK = 0.85
#: Above this many systems (16 px a row: taller than a screen) the chart's value axis is drawn on top too.
TOP_AXIS_SYSTEMS = 40


def chart_spec(systems: Sequence[str] = ()) -> dict:
    """The Vega-Lite template of the page's chart: each system's value with its interval, best first.

    The script fills in ``data.values`` and the axis title for the chosen measure; the parameter ``q``
    (the name filter) hides the systems whose names do not contain it.

    Parameters
    ----------
    systems : sequence of str
        The systems' names: one too long for the axis (:data:`NAME_LIMIT` px) is drawn with its beginning
        and end around an ellipsis, no two alike (:func:`evalreport.charts._common.shown_names`, as the
        report's charts do); the data and the tooltip keep it whole.

    Returns
    -------
    dict
        A Vega-Lite v5/v6 specification without data.
    """
    x: dict[str, Any] = {"type": "quantitative", "scale": {"zero": False}, "title": ""}
    axis: dict[str, Any] = {"labelLimit": NAME_LIMIT}
    expr = label_expr(shown_names([str(s) for s in systems], NAME_LIMIT * _FONT_SLACK)) if len(systems) else None
    if expr is not None:
        axis["labelExpr"] = expr
    y = {"field": "system", "type": "nominal", "sort": {"field": "pos", "op": "min"}, "title": None,
         "axis": axis}
    colour = {"field": "tier", "type": "nominal", "title": "significance",
              "scale": {"domain": list(TIER_COLOURS), "range": list(TIER_COLOURS.values())},
              "legend": {"orient": "bottom"}}
    # a chart taller than a screen repeats its value axis on top, where the reader starts: two invisible
    # layers carry the bottom and the top axis (independent axes, one scale), the marks none
    top: list[dict] = []
    if len(systems) > TOP_AXIS_SYSTEMS:
        top = [{"mark": {"type": "tick", "opacity": 0},
                "encoding": {"x": {**x, "field": "value", "axis": {"orient": orient, "grid": orient == "bottom"}}}}
               for orient in ("bottom", "top")]
        x = {**x, "axis": None}
    return {
        "$schema": "https://vega.github.io/schema/vega-lite/v6.json",
        "width": 560, "height": {"step": 16},
        "params": [{"name": "q", "value": ""}],
        "transform": [{"filter": "q === '' || indexof(lower(datum.system), q) >= 0"}],
        "encoding": {"y": y},
        **({"resolve": {"axis": {"x": "independent"}}} if top else {}),
        "layer": [
            {"mark": {"type": "rule", "strokeWidth": 2}, "transform": [{"filter": "isValid(datum.lo)"}],
             "encoding": {"x": {**x, "field": "lo"}, "x2": {"field": "hi"}, "color": colour}},
            {"mark": {"type": "point", "filled": True, "size": 55},
             "encoding": {"x": {**x, "field": "value"}, "color": colour,
                          "shape": {"field": "tier", "type": "nominal", "title": "significance", "scale": {
                              "domain": list(TIER_COLOURS), "range": TIER_SHAPES},
                              "legend": {"orient": "bottom"}},
                          "tooltip": [{"field": "system", "type": "nominal"},
                                      {"field": "value", "type": "quantitative", "format": ".3f"},
                                      {"field": "lo", "type": "quantitative", "format": ".3f"},
                                      {"field": "hi", "type": "quantitative", "format": ".3f"}]}},
            *top,
        ],
        "config": {"font": "system-ui, sans-serif", "axis": {"labelFontSize": 11}},
    }


def _controls(rid: str) -> str:
    """The measure selector, the definition button, the calibrated toggle and the name filter."""
    return (
        f'<div class="lb-controls">'
        f'<div><label for="{rid}-measure">Measure</label><select id="{rid}-measure" data-lb="measure"></select></div>'
        f'<div><button type="button" class="lb-btn" data-lb="define" aria-expanded="false" '
        f'aria-controls="{rid}-definition">Definition</button></div>'
        f'<div><label class="lb-check"><input type="checkbox" id="{rid}-cal" data-lb="calibrated"> '
        f'Prevalence-calibrated</label></div>'
        f'<div><label for="{rid}-filter">Filter systems by name</label>'
        f'<input type="search" id="{rid}-filter" data-lb="filter" autocomplete="off"></div>'
        f'</div>'
        f'<div class="lb-def" id="{rid}-definition" data-lb="definition" role="region" '
        f'aria-label="Definition of the measure" hidden></div>'
        f'<p class="lb-status" data-lb="status" aria-live="polite"></p>'
        f'<p class="lb-scope" data-lb="scope"></p>')


_COLUMNS = (("rank", "Rank"), ("system", "System"), ("value", "Value"), ("lo", "Interval"), ("letters", "Letters"),
            ("tierText", "Tie tier"), ("rank_lo", "Rank interval"), ("p_best", "P(best)"))


def _table(rid: str) -> str:
    """The table's skeleton: sortable headers (buttons in ``th`` with ``aria-sort``); the script fills the rows."""
    heads = "".join(f'<th scope="col" data-key="{key}" aria-sort="none"><button type="button">{label}</button></th>'
                    for key, label in _COLUMNS)
    return (f'<div class="lb-wrap"><table class="lb-table" id="{rid}-table" data-lb="table"><caption></caption>'
            f'<thead><tr>{heads}</tr></thead><tbody></tbody></table></div>')


def _footer(data: Mapping[str, Any]) -> str:
    """The provenance: version, seed, resamples, alpha, when, the command and the inputs' SHA-256 hashes."""
    prov, st = data.get("provenance") or {}, data.get("settings") or {}
    facts = []
    versions = prov.get("versions") or {}
    version = prov.get("version") or versions.get("evalreport")
    if version:
        facts.append(f"evalreport {version}")
    for key, label in (("seed", "seed"), ("bootstrap", "bootstrap resamples"), ("alpha", "alpha"),
                       ("pairwise_test", "letters' test")):
        value = st.get(key, prov.get(key))
        if value is not None:         # the number of resamples as the tables print integers ("10,000"); a seed is a code
            shown = integer_text(value) if key == "bootstrap" and isinstance(value, int) else value
            facts.append(f"{label} {shown}")
    if prov.get("created"):
        facts.append(f"made {prov['created']}")
    parts = [f"<p>{escape.html('; '.join(facts))}.</p>" if facts else ""]
    if prov.get("command"):
        parts.append(f"<p>Command: <code>{escape.html(prov['command'])}</code></p>")
    inputs = prov.get("inputs") or []
    if inputs:
        items = "".join(f"<li>{escape.html(i.get('role', ''))} <code>{escape.html(i.get('path', ''))}</code>: "
                        f"SHA-256 <code>{escape.html(i.get('sha256') or 'not recorded')}</code></li>" for i in inputs)
        parts.append(f"<details><summary>Inputs ({len(inputs)} files, SHA-256)</summary><ul>{items}</ul></details>")
    return '<footer class="lb-foot">' + "".join(parts) + "</footer>"


def _notes(data: Mapping[str, Any]) -> str:
    """The comparison's notes, folded."""
    notes = data.get("notes") or []
    if not notes:
        return ""
    items = "".join(f"<li>{escape.html(n)}</li>" for n in notes)
    return f'<details class="lb-notes"><summary>Notes ({len(notes)})</summary><ul>{items}</ul></details>'


def component_html(data: Mapping[str, Any], *, root_id: str = "lb", chart: bool = True, footer: bool = True,
                   assets: bool = True) -> str:
    """The leaderboard component: controls, chart, table, drill-down, downloads, notes, its data and script.

    Parameters
    ----------
    data : mapping
        :func:`evalreport.report.leaderboard_data.page_data`'s result.
    root_id : str
        The id of the component's root element (the ids inside are prefixed with it).
    chart : bool
        Draw the chart (needs the Vega bundle on the page, :func:`evalreport.report.render.vega_bundle`).
    footer : bool
        Show the provenance footer (the report has its own appendix).
    assets : bool
        Carry the style and script (a page with several components carries them once: :func:`assets_html`).

    Returns
    -------
    str
        An HTML fragment with its own ``<style>`` and ``<script>``.
    """
    rid = escape.html(root_id)
    downloads = ('<p class="lb-downloads">Download the numbers behind this page: '
                 '<a data-lb="csv-link" download="leaderboard.csv" href="#">CSV</a> '
                 '<a data-lb="json-link" download="leaderboard.json" href="#">JSON</a></p>')
    drill = (f'<section class="lb-drill" id="{rid}-drill" data-lb="drill" aria-labelledby="{rid}-drill-title" '
             f'hidden></section>')
    spec = f'<script type="application/json" data-lb="spec">{_script_json(chart_spec(data.get("systems") or ()))}</script>' if chart else ""
    chart_box = '<div class="lb-chart" data-lb="chart" role="img" aria-label="Values with intervals"></div>' \
        if chart else ""
    body = (f'<div class="lb-root" id="{rid}">'
            + _controls(rid) + chart_box + _table(rid) + drill + downloads + _notes(data)
            + (_footer(data) if footer else "")
            + f'<script type="application/json" data-lb="data">{_script_json(dict(data))}</script>'
            + f'<script type="application/json" data-lb="csv">{_script_json(page_csv(data))}</script>'
            + spec + "</div>")
    return f'<style>{_asset("leaderboard.css")}</style>{body}<script>{_asset("leaderboard.js")}</script>' if assets \
        else body


def assets_html() -> tuple[str, str]:
    """The component's ``<style>`` and ``<script>`` elements, for a page that carries them once.

    Returns
    -------
    tuple of str
        The style element (for the head) and the script element (for the end of the body).
    """
    return f'<style>{_asset("leaderboard.css")}</style>', f'<script>{_asset("leaderboard.js")}</script>'


def page_html(data: Mapping[str, Any], *, bundle: str | None = None) -> str:
    """The whole page: the component, its title and, when given, the Vega bundle for the chart.

    Parameters
    ----------
    data : mapping
        :func:`evalreport.report.leaderboard_data.page_data`'s result.
    bundle : str, optional
        The Vega + Vega-Lite + Vega-Embed JavaScript (:func:`evalreport.report.render.vega_bundle`); without
        it the page has no chart (the table works alone).

    Returns
    -------
    str
        One self-contained HTML document.
    """
    n_s, n_m = len(data.get("systems") or ()), len(data.get("measures") or ())
    lead = (f"{n_s} systems under {n_m} measures. Choose a measure to re-rank the systems; the interval is the "
            f"bootstrap interval of each value, and systems that share a letter are not separated by the tests.")
    return document(str(data.get("title") or "Leaderboard"), f"<p>{escape.html(lead)}</p>"
                    + component_html(data, chart=bundle is not None), bundle=bundle)


def document(title: str, body: str, *, bundle: str | None = None) -> str:
    """A whole page around ``body``: the Content-Security-Policy, the title (escaped) and the Vega bundle.

    Parameters
    ----------
    title : str
        The page's title (text from the data: escaped here).
    body : str
        HTML of the page's main content (after the heading).
    bundle : str, optional
        The Vega JavaScript, written once before ``body``.

    Returns
    -------
    str
        One self-contained HTML document.
    """
    head = escape.html(title)
    vega = f"<script>{bundle}</script>" if bundle else ""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{head}</title></head>\n<body>"
        f'<main class="lb-page"><h1>{head}</h1>' + vega + body + "</main></body></html>\n")


def write_page(data: Mapping[str, Any], path: str | Path, *, bundle: str | None = None) -> Path:
    """Write the page to ``path`` at once (a temporary file renamed into place: no half-written page).

    Parameters
    ----------
    data : mapping
        :func:`evalreport.report.leaderboard_data.page_data`'s result.
    path : path
        The HTML file to write (its folder must exist).
    bundle : str, optional
        As for :func:`page_html`.

    Returns
    -------
    pathlib.Path
        ``path``.
    """
    return write_html(page_html(data, bundle=bundle), path)


def write_html(text: str, path: str | Path) -> Path:
    """Write a page at once (a temporary file renamed into place: no half-written page).

    Parameters
    ----------
    text : str
        The HTML.
    path : path
        The file to write (its folder must exist).

    Returns
    -------
    pathlib.Path
        ``path``.
    """
    target = Path(path)
    if target.is_dir():
        raise InputError("is a folder; give the HTML file to write", path=str(target))
    if not target.parent.is_dir():
        raise InputError("its folder does not exist", path=str(target))
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.chmod(tmp, 0o644)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise InputError(f"cannot write the page: {exc.strerror or exc}", path=str(target)) from None
    return target


class InteractiveTable(Table):
    """The report's leaderboard table: in HTML the interactive component above the static table (folded), in the
    PDF and Markdown the static table alone (:class:`~evalreport.report.display.Table`)."""

    def __init__(self, df: Any, *, component: str | None = None, **kwargs: Any):
        super().__init__(df, **kwargs)
        self.component = component

    def _html(self) -> str:
        """The component, then the static table in a ``<details>`` (the caption and notes, and a page without script)."""
        static = super()._html()
        if not self.component:
            return static
        return (self.component + '<details class="lb-static"><summary>The same leaderboard as a static table'
                                 '</summary>' + static + "</details>")


def report_component(folder: str | Path) -> str | None:
    """The interactive leaderboard of a report's ``tables/`` folder, for its HTML (None where the tables lack
    what it needs: the static table then stands alone).

    Parameters
    ----------
    folder : path
        The report's ``tables/`` folder.

    Returns
    -------
    str or None
        :func:`component_html` without the provenance footer (the report's appendix has it).
    """
    from evalreport.report.leaderboard_data import page_data, read_tables

    try:
        tables, manifest, prov = read_tables(folder)
        data = page_data(tables, manifest, provenance=prov, title="Leaderboard")
    except (InputError, KeyError, ValueError):
        return None
    return component_html(data, root_id="lb-report", footer=False)

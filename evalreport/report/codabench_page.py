"""The participant's ``detailed_results.html``: one self-contained offline page (no script, no link,
no font or image to fetch) with a submission's scores and intervals, its per-class table, its
confusion matrix and, when present, its slices and score curves. Every name from the data is
HTML-escaped (:func:`evalreport.escape.html`)."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from evalreport import escape
from evalreport.report.display import integer_text

if TYPE_CHECKING:
    from evalreport.report.codabench import Scored

__all__ = ["detail_page", "table_html"]


# A table wider than the page (a confusion matrix of many classes) scrolls inside its own box, so
# that the page never does; the matrix's cells are compact and its column heads wrap anywhere.
_STYLE = """body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;max-width:60em}
table{border-collapse:collapse;margin:.5em 0 1.5em}th,td{border:1px solid #ccc;padding:.25em .6em}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}th{background:#f3f3f3;text-align:left}
caption{text-align:left;
font-weight:600;padding:.3em 0}.official{font-weight:700}.note{color:#555}
.scroll{overflow-x:auto;max-width:100%;margin:.5em 0 1.5em}.scroll>table{margin:0}
table.matrix th,table.matrix td{padding:.15em .3em;font-size:.85em}
table.matrix tr:first-child th{overflow-wrap:anywhere;min-width:3em;vertical-align:bottom}"""


def _num(v, digits: int = 4) -> str:
    """A value to ``digits`` decimals, NaN as "undefined"."""
    return "undefined" if v is None or (isinstance(v, float) and math.isnan(v)) else (
        f"{v:.{digits}f}" if isinstance(v, (float, np.floating)) else str(v))


def _count(v):
    """An integer cell with thousands separators from 10,000 on; anything else as it is."""
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        return integer_text(int(v))
    return v


def table_html(frame: pd.DataFrame, caption: str, *, shade: bool = False) -> str:
    """``frame`` as an HTML table with its index as row headers; ``shade``: cells tinted by value (a
    confusion matrix).

    Parameters
    ----------
    frame : DataFrame
        The table; floats are shown to 4 decimals, NaN as "undefined".
    caption : str
        The table's caption.
    shade : bool
        Tint each cell in proportion to its value over the largest one.

    Returns
    -------
    str
        One ``<table>`` element, every cell HTML-escaped.
    """
    e = escape.html
    head = "".join(f"<th>{e(c)}</th>" for c in [frame.index.name or "", *frame.columns])
    top = float(frame.to_numpy(dtype=float).max()) if shade and frame.size else 0.0
    body = []
    for idx, row in frame.astype(object).iterrows():      # (object: counts stay integers)
        cells = []
        for v in row.tolist():
            style = ""
            if shade and top > 0:
                style = f' style="background:rgba(31,119,180,{0.6 * float(v) / top:.3f})"'
            cells.append(f'<td class="n"{style}>{e(_num(v) if isinstance(v, float) else _count(v))}</td>')
        body.append(f"<tr><th>{e(idx)}</th>{''.join(cells)}</tr>")
    table = '<table class="matrix">' if shade else "<table>"
    return _scroll(f"{table}<caption>{e(caption)}</caption><tr>{head}</tr>{''.join(body)}</table>")


def _scroll(table: str) -> str:
    """``table`` in a box that scrolls sideways when the table is wider than the page."""
    return f'<div class="scroll">{table}</div>'


def detail_page(scored: Scored, *, title: str = "Your submission", alpha: float = 0.05, bootstrap: int = 0) -> str:
    """One self-contained offline HTML page (no script, no link, no font or image to fetch): the
    scores with their intervals, the per-class table and the confusion matrix. Every name from
    the data (class labels, reasons) is HTML-escaped."""
    from evalreport.measures import get

    e = escape.html
    level = f"{100 * (1 - alpha):g}%"
    rows = []
    # the column of undefined cases only when a measure has one (an empty column says nothing)
    reasons = any(str(r) for r in scored.rows["reason"])
    for r in scored.rows.itertuples(index=False):
        cls = ' class="official"' if r.measure == scored.primary else ""
        interval = "" if math.isnan(r.lo) else f"[{_num(r.lo)}, {_num(r.hi)}]"
        record = get(r.measure)
        name = record.label
        if "positive" in record.needs and scored.positive is not None:
            name += f" (positive class: {scored.positive})"
        rows.append(f"<tr{cls}><th>{e(name)}{' (official)' if cls else ''}</th>"
                    f"<td><code>{e(r.key)}</code></td><td class=\"n\">{e(_num(r.value))}</td>"
                    f"<td class=\"n\">{e(interval)}</td>" + (f"<td>{e(r.reason)}</td>" if reasons else "") + "</tr>")
    scores = _scroll(f"<table><caption>Scores</caption><tr><th>measure</th><th>leaderboard key</th><th>value</th>"
                     f"<th>{e(level)} interval</th>" + ("<th>undefined cases</th>" if reasons else "")
                     + f"</tr>{''.join(rows)}</table>")
    how = (f"Intervals: {bootstrap} bootstrap resamples over {scored.unit}, percentile {level} intervals."
           if bootstrap else "No intervals (no bootstrap resamples).")
    said = f"the intervals resample {scored.unit}"        # the log's note of the unit: said once here
    body = [f"<h1>{e(title)}</h1>", scores, f'<p class="note">{e(how)}</p>',
            *(f'<p class="note">{e(n)}</p>' for n in scored.notes if n != said),
            table_html(scored.per_class, "Per class: gold items, recall, precision and F1"),
            table_html(scored.confusion, "Confusion matrix (rows: gold class, columns: predicted class)", shade=True)]
    if scored.slices is not None and len(scored.slices):     # the same values as the KEY__SLICE keys
        from evalreport.report.codabench_slices import detail_frame

        body.append(table_html(detail_frame(scored.slices, lambda m: get(m).label), "By slice of the test set"))
    if scored.curves and not _can_draw():
        body.append(f'<p class="note">{e(_NO_CURVES)}</p>')
    elif scored.curves:
        from evalreport.report.codabench_curves import curves_html

        gold = scored.per_class["gold items"].astype(float)
        body.append(curves_html(scored.curves, (gold / gold.sum()).to_dict() if gold.sum() > 0 else None))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{e(title)}</title><style>{_STYLE}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


#: The page's note where the scorer's environment cannot draw charts (the scores are written all the same).
_NO_CURVES = ("The ROC, precision-recall and reliability curves of your scores are not drawn: the scoring "
              "environment lacks altair and vl-convert-python (pip install 'evalreport[report]').")


def _can_draw() -> bool:
    """Whether altair and vl-convert-python (the curves' SVG needs both) are installed."""
    from importlib.util import find_spec

    return all(find_spec(name) is not None for name in ("altair", "vl_convert"))

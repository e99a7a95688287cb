"""The appendix's score curves: the ROC, precision-recall and reliability figures of the report's score
section (:meth:`~evalreport.report.sections.scores.ScoreSections.curve_figure`), drawn as vector PDF and
SVG at both of the appendix's widths by :func:`~evalreport.report.appendix.figures.write_charts`. Nothing
when the comparison saw no scores."""
from __future__ import annotations

from typing import Any

from evalreport import charts
from evalreport.report.sections.scores import ScoreSections

__all__ = ["curve_figures"]

#: A figure of one panel fits a column; small multiples (a panel per class, per system) take the page.
_KINDS = ("roc", "precision-recall", "reliability")


def curve_figures(data: Any) -> list[tuple[str, str, Any, str]]:
    """``(name, caption, chart, size shown)`` of every curve figure of ``data``'s tables folder.

    Parameters
    ----------
    data : ReportBase
        The report's tables (:class:`~evalreport.report.appendix.writer.AppendixData`).

    Returns
    -------
    list of tuple
        One item per curve table present: the figure's file name, its caption, the Altair chart and
        ``"column"`` (one panel) or ``"page"`` (several panels).
    """
    charts.use_theme()           # the report's theme, and curves of more than Altair's 5,000 rows
    scores = ScoreSections(data.folder)
    out = []
    for kind in _KINDS:
        figure = scores.curve_figure(kind)
        if figure is None:
            continue
        chart, caption = figure
        spec = chart.to_dict(validate=False)
        single = not any(key in spec for key in ("facet", "concat", "vconcat", "hconcat"))
        out.append((kind, caption, chart, "column" if single else "page"))
    return out

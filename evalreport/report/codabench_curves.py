"""The curves of a scored submission on the Codabench participant page (``detailed_results.html``).

The page fetches nothing and runs no script, so each curve is drawn by vl-convert as an inline SVG
(text from the data, such as class names, is escaped by the SVG writer): the ROC and the
precision-recall curves of the submission (a panel per class for several classes) and its
reliability diagram, from the frames of :mod:`evalreport.analyses.curves` (``roc_curve``,
``pr_curve``, ``reliability``) that :class:`~evalreport.report.codabench.Scored` carries in
``curves``. A submission without scores has no such frames and the page shows no curves.
"""
from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from evalreport import escape

__all__ = ["curves_html"]


def _svg(chart) -> str:
    import vl_convert as vlc

    from evalreport.report.display import printable_spec

    return vlc.vegalite_to_svg(printable_spec(chart.to_dict()))


def curves_html(curves: Mapping[str, pd.DataFrame], prevalence: Mapping[str, float] | None = None) -> str:
    """The HTML of the page's curves: a heading and one ``<figure>`` with an inline SVG per frame.

    Parameters
    ----------
    curves : mapping of str to DataFrame
        ``roc_curve``, ``pr_curve`` and ``reliability`` frames of the submission (any may be absent).
    prevalence : mapping of str to float, optional
        Each class's share of the gold labels: the chance line of the precision-recall curves.

    Returns
    -------
    str
        Empty when no frame has rows.
    """
    from evalreport.charts import curves as charts
    from evalreport.charts.theme import use_theme

    use_theme()
    figures = []
    captions = {"roc_curve": "ROC curve: the dashed diagonal is a ranking at random (AUC 0.5).",
                "pr_curve": "Precision-recall curve: the dashed line is the class's prevalence (a ranking at random).",
                "reliability": "Reliability diagram: accuracy against the mean top-label confidence in each bin; "
                               "the dashed diagonal is perfect calibration; the bars show where the confidences fall."}
    for name, caption in captions.items():
        frame = curves.get(name)
        if frame is None or frame.empty:
            continue
        if name == "roc_curve":
            chart = charts.roc_chart(frame, title="ROC curve")
        elif name == "pr_curve":
            chart = charts.pr_chart(frame, prevalence=prevalence, title="Precision-recall curve")
        else:
            chart = charts.reliability_chart(frame, title="Reliability of the confidence")
        figures.append(f"<figure>{_svg(chart)}<figcaption>{escape.html(caption)}</figcaption></figure>")
    if not figures:
        return ""
    return "<h2>Curves of your scores</h2>\n" + "\n".join(figures)

"""The appendix's figures: vector PDF and SVG (vl-convert), one for a column and one for the page.

Each figure is a chart of :mod:`evalreport.charts` made from the report's tables (the same
functions the report draws with), rendered by vl-convert as PDF (text as embedded font subsets,
checked with ``pdffonts`` in the tests) and as SVG. ``column`` files are 3.3 in wide and ``page``
files 6.9 in: the chart is first drawn narrower or wider where its width is free (a top-level
``width``), then scaled so that the file is exactly that wide. LaTeX includes them at their own
size (no ``width=`` option), so 1 pt in the chart is 1 pt on paper.

:func:`write_figures` takes extra charts (``extra``: name -> Altair chart): a benchmark's
critical-difference diagram (``evalreport.charts.benchmark.cd_diagram``) enters the appendix that
way, where there is one.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from evalreport.report.appendix.tables import PAGE_IN

__all__ = ["Figure", "FIGURE_SIZES", "charts_for", "write_figures", "write_charts", "pdf_width_pt", "MAX_HEIGHT_IN",
           "pdf_aspect"]

#: Width of a column figure's file (in): AAAI's and the example's 3.3 in column. The one-column tables are made
#: for ACL's narrower 3.03 in (:data:`~.tables.COLUMN_IN`); a figure, unlike a table, is shrunk to the column
#: (LaTeX: ``\linewidth``, Typst: the layout's width), its text 8% smaller there.
FIGURE_COLUMN_IN = 3.3
#: Width of each figure size in inches.
FIGURE_SIZES = {"column": FIGURE_COLUMN_IN, "page": PAGE_IN}
#: A column figure drawn smaller than this (its 11 px text below about 7 pt) is shown at page width.
MIN_TEXT_SCALE = 0.65


@dataclass
class Figure:
    name: str
    caption: str
    files: dict          # size -> {"pdf": Path, "svg": Path} (relative to the appendix folder)
    size: str = "column"  # which size appendix.tex shows
    scales: dict | None = None   # size -> factor from the drawing's points to the file's


def charts_for(data) -> list[tuple[str, str, object, str]]:
    """(name, caption, chart, size shown) for the report folder's tables: the leaderboard with its
    intervals, the rank heatmap and the Spearman and Kendall rank-correlation heatmaps; with scores, the
    ROC, precision-recall and reliability curves (:func:`~evalreport.report.appendix.curves.curve_figures`)."""
    from evalreport import charts
    from evalreport.analyses.letters import letters_sentence, range_sentence
    from evalreport.measures import get
    from evalreport.report.appendix.curves import curve_figures
    from evalreport.report.appendix.seeds import design_test, interval_words
    from evalreport.report.appendix.sources import paper_label as label  # whose equation
    from evalreport.report.section_tables import BASELINE_CHART_WORDS, MIN_SYSTEMS_AGREEMENT
    from evalreport.report.sections.many_systems import print_systems, shown_sentence

    primary = data.primary
    out = []
    iv = data.table("intervals")
    if iv.empty:
        scores = data.table("scores")
        iv = scores[(scores["measure"] == primary) & ~scores["calibrated"].astype(bool)].assign(lo=float("nan"),
                                                                                              hi=float("nan"))
    iv = iv[iv["measure"] == primary]
    base = data.table("baselines")
    base = base[base["measure"] == primary] if not base.empty else None
    groups = data.table("groups")
    board = data.table("leaderboard")
    systems = list(board.sort_values("rank", kind="stable")["system"].astype(str)) if len(board) else None
    top = print_systems(systems or [])
    shown = "" if top is None else shown_sentence(len(top), len(systems or []), table="leaderboard.csv")
    if top is not None:
        iv = iv[iv["system"].astype(str).isin(top)]
        groups = groups[groups["system"].astype(str).isin(top)] if "system" in groups else groups
    chart = charts.leaderboard_intervals(iv, measure=primary, baselines=base,
                                         groups=groups if not groups.empty else None,
                                         higher_is_better=get(primary).higher_is_better,
                                         baseline_names=BASELINE_CHART_WORDS)
    letters = "" if groups.empty or "letters" not in groups else (
        " Colour: the significance letters. " + letters_sentence(design_test(data),
                                                                 data.settings.get("alpha", 0.05))
        + range_sentence(groups["letters"]))
    out.append(("leaderboard", f"Systems under {label(primary)} with their {interval_words(data)} intervals; dashed lines: chance "
                               f"baselines.{letters}{shown}", chart, "column"))
    ranks = data.table("ranks")
    if top is not None:
        ranks = ranks[ranks["system"].astype(str).isin(top)]
    rows = top if top is not None else systems
    out.append(("ranks", "Rank of every system under every measure." + shown.replace("leaderboard.csv", "ranks.csv"),
                # a few systems: a row each (a column each would make a tall, narrow figure of a page)
                charts.rank_heatmap(ranks, systems=rows,
                                    orient="systems_rows" if rows is not None and len(rows) <= 6 else "auto"),
                "page"))
    corr = data.table("rank_correlation")
    order = data.measures or None
    enough = systems is None or len(systems) >= MIN_SYSTEMS_AGREEMENT   # (fewer: a grid of a few values)
    if enough and not corr.empty and len(charts.identical_rankings(corr, method="spearman", order=order)) > 1:
        for method, name in (("spearman", "Spearman"), ("kendall", "Kendall")):
            if method in set(corr["method"]):
                out.append((f"correlation-{method}", f"{name} rank correlation between the system rankings of the "
                                                     "measures (measures that rank identically share a row).",
                            charts.correlation_heatmap(corr, method=method, order=order), "page"))
    out.extend(curve_figures(data))      # ROC, precision-recall and reliability, where the runs had scores
    return out


_MEDIABOX = re.compile(rb"/MediaBox\s*\[\s*([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s*\]")


def pdf_width_pt(pdf: bytes) -> float:
    """Width in points of the first page of ``pdf`` (its MediaBox)."""
    m = _MEDIABOX.search(pdf)
    if not m:
        raise ValueError("no MediaBox in the PDF")
    x0, _, x1, _ = (float(v) for v in m.groups())
    return x1 - x0


def pdf_aspect(pdf: bytes) -> float:
    """Width over height of the first page of ``pdf`` (its MediaBox).

    Parameters
    ----------
    pdf : bytes
        A PDF file's bytes.

    Returns
    -------
    float
        The page's width divided by its height.
    """
    m = _MEDIABOX.search(pdf)
    if not m:
        raise ValueError("no MediaBox in the PDF")
    x0, y0, x1, y1 = (float(v) for v in m.groups())
    return (x1 - x0) / (y1 - y0)


#: Subtitle lines that the appendix's own captions already say.
_SAID = ("of the system rankings", "identical rankings share a row", "points: value on all items")


def _untitled(spec: dict) -> tuple[dict, str]:
    """``spec`` without its title (the caption carries it) and what its subtitle adds, as a sentence
    for the caption (lines the caption already says, and the page's advice to hover, left out)."""
    title = spec.get("title")
    sub = title.get("subtitle", "") if isinstance(title, dict) else ""
    lines = sub if isinstance(sub, list) else [str(sub or "")]
    kept = [re.sub(r";?\s*hover[^;)]*", "", str(line)).strip() for line in lines
            if line and not any(said in str(line) for said in _SAID)]
    text = "; ".join(k for k in kept if k)
    text = (text[0].upper() + text[1:] + ".") if text else ""
    return {k: v for k, v in spec.items() if k != "title"}, text


def _sized(spec: dict, target_pt: float) -> tuple[dict, float]:
    """``spec`` with its free width (a top-level number) moved toward ``target_pt``, and the
    scale that then makes the drawing exactly ``target_pt`` wide. vl-convert draws 1 px as 1 pt."""
    import vl_convert as vlc

    natural = pdf_width_pt(vlc.vegalite_to_pdf(spec))
    for _ in range(3):
        if not isinstance(spec.get("width"), (int, float)) or abs(natural - target_pt) < 1:
            break
        trial = dict(spec, width=max(60.0, spec["width"] + (target_pt - natural)))
        got = pdf_width_pt(vlc.vegalite_to_pdf(trial))
        if abs(got - target_pt) >= abs(natural - target_pt):
            break
        spec, natural = trial, got
    return spec, target_pt / natural


_SVG_SIZE = re.compile(r'<svg([^>]*?)\swidth="([\d.]+)"\s+height="([\d.]+)"')


def _svg_at(svg: str, scale: float, unit: str = "pt") -> str:
    """The SVG with its width and height multiplied by ``scale`` and written in ``unit`` (``""``:
    user units, which vl-convert's ``svg_to_pdf`` takes as points); the viewBox keeps the drawing."""
    def repl(m):
        w, h = float(m.group(2)), float(m.group(3))
        view = "" if "viewBox" in m.group(0) or "viewBox" in svg[m.end():m.end() + 200].split(">")[0] \
            else f' viewBox="0 0 {w:g} {h:g}"'
        return f'<svg{m.group(1)} width="{w * scale:.2f}{unit}" height="{h * scale:.2f}{unit}"{view}'

    return _SVG_SIZE.sub(repl, svg, count=1)


#: The tallest figure the appendix draws (in): 0.8 of a US-letter page's text with 0.8 in margins, the
#: height appendix.tex caps a figure at; Typst shows a figure at its own size, so a taller one (the
#: reliability diagrams of eight systems, 9.7 in at page width) ran off the page with its caption.
MAX_HEIGHT_IN = 7.5


def write_figures(data, folder: Path, *, extra=None, sizes=tuple(FIGURE_SIZES)) -> list[Figure]:
    """Write ``folder/NAME-SIZE.pdf`` and ``.svg`` for every chart of :func:`charts_for` and of
    ``extra`` (name -> chart, or name -> (chart, caption)), none taller than :data:`MAX_HEIGHT_IN`;
    return what was written."""
    from evalreport.charts.theme import allow_all_rows

    allow_all_rows()            # a curve table passes Altair's 5,000 rows (8 systems x 6 classes x 620 items)
    items = charts_for(data)
    for name, value in dict(extra or {}).items():
        chart, caption = value if isinstance(value, tuple) else (value, "")
        items.append((name, caption, chart, "page"))
    return write_charts(items, folder, sizes=sizes, max_height_in=MAX_HEIGHT_IN)


def write_charts(items, folder: Path, *, sizes=tuple(FIGURE_SIZES), subtitles: bool = True,
                 max_height_in: float | None = None) -> list[Figure]:
    """Write ``folder/NAME-SIZE.pdf`` and ``.svg`` for every ``(name, caption, chart, size shown)``
    of ``items``; a column figure whose text would shrink below :data:`MIN_TEXT_SCALE` is shown at
    page width. ``subtitles``: add what a chart's subtitle says to its caption (False: the
    captions say it already). ``max_height_in``: a drawing that would be taller is made narrower
    than its size's width instead (a tall heatmap at page width would not fit the page)."""
    import vl_convert as vlc

    from evalreport.report.display import printable_spec

    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, caption, chart, shown in items:
        spec0, subtitle = _untitled(printable_spec(chart.to_dict()))
        files, scales = {}, {}
        for size in sizes:
            spec, scale = _sized(spec0, FIGURE_SIZES[size] * 72)
            drawing = vlc.vegalite_to_svg(spec)
            height = _SVG_SIZE.search(drawing)
            if max_height_in and height and float(height.group(3)) * scale > max_height_in * 72:
                scale = max_height_in * 72 / float(height.group(3))
            pdf = folder / f"{name}-{size}.pdf"
            svg = folder / f"{name}-{size}.svg"
            pdf.write_bytes(vlc.svg_to_pdf(_svg_at(drawing, scale, "")))
            svg.write_text(_svg_at(drawing, scale, "pt"), encoding="utf-8")
            files[size] = {"pdf": pdf, "svg": svg}
            scales[size] = scale
        caption = f"{caption} {subtitle}".strip() if subtitle and subtitles else caption
        shown = shown if shown in sizes else sizes[0]
        if shown == "column" and "page" in sizes and scales["column"] < MIN_TEXT_SCALE:
            shown = "page"   # long names: at a column's width the text would be too small to read
        out.append(Figure(name, caption, files, shown, scales))
    return out

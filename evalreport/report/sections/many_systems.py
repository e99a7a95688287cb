"""Charts of one row per system, printed legibly at many systems.

A heatmap of 100 systems is drawn at 14 px a row or more: the live chart (HTML) scrolls through all of
them, but its static image (PDF) is scaled down to fit one page, and its names and cells become too
small to read. Above :data:`MAX_PRINT_SYSTEMS` systems the static image shows the first ones of the
leaderboard only, and its caption says how many are left out and which table holds every value (as the
p-value chart and the per-slice leaderboards already do).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from evalreport.report.display import print_text
from evalreport.words import counted

__all__ = ["MAX_PRINT_SYSTEMS", "print_systems", "print_sentence", "print_first", "shown_sentence"]

#: The most systems a printed heatmap shows: at the smallest row height (14 px) 40 rows fill about
#: two thirds of a page, leaving room for the title, the axis of measures and the legend.
MAX_PRINT_SYSTEMS = 40


def print_systems(order: Sequence[str], *, limit: int = MAX_PRINT_SYSTEMS) -> list[str] | None:
    """The systems a printed chart shows: the first ``limit`` of ``order`` (leaderboard order), or None
    when all of them fit.

    Parameters
    ----------
    order : sequence of str
        Every system of the chart, best first.
    limit : int
        The most systems the printed chart shows.

    Returns
    -------
    list of str or None
        The systems to print, or None when the chart prints as it is.
    """
    systems = list(dict.fromkeys(str(s) for s in order))
    return systems[:limit] if len(systems) > limit else None


def print_sentence(shown: int, total: int, *, ranked_by: str, table: str) -> str:
    """The printed caption's sentence on the systems left out of a chart.

    Parameters
    ----------
    shown : int
        How many systems the printed chart shows.
    total : int
        How many systems the live chart shows.
    ranked_by : str
        The measure (label) whose leaderboard chose them.
    table : str
        The CSV file that holds every system's values.

    Returns
    -------
    str
        One sentence, beginning with a space.
    """
    return (f" Printed: the first {counted(shown, 'system')} of the leaderboard under {ranked_by} "
            f"({counted(total - shown, 'more system')} in the HTML report and in {table}).")


def shown_sentence(shown: int, total: int, *, table: str) -> str:
    """The caption's sentence of a printed figure or table (the paper appendix's) that shows the first
    systems of the leaderboard only: there is no live chart to point to, the CSV file holds them all.

    Parameters
    ----------
    shown : int
        How many systems the figure or table shows.
    total : int
        How many systems there are.
    table : str
        The CSV file that holds every system's values.

    Returns
    -------
    str
        One sentence, beginning with a space.
    """
    return (f" Shown: the first {counted(shown, 'system')} of the leaderboard's {total:,}; "
            f"every system is in {table}.")


def print_first(top: list[str] | None, draw: Callable[[], Any], caption: str, *, total: int, ranked_by: str,
                table: str) -> dict[str, Any]:
    """The keywords of a :class:`~evalreport.report.display.Chart` whose printed image shows the
    systems ``top`` only, its printed caption saying so.

    Parameters
    ----------
    top : list of str or None
        :func:`print_systems`' result; None: every system fits the page, no keywords.
    draw : callable
        Draws the chart of the systems ``top`` (called only when ``top`` is not None).
    caption : str
        The live chart's caption; the printed one is it without what only a live chart offers, and
        :func:`print_sentence`.
    total, ranked_by, table
        As :func:`print_sentence` takes them.

    Returns
    -------
    dict
        ``print_chart`` and ``print_caption``, or nothing.
    """
    if top is None:
        return {}
    sentence = print_sentence(len(top), total, ranked_by=ranked_by, table=table)
    return {"print_chart": draw(), "print_caption": (print_text(caption) or "") + sentence}

"""The one Altair theme every evalreport chart uses.

Registered as ``"evalreport"``; :func:`use_theme` enables it. Colours are the Okabe-Ito
palette (distinguishable under the common colour-vision deficiencies), ordered so that the
first few categories are also distinct in greyscale print. The font list starts with
Liberation Sans, which vl-convert embeds (the static PNG/PDF images therefore never depend on
system fonts), and falls back to its metric twins Arial/Helvetica in a browser.
"""
from __future__ import annotations

import altair as alt

THEME_NAME = "evalreport"

FONT = "Liberation Sans, Arial, Helvetica, sans-serif"

#: Okabe & Ito (2008), "Color Universal Design", reordered: blue, orange, green, vermillion,
#: sky blue, reddish purple, yellow, black.
CATEGORY_COLOURS = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#D55E00",
    "#56B4E9",
    "#CC79A7",
    "#F0E442",
    "#000000",
)

TEXT_COLOUR = "#222222"
MUTED_COLOUR = "#555555"
GRID_COLOUR = "#e6e6e6"


def theme_config() -> alt.theme.ThemeConfig:
    """The theme as a Vega-Lite ``config`` dictionary (a fresh copy each call)."""
    axis: alt.theme.AxisConfigKwds = {
        "labelFont": FONT,
        "titleFont": FONT,
        "labelFontSize": 11,
        "titleFontSize": 12,
        "titleFontWeight": "normal",
        "labelColor": MUTED_COLOUR,
        "titleColor": TEXT_COLOUR,
        "gridColor": GRID_COLOUR,
        "domainColor": "#888888",
        "tickColor": "#888888",
    }
    return {
        "config": {
            "font": FONT,
            "background": "white",
            "padding": 8,
            "view": {"continuousWidth": 420, "continuousHeight": 260, "stroke": None},
            "title": {
                "font": FONT,
                "fontSize": 14,
                "fontWeight": "bold",
                "color": TEXT_COLOUR,
                "anchor": "start",
                "subtitleFont": FONT,
                "subtitleColor": MUTED_COLOUR,
            },
            "axis": axis,
            "axisBand": {"grid": False},
            "header": {"labelFont": FONT, "titleFont": FONT, "labelFontSize": 11, "titleFontSize": 12},
            "legend": {
                "labelFont": FONT,
                "titleFont": FONT,
                "labelFontSize": 11,
                "titleFontSize": 12,
                "titleFontWeight": "normal",
                "labelColor": TEXT_COLOUR,
                "titleColor": TEXT_COLOUR,
                "symbolType": "circle",
            },
            "text": {"font": FONT, "fontSize": 11, "color": TEXT_COLOUR},
            "range": {
                "category": list(CATEGORY_COLOURS),
                # Sequential/diverging schemes that stay readable for colour-blind readers. (Vega-Lite
                # takes a {"scheme": name} range here; Altair's typed config lists only colour arrays.)
                "heatmap": {"scheme": "viridis"},  # type: ignore[typeddict-item]
                "ramp": {"scheme": "viridis"},  # type: ignore[typeddict-item]
                "diverging": {"scheme": "blueorange"},  # type: ignore[typeddict-item]
            },
            "mark": {"color": CATEGORY_COLOURS[0]},
            "bar": {"color": CATEGORY_COLOURS[0]},
            "line": {"strokeWidth": 2},
            "point": {"size": 50, "filled": True},
        }
    }


@alt.theme.register(THEME_NAME, enable=False)
def _evalreport_theme() -> alt.theme.ThemeConfig:
    return theme_config()


def use_theme() -> None:
    """Enable the evalreport theme for every chart made after this call, and let those charts
    carry their data whatever its size.

    Altair refuses to embed more than 5,000 rows (``MaxRowsError``), a guard for interactive
    notebooks that would otherwise ship megabytes of JSON. Our charts are built from the
    report's own tables and must show all of them (200 systems make a 39,800-cell p-value
    heatmap), so the limit is lifted here, deliberately, for the process that draws the report.
    """
    alt.theme.enable(THEME_NAME)
    allow_all_rows()


def allow_all_rows() -> None:
    """Lift Altair's 5,000-row limit, keeping the active data transformer (e.g. ``vegafusion``)."""
    transformers = alt.data_transformers
    if transformers.active == "default":
        transformers.enable("default", max_rows=None)
    else:
        transformers.disable_max_rows()

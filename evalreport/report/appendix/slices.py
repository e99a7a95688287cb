"""The appendix's per-slice table: every system's value of the primary measure on every slice of the
test set (rows: slices; columns: systems in the leaderboard's order, in the forms of the measures
table, :data:`~.tables.FORMS`), the best system of each slice in bold, a small slice marked."""
from __future__ import annotations

from dataclasses import replace

import pandas as pd

from evalreport.report.appendix.numbers import REPORT_DIGITS, fmt
from evalreport.report.appendix.tables import (
    SYSTEM_COL_IN,
    Cell,
    Column,
    TableSpec,
    name_col_in,
    paper_measure_label,
    system_forms,
)

__all__ = ["slices_tables", "SMALL_NOTE"]

#: After a small slice's name (too few items for an interval).
SMALL_NOTE = "*"


def _flags(values) -> list[bool]:
    return [str(v).strip().lower() in ("true", "1", "1.0") for v in values]


def slices_tables(data, *, forms: bool = False) -> list[TableSpec]:
    """The per-slice tables of the appendix (none without slices).

    Parameters
    ----------
    data
        The report's tables (``slices``, ``leaderboard``) and its primary measure.
    forms : bool
        Also the narrower forms (:data:`~.tables.FORMS`), as the appendix writes them.

    Returns
    -------
    list of TableSpec
        One page-wide table per group of systems that fits the page (and with ``forms`` the narrower forms);
        a slice's row is named ``column: slice (n)``, a small slice's name followed by :data:`SMALL_NOTE`.
    """
    sl = data.table("slices")
    if sl.empty:
        return []
    sl = sl[sl["measure"].astype(str) == data.primary]
    if sl.empty:
        return []
    sl = sl.assign(slice_col=sl["slice_col"].astype(str), slice=sl["slice"].astype(str),
                   system=sl["system"].astype(str), best=_flags(sl["best"]), small=_flags(sl["small"]))
    board = data.table("leaderboard")
    known = set(sl["system"])
    systems = [s for s in board["system"].astype(str) if s in known] if len(board) else []
    systems += [s for s in dict.fromkeys(sl["system"]) if s not in systems]
    keys = list(dict.fromkeys(zip(sl["slice_col"], sl["slice"])))
    first = sl.drop_duplicates(["slice_col", "slice"]).set_index(["slice_col", "slice"])
    cell = sl.set_index(["slice_col", "slice", "system"])
    several = len({c for c, _ in keys}) > 1
    label = paper_measure_label(data.primary)
    rows_of = {}
    for col, name in keys:
        head = first.loc[(col, name)]
        n = pd.to_numeric(head["n"], errors="coerce")
        rows_of[(col, name)] = (f"{col}: " if several else "") + name + (f" ({int(n):,})" if pd.notna(n) else "") \
            + (f" {SMALL_NOTE}" if head["small"] else "")
    cols_named = ", ".join(dict.fromkeys(c for c, _ in keys))
    small = any(first["small"])

    def build(parts: list[list], stem, width_in: float) -> list[TableSpec]:
        out = []
        for k, part in enumerate(parts, 1):
            rows = []
            for key, text in rows_of.items():
                line = [Cell(text, kind="text")]
                for s in part:
                    if (*key, s) not in cell.index:
                        line.append(Cell("\u2014"))
                        continue
                    r = cell.loc[(*key, s)]
                    line.append(Cell(fmt(r["value"], REPORT_DIGITS) or "\u2014", bold=bool(r["best"])))
                rows.append(line)
            done = sum(len(p) for p in parts[:k - 1])
            which = f" (systems {done + 1}-{done + len(part)} of {len(systems)})" if len(parts) > 1 else ""
            cap = (f"{label} of every system{which} on every slice of the test set by {cols_named} (rows; items in "
                   "parentheses), systems in the leaderboard's order; the best system of each slice in bold "
                   "(paired tests Holm-corrected within each slice are in slice_leaders.csv).")
            if small:
                cap += f" {SMALL_NOTE} a small slice: too few items or a gold class missing for an interval; its value is shown."
            cols = [Column("Slice", name_col_in(width_in), "l")] + [Column(str(s), SYSTEM_COL_IN) for s in part]
            out.append(TableSpec(stem(k), cap, cols, rows, width="page"))
        return out

    every = system_forms("slices", systems, build)
    return every if forms else [replace(spec, family="", form="") for spec in every if spec.form == "page"]


def slices_segments(data, seg) -> None:
    """Append the sentences on slices to the methods paragraph ``seg`` (nothing without slices).

    Parameters
    ----------
    data
        The report's tables (``slices``, ``slice_gaps``).
    seg
        The paragraph's segments (``text``, ``cite`` and ``("data", name)`` for names from the data).
    """
    from evalreport.measures.references import METHODS

    sl = data.table("slices")
    if sl.empty:
        return
    first = sl.drop_duplicates(["slice_col", "slice"])
    cols = list(dict.fromkeys(first["slice_col"].astype(str)))
    seg.text(" The test set was also cut into slices by the gold column" + ("s " if len(cols) > 1 else " "))
    for i, col in enumerate(cols):
        if i:
            seg.text(" and " if i == len(cols) - 1 else ", ")
        seg.append(("data", col))
    seg.text(f" ({len(first):,} slices). On the items of each slice alone every system's value was computed, with "
             "a paired bootstrap within the slice (the same resamples for every system) and the pairwise tests of "
             "the primary measure Holm-corrected within each slice ")
    seg.cite(*METHODS["holm"])
    if _flags(first["small"]).count(True):
        seg.text("; a slice with too few items or a gold class missing for an interval keeps its value without one")
    if not data.table("slice_gaps").empty:
        seg.text(". The difference between two slices of one system was tested on independent resamples of the two "
                 "(disjoint) slices, Holm-corrected over every system and pair of slices of a column")
    seg.text(".")

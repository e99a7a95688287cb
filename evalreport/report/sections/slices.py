"""The Slices section (report.ipynb): who wins on which part of the test set. A heading, one line of
intro, the system x slice heatmap, the small multiples of the per-slice leaderboards, the per-slice
leaders and the robustness table; and the findings' sentence on slices. Shown only when the
comparison has slices (the ``slices`` table has rows)."""
from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from evalreport.analyses.slice_findings import SEPARATED, SMALL
from evalreport.charts.slices import SMALL_MARK, slice_heatmap, slice_leaderboards, slice_value_domain
from evalreport.escape import markdown as escape
from evalreport.report.display import Chart, Heading, Note, Table
from evalreport.report.sections._core import ReportBase
from evalreport.report.sections.many_systems import print_first, print_systems
from evalreport.words import counted

__all__ = ["SliceSections", "slice_sentence", "MAX_NAMES"]

#: Systems named in a cell of the leaders table; more are only counted ("12 systems"), slice_leaders.csv names them.
MAX_NAMES = 3


def _flags(values) -> np.ndarray:
    return np.array([str(v).strip().lower() in ("true", "1", "1.0") for v in values], dtype=bool)


def _detail(detail: str) -> tuple[str, str, str]:
    """(slice column, slice, verdict) of a ``slice_leader`` row's detail (the slice may hold "|")."""
    col, _, rest = str(detail).partition("|")
    name, _, verdict = rest.rpartition("|")
    return col, name, verdict


#: Slices named in the findings' sentence per system (more are counted), and systems named there.
MAX_SLICES_NAMED, MAX_LEADERS_NAMED = 3, 3


def _listed(items: list[str], limit: int = MAX_SLICES_NAMED) -> str:
    """``a, b and c``; past ``limit``, ``a, b, c and 4 more``."""
    if len(items) > limit:
        return ", ".join(items[:limit]) + f" and {len(items) - limit} more"
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _lead_detail(detail: str) -> tuple[str, str, int]:
    """A ``slice_leads`` detail split into slice column, number of slices and shared leads (0 when absent)."""
    head, _, last = detail.rpartition("|")
    if "|" in head:
        col, _, n = head.rpartition("|")
        return col, n, int(float(last or 0))
    return head, last, 0


def _column_sentence(rows: pd.DataFrame, lead: pd.Series) -> str:
    """The sentence on one slice column: who leads which slices, and whether the leader's lead depends on them."""
    col, n, shared = _lead_detail(str(lead["detail"]))
    leader = f"**{escape(lead['system'])}**"
    by_best: dict[str, list[str]] = {}
    separated: list[str] = []
    unseparated: list[str] = []
    small: list[str] = []
    for _, r in rows[rows["finding"] == "slice_leader"].iterrows():
        c, name, verdict = _detail(r["detail"])
        if c != col:
            continue
        by_best.setdefault(str(r["system"]), []).append(escape(name))
        (separated if verdict == SEPARATED else unseparated).append(escape(name))
        if verdict == SMALL:
            small.append(escape(name))
    ranked = sorted(by_best.items(), key=lambda kv: -len(kv[1]))       # stable: first come first among equals
    clauses = [f"**{escape(b)}** on {_listed(names)}" for b, names in ranked[:MAX_LEADERS_NAMED]]
    if len(ranked) > MAX_LEADERS_NAMED:
        clauses.append(f"{counted(len(ranked) - MAX_LEADERS_NAMED, 'other system')} elsewhere")
    sharing = f" ({shared} of them shared: other systems have the same value there)" if shared else ""
    text = (f"{leader} leads on {int(float(lead['value']))} of {counted(int(n), 'slice')} of {escape(col)}{sharing}; "
            + "the best elsewhere: " + "; ".join(clauses) + ". ")
    if separated:
        rest = (f"; on {_listed(unseparated)} the difference is exploratory (not separated, or too small for the tests)"
                if unseparated else "")
        return text + (f"The paired tests, Holm-corrected within each slice, separate the slice's best from {leader} "
                       f"on {_listed(separated)}: {leader}'s lead depends on the slice{rest}")
    if len(small) == len(unseparated):      # no test was made on any of them
        return text + ("These slices are too small for the paired tests (too few items, or a gold class missing): "
                       "the differences by slice are exploratory")
    untested = f" ({_listed(small)}: too small for the tests)" if small else ""
    return text + (f"The paired tests, Holm-corrected within each slice, separate none of these from {leader}"
                   f"{untested}: the differences by slice are exploratory")


def slice_sentence(rows: pd.DataFrame, label: str) -> str:
    """The findings' item on slices (empty when the overall leader is the best of every slice).

    Parameters
    ----------
    rows : DataFrame
        The ``slice_leads``, ``slice_leader`` and ``slice_dependence`` rows of ``findings.csv``
        (:mod:`evalreport.analyses.slice_findings`).
    label : str
        The primary measure's label (already escaped for Markdown).

    Returns
    -------
    str
        Markdown: who leads where, and whether the leader's lead depends on the slice, by the tests
        Holm-corrected within each slice; a lead resting on no corrected test is called exploratory.
    """
    leads = rows[rows["finding"] == "slice_leads"]
    if leads.empty:
        return ""
    parts = [_column_sentence(rows, lead) for _, lead in leads.iterrows()]
    return f"**Slices:** under {label}, " + ". ".join(parts) + "."


class SliceSections(ReportBase):
    """The section on slices (``slices``, ``slice_leaders`` and ``slice_summary`` tables)."""

    @property
    def has_slices(self) -> bool:
        return not self.table("slices").empty

    def _slice_rows(self, name: str) -> pd.DataFrame:
        """The rows of table ``name`` under the primary measure, slice names as text."""
        t = self.table(name)
        if t.empty:
            return t
        t = t[t["measure"].astype(str) == self.primary] if "measure" in t else t
        for c in ("slice_col", "slice", "slice_a", "slice_b", "worst_slice", "best_slice"):
            if c in t:
                t[c] = t[c].astype(str)
        return t

    def _slice_cols(self) -> list[str]:
        return list(dict.fromkeys(self._slice_rows("slices")["slice_col"]))

    def _small(self) -> set[tuple[str, str]]:
        rows = self._slice_rows("slices")
        small = rows[_flags(rows["small"])]
        return set(zip(small["slice_col"], small["slice"]))

    def slices_heading(self) -> Heading | None:
        """The section's heading, or None without slices."""
        return Heading("Slices", level=2) if self.has_slices else None

    def slices_intro(self) -> Note | None:
        """One line: what a slice is here and how its values and tests were made."""
        if not self.has_slices:
            return None
        cols = ", ".join(f"`{escape(c)}`" for c in self._slice_cols())
        n = len(self._slice_rows("slices")[["slice_col", "slice"]].drop_duplicates())
        return Note(f"The test set cut by {cols} into {counted(n, 'slice')}: each system's "
                    f"{escape(self._label(self.primary))} on the items of each slice alone, with a paired bootstrap "
                    f"interval within the slice and the paired tests Holm-corrected within each slice; a slice "
                    f"marked {SMALL_MARK.strip()} has too few items, or lacks a gold class that a class average needs, for an "
                    "interval (its value is shown, not hidden).")

    def _charts(self, build, name: str, caption: str) -> Chart | None:
        rows = self._slice_rows("slices")
        if rows.empty:
            return None
        made = [build(rows, measure=self.primary, slice_col=c, systems=self.board_order) for c in self._slice_cols()]
        chart = made[0] if len(made) == 1 else alt.vconcat(*made, spacing=24)
        return Chart(chart, name=name, caption=caption)

    def slice_heatmap_chart(self) -> Chart | None:
        """Systems x slices under the primary measure, in leaderboard order; printed, the first
        :data:`~evalreport.report.sections.many_systems.MAX_PRINT_SYSTEMS` of them."""
        rows = self._slice_rows("slices")
        if rows.empty:
            return None
        caption = (f"{self._label(self.primary)} of every system on every slice (dark = better); the "
                   "outlined cell is the slice's best system. Hover a cell for its interval and item count.")

        def draw(systems: list[str], shown: pd.DataFrame = rows) -> alt.TopLevelMixin:
            # the colour scale of every system's values, printed (some systems) as live
            made = [slice_heatmap(shown, measure=self.primary, slice_col=c, systems=systems,
                                  domain=slice_value_domain(rows, measure=self.primary, slice_col=c))
                    for c in self._slice_cols()]
            return made[0] if len(made) == 1 else alt.vconcat(*made, spacing=24)

        top = print_systems(self.board_order)
        short = print_first(top, lambda: draw(top or [], rows[rows["system"].astype(str).isin(top or [])]), caption,
                            total=len(self.board_order),
                            ranked_by=self._label(self.primary), table="slices.csv")
        if short:
            short["print_caption"] += (" A slice whose best system is not among them has no outlined cell "
                                       "(slice_leaders.csv names its best).")
        return Chart(draw(self.board_order), name="slice-heatmap", caption=caption, **short)

    def slice_multiples_chart(self) -> Chart | None:
        """The per-slice leaderboards as small multiples."""
        return self._charts(slice_leaderboards, "slice-leaderboards",
                            "Each panel is one slice's leaderboard: a point per system with its interval within "
                            "the slice; orange marks the slice's best system.")

    def slice_leaders_table(self) -> Table | None:
        """Per slice: its items, its best system and value, and which systems the tests separate from it."""
        lead = self._slice_rows("slice_leaders")
        if lead.empty:
            return None
        small = _flags(lead["small"])

        def listed(cell) -> list[str]:
            return [x for x in str(cell).split("; ") if x] if isinstance(cell, str) else []

        def names(cell) -> str:
            found = listed(cell)
            return "; ".join(found) if len(found) <= MAX_NAMES else counted(len(found), "system")

        show = pd.DataFrame({
            "slice of": lead["slice_col"],
            "slice": [s + (SMALL_MARK if f else "") for s, f in zip(lead["slice"], small)],
            "items": pd.to_numeric(lead["n"], errors="coerce"),
            "best": [b + (f" (shared with {names(s)})" if isinstance(s, str) and s else "")
                     for b, s in zip(lead["best"].astype(object).where(lead["best"].notna(), "—").astype(str),
                                     lead["shared"] if "shared" in lead else [""] * len(lead))],
            self._label(self.primary): pd.to_numeric(lead["value"], errors="coerce"),
            "not separated from the best": lead["tied"].map(names),
            "separated from the best": lead["separated"].map(lambda c: len(listed(c))),
        })
        if show["slice of"].nunique() == 1:
            show = show.drop(columns="slice of")
        show["items"] = show["items"].map(lambda v: "" if pd.isna(v) else f"{int(v):,}")
        caption = (f"The best system of each slice under {self._label(self.primary)}; the systems that the paired "
                   f"tests, Holm-corrected within the slice, do not separate from it (named up to {MAX_NAMES}, else "
                   "counted) and how many they separate. slice_leaders.csv names every system.")
        if small.any():
            caption += (f" {SMALL_MARK.strip()}: a small slice, too few items or a gold class missing for an interval or a test (its best "
                        "is the highest value alone).")
        return Table(show, index=False, caption=caption)

    def slice_summary_table(self) -> Table | None:
        """Per system its worst and best slice, the ratio and difference between them, and its rank by the worst."""
        summ = self._slice_rows("slice_summary")
        if summ.empty:
            return None
        summ = self.by_board(summ).sort_values(["slice_col", "robustness_rank"], kind="stable")
        small = self._small()

        def mark(col: pd.Series, name: pd.Series) -> list[str]:
            return [n + (SMALL_MARK if (c, n) in small else "") for c, n in zip(col, name)]

        show = pd.DataFrame({
            "rank by worst slice": pd.to_numeric(summ["robustness_rank"], errors="coerce"),
            "system": summ["system"].astype(str),
            "slice of": summ["slice_col"],
            "worst slice": mark(summ["slice_col"], summ["worst_slice"]),
            "worst": pd.to_numeric(summ["worst_value"], errors="coerce"),
            "best slice": mark(summ["slice_col"], summ["best_slice"]),
            "best": pd.to_numeric(summ["best_value"], errors="coerce"),
            "min/max": pd.to_numeric(summ["min_max_ratio"], errors="coerce"),
            "max - min": pd.to_numeric(summ["max_difference"], errors="coerce"),
        })
        if show["slice of"].nunique() == 1:
            show = show.drop(columns="slice of")
        caption = (f"Robustness across slices under {self._label(self.primary)}: each system's worst and best slice, "
                   "the ratio of its lowest to its highest slice value (1 = the same on every slice, as fairlearn's "
                   "ratio) and their difference; systems ranked by their worst slice. The test of every pair of "
                   "slices of a system is in slice_gaps.csv.")
        if any((c, n) in small for c, n in zip(summ["slice_col"], summ["worst_slice"])) or \
                any((c, n) in small for c, n in zip(summ["slice_col"], summ["best_slice"])):
            caption += f" {SMALL_MARK.strip()}: a small slice (too few items or a gold class missing for an interval)."
        return Table(show, index=False, caption=caption,
                     formats={"rank by worst slice": lambda r: "" if pd.isna(r) else f"{r:g}"})

"""Several runs per system (seeds.ipynb): every run's value, the seed spread beside the item noise, and
Almost Stochastic Order between every pair; and the findings' sentence on seed spread."""
from __future__ import annotations

import numpy as np
import pandas as pd

from evalreport.charts.seeds import seed_spread_bars, seed_strip
from evalreport.escape import markdown as escape
from evalreport.measures import get
from evalreport.report.display import Chart, Note, Table
from evalreport.report.sections._core import ReportBase
from evalreport.words import counted

__all__ = ["SeedsSections", "seed_spread_sentence"]


def _fmt(v: float, digits: int = 3) -> str:
    return "—" if v is None or not np.isfinite(v) else f"{v:.{digits}f}"


def seed_spread_sentence(rows: pd.DataFrame, label: str) -> str:
    """The findings' item on seed spread (empty when no pair qualifies).

    Parameters
    ----------
    rows : DataFrame
        The ``seed_spread`` rows of ``findings.csv`` (system, value = the gap, detail = ``"<next>|<sd>"``).
    label : str
        The primary measure's label (already escaped for Markdown).

    Returns
    -------
    str
        Markdown: which neighbours on the leaderboard are closer than a seed's spread.
    """
    if rows.empty:
        return ""
    parts = []
    for _, r in rows.iterrows():
        other, _, sd = str(r["detail"]).partition("|")
        parts.append(f"**{escape(r['system'])}** and **{escape(other)}** differ by {_fmt(float(r['value']))}, "
                     f"less than the standard deviation over seeds ({_fmt(float(sd))})")
    what = "these neighbours" if len(parts) > 1 else "these two"
    return (f"**Seeds:** under {label}, " + "; ".join(parts) + f". Another set of seeds could reverse {what}: "
            "compare the runs' values in the section on several runs per system.")


class SeedsSections(ReportBase):
    """The section on several runs per system (``runs``, ``seed_spread`` and ``aso`` tables)."""

    def _primary_rows(self, name: str) -> pd.DataFrame:
        table = self.table(name)
        return table[table["measure"].astype(str) == self.primary] if "measure" in table else table

    def _second_level(self) -> str:
        """What each resample draws after the runs, in words (clusters of items, or items)."""
        if self._resampled() == "runs and clusters":
            return "whole clusters of test items (clustered items, several runs per system; the same clusters"
        return "the test items (the same items"

    def _unit(self) -> str:
        """What the item noise resamples: whole clusters of items, or items."""
        return "whole clusters of test items" if self._resampled() == "runs and clusters" else "test items"

    def seeds_note(self) -> Note:
        """What the leaderboard's values and intervals are with several runs, in words."""
        spread = self._primary_rows("seed_spread")
        if spread.empty:
            return Note("Each system has one run: there is no seed spread to show.")
        label = escape(self._label(self.primary))
        n = spread["n_runs"].astype(int)
        runs = f"{n.iloc[0]} runs each" if n.nunique() == 1 else f"{n.min()} to {n.max()} runs"
        seedy = spread[spread["seed_sd"].astype(float) > spread["item_se"].astype(float)]
        names = ", ".join(f"**{escape(s)}**" for s in self.in_board_order(seedy["system"]))
        text = (f"{counted(len(spread), 'system')} with {runs} (one per training seed). A system's value is the mean "
                f"of {label} over its runs; its interval comes from a two-level bootstrap: every resample draws each "
                f"system's runs with replacement, then {self._second_level()} for every run of every system), "
                "so it holds both the seed's and the test set's share of the uncertainty (Bouthillier et al. 2021). ")
        if len(seedy):
            text += (f"For {names} the seed spread is larger than the item noise: another seed moves "
                     f"{'its' if len(seedy) == 1 else 'their'} score more than another test set of the same size would.")
        else:
            text += "For every system the item noise is larger than the seed spread."
        if n.min() < 5:
            text += (" With fewer than five runs the spread between seeds is itself poorly known: the interval widens "
                     "as Student's t with one degree of freedom fewer than the runs, so it is wide when seeds matter.")
        text += (" The paired test of two systems counts each system's seed variance once and refers the difference "
                 "over its standard error to Student's t with Welch-Satterthwaite degrees of freedom (the pairwise "
                 "table's detail gives them), so it holds its level with few runs.")
        return Note(text)

    def seed_strip_chart(self) -> Chart | Note:
        """Every run's value under the primary measure beside the mean and its interval."""
        runs = self.table("runs")
        if runs.empty:
            return Note("No runs table: one run per system.")
        iv = self.table("intervals")
        chart = seed_strip(runs, measure=self.primary, intervals=iv if len(iv) else None,
                           higher_is_better=get(self.primary).higher_is_better,
                           unit="clusters" if self._resampled() == "runs and clusters" else "items")
        return Chart(chart, name="seed-strip",
                     caption="Each dot is one run (seed) of a system; the dark tick is the mean over its runs, the "
                             "line its interval. Hover a dot for the run's name and value.")

    def seed_spread_chart(self) -> Chart | Note:
        """The seed spread beside the item noise per system."""
        spread = self._primary_rows("seed_spread")
        if spread.empty or not np.isfinite(spread[["seed_sd", "item_se"]].to_numpy(float)).any():
            return Note("No seed spread or item noise to show (one run per system, or no resampling).")
        chart = seed_spread_bars(spread, measure=self.primary, higher_is_better=get(self.primary).higher_is_better)
        return Chart(chart, name="seed-spread",
                     caption="Seed spread: the standard deviation of a system's runs. Item noise: the bootstrap "
                             f"standard error of one run over the {self._unit()} (the mean over its runs).")

    def seed_spread_table(self) -> Table | Note:
        """The seed spread, item noise and standard error of the mean per system (primary measure)."""
        spread = self.by_board(self._primary_rows("seed_spread"))
        if spread.empty:
            return Note("No seed spread table.")
        show = pd.DataFrame({"system": spread["system"].astype(str), "runs": spread["n_runs"].astype(int),
                             "mean": spread["value"].astype(float), "seed SD": spread["seed_sd"].astype(float),
                             "item SE (one run)": spread["item_se"].astype(float),
                             "SE of the mean": spread["se"].astype(float)})
        return Table(show, index=False,
                     caption=f"{self._label(self.primary)}: the mean over runs, the standard deviation over runs "
                             f"(seed spread), the bootstrap standard error of one run over {self._unit()} (item noise) "
                             "and "
                             "the standard error of the mean from the two-level bootstrap; every run's value of every "
                             "measure is in runs.csv.")

    def aso_table(self) -> Table | Note:
        """eps_min of Almost Stochastic Order for every ordered pair, as a matrix in leaderboard order."""
        aso = self.table("aso")
        if aso.empty:
            return Note("Almost Stochastic Order was not computed (no resampling).")
        if aso["eps_min"].isna().all():
            return Note("Almost Stochastic Order needs at least two runs of each system it compares.")
        order = self.in_board_order(pd.concat([aso["system_a"], aso["system_b"]]))
        wide = aso.pivot(index="system_a", columns="system_b", values="eps_min").reindex(index=order, columns=order)
        wide.index.name = "A (row) vs B (column)"
        alpha = float(aso["alpha"].iloc[0])
        return Table(wide, caption="Almost Stochastic Order (Dror et al. 2019, with the violation ratio of del Barrio "
                                   "et al. 2018) of the runs' values under "
                                   f"{self._label(self.primary)}: each cell is eps_min, an upper bound at level "
                                   f"{alpha:.4g} on how far A's runs fall short of stochastically dominating B's "
                                   "(0: A better at every quantile; below 0.5: A almost stochastically better; 1: B "
                                   "better everywhere). The level is Bonferroni-corrected over the "
                                   f"{counted(len(order) * (len(order) - 1) // 2, 'pair')}, as Dror et al. (2019) "
                                   "recommend; aso.csv holds every pair.")

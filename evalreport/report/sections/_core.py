"""What every report section shares: the constants, the reader of the tables the build wrote,
and :class:`ReportBase` (the tables, the primary measure, the labels) that the mixins of this
package extend."""
from __future__ import annotations

import json
from collections.abc import Callable
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from evalreport.analyses.letters import CLUSTER_TEST, TEST_NAMES, TWO_LEVEL_CLUSTER_TEST, TWO_LEVEL_TEST
from evalreport.escape import csv_unquote
from evalreport.measures import get
from evalreport.report.section_tables import MIN_SYSTEMS_AGREEMENT, integer_ranks

#: Above this many classes the per-class chart shows the classes where systems differ most.
MAX_CLASSES_SHOWN = 24
#: Above this many classes the confusion matrices are not drawn (they would be unreadable).
MAX_CLASSES_CONFUSION = 12
#: Rows of a long list (undefined cases, counterexamples); the CSV files keep every row.
MAX_ROWS = 15

#: Columns that hold names, never numbers, whatever they look like.
_TEXT_COLUMNS = ("paper", "system", "system_a", "system_b", "class", "gold", "predicted", "measure", "measure_a",
                 "measure_b", "fold", "label", "members", "role", "path", "sha256")


def wide_scores(scores: pd.DataFrame, measures, systems) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The ``scores`` table (long: measure, system, value, undefined, reason) as three measures x
    systems frames in the given orders: the values, the mark of every cell that has no value (a
    defined average with a skipped class keeps its number, unmarked) and the 0/0 reason of each
    marked cell (empty elsewhere)."""
    def wide(column):
        return scores.pivot(index="measure", columns="system", values=column).reindex(index=list(measures),
                                                                                       columns=list(systems))

    values = wide("value")
    undefined = wide("undefined")
    mark = undefined.astype(object).where(undefined.notna(), False).astype(bool) & values.isna()
    return values, mark, wide("reason").astype(object).where(mark, "")


def _read(path: Path) -> pd.DataFrame:
    if not path.exists():
        return pd.DataFrame()
    # "n/a" verdicts and "NA" classes stay text; names stay text too ("1" is a system)
    df = pd.read_csv(path, keep_default_na=False, na_values=[""], dtype={c: str for c in _TEXT_COLUMNS})
    csv_unquote(df)    # names that looked like spreadsheet formulas were written with a leading '
    for col in ("reason", "counterexample", "detail", "note"):
        if col in df:
            # an all-empty column is read as float: cast before filling (pandas 4 refuses "" in a float column)
            df[col] = df[col].astype(object).where(df[col].notna(), "").astype(str)
    for col in ("undefined", "calibrated", "tied", "nan_last"):
        # flags only: measures.csv's "undefined" is the text of the undefined cases, kept as it is
        if col in df and df[col].dtype != bool and df[col].astype(str).str.lower().isin(["true", "false"]).all():
            df[col] = df[col].astype(str).str.lower().eq("true")
    return df


def leaderboard_columns(board: pd.DataFrame, p_label: str, *,
                        calibrated: bool) -> tuple[pd.DataFrame, bool, dict[str, Callable[[object], str]]]:
    """The columns of the leaderboard table that both reports show.

    Parameters
    ----------
    board : DataFrame
        The ``leaderboard`` table (rank, system, value, lo, hi; p_best, letters and rank_calibrated
        when computed).
    p_label : str
        The primary measure's label: the header of the value column.
    calibrated : bool
        Whether to show the rank after prevalence calibration.

    Returns
    -------
    show : DataFrame
        rank, system, the value, then the interval, P(best), letters and the calibrated rank when
        the board has them.
    has_letters : bool
        Whether some system has significance letters.
    formats : dict of str to callable
        The formats of the rank columns (a tied rank as ``1.5``, a missing one blank).
    """
    show = pd.DataFrame({"rank": integer_ranks(board["rank"]), "system": board["system"], p_label: board["value"]})
    if board["lo"].notna().any():
        show["interval"] = ["—" if pd.isna(lo) else f"[{lo:.3f}, {hi:.3f}]" for lo, hi in zip(board["lo"], board["hi"])]
    if "p_best" in board and board["p_best"].notna().any():
        show["P(best)"] = board["p_best"]
    has_letters = bool("letters" in board and board["letters"].map(lambda v: isinstance(v, str) and v != "").any())
    if has_letters:
        show["letters"] = board["letters"].map(lambda v: "—" if pd.isna(v) or v == "" else str(v))
    if calibrated:
        show["rank (calibrated)"] = integer_ranks(board["rank_calibrated"])
    if "rank_lo" in board and board["rank_lo"].notna().any():
        show["rank interval"] = rank_interval_texts(board)
    formats: dict[str, Callable[[object], str]] = {
        c: (lambda r: "" if pd.isna(r) else f"{r:g}") for c in ("rank", "rank (calibrated)") if c in show}
    return show, has_letters, formats


def rank_interval_texts(board: pd.DataFrame) -> list[str]:
    """``1–3`` (or ``2`` when both ends agree) per system; ``—`` where there is none."""
    out = []
    for lo, hi in zip(board["rank_lo"], board["rank_hi"]):
        if pd.isna(lo) or pd.isna(hi):
            out.append("—")
        else:
            out.append(f"{int(lo)}" if int(lo) == int(hi) else f"{int(lo)}–{int(hi)}")
    return out


class ReportBase:
    """The report folder and the facts every section uses: its tables, the primary measure, the
    measures shown and their labels."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        meta = self.folder / "report.json"
        self.meta = json.loads(meta.read_text(encoding="utf-8")) if meta.exists() else {}
        manifest = self.folder / "manifest.json"
        self.manifest = json.loads(manifest.read_text(encoding="utf-8")) if manifest.exists() else {}

    def table(self, name: str) -> pd.DataFrame:
        """The table ``name`` (``<name>.csv``; empty if absent), read once per report: every call
        returns a copy of it, so a section may change what it gets."""
        cache = self.__dict__.setdefault("_tables", {})
        if name not in cache:
            cache[name] = _read(self.folder / f"{name}.csv")
        return cache[name].copy()

    # ------------------------------------------------------------------ shared facts
    @cached_property
    def primary(self) -> str:
        return self.manifest.get("primary") or self.meta.get("primary", "macro_f1")

    @cached_property
    def measures(self) -> list[str]:
        return list(self.manifest.get("measures", []))

    @cached_property
    def board_order(self) -> list[str]:
        """Systems in leaderboard order (rank under the primary measure; ties as the table lists them):
        every table and chart that lists systems lists them so."""
        board = self.table("leaderboard")
        if board.empty or "rank" not in board:
            return []
        return list(board.sort_values("rank", kind="stable")["system"].astype(str))

    def in_board_order(self, systems) -> list[str]:
        """The distinct ``systems`` in leaderboard order, any not on the leaderboard after them."""
        pos = {s: i for i, s in enumerate(self.board_order)}
        return sorted(dict.fromkeys(map(str, systems)), key=lambda s: pos.get(s, len(pos)))

    def by_board(self, frame: pd.DataFrame, column: str = "system") -> pd.DataFrame:
        """``frame``'s rows with their ``column`` in leaderboard order (stable within a system)."""
        if frame.empty or column not in frame:
            return frame
        pos = {s: i for i, s in enumerate(self.board_order)}
        key = frame[column].astype(str).map(lambda s: pos.get(s, len(pos)))
        return frame.iloc[np.argsort(key.to_numpy(), kind="stable")]

    @property
    def _n_systems(self) -> int | None:
        """How many systems the report compares (None: no table says)."""
        if self.board_order:
            return len(self.board_order)
        scores = self.table("scores")
        return int(scores["system"].nunique()) if "system" in scores else None

    def _too_few_systems(self, what: str) -> str | None:
        """The sentence that replaces ``what`` below :data:`MIN_SYSTEMS_AGREEMENT` systems, else None."""
        n = self._n_systems
        if n is None or n >= MIN_SYSTEMS_AGREEMENT:
            return None
        pairs = n * (n - 1) // 2
        return (f"With {n} systems, {what} would rest on {pairs} pair{'s' if pairs != 1 else ''} of systems and could take only a "
                f"few values, so it is not shown (it needs at least {MIN_SYSTEMS_AGREEMENT} systems); the rank chart "
                "above shows each system's rank under every measure.")

    def _label(self, measure_id: str) -> str:
        try:
            return get(measure_id).label
        except Exception:
            return measure_id

    def _resampled(self) -> str:
        """What each bootstrap resample draws, in words: clusters, runs and items, or items."""
        settings = self.manifest.get("settings", {})
        if settings.get("cluster_col"):
            return "runs and clusters" if settings.get("runs_per_system") else "clusters"
        return "runs and items" if settings.get("runs_per_system") else "items"

    def _several_runs(self) -> bool:
        """Whether a system's value is the mean over several runs (the two-level bootstrap, over items or clusters)."""
        return self._resampled() in ("runs and items", "runs and clusters")

    def _test_name(self) -> str:
        """The reader's name of the pairwise test behind the letters, rank intervals and winners' leads."""
        test = self.meta.get("pairwise_test", "bootstrap")
        if test == "bootstrap" and self._resampled() == "runs and items":
            return TWO_LEVEL_TEST
        if test == "bootstrap" and self._resampled() == "runs and clusters":
            return TWO_LEVEL_CLUSTER_TEST
        if test == "bootstrap" and self._resampled() == "clusters":
            return CLUSTER_TEST       # as the pairwise table and the detectable-difference note name it
        return TEST_NAMES.get(test, test)

    @staticmethod
    def _calibration_changes_nothing(frame: pd.DataFrame, column: str) -> bool:
        """True when the calibrated rows of ``frame`` equal the raw ones (a balanced test set)."""
        if frame.empty or "calibrated" not in frame or frame["calibrated"].nunique() < 2:
            return False
        wide = frame.pivot_table(index=["system", "measure"], columns="calibrated", values=column, aggfunc="first")
        if wide.shape[1] < 2:
            return False
        raw, cal = wide[False].to_numpy(float), wide[True].to_numpy(float)
        same = np.isclose(raw, cal, rtol=0, atol=1e-9) | (np.isnan(raw) & np.isnan(cal))
        return bool(same.all())

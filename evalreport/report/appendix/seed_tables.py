"""The appendix's tables for several runs per system (training seeds): the seed spread beside the item
noise (``seed_spread.csv``) and Almost Stochastic Order between the systems (``aso.csv``, Dror et al.
2019), both under the primary measure, as target-free :class:`~.tables.TableSpec` models.

Both are compact: the seed spread is a one-column table (one row per system); ASO is a matrix of
eps_min (rows A, columns B, the systems numbered by their leaderboard position so that no name heads a
narrow column) while it fits a page (:func:`~.tables.systems_per_table` systems), and beyond that each
system against the next one on the leaderboard, both ways. Like the other appendix tables they show the
first :data:`~.tables.MAX_TABLE_SYSTEMS` systems of the leaderboard; the CSV files hold every one.
"""
from __future__ import annotations

import pandas as pd

from evalreport.report.appendix.numbers import REPORT_DIGITS, fmt
from evalreport.report.appendix.seeds import design_test, resampled
from evalreport.report.appendix.tables import (
    COLUMN_IN,
    GAP_IN,
    MAX_TABLE_SYSTEMS,
    Cell,
    Column,
    TableSpec,
    paper_measure_label,
    primary_decimals,
    systems_per_table,
)
from evalreport.report.sections.many_systems import shown_sentence

__all__ = ["seed_spread_table", "aso_tables", "seed_tables", "ASO_DIGITS"]

#: Decimals of eps_min (a ratio in [0, 1], compared with 0.5).
ASO_DIGITS = 2
#: Widths (in) of the ASO matrix's name column and value columns in a one-column table.
_ASO_NAME_IN, _ASO_COL_IN = 0.9, 0.42


def _board_systems(data) -> list[str]:
    """The systems in leaderboard order."""
    board = data.table("leaderboard")
    return list(board.sort_values("rank", kind="stable")["system"].astype(str)) if len(board) else []


def _primary(frame: pd.DataFrame, primary: str) -> pd.DataFrame:
    """``frame``'s rows of the primary measure (all rows where it has no measure column)."""
    return frame[frame["measure"].astype(str) == primary] if "measure" in frame else frame


def _shown(systems: list[str], table: str) -> tuple[list[str], str]:
    """The first systems the table shows, and the caption's sentence when that is not all of them."""
    if len(systems) <= MAX_TABLE_SYSTEMS:
        return systems, ""
    return systems[:MAX_TABLE_SYSTEMS], shown_sentence(MAX_TABLE_SYSTEMS, len(systems), table=table)


def seed_spread_table(data) -> list[TableSpec]:
    """Each system's runs, mean over runs, seed SD, item SE of one run and SE of the mean (primary measure).

    Parameters
    ----------
    data
        The report's tables (``seed_spread``, ``leaderboard``).

    Returns
    -------
    list of TableSpec
        One one-column table, or none with one run per system.
    """
    spread = _primary(data.table("seed_spread"), data.primary)
    if spread.empty:
        return []
    rows_by = {str(r["system"]): r for _, r in spread.iterrows()}
    board = _board_systems(data)
    order = [s for s in board if s in rows_by] + [s for s in rows_by if s not in set(board)]
    systems, shown = _shown(order, "seed_spread.csv")
    d = primary_decimals(data)
    rows = []
    for s in systems:
        r = rows_by[s]
        rows.append([Cell(s, kind="text"), Cell(str(int(r["n_runs"]))), Cell(fmt(r["value"], d) or "\u2014")]
                    + [Cell(fmt(r[k], REPORT_DIGITS) or "\u2014") for k in ("seed_sd", "item_se", "se")])
    unit = "whole clusters of test items" if resampled(data) == "runs and clusters" else "test items"
    cap = (f"Seed spread under {paper_measure_label(data.primary)}, in leaderboard order: each system's runs, the "
           f"mean over its runs (to {d} decimals, as the leaderboard), the standard deviation over its runs (seed "
           f"SD), the bootstrap standard error of one run over {unit} (item SE) and the standard error of the mean "
           f"from the {design_test(data, 'bootstrap')}; SD and SE to {REPORT_DIGITS} decimals. Every run's value "
           "of every measure is in runs.csv." + shown)
    # "Runs" in bold takes 21.8 pt at 8 pt, 23.7 pt at the 9 pt of an 11 pt paper: its column (0.33 in, 23.8 pt)
    # holds it unbroken; the mean (to the leaderboard's decimals) 0.36 in, the SD and SEs (3 decimals, 18.2 pt)
    # 0.32 in, but "mean" in bold (24.8 pt at 9 pt) 0.35 in; the name wraps
    cols = [Column("System", 0.82, "l"), Column("Runs", 0.33), Column("Mean", 0.36), Column("Seed SD", 0.32),
            Column("Item SE", 0.32), Column("SE of mean", 0.35)]
    return [TableSpec("seed-spread", cap, cols, rows, width="column", row_noun="system")]


def _eps_cell(value) -> Cell:
    """eps_min as a cell, in bold below 0.5 (the row's system almost stochastically better)."""
    if value is None or pd.isna(value):
        return Cell("\u2014")
    return Cell(fmt(value, ASO_DIGITS), bold=bool(float(value) < 0.5))


def _aso_words(data, aso: pd.DataFrame, pairs: int) -> str:
    """The caption's sentences on what eps_min is and at which level."""
    alpha = float(aso["alpha"].iloc[0])
    return (f"Almost Stochastic Order of the runs' values under {paper_measure_label(data.primary)} (Dror et al. "
            "2019): eps_min, an upper confidence bound at level "
            f"{alpha:.3g} (Bonferroni-corrected over the {pairs:,} pairs) on how far A's runs fall short of "
            "stochastically dominating B's: 0, A better at every quantile; below 0.5 (in bold), A almost "
            "stochastically better; 1, B better everywhere. Every ordered pair is in aso.csv.")


def aso_tables(data) -> list[TableSpec]:
    """eps_min of Almost Stochastic Order: a matrix (A rows, B columns) up to a page's systems, else each
    system against the next one on the leaderboard, both ways; a page-wide matrix comes with the pairs as
    its one-column form (``aso-column``, family ``aso``: :data:`~.tables.FORMS`) for a narrower text.

    Parameters
    ----------
    data
        The report's tables (``aso``, ``leaderboard``).

    Returns
    -------
    list of TableSpec
        One table (two forms of it for a page-wide matrix), or none without ASO bounds (one run per
        system, or no resampling).
    """
    aso = _primary(data.table("aso"), data.primary)
    if aso.empty or not aso["eps_min"].notna().any():
        return []
    eps = {(str(a), str(b)): v for a, b, v in zip(aso["system_a"], aso["system_b"], aso["eps_min"])}
    named = set(aso["system_a"].astype(str)) | set(aso["system_b"].astype(str))
    board = _board_systems(data)
    order = [s for s in board if s in named] + sorted(named - set(board))
    words = _aso_words(data, aso, len(order) * (len(order) - 1) // 2)
    if len(order) > systems_per_table():
        return [_aso_pairs(order, eps, words, "aso")]
    matrix = _aso_matrix(order, eps, words)
    if matrix.width == "column":
        return [matrix]
    # a page matrix is wider than a one-column paper's text: there the matrix with narrow columns, and in a
    # text narrower still the pairs (one column wide)
    forms = [matrix, _aso_matrix(order, eps, words, compact=True), _aso_pairs(order, eps, words, "aso-column")]
    for spec, form in zip(forms, ("page", "text", "column")):
        spec.family, spec.form = "aso", form
    return forms


def _aso_pairs(order: list[str], eps: dict, words: str, name: str) -> TableSpec:
    """Each system against the next one on the leaderboard, both ways: a one-column table."""
    systems, shown = _shown(order, "aso.csv")
    rows = [[Cell(str(i + 1)), Cell(a, kind="text"), _eps_cell(eps.get((a, b))), _eps_cell(eps.get((b, a)))]
            for i, (a, b) in enumerate(zip(systems, systems[1:]))]
    cap = (words + " Each system (A, with its leaderboard position) against the next one on the leaderboard (B)."
           + shown)
    cols = [Column("Pos.", 0.3), Column("System (A)", 1.16, "l"),
            # the headers as math take 40.2 pt at 8 pt, 42.7 pt at the 9 pt of an 11 pt paper: a 0.6 in (43.4 pt)
            # column holds them
            Column("A vs B", 0.6, math=(r"\varepsilon_{\min}(A,B)", "epsilon_(min)(A, B)")),
            Column("B vs A", 0.6, math=(r"\varepsilon_{\min}(B,A)", "epsilon_(min)(B, A)"))]
    return TableSpec(name, cap, cols, rows, width="column", row_noun="system")


def _aso_matrix(order: list[str], eps: dict, words: str, *, compact: bool = False) -> TableSpec:
    """The eps_min matrix of a few systems: one column wide where it fits, else the page; ``compact``: the
    narrow columns of the one-column matrix in a page float (``aso-text``)."""
    n = len(order)
    column = _ASO_NAME_IN + n * _ASO_COL_IN + 2 * GAP_IN * (n + 1) <= COLUMN_IN
    name_in, col_in = (_ASO_NAME_IN, _ASO_COL_IN) if column or compact else (1.55, 0.66)
    rows = [[Cell(f"{i + 1}. {a}", kind="text")] + [Cell("\u2014") if a == b else _eps_cell(eps.get((a, b)))
                                                     for b in order] for i, a in enumerate(order)]
    cap = words + (" Rows: system A, numbered by its leaderboard position; columns: system B, by the same "
                   "numbers.")
    cols = [Column("A vs B", name_in, "l")] + [Column(str(j + 1), col_in) for j in range(n)]
    return TableSpec("aso-text" if compact and not column else "aso", cap, cols, rows,
                     width="column" if column else "page", row_noun="system")


def seed_tables(data) -> list[TableSpec]:
    """The seed-spread and ASO tables (none with one run per system).

    Parameters
    ----------
    data
        The report's tables.

    Returns
    -------
    list of TableSpec
        In the order the appendix shows them.
    """
    return [*seed_spread_table(data), *aso_tables(data)]

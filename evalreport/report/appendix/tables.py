"""The appendix's tables as target-free models, built from the tables a report writes.

Each builder reads frames as :func:`evalreport.report.build.analyse` writes them (through the
report's own reader, so names come back as written) and returns :class:`TableSpec` objects:
columns with fixed widths in inches, rows of :class:`Cell`. :mod:`.latex` and :mod:`.typst`
render the same model, so the LaTeX and Typst appendices show the same numbers.

Widths are chosen, never scaled: a table made for one column (``width="column"``) has columns
whose widths plus the gaps between them add up to at most :data:`COLUMN_IN` (3.0 in: ACL's 3.03 in column), a page
table (``"page"``) to at most :data:`PAGE_IN` (6.9 in). Wide tables show less (the one-column
leaderboard: rank, system, value with its interval and letters) or are split (the measures x
systems table: at most :func:`systems_per_table` systems per table, several tables).

A table with a column per system comes in several forms (:data:`FORMS`), one for each text width it
is made for: the page of a two-column paper, the default ``article`` class's text, one column. The
forms hold the same cells, split into tables of fewer systems each (every table repeats the name
column); each table of a form carries the form's name and the name of its family
(:attr:`TableSpec.family`), and the writers set the widest form the paper's text holds.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evalreport.analyses.letters import letters_sentence, range_sentence
from evalreport.report.appendix.numbers import REPORT_DIGITS, decimals, fmt
from evalreport.report.appendix.seeds import design_test, interval_words
from evalreport.report.section_tables import BASELINE_WORDS
from evalreport.report.sections.many_systems import MAX_PRINT_SYSTEMS, shown_sentence

__all__ = ["Cell", "Column", "TableSpec", "COLUMN_IN", "PAGE_IN", "GAP_IN", "leaderboard",
           "measures_tables", "per_class_tables", "baselines_table", "systems_per_table", "build_all",
           "primary_decimals", "table_parts", "text_lines", "PART_HEIGHT_IN", "MAX_TABLE_SYSTEMS", "FORMS",
           "ARTICLE_IN", "system_forms", "form_width", "MIN_PART_ROWS", "name_col_in", "COLUMN_NAME_COL_IN"]

#: The width (in) a one-column table is made for: the narrowest column of the field's two-column venues, ACL's
#: (acl.sty: 16 cm text less a 0.6 cm gutter, 7.7 cm = 3.03 in; EMNLP, NAACL and SemEval papers alike), so that it
#: fits AAAI's 3.3 in and IEEE's 3.5 in columns too. A page table is made for 6.9 in (two 3.3 in columns and a
#: 0.3 in gutter on US letter).
COLUMN_IN, PAGE_IN = 3.0, 6.9
#: The text width of the default ``article`` class at 10 pt (345 pt), the one-column paper a table should fit.
ARTICLE_IN = 345 / 72.27
#: The forms of a table with a column per system, widest first: (name, the text width in inches it is made for).
FORMS = (("page", PAGE_IN), ("text", ARTICLE_IN), ("column", COLUMN_IN))
#: The fewest rows a part of a table split over pages holds (when the table has that many): no part with a
#: lone row.
MIN_PART_ROWS = 3
#: Space on each side of a column (LaTeX: ``\tabcolsep`` = 3 pt; Typst: cell inset 3 pt).
GAP_IN = 3 / 72.27
#: Width of one system's column in the measures x systems and per-class tables.
SYSTEM_COL_IN = 0.66
#: Width of the first column (measure or class names) of those tables.
NAME_COL_IN = 1.55
#: The first column of those tables in the column form: narrower, so that two systems fit :data:`COLUMN_IN`.
COLUMN_NAME_COL_IN = 1.4
#: The most systems the measures x systems and per-class tables show (the first of the leaderboard; the CSV
#: files hold them all): as many as the report's printed heatmaps, in at most six page tables.
MAX_TABLE_SYSTEMS = MAX_PRINT_SYSTEMS
#: The tallest part of a table (in), caption, header and rows: a float taller than the text runs off the page
#: (LaTeX: "Float too large"; Typst: over the bottom margin). The default article class on US letter has
#: 7.3 in of text; the rest is the float's spacing. A longer table continues in further parts.
PART_HEIGHT_IN = 6.9
#: Mean width (pt) of a character of the 8 pt table text, rounded up (names break only at their break
#: points, so a line holds fewer characters than fit): how many lines a name takes in its column.
_CHAR_PT = 4.6
#: Line pitch (pt) of the 8 pt table text and the padding of a row, the larger of LaTeX's and Typst's.
_LINE_PT, _ROW_PAD_PT = 10.5, 4.0


@dataclass
class Cell:
    """One table cell. ``kind``: ``num`` (our digits), ``text`` (a name from the data or our words).
    ``interval``: the (lo, hi) texts shown small after the value; ``rank``: shown small in
    parentheses; ``sup``: superscript letters (the compact letter display of the significance tests)."""

    text: str = ""
    kind: str = "num"
    bold: bool = False
    interval: tuple[str, str] | None = None
    rank: str = ""
    sup: str = ""


@dataclass
class Column:
    title: str
    width: float          # inches
    align: str = "r"      # "l" or "r"
    math: tuple[str, str] | None = None   # the title as math: (LaTeX, Typst), e.g. an estimator's name


@dataclass
class TableSpec:
    name: str             # file stem under tables/
    caption: str | list   # plain text, or segments as methods.render takes them (escaped by the renderer)
    columns: list[Column]
    rows: list[list[Cell]]
    width: str = "column"  # "column" or "page"
    notes: list[str] = field(default_factory=list)
    row_noun: str = "row"  # what a row is ("system", "class"), for a continued part's caption
    family: str = ""       # the name shared by every form of the table (:data:`FORMS`); "" for a table of one form
    form: str = ""         # the form's name ("page", "text", "column")
    label: str = ""        # the cross-reference label, if not tab:evalreport-NAME (one shared by a family's forms)

    def ref_label(self) -> str:
        """The table's cross-reference label."""
        return self.label or f"tab:evalreport-{self.name}"

    def total_width(self) -> float:
        """Inches the table takes: its columns plus a gap on each side of every column."""
        return sum(c.width for c in self.columns) + 2 * GAP_IN * len(self.columns)


def text_lines(text: str, width_in: float, *, char_pt: float = _CHAR_PT) -> int:
    """How many lines ``text`` takes in a column ``width_in`` inches wide, filled word by word.

    A word breaks only after ``_``, ``-``, ``.`` or ``/`` or at a change of case or between letters and
    digits (:func:`~evalreport.report.appendix.latex.breakable`); the estimate breaks there only, and a
    piece longer than a line takes as many lines as it needs.

    Parameters
    ----------
    text : str
        The cell's text.
    width_in : float
        The column's width in inches.
    char_pt : float
        The width of a character in points.

    Returns
    -------
    int
        At least 1.
    """
    import re

    per_line = max(1, int(width_in * 72 / char_pt))
    # (piece, whether a space comes before it)
    pieces = [(p, k == 0) for word in str(text).split()
              for k, p in enumerate(re.findall(r"[^_\-./]*[_\-./]+|[^_\-./]+", word))]
    lines, used = 1, 0
    for piece, spaced in pieces:
        need = len(piece) + (1 if used and spaced else 0)
        if used + need <= per_line:
            used += need
            continue
        if used:                           # the piece starts a new line
            lines, need = lines + 1, len(piece)
        while need > per_line:             # a piece longer than a line
            lines, need = lines + 1, need - per_line
        used = need
    return lines


def _row_pt(cells: list[Cell], columns: list[Column], *, char_pt: float = _CHAR_PT) -> float:
    """Estimated height (pt) of one row: its tallest cell."""
    tallest = 1
    for cell, col in zip(cells, columns):
        text = cell.text + (f" [{cell.interval[0]}, {cell.interval[1]}]" if cell.interval else "") + (
            f" ({cell.rank})" if cell.rank else "") + cell.sup
        tallest = max(tallest, text_lines(text, col.width, char_pt=char_pt))
    return _ROW_PAD_PT + _LINE_PT * tallest


def _caption_pt(spec: TableSpec) -> float:
    """Estimated height (pt) of the caption across the table's width (caption segments taken as text)."""
    text = spec.caption if isinstance(spec.caption, str) else " ".join(str(getattr(s, "text", s)) for s in spec.caption)
    width = COLUMN_IN if spec.width == "column" else PAGE_IN
    return _LINE_PT * text_lines(text, width) + 2 * _LINE_PT


def table_parts(spec: TableSpec, *, height_in: float = PART_HEIGHT_IN) -> list[tuple[int, list[list[Cell]]]]:
    """The table's rows in parts that each fit a page: ``(index of the part's first row, rows)``.

    The first part carries the caption; each part repeats the header, and a continued part has a
    one-line caption. Every part holds at least one row.

    Parameters
    ----------
    spec : TableSpec
        The table.
    height_in : float
        The most a part may take, caption, header and rows (:data:`PART_HEIGHT_IN`).

    Returns
    -------
    list of (int, list of rows)
        One part when the whole table fits.
    """
    header = _row_pt([Cell(c.title, kind="text") for c in spec.columns], spec.columns, char_pt=_CHAR_PT * 1.15)
    room = height_in * 72 - header
    budget = room - _caption_pt(spec)
    parts: list[tuple[int, list[list[Cell]]]] = []
    start, used = 0, 0.0
    for i, row in enumerate(spec.rows):
        h = _row_pt(row, spec.columns)
        if i > start and used + h > budget:
            parts.append((start, spec.rows[start:i]))
            start, used, budget = i, 0.0, room - 3 * _LINE_PT
        used += h
    parts.append((start, spec.rows[start:]))
    return _no_lone_rows(parts, spec.rows)


def _no_lone_rows(parts: list[tuple[int, list[list[Cell]]]], rows: list[list[Cell]]) -> list[tuple[int, list[list[Cell]]]]:
    """``parts`` with rows moved from the one before the last to the last, so that no continued part holds
    fewer than :data:`MIN_PART_ROWS` rows (a part only gives rows it can spare: it keeps as many)."""
    if len(parts) < 2:
        return parts
    (a, before), (b, last) = parts[-2], parts[-1]
    need = min(MIN_PART_ROWS, len(before) + len(last) - MIN_PART_ROWS) - len(last)
    if need <= 0:
        return parts
    cut = b - need
    return [*parts[:-2], (a, rows[a:cut]), (cut, rows[cut:b + len(last)])]


def continued_text(spec: TableSpec, first: int, rows: int) -> str:
    """What a continued part's caption says after the table's number: which rows it holds.

    Parameters
    ----------
    spec : TableSpec
        The table.
    first : int
        The index of the part's first row.
    rows : int
        How many rows the part holds.

    Returns
    -------
    str
        E.g. ``", continued: systems 41-80 of 100."``
    """
    noun = spec.row_noun + "s"
    return f", continued: {noun} {first + 1}\u2013{first + rows} of {len(spec.rows):,}."


def paper_measure_label(measure_id: str) -> str:
    """A measure's name as the appendix writes it.

    Parameters
    ----------
    measure_id : str
        A registry id.

    Returns
    -------
    str
        The label of :func:`~evalreport.report.appendix.sources.paper_label`.
    """
    from evalreport.report.appendix.sources import paper_label

    return paper_label(measure_id)


def rank_cell(r: float) -> str:
    """A rank as a table cell.

    Parameters
    ----------
    r : float
        A rank (a tie's rank is fractional), or NaN where there is none.

    Returns
    -------
    str
        The rank without trailing zeros (``2``, ``2.5``), or empty.
    """
    return "" if pd.isna(r) else f"{float(r):g}"


def primary_decimals(data) -> int:
    """The decimals of the primary measure's column (its intervals; :mod:`.numbers`)."""
    board = data.table("leaderboard")
    return decimals(board["lo"], board["hi"]) if len(board) else REPORT_DIGITS


def leaderboard(data) -> list[TableSpec]:
    """The leaderboard under the primary measure: a one-column table (rank, system, value
    [interval] with the compact letter display of the significance tests as superscript letters) and a
    page table that adds P(best) and the prevalence-calibrated value and rank. The captions name the
    comparison's design (:func:`~.seeds.design_test`): with several runs per system the intervals and
    letters come from the two-level bootstrap, not the paired one."""
    board = data.table("leaderboard")
    primary = data.primary
    d = primary_decimals(data)
    has_iv = board["lo"].notna().any()
    has_groups = "letters" in board and board["letters"].map(lambda v: isinstance(v, str) and v != "").any()
    best = board["value"].notna() & (board["rank"] == board["rank"].min())
    cells = []
    for i, row in board.iterrows():
        iv = (fmt(row["lo"], d), fmt(row["hi"], d)) if has_iv and pd.notna(row["lo"]) else None
        value = Cell(fmt(row["value"], d) or "\u2014", bold=bool(best[i]), interval=iv,
                     sup=str(row["letters"]) if has_groups and pd.notna(row["letters"]) else "")
        cells.append((Cell(rank_cell(row["rank"])), Cell(str(row["system"]), kind="text"), value, row))
    what = f"{paper_measure_label(primary)}"
    alpha = data.settings.get("alpha", 0.05)
    cap = f"Leaderboard under {what}, best first; the best value in bold."
    if has_iv:
        cap += f" In brackets: the {100 * (1 - alpha):g}% {interval_words(data)} percentile interval."
    if has_groups:
        sentence = letters_sentence(design_test(data), alpha)
        cap += " Superscript letters: s" + sentence[1:] + range_sentence(board["letters"])
    cap += f" Values to {d} decimals (the rounding rule is in the methods paragraph)."
    narrow = TableSpec("leaderboard-column", cap,
                       # the value column holds the value, its interval and the letters; "Rank" in bold takes
                       # 24.8 pt at the 9 pt of an 11 pt paper (ACL's); the name wraps
                       [Column("Rank", 0.35), Column("System", 1.15, "l"), Column(_short(primary), 1.25)],
                       [[r, s, v] for r, s, v, _ in cells], width="column", row_noun="system")
    page_cols = [Column("Rank", 0.35), Column("System", 2.0, "l"), Column(_short(primary), 1.5)]
    has_pbest = "p_best" in board and board["p_best"].notna().any()
    if has_pbest:
        page_cols.append(Column("P(best)", 0.6))
    page_cols += [Column("Calibrated", 0.8), Column("Rank (cal.)", 0.7)]
    dc = decimals(board["lo"], board["hi"])
    rows = []
    for r, s, v, row in cells:
        line = [r, s, v]
        if has_pbest:
            line.append(Cell(fmt(row["p_best"], 2)))
        line += [Cell(fmt(row.get("value_calibrated"), dc) or "\u2014"), Cell(rank_cell(row.get("rank_calibrated")))]
        rows.append(line)
    page_cap = cap + (" P(best): the share of bootstrap resamples in which the system ranks first." if has_pbest
                      else "") + " Calibrated: the value and rank after prevalence calibration (Opitz (2022), eq.\u00a05\u20136)."
    return [narrow, TableSpec("leaderboard-page", page_cap, page_cols, rows, width="page", row_noun="system")]


def _short(measure_id: str) -> str:
    from evalreport.measures.labels import short_measure_label

    return short_measure_label(measure_id)


def name_col_in(width_in: float) -> float:
    """The width (in) of the name column of a table with a column per system made for ``width_in`` inches of text.

    Parameters
    ----------
    width_in : float
        The text width the table's form is made for (:data:`FORMS`).

    Returns
    -------
    float
        :data:`COLUMN_NAME_COL_IN` for the column form, else :data:`NAME_COL_IN`.
    """
    return COLUMN_NAME_COL_IN if width_in <= COLUMN_IN + 1e-9 else NAME_COL_IN


def systems_per_table(width_in: float = PAGE_IN) -> int:
    """How many system columns fit beside the name column in a table of ``width_in`` inches."""
    room = width_in - name_col_in(width_in) - 2 * GAP_IN
    return max(1, int(room // (SYSTEM_COL_IN + 2 * GAP_IN)))


def form_width(specs: list[TableSpec]) -> float:
    """The text width (in) a form's tables need: the widest of them."""
    return max((s.total_width() for s in specs), default=0.0)


def system_forms(family: str, systems: list, build, *, per_table=systems_per_table) -> list[TableSpec]:
    """Every form (:data:`FORMS`) of a table with a column per system (or per task, per method), widest first.

    Each form splits ``systems`` into as few tables as hold at most ``per_table(width)`` of them; a form
    whose text the wider form's tables fit already is left out (the page form is always there).

    Parameters
    ----------
    family : str
        The tables' file stem (``measures``): the page form's tables are ``measures`` or ``measures-1``,
        ``measures-2``, ...; another form's add its name (``measures-text-1``).
    systems : list
        The systems, in the order the tables show them.
    build : callable
        ``build(parts, name, width_in)`` -> one TableSpec per part: ``parts`` the systems of each table,
        ``name(k)`` the file stem of the k-th (from 1), ``width_in`` the text width the form is made for.
    per_table : callable
        How many columns fit a table of a given width (:func:`systems_per_table`).

    Returns
    -------
    list of TableSpec
        The tables of every form, each with ``family`` and ``form`` set.
    """
    out: list[TableSpec] = []
    last: list[TableSpec] = []
    for form, width in FORMS:
        if last and form_width(last) <= width:      # the wider form fits this text too
            continue
        parts = even_chunks(systems, per_table(width))
        stem = family if form == FORMS[0][0] else f"{family}-{form}"

        def name(k: int, stem: str = stem, several: bool = len(parts) > 1) -> str:
            return f"{stem}-{k}" if several else stem

        last = build(parts, name, width)
        for spec in last:
            spec.family, spec.form = family, form
        out += last
    return out


def even_chunks(items: list, size: int) -> list[list]:
    """``items`` in as few parts of at most ``size`` as possible, of nearly equal length.

    Parameters
    ----------
    items : list
        What to split (systems, tasks).
    size : int
        The most items a part may hold.

    Returns
    -------
    list of list
        The parts, in order (8 systems with room for 7: 4 + 4, not 7 + 1; 25 with room for 4:
        4 + 4 + 4 + 4 + 3 + 3 + 3, not six of 4 and one of 1).
    """
    n = max(1, -(-len(items) // size))
    q, r = divmod(len(items), n)           # r parts of q + 1, then parts of q (25 with room for 4: 4 x 4 + 3 x 3)
    ends = [k * q + min(k, r) for k in range(n + 1)]
    return [items[a:b] for a, b in zip(ends, ends[1:]) if b > a]


def measures_tables(data) -> list[TableSpec]:
    """Every measure (rows) for every system (columns, split into tables in each form of :data:`FORMS`): the
    value with the system's rank under the measure in parentheses, rank 1 in bold. One ``d`` per
    measure (row), from that measure's intervals, the same in every form."""
    scores = data.table("scores")
    scores = scores[~scores["calibrated"].astype(bool)]
    ranks = data.table("ranks")
    ranks = ranks[~ranks["calibrated"].astype(bool)].set_index(["system", "measure"])["rank"]
    iv = data.table("intervals")
    board = data.table("leaderboard")
    systems = list(board["system"]) if len(board) else list(dict.fromkeys(scores["system"]))
    measures = list(dict.fromkeys(scores["measure"]))
    value = scores.set_index(["system", "measure"])["value"]
    shown = shown_sentence(MAX_TABLE_SYSTEMS, len(systems), table="scores.csv") \
        if len(systems) > MAX_TABLE_SYSTEMS else ""
    systems = systems[:MAX_TABLE_SYSTEMS]
    digits = {}
    for m in measures:
        sub = iv[iv["measure"] == m] if len(iv) else iv
        digits[m] = decimals(sub["lo"], sub["hi"]) if len(sub) else REPORT_DIGITS

    def build(parts: list[list], name, width_in: float) -> list[TableSpec]:
        return [_measures_part(parts, k, name(k), measures, digits, value, ranks, shown, name_col_in(width_in))
                for k in range(1, len(parts) + 1)]

    return system_forms("measures", systems, build)


def _measures_part(parts, k: int, name: str, measures, digits, value, ranks, shown: str,
                   name_in: float = NAME_COL_IN) -> TableSpec:
    """The k-th table (from 1) of the measures x systems table split into ``parts``."""
    part = parts[k - 1]
    rows = []
    for m in measures:
        arrow = "\u2191" if _higher(m) else "\u2193"
        line = [Cell(f"{_short(m)} {arrow}", kind="text")]
        for s in part:
            v = value.get((s, m), np.nan)
            r = ranks.get((s, m), np.nan)
            line.append(Cell(fmt(v, digits[m]) or "\u2014", bold=bool(r == 1), rank=rank_cell(r)))
        rows.append(line)
    cap = ("Every measure (rows; \u2191 higher is better, \u2193 lower is better) for every system" + _which(parts, k) +
           ", in the leaderboard's order; in parentheses the system's rank under the measure (1 = best, in bold). "
           "A dash: undefined (0/0). Decimals per measure from its bootstrap intervals." + shown)
    cols = [Column("Measure", name_in, "l")] + [Column(str(s), SYSTEM_COL_IN) for s in part]
    return TableSpec(name, cap, cols, rows, width="page", row_noun="measure")


def _which(parts: list[list], k: int) -> str:
    """The caption's words on which systems the k-th of ``parts`` holds (none when there is one part)."""
    if len(parts) < 2:
        return ""
    first = sum(len(p) for p in parts[:k - 1])
    return f" (systems {first + 1}-{first + len(parts[k - 1])} of {sum(len(p) for p in parts)})"


def _higher(measure_id: str) -> bool:
    from evalreport.measures import get

    try:
        return get(measure_id).higher_is_better
    except Exception:
        return True


def per_class_tables(data, *, metric: str = "f1") -> list[TableSpec]:
    """Per-class ``metric`` (rows: classes; columns: systems, in the forms of :func:`measures_tables`),
    the best system of each class in bold; the report's 3 decimals (no per-class intervals)."""
    pc = data.table("per_class")
    if pc.empty:
        return []
    pc = pc[pc["metric"] == metric]
    board = data.table("leaderboard")
    systems = list(board["system"]) if len(board) else list(dict.fromkeys(pc["system"]))
    classes = list(dict.fromkeys(pc["class"]))
    shown = shown_sentence(MAX_TABLE_SYSTEMS, len(systems), table="per_class.csv") \
        if len(systems) > MAX_TABLE_SYSTEMS else ""
    systems = systems[:MAX_TABLE_SYSTEMS]
    wide = pc.pivot_table(index="class", columns="system", values="value", aggfunc="first").reindex(
        index=classes, columns=systems)
    best = wide.max(axis=1)
    name = {"f1": "F1", "recall": "recall", "precision": "precision"}.get(metric, metric)

    def build(parts: list[list], stem, width_in: float) -> list[TableSpec]:
        out = []
        for k, part in enumerate(parts, 1):
            rows = [[Cell(str(c), kind="text")] + [
                Cell(fmt(wide.at[c, s], REPORT_DIGITS) or "\u2014",
                     bold=bool(pd.notna(wide.at[c, s]) and wide.at[c, s] == best[c])) for s in part] for c in classes]
            cap = (f"Per-class {name} of every system{_which(parts, k)}; the best system of each class in bold, a dash "
                   f"where it is undefined (0/0). No intervals per class: {REPORT_DIGITS} decimals, as in the report."
                   + shown)
            cols = [Column("Class", name_col_in(width_in), "l")] + [Column(str(s), SYSTEM_COL_IN) for s in part]
            out.append(TableSpec(stem(k), cap, cols, rows, width="page", row_noun="class"))
        return out

    return system_forms(f"per-class-{metric}", systems, build)


def baselines_table(data) -> list[TableSpec]:
    """What trivial and random systems score under the primary measure, next to the best system; in
    the primary column's decimals so that the numbers line up with the leaderboard."""
    base = data.table("baselines")
    if base.empty:
        return []
    base = base[(base["measure"] == data.primary) & ~base["baseline"].astype(str).str.startswith("constant:")]
    if base.empty:
        return []
    d = primary_decimals(data)
    rows = [[Cell(BASELINE_WORDS.get(str(b), str(b)), kind="text"), Cell(fmt(v, d) or "\u2014"),
             Cell(str(m).replace("_", " "), kind="text")]
            for b, v, m in zip(base["baseline"], base["value"], base["method"])]
    board = data.table("leaderboard")
    if len(board):
        rows.append([Cell(f"best system ({board['system'].iloc[0]})", kind="text"), Cell(fmt(board["value"].iloc[0], d)),
                     Cell("observed", kind="text")])
    cap = (f"Chance baselines under {paper_measure_label(data.primary)}: what a trivial or random system scores "
           "(exact, linear in the cells, or Monte Carlo), with the best system for comparison.")
    return [TableSpec("baselines", cap, [Column("Baseline", 1.5, "l"), Column("Value", 0.55),
                                         Column("Method", 0.65, "l")], rows, width="column")]


def build_all(data) -> list[TableSpec]:
    """Every table of the appendix, in the order ``appendix.tex`` shows them."""
    from evalreport.report.appendix.crossval import cv_table
    from evalreport.report.appendix.seed_tables import seed_tables
    from evalreport.report.appendix.slices import slices_tables

    return [*leaderboard(data), *seed_tables(data), *cv_table(data), *measures_tables(data), *per_class_tables(data),
            *baselines_table(data), *slices_tables(data, forms=True)]

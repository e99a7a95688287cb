"""The measure-audit section of the report: the property matrix, the property legend and the
counterexamples a reader asks for, computed from audit.csv.

What a cell says. The verdict is the one under the report's undefined-value policy (audit.csv's
rows whose ``policy_of`` names the report). A ✗ that holds where every class occurs in the gold
labels reads ``✗¹``, one that holds where every class also occurs in the predictions ``✗²``
(:func:`evalreport.analyses.audit.conditions.mark`; the caption gives the footnotes). Where the
paper's own policy gives another mark, it follows in parentheses: ``✗² (✓)``. The report knows
which condition its data meets (:func:`data_condition`) and answers ``--needs`` under it.

Properties are named as the CLI names them (``goesgens.CB``: ``evalreport audit --properties``,
``evalreport report --needs``), in words (``constant baseline``) and with their definition
(the first sentence of the check's docstring in :mod:`evalreport.analyses.audit.properties`),
so that nobody needs the papers to read the table. In HTML the matrix's column headers link to
the legend rows (:class:`LinkedTable`).
"""
from __future__ import annotations

import re

import pandas as pd

from evalreport import escape
from evalreport.analyses.audit import PAPER_POLICY, PAPERS, PROPERTIES
from evalreport.analyses.audit.conditions import COLUMNS as CONDITION_COLUMNS, WORDS as CONDITION_WORDS, footnotes, mark
from evalreport.measures import get
from evalreport.measures.references import author_year, works_for_source
from evalreport.report.display import Table

MARK = {"satisfied": "✓", "violated": "✗", "n/a": "n/a"}


def cli_name(paper: str, prop: str) -> str:
    """``goesgens`` + ``CB`` -> ``goesgens.CB``: what ``--properties`` and ``--needs`` accept."""
    return f"{paper}.{prop}"


def anchor(name: str) -> str:
    """HTML id of a property's legend row."""
    return "audit-" + re.sub(r"[^A-Za-z0-9_-]+", "-", name)


def _first_sentence(doc: str | None) -> str:
    text = " ".join((doc or "").strip().split("\n\n")[0].split())
    m = re.match(r"(.*?\.)(?=\s+[A-Z]|$)", text)
    text = m.group(1) if m else text
    # "Definition 8 (exact): ..." / "Axiom 1: ..." -> the statement only (name and source have columns)
    return re.sub(r"^(Axiom|Property|Definition)\b[^:]{0,60}:\s*", "", text)


def legend(names: list[str]) -> pd.DataFrame:
    """One row per property (CLI name): its name in words with where the paper defines it, its definition."""
    rows = []
    for name in names:
        key, _, pid = name.partition(".")
        p = PROPERTIES.get(pid)
        if p is None or p.paper != key:
            rows.append((name, "", ""))
            continue
        rows.append((name, f"{p.title} ({p.ref})", _first_sentence(p.check.__doc__)))
    return pd.DataFrame(rows, columns=["property", "name", "definition"])


def papers_sentence(names) -> str:
    """Which paper each prefix of the property names stands for: ``opitz: Opitz (2022)``, the
    author and year of its bibliography entry."""
    keys = list(dict.fromkeys(n.partition(".")[0] for n in names))
    return "; ".join(f"{k}: {author_year(works_for_source(PAPERS[k])[0])}" for k in keys if k in PAPERS)


def _label(measure_id: str) -> str:
    try:
        return get(measure_id).label
    except Exception:
        return measure_id


def _is_binary(measure_id: str) -> bool:
    try:
        return get(measure_id).kind == "binary"
    except Exception:
        return False


def _order_props(names) -> list[str]:
    pos = {cli_name(p.paper, p.id): i for i, p in enumerate(PROPERTIES.values())}
    return sorted(dict.fromkeys(names), key=lambda n: pos.get(n, len(pos)))


def _indexed(au: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    """``au`` with each row's property name, and the positions of its rows by (measure, setting)."""
    names: dict = {}
    paper, prop = au["paper"].astype(str).tolist(), au["property"].astype(str).tolist()
    au = au.assign(name=[names.get(k) or names.setdefault(k, cli_name(*k)) for k in zip(paper, prop)])
    rows: dict = {}
    for i, key in enumerate(zip(au["measure"].tolist(), au["setting"].tolist())):
        rows.setdefault(key, []).append(i)
    return au, rows


def data_condition(prevalence: pd.DataFrame, confusion: pd.DataFrame) -> str | None:
    """The strongest condition of :mod:`evalreport.analyses.audit.conditions` the report's data
    meets: ``"every"`` if every class occurs in the gold labels and in every system's predictions,
    ``"gold"`` if in the gold labels, None otherwise (or when the tables are missing)."""
    if prevalence.empty or not {"class", "count"} <= set(prevalence.columns):
        return None
    classes = set(prevalence["class"].astype(str))
    if not classes or (pd.to_numeric(prevalence["count"]) <= 0).any():
        return None
    if confusion.empty or not {"system", "predicted", "count"} <= set(confusion.columns):
        return "gold"
    used = confusion[pd.to_numeric(confusion["count"]) > 0]
    predicted = used.groupby("system")["predicted"].agg(lambda v: set(v.astype(str)))
    systems = set(confusion["system"])
    if len(predicted) == len(systems) and all(classes <= p for p in predicted):
        return "every"
    return "gold"


def condition_words(condition: str | None) -> str:
    """How a caption names the condition the verdicts are read under."""
    return CONDITION_WORDS[condition] if condition else "a class may be absent from the gold labels"


def policy_rows(au: pd.DataFrame, which: str) -> pd.DataFrame:
    """The rows of a report's audit.csv under the ``"report"``'s or the ``"paper"``'s own policy
    (column ``policy_of``; a frame without it, e.g. of ``evalreport audit``, is both)."""
    if "policy_of" not in au.columns:
        return au
    return au[au["policy_of"].astype(str).str.contains(which, regex=False)].reset_index(drop=True)


def verdicts(au: pd.DataFrame, setting: str, measures: list[str], primary: str,
             column: str = "verdict") -> tuple[pd.DataFrame, dict]:
    """Measures (ids, primary first) x properties (CLI names) of verdicts in ``setting`` (the
    frame's ``column``: ``verdict`` or a restricted one); a binary measure that the setting cannot
    evaluate (all n/a) takes its binary-setting verdicts (it is computed on the positive class).
    Also returns {measure: setting used}."""
    (wide,), used = _verdict_frames(au, setting, measures, primary, (column,))
    return wide, used


def _verdict_frames(au: pd.DataFrame, setting: str, measures: list[str], primary: str,
                    columns: tuple[str, ...]) -> tuple[list[pd.DataFrame], dict]:
    """:func:`verdicts` for several columns in one pass over the measures (one frame per column)."""
    au, where = _indexed(au)
    present = set(au["measure"])
    order = list(dict.fromkeys([primary] + [m for m in measures if m in present]
                               + list(dict.fromkeys(au["measure"]))))
    order = [m for m in order if m in present]
    rows: list[dict] = [{} for _ in columns]
    used: dict = {}
    for m in order:
        sub = au.iloc[where.get((m, setting), [])]
        if (sub.empty or (sub["verdict"] == "n/a").all()) and setting != "binary" and _is_binary(m):
            alt = au.iloc[where.get((m, "binary"), [])]
            if not alt.empty:
                sub, used[m] = alt, "binary"
        used.setdefault(m, setting)
        one = sub.drop_duplicates("name").set_index("name")
        for k, column in enumerate(columns):
            col = one[column] if column in one.columns else one["verdict"]
            # (a frame computed without the restricted verdicts: the verdict on all matrices)
            text = col.astype(str)
            rows[k][m] = col.where(col.notna() & text.ne("") & text.ne("nan"), one["verdict"])
    frames = []
    for r in rows:
        wide = pd.DataFrame(r).T
        frames.append(wide.reindex(columns=_order_props(wide.columns)).fillna("n/a") if not wide.empty else wide)
    return frames, used


def marks(au: pd.DataFrame, setting: str, measures: list[str], primary: str) -> tuple[pd.DataFrame, dict]:
    """Measures x properties of the marks a cell shows (see the module): the report-policy verdict
    with its condition qualifier, then the paper-policy mark where it differs. Also returns
    {measure: setting used}."""
    columns = ("verdict", CONDITION_COLUMNS["gold"], CONDITION_COLUMNS["every"])
    (wide, gold, every), used = _verdict_frames(policy_rows(au, "report"), setting, measures, primary, columns)
    if wide.empty:
        return wide, used
    gold, every = gold.reindex_like(wide), every.reindex_like(wide)
    shown = wide.copy()
    for c in wide.columns:
        shown[c] = [mark(v, g, e) for v, g, e in zip(wide[c], gold[c].fillna(""), every[c].fillna(""))]
    if "policy_of" in au.columns and au["policy_of"].astype(str).ne("paper, report").any():
        pw, pg, pe = (f.reindex_like(wide) for f in
                      _verdict_frames(policy_rows(au, "paper"), setting, measures, primary, columns)[0])
        for c in wide.columns:
            other = [mark(v, g, e) if isinstance(v, str) else "" for v, g, e in
                     zip(pw[c], pg[c].fillna(""), pe[c].fillna(""))]
            shown[c] = [f"{m} ({o})" if o and o != m else m for m, o in zip(shown[c], other)]
    return shown, used


def paper_policies(names) -> str:
    """``"zero for opitz.*"``: the paper policies of the properties ``names`` (CLI names)."""
    keys = list(dict.fromkeys(n.partition(".")[0] for n in names))
    return ", ".join(f"{PAPER_POLICY[k]} for {k}.*" for k in keys if k in PAPER_POLICY)


def notes_for(cells) -> list[str]:
    """The footnotes of the qualified marks among ``cells`` (see :func:`~.conditions.footnotes`)."""
    return footnotes(cells)


def matrix(au: pd.DataFrame, setting: str, measures: list[str], primary: str):
    """The audit matrix as shown: ``(table, notes)`` with the table's rows the measure labels and
    its columns the properties where the measures differ (cells: :func:`marks`); ``notes`` are
    sentences for what was left out (properties every measure has or lacks without qualification,
    rows or columns of n/a only)."""
    wide, used = marks(au, setting, measures, primary)
    notes: list[str] = []
    if wide.empty:
        return wide, notes
    all_na_rows = [m for m in wide.index if (wide.loc[m] == "n/a").all()]
    if all_na_rows:
        notes.append(f"Not evaluable in the {setting} setting (left out): "
                     + ", ".join(_label(m) for m in all_na_rows) + ".")
        wide = wide.drop(index=all_na_rows)
    all_na_cols = [c for c in wide.columns if (wide[c] == "n/a").all()]
    if all_na_cols:
        notes.append("Not evaluable for any measure here (left out): " + ", ".join(all_na_cols) + ".")
        wide = wide.drop(columns=all_na_cols)
    if len(wide) > 1:
        every = [c for c in wide.columns if (wide[c] == MARK["satisfied"]).all()]
        none = [c for c in wide.columns if (wide[c] == MARK["violated"]).all()]
        if every:
            notes.append("Every measure shown has " + ", ".join(f"{c} ({_title(c)})" for c in every) + ".")
        if none:
            notes.append("No measure shown has " + ", ".join(f"{c} ({_title(c)})" for c in none) + ".")
        wide = wide.drop(columns=every + none)
    binary_rows = [m for m in wide.index if used.get(m) == "binary" and setting != "binary"]
    shown = wide.copy()
    shown.index = [_label(m) + (" (binary, positive class)" if m in binary_rows else "")
                   + (" — primary" if m == primary else "") for m in wide.index]
    shown.index.name = "measure"
    return shown, notes


def _title(name: str) -> str:
    p = PROPERTIES.get(name.partition(".")[2])
    return p.title if p else name


_MATRIX_RE = re.compile(r"\[\[([-0-9., ]+(?:\],\s*\[[-0-9., ]+)*)\]\]")


def readable(text: str) -> str:
    """``C=[[0,0],[0,1]]`` -> ``C=[0 0; 0 1]`` (rows = gold classes, separated by ';')."""
    def one(m: re.Match) -> str:
        rows = re.split(r"\],\s*\[", m.group(1))
        return "[" + "; ".join(" ".join(x.strip() for x in r.split(",")) for r in rows) + "]"
    return _MATRIX_RE.sub(one, str(text))


def counterexamples(au: pd.DataFrame, setting: str, measures: list[str], primary: str,
                    top: int | None = None) -> tuple[pd.DataFrame, int]:
    """One counterexample per property: the primary measure's when it violates the property, else
    that of the first measure (in report order) that violates it while the primary has it; the
    primary's own first, then by how many measures violate the property; the first ``top`` rows and
    the number of rows there are. Columns: property (CLI name and words), measure, counterexample
    (matrices row by row), how many other measures violate it."""
    wide, used = verdicts(au, setting, measures, primary)
    if wide.empty:
        return pd.DataFrame(), 0
    au, where = _indexed(au)
    names = au["name"].tolist()
    own: list[tuple[int, dict]] = []
    other: list[tuple[int, dict]] = []
    for name in wide.columns:
        bad = [m for m in wide.index if wide.at[m, name] == "violated"]
        if not bad:
            continue
        who = primary if primary in bad else bad[0]
        hit = [i for i in where.get((who, used.get(who, setting)), []) if names[i] == name]
        text = readable(au["counterexample"].iat[hit[0]]) if hit else ""
        row = {"property": f"{name}: {_title(name)}", "measure": _label(who), "counterexample": text,
               "others violating it": len(bad) - 1}
        (own if who == primary else other).append((len(bad), row))
    # the primary measure's own violations first, then the properties it has that most others lack
    other.sort(key=lambda t: -t[0])
    rows = [r for _, r in own] + [r for _, r in other]
    return pd.DataFrame(rows[:top] if top else rows), len(rows)


class LinkedTable(Table):
    """A :class:`Table` whose HTML column headers link to anchors (``links``: header -> id) and
    whose rows carry ids (``row_ids``: first-cell text -> id). The Markdown (PDF) is unchanged."""

    def __init__(self, df, *, links: dict[str, str] | None = None, row_ids: dict[str, str] | None = None, **kw):
        super().__init__(df, **kw)
        self.links = dict(links or {})
        self.row_ids = dict(row_ids or {})

    def _html(self) -> str:
        # (each re.sub calls its function at once, so the loop variables it reads are the current ones)
        out = super()._html()
        for text, target in self.links.items():
            esc = escape.html(text)
            # the header text may sit in a <span> (an upright header)
            out = re.sub(rf'(<th scope="col"[^>]*>(?:<span[^>]*>)?){re.escape(esc)}((?:</span>)?</th>)',
                         lambda m: f'{m.group(1)}<a href="#{escape.html(target)}">{esc}</a>{m.group(2)}',  # noqa: B023
                         out, count=1)
        for text, rid in self.row_ids.items():
            esc = escape.html(text)
            out = re.sub(rf'<tr>(<t[hd])((?: [^>]*)?>){re.escape(esc)}(</t[hd]>)',
                         lambda m: f'<tr id="{escape.html(rid)}">{m.group(1)}{m.group(2)}{esc}{m.group(3)}',  # noqa: B023
                         out, count=1)
        return out

"""The data behind the interactive leaderboard page: one compact JSON object built from a comparison's tables.

The page (:mod:`evalreport.report.leaderboard_page`) and the report's HTML leaderboard section read the same
object, built by :func:`page_data` from tables by name, as a comparison holds them
(:func:`tables_from_comparison`) or as an output folder has them on disk (:func:`read_tables`: a report's
``tables/`` or ``compare --out``'s folder). Values are rounded to six significant digits (the page shows
three decimals); every array is in the order of ``systems``.

Letters, tiers and rank intervals of the measures other than the primary come from the ``measure_letters``
table (:func:`evalreport.analyses.measure_letters.measure_letters`, from the comparison's own bootstrap
resamples). A folder without it (``compare --out``) gives them for the primary measure only, and the page says so.
"""
from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from evalreport.errors import InputError
from evalreport.escape import printable
from evalreport.report.leaderboard_sets import (
    MAX_DRILL_LABELS,
    SET_TABLES,
    hidden_note,
    label_drill,
    set_calibrated,
    set_group,
    shown_labels,
)

__all__ = ["PAGE_TABLES", "page_data", "tables_from_comparison", "read_tables", "page_csv", "measure_group"]

#: The tables the page reads, when present (the first two are required).
PAGE_TABLES = ("scores", "ranks", "leaderboard", "intervals", "rank_distribution", "groups", "measure_letters",
               "baselines", "per_class", "confusion", "measures", "inputs", *SET_TABLES)

#: The per-class measures of the drill-down, in the order of ``per_class.csv``'s ``metric``.
PER_CLASS_METRICS = ("recall", "precision", "f1")
#: Above this many classes the drill-down leaves the confusion matrices out (S x K x K numbers would swell the page;
#: ``confusion.csv`` has them) and says so.
MAX_CONFUSION_CLASSES = 40


#: The letters' test named on the page when each system has several runs (docs/seeds.md).
TWO_LEVEL_TEST = "two-level bootstrap (runs, then items)"
#: The same with clustered items: each resample draws runs, then whole clusters.
TWO_LEVEL_CLUSTER_TEST = "two-level bootstrap (runs, then clusters)"


def _short(text: str) -> str:
    """Class-derived text as the page shows it: long names shortened, control characters shown as U+FFFD."""
    from evalreport.charts import display_text

    return printable(display_text(str(text)))


def _num(v: Any) -> float | None:
    """A number rounded to six significant digits; NaN, missing and infinite values as None."""
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    if math.isnan(x) or math.isinf(x):
        return None
    return float(f"{x:.6g}")


def _int(v: Any) -> int | None:
    """A whole number, or None where missing."""
    x = _num(v)
    return None if x is None else int(x)


def _rank(v: Any) -> float | int | None:
    """A rank: whole ranks as int, tied mean ranks (1.5) as float."""
    x = _num(v)
    return None if x is None else (int(x) if x == int(x) else x)


def measure_group(record: Any) -> str:
    """The group of the measure selector a measure is listed under (its kind, else its averaging).

    Parameters
    ----------
    record : Measure or mapping
        A registry record, or a row of ``measures.csv`` (``kind``, ``averaging``).

    Returns
    -------
    str
        The group's name.
    """
    get = record.get if isinstance(record, Mapping) else (lambda k, d=None: getattr(record, k, d))
    kind, averaging = get("kind", "") or "", get("averaging", "") or ""
    if kind == "binary":
        return "Binary (positive class)"
    if kind == "scores":
        return "Score-based"
    if kind == "ordinal":
        return "Ordinal"
    if get("needs") and "gains" in (get("needs") or ()):
        return "Gain matrix"
    if averaging:
        return f"Class averages ({averaging})"
    return "Whole confusion matrix"


def _measure_meta(mid: str, catalogue: pd.DataFrame, group=measure_group) -> dict:
    """What the selector and the definition panel show of one measure (registry, else ``measures.csv``)."""
    from evalreport.errors import MeasureError
    from evalreport.measures import get

    try:
        m = get(mid)
        row: dict[str, Any] = {
            "label": m.label, "kind": m.kind, "averaging": m.averaging or m.class_average or "",
            "direction": m.direction, "range": f"[{m.range[0]:g}, {m.range[1]:g}]", "formula": m.formula,
            "source": m.source, "chance": "1/K" if callable(m.chance) else ("" if m.chance is None else f"{m.chance:g}"),
            "undefined": m.undefined, "needs": m.needs}
    except MeasureError:           # a plugin's measure, its module not loaded here: its row of measures.csv
        hit = catalogue[catalogue["id"] == mid] if len(catalogue) and "id" in catalogue else catalogue.iloc[0:0]
        row = {k: ("" if v is None or (isinstance(v, float) and math.isnan(v)) else v)
               for k, v in (hit.iloc[0].to_dict().items() if len(hit) else ())}
    return {"id": mid, "label": str(row.get("label") or mid), "group": group(row) if row else "Other",
            "higher": str(row.get("direction", "higher")) != "lower", "range": str(row.get("range", "")),
            "formula": str(row.get("formula", "")), "source": str(row.get("source", "")),
            "chance": str(row.get("chance", "")), "undefined": str(row.get("undefined", ""))}


def _by_system(frame: pd.DataFrame, column: str, systems: list[str], conv=_num) -> list:
    """``frame[column]`` in the order of ``systems`` (None where a system has no row)."""
    if column not in frame or not len(frame):
        return [None] * len(systems)
    series = frame.drop_duplicates("system").set_index("system")[column]
    return [conv(series[s]) if s in series.index else None for s in systems]


def _measure_block(mid: str, systems: list[str], t: Mapping[str, pd.DataFrame], primary: str) -> dict:
    """One measure's raw arrays: value, rank, interval, letters, tier, rank interval, P(best), reasons."""
    scores, ranks = t["scores"], t["ranks"]
    raw = scores[(scores["measure"] == mid) & ~scores["calibrated"].astype(bool)]
    rk = ranks[(ranks["measure"] == mid) & ~ranks["calibrated"].astype(bool)]
    block: dict[str, Any] = {"value": _by_system(raw, "value", systems), "rank": _by_system(rk, "rank", systems, _rank)}
    reasons = _by_system(raw, "reason", systems, lambda v: "" if v is None or v != v else _short(v))
    if any(reasons):
        block["reason"] = [r or "" for r in reasons]
    iv = t.get("intervals", pd.DataFrame())
    if len(iv):
        iv = iv[iv["measure"] == mid]
        if len(iv):
            block["lo"], block["hi"] = _by_system(iv, "lo", systems), _by_system(iv, "hi", systems)
    dist = t.get("rank_distribution", pd.DataFrame())
    if len(dist):
        best = dist[(dist["measure"] == mid) & (dist["rank"] == 1)]
        if len(best):
            block["p_best"] = [0.0 if v is None else v for v in _by_system(best, "probability", systems)]
    letters = t.get("measure_letters", pd.DataFrame())
    rows = letters[letters["measure"] == mid] if len(letters) else letters
    if not len(rows) and mid == primary:        # a folder without measure_letters: the primary's own tables
        rows = _primary_letters(t)
    if len(rows):
        block["letters"] = _by_system(rows, "letters", systems, lambda v: "" if v is None or v != v else str(v))
        block["tier"] = _by_system(rows, "group", systems, _int)
        block["rank_lo"] = _by_system(rows, "rank_lo", systems, _int)
        block["rank_hi"] = _by_system(rows, "rank_hi", systems, _int)
        if "test" in rows and len(rows):
            block["test"] = str(rows["test"].iloc[0])
    return _unranked(block)


def _unranked(block: dict) -> dict:
    """``block`` with no rank, rank interval, tier, letters or P(best) for a system without a value: the
    tables rank an undefined value last, tied, only to give it a place, which on the page reads as a placing."""
    missing = [v is None for v in block["value"]]
    if any(missing):
        for key in ("rank", "rank_lo", "rank_hi", "tier", "p_best", "letters"):
            if key in block:
                empty = "" if key == "letters" else None
                block[key] = [empty if gone else v for v, gone in zip(block[key], missing)]
    return block


def _primary_letters(t: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """The primary measure's letters, tiers and rank intervals from ``groups`` and ``leaderboard``."""
    groups, board = t.get("groups", pd.DataFrame()), t.get("leaderboard", pd.DataFrame())
    if not len(groups) or "letters" not in groups:
        return pd.DataFrame()
    out = groups[["system", "group", "letters"]]
    if len(board) and {"rank_lo", "rank_hi"} <= set(board):
        out = out.merge(board[["system", "rank_lo", "rank_hi"]], on="system", how="left")
    return out


def _calibrated(mid: str, systems: list[str], t: Mapping[str, pd.DataFrame]) -> dict | None:
    """One measure's prevalence-calibrated value and rank (None when the tables have none)."""
    scores, ranks = t["scores"], t["ranks"]
    cal = scores[(scores["measure"] == mid) & scores["calibrated"].astype(bool)]
    if not len(cal):
        return None
    rk = ranks[(ranks["measure"] == mid) & ranks["calibrated"].astype(bool)]
    return _unranked({"value": _by_system(cal, "value", systems), "rank": _by_system(rk, "rank", systems, _rank)})


def _drill(systems: list[str], labels: list[str], t: Mapping[str, pd.DataFrame]) -> dict:
    """Per-class scores ``[system][metric][class]`` and confusion matrices ``[system][gold][predicted]``."""
    out: dict[str, Any] = {"metrics": list(PER_CLASS_METRICS), "per_class": None, "confusion": None,
                           "shown": None, "hidden_note": None}
    pos = {s: i for i, s in enumerate(systems)}
    cm = t.get("confusion", pd.DataFrame())
    shown = list(range(len(labels)))
    if len(labels) > MAX_DRILL_LABELS:
        # many classes: the most and the least frequent in the gold labels (counted from one system's
        # confusion matrix; without it, the first and the last in class order), as label sets show labels
        support = pd.Series(dtype=float)
        if len(cm) and len(systems):
            one = cm[cm["system"] == systems[0]]
            support = one.assign(gold=one["gold"].astype(str)).groupby("gold")["count"].sum()
        shown = shown_labels(labels, support)
        out["shown"] = shown
        out["hidden_note"] = hidden_note(len(labels), len(shown), "classes", "the gold labels", "per_class.csv",
                                         by_frequency=bool(len(support)))
    cls = {labels[k]: i for i, k in enumerate(shown)}
    pc = t.get("per_class", pd.DataFrame())
    if len(pc) and labels:
        arr = np.full((len(systems), len(PER_CLASS_METRICS), len(shown)), np.nan)
        for m_i, metric in enumerate(PER_CLASS_METRICS):
            part = pc[pc["metric"] == metric]
            s_i = part["system"].map(pos)
            c_i = part["class"].astype(str).map(cls)
            ok = s_i.notna() & c_i.notna()
            arr[s_i[ok].astype(int), m_i, c_i[ok].astype(int)] = part["value"][ok].to_numpy(dtype=float)
        out["per_class"] = [[[_num(v) for v in row] for row in sys_rows] for sys_rows in arr]
    cls = {c: i for i, c in enumerate(labels)}
    if len(cm) and len(labels) > MAX_CONFUSION_CLASSES:
        out["confusion_note"] = (f"{len(labels):,} classes: the confusion matrix is left out of the page "
                                 "(confusion.csv of the tables has it).")
    elif len(cm) and labels:
        tensor = np.zeros((len(systems), len(labels), len(labels)), dtype=np.int64)
        s_i = cm["system"].map(pos)
        g_i = cm["gold"].astype(str).map(cls)
        p_i = cm["predicted"].astype(str).map(cls)
        ok = s_i.notna() & g_i.notna() & p_i.notna()
        tensor[s_i[ok].astype(int), g_i[ok].astype(int), p_i[ok].astype(int)] = cm["count"][ok].to_numpy(dtype=np.int64)
        out["confusion"] = tensor.tolist()
    return out


def _baselines(measures: list[str], t: Mapping[str, pd.DataFrame]) -> dict:
    """The chance baselines of each measure: ``{measure: [[baseline, value], ...]}``."""
    base = t.get("baselines", pd.DataFrame())
    out: dict[str, list] = {}
    if not len(base):
        return out
    for mid in measures:
        rows = base[base["measure"] == mid]
        out[mid] = [[_short(b), _num(v)] for b, v in zip(rows["baseline"], rows["value"])]
    return out


def page_data(tables: Mapping[str, pd.DataFrame], manifest: Mapping[str, Any], *,
              provenance: Mapping[str, Any] | None = None, title: str = "Leaderboard") -> dict:
    """The page's data: systems, measures (grouped, with definitions), per-measure arrays, drill-down, provenance.

    Parameters
    ----------
    tables : mapping of str to DataFrame
        A comparison's tables by name (:data:`PAGE_TABLES`; ``scores`` and ``ranks`` are required).
    manifest : mapping
        The comparison's manifest (primary, measures, systems, labels, settings, notes).
    provenance : mapping, optional
        ``version``, ``created``, ``command`` and ``inputs`` (role, path, sha256).
    title : str
        The page's title (escaped where it is shown).

    Returns
    -------
    dict
        JSON-ready: ``systems`` (control characters shown as U+FFFD), ``kind`` (``"classes"``, or
        ``"label_sets"`` for a multi-label comparison: :mod:`evalreport.report.leaderboard_sets`), ``labels``, ``primary``, ``measures`` (id, label, group, higher, range,
        formula, source, chance, undefined), ``raw`` and ``calibrated`` by measure, ``baselines``, ``drill``,
        ``settings``, ``notes``, ``provenance`` and ``letters_scope`` (``"every"`` or ``"primary"``).
    """
    for name in ("scores", "ranks"):
        if name not in tables or not len(tables[name]):
            raise InputError(f"the comparison has no {name} table: the leaderboard page needs scores and ranks")
    systems = [str(s) for s in manifest.get("systems") or dict.fromkeys(tables["scores"]["system"])]
    measures = [str(m) for m in manifest.get("measures") or dict.fromkeys(tables["scores"]["measure"])]
    primary = str(manifest.get("primary") or measures[0])
    labels = [str(c) for c in manifest.get("labels") or ()]
    settings = dict(manifest.get("settings") or {})
    catalogue = tables.get("measures", pd.DataFrame())
    sets = str(manifest.get("kind") or "") == "multilabel"       # label sets: per-label matrices, no K x K one
    raw = {m: _measure_block(m, systems, tables, primary) for m in measures}
    shown_settings = {k: settings.get(k) for k in ("alpha", "bootstrap", "seed", "pairwise_test", "policy", "positive")
                      if k in settings}
    if settings.get("runs_per_system"):         # several runs per system: the bootstrap draws runs, then items
        for block in [*raw.values(), shown_settings]:
            for key in ("test", "pairwise_test"):
                if block.get(key) == "bootstrap":
                    block[key] = TWO_LEVEL_CLUSTER_TEST if settings.get("cluster_col") else TWO_LEVEL_TEST
    cal = (set_calibrated(measures, systems, tables, _num, _rank) if sets else
           {m: c for m in measures if (c := _calibrated(m, systems, tables)) is not None})
    every = bool(len(tables.get("measure_letters", pd.DataFrame())))
    # matched on the full class names, shown shortened
    drill = label_drill(systems, labels, tables, _num) if sets else _drill(systems, labels, tables)
    metas = (_measure_meta(m, catalogue, set_group if sets else measure_group) for m in measures)
    return {
        "title": str(title), "primary": primary, "systems": [printable(x) for x in systems],
        "kind": "label_sets" if sets else "classes", "labels": [_short(c) for c in labels],
        "measures": [{**meta, "label": _short(meta["label"])} for meta in metas],
        "raw": raw, "calibrated": cal, "baselines": _baselines(measures, tables),
        "drill": drill,
        "settings": shown_settings,
        "letters_scope": "every" if every else ("primary" if any("letters" in b for b in raw.values()) else "none"),
        "notes": [printable(n) for n in manifest.get("notes") or ()],
        "provenance": dict(provenance or {}),
    }


def tables_from_comparison(comparison: Any, counts: Any = None, *, policy: str = "nan") -> dict[str, pd.DataFrame]:
    """The page's tables of a comparison made in this process: its own, ``measure_letters`` and the drill-down's.

    Parameters
    ----------
    comparison : Comparison
        The comparison (single-label or label sets; its bootstrap resamples give the letters of every measure).
    counts : Counts, optional
        The confusion counts behind it (per-class scores and confusion matrices of the drill-down).
    policy : str
        The 0/0 policy of the per-class scores.

    Returns
    -------
    dict of str to DataFrame
    """
    from evalreport.analyses.measure_letters import measure_letters
    from evalreport.measures.evaluate import catalogue_frame
    from evalreport.measures.perclass import per_class_frame

    t = {name: frame for name, frame in comparison.tables().items() if name in PAGE_TABLES}
    t["measure_letters"] = measure_letters(comparison)
    try:
        t["measures"] = catalogue_frame(comparison.measures)
    except Exception:          # a measure the registry cannot name (a plugin): the page falls back per measure
        pass
    if counts is not None:
        tensor = np.asarray(counts.tensor)
        S, K = tensor.shape[0], tensor.shape[-1]
        t["per_class"] = per_class_frame(counts, policy=policy)
        names, labels = np.asarray(counts.systems, dtype=object), np.asarray(counts.labels, dtype=object)
        s_i, g_i, p_i = np.indices((S, K, K)).reshape(3, -1)
        t["confusion"] = pd.DataFrame({"system": names[s_i], "gold": labels[g_i], "predicted": labels[p_i],
                                       "count": tensor[s_i, g_i, p_i]})
    return t


def read_tables(folder: str | Path) -> tuple[dict[str, pd.DataFrame], dict, dict]:
    """The page's tables, manifest and provenance from an output folder (a report's ``tables/`` or ``compare --out``).

    Parameters
    ----------
    folder : path
        The folder; a report folder (with ``tables/`` inside) is accepted too.

    Returns
    -------
    tables, manifest, provenance
        The tables found (JSON twins, so names are read as written), ``manifest.json`` and the
        provenance of ``report.json`` or else of the manifest (``compare --out``'s), else empty.
    """
    from evalreport.report.write import read_json_table

    root = Path(folder)
    if (root / "tables" / "manifest.json").is_file() and not (root / "manifest.json").is_file():
        root = root / "tables"
    if not root.is_dir():
        raise InputError("not a folder (give a report's tables/ or compare --out's folder)", path=str(folder))
    if not (root / "manifest.json").is_file():
        raise InputError("no manifest.json: not a folder that evalreport compare --out or report wrote",
                         path=str(root))
    try:
        manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
        tables = {name: read_json_table(root / f"{name}.json") for name in PAGE_TABLES
                  if (root / f"{name}.json").is_file()}
        meta = (json.loads((root / "report.json").read_text(encoding="utf-8"))
                if (root / "report.json").is_file() else {})
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the tables: {exc}", path=str(root)) from None
    if manifest.get("kind") not in (None, "single", "multilabel"):
        raise InputError(f"a {manifest.get('kind')} comparison: the leaderboard page shows one task", path=str(root))
    prov = dict(meta.get("provenance") or manifest.get("provenance") or {})    # a report's, or compare --out's
    for k in ("seed", "bootstrap"):
        if k in meta:
            prov.setdefault(k, meta[k])
    return tables, manifest, prov


def page_csv(data: Mapping[str, Any]) -> str:
    """The page's numbers as one long CSV (system, measure, calibrated, value, rank, lo, hi, letters, rank_lo,
    rank_hi, p_best), text guarded for spreadsheets (:func:`evalreport.escape.csv_frame`).

    Parameters
    ----------
    data : mapping
        :func:`page_data`'s result.

    Returns
    -------
    str
    """
    from evalreport.escape import csv_frame

    systems = data["systems"]
    frames = []
    for m in data["measures"]:
        mid = m["id"]
        blocks = [(False, data["raw"][mid])] + ([(True, data["calibrated"][mid])] if mid in data["calibrated"] else [])
        for cal, b in blocks:
            empty = [None] * len(systems)
            frames.append(pd.DataFrame({
                "system": systems, "measure": mid, "calibrated": cal, "value": b["value"], "rank": b["rank"],
                "lo": empty if cal else b.get("lo", empty), "hi": empty if cal else b.get("hi", empty),
                "letters": empty if cal else b.get("letters", empty),
                "rank_lo": empty if cal else b.get("rank_lo", empty), "rank_hi": empty if cal else b.get("rank_hi", empty),
                "p_best": empty if cal else b.get("p_best", empty)}))
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    for c in ("rank_lo", "rank_hi"):
        if c in table:
            table[c] = table[c].astype("Int64")
    return csv_frame(table).to_csv(index=False, lineterminator="\n")

"""Which measure to rank by, chosen before the results are in: requirements in plain words, each
answered for every measure of the registry (plugins included) on the user's data setting.

A requirement is either a set of audit properties (:mod:`evalreport.analyses.audit`), computed in
this data's setting: the audit enumerates confusion matrices with the data's number of classes
(:func:`audit_setting`) and, when every class has gold items, its verdicts are read on the matrices
where every class occurs in the gold labels (docs/audit.md#conditions); or a check computed on the
data's gold class counts (:mod:`.recommend_data`). A requirement made of several properties holds
when each does. Nothing here is copied from the papers' tables: each answer is a verdict, with the
smallest counterexample where it fails. The requirements, what each is computed as and its source:
:data:`REQUIREMENTS` and docs/recommend.md.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evalreport.analyses.audit.conditions import COLUMNS as CONDITION_COLUMNS
from evalreport.analyses.recommend_data import (
    Check,
    DataSetting,
    check_cost_sensitive,
    check_defined,
    check_ordinal,
    values,
)
from evalreport.errors import InputError
from evalreport.measures._core import Measure, catalogue, unique

__all__ = ["REQUIREMENTS", "DEFAULT_MUST", "Requirement", "Recommendation", "recommend", "recommend_for_report",
           "resolve_requirements",
           "audit_setting", "DataSetting"]


@dataclass(frozen=True)
class Requirement:
    """A requirement in plain words: the audit properties it is (``paper.ID``) or the data check that
    computes it."""

    name: str
    words: str
    properties: tuple[str, ...] = ()
    check: Callable[..., Check] | None = None
    source: str = ""


def _r(name, words, properties=(), check=None, source=""):
    return Requirement(name, words, tuple(properties), check, source)


REQUIREMENTS: dict[str, Requirement] = {r.name: r for r in [
    _r("chance-corrected", "a system with no skill scores a constant", ("goesgens.CB", "opitz.PV"),
       source="Gösgens et al. 2021, Definition 8; Opitz 2022, Property V"),
    _r("max-only-if-perfect", "the best value only for a perfect prediction", ("goesgens.Max",),
       source="Gösgens et al. 2021, Definition 1"),
    _r("min-only-if-all-wrong", "the worst value only when no item is right", ("goesgens.Min",),
       source="Gösgens et al. 2021, Definition 2"),
    _r("monotone", "a correct decision never lowers the score, an error never raises it", ("opitz.PI",),
       source="Opitz 2022, Property I, eq. 3"),
    _r("strictly-monotone", "every correct decision raises the score", ("goesgens.SMon",),
       source="Gösgens et al. 2021, Definition 7"),
    _r("prevalence-robust", "rescaling the gold classes does not change the value", ("opitz.PIV",),
       source="Opitz 2022, Property IV, eq. 5"),
    _r("symmetric", "class names do not matter", ("goesgens.CSym",), source="Gösgens et al. 2021, Definition 4"),
    _r("gold-pred-symmetric", "gold labels and predictions swapped give the same value", ("goesgens.Sym",),
       source="Gösgens et al. 2021, Definition 3"),
    _r("fixed-range", "the same best and worst value on every test set", ("sebastiani.FIX",),
       source="Sebastiani 2015, Axiom 5"),
    _r("continuous", "no jump, kink or infinite slope as predictions change", ("sebastiani.CON",),
       source="Sebastiani 2015, Axiom 2"),
    _r("distance", "best value minus the measure is a metric between labelings", ("goesgens.Dist",),
       source="Gösgens et al. 2021, Definition 5"),
    _r("class-decomposable", "a mean of per-class scores", ("opitz.PIII",), source="Opitz 2022, Property III"),
    _r("defined", "no 0/0 on data with these class counts", check=check_defined),
    _r("ordinal", "an error between neighbouring classes costs less than one across the scale", check=check_ordinal),
    _r("cost-sensitive", "the value follows the cost (or gain) of each kind of error", check=check_cost_sensitive),
]}

#: what a report checks when no requirement is stated
DEFAULT_MUST = ("chance-corrected", "monotone", "defined")

#: the audit's setting per number of classes: (classes enumerated, exhaustive bound on the items)
_AUDIT_SETTING = {2: (2, 8), 3: (3, 6)}
#: more classes are enumerated with this many (the audit's cost grows with K^2 cells)
AUDIT_MAX_CLASSES = 4


def audit_setting(K: int) -> tuple[int, int]:
    """(classes the audit enumerates, exhaustive bound on n) for data with ``K`` classes: K itself up
    to :data:`AUDIT_MAX_CLASSES` (then 4 classes, every property being stated for any K >= 3).

    Parameters
    ----------
    K : int
        The data's number of classes.

    Returns
    -------
    tuple of (int, int)
    """
    return _AUDIT_SETTING.get(K, (AUDIT_MAX_CLASSES, 5))


def resolve_requirements(names: Sequence[str] | str | None) -> list[Requirement]:
    """Requirement names (case and ``_`` / ``-`` alike) -> records; an unknown name is an
    :class:`~evalreport.errors.InputError` that lists the known ones.

    Parameters
    ----------
    names : sequence of str, str or None
        Names, or one comma-separated string; None gives :data:`DEFAULT_MUST`.

    Returns
    -------
    list of Requirement
    """
    if names is None:
        names = DEFAULT_MUST
    if isinstance(names, str):
        names = [n for n in names.split(",") if n.strip()]
    out = []
    for raw in names:
        key = str(raw).strip().lower().replace("_", "-")
        if key not in REQUIREMENTS:
            raise InputError(f"unknown requirement {str(raw)!r}; known: {', '.join(REQUIREMENTS)}")
        out.append(REQUIREMENTS[key])
    if not out:
        raise InputError(f"no requirement given; known: {', '.join(REQUIREMENTS)}")
    return list(dict.fromkeys(out))


@dataclass
class Recommendation:
    """The answer: ``table`` (one row per measure: measure, label, applicable, fits, failed, reason,
    pitfalls, then one column per requirement), the requirements, and sentences (``notes``) on the
    setting, on requirements no measure meets and on the closest measures."""

    table: pd.DataFrame
    must: list[str]
    data: DataSetting
    notes: list[str] = field(default_factory=list)

    def fitting(self) -> list[str]:
        """Ids of the measures that meet every requirement."""
        return self.table.loc[self.table["fits"], "measure"].tolist()


def recommend(data: DataSetting, must: Sequence[str] | str | None = None, measures: Sequence | None = None, *,
              policy: str = "nan", audit_frame: pd.DataFrame | None = None, max_n: int | None = None,
              seed: int = 0) -> Recommendation:
    """Which measures meet every requirement on data with these classes and gold class counts.

    Parameters
    ----------
    data : DataSetting
        Class names and gold class counts (:func:`~.recommend_data.setting_from_prevalence` makes one
        from prevalences).
    must : sequence of str, optional
        Requirement names (:data:`REQUIREMENTS`); default :data:`DEFAULT_MUST`.
    measures : sequence, optional
        Measure ids or records (default: the whole registry, plugins included, without the
        example-based multi-label measures).
    policy : str
        The 0/0 policy of the ``defined`` check (the audit's properties are read under each paper's
        own policy).
    audit_frame : pandas.DataFrame, optional
        An audit already computed (a report's ``audit.csv``) to read instead of auditing again; it
        must hold the requirements' properties in the binary or multi-class setting.
    max_n : int, optional
        Exhaustive bound of the audit (default: :func:`audit_setting`).
    seed : int
        Seed of the audit's random search.

    Returns
    -------
    Recommendation
    """
    reqs = resolve_requirements(must)
    ms = [m for m in (catalogue() if measures is None else unique(measures)) if m.kind != "example"]
    if not ms:
        raise InputError("no measure to recommend from")
    props = list(dict.fromkeys(p for r in reqs for p in r.properties))
    au = _audit_rows(ms, props, data, audit_frame, max_n, seed) if props else pd.DataFrame()
    condition = "gold" if all(c > 0 for c in data.counts) else None
    rows = []
    for m in ms:
        rows.append(_row(m, reqs, data, au, condition, policy))
    table = pd.DataFrame(rows)
    order = np.lexsort((np.arange(len(table)), table["failed"].to_numpy(), ~table["fits"].to_numpy(),
                        ~table["applicable"].to_numpy()))
    table = table.iloc[order].reset_index(drop=True)
    rec = Recommendation(table, [r.name for r in reqs], data)
    rec.notes = _notes(rec, reqs, data, condition, audit_frame is not None, max_n)
    return rec


def _audit_rows(ms, props, data, audit_frame, max_n, seed) -> pd.DataFrame:
    """The audit's rows ``(measure, paper.ID) -> row`` in the data's setting, under each paper's 0/0 policy."""
    if audit_frame is None:
        from evalreport.analyses.audit import audit

        K, bound = audit_setting(data.K)
        au = audit(ms, props, classes=(K,), max_n=max_n or bound, seed=seed)
    else:
        au = audit_frame
        if "policy_of" in au.columns:
            au = au[au["policy_of"].astype(str).str.contains("paper", regex=False)]
        want = "binary" if data.K == 2 else next((s for s in dict.fromkeys(au["setting"]) if s != "binary"), "")
        au = au[au["setting"] == want]
    au = au.assign(name=au["paper"].astype(str) + "." + au["property"].astype(str))
    au = au[au["name"].isin(props)]
    return au.drop_duplicates(["measure", "name"]).set_index(["measure", "name"])


def _verdict(au: pd.DataFrame, mid: str, prop: str, condition: str | None) -> tuple[str, str]:
    """(verdict, counterexample or detail) of one property, under the data's condition."""
    if (mid, prop) not in au.index:
        return "n/a", "not in the audit"
    row = au.loc[(mid, prop)]
    v = str(row["verdict"])
    if condition is not None:
        c = row.get(CONDITION_COLUMNS[condition])
        if isinstance(c, str) and c:
            v = c
    if v == "violated":
        detail = str(row["detail"])
        hit = _WITH_EVERY_CLASS.search(detail) if condition else None
        return v, hit.group(1) if hit else (str(row["counterexample"]) or detail)
    return v, str(row["detail"])


#: where the audit's detail gives a counterexample with every class present (docs/audit.md#conditions)
_WITH_EVERY_CLASS = re.compile(r"also (?:when|where) every class occurs[^:]*: (.*)$")


#: what a measure that needs more than the confusion matrix is judged with (as the audit judges it)
_JUDGED_WITH = {"gains": "judged with the identity gains (its values need your gain matrix, --gains)",
                "costs": "judged with the distance costs |i - j| of the class order (its values need --order or "
                         "--costs)"}


def _row(m: Measure, reqs, data: DataSetting, au, condition, policy) -> dict:
    row: dict = {"measure": m.id, "label": m.label}
    if "positive" in m.needs and data.K != 2:
        text = (f"n/a: a binary measure (needs a positive class); on {data.K} classes use its _macro, _micro or "
                "_weighted average")
        row.update(applicable=False, fits=False, failed=len(reqs), reason=text, pitfalls="")
        row.update({r.name: text for r in reqs})
        return row
    cells: dict[str, str] = {}
    failed: list[tuple[str, str]] = []
    pitfalls: list[str] = [text for need, text in _JUDGED_WITH.items() if need in m.needs]
    for r in reqs:
        ok, text = _answer(m, r, data, au, condition, policy, pitfalls)
        cells[r.name] = ("satisfied: " if ok else "violated: " if ok is False else "n/a: ") + text
        if not ok:
            failed.append((r.name, text))
    reason = ("meets " + ", ".join(r.name for r in reqs)) if not failed else \
        "fails " + "; ".join(f"{n} ({t})" for n, t in failed)
    row.update(applicable=True, fits=not failed, failed=len(failed), reason=reason,
               pitfalls="; ".join(dict.fromkeys(pitfalls)))
    row.update(cells)
    return row


def _answer(m: Measure, r: Requirement, data: DataSetting, au, condition, policy, pitfalls: list) -> tuple:
    """(holds: True / False / None, reason) of one requirement for one measure."""
    if r.check is not None:
        try:
            c = r.check(m, data, policy=policy) if r.name == "defined" else r.check(m, data)
        except Exception as exc:  # a plugin may fail on some matrices: say so, do not crash
            return None, f"could not be computed: {type(exc).__name__}: {exc}"
        pitfalls += c.pitfalls
        return c.holds, c.reason
    parts, holds = [], True
    for p in r.properties:
        v, text = _verdict(au, m.id, p, condition)
        if v == "violated":
            parts.append(f"{p} ({_title(p)}) fails: {text}")
            holds = False
        elif v != "satisfied":
            parts.append(f"{p} cannot be evaluated: {text}")
            holds = holds and None      # type: ignore[assignment]
    if holds:
        where = " (on matrices where every class occurs in the gold labels, as here)" if condition else ""
        return True, f"{' and '.join(r.properties)} hold{'s' if len(r.properties) == 1 else ''}{where}"
    if r.name == "chance-corrected" and holds is False:
        parts.insert(0, _no_skill_words(m, data))        # on this data first, then the audit's counterexample
    return holds, "; ".join(p for p in parts if p)


def _title(prop: str) -> str:
    from evalreport.analyses.audit import PROPERTIES

    found = PROPERTIES.get(prop.partition(".")[2])
    return found.title if found else prop


def _no_skill_words(m: Measure, data: DataSetting) -> str:
    """What systems without skill score on these prevalences."""
    a = np.asarray(data.counts, dtype=float)
    p = a / a.sum()
    K = data.K
    maj = np.zeros((K, K))
    maj[:, int(np.argmax(a))] = a
    mats = np.stack([maj, np.outer(a, p), np.outer(a, np.full(K, 1.0 / K))])
    try:
        v = values(m, mats)
    except Exception:
        return ""
    return (f"without skill it scores {_num(v[0])} (majority predictor), {_num(v[1])} (random with the gold shares) "
            f"and {_num(v[2])} (uniformly random) on your prevalences")


def _num(x: float) -> str:
    return "undefined" if np.isnan(x) else f"{x:.3g}"


def _notes(rec: Recommendation, reqs, data: DataSetting, condition, given_audit: bool, max_n) -> list[str]:
    """Sentences: the setting, requirements no measure meets, the closest measures."""
    t = rec.table
    notes = [_setting_words(data, reqs, condition, given_audit, max_n)]
    usable = t[t["applicable"]]
    for r in reqs:
        if not usable.empty and not usable[r.name].str.startswith("satisfied").any():
            notes.append(f"No measure is {r.name} here ({r.words}).")
    fits = usable[usable["fits"]]
    if len(fits):
        shown = ", ".join(f"{lab} ({mid})" for mid, lab in zip(fits["measure"][:8], fits["label"][:8]))
        more = f" and {len(fits) - 8} more" if len(fits) > 8 else ""
        verb = "meets" if len(fits) == 1 else "meet"
        notes.append(f"{len(fits)} of {len(usable)} measures {verb} {', '.join(rec.must)}: {shown}{more}.")
    elif not usable.empty:
        best = usable["failed"].min()
        close = usable[usable["failed"] == best][:5]
        names = "; ".join(f"{lab} ({mid}), fails {_failed_names(row, reqs)}"
                          for mid, lab, (_, row) in zip(close["measure"], close["label"], close.iterrows()))
        notes.append(f"No measure meets all of {', '.join(rec.must)}. Closest ({best} failed requirement"
                     f"{'s' if best != 1 else ''}): {names}.")
    return notes


def _failed_names(row, reqs) -> str:
    return ", ".join(r.name for r in reqs if not str(row[r.name]).startswith("satisfied"))


def _setting_words(data: DataSetting, reqs, condition, given_audit: bool, max_n) -> str:
    prev = ", ".join(f"{lab} {p:.3g}" for lab, p in zip(data.labels, data.prevalence))
    text = f"Setting: {data.K} classes ({prev})"
    if any(r.properties for r in reqs):
        if given_audit:
            text += f"; verdicts of the report's audit ({'binary' if data.K == 2 else 'multi-class'} setting)"
        else:
            K, bound = audit_setting(data.K)
            text += f"; audit verdicts on every {K}-class confusion matrix up to n = {max_n or bound} items and a " \
                    "seeded random search beyond"
            if K != data.K:
                text += f" ({K} classes stand for your {data.K}: the properties are stated for any K >= 3)"
        if condition:
            text += ", read where every class occurs in the gold labels, as in this data"
    return text + "."


def recommend_for_report(labels: Sequence[str], gold_sizes, measures, audit_frame: pd.DataFrame | None, *,
                         must: Sequence[str] = DEFAULT_MUST, policy: str = "nan") -> dict[str, pd.DataFrame]:
    """The report's tables ``recommend`` (:class:`Recommendation`'s table for the report's measures) and
    ``recommend_notes`` (its sentences, column ``note``), read from the report's own audit.

    Parameters
    ----------
    labels : sequence of str
        The report's classes.
    gold_sizes : array-like
        Gold items per class.
    measures : sequence
        The report's measure records.
    audit_frame : pandas.DataFrame or None
        The report's audit (:func:`~evalreport.analyses.audit.audit_for_report`); None (``--no-audit``)
        answers only the requirements computed on the class counts.
    must : sequence of str
        The requirements (default :data:`DEFAULT_MUST`).
    policy : str
        The report's 0/0 policy (of ``defined``).

    Returns
    -------
    dict of str to pandas.DataFrame
    """
    reqs = resolve_requirements(list(must))
    if audit_frame is None or audit_frame.empty:
        reqs = [r for r in reqs if not r.properties]
    data = DataSetting(tuple(str(x) for x in labels), tuple(float(x) for x in np.asarray(gold_sizes)))
    if not reqs or data.K < 2:
        return {"recommend": pd.DataFrame(), "recommend_notes": pd.DataFrame({"note": []})}
    rec = recommend(data, [r.name for r in reqs], list(measures), policy=policy, audit_frame=audit_frame)
    return {"recommend": rec.table, "recommend_notes": pd.DataFrame({"note": rec.notes})}

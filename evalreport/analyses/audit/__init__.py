"""The measure audit: which properties each measure has, computed, with counterexamples.

The properties of Sebastiani (2015, axioms MON..SYM), Opitz (2022, PI..PV) and Gösgens et al. (2021,
Max..ACB) are computations over confusion matrices (rows = gold, columns = predicted), never a
per-measure table: docs/audit.md#properties lists them and says where a result differs from a paper
and why; :mod:`.properties` says how each one is operationalised. Each is checked in the ``binary``
(K = 2, class 1 positive) and the ``multiclass`` setting (K = 3 by default) by exhaustive enumeration
up to ``max_n``, a seeded random search beyond, and exact expectations for random classifiers; every
matrix is built once per (K, max_n) and evaluated in one stacked call per measure, setting and policy
(:mod:`.batches`). Each paper's properties are computed under its own 0/0 treatment (``PAPER_POLICY``)
unless ``audit(policy=...)`` forces one.

Claims: a measure's ``claims`` map ``"<paper>.<property>[.<setting>]"`` (paper ``sebastiani``,
``opitz`` or ``goesgens``) to what the paper states: ``True`` / ``False`` / ``"n/a"``, or
``{"paper": ..., "audit": ..., "why": "docs/audit.md#anchor"}`` where a documented difference keeps
the audit from agreeing; :func:`audit` says which columns a claim gives. The claims of the one-vs-rest
averages are derived from Gösgens et al. (2021), Table 2 (:data:`AVERAGING_PRESERVES`,
:func:`average_claims`), which :mod:`.averaging` reproduces.

Conditions: each verdict is also computed where every class occurs in the gold labels, and in the
gold and predicted labels (:mod:`.conditions`). :func:`audit_for_report` computes the audit a report
shows, under the report's 0/0 policy and each paper's own.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import pandas as pd

from evalreport.analyses.audit import properties as P, properties_goesgens, properties_opitz
from evalreport.analyses.audit.averaging import AVERAGINGS, preservation, table_2_averaging
from evalreport.analyses.audit.batches import evaluate_bank, stacked
from evalreport.analyses.audit.conditions import (
    COLUMNS as CONDITION_COLUMNS,
    EXISTENTIAL,
    ConditionedCase,
    condition_for,
)
from evalreport.analyses.audit.consistency import (
    GOESGENS_2021_TABLE_3,
    binary_pairs_space,
    consistency,
    indistinguishable_groups,
)
from evalreport.analyses.audit.identities import identities
from evalreport.analyses.audit.sources import paper_source
from evalreport.analyses.audit.space import Space, space_for
from evalreport.errors import MeasureError
from evalreport.measures import catalogue, get
from evalreport.measures._core import Measure, unique
from evalreport.measures._shared import quiet_errors, shared_sums
from evalreport.measures.binary import AVERAGING_PRESERVES, average_claims

__all__ = ["audit", "audit_for_report", "consistency", "indistinguishable_groups", "PROPERTIES", "PAPERS", "PAPER_POLICY",
           "claims_frame", "check_claims", "GOESGENS_2021_TABLE_3", "binary_pairs_space", "Space",
           "AVERAGINGS", "AVERAGING_PRESERVES", "average_claims", "preservation", "table_2_averaging", "identities",
           "claim_for"]

#: paper key (what `--properties goesgens.Mon` and the audit table's `paper` column say) -> its citation
PAPERS = {"sebastiani": "Sebastiani 2015", "opitz": "Opitz 2022", "goesgens": "Gösgens et al. 2021"}

#: the undefined-value policy each paper's properties are checked under by default
PAPER_POLICY = {"sebastiani": "nan", "opitz": "zero", "goesgens": "nan"}


@dataclass(frozen=True)
class Property:
    id: str
    paper: str
    ref: str
    title: str
    check: Callable


#: Every property's check by name: Sebastiani's in :mod:`.properties`, Opitz's and Gösgens et al.'s in their
#: own modules.
_CHECKS = {name: fn for module in (P, properties_opitz, properties_goesgens)
           for name, fn in vars(module).items() if name.startswith("check_")}


def _p(id, paper, ref, title):
    return Property(id, paper, ref, title, _CHECKS[f"check_{id}"])


PROPERTIES: dict[str, Property] = {p.id: p for p in [
    _p("MON", "sebastiani", "Axiom 1", "strict monotonicity"),
    _p("CON", "sebastiani", "Axiom 2", "continuous differentiability"),
    _p("SDE", "sebastiani", "Axiom 3", "strong definiteness"),
    _p("WDE", "sebastiani", "Axiom 4", "weak definiteness"),
    _p("FIX", "sebastiani", "Axiom 5", "fixed range"),
    _p("CHA", "sebastiani", "Axiom 6", "robustness to chance"),
    _p("IMB", "sebastiani", "Axiom 7", "robustness to imbalance"),
    _p("SYM", "sebastiani", "Axiom 8", "symmetry (class vs complement)"),
    _p("PI", "opitz", "Property I, eq. 3", "monotonicity"),
    _p("PII", "opitz", "Property II", "class sensitivity"),
    _p("PIII", "opitz", "Property III, eq. 4", "class decomposability"),
    _p("PIV", "opitz", "Property IV, eq. 5", "prevalence invariance"),
    _p("PV", "opitz", "Property V", "chance correction"),
    _p("PV_strict", "opitz", "Property V (strict)", "strict chance correction"),
    _p("PV_complete", "opitz", "Property V (complete)", "complete chance correction"),
    _p("Max", "goesgens", "Definition 1", "maximal agreement"),
    _p("Min", "goesgens", "Definition 2", "minimal agreement"),
    _p("CSym", "goesgens", "Definition 4", "class symmetry"),
    _p("Sym", "goesgens", "Definition 3", "symmetry (C vs C^T)"),
    _p("Dist", "goesgens", "Definition 5", "distance"),
    _p("Mon", "goesgens", "Definition 6", "monotonicity"),
    _p("SMon", "goesgens", "Definition 7", "strong monotonicity"),
    _p("CB", "goesgens", "Definition 8", "constant baseline"),
    _p("ACB", "goesgens", "Definition 9", "approximate constant baseline"),
]}

COLUMNS = ["measure", "property", "paper", "setting", "verdict", *CONDITION_COLUMNS.values(), "counterexample", "detail",
           "policy", "paper_claim", "paper_source", "agrees_with_paper", "expected", "as_expected", "why"]


def resolve_properties(properties) -> list[Property]:
    """Property ids as written (``MON``), qualified (``sebastiani.MON``) or a whole paper
    (``opitz``); a case-insensitive match is accepted when it is unique."""
    if properties is None:
        return list(PROPERTIES.values())
    if isinstance(properties, str):
        properties = [properties]
    out = []
    for spec in properties:
        spec = str(spec).strip()
        if spec in PAPERS:
            out += [p for p in PROPERTIES.values() if p.paper == spec]
            continue
        paper, _, pid = spec.rpartition(".")
        hits = [p for p in PROPERTIES.values() if p.id == pid and (not paper or p.paper == paper)]
        if not hits:
            hits = [p for p in PROPERTIES.values() if p.id.lower() == pid.lower() and (not paper or p.paper == paper)]
        if len(hits) != 1:
            known = ", ".join(PROPERTIES)
            why = "ambiguous (write it as paper.ID, e.g. sebastiani.MON or goesgens.Mon)" if hits else "unknown"
            raise MeasureError(f"property {spec!r} is {why}; properties: {known}; papers: {', '.join(PAPERS)}")
        out += hits
    return list(dict.fromkeys(out))


def _setting_name(K: int, classes) -> str:
    if K == 2:
        return "binary"
    many = sum(1 for k in classes if k > 2) > 1
    return f"multiclass (K={K})" if many else "multiclass"


def audit(measures=None, properties=None, *, max_n: int = 8, seed: int = 0, classes=(2, 3),
          policy: str | None = None, n_random: int = 400, conditions: bool = True) -> pd.DataFrame:
    """Check every property for every measure, in the binary and the multi-class setting.

    ``measures``: ids, ``family(param=value)`` specs or :class:`Measure` records (default: the
    whole catalogue, parametrised families at their default parameters). ``properties``: ids
    (see :data:`PROPERTIES`), ``paper.ID`` or a paper key. ``max_n``: exhaustive bound on the
    number of items (some checks use a smaller bound, named in their detail). ``classes``: the
    numbers of classes to check; 2 is the binary setting. ``policy``: force one undefined-value
    policy instead of each paper's own (:data:`PAPER_POLICY`). ``n_random``: size of the seeded
    random search beyond ``max_n``. ``conditions``: also compute the verdicts restricted to the
    matrices where every class occurs in the gold labels, and in the gold and predicted labels
    (:mod:`.conditions`; without, those columns are empty).

    Returns a tidy frame with the columns :data:`COLUMNS`:

    * ``verdict`` (``satisfied``, ``violated`` or ``n/a``) on every matrix, a class may be absent;
      ``verdict_every_class_in_gold`` and ``verdict_every_class_in_gold_and_predicted`` the verdict
      under that condition; ``counterexample`` and ``detail`` are those of ``verdict``;
    * ``policy``: the undefined-value policy it was computed under;
    * ``paper_claim``: what the paper states (``""`` if the registry records no claim), and
      ``paper_source`` where (table and cell, or the numbered statement: :mod:`.sources`);
    * ``agrees_with_paper``: ``verdict == paper_claim`` (None without a claim);
    * ``expected``: the verdict the registry records for the audit (the paper's claim, or the
      documented difference); ``as_expected``: ``verdict == expected``; ``why``: the section of
      docs/audit.md that explains a difference (``""`` if the audit is to agree with the paper).
      The expectation is recorded for the paper's own policy: under another (``policy=``) these
      three are empty, ``agrees_with_paper`` still compares with the paper.
    """
    if isinstance(measures, (str, Measure)):
        measures = [measures]
    ms = catalogue() if measures is None else unique(measures)
    ms = [m for m in ms if m.kind not in ("example", "scores")]    # multi-label and score measures: not audited here
    props = resolve_properties(properties)
    if max_n < 3:
        raise MeasureError("max_n must be at least 3")
    spaces = {K: space_for(K, max_n) for K in classes}
    banks = _Banks(spaces, props, policy, seed, n_random)
    rows = []
    for m in ms:
        claims = parse_claims(m)
        cases: dict = {}
        restricted: dict = {}     # (K, policy, condition) -> ConditionedCase
        pv_restricted: dict = {}  # (policy, condition) -> K -> PV values
        bank = banks.of(m, ms)
        pv_values: dict = {}       # policy -> K -> values at the random classifiers of PV
        for (K, pol), b in bank.items():
            if ("PV",) in b:
                pv_values.setdefault(pol, {})[K] = b[("PV",)]
        for K in classes:
            setting = _setting_name(K, classes)
            for prop in props:
                pol = policy or PAPER_POLICY[prop.paper]
                under = {}
                if "positive" in m.needs and K != 2:
                    v = P.Verdict(P.NA, "", "a binary measure (needs a positive class): its multi-class forms are "
                                            "the _macro, _micro and _weighted averages")
                    under = {c: P.NA for c in CONDITION_COLUMNS} if conditions else {}
                else:
                    key = (K, pol)
                    if key not in cases:
                        cases[key] = P.Case(m, K, setting, pol, spaces[K], seed=seed, n_random=n_random,
                                            bank=bank.get(key), pv_values=pv_values.setdefault(pol, {}))
                    case = cases[key]
                    try:
                        v = prop.check(case)
                    except Exception as exc:  # a user's measure may fail on some inputs: report, don't crash
                        v = P.Verdict(P.NA, "", f"check failed: {type(exc).__name__}: {exc}")
                    case.cache[f"{prop.id}_verdict"] = v
                    for c in (CONDITION_COLUMNS if conditions else ()):
                        # a statement about all matrices holds on every subset (and "every" is a subset of "gold")
                        if prop.id not in EXISTENTIAL and P.SATISFIED in (v.verdict, under.get("gold")):
                            under[c] = P.SATISFIED
                            continue
                        cond = condition_for(prop.id, c)
                        rkey = (K, pol, cond)
                        if rkey not in restricted:
                            restricted[rkey] = ConditionedCase(
                                m, K, setting, pol, spaces[K], seed=seed, n_random=n_random, bank=bank.get(key),
                                pv_values=pv_restricted.setdefault((pol, cond), {}), condition=cond)
                        rcase = restricted[rkey]
                        done = rcase.cache.get(f"{prop.id}_verdict")
                        if done is None:
                            try:
                                done = prop.check(rcase)
                            except Exception as exc:  # as above
                                done = P.Verdict(P.NA, "", f"check failed: {type(exc).__name__}: {exc}")
                            rcase.cache[f"{prop.id}_verdict"] = done
                        under[c] = done.verdict
                hit = None if "positive" in m.needs and K != 2 else \
                    claim_for(claims, prop, "binary" if K == 2 else "multiclass")   # binary claims: two classes
                row: dict[str, Any] = {"measure": m.id, "property": prop.id, "paper": prop.paper, "setting": setting,
                       "verdict": v.verdict, **{CONDITION_COLUMNS[c]: under.get(c, "") for c in CONDITION_COLUMNS},
                       "counterexample": v.counterexample, "detail": v.detail, "policy": pol, "paper_claim": "",
                       "paper_source": "", "agrees_with_paper": None, "expected": "", "as_expected": None, "why": ""}
                if hit is not None:
                    key_text = f"{hit['paper']}.{hit['property']}" + (f".{hit['setting']}" if hit["setting"] else "")
                    row.update(paper_claim=hit["claim"],
                               paper_source=paper_source(m.id, hit["paper"], prop.id, hit["setting"], key_text),
                               agrees_with_paper=bool(v.verdict == hit["claim"]))
                    if pol == PAPER_POLICY[prop.paper]:      # the registry's expectation is for the paper's policy
                        row.update(expected=hit["expected"], why=hit["why"],
                                   as_expected=bool(v.verdict == hit["expected"]))
                rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS)


def audit_for_report(measures, *, policy: str = "nan", max_n: int = 8, seed: int = 0, classes=(2, 3),
                     n_random: int = 400) -> pd.DataFrame:
    """The audit a report shows: every verdict under each paper's own undefined-value policy
    (:data:`PAPER_POLICY`) and, where the report's ``policy`` is another, under the report's too.

    A verdict can depend on the policy: under ``nan`` an undefined class is skipped from an average,
    under Opitz's ``zero`` it counts 0, so a constant classifier's macro precision is the prevalence
    of its class (``nan``: not chance corrected) or that prevalence / K (``zero``: PV holds,
    docs/audit.md#pv-constant). The frame is :func:`audit`'s with one more column, ``policy_of``:
    ``paper`` (the row is under the paper's policy only), ``report`` (under the report's only) or
    ``paper, report`` (the two policies are one).
    """
    base = audit(measures, max_n=max_n, seed=seed, classes=classes, n_random=n_random)
    own = base["paper"].map(PAPER_POLICY)
    base = base.assign(policy_of=["paper, report" if p == policy else "paper" for p in own])
    papers = [key for key, pol in PAPER_POLICY.items() if pol != policy]
    if not papers:
        return base.reset_index(drop=True)
    extra = audit(measures, papers, max_n=max_n, seed=seed, classes=classes, n_random=n_random, policy=policy)
    extra = extra.assign(policy_of="report")
    order = {(m, p, s): i for i, (m, p, s) in enumerate(zip(base["measure"], base["property"], base["setting"]))}
    both = pd.concat([base, extra], ignore_index=True)
    rank = [order[k] for k in zip(both["measure"], both["property"], both["setting"])]
    # each report row right after its paper row
    return both.assign(_at=rank, _second=[of == "report" for of in both["policy_of"]]) \
        .sort_values(["_at", "_second"], kind="stable").drop(columns=["_at", "_second"]).reset_index(drop=True)


class _Banks:
    """Every measure's values on every matrix its checks read, a few measures at a time (sums shared)."""

    CHUNK = 8   # measures per block: bounds the memory the values take

    def __init__(self, spaces, props, policy, seed, n_random):
        self.spaces, self.seed, self.n_random = spaces, seed, n_random
        self.pids: dict = {}         # policy -> the properties checked under it
        for p in props:
            self.pids.setdefault(policy or PAPER_POLICY[p.paper], []).append(p.id)
        self.done: dict = {}

    def of(self, m: Measure, ms) -> dict:
        key = id(m)
        if key not in self.done:
            self.done.clear()          # the previous block is finished with
            at = next(i for i, x in enumerate(ms) if x is m)
            self._fill(ms[at:at + self.CHUNK])
        return self.done[key]

    def _fill(self, block):
        for m in block:
            self.done[id(m)] = {}
        for K, space in self.spaces.items():
            chosen = [m for m in block if not ("positive" in m.needs and K != 2)]
            if not chosen:
                continue
            for pol, pids in self.pids.items():
                U, inverse, slices = stacked(space, pids, self.seed, self.n_random)
                with shared_sums(), quiet_errors():
                    for m in chosen:
                        bank = evaluate_bank(lambda mats, m=m, pol=pol: P.evaluate_measure(m, mats, policy=pol), U, inverse, slices)
                        if bank is not None:
                            self.done[id(m)][(K, pol)] = bank


# ---------------------------------------------------------------------- claims


def _verdict_of(x) -> str:
    if isinstance(x, str):
        if x != P.NA:
            raise MeasureError(f"a claim value must be True, False, 'n/a' or a dict; got {x!r}")
        return P.NA
    return P.SATISFIED if bool(x) else P.VIOLATED


def parse_claims(measure: Measure) -> list[dict]:
    """The measure's ``claims`` as records (paper, property, setting, claim, expected, why)."""
    out = []
    for key, value in (measure.claims or {}).items():
        parts = str(key).split(".")
        if len(parts) not in (2, 3) or parts[0] not in PAPERS:
            raise MeasureError(f"measure {measure.id!r}: claim key {key!r} must be paper.PROPERTY[.setting] with "
                               f"paper one of {', '.join(PAPERS)}")
        paper, pid = parts[0], parts[1]
        setting = parts[2] if len(parts) == 3 else None
        prop = PROPERTIES.get(pid)
        if prop is None or prop.paper != paper:
            raise MeasureError(f"measure {measure.id!r}: claim {key!r} names no property of {paper}")
        if setting not in (None, "binary", "multiclass"):
            raise MeasureError(f"measure {measure.id!r}: claim {key!r}: setting must be binary or multiclass")
        if isinstance(value, dict):
            if set(value) - {"paper", "audit", "why"} or "paper" not in value or "audit" not in value:
                raise MeasureError(f"measure {measure.id!r}: claim {key!r} must be {{'paper', 'audit', 'why'}}")
            claim, expected, why = _verdict_of(value["paper"]), _verdict_of(value["audit"]), value.get("why", "")
        else:
            claim = expected = _verdict_of(value)
            why = ""
        out.append({"paper": paper, "property": pid, "setting": setting, "claim": claim, "expected": expected,
                    "why": why})
    return out


class _Identified(Protocol):
    """What :func:`claim_for` reads of a property: its id."""

    @property
    def id(self) -> str: ...


def claim_for(claims, prop: _Identified, setting: str) -> dict | None:
    """The claim record about ``prop`` in ``setting`` (one for that setting before a general one)."""
    specific = [c for c in claims if c["property"] == prop.id and c["setting"] == setting]
    general = [c for c in claims if c["property"] == prop.id and c["setting"] is None]
    return (specific or general or [None])[0]


def claims_frame(measures=None) -> pd.DataFrame:
    """Every declared claim: ``(measure, paper, property, setting, claim, expected, why)``."""
    ms = catalogue() if measures is None else [get(m) for m in measures]
    rows = [{"measure": m.id, **c} for m in ms for c in parse_claims(m)]
    return pd.DataFrame(rows, columns=["measure", "paper", "property", "setting", "claim", "expected", "why"])


def check_claims(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of an :func:`audit` frame that carry a claim (``agrees_with_paper``, ``as_expected``)."""
    return frame[frame["as_expected"].notna()].reset_index(drop=True)

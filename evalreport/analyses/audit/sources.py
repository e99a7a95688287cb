"""Where in the papers a registry claim is stated: the table cell or the numbered statement.

The audit frame's ``paper_source`` column. The statements are declared here once, as the papers
print them:

* Sebastiani (2015): Properties 4.1-4.10 name the measures that fail an axiom,
  Properties 5.1-5.8 prove that K satisfies axioms 1-8 (:data:`SEBASTIANI_STATEMENTS`); DOR's and
  LAM's IMB is "cannot say" in the paragraph after Property 4.10;
* Opitz (2022): Table 5, one row per measure (:data:`OPITZ_TABLE_5_ROWS`); GmacR's
  properties are stated in section 5 below the table;
* Gösgens et al. (2021): Table 2, one row per measure (:data:`GOESGENS_TABLE_2_ROWS`),
  and the averaging rows for the one-vs-rest averages, whose claims are derived from the binary
  measure's row (:func:`evalreport.measures.binary.average_claims`).
"""
from __future__ import annotations

from evalreport.measures import ALIASES, get
from evalreport.measures.binary import AVERAGING_PRESERVES, average_claims

#: Sebastiani (2015): (statement, measures, axiom) as printed ("Property 4.6. ASP, DOR, LAM% do not satisfy Axiom 1")
SEBASTIANI_STATEMENTS = [
    ("Property 4.1", ("f1",), "MON"), ("Property 4.2", ("f1",), "CON"), ("Property 4.3", ("f1",), "CHA"),
    ("Property 4.4", ("f1",), "IMB"), ("Property 4.5", ("f1",), "SYM"),
    ("Property 4.6", ("asp", "dor", "lam"), "MON"), ("Property 4.7", ("asp", "mcc", "lam"), "CON"),
    ("Property 4.8", ("asp", "mcc"), "SDE"), ("Property 4.9", ("dor", "lam"), "WDE"),
    ("Property 4.10", ("accuracy", "asp"), "IMB"),
    *[(f"Property 5.{i}", ("k",), ax) for i, ax in enumerate(("MON", "CON", "SDE", "WDE", "FIX", "CHA", "IMB", "SYM"),
                                                                1)],
]

#: Gösgens et al. (2021), Table 2: measure id -> the row's name as printed
GOESGENS_TABLE_2_ROWS = {"f1": "F1 (binary)", "jaccard": "J (binary)", "mcc": "CC", "accuracy": "Acc",
                         "balanced_accuracy": "BA", "kappa": "κ", "confusion_entropy": "CE", "sba": "SBA",
                         "gm": "GM (binary)", "gm1": "GM (binary)", "correlation_distance": "CD"}

#: Opitz (2022), Table 5: measure id -> the row's name as printed
OPITZ_TABLE_5_ROWS = {"balanced_accuracy": "macro Recall", "macro_precision": "macro Prec.", "macro_f1": "macro F1",
                      "macro_f1_hm": "macro F1'", "kappa": "Kappa", "mcc": "MCC", "accuracy": "Accuracy"}

_OPITZ_COLUMN = {"PI": "PI (mono.)", "PII": "PII (class sens.)", "PIII": "PIII (decompose)",
                 "PIV": "PIV (prev. invar.)", "PV": "PV (chance correct)",
                 "PV_strict": "PV (chance correct): 'strict'", "PV_complete": "PV (chance correct): 'complete'"}


def _averages_of(measure_id: str) -> list[tuple[str, str]]:
    """``(binary measure, averaging)`` of every one-vs-rest average that this record (or an alias of it) is."""
    ids = [measure_id] + [a for a, (target, *_) in ALIASES.items() if target == measure_id]
    out = []
    for i in ids:
        base, _, avg = i.rpartition("_")
        if avg in AVERAGING_PRESERVES and base:
            try:
                get(base)
            except Exception:     # e.g. "precision_micro" is not an average of a measure "precision_micro"
                continue
            out.append((base, avg))
    return out


def _derived_from(measure_id: str, key: str) -> tuple[str, str] | None:
    for base, avg in _averages_of(measure_id):
        try:
            owner = get(base)
        except Exception:
            continue
        if key in average_claims(owner.claims or {}, avg, base):
            return base, avg
    return None


def paper_source(measure_id: str, paper: str, prop: str, setting: str | None, key: str) -> str:
    """Where ``paper`` states the claim ``key`` (``goesgens.Mon.multiclass``) of a measure."""
    if paper == "sebastiani":
        hit = next((s for s, ms, ax in SEBASTIANI_STATEMENTS if measure_id in ms and ax == prop), None)
        if hit:
            return f"Sebastiani (2015), {hit}"
        if prop in ("SDE", "WDE") and measure_id == "f1":
            return "Sebastiani (2015), section 3.2 (F1 is undefined when TP = FP = FN = 0)"
        if prop == "IMB" and measure_id in ("dor", "lam"):
            return ("Sebastiani (2015), after Property 4.10 (IMB cannot be decided: undefined for the trivial "
                    "classifiers)")
        return "Sebastiani (2015), sections 4-5"
    if paper == "opitz":
        col = _OPITZ_COLUMN.get(prop, prop)
        if measure_id in OPITZ_TABLE_5_ROWS:
            return f"Opitz (2022), Table 5, row {OPITZ_TABLE_5_ROWS[measure_id]}, column {col}"
        if measure_id == "gmean_recall":
            return "Opitz (2022), section 5 ('GmacR, same as macR, has all five properties')"
        return "Opitz (2022)"
    derived = _derived_from(measure_id, key) if setting == "multiclass" else None
    if derived is not None:
        base, avg = derived
        row = GOESGENS_TABLE_2_ROWS.get(base, get(base).label)
        return (f"Gösgens et al. (2021), Table 2, averaging row {avg.capitalize()}, column {prop}, with row {row} "
                f"(docs/audit.md#averaging-rule)")
    own_row = GOESGENS_TABLE_2_ROWS.get(measure_id)
    if own_row is None:
        return "Gösgens et al. (2021), Table 2"
    return f"Gösgens et al. (2021), Table 2, row {own_row}, column {prop}" + (f" ({setting})" if setting else "")

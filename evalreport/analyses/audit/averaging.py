"""The averaging rows of Gösgens et al. (2021), Table 2, computed: which properties micro, macro and weighted
one-vs-rest averaging preserve.

Table 2 ends with "Preserving properties by various averaging types": for each averaging and each
property, ✓ if the average of *every* binary measure with the property has it in the multi-class
setting, ✗ if *some* binary measure with it loses it. The rows are declared once, next to the
code that builds the averages (:data:`evalreport.measures.binary.AVERAGING_PRESERVES`), and the
claims of every generated average are derived from them
(:func:`evalreport.measures.binary.average_claims`).

Here the rows are checked on the registered measures: every binary measure is audited in the
binary setting (K = 2, class 1 positive), its three averages in the multi-class setting, and a
✓ is reproduced when every average of a binary measure that has the property has it too, a ✗
when at least one does not (the witness, with its counterexample). docs/audit.md#averaging
lists where the computation differs from the table, and why.
"""
from __future__ import annotations

from typing import Any

import pandas as pd

from evalreport.errors import MeasureError
from evalreport.measures import get
from evalreport.measures.binary import AVERAGING_PRESERVES, BINARY, TABLE_2_PROPERTIES

__all__ = ["AVERAGINGS", "preservation", "table_2_averaging"]

AVERAGINGS = tuple(AVERAGING_PRESERVES)

PRESERVATION_COLUMNS = ["averaging", "property", "paper", "base", "binary", "average", "verdict", "counterexample",
                        "detail", "paper_claim", "agrees_with_paper", "as_expected"]
TABLE_COLUMNS = ["averaging", "property", "paper", "audit", "agrees_with_paper", "with_property", "kept", "lost", "witness",
                 "counterexample"]


def _mark(preserved: bool) -> str:
    return "✓" if preserved else "✗"


def preservation(bases=None, properties=None, *, K: int = 3, max_n: int = 8, seed: int = 0,
                 policy: str | None = None, n_random: int = 400) -> pd.DataFrame:
    """Audit every binary measure (K = 2) and its three one-vs-rest averages (K classes).

    ``bases``: ids of binary declarations (default: all, parametrised ones at their default
    parameters). ``properties``: ids among the nine of Gösgens et al. (2021) (default: all nine). The other
    options are :func:`~evalreport.analyses.audit.audit`'s.

    Returns a tidy frame, one row per (averaging, property, binary measure): ``paper`` (``✓``
    if Table 2 says the averaging preserves the property), ``binary`` (the binary measure's
    verdict), ``average`` (the average's id) with its ``verdict``, ``counterexample`` and
    ``detail``, and its derived ``paper_claim`` with ``agrees_with_paper`` and ``as_expected`` as in
    the audit frame.
    """
    from evalreport.analyses.audit import audit  # the package imports this module

    bases = list(BINARY) if bases is None else [str(b) for b in bases]
    unknown = [b for b in bases if b not in BINARY]
    if unknown:
        raise MeasureError(f"not binary declarations: {', '.join(unknown)}; known: {', '.join(BINARY)}")
    props = list(TABLE_2_PROPERTIES) if properties is None else [str(p) for p in properties]
    bad = [p for p in props if p not in TABLE_2_PROPERTIES]
    if bad:
        raise MeasureError(f"Table 2 has no property {', '.join(bad)}; its properties: {', '.join(TABLE_2_PROPERTIES)}")
    qualified = [f"goesgens.{p}" for p in props]
    opts: dict[str, Any] = {"max_n": max_n, "seed": seed, "policy": policy, "n_random": n_random,
                            "conditions": False}
    binary = audit([BINARY[b] for b in bases], qualified, classes=(2,), **opts)
    # get(): some averages are aliases of a hand-declared record (precision_macro = macro_precision)
    averages = audit([get(f"{b}_{avg}") for b in bases for avg in AVERAGINGS], qualified, classes=(K,), **opts)
    binary = binary.set_index(["measure", "property"]).verdict
    averages = averages.set_index(["measure", "property"])
    rows = []
    for avg in AVERAGINGS:
        for p in props:
            for b in bases:
                a = averages.loc[(f"{b}_{avg}", p)]
                rows.append({"averaging": avg, "property": p, "paper": _mark(AVERAGING_PRESERVES[avg][p]), "base": b,
                             "binary": binary.loc[(b, p)], "average": f"{b}_{avg}", "verdict": a.verdict,
                             "counterexample": a.counterexample, "detail": a.detail,
                             "paper_claim": a.paper_claim, "agrees_with_paper": a.agrees_with_paper,
                             "as_expected": a.as_expected})
    return pd.DataFrame(rows, columns=PRESERVATION_COLUMNS)


def table_2_averaging(frame: pd.DataFrame | None = None, **options) -> pd.DataFrame:
    """Table 2's averaging rows as computed: one row per (averaging, property).

    ``frame``: a :func:`preservation` frame (computed with ``options`` if not given). Columns:
    ``paper`` (✓/✗ as printed), ``audit`` (✓ if every average of a binary measure with the
    property has it, ✗ if one does not, ``""`` if no binary measure has it), ``agrees_with_paper``,
    ``with_property`` (how many binary measures have it), ``kept`` (how many of their averages
    keep it), ``lost`` (the binary measures whose average loses it, comma-separated), ``witness``
    (the first of those averages) and its ``counterexample``.
    """
    f = preservation(**options) if frame is None else frame
    rows = []
    for (avg, p), g in f.groupby(["averaging", "property"], sort=False):
        have = g[g.binary == "satisfied"]
        lost = have[have.verdict == "violated"]
        audit_mark = "" if have.empty else _mark(lost.empty)
        rows.append({"averaging": avg, "property": p, "paper": g.paper.iloc[0], "audit": audit_mark,
                     "agrees_with_paper": None if not audit_mark else audit_mark == g.paper.iloc[0],
                     "with_property": len(have), "kept": int((have.verdict == "satisfied").sum()),
                     "lost": ", ".join(lost.base), "witness": lost.average.iloc[0] if len(lost) else "",
                     "counterexample": lost.counterexample.iloc[0] if len(lost) else ""})
    return pd.DataFrame(rows, columns=TABLE_COLUMNS)

"""Measures' labels as readers see them: the registry's label, and a short one that fits an axis
or a table heading. Here, not in the charts, so that what needs only a label (a report's
subtitle, the appendix's tables) does not import Altair."""
from __future__ import annotations

import re

__all__ = ["SHORT_LABEL", "measure_label", "short_measure_label"]

#: Long words of registry labels and their usual abbreviations (for the short labels).
_ABBREVIATIONS = {"Matthews correlation coefficient": "MCC",
                  "weighted one-vs-rest": "weighted"}   # ROC AUC (weighted): apart from the plain ROC AUC
#: Above this many characters a short label is abbreviated.
SHORT_LABEL = 22


def measure_label(measure_id) -> str:
    """The registry's label of a measure (e.g. ``sba`` -> "Symmetric balanced accuracy"); the
    id itself when it is not a registered measure (a scenario, a fold estimator)."""
    try:
        from evalreport.measures import get

        return str(get(str(measure_id)).label)
    except Exception:
        return str(measure_id)


def short_measure_label(measure_id) -> str:
    """A label that fits an axis: the registry label without its explanation in parentheses
    ("Macro F1' (F1 of macro P and R)" -> "Macro F1'"), an acronym the label gives for a
    long name ("Geometric mean of class recalls (GmacR)" -> "GmacR"), common abbreviations
    ("Matthews correlation coefficient (macro)" -> "MCC (macro)")."""
    label = measure_label(measure_id)
    if len(label) <= SHORT_LABEL:
        return label
    for long, short in _ABBREVIATIONS.items():
        label = label.replace(long, short)
    label = re.sub(r"\(\s*\)", "", label)
    depth = 0
    for ch in label:
        depth += (ch == "(") - (ch == ")")
        if depth > 1 or depth < 0:     # nested brackets ("F' (F / 2(1 - F))"): a formula, keep it
            return label
    parts = re.findall(r"\(([^()]*)\)", label)
    base = re.sub(r"\s*\([^()]*\)", "", label).strip()
    keep = []
    for part in parts:
        if re.fullmatch(r"[A-Za-z][\w'-]{0,7}", part.strip()) and any(ch.isupper() for ch in part) \
                and len(base) > SHORT_LABEL - 6:
            return part.strip()          # "(GmacR)": the acronym the label itself gives
        if len(part) <= 8 and "eq." not in part and "," not in part:
            keep.append(part.strip())    # "(macro)": part of the name
    short = " ".join([base] + [f"({k})" for k in keep]).strip() or str(measure_id)
    return short

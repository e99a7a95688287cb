"""Verdicts under a condition the data may meet: every class occurs in the gold labels, or in the
gold and the predicted labels.

The definitions of Gösgens et al. (2021) quantify over *any* labeling, so a class may be absent, and
a measure that averages over the classes where a ratio is defined (balanced accuracy skips
c_ii / a_i when a_i = 0) can fail a property only there (docs/audit.md#absent-classes). A report
whose gold labels contain every class never meets those matrices, so it asks for the property on the
matrices its data can produce:

``gold``
    only confusion matrices whose every row is non-empty (every class occurs in the gold labels);
``every``
    only matrices whose every row and column is non-empty (every class also predicted).

A restricted check is the same check on a :class:`ConditionedCase`: values on matrices outside the
condition are set aside (NaN), which every check already skips (:mod:`.properties`). Strong
definiteness (SDE), the check *about* undefined values, counts only the matrices of
:attr:`Case.domain`. CON, WDE, FIX, IMB and CHA quantify over every classifier on a test set
(restricting predictions would change their meaning: CHA would become a conditional expectation), so
they are restricted by the test set only: their ``every`` verdict is their ``gold`` one
(:data:`TEST_SET_ONLY`).

A property that holds on all matrices (steps, groups, random classifiers) of a kind holds on a
subset, so :func:`~evalreport.analyses.audit.audit` re-checks only the violated and n/a verdicts and
the existential PII (:data:`EXISTENTIAL`); tests/test_audit_conditions.py checks this shortcut
against the full restricted checks.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalreport.analyses.audit import batches as _b
from evalreport.analyses.audit.properties import Case

#: condition -> the audit frame's column of the verdict under it
COLUMNS = {"gold": "verdict_every_class_in_gold", "every": "verdict_every_class_in_gold_and_predicted"}

#: condition -> the words a table uses for it
WORDS = {"gold": "every class occurs in the gold labels",
         "every": "every class occurs in the gold labels and in every system's predictions"}

#: properties whose quantifier runs over every classifier on a test set: restricted by the test set only
TEST_SET_ONLY = frozenset({"CON", "WDE", "FIX", "CHA", "IMB"})


#: properties that ask for SOME matrix (PII: one where the class of an item matters): the only
#: ones whose "satisfied" on all matrices may not carry over to a subset
EXISTENTIAL = frozenset({"PII"})


def condition_for(prop_id: str, condition: str) -> str:
    """The restriction a property is checked under when ``condition`` is asked for."""
    return "gold" if prop_id in TEST_SET_ONLY else condition


def meets(mats, condition: str) -> np.ndarray:
    """Which matrices of a batch (..., K, K) meet ``condition`` (rows = gold, columns = predicted)."""
    mats = np.asarray(mats)
    ok = (mats.sum(axis=-1) > 0).all(axis=-1)
    if condition == "every":
        ok &= (mats.sum(axis=-2) > 0).all(axis=-1)
    elif condition != "gold":
        raise ValueError(f"unknown condition {condition!r}")
    return ok


@dataclass
class ConditionedCase(Case):
    """A :class:`Case` whose values outside the condition are set aside (NaN); see the module."""

    condition: str = "gold"

    @property
    def domain(self) -> np.ndarray:
        return self.space.memo(("condition", self.condition), lambda: meets(self.space.mats, self.condition))

    def evaluate(self, mats) -> np.ndarray:
        v = super().evaluate(mats)
        return np.where(meets(mats, self.condition), v, np.nan) if len(v) else v

    def values_of(self, name) -> np.ndarray:
        if name == ("space",):
            mask = self.domain
        else:
            mask = self.space.memo(("condition", self.condition, name, self.seed, self.n_random),
                                   lambda: meets(_b.batch(self.space, name, self.seed, self.n_random),
                                                 self.condition))
        if self.bank is not None and name in self.bank:
            v = self.bank[name]
        else:
            v = Case.evaluate(self, _b.batch(self.space, name, self.seed, self.n_random))
        return np.where(mask, v, np.nan)

    def values_or(self, name, mats) -> np.ndarray:
        if self.bank is not None and name in self.bank:
            return np.where(meets(mats, self.condition), self.bank[name], np.nan)
        return self.evaluate(mats)


#: the marks of the verdicts in the audit's tables
MARK = {"satisfied": "✓", "violated": "✗", "n/a": "n/a"}

#: the footnote mark of a qualified ✗, by the condition under which the property holds
QUALIFIER = {"gold": "¹", "every": "²"}

#: what each footnote mark says
FOOTNOTE = {"gold": "fails only where a class is absent from the gold labels (holds where every class occurs in "
                    "them)",
            "every": "fails only where a class is absent from the gold or the predicted labels (holds where every "
                     "class occurs in both)"}


def failing_only_with(verdict: str, gold: str, every: str) -> str | None:
    """``"gold"`` if a violated property holds where every class occurs in the gold labels,
    ``"every"`` if only where every class also occurs in the predictions, None otherwise."""
    if verdict != "violated":
        return None
    if gold == "satisfied":
        return "gold"
    if every == "satisfied":
        return "every"
    return None


def mark(verdict: str, gold: str = "", every: str = "") -> str:
    """The mark of a verdict; a ✗ that holds under a condition carries its footnote mark: ``✗¹``
    fails only on matrices where a class is absent from the gold labels, ``✗²`` only where a class
    is absent from the gold or the predicted labels (:data:`FOOTNOTE`)."""
    why = failing_only_with(verdict, gold, every)
    return MARK.get(verdict, verdict) + (QUALIFIER[why] if why else "")


def footnotes(marks) -> list[str]:
    """The footnotes (``"✗¹: fails only ..."``) of the qualified marks that occur in ``marks``."""
    text = "".join(str(m) for m in marks)
    return [f"✗{q}: {FOOTNOTE[c]}" for c, q in QUALIFIER.items() if f"✗{q}" in text]

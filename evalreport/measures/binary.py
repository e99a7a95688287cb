"""Binary measures, declared once as functions of (TP, FP, FN, TN).

Each declaration yields up to four registry records:

``<id>``
    for the positive class given by the user (``--positive``); on K > 2 classes this is the
    one-vs-rest matrix of that class.
``<id>_macro``, ``<id>_micro``, ``<id>_weighted``
    one-vs-rest averages as defined by Gösgens et al. (2021, section 2): macro = plain
    mean of the K one-vs-rest values; micro = the measure of the summed one-vs-rest matrices
    (TP = sum c_ii, FP = FN = N - sum c_ii, TN = (K - 2) N + sum c_ii); weighted = mean
    weighted by the gold class sizes a_i.

Where the plain id already names a multi-class measure that equals the binary one on two
classes (``accuracy``, ``mcc``, ``kappa``, ``balanced_accuracy``, ``k``), only the averages
are generated here; the multi-class record owns the plain id.

Names of the cells follow Sebastiani (2015), section 2.1: AP = TP + FN, AN = TN + FP,
PP = TP + FP, PN = TN + FN, N = TP + FP + FN + TN (the items); K is the number of classes.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from evalreport.errors import MeasureError
from evalreport.measures._core import REGISTRY, Interval, Measure, register, register_alias
from evalreport.measures._shared import shared

P000 = "Sebastiani 2015"
P003 = "Hand, Christen & Kirielle 2021"
P004 = "Gösgens et al. 2021"
AVG_SOURCE = f"{P004}, section 2 (micro / macro / weighted averaging)"

BINARY: dict[str, Measure] = {}


def ovr_counts(C):
    """One-vs-rest counts of every class: TP, FP, FN, TN, each of shape ``(..., K)``."""
    return shared("ovr_counts", C, _ovr_counts)


def _ovr_counts(C):
    d = np.diagonal(C, axis1=-2, axis2=-1)
    a = C.sum(axis=-1)            # gold class sizes (row sums)
    b = C.sum(axis=-2)            # predicted class sizes (column sums)
    n = C.sum(axis=(-2, -1))[..., None]
    return d, b - d, a - d, n - a - b + d


def positive_counts(C, p: int):
    """TP, FP, FN, TN of class ``p`` against the rest, each of shape ``C.shape[:-2]``."""
    tp, fp, fn, tn = ovr_counts(C)
    return tp[..., p], fp[..., p], fn[..., p], tn[..., p]


# ------------------------------------------ Gösgens et al. (2021), Table 2: what each averaging preserves

#: The nine properties of Gösgens et al. (2021), Table 2, in the paper's column order.
TABLE_2_PROPERTIES = ("Max", "Min", "CSym", "Sym", "Dist", "Mon", "SMon", "CB", "ACB")

#: Gösgens et al. (2021), Table 2, its last three rows ("Preserving properties by various averaging types"),
#: as printed.
#: ✓: the average of EVERY binary measure with the property has it in the multi-class setting;
#: ✗: the property is not preserved, i.e. SOME binary measure with it has an average without it.
_TABLE_2_AVERAGING_ROWS = {
    #           Max Min CSym Sym Dist Mon SMon CB ACB
    "micro":    "✓   ✗   ✓    ✓   ✓    ✓   ✗    ✗  ✗",
    "macro":    "✓   ✗   ✓    ✓   ✓    ✓   ✗    ✓  ✓",
    "weighted": "✓   ✗   ✓    ✗   ✗    ✓   ✗    ✓  ✓",
}
AVERAGING_PRESERVES: dict[str, dict[str, bool]] = {
    avg: dict(zip(TABLE_2_PROPERTIES, [mark == "✓" for mark in row.split()], strict=True))
    for avg, row in _TABLE_2_AVERAGING_ROWS.items()}

#: Where evalreport's audit cannot reproduce a claim derived from those rows: (averaging, property) ->
#: (the binary measures whose average differs, the docs/audit.md anchor with the counterexample and why).
AVERAGING_AUDIT_DIFFERS: dict[tuple[str, str], tuple[tuple[str, ...], str]] = {
    ("macro", "Max"): (("mcc",), "avg-max-skipped"),
    ("weighted", "Max"): (("mcc",), "avg-max-skipped"),
    ("macro", "Mon"): (("balanced_accuracy", "mcc", "kappa", "gm", "gm1"), "avg-mon-skipped"),
    ("weighted", "Mon"): (("accuracy", "balanced_accuracy", "mcc", "kappa", "f1", "jaccard", "gm", "gm1"),
                          "weighted-mon"),
}


def _paper_says(claims: Mapping, prop: str) -> bool:
    """Does the paper give the binary measure ``prop`` (its binary-setting claim, else its general one)?"""
    value = claims.get(f"goesgens.{prop}.binary", claims.get(f"goesgens.{prop}"))
    if isinstance(value, Mapping):
        value = value.get("paper")
    return value is True


def average_claims(binary_claims: Mapping, averaging: str, base: str = "") -> dict:
    """The claims of the ``averaging`` one-vs-rest average of a binary measure, derived from
    :data:`AVERAGING_PRESERVES` and the binary measure's own claims (docs/audit.md#averaging-rule).

    Only what follows logically is claimed, for the multi-class setting:

    * the average HAS property P if the paper gives the binary measure P and the averaging
      preserves P (✓);
    * the average LACKS Dist if it has Mon and CB by the first rule: Theorem 1 (no measure has
      monotonicity, distance and constant baseline) holds for every m >= 2, its proof only uses
      labelings over two of the m classes.

    A ✗ alone claims nothing: it says that SOME binary measure with P loses P when averaged, not
    that this one does. Where the audit cannot agree (:data:`AVERAGING_AUDIT_DIFFERS`) the claim
    is ``{"paper": ..., "audit": ..., "why": ...}``.
    """
    if averaging not in AVERAGING_PRESERVES:
        raise MeasureError(f"unknown averaging {averaging!r}; one of {', '.join(AVERAGING_PRESERVES)}")
    keeps = {p for p in TABLE_2_PROPERTIES if _paper_says(binary_claims, p) and AVERAGING_PRESERVES[averaging][p]}
    derived = {p: True for p in keeps}
    if {"Mon", "CB"} <= keeps:
        if "Dist" in keeps:
            raise MeasureError(f"{base or 'a binary measure'} is claimed to have Mon, Dist and CB, "
                               "which Theorem 1 of Gösgens et al. (2021) rules out")
        derived["Dist"] = False
    out = {}
    for p in TABLE_2_PROPERTIES:
        if p not in derived:
            continue
        bases, anchor = AVERAGING_AUDIT_DIFFERS.get((averaging, p), ((), ""))
        value = derived[p]
        out[f"goesgens.{p}.multiclass"] = (
            {"paper": value, "audit": not value, "why": f"docs/audit.md#{anchor}"} if base in bases else value)
    return out


class _AverageClaims(Mapping):
    """The claims of ``<base>_<averaging>``, derived by :func:`average_claims` on first use: the record
    that holds the binary measure's claims may be registered later (``mcc``, ``kappa``, ... are
    multi-class records that equal the binary measure on two classes)."""

    def __init__(self, base: str, averaging: str, owner: Callable[[], Measure | None]):
        self.base, self.averaging, self._owner = base, averaging, owner
        self._data: dict | None = None

    def _claims(self) -> dict:
        if self._data is None:
            owner = self._owner()
            self._data = average_claims(owner.claims if owner is not None else {}, self.averaging, self.base)
        return self._data

    def __getitem__(self, key):
        return self._claims()[key]

    def __iter__(self):
        return iter(self._claims())

    def __len__(self):
        return len(self._claims())

    def __repr__(self):
        return repr(self._claims())


def binary(id: str, label: str, *, plain: bool = True, chance=None, **meta):
    """Declare a binary measure ``f(tp, fp, fn, tn, ctx)`` and register its records."""

    def deco(f):
        def at_positive(C, ctx):
            return f(*positive_counts(C, ctx.positive), ctx)

        at_positive.__wrapped__ = f  # the function of (TP, FP, FN, TN), for per-class values

        base = Measure(id=id, label=label, fn=at_positive, kind="binary", needs=("positive",),
                       chance=chance, base=id, **meta)
        BINARY[id] = base
        if plain:
            register(base)
        # the binary measure's claims: its own, or those of the multi-class record that owns the plain id
        owner = (lambda: BINARY[id]) if plain else (lambda: REGISTRY.get(id))
        for avg in ("macro", "micro", "weighted"):
            register(Measure(
                id=f"{id}_{avg}", label=f"{label} ({avg})", fn=_averaged(f, avg, label), kind="multiclass",
                averaging=avg, class_average=avg, base=id,
                source=f"{meta.get('source', '')}; {AVG_SOURCE}",
                formula=f"{avg}-average over the K one-vs-rest matrices of: {meta.get('formula', '')}",
                range=meta.get("range", (0.0, 1.0)), higher_is_better=meta.get("higher_is_better", True),
                # the binary baseline carries over where the averaging preserves a constant baseline (Table 2)
                chance=chance if AVERAGING_PRESERVES[avg]["CB"] else None,
                undefined=(f"per class as for {id}: " + meta.get("undefined", "never")
                           + ("; with the nan policy undefined classes are skipped in the average, "
                              "with zero/one they count as 0/1" if avg != "micro" else "")),
                convention=meta.get("convention"), convention_source=meta.get("convention_source", ""),
                params=meta.get("params", {}), domain=meta.get("domain", {}), claims=_AverageClaims(id, avg, owner),
            ))
        return f

    return deco


def _averaged(f, avg: str, label: str):
    def fn(C, ctx):
        tp, fp, fn_, tn = ovr_counts(C)
        if avg == "micro":    # (the TN of a class that does not count would add n per such class)
            return f(ctx.class_sum(tp), ctx.class_sum(fp), ctx.class_sum(fn_), ctx.class_sum(tn), ctx)
        first = len(ctx.events)
        per_class = f(tp, fp, fn_, tn, ctx)
        weights = None if avg == "macro" else tp + fn_  # gold class sizes a_i
        if weights is not None:
            # a class absent from the gold labels has weight 0: its 0/0 cannot change the value, so no event
            ctx.events[first:] = [(text, mask & (weights > 0)) for text, mask in ctx.events[first:]]
        return ctx.mean(per_class, weights=weights, what=f"per-class {label}")

    return fn


# --------------------------------------------------------------------- simple measures (Table 1)

R01: dict[str, Any] = {"range": (0.0, 1.0)}


@binary("recall", "Recall (sensitivity, TPR)", source=f"{P000}, Table 1", formula="TP / (TP + FN)",
        undefined="AP = 0 (no gold positives)", convention=0.0,
        convention_source="scikit-learn zero_division default; Opitz 2022, after eq. 18", **R01)
def recall(tp, fp, fn, tn, ctx):
    return ctx.div(tp, tp + fn, "recall: no gold positives (AP = TP + FN = 0)")


@binary("miss_rate", "Miss rate (FNR)", source=f"{P000}, Table 1", formula="FN / (TP + FN)",
        undefined="AP = 0", higher_is_better=False, **R01)
def miss_rate(tp, fp, fn, tn, ctx):
    return ctx.div(fn, tp + fn, "miss rate: no gold positives (AP = 0)")


@binary("precision", "Precision (PPV)", source=f"{P000}, Table 1", formula="TP / (TP + FP)",
        undefined="PP = 0 (no predicted positives)", convention=0.0,
        convention_source="scikit-learn zero_division default; Opitz 2022, after eq. 18", **R01)
def precision(tp, fp, fn, tn, ctx):
    return ctx.div(tp, tp + fp, "precision: no predicted positives (PP = TP + FP = 0)")


@binary("fdr", "False discovery rate", source=f"{P000}, Table 1", formula="FP / (TP + FP)",
        undefined="PP = 0", higher_is_better=False, **R01)
def fdr(tp, fp, fn, tn, ctx):
    return ctx.div(fp, tp + fp, "FDR: no predicted positives (PP = 0)")


@binary("fallout", "Fallout (FPR)", source=f"{P000}, Table 1", formula="FP / (FP + TN)",
        undefined="AN = 0 (no gold negatives)", higher_is_better=False, **R01)
def fallout(tp, fp, fn, tn, ctx):
    return ctx.div(fp, fp + tn, "fallout: no gold negatives (AN = FP + TN = 0)")


@binary("specificity", "Specificity (TNR)", source=f"{P000}, Table 1", formula="TN / (FP + TN)",
        undefined="AN = 0 (no gold negatives)", **R01)
def specificity(tp, fp, fn, tn, ctx):
    return ctx.div(tn, fp + tn, "specificity: no gold negatives (AN = 0)")


@binary("npv", "Negative predictive value", source=f"{P000}, Table 1", formula="TN / (FN + TN)",
        undefined="PN = 0 (no predicted negatives)", **R01)
def npv(tp, fp, fn, tn, ctx):
    return ctx.div(tn, fn + tn, "NPV: no predicted negatives (PN = FN + TN = 0)")


@binary("elusion", "Elusion (FOR)", source=f"{P000}, Table 1", formula="FN / (FN + TN)",
        undefined="PN = 0", higher_is_better=False, **R01)
def elusion(tp, fp, fn, tn, ctx):
    return ctx.div(fn, fn + tn, "elusion: no predicted negatives (PN = 0)")


# --------------------------------------------------------------------- combined measures (Table 2)


@binary("accuracy", "Accuracy", plain=False, source=f"{P000}, Table 2", formula="(TP + TN) / N",
        undefined="N = 0", **R01)
def accuracy(tp, fp, fn, tn, ctx):
    return ctx.div(tp + tn, tp + fp + fn + tn, "empty confusion matrix (N = 0)")


@binary("error_rate", "Error rate", source=f"{P000}, section 1 (complement of accuracy)",
        formula="(FP + FN) / N", undefined="N = 0", higher_is_better=False, **R01)
def error_rate(tp, fp, fn, tn, ctx):
    return ctx.div(fp + fn, tp + fp + fn + tn, "empty confusion matrix (N = 0)")


def _fbeta(tp, fp, fn, beta, ctx, name):
    b2 = beta * beta
    return ctx.div((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp,
                   f"{name}: no gold and no predicted positives (TP = FP = FN = 0)")


@binary("f1", "F1", claims={
            # Sebastiani (2015), Properties 4.1-4.10, 5.1-5.8 and section 3.2
            "sebastiani.MON.binary": False,
            "sebastiani.CON.binary": {"paper": False, "audit": True, "why": "docs/audit.md#f1-con"},
            "sebastiani.CHA.binary": False, "sebastiani.IMB.binary": False, "sebastiani.SYM.binary": False,
            "sebastiani.SDE.binary": False, "sebastiani.WDE.binary": False,
            # Gösgens et al. (2021), Table 2 (✓/✗ = binary/multiclass)
            "goesgens.Max": True, "goesgens.Min": False, "goesgens.CSym": False, "goesgens.Sym": True,
            "goesgens.Dist": False,
            "goesgens.Mon": {"paper": True, "audit": False, "why": "docs/audit.md#f1-jaccard-mon"},
            "goesgens.SMon": False, "goesgens.CB": False, "goesgens.ACB": False,
        },
        source=f"{P000}, Table 2 and eq. 2", formula="2TP / (2TP + FP + FN)",
        undefined="TP = FP = FN = 0", convention=0.0,
        convention_source="scikit-learn zero_division default (Sebastiani 2015, section 4, discusses 0 vs 1)", **R01)
def f1(tp, fp, fn, tn, ctx):
    return _fbeta(tp, fp, fn, 1.0, ctx, "F1")


@binary("fbeta", "F-beta", source=f"{P004}, Table 1", params={"beta": 1.0}, domain={"beta": Interval(0.0)},
        formula="(1 + beta^2) TP / ((1 + beta^2) TP + beta^2 FN + FP)", undefined="TP = FP = FN = 0",
        convention=0.0, convention_source="scikit-learn zero_division default", **R01)
def fbeta(tp, fp, fn, tn, ctx):
    return _fbeta(tp, fp, fn, float(ctx.params.get("beta", 1.0)), ctx, "F-beta")


@binary("f_prime", "F' (F / 2(1 - F))", source=f"{P003}, section 2", formula="F/(2(1-F)) = TP / (FP + FN)",
        range=(0.0, float("inf")), undefined="FP = FN = 0 (no errors)")
def f_prime(tp, fp, fn, tn, ctx):
    return ctx.div(tp, fp + fn, "F': no errors (FP + FN = 0)")


@binary("jaccard", "Jaccard", claims={
            # Gösgens et al. (2021), Table 2 (✓/✗ = binary/multiclass)
            "goesgens.Max": True, "goesgens.Min": False, "goesgens.CSym": False, "goesgens.Sym": True,
            "goesgens.Dist": True,
            "goesgens.Mon": {"paper": True, "audit": False, "why": "docs/audit.md#f1-jaccard-mon"},
            "goesgens.SMon": False, "goesgens.CB": False, "goesgens.ACB": False,
        },
        source=f"{P004}, Table 1", formula="TP / (TP + FP + FN)",
        undefined="TP = FP = FN = 0", convention=0.0, convention_source="scikit-learn zero_division default",
        notes="Also called F* (Hand, Christen & Kirielle 2021, eq. 2: F* = F / (2 - F), a monotone transform "
              "of F1).", **R01)
def jaccard(tp, fp, fn, tn, ctx):
    return ctx.div(tp, tp + fp + fn, "Jaccard: no gold and no predicted positives (TP = FP = FN = 0)")


def binary_alias(id: str, of: str, *, label: str, source: str) -> None:
    """Another id for a declared binary measure (and for its three one-vs-rest averages, labelled
    as the average of the per-class values, which is what they are)."""
    register_alias(id, of, label=label, source=source)
    what = {"macro": "mean over classes", "micro": "of the summed one-vs-rest matrices",
            "weighted": "mean over classes weighted by gold size"}
    for avg in ("macro", "micro", "weighted"):
        register_alias(f"{id}_{avg}", f"{of}_{avg}", label=f"{label.split(' (')[0]} ({avg}: {what[avg]})",
                       source=f"{source}; {AVG_SOURCE}")


# Hand, Christen & Kirielle (2021), eq. 2: F* = F / (2 - F) = TP / (TP + FP + FN), which is the Jaccard coefficient. Per
# class only: f_star_macro is the mean of the per-class F*, not F1_macro / (2 - F1_macro).
binary_alias("f_star", "jaccard", label="F* (F / (2 - F))", source=f"{P003}, eq. 2 (F* = F/(2-F) = TP / (n - TN))")


@binary("k", "K (Sebastiani)", plain=False, source=f"{P000}, eq. 5", range=(-1.0, 1.0), chance=0.0,
        formula="rho + sigma - 1 if AP > 0 and AN > 0; 2 sigma - 1 if AP = 0; 2 rho - 1 if AN = 0",
        undefined="only N = 0 (eq. 5 defines the AP = 0 and AN = 0 cases)")
def k_binary(tp, fp, fn, tn, ctx):
    ap, an = tp + fn, tn + fp
    rho = ctx.div(tp, ap, None)
    sigma = ctx.div(tn, an, None)
    out = np.where((ap > 0) & (an > 0), rho + sigma - 1, np.where(ap == 0, 2 * sigma - 1, 2 * rho - 1))
    ctx.flag((ap == 0) & (an == 0), "K: empty confusion matrix (N = 0)")
    return out


@binary("informedness", "Informedness (Youden's J)", source=f"{P000}, section 5 (Youden's index)",
        formula="TP/AP + TN/AN - 1", range=(-1.0, 1.0), chance=0.0,
        undefined="AP = 0 or AN = 0 (unlike K, no fallback)")
def informedness(tp, fp, fn, tn, ctx):
    return (ctx.div(tp, tp + fn, "informedness: no gold positives (AP = 0)")
            + ctx.div(tn, tn + fp, "informedness: no gold negatives (AN = 0)") - 1)


# Powers (2011) defines markedness. Gösgens et al. (2021) cite that work only among studies of how
# measures differ (their ref. [21]); they neither define markedness nor list its properties, so the
# source, and with it the bibliography, names Powers alone.
@binary("markedness", "Markedness", source="Powers 2011; PPV + NPV - 1",
        formula="TP/PP + TN/PN - 1", range=(-1.0, 1.0), chance=0.0, undefined="PP = 0 or PN = 0")
def markedness(tp, fp, fn, tn, ctx):
    return (ctx.div(tp, tp + fp, "markedness: no predicted positives (PP = 0)")
            + ctx.div(tn, tn + fn, "markedness: no predicted negatives (PN = 0)") - 1)


@binary("balanced_accuracy", "Balanced accuracy", plain=False, source=f"{P000}, section 5; {P004}, Table 1",
        formula="(TP/AP + TN/AN) / 2", chance=0.5, undefined="AP = 0 or AN = 0", **R01)
def balanced_accuracy_binary(tp, fp, fn, tn, ctx):
    return 0.5 * (ctx.div(tp, tp + fn, "balanced accuracy: no gold positives (AP = 0)")
                  + ctx.div(tn, tn + fp, "balanced accuracy: no gold negatives (AN = 0)"))


@binary("mcc", "Matthews correlation coefficient", plain=False, source=f"{P000}, Table 2; {P004}, Table 1",
        formula="(TP TN - FP FN) / sqrt(AP AN PP PN)", range=(-1.0, 1.0), chance=0.0,
        undefined="AP, AN, PP or PN = 0", convention=0.0, convention_source="scikit-learn matthews_corrcoef")
def mcc_binary(tp, fp, fn, tn, ctx):
    a1, a0, b1, b0 = tp + fn, fp + tn, tp + fp, fn + tn
    return ctx.div(tp * tn - fp * fn, np.sqrt(a1 * a0 * b1 * b0),
                   "MCC: a gold or predicted class is empty (AP, AN, PP or PN = 0)")


@binary("kappa", "Cohen's kappa", plain=False, source=f"{P004}, Table 1",
        formula="2 (TP TN - FN FP) / (PP AN + AP PN)", range=(-1.0, 1.0), chance=0.0,
        undefined="PP AN + AP PN = 0 (all items in one class, gold and predicted alike)")
def kappa_binary(tp, fp, fn, tn, ctx):
    return ctx.div(2 * (tp * tn - fn * fp), (tp + fp) * (fp + tn) + (tp + fn) * (fn + tn),
                   "kappa: all items gold and predicted in one class (expected agreement = 1)")


@binary("dor", "Diagnostic odds ratio", claims={
            # Sebastiani (2015), Properties 4.1-4.10, 5.1-5.8 and section 3.2
            "sebastiani.MON.binary": False, "sebastiani.WDE.binary": False, "sebastiani.IMB.binary": "n/a",
        },
        source=f"{P000}, Table 2", formula="(TP TN) / (FP FN)",
        range=(0.0, float("inf")), undefined="FP = 0 or FN = 0 (Sebastiani 2015, Property 4.9)")
def dor(tp, fp, fn, tn, ctx):
    return ctx.div(tp * tn, fp * fn, "DOR: no false positives or no false negatives (FP FN = 0)")


@binary("lam", "LAM (logistic average misclassification)", claims={
            # Sebastiani (2015), Properties 4.1-4.10, 5.1-5.8 and section 3.2
            "sebastiani.MON.binary": False, "sebastiani.CON.binary": False, "sebastiani.WDE.binary": False,
            "sebastiani.IMB.binary": "n/a",
        },
        source=f"{P000}, Table 2",
        formula="logit^-1((logit(FP/AN) + logit(FN/AP)) / 2) = sqrt(FP FN) / (sqrt(FP FN) + sqrt(TP TN))",
        higher_is_better=False, undefined="FP FN = 0 and TP TN = 0 (logit of 0 and of 1 at once)",
        notes="Reported as a fraction, not a percentage. The closed form follows from logit(FP/AN) = "
              "log(FP/TN) and logit(FN/AP) = log(FN/TP); it agrees with the logit definition wherever "
              "that is defined, including its limits 0 (FP = 0 or FN = 0) and 1 (TP = 0 or TN = 0).",
        **R01)
def lam(tp, fp, fn, tn, ctx):
    bad = np.sqrt(fp * fn)
    good = np.sqrt(tp * tn)
    return ctx.div(bad, bad + good, "LAM: FP FN = 0 and TP TN = 0 (logit(0) + logit(1))")


@binary("asp", "Average set precision", claims={
            # Sebastiani (2015), Properties 4.1-4.10, 5.1-5.8 and section 3.2
            "sebastiani.MON.binary": False, "sebastiani.CON.binary": False, "sebastiani.SDE.binary": False,
            "sebastiani.IMB.binary": False,
        },
        source=f"{P000}, Table 2", formula="TP^2 / (AP PP)",
        undefined="AP = 0 or PP = 0 (Sebastiani 2015, Property 4.8)", **R01)
def asp(tp, fp, fn, tn, ctx):
    return ctx.div(tp * tp, (tp + fn) * (tp + fp), "ASP: no gold positives or no predicted positives")


def _power_mean(x, y, r: float):
    """(x^r / 2 + y^r / 2)^(1/r) for x, y >= 0; r = 0 is the geometric mean, r < 0 with a 0 gives 0."""
    if r == 0:
        return np.sqrt(x * y)
    if r > 0:
        return (0.5 * x ** r + 0.5 * y ** r) ** (1.0 / r)
    pos = (x > 0) & (y > 0)
    xs, ys = np.where(pos, x, 1.0), np.where(pos, y, 1.0)
    return np.where(pos, (0.5 * xs ** r + 0.5 * ys ** r) ** (1.0 / r), 0.0)


def _gm(tp, fp, fn, tn, r, ctx):
    n = tp + fp + fn + tn
    a1, a0, b1, b0 = tp + fn, fp + tn, tp + fp, fn + tn
    return ctx.div(n * tp - a1 * b1, _power_mean(a1 * a0, b1 * b0, r),
                   "GM: the generalised mean of AP AN and PP PN is 0 (a class is empty)")


@binary("gm", "Generalized means GM_r", claims={
            # Gösgens et al. (2021), Table 2 (✓/✗ = binary/multiclass)
            "goesgens.Max": True, "goesgens.Min": True, "goesgens.CSym": True, "goesgens.Sym": True,
            "goesgens.Dist": False, "goesgens.Mon": True, "goesgens.SMon": True, "goesgens.CB": True,
            "goesgens.ACB": True,
        },
        source=f"{P004}, Definition 10", params={"r": 1.0}, domain={"r": Interval()},
        formula="(N TP - AP PP) / ((1/2)((AP AN)^r + (PP PN)^r))^(1/r)", range=(-1.0, 1.0), chance=0.0,
        undefined="the mean is 0: for r > 0 when both AP AN and PP PN are 0; for r <= 0 when either is",
        notes="r = 0 is the geometric mean (= MCC, Gösgens et al. 2021, Statement 2); r = -1 gives "
              "BA(C) + BA(C^T) - 1 = 2 SBA - 1.")
def gm(tp, fp, fn, tn, ctx):
    return _gm(tp, fp, fn, tn, float(ctx.params.get("r", 1.0)), ctx)


@binary("gm1", "GM_1 (arithmetic-mean generalized means)", claims={
            # Gösgens et al. (2021), Table 2 (✓/✗ = binary/multiclass)
            "goesgens.Max": True, "goesgens.Min": True, "goesgens.CSym": True, "goesgens.Sym": True,
            "goesgens.Dist": False, "goesgens.Mon": True, "goesgens.SMon": True, "goesgens.CB": True,
            "goesgens.ACB": True,
        },
        source=f"{P004}, Definition 10 with r = 1",
        formula="(N TP - AP PP) / ((AP AN + PP PN) / 2)", range=(-1.0, 1.0), chance=0.0,
        undefined="AP AN = PP PN = 0")
def gm1(tp, fp, fn, tn, ctx):
    return _gm(tp, fp, fn, tn, 1.0, ctx)

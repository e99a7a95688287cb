"""Multi-class measures: functions of the whole (K, K) confusion matrix.

Notation (every formula text of the registry): K classes, N = sum c_ij items; c_ij = items of
gold class i predicted j, a_i = sum_j c_ij (gold class sizes, our row sums), b_j = sum_i c_ij
(predicted class sizes, our column sums), as in Gösgens et al. (2021), section 2, except
that Gösgens et al. write m for K and n for N, and Opitz (2022) writes n for K. Opitz also
writes the transpose: his prevalence(i) is our a_i and his bias(i) our b_i.
"""
from __future__ import annotations

import numpy as np

from evalreport.measures._core import REGISTRY, Measure, register, register_alias
from evalreport.measures._shared import shared
from evalreport.measures.binary import P000, P004

P002 = "Opitz (2022)"


def marginals(C):
    """(d, a, b, n): diagonal, gold sizes (row sums), predicted sizes (column sums), total."""
    return shared("marginals", C, _marginals)


def _marginals(C):
    return (np.diagonal(C, axis1=-2, axis2=-1), C.sum(axis=-1), C.sum(axis=-2), C.sum(axis=(-2, -1)))


def _reg(id, label, *, same_as=(), **meta):
    """Register a multi-class measure; ``same_as``: one-vs-rest averages that become its aliases."""
    def deco(f):
        register(Measure(id=id, label=label, fn=f, **meta), same_as=same_as)
        return f
    return deco


def _recalls(C, ctx, what="recall"):
    d, a, b, n = marginals(C)
    return ctx.div(d, a, f"{what}: class absent from the gold labels (a_i = 0)")


def _precisions(C, ctx, what="precision"):
    d, a, b, n = marginals(C)
    return ctx.div(d, b, f"{what}: class never predicted (b_i = 0)")


def _inv_k(K):
    return 1.0 / K


@_reg("accuracy", "Accuracy", same_as=("f1_micro", "precision_micro", "recall_micro"), claims={
          # Sebastiani (2015), Properties 4.1-4.10, 5.1-5.8 and section 3.2
          "sebastiani.IMB.binary": False,
          # Opitz (2022), Table 5 (PV: '1/n, strict' / '0, complete')
          "opitz.PI": True, "opitz.PII": False, "opitz.PIII": False, "opitz.PIV": False, "opitz.PV": False,
          # Gösgens et al. (2021), Table 2 (✓/✗ = binary/multiclass)
          "goesgens.Max": True, "goesgens.Min": True, "goesgens.CSym": True, "goesgens.Sym": True,
          "goesgens.Dist": True, "goesgens.Mon": True, "goesgens.SMon": True, "goesgens.CB": False,
          "goesgens.ACB": False,
      },
      source=f"{P002}, eq. 7; {P004}, Table 1", formula="sum_i c_ii / N",
      chance=None, chance_note="equals the sum over classes of gold x predicted prevalence; not constant",
      undefined="N = 0",
      notes="On single-label data also micro F1 = micro precision = micro recall (Opitz (2022), Appendix A): "
            "micro_f1, f1_micro, precision_micro, recall_micro. recall_weighted equals it too, except on an "
            "empty matrix under the zero/one policies (a weighted mean with no weight is NaN), so it keeps "
            "its own record.")
def accuracy(C, ctx):
    d, a, b, n = marginals(C)
    return ctx.div(d.sum(-1), n, "empty confusion matrix (n = 0)")


register_alias("micro_f1", "accuracy", label="Micro F1", subset_as="f1_micro",
               source=f"{P002}, Appendix A (micro F1 = accuracy on single-label data); {P004}, section 2")


@_reg("balanced_accuracy", "Balanced accuracy", same_as=("recall_macro",), claims={
          # Opitz (2022), Table 5 (PV: '1/n, strict' / '0, complete')
          "opitz.PI": True, "opitz.PII": True, "opitz.PIII": True, "opitz.PIV": True, "opitz.PV": True,
          "opitz.PV_strict": True, "opitz.PV_complete": False,
          # Gösgens et al. (2021), Table 2 (✓/✗ = binary/multiclass)
          "goesgens.Max": True, "goesgens.Min": True, "goesgens.CSym": True, "goesgens.Sym": False,
          "goesgens.Dist": False, "goesgens.SMon": {"paper": True, "audit": False, "why": "docs/audit.md#ba-smon"},
          "goesgens.CB": {"paper": True, "audit": False, "why": "docs/audit.md#absent-classes"},
          "goesgens.ACB": {"paper": True, "audit": False, "why": "docs/audit.md#absent-classes"},
          "goesgens.Mon.binary": True,
          "goesgens.Mon.multiclass": {"paper": True, "audit": False, "why": "docs/audit.md#ba-mon"},
      },
      source=f"{P004}, Table 1", formula="(1/K) sum_i c_ii / a_i", class_average="macro",
      chance=_inv_k, chance_note="strictly chance corrected, 1/K (Opitz (2022), Appendix B.5)",
      undefined="per class: a_i = 0 (class absent from gold); skipped with the nan policy "
      "(as scikit-learn does), counted as 0/1 with zero/one", convention=0.0,
      convention_source="Opitz (2022), after eq. 18 (R_i = 0 if the denominator is zero)",
      notes="Also called macro recall (Opitz (2022), eq. 8; eq. 14-16: it is the prevalence-calibrated "
            "accuracy) and recall_macro (the macro average of one-vs-rest recall, Gösgens et al. (2021), "
            "section 2).")
def balanced_accuracy(C, ctx):
    return ctx.mean(_recalls(C, ctx), what="class recalls")


register_alias("macro_recall", "balanced_accuracy", label="Macro recall",
               source=f"{P002}, eq. 8 ((1/n) sum_i R_i, R_i = c_ii / a_i)")


@_reg("macro_precision", "Macro precision", same_as=("precision_macro",), claims={
          # Opitz (2022), Table 5 (PV: '1/n, strict' / '0, complete')
          "opitz.PI": True, "opitz.PII": True, "opitz.PIII": True, "opitz.PIV": False, "opitz.PV": True,
          "opitz.PV_strict": {"paper": True, "audit": False, "why": "docs/audit.md#pv-constant"},
          "opitz.PV_complete": False,
      },
      source=f"{P002}, eq. 17", formula="(1/K) sum_i P_i, P_i = c_ii / b_i", class_average="macro",
      chance=_inv_k, chance_note="strictly chance corrected, 1/K (Opitz (2022), Appendix C.5)",
      undefined="per class: b_i = 0 (never predicted); skipped (nan policy) or counted as 0/1", convention=0.0,
      convention_source="Opitz (2022), after eq. 18: P_i = 0 if the denominator is zero")
def macro_precision(C, ctx):
    return ctx.mean(_precisions(C, ctx), what="class precisions")


@_reg("macro_f1", "Macro F1", same_as=("f1_macro",), claims={
          # Opitz (2022), Table 5 (PV: '1/n, strict' / '0, complete')
          "opitz.PI": True, "opitz.PII": True, "opitz.PIII": True, "opitz.PIV": False, "opitz.PV": True,
          "opitz.PV_strict": False, "opitz.PV_complete": False,
      },
      source=f"{P002}, eq. 18-19", class_average="macro",
      formula="(1/K) sum_i 2 P_i R_i / (P_i + R_i) = (2/K) sum_i c_ii / (a_i + b_i)",
      chance=None, chance_note="chance corrected but not strictly: at most 1/K (Opitz (2022), Appendix D.5)",
      undefined="per class: a_i + b_i = 0 (class neither in gold nor predicted)", convention=0.0,
      convention_source="Opitz (2022), after eq. 18: F1_i = 0 if the denominator is zero",
      notes="scikit-learn's f1_score(average='macro'). Not the same as macro_f1_hm (eq. 20).")
def macro_f1(C, ctx):
    d, a, b, n = marginals(C)
    return ctx.mean(ctx.div(2 * d, a + b, "class F1: class neither in gold nor predicted (a_i + b_i = 0)"),
                    what="class F1 values")


@_reg("macro_f1_hm", "Macro F1' (F1 of macro P and R)", claims={
          # Opitz (2022), Table 5 (PV: '1/n, strict' / '0, complete')
          "opitz.PI": True, "opitz.PII": True, "opitz.PIII": False, "opitz.PIV": False, "opitz.PV": True,
          "opitz.PV_strict": {"paper": True, "audit": False, "why": "docs/audit.md#pv-constant"},
          "opitz.PV_complete": False,
      },
      source=f"{P002}, eq. 20",
      formula="2 macP macR / (macP + macR)", chance=_inv_k,
      chance_note="1/K on the expected matrix a_i b_j / N (Opitz (2022), Appendix E.5): an approximate "
                  "constant baseline only (Gösgens et al. (2021), Definition 9). The harmonic mean is not "
                  "linear in the cells, so a random classifier's expected value differs from 1/K (e.g. about "
                  "0.353 for K = 3 classes of sizes 1, 2, 4 and predicted sizes 3, 3, 1).",
      undefined="macro P + macro R = 0, or a class-level 0/0 inside macro P or macro R", convention=0.0,
      convention_source="the limit of 2PR / (P + R) as P + R -> 0; Opitz (2022) sets class-level 0/0 to 0 "
                        "(after eq. 18)",
      notes="The 'macro F1' of Sokolova & Lapalme; differs from macro_f1 (eq. 18), see Opitz (2022) and "
            "Opitz & Burst (2019), his ref. [8].")
def macro_f1_hm(C, ctx):
    mp = ctx.mean(_precisions(C, ctx), what="class precisions")
    mr = ctx.mean(_recalls(C, ctx), what="class recalls")
    return ctx.div(2 * mp * mr, mp + mr, "macro F1': macro precision + macro recall = 0")


_F1_WEIGHTED = REGISTRY["f1_weighted"].fn   # the generated weighted average, before weighted_f1 takes its id


@_reg("weighted_f1", "Weighted F1", same_as=("f1_weighted",), source=f"{P004}, section 2 (weighted averaging)",
      class_average="weighted",
      formula="(1/N) sum_i a_i F1_i", undefined="per class as F1 (TP = FP = FN = 0 only for an empty class, weight 0)",
      convention=0.0, convention_source="scikit-learn zero_division default",
      notes="scikit-learn's f1_score(average='weighted'); also called f1_weighted.")
def weighted_f1(C, ctx):
    return _F1_WEIGHTED(C, ctx)


@_reg("gmean_recall", "Geometric mean of class recalls (GmacR)", claims={
          # Opitz (2022), Table 5 (PV: '1/n, strict' / '0, complete')
          "opitz.PI": True, "opitz.PII": True, "opitz.PIII": True, "opitz.PIV": True, "opitz.PV": True,
      },
      source=f"{P002}, eq. 25",
      formula="(prod_i R_i)^(1/K)", chance=None, undefined="per class: a_i = 0 (skipped with the nan policy)")
def gmean_recall(C, ctx):
    r = ctx.mean(np.log(_recalls(C, ctx)), what="class recalls")
    return np.exp(r)


@_reg("hmean_recall", "Harmonic mean of class recalls (HmacR)", source=f"{P002}, Appendix G (Table 8)",
      formula="K / sum_i (1 / R_i); 0 if some R_i = 0", chance=None,
      undefined="per class: a_i = 0 (skipped with the nan policy)")
def hmean_recall(C, ctx):
    inv = ctx.mean(1.0 / _recalls(C, ctx), what="class recalls")
    return 1.0 / inv


@_reg("mcc", "Matthews correlation coefficient", claims={
          # Sebastiani (2015), Properties 4.1-4.10, 5.1-5.8 and section 3.2
          "sebastiani.CON.binary": False, "sebastiani.SDE.binary": False,
          # Opitz (2022), Table 5 (PV: '1/n, strict' / '0, complete')
          "opitz.PII": True, "opitz.PIII": False, "opitz.PIV": False, "opitz.PV": True, "opitz.PV_strict": True,
          "opitz.PV_complete": True, "opitz.PI.multiclass": False,
          "opitz.PI.binary": {"paper": False, "audit": True, "why": "docs/audit.md#mcc-pi-binary"},
          # Gösgens et al. (2021), Table 2 (✓/✗ = binary/multiclass)
          "goesgens.Max": True, "goesgens.CSym": True, "goesgens.Sym": True, "goesgens.Dist": False,
          "goesgens.CB": True, "goesgens.ACB": True, "goesgens.Min.binary": True, "goesgens.Min.multiclass": False,
          "goesgens.Mon.binary": True, "goesgens.Mon.multiclass": False, "goesgens.SMon.binary": True,
          "goesgens.SMon.multiclass": False,
      },
      source=f"{P002}, eq. 23; {P004}, Table 1",
      formula="(N sum_i c_ii - sum_i a_i b_i) / sqrt((N^2 - sum_i b_i^2)(N^2 - sum_i a_i^2))",
      range=(-1.0, 1.0), chance=0.0, chance_note="completely chance corrected, 0 (Opitz (2022), Appendix F.5)",
      undefined="all gold labels in one class, or all predictions in one class", convention=0.0,
      convention_source="scikit-learn matthews_corrcoef returns 0",
      notes="On two classes equal to the binary MCC of Sebastiani (2015), Table 2 (either class positive).")
def mcc(C, ctx):
    d, a, b, n = marginals(C)
    num = n * d.sum(-1) - (a * b).sum(-1)
    den = np.sqrt((n * n - (b * b).sum(-1)) * (n * n - (a * a).sum(-1)))
    return ctx.div(num, den, "MCC: all gold labels or all predictions fall in one class")


@_reg("kappa", "Cohen's kappa", claims={
          # Opitz (2022), Table 5 (PV: '1/n, strict' / '0, complete')
          "opitz.PI": False, "opitz.PII": True, "opitz.PIII": False, "opitz.PIV": False, "opitz.PV": True,
          "opitz.PV_strict": True, "opitz.PV_complete": True,
          # Gösgens et al. (2021), Table 2 (✓/✗ = binary/multiclass)
          "goesgens.Max": True, "goesgens.Min": False, "goesgens.CSym": True, "goesgens.Sym": True,
          "goesgens.Dist": False, "goesgens.SMon": False, "goesgens.CB": True, "goesgens.ACB": True,
          "goesgens.Mon.binary": True, "goesgens.Mon.multiclass": False,
      },
      source=f"{P002}, eq. 24; {P004}, Table 1",
      formula="(N sum_i c_ii - sum_i a_i b_i) / (N^2 - sum_i a_i b_i)", range=(-1.0, 1.0), chance=0.0,
      chance_note="completely chance corrected, 0 (Opitz (2022), Appendix F.5)",
      undefined="sum_i a_i b_i = N^2: gold and predictions all in the same single class")
def kappa(C, ctx):
    d, a, b, n = marginals(C)
    ab = (a * b).sum(-1)
    return ctx.div(n * d.sum(-1) - ab, n * n - ab,
                   "kappa: gold and predictions all in the same single class (expected agreement = 1)")


@_reg("sba", "Symmetric balanced accuracy", claims={
          # Gösgens et al. (2021), Table 2 (✓/✗ = binary/multiclass)
          "goesgens.Max": True, "goesgens.Min": True, "goesgens.CSym": True, "goesgens.Sym": True,
          "goesgens.Dist": False, "goesgens.Mon": True,
          "goesgens.CB": {"paper": True, "audit": False, "why": "docs/audit.md#absent-classes"},
          "goesgens.ACB": {"paper": True, "audit": False, "why": "docs/audit.md#absent-classes"},
          "goesgens.SMon.binary": True,
          "goesgens.SMon.multiclass": {"paper": True, "audit": False, "why": "docs/audit.md#sba-smon"},
      },
      source=f"{P004}, Table 1 and Statement 2",
      formula="(1/2K) sum_i (c_ii / a_i + c_ii / b_i) = (BA(C) + BA(C^T)) / 2", chance=_inv_k,
      undefined="per class: a_i = 0 (in BA(C)) or b_i = 0 (in BA(C^T)); skipped in its mean with the nan "
                "policy. Reading taken: each of the two means runs over the classes where its ratio is defined.")
def sba(C, ctx):
    return 0.5 * (ctx.mean(_recalls(C, ctx), what="class recalls")
                  + ctx.mean(_precisions(C, ctx), what="class precisions"))


@_reg("k", "K (Sebastiani)", claims={
          # Sebastiani (2015), Properties 4.1-4.10, 5.1-5.8 and section 3.2
          "sebastiani.MON": True, "sebastiani.CON": True, "sebastiani.SDE": True, "sebastiani.WDE": True,
          "sebastiani.FIX": True, "sebastiani.CHA": True, "sebastiani.IMB": True, "sebastiani.SYM": True,
      },
      source=f"{P000}, eq. 5 (binary) and eq. 10 (single-label multi-class)",
      formula="K/(K-1) * (sum_{j: AP_j > 0} rho_j) / (sum_j xi_j) - 1/(K-1)", range=(-1.0, 1.0), chance=0.0,
      chance_note="Sebastiani (2015), Property 5.6", undefined="N = 0, or only one class (K - 1 = 0); classes absent from gold are left out "
      "through the indicator xi_j (eq. 8)",
      notes="K counts every class in the class set (including listed classes absent from gold) in K/(K-1); on "
            "two classes eq. 10 is eq. 5, including its AP = 0 and AN = 0 cases.")
def k(C, ctx):
    d, a, b, n = marginals(C)
    K = ctx.task_count(C)        # |C|: the task's classes; predictions of other labels are errors
    present = a > 0
    rho = ctx.div(d, a, None)
    mean_rho = ctx.div(np.where(present, rho, 0.0).sum(-1), present.sum(-1), "K: empty confusion matrix (N = 0)")
    # K/(K-1) mean_rho - 1/(K-1) as one ratio, so that a one-class matrix is a flagged 0/0, not a crash
    return ctx.div(K * mean_rho - 1.0, K - 1, "K: only one class (K - 1 = 0); K needs two or more")


@_reg("confusion_entropy", "Confusion entropy", claims={
          # Gösgens et al. (2021), Table 2 (✓/✗ = binary/multiclass)
          "goesgens.Max": {"paper": True, "audit": False, "why": "docs/audit.md#ce-max"}, "goesgens.Min": False,
          "goesgens.CSym": True, "goesgens.Sym": True, "goesgens.Dist": False, "goesgens.Mon": False,
          "goesgens.SMon": False, "goesgens.CB": False, "goesgens.ACB": False,
      },
      source=f"{P004}, Table 1 (Wei et al. 2010)",
      formula="-(1/2N) sum_{i != j} (c_ji log(c_ji/(a_j+b_j)) + c_ij log(c_ij/(a_j+b_j))), log base 2(K-1)",
      higher_is_better=False, undefined="N = 0, or only one class (log base 2(K - 1) = 0)", range=(0.0, float(2 / (np.e * np.log(2)))),
      notes="The extracted paper text prints the log base as 2^(K-2) (its m is our K); the base is 2(K-1) as in Wei et al. "
            "(for K = 2 a base 2^0 = 1 would be meaningless); this base reproduces 1 - CE = 93.41 / 93.51 of "
            "Gösgens et al. (2021), Table 5. 0 log 0 = 0. Range: at most 1 for K >= 3 classes, but on two classes CE "
            "exceeds 1 (Delgado & Nunez-Gonzalez 2019, ref. [7] there): with off-diagonal share t it is "
            "t (1 - log2 t) on a symmetric 2 x 2 matrix, maximal 2/(e ln 2) = 1.0615 at t = 2/e.")
def confusion_entropy(C, ctx):
    d, a, b, n = marginals(C)
    K = ctx.class_count(C)       # m of the log base; a class with a_j + b_j = 0 adds no term
    s = a + b                                   # a_j + b_j
    # term with the class j on the row side (c_jk) and on the column side (c_kj)
    row, col = _entropy_terms(C, s)
    t = row.sum((-2, -1)) + col.sum((-2, -1))
    base = np.log(np.maximum(2 * (K - 1), 1))   # log of 2(K-1); 0 (undefined) for one class
    return ctx.div(-ctx.div(t, 2 * n, "empty confusion matrix (N = 0)"), base,
                   "confusion entropy: only one class (log base 2(K - 1) = 0)")


def _entropy_terms(C, s):
    """``c_ij log(c_ij / s_i)`` and ``c_ij log(c_ij / s_j)``, computed at the non-zero off-diagonal cells only."""
    K = C.shape[-1]
    flat = C.reshape(-1)
    positive = flat > 0
    if K:
        positive.reshape(-1, K * K)[:, ::K + 1] = False       # the diagonal
    hit = np.flatnonzero(positive)
    c = flat[hit]
    s = np.asarray(s, dtype=float).reshape(-1)
    gold = hit // K                                           # (batch, i): index into s
    pred = (hit // (K * K)) * K + hit % K                     # (batch, j)
    out = []
    for side in (gold, pred):
        term = np.zeros(flat.shape)
        term[hit] = c * np.log(c / s[side])
        out.append(term.reshape(C.shape))
    return out


@_reg("correlation_distance", "Correlation distance", claims={
          # Gösgens et al. (2021), Table 2 (✓/✗ = binary/multiclass)
          "goesgens.Max": True, "goesgens.CSym": True, "goesgens.Sym": True, "goesgens.Dist": True,
          "goesgens.CB": False, "goesgens.ACB": True, "goesgens.Min.binary": True,
          "goesgens.Min.multiclass": False, "goesgens.Mon.binary": True, "goesgens.Mon.multiclass": False,
          "goesgens.SMon.binary": True, "goesgens.SMon.multiclass": False,
      },
      source=f"{P004}, Table 1 and Statement 4",
      formula="arccos(MCC) / pi", higher_is_better=False, chance=0.5,
      chance_note="approximate constant baseline only (Gösgens et al. (2021), Statements 4-5)",
      undefined="where MCC is undefined", convention=0.5, convention_source="arccos of MCC's convention 0",
      notes="The only 0/0 is inside MCC, so the policies fill MCC: zero gives CD = 0.5, one gives CD = 0, "
            "convention gives MCC's convention 0, i.e. CD = 0.5.")
def correlation_distance(C, ctx):
    if ctx.policy != "convention":
        return np.arccos(np.clip(mcc(C, ctx), -1.0, 1.0)) / np.pi
    # ctx.fill holds CD's own convention (0.5); the division it fills is MCC's, whose convention is 0
    fill, ctx.fill = ctx.fill, REGISTRY["mcc"].convention
    try:
        r = mcc(C, ctx)
    finally:
        ctx.fill = fill
    return np.arccos(np.clip(r, -1.0, 1.0)) / np.pi

"""The words of the cross-validation section: what Forman & Scholz (2010) recommend, and what the data show.

Every sentence here is either a quotation of Forman & Scholz (2010) with its section,
or computed from the tables of :func:`evalreport.analyses.crossval.cross_validate`. What the paper
recommends, measure by measure:

* F-measure: F_tp,fp (section 4.3: "Only one method is almost perfectly unbiased, Ftp,fp, and
  therefore it is the recommended way to compute F-measure"; section 5: "(a) Ftp,fp is the by far
  most unbiased method and should be used for computing F-measure").
* AUC: AUC_avg (section 5: "we urge the research community to consistently use Ftp,fp and
  AUCavg"); AUC_merge "will downgrade classifiers that rank well if they have poor calibration
  across folds" (section 2.4).
* Accuracy and error rate: no choice to make (section 2.4: "you get the same result whether you
  compute accuracy on each fold and then average, or if you tally the error count"; exact for
  folds of equal size, which the paper's k-fold cross-validation assumes, section 2.1).
* Every other measure: the paper says nothing. Reporting the pooled value (the measure of the
  summed fold matrices: what the rest of the report computes from all items) is evalreport's
  choice, by analogy with F_tp,fp, and the text says so.

Which system's estimates "disagree most" (:func:`estimate_spread`) is decided over the DEFINED
estimates of each system only: an undefined estimate (e.g. F~_avg when no fold has V(i) = 1) is
counted and named, never read as a difference.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["F_ESTIMATORS", "SPREAD_DECIMALS", "estimate_spread", "recommendation"]

#: The five F estimators of Forman & Scholz (2010), section 2.3, in the order of the summary table.
F_ESTIMATORS = ("F_tp,fp", "F_avg", "F~_avg", "F_pr,re", "F~_pr,re")
#: Estimates that agree to this many decimals (the report prints 4 in the text) "agree".
SPREAD_DECIMALS = 4

P001 = "Forman and Scholz (2010"
_Q_F = "\"Only one method is almost perfectly unbiased, Ftp,fp, and therefore it is the recommended way to " \
       "compute F-measure\" (section 4.3)"
_Q_AUC = "\"we urge the research community to consistently use Ftp,fp and AUCavg\" (section 5)"


def _f(x: float) -> str:
    return f"{x:.{SPREAD_DECIMALS}f}"


def _join(items) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def estimate_spread(f_table: pd.DataFrame) -> pd.DataFrame:
    """Per system, how far its five F estimates lie apart, over the defined ones only.

    ``f_table``: :func:`evalreport.analyses.crossval.f_estimators` (one column per estimator of
    :data:`F_ESTIMATORS`; NaN = undefined). Returns ``system, n_defined, undefined`` (the names
    of the undefined estimators, ", "-joined), ``low, low_estimator, high, high_estimator,
    spread`` (NaN with fewer than one defined estimate; 0 with one) in the table's order.
    """
    cols = [c for c in F_ESTIMATORS if c in f_table.columns]
    values = f_table[cols].to_numpy(dtype=float)
    defined = ~np.isnan(values)
    n_def = defined.sum(axis=1)
    lo = np.where(defined, values, np.inf).min(axis=1)
    hi = np.where(defined, values, -np.inf).max(axis=1)
    lo_i = np.where(defined, values, np.inf).argmin(axis=1)
    hi_i = np.where(defined, values, -np.inf).argmax(axis=1)
    none = n_def == 0
    return pd.DataFrame({
        "system": f_table["system"].to_numpy(), "n_defined": n_def,
        "undefined": [", ".join(c for c, d in zip(cols, row) if not d) for row in defined],
        "low": np.where(none, np.nan, lo), "low_estimator": [None if z else cols[i] for z, i in zip(none, lo_i)],
        "high": np.where(none, np.nan, hi), "high_estimator": [None if z else cols[i] for z, i in zip(none, hi_i)],
        "spread": np.where(none, np.nan, hi - lo)})


def _count_listed(folds) -> int:
    return len([f for f in str(folds or "").split(", ") if f]) if isinstance(folds, str) else 0


def _spread_sentences(f_table: pd.DataFrame, n_folds: int | None) -> list[str]:
    sp = estimate_spread(f_table)
    sp["invalid_folds"] = f_table["invalid_folds"].to_numpy() if "invalid_folds" in f_table else ""
    out = []
    partial = sp[sp["n_defined"] < len(F_ESTIMATORS)]
    for r in partial.itertuples(index=False):
        k = len(F_ESTIMATORS) - r.n_defined
        what = f"{r.system}: {k} of the {len(F_ESTIMATORS)} F estimates are undefined ({r.undefined}"
        if n_folds and _count_listed(r.invalid_folds) == n_folds and {"F~_avg", "F~_pr,re"} <= set(
                r.undefined.split(", ")):
            what += f": all {n_folds} folds have V(i) = 0, so the estimators that skip such folds have none left"
        what += ")"
        if r.n_defined == 0:
            out.append(what + ", so it has no F estimate to compare.")
        elif r.n_defined == 1:
            out.append(what + f"; the one defined, {r.low_estimator}, is {_f(r.low)}.")
        elif round(r.spread, SPREAD_DECIMALS) == 0:
            out.append(what + f"; its {r.n_defined} defined estimates agree ({_f(r.low)}).")
        else:
            out.append(what + f"; its {r.n_defined} defined estimates range from {_f(r.low)} ({r.low_estimator}) "
                              f"to {_f(r.high)} ({r.high_estimator}).")
    comparable = sp[sp["n_defined"] >= 2]
    rounded = comparable["spread"].round(SPREAD_DECIMALS)
    if comparable.empty:
        out.append("No system has two defined F estimates to compare.")
    elif rounded.max() == 0:
        why = " With one fold there is nothing to aggregate." if n_folds == 1 else ""
        out.append(f"Every system's defined F estimates agree to {SPREAD_DECIMALS} decimals: here the choice of "
                   f"estimator does not change F.{why}")
    else:
        top = comparable[rounded == rounded.max()]
        parts = []
        for r in top.itertuples(index=False):
            over = "" if r.n_defined == len(F_ESTIMATORS) else f", over its {r.n_defined} defined estimates"
            parts.append(f"{r.system} (from {_f(r.low)}, {r.low_estimator}, to {_f(r.high)}, {r.high_estimator}: "
                         f"a spread of {_f(r.high - r.low)}{over})")
        verb = "differ most for " if len(top) == 1 else "differ most, and equally, for "
        out.append("The F estimates " + verb + _join(parts) + ".")
    if {"F_pr,re", "F_tp,fp"} <= set(f_table.columns):
        num, den = f_table["F_pr,re"].to_numpy(dtype=float), f_table["F_tp,fp"].to_numpy(dtype=float)
        with np.errstate(over="ignore"):        # a tiny F_tp,fp: an infinite ratio, left out below
            ratio = sp.assign(r=np.divide(num, den, out=np.full(den.shape, np.nan), where=den > 0))
        ok = ratio[np.isfinite(ratio["r"])]
        if len(ok) and ok["r"].max() > 1.05:
            best = ok.loc[ok["r"].idxmax()]
            out.append(f"Largest F_pr,re / F_tp,fp ratio here: {best['r']:.2f} ({best['system']}); Forman and Scholz's (2010) first "
                       "example (section 3.1, Table 1) shows 1.26.")
    return out


def _invalid_sentence(invalid_folds: pd.DataFrame, n_folds: int | None, policy: str) -> str:
    of = f" of {n_folds}" if n_folds else ""
    parts = []
    for system, g in invalid_folds.groupby("system", sort=False):
        why = []
        no_pred = int((~g["precision_defined"].astype(bool)).sum())
        no_gold = int((~g["recall_defined"].astype(bool)).sum())
        if no_pred:
            why.append(f"{no_pred} without a predicted positive")
        if no_gold:
            why.append(f"{no_gold} without a gold positive")
        parts.append(f"{system}: {len(g)}{of} ({', '.join(why)})")
    sub = {"zero": "0", "one": "1"}.get(policy, "0, Forman and Scholz's default interpretation")
    return ("Folds with undefined precision or recall (V(i) = 0, Forman and Scholz (2010), section 2.3), which F_avg and F_pr,re "
            f"count (an undefined F, precision or recall as {sub}) and F~_avg and F~_pr,re skip: "
            + "; ".join(parts) + ".")


def recommendation(estimates: pd.DataFrame | None = None, *, invalid_folds: pd.DataFrame | None = None,
                   has_scores: bool = False, score_folds: pd.DataFrame | None = None,
                   has_positive: bool = True, f_table: pd.DataFrame | None = None, policy: str = "nan",
                   n_folds: int | None = None) -> str:
    """Which estimate to publish for which measure (module docstring), and what these folds show.

    ``estimates``: the tidy frame of :func:`~evalreport.analyses.crossval.aggregate` (its
    ``pooled`` rows give ``n_folds`` when not given); ``f_table``: the five F estimators side by
    side (the "differ most" sentence is computed from it); ``score_folds``: per-fold AUC, whose
    one-class folds AUC_avg skips (``policy`` nan or convention) or counts as 0 / 1 (``zero`` /
    ``one``). One paragraph per line.
    """
    if n_folds is None and estimates is not None and len(estimates) and "n_folds" in estimates:
        pooled = estimates[estimates["aggregation"] == "pooled"]["n_folds"]
        n_folds = int(pooled.iloc[0]) if len(pooled) else None
    others = ("Other measures: Forman and Scholz (2010) treat only F-measure and AUC; of accuracy and error rate they say that "
              "\"you get the same result whether you compute accuracy on each fold and then average, or if you "
              "tally the error count\" (section 2.4), which is exact for folds of equal size. For every other "
              "measure the paper gives no rule: reporting the pooled value (the measure of the summed fold "
              "confusion matrices, i.e. of all items at once, as evalreport's other tables compute it) is "
              "evalreport's choice, by analogy with F_tp,fp, not the paper's. cv_estimates.csv has the mean over folds as well; "
              "name the aggregation you publish.")
    if not has_positive:
        return ("Publish the pooled value of every measure (aggregation 'pooled': sum the fold confusion matrices, "
                "then compute) and name the aggregation. That is evalreport's choice, by analogy with the F_tp,fp "
                f"of {P001}), who recommend estimators only for F-measure (F_tp,fp) and AUC (AUC_avg) of a "
                "positive class, and notes that accuracy comes out the same either way (section 2.4). Give a "
                "positive class (--positive) to see the five F estimators of their paper side by side.")
    lines = []
    if f_table is not None and len(f_table):
        lines.append(
            "F-measure: publish F_tp,fp (aggregation 'pooled': sum TP, FP and FN over the folds, then compute F "
            f"once). {P001}) find it the only nearly unbiased of the five estimators: {_Q_F}. In their "
            "simulations F_avg and F_pr,re are biased down where folds have no predicted positives (a zero is "
            "substituted), F~_avg and F~_pr,re biased up (they skip those folds), and F_pr,re biased up also "
            "where such folds are rare (section 4.3). Say which estimator you report; numbers computed another "
            "way are not comparable.")
    else:
        lines.append(f"F-measure: none among the measures computed here; for F, {P001}) recommend F_tp,fp (the "
                     f"pooled counts): {_Q_F}.")
    if has_scores:
        lines.append(f"AUC: publish AUC_avg (aggregation 'avg': the mean of the per-fold AUCs), as the paper urges: "
                     f"{_Q_AUC}. AUC_merge ranks the scores of different fold models together and so \"will "
                     "downgrade classifiers that rank well if they have poor calibration across folds\" (section "
                     "2.4). Average precision (AP_avg, AP_merge) is evalreport's addition, not treated by the paper.")
    else:
        lines.append("AUC: these runs carry no scores (a 'score' column), so no AUC is computed here. If you report "
                     f"one, the paper recommends AUC_avg, the mean of the per-fold AUCs: {_Q_AUC}.")
    lines.append(others)
    if score_folds is not None and len(score_folds):
        bad = score_folds[(score_folds["measure"] == "auc") & score_folds["undefined"].astype(bool)]
        bad = bad.drop_duplicates("fold")
        if len(bad):
            done = {"zero": "counts them as 0", "one": "counts them as 1"}.get(
                policy, "averages the other folds only")
            lines.append(f"Folds with only one class, where AUC is undefined and AUC_avg {done} (policy {policy}; "
                         "Forman and Scholz (2010), section 2.4, warn of software that skips them or substitutes a zero "
                         "silently): " + "; ".join(f"fold {r.fold} ({r.reason})" for r in bad.itertuples()) + ".")
    if invalid_folds is not None and len(invalid_folds):
        lines.append(_invalid_sentence(invalid_folds, n_folds, policy))
    if f_table is not None and len(f_table):
        lines.extend(_spread_sentences(f_table, n_folds))
    return "\n".join(lines)

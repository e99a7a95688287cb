"""What the report's tables compute before they show anything: helpers of the table and note
methods of :class:`evalreport.report.sections.ReportData` (kept here so that the sections package stays
a list of short methods).

Everything here reads frames as :mod:`evalreport.report.build` writes them and returns frames
or numbers; nothing is drawn.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from evalreport.measures import get

#: A flip between two measures is "larger than the noise" when, under each of the two measures,
#: the two systems differ by more than this many standard errors of their difference.
NOISE_SE = 2.0
#: Rows of the order-flips table (the rest are in disagreements.csv).
MAX_FLIPS = 15
#: Rows of the inconsistency table.
MAX_INCONSISTENT = 10
#: Fewest systems for comparing rankings between measures: with 3 a rank correlation takes only the values
#: 1, 0.5, -0.5 and -1 and the inconsistency rate only 0, 1/3, 2/3 and 1 (their tables and charts are grids of
#: the same few numbers), so below this the report and the appendix say so in one sentence instead.
MIN_SYSTEMS_AGREEMENT = 4
#: Pairs in the pairwise table before it keeps only neighbours in the leaderboard.
MAX_PAIRS_ALL = 15
#: Measures in the cross-validation aggregation table (the ones where the aggregations differ most).
MAX_CV_MEASURES = 6
#: Two aggregations agree when every system's values differ by less than this (3 decimals shown).
CV_SAME = 5e-4

AGGREGATION_WORDS = {"pooled": "pooled (fold matrices summed)", "mean": "mean of folds",
                     "mean_defined": "mean of folds where defined"}


#: Names of the score-based values of the cross-validation tables (not measures of the registry).
SCORE_LABELS = {"auc": "AUC (area under the ROC curve)", "average_precision": "Average precision (AP)"}


def label(measure_id: str) -> str:
    """The reader's name of a measure (its id when the registry does not know it)."""
    try:
        return get(str(measure_id)).label
    except Exception:
        return SCORE_LABELS.get(str(measure_id), str(measure_id))


def arrow(measure_id: str) -> str:
    try:
        return "↑" if get(str(measure_id)).higher_is_better else "↓"
    except Exception:
        return ""


def integer_ranks(ranks: pd.Series) -> pd.Series:
    """Ranks as integers where none is a tie (1, 2, 3); a column with a shared rank (1.5) stays float."""
    s = pd.to_numeric(ranks, errors="coerce")
    whole = (s % 1 == 0) | s.isna()
    if not whole.all():
        return s
    return s.astype(int) if s.notna().all() else s.astype("Int64")


# ----------------------------------------------------------------------------- p-value floor
# the rule lives in the analyses layer (the findings block states the same floor)
from evalreport.analyses.resampling import (  # noqa: E402
    p_floor,  # noqa: F401  (the report sections take it from here)
    resamples_needed,
)
from evalreport.words import counted  # noqa: E402


def p_floor_sentence(floor: dict, *, alpha: float | None = None) -> str:
    """The floor in words, for a caption or note; with ``alpha``, says when no pair can be significant."""
    B, m = floor["B"], floor["pairs"]
    test = {"randomization": "randomisation"}.get(floor["test"], floor["test"])     # the reader's spelling
    text = (f"With {B:,} resamples no {test} p-value can be below 1/({B:,} + 1) = {floor['raw']:.3g}, and "
            f"Holm's correction over the {m:,} pairs of systems multiplies the smallest by {m:,}: no corrected "
            f"p-value can be below {m:,}/{B + 1:,} = {floor['holm']:.3g}.")
    if floor["at_floor"]:
        text += (f" {counted(floor['at_floor'], 'pair')} {'has' if floor['at_floor'] == 1 else 'have'} the smallest "
                 "raw p: the difference was never reached by "
                 f"chance in {B:,} resamples, the strongest evidence this many resamples can give (more resamples "
                 "lower the floor).")
    if alpha is not None and floor["holm"] >= alpha:          # significant: p < alpha
        need = resamples_needed(m, alpha)
        text += (f" That floor is above alpha = {alpha:g}: with this many pairs no difference can be significant by "
                 f"the {test} test after Holm's correction; at least {need:,} resamples would be needed.")
    return text


# ----------------------------------------------------------------------------- order flips
def _se_lookup(intervals: pd.DataFrame):
    if intervals.empty or "se" not in intervals:
        return None
    return intervals.drop_duplicates(["system", "measure"]).set_index(["system", "measure"])["se"].to_dict()


def flips(disagreements: pd.DataFrame, intervals: pd.DataFrame, primary: str, *, k: float = NOISE_SE,
          paired: pd.DataFrame | None = None, alpha: float = 0.05) -> pd.DataFrame:
    """The system pairs whose order under ``primary`` flips under another measure, oriented so that
    A is the primary measure's winner, with how many standard errors of the difference separate the
    two systems under each measure (``z_primary``, ``z_other``; NaN without bootstrap standard
    errors) and ``beyond_noise``.

    With ``paired`` (paired_differences.csv, :mod:`evalreport.analyses.paired`) the standard error is
    that of the paired bootstrap differences (the same resamples for both systems) and a flip is
    beyond the noise when the paired bootstrap test, Holm-corrected over every flip's two tests, gives
    p < ``alpha`` under both measures (columns ``p_primary``, ``p_other``). Without it (older tables): the unpaired ``sqrt(se_A^2 + se_B^2)``
    from the standard errors in intervals.csv, and both z above ``k`` - conservative, since it drops
    the covariance of two systems scored on the same items."""
    prim = disagreements[disagreements["measure_a"] == primary]
    if prim.empty:
        return pd.DataFrame(columns=["measure", "A", "B", "primary_A", "primary_B", "other_A", "other_B",
                                     "z_primary", "z_other", "beyond_noise"])
    swap = (prim["prefers_a"] != prim["system_a"]).to_numpy()   # orient: A = the primary measure's winner
    a = np.where(swap, prim["system_b"], prim["system_a"])
    b = np.where(swap, prim["system_a"], prim["system_b"])
    pa = np.where(swap, prim["value_a2"], prim["value_a1"]).astype(float)
    pb = np.where(swap, prim["value_a1"], prim["value_a2"]).astype(float)
    oa = np.where(swap, prim["value_b2"], prim["value_b1"]).astype(float)
    ob = np.where(swap, prim["value_b1"], prim["value_b2"]).astype(float)
    se = _se_lookup(intervals)
    pair = _paired_lookup(paired)

    def z(measures, va, vb):
        if pair is not None:
            got = [pair.get((m, x, y), (np.nan, np.nan)) for m, x, y in zip(measures, a, b)]
            s_d = np.array([g[0] for g in got], dtype=float)
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.where(s_d > 0, np.abs(va - vb) / s_d, np.where((s_d == 0) & (va != vb), np.inf, np.nan))
        if se is None:
            return np.full(len(a), np.nan)
        out = []
        for m, x, y, d in zip(measures, a, b, np.abs(va - vb)):
            s1, s2 = se.get((x, m), np.nan), se.get((y, m), np.nan)
            noise = math.sqrt(s1 ** 2 + s2 ** 2) if not (pd.isna(s1) or pd.isna(s2)) else np.nan
            out.append(d / noise if noise and noise > 0 else (np.inf if noise == 0 and d > 0 else np.nan))
        return np.asarray(out, dtype=float)

    zp = z([primary] * len(a), pa, pb)
    zo = z(prim["measure_b"].tolist(), oa, ob)
    out = pd.DataFrame({"measure": prim["measure_b"].to_numpy(), "A": a, "B": b, "primary_A": pa, "primary_B": pb,
                        "other_A": oa, "other_B": ob, "z_primary": zp, "z_other": zo})
    if pair is not None:
        out["p_primary"] = [pair.get((primary, x, y), (np.nan, np.nan))[1] for x, y in zip(a, b)]
        out["p_other"] = [pair.get((m, x, y), (np.nan, np.nan))[1] for m, x, y in zip(out["measure"], a, b)]
        out["beyond_noise"] = (out["p_primary"] < alpha) & (out["p_other"] < alpha)
    else:
        out["beyond_noise"] = (out["z_primary"] > k) & (out["z_other"] > k)
    weakest = np.fmin(out["z_primary"], out["z_other"])
    if weakest.isna().all():        # no standard errors: the clearer flips (larger smaller difference) first
        weakest = np.fmin(np.abs(pa - pb), np.abs(oa - ob))
    return out.assign(_w=weakest).sort_values("_w", ascending=False, kind="stable").drop(columns="_w") \
        .reset_index(drop=True)


def _paired_lookup(paired: pd.DataFrame | None):
    """(measure, a, b) and (measure, b, a) -> (paired se, Holm p) of paired_differences.csv's flip family."""
    if paired is None or paired.empty or not {"measure", "system_a", "system_b", "se", "p_value"} <= set(paired):
        return None
    if "family" in paired:          # the flips' own family, Holm-corrected over its rows
        paired = paired[paired["family"] == "flip"]
    p_col = "p_holm" if "p_holm" in paired else "p_value"
    out = {}
    for m, x, y, s, p in zip(paired["measure"], paired["system_a"], paired["system_b"], paired["se"],
                             paired[p_col]):
        out[(m, x, y)] = out[(m, y, x)] = (float(s), float(p))
    return out


# ----------------------------------------------------------------------------- cross-validation
def cv_differences(est: pd.DataFrame, *, top: int = MAX_CV_MEASURES):
    """Which measures give different numbers when aggregated over folds in different ways.

    Leaves out the measures with named estimators (F, AUC, AP: the cross-validation summary
    shows them). Aggregations that agree for every system (within :data:`CV_SAME`, undefined
    alike) are merged into one row. Returns ``(rows, flags, reasons, same, n_differ)``: the rows
    of the ``top`` measures whose aggregations differ most (measure, aggregation, one column per
    system), undefined flags and reasons shaped like them, the labels of the measures whose
    aggregations all agree, and how many measures differ.
    """
    est = est.copy()
    est["reason"] = est["reason"].astype(object).where(est["reason"].notna(), "").astype(str) \
        if "reason" in est else ""
    named = set(est.loc[est["estimator"].notna() & (est["estimator"].astype(str) != ""), "measure"]) \
        if "estimator" in est else set()
    est = est[~est["measure"].isin(named)]
    systems = list(dict.fromkeys(est["system"]))
    blocks, same = [], []
    # one pivot of every measure (a pivot per measure and column cost ~10 ms each); sliced per measure below
    wide = est.pivot_table(index=["measure", "aggregation"], columns="system", values=["value", "reason"],
                           aggfunc="first", dropna=False) if len(est) else None
    for measure, sub in est.groupby("measure", sort=False):
        assert wide is not None                   # est has rows
        aggs = [a for a in AGGREGATION_WORDS if a in set(sub["aggregation"])] + \
               [a for a in dict.fromkeys(sub["aggregation"]) if a not in AGGREGATION_WORDS]
        vals = wide["value"].loc[measure].reindex(index=aggs, columns=systems)
        why = wide["reason"].loc[measure].reindex(index=aggs, columns=systems)
        kept: list[str] = []
        names: dict[str, list[str]] = {}
        for agg in aggs:
            for k in kept:
                x, y = vals.loc[agg].to_numpy(float), vals.loc[k].to_numpy(float)
                if np.array_equal(np.isnan(x), np.isnan(y)) and np.all(np.abs(np.nan_to_num(x - y)) < CV_SAME):
                    names[k].append(agg)
                    break
            else:
                kept.append(agg)
                names[agg] = [agg]
        if len(kept) == 1:
            same.append(label(measure))
            continue
        v = vals.loc[kept].to_numpy(float)
        with np.errstate(invalid="ignore"):
            # (fmax/fmin skip NaN as nanmax/nanmin do, and give NaN for an all-NaN column without a warning)
            spread = np.nanmax(np.nan_to_num(np.fmax.reduce(v, axis=0) - np.fmin.reduce(v, axis=0), nan=0.0))
        # defined one way and undefined another also differs, ranked by the numeric spread
        rows = vals.loc[kept].copy()
        rows.insert(0, "aggregation", [" = ".join(AGGREGATION_WORDS.get(a, a) for a in names[a]) for a in kept])
        rows.insert(0, "measure", [f"{label(measure)} ({arrow(measure)})"] + [""] * (len(kept) - 1))
        blocks.append((spread, rows, why.loc[kept]))
    blocks.sort(key=lambda t: -t[0])
    n_differ = len(blocks)
    shown = blocks[:top]
    if not shown:
        return pd.DataFrame(), None, None, same, 0
    rows = pd.concat([r for _, r, _ in shown], ignore_index=True)
    flags = rows[systems].isna()
    reasons = pd.concat([w for _, _, w in shown], ignore_index=True).reindex(columns=systems)
    reasons = reasons.astype(object).where(reasons.notna() & (reasons.astype(str) != ""), "undefined")
    return rows, flags, reasons, same, n_differ


# ----------------------------------------------------------------------------- chance baselines
#: One name per chance baseline, in every table, chart and appendix (the findings' sentences say the
#: same in words: :data:`evalreport.report.summary_words.BASELINE_WORDS`).
BASELINE_WORDS = {"majority": "majority class", "uniform": "uniform random",
                  "prevalence": "random at gold prevalence", "fixed_sizes": "permuted gold labels",
                  "contingency": "random table", "trivial_acceptor": "always positive",
                  "trivial_rejector": "always negative", "random_scores": "random scores",
                  "prevalence_forecast": "prevalence forecast"}
#: The chart's label row uses the same names.
BASELINE_CHART_WORDS = BASELINE_WORDS


def baselines_wide(base: pd.DataFrame, order: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Measures (rows) x baselines (columns), the constant-class predictors folded into one
    column "constant class: lowest - highest" (one column per class would be as wide as the task
    has classes). Returns the values (text for the folded column) and the undefined flags."""
    is_const = base["baseline"].astype(str).str.startswith("constant:")
    measures = [m for m in order if m in set(base["measure"])] or list(dict.fromkeys(base["measure"]))
    rest = base[~is_const]
    wide = rest.pivot_table(index="measure", columns="baseline", values="value", aggfunc="first", dropna=False)
    cols = [c for c in BASELINE_WORDS if c in wide.columns] + [c for c in wide.columns if c not in BASELINE_WORDS]
    wide = wide.reindex(index=measures, columns=cols)
    flags = wide.isna()
    out = pd.DataFrame(index=wide.index)
    if is_const.any():
        const = base[is_const]

        def span(v: pd.Series) -> str:
            d = v.dropna()
            if d.empty:
                return "undefined"
            lo, hi = d.min(), d.max()
            text = f"{lo:.3f}" if abs(hi - lo) < 5e-4 else f"{lo:.3f} – {hi:.3f}"
            return text + (" (some undefined)" if len(d) < len(v) else "")

        out["constant class: lowest – highest"] = \
            const.groupby("measure")["value"].agg(span).reindex(measures)
        flags.insert(0, out.columns[0], False)
    for c in cols:
        out[BASELINE_WORDS.get(c, c)] = wide[c]
    flags.columns = out.columns
    out.index = [f"{label(m)} ({arrow(m)})" for m in out.index]
    flags.index = out.index
    return out, flags

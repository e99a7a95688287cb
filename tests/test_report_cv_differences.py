"""cv_differences pivots every measure at once and slices the result; what it returns is what a
pivot per measure and column gave (the reference below: the earlier implementation), frames,
dtypes and labels included."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

pd = pytest.importorskip("pandas")

from evalreport.report import section_tables as t


def _reference(est, top=t.MAX_CV_MEASURES):
    est = est.copy()
    est["reason"] = est["reason"].astype(object).where(est["reason"].notna(), "").astype(str)
    named = set(est.loc[est["estimator"].notna() & (est["estimator"].astype(str) != ""), "measure"])
    est = est[~est["measure"].isin(named)]
    systems = list(dict.fromkeys(est["system"]))
    blocks, same = [], []
    for measure, sub in est.groupby("measure", sort=False):
        aggs = [a for a in t.AGGREGATION_WORDS if a in set(sub["aggregation"])] + \
               [a for a in dict.fromkeys(sub["aggregation"]) if a not in t.AGGREGATION_WORDS]
        vals = sub.pivot_table(index="aggregation", columns="system", values="value", aggfunc="first",
                               dropna=False).reindex(index=aggs, columns=systems)
        why = sub.pivot_table(index="aggregation", columns="system", values="reason", aggfunc="first",
                              dropna=False).reindex(index=aggs, columns=systems)
        kept, names = [], {}
        for agg in aggs:
            for k in kept:
                x, y = vals.loc[agg].to_numpy(float), vals.loc[k].to_numpy(float)
                if np.array_equal(np.isnan(x), np.isnan(y)) and np.all(np.abs(np.nan_to_num(x - y)) < t.CV_SAME):
                    names[k].append(agg)
                    break
            else:
                kept.append(agg)
                names[agg] = [agg]
        if len(kept) == 1:
            same.append(t.label(measure))
            continue
        v = vals.loc[kept].to_numpy(float)
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)      # (the old code's "All-NaN slice")
            spread = np.nanmax(np.nan_to_num(np.nanmax(v, axis=0) - np.nanmin(v, axis=0), nan=0.0))
        rows = vals.loc[kept].copy()
        rows.insert(0, "aggregation", [" = ".join(t.AGGREGATION_WORDS.get(a, a) for a in names[a]) for a in kept])
        rows.insert(0, "measure", [f"{t.label(measure)} ({t.arrow(measure)})"] + [""] * (len(kept) - 1))
        blocks.append((spread, rows, why.loc[kept]))
    blocks.sort(key=lambda b: -b[0])
    shown = blocks[:top]
    if not shown:
        return pd.DataFrame(), None, None, same, 0
    rows = pd.concat([r for _, r, _ in shown], ignore_index=True)
    flags = rows[systems].isna()
    reasons = pd.concat([w for _, _, w in shown], ignore_index=True).reindex(columns=systems)
    reasons = reasons.astype(object).where(reasons.notna() & (reasons.astype(str) != ""), "undefined")
    return rows, flags, reasons, same, len(blocks)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_one_pivot_sliced_per_measure_gives_what_a_pivot_per_measure_gave(data):
    measures = data.draw(st.lists(st.sampled_from(["accuracy", "macro_f1", "mcc", "k", "f1", "auc"]), min_size=1,
                                  max_size=5, unique=True))
    systems = data.draw(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=4, unique=True))
    rows = []
    for m in measures:
        estimator = "F_avg" if m == "f1" else ""            # a named estimator: left out
        for agg in data.draw(st.lists(st.sampled_from(["pooled", "mean", "mean_defined", "median"]), min_size=1,
                                      max_size=4, unique=True)):
            for s in systems:
                if data.draw(st.booleans()):
                    v = data.draw(st.sampled_from([0.5, 0.25, np.nan, 0.5002, 1.0]))
                    rows.append((s, m, agg, estimator, v, bool(np.isnan(v)), 5, "0/0" if np.isnan(v) else ""))
    if not rows:
        rows.append((systems[0], measures[0], "pooled", "", 0.5, False, 5, ""))
    est = pd.DataFrame(rows, columns=["system", "measure", "aggregation", "estimator", "value", "undefined",
                                      "n_folds", "reason"])
    est["estimator"] = est["estimator"].astype(object).where(est["estimator"] != "", np.nan)
    got, want = t.cv_differences(est), _reference(est)
    for a, b in zip(got[:3], want[:3]):
        if b is None:
            assert a is None
        else:
            pd.testing.assert_frame_equal(a, b)
            assert a.columns.name == b.columns.name
    assert got[3:] == want[3:]

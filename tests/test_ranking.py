"""Rankings, rank correlation, disagreements and inconsistency (evalreport.analyses.ranking)."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings, strategies as st
from scipy import stats

from evalreport.analyses.prevalence import calibrate
from evalreport.analyses.ranking import (
    calibration_correlation,
    disagreements,
    inconsistency,
    rank,
    rank_correlation,
    rank_table,
)
from evalreport.counts import Counts, confusion_from_codes
from evalreport.measures import evaluate


def tidy(table: dict, systems) -> pd.DataFrame:
    return pd.DataFrame([{"system": s, "measure": m, "value": v}
                         for m, vals in table.items() for s, v in zip(systems, vals)])


# Gösgens et al. (2021), Table 6: ranks of 7 systems on SST-5 (1 = best). Scores = -rank.
SST5 = ["Flair+ELMo", "Flair+BERT", "SVM", "Logistic", "FastText", "VADER", "TextBlob"]
TABLE6 = {"Acc": [1, 2, 3, 4, 5, 6, 7], "BA": [1, 4, 3, 5, 2, 6, 7], "F1": [1, 5, 3, 4, 2, 6, 7],
          "J": [1, 5, 3, 4, 2, 6, 7], "kappa": [1, 4, 3, 5, 2, 6, 7], "CE": [1, 2, 5, 3, 6, 7, 4],
          "GM1": [1, 5, 3, 4, 2, 6, 7], "CC": [1, 2, 3, 5, 4, 6, 7], "CC_macro": [1, 2, 4, 5, 3, 6, 7],
          "SBA": [1, 2, 4, 3, 5, 7, 6]}


def table6_scores():
    return tidy({m: [-r for r in ranks] for m, ranks in TABLE6.items()}, SST5)


def test_table6_ranks_reproduce():
    r = rank(table6_scores())
    wide = rank_table(r)
    for m, ranks in TABLE6.items():
        assert wide.loc[SST5, m].tolist() == ranks
    assert not r["tied"].any() and not r["nan_last"].any()


def test_table6_consistent_rankings_have_zero_inconsistency():
    # Gösgens et al. (2021), section 5.2: "the only consistent rankings are the one provided by kappa and BA and
    # the second given by F1, GM, and Jaccard"
    inc = inconsistency(table6_scores()).set_index(["measure_a", "measure_b"])
    zero = {("kappa", "BA"), ("F1", "GM1"), ("F1", "J"), ("J", "GM1")}
    for a, b in zero:
        assert inc.loc[(a, b), "discordant"] == 0
    off_diag = inc[inc.index.get_level_values(0) != inc.index.get_level_values(1)]
    consistent = {tuple(sorted(p)) for p in off_diag.index[off_diag["discordant"] == 0]}
    assert consistent == {tuple(sorted(p)) for p in zero}


def test_table6_acc_vs_f1_by_hand():
    # Acc order is 1..7; F1 ranks them 1,5,3,4,2,6,7: inversions (5,3), (5,4), (5,2), (3,2), (4,2) = 5 of 21
    inc = inconsistency(table6_scores()).set_index(["measure_a", "measure_b"])
    assert inc.loc[("Acc", "F1"), "n_pairs"] == 21
    assert inc.loc[("Acc", "F1"), "discordant"] == 5
    assert inc.loc[("Acc", "F1"), "rate"] == pytest.approx(5 / 21)
    corr = rank_correlation(table6_scores()).set_index(["measure_a", "measure_b", "method"])["value"]
    assert corr[("Acc", "F1", "kendall")] == pytest.approx((21 - 2 * 5) / 21)
    # d = (0, 3, 0, 0, -3, 0, 0): rho = 1 - 6 * 18 / (7 * 48)
    assert corr[("Acc", "F1", "spearman")] == pytest.approx(1 - 6 * 18 / (7 * 48))
    dis = disagreements(table6_scores())
    acc_f1 = dis[(dis.measure_a == "Acc") & (dis.measure_b == "F1")]
    assert len(acc_f1) == 5
    assert set(map(tuple, acc_f1[["system_a", "system_b"]].to_numpy())) == {
        ("Flair+BERT", "SVM"), ("Flair+BERT", "Logistic"), ("Flair+BERT", "FastText"), ("SVM", "FastText"),
        ("Logistic", "FastText")}
    row = acc_f1[(acc_f1.system_a == "Flair+BERT") & (acc_f1.system_b == "SVM")].iloc[0]
    assert (row.value_a1, row.value_a2, row.value_b1, row.value_b2) == (-2, -3, -5, -3)
    assert (row.prefers_a, row.prefers_b) == ("Flair+BERT", "SVM")


# Opitz (2022), Appendix G, Table 8 (percent): ties in macR (A, B) and GmacR (A, C, E).
T8_SYSTEMS = list("ABCDEFGH")
TABLE8 = {"macR": [68.1, 68.1, 67.6, 67.4, 66.9, 65.9, 64.9, 64.5],
          "GmacR": [66.8, 66.5, 66.8, 66.5, 66.8, 65.6, 64.2, 64.5]}


def test_table8_ties_average_and_min():
    scores = tidy(TABLE8, T8_SYSTEMS)
    avg = rank(scores, method="average").set_index(["measure", "system"])
    low = rank(scores, method="min").set_index(["measure", "system"])
    assert avg.loc[("macR", "A"), "rank"] == avg.loc[("macR", "B"), "rank"] == 1.5
    assert low.loc[("macR", "A"), "rank"] == low.loc[("macR", "B"), "rank"] == 1
    assert low.loc[("macR", "C"), "rank"] == 3
    for s in "ACE":
        assert avg.loc[("GmacR", s), "rank"] == 2.0 and low.loc[("GmacR", s), "rank"] == 1
        assert avg.loc[("GmacR", s), "tied"]
    assert avg.loc[("GmacR", "B"), "rank"] == 4.5 and low.loc[("GmacR", "B"), "rank"] == 4
    assert not avg.loc[("macR", "C"), "tied"]
    with pytest.raises(ValueError):
        rank(scores, method="dense")


def test_direction_lower_is_better_from_registry():
    scores = tidy({"confusion_entropy": [0.2, 0.1, 0.3], "accuracy": [0.8, 0.9, 0.7]}, ["x", "y", "z"])
    r = rank(scores).set_index(["measure", "system"])["rank"]
    assert r[("confusion_entropy", "y")] == 1 and r[("confusion_entropy", "z")] == 3
    corr = rank_correlation(scores).set_index(["measure_a", "measure_b", "method"])["value"]
    assert corr[("accuracy", "confusion_entropy", "spearman")] == pytest.approx(1.0)
    assert corr[("accuracy", "confusion_entropy", "kendall")] == pytest.approx(1.0)
    assert inconsistency(scores)["discordant"].sum() == 0
    # an override flips it
    r2 = rank(scores, higher_is_better={"confusion_entropy": True}).set_index(["measure", "system"])["rank"]
    assert r2[("confusion_entropy", "z")] == 1


def test_nan_ranks_last_and_is_flagged():
    scores = tidy({"macro_f1": [np.nan, 0.5, 0.7, np.nan]}, ["a", "b", "c", "d"])
    r = rank(scores).set_index("system")
    assert r.loc["c", "rank"] == 1 and r.loc["b", "rank"] == 2
    assert r.loc["a", "rank"] == r.loc["d", "rank"] == 3.5
    assert r.loc["a", "nan_last"] and not r.loc["b", "nan_last"]


def test_constant_measure_gives_nan_correlation_with_note():
    scores = tidy({"accuracy": [0.5, 0.5, 0.5], "macro_f1": [0.1, 0.2, 0.3], "mcc": [0.3, 0.2, 0.1]}, "abc")
    corr = rank_correlation(scores).set_index(["measure_a", "measure_b", "method"])
    assert np.isnan(corr.loc[("accuracy", "macro_f1", "spearman"), "value"])
    assert np.isnan(corr.loc[("accuracy", "accuracy", "kendall"), "value"])
    assert "same score" in corr.loc[("accuracy", "macro_f1", "spearman"), "note"]
    assert corr.loc[("macro_f1", "mcc", "spearman"), "value"] == pytest.approx(-1.0)
    assert corr.loc[("macro_f1", "mcc", "kendall"), "value"] == pytest.approx(-1.0)
    one = rank_correlation(tidy({"accuracy": [0.5], "mcc": [0.1]}, "a"))
    assert one["value"].isna().all() and one["note"].str.contains("fewer than two").all()


def test_tie_versus_strict_order_is_a_disagreement():
    # Gösgens et al. (2021): '*' ranges over <, >, = ; M1 ties a and b, M2 prefers b
    scores = tidy({"accuracy": [0.5, 0.5], "macro_f1": [0.4, 0.6]}, ["a", "b"])
    d = disagreements(scores)
    assert len(d) == 1
    assert (d.prefers_a.iloc[0], d.prefers_b.iloc[0]) == ("tie", "b")
    assert inconsistency(scores).set_index(["measure_a", "measure_b"]).loc[("accuracy", "macro_f1"), "rate"] == 1.0


def _runs_counts(gold, preds, K):
    return Counts(confusion_from_codes(np.asarray(gold), np.asarray(preds), K), [str(k) for k in range(K)],
                  [f"s{i}" for i in range(len(preds))])


# Not gm1_macro: its class values can be negative, so skipping a class that became undefined can
# raise the mean (the macro row of Gösgens et al. 2021, Table 2, vs docs/audit.md#avg-mon-skipped; hypothesis found
# gold [1,1,1,1,1,1,1,2] with one correct item made wrong: -0.1429 -> -0.1178).
MONOTONE = ["accuracy", "macro_recall", "macro_precision", "macro_f1", "macro_f1_hm", "weighted_f1", "sba", "k",
            "gmean_recall", "hmean_recall", "jaccard_macro"]


def test_identical_systems_tie_everywhere():
    gold = [0, 0, 1, 1, 2, 2, 0, 1]
    p = [0, 1, 1, 1, 2, 0, 0, 2]
    counts = _runs_counts(gold, [p, p, [0, 0, 1, 1, 2, 2, 0, 0]], 3)
    r = rank(evaluate(counts, MONOTONE + ["mcc", "kappa"]))
    first_two = r[r.system.isin(["s0", "s1"])].groupby("measure")["rank"].nunique()
    assert (first_two == 1).all()
    assert r[r.system == "s0"]["tied"].all()


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_dominating_system_ranks_first_under_monotone_measures(data):
    # Gösgens et al. (2021), Definition 6: resolving a disagreement (moving an off-diagonal count to the
    # diagonal) never lowers a monotone measure. Each other system is the best one with some of
    # its CORRECT predictions made wrong, i.e. reachable from it by reverse Definition-6 steps, so
    # the best system ranks first under every monotone measure (min ranks). (Two systems that are
    # wrong on the same item with different wrong labels are not ordered by Definition 6.)
    n = data.draw(st.integers(6, 30))
    K = 3
    gold = np.array(data.draw(st.lists(st.integers(0, K - 1), min_size=n, max_size=n)))
    best = np.array(data.draw(st.lists(st.integers(0, K - 1), min_size=n, max_size=n)))
    # Definition 6 excludes unary labelings (a row or column sum equal to n)
    assume(len(set(gold.tolist())) >= 2 and len(set(best.tolist())) >= 2)
    others = []
    for _ in range(data.draw(st.integers(2, 3))):
        spoil = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n))) & (best == gold)
        wrong = (gold + np.array(data.draw(st.lists(st.integers(1, K - 1), min_size=n, max_size=n)))) % K
        other = np.where(spoil, wrong, best)
        assume(len(set(other.tolist())) >= 2)
        others.append(other)
    counts = _runs_counts(gold, np.vstack([best, *others]), K)
    r = rank(evaluate(counts, MONOTONE), method="min")
    assert (r[r.system == "s0"]["rank"] == 1).all(), r[r.system == "s0"]


@settings(max_examples=20, deadline=None)
@given(st.data())
def test_relabelling_systems_permutes_outputs(data):
    S = data.draw(st.integers(2, 6))
    M = data.draw(st.integers(1, 4))
    vals = np.array(data.draw(st.lists(st.lists(st.sampled_from([0.1, 0.2, 0.3, 0.5, np.nan]), min_size=S,
                                                max_size=S), min_size=M, max_size=M)))
    names = [f"sys{i}" for i in range(S)]
    measures = ["accuracy", "macro_f1", "confusion_entropy", "mcc"][:M]
    scores = tidy(dict(zip(measures, vals)), names)
    perm = data.draw(st.permutations(range(S)))
    shuffled = tidy(dict(zip(measures, vals[:, perm])), [names[i] for i in perm])
    a = rank(scores).set_index(["measure", "system"]).sort_index()
    b = rank(shuffled).set_index(["measure", "system"]).sort_index()
    pd.testing.assert_frame_equal(a, b)
    for f in (rank_correlation, inconsistency):
        pd.testing.assert_frame_equal(f(scores), f(shuffled))
    da = disagreements(scores)
    db = disagreements(shuffled)
    assert len(da) == len(db)
    key = lambda d: sorted(tuple(sorted([r.system_a, r.system_b])) + (r.measure_a, r.measure_b)  # noqa: E731
                           for r in d.itertuples())
    assert key(da) == key(db)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=3, max_size=12))
def test_correlations_match_scipy(pairs):
    x, y = (np.array(v, dtype=float) for v in zip(*pairs))
    scores = tidy({"accuracy": x, "macro_f1": y}, [f"s{i}" for i in range(len(x))])
    corr = rank_correlation(scores).set_index(["measure_a", "measure_b", "method"])["value"]
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        assert np.isnan(corr[("accuracy", "macro_f1", "kendall")])
        return
    assert corr[("accuracy", "macro_f1", "kendall")] == pytest.approx(stats.kendalltau(x, y).statistic)
    assert corr[("accuracy", "macro_f1", "spearman")] == pytest.approx(stats.spearmanr(x, y).statistic)
    # inconsistency counts = pairs not ordered alike, ties included (Gösgens et al. 2021)
    i, j = np.triu_indices(len(x), 1)
    expected = int((np.sign(x[i] - x[j]) != np.sign(y[i] - y[j])).sum())
    inc = inconsistency(scores).set_index(["measure_a", "measure_b"])
    assert inc.loc[("accuracy", "macro_f1"), "discordant"] == expected
    assert len(disagreements(scores)) == expected


def test_calibration_correlation_macro_recall_is_invariant():
    # Opitz (2022), Appendix G / Figure 2: recall-based metrics keep their ranking after calibration (PIV)
    rng = np.random.default_rng(3)
    gold = rng.choice(3, size=300, p=[0.6, 0.3, 0.1])
    preds = np.where(rng.random((6, 300)) < rng.uniform(0.3, 0.9, (6, 1)), gold, rng.integers(0, 3, (6, 300)))
    counts = _runs_counts(gold, preds, 3)
    raw = evaluate(counts, ["macro_recall", "macro_precision", "accuracy"]).assign(calibrated=False)
    cal = evaluate(calibrate(counts), ["macro_recall", "macro_precision", "accuracy"]).assign(calibrated=True)
    scores = pd.concat([raw, cal], ignore_index=True)
    cc = calibration_correlation(scores).set_index(["measure", "method"])["value"]
    assert cc[("macro_recall", "spearman")] == pytest.approx(1.0)
    assert cc[("macro_recall", "kendall")] == pytest.approx(1.0)
    # calibrated accuracy is macro recall (Opitz 2022, eq. 14-16): identical rankings
    corr = rank_correlation(scores).set_index(["measure_a", "measure_b", "method"])["value"]
    assert corr[("accuracy_c", "macro_recall", "kendall")] == pytest.approx(1.0)
    table = rank_table(rank(scores))
    assert {"macro_recall", "macro_recall_c", "accuracy_c"} <= set(table.columns)


def test_duplicate_scores_are_an_error():
    scores = pd.DataFrame({"system": ["a", "a"], "measure": ["accuracy", "accuracy"], "value": [0.1, 0.2]})
    with pytest.raises(ValueError, match="more than one"):
        rank(scores)
    with pytest.raises(ValueError, match="more than one"):
        rank_correlation(scores)


# ----------------------------------------------------------------------------- published data (Gösgens et al. 2021)

TABLE6_MEASURES = {"Acc": "accuracy", "BA": "balanced_accuracy", "F1": "f1_macro", "J": "jaccard_macro",
                   "kappa": "kappa", "CE": "confusion_entropy", "GM1": "gm1_macro", "CC": "mcc",
                   "CC_macro": "mcc_macro", "SBA": "sba"}
SST_NAMES = {"Textblob": "TextBlob", "Vader": "VADER", "Logistic": "Logistic", "Svm": "SVM", "Fasttext": "FastText",
             "Flair+BERT": "Flair+BERT", "Flair+ELMo": "Flair+ELMo"}


def read_sst(path):
    """Counts rebuilt from the row-normalised SST-5 matrices (see the data README): rows in reverse class order."""
    lines = [ln for ln in path.read_text().splitlines() if ln.strip()]
    sizes = np.array(lines[0].split(), dtype=float)
    systems, mats = [], []
    for k in range(1, len(lines), 6):
        systems.append(SST_NAMES[lines[k].split(":", 1)[1].strip()])
        frac = np.array([ln.split() for ln in lines[k + 1:k + 6]], dtype=float)[::-1]   # row r = class 4 - r
        mats.append(np.round(frac * sizes[:, None]))
    return Counts(np.stack(mats), [str(i) for i in range(5)], systems)


def test_table6_rankings_from_published_sst_data(gosgens_dir):
    # Gösgens et al. (2021), Table 6; the data README: rebuilt counts reproduce 68 of its 70 cells, the two others
    # being FastText and Flair+BERT under kappa (kappa values about 2e-4 apart)
    counts = read_sst(gosgens_dir / "sst" / "real_sent.tsv")
    scores = evaluate(counts, list(TABLE6_MEASURES.values()))
    wide = rank_table(rank(scores))
    mismatches = []
    for col, mid in TABLE6_MEASURES.items():
        for system, expected in zip(SST5, TABLE6[col]):
            if wide.loc[system, mid] != expected:
                mismatches.append((col, system))
    assert sorted(mismatches) == [("kappa", "FastText"), ("kappa", "Flair+BERT")]


def test_table4_inconsistency_from_published_rain_data(gosgens_dir):
    # Gösgens et al. (2021), Table 4: inconsistency (%) of binary measures over 6 threshold models, aggregated over
    # 12 days x 12 horizons (2,160 system pairs). Our rates agree with every printed cell to within
    # 0.3 percentage points (e.g. Acc-BA 96.6 vs 96.5, CC-SBA 11.7 vs 11.4, Acc-CE 3.1 exactly).
    rows, names = [], []
    for f in sorted((gosgens_dir / "meteo").glob("*.tsv")):
        d = pd.read_csv(f, sep="\t")
        for r in d.itertuples():
            tn, tp, fn, fp = (np.array(getattr(r, c).split(","), dtype=np.int64) for c in ("tn", "tp", "fn", "fp"))
            rows.append(np.stack([np.stack([tp, fn], -1), np.stack([fp, tn], -1)], -2))   # (12 horizons, 2, 2)
            names += [f"{r.exp_group}|{r.utc_date}|{h}" for h in range(len(tn))]
    C = np.concatenate(rows)
    ms = ["accuracy", "balanced_accuracy", "f1", "kappa", "confusion_entropy", "gm1", "mcc", "sba"]
    scores = evaluate(C, ms, positive=0, systems=names)
    parts = scores["system"].str.split("|", expand=True)
    scores = scores.assign(system=parts[0], day=parts[1], horizon=parts[2])
    inc = inconsistency(scores, by=["day", "horizon"])
    assert (inc["n_pairs"] == 12 * 12 * 15).all()
    got = inc.pivot(index="measure_a", columns="measure_b", values="rate").loc[ms, ms].to_numpy() * 100
    table4 = ["96.5 41.0 37.5 3.1 38.7 44.3 55.9", "55.6 58.9 99.7 57.7 52.0 40.4", "3.3 44.2 2.2 3.4 15.0",
              "40.7 1.1 6.7 18.3", "41.9 47.5 59.1", "5.5 17.1", "11.4"]
    ref = np.zeros((8, 8))
    for i, line in enumerate(table4):
        ref[i, i + 1:] = [float(v) for v in line.split()]
    ref = ref + ref.T
    np.testing.assert_allclose(got, ref, atol=0.3)


# ----------------------------------------------------------------------------- undefined values
# Gösgens et al. (2021), section 5.1: two measures are consistent on a triple when the order
# of B1 and B2 (<, >, =) is the same under both; an undefined (0/0) value gives no order, so such a
# pair is no agreement and no disagreement. Here MCC is 0/0 for the majority predictor; ranking
# it last would invent "MCC prefers chance".
REVIEWER = tidy({"accuracy": [0.80, 0.83, 1 / 3, 0.60], "mcc": [0.70, 0.72, 0.0, np.nan]},
                ["sysA", "sysB", "chance", "majority"])


def test_undefined_value_is_neither_agreement_nor_disagreement():
    dis = disagreements(REVIEWER)
    assert not ((dis.system_a == "majority") | (dis.system_b == "majority")).any()
    assert dis.empty                     # every comparable pair is ordered alike
    inc = inconsistency(REVIEWER).set_index(["measure_a", "measure_b"])
    row = inc.loc[("accuracy", "mcc")]
    assert (row.n_pairs, row.n_comparable, row.discordant, row.rate) == (6, 3, 0, 0.0)
    assert inc.loc[("accuracy", "accuracy"), "n_comparable"] == 6
    assert inc.loc[("mcc", "mcc"), "n_comparable"] == 3
    corr = rank_correlation(REVIEWER).set_index(["measure_a", "measure_b", "method"])
    assert corr.loc[("accuracy", "mcc", "spearman"), "value"] == pytest.approx(1.0)
    assert corr.loc[("accuracy", "mcc", "kendall"), "value"] == pytest.approx(1.0)
    assert corr.loc[("accuracy", "mcc", "kendall"), "n_systems"] == 3
    assert corr.loc[("accuracy", "accuracy", "kendall"), "n_systems"] == 4
    # the leaderboard's own rank is unchanged: undefined last, flagged
    r = rank(REVIEWER).set_index(["measure", "system"])
    assert r.loc[("mcc", "majority"), "rank"] == 4 and r.loc[("mcc", "majority"), "nan_last"]


def test_fewer_than_three_defined_systems_give_nan_with_note():
    scores = tidy({"accuracy": [0.1, 0.2, 0.3, 0.4], "mcc": [np.nan, 0.5, np.nan, 0.2]}, "abcd")
    corr = rank_correlation(scores).set_index(["measure_a", "measure_b", "method"])
    for meth in ("spearman", "kendall"):
        cell = corr.loc[("accuracy", "mcc", meth)]
        assert np.isnan(cell["value"]) and cell["n_systems"] == 2 and "fewer than three" in cell["note"]
    two = rank_correlation(tidy({"accuracy": [0.1, 0.2], "mcc": [0.3, 0.1]}, "ab"))
    assert two["value"].isna().all() and (two["n_systems"] == 2).all()
    inc = inconsistency(scores).set_index(["measure_a", "measure_b"])
    assert (inc.loc[("accuracy", "mcc"), "n_comparable"], inc.loc[("accuracy", "mcc"), "discordant"]) == (1, 1)


def test_inconsistency_by_data_set_sums_comparable_pairs():
    day1 = REVIEWER.assign(day=1)
    day2 = tidy({"accuracy": [0.5, 0.6, 0.7], "mcc": [0.3, 0.2, 0.1]}, "xyz").assign(day=2)
    inc = inconsistency(pd.concat([day1, day2]), by="day").set_index(["measure_a", "measure_b"])
    row = inc.loc[("accuracy", "mcc")]
    assert (row.n_pairs, row.n_comparable, row.discordant) == (9, 6, 3)
    assert row.rate == pytest.approx(3 / 6)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_undefined_values_match_a_direct_count_and_scipy_on_the_defined_systems(data):
    """Brute force per pair of measures: the pairs of systems with four defined values, their
    discordance (Gösgens et al. 2021, section 5.1, ties included), and scipy's Spearman / Kendall tau-b over
    the systems with a value under both measures (NaN below three of them, or when one is constant)."""
    S = data.draw(st.integers(2, 8))
    measures = ["accuracy", "macro_f1", "confusion_entropy", "mcc"]      # CE: lower is better
    vals = np.array(data.draw(st.lists(st.lists(st.sampled_from([0.1, 0.2, 0.3, 0.5, np.nan]), min_size=S,
                                                max_size=S), min_size=4, max_size=4)))
    scores = tidy(dict(zip(measures, vals)), [f"s{i}" for i in range(S)])
    key = vals * np.array([1, 1, -1, 1])[:, None]
    inc = inconsistency(scores).set_index(["measure_a", "measure_b"])
    corr = rank_correlation(scores).set_index(["measure_a", "measure_b", "method"])
    dis = disagreements(scores)
    i, j = np.triu_indices(S, 1)
    for a in range(4):
        for b in range(4):
            ok = ~np.isnan(vals[a, i]) & ~np.isnan(vals[a, j]) & ~np.isnan(vals[b, i]) & ~np.isnan(vals[b, j])
            differ = np.sign(key[a, i] - key[a, j]) != np.sign(key[b, i] - key[b, j])
            row = inc.loc[(measures[a], measures[b])]
            assert row.n_comparable == ok.sum() and row.discordant == (ok & differ).sum()
            if a < b:
                n_dis = ((dis.measure_a == measures[a]) & (dis.measure_b == measures[b])).sum()
                assert n_dis == (ok & differ).sum()
            both = ~np.isnan(vals[a]) & ~np.isnan(vals[b])
            x, y = key[a, both], key[b, both]
            for meth, ref in (("spearman", stats.spearmanr), ("kendall", stats.kendalltau)):
                cell = corr.loc[(measures[a], measures[b], meth)]
                assert cell["n_systems"] == both.sum()
                if both.sum() < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
                    assert np.isnan(cell["value"])
                else:
                    assert cell["value"] == pytest.approx(ref(x, y).statistic)

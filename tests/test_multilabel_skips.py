"""Items an example-based measure leaves out (0/0) and the audit's EMPTY verdict under the report's policy.

Under the default ``nan`` policy an example-based value skips the items with empty gold and predicted
sets (an empty baseline scores 0 despite exactly right empty sets), so the audit's EMPTY verdict for
example F1 and Jaccard is computed under the same policy as the values, and the report says how a
value relates to scikit-learn's ``zero_division``.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import multilabel_runs as Runs
from sklearn.metrics import f1_score, jaccard_score, precision_score, recall_score

from evalreport.analyses.audit.multilabel import audit_multilabel
from evalreport.analyses.compare import compare
from evalreport.analyses.multilabel_skips import SKIP_COLUMNS, example_skips, undefined_stat
from evalreport.counts.multilabel import count_multilabel
from evalreport.measures import POLICIES

SKLEARN = {"example_precision": precision_score, "example_recall": recall_score, "example_f1": f1_score,
           "example_jaccard": jaccard_score}


def _runs(seed=0, N=60, L=3, p=0.25):
    """Random sets with many empty ones (gold and predicted), an empty baseline and a perfect system."""
    rng = np.random.default_rng(seed)
    gold = rng.random((N, L)) < p
    noisy = np.where(rng.random((N, L)) < 0.7, gold, rng.random((N, L)) < p)
    pred = np.stack([noisy, np.zeros_like(gold), gold])
    return Runs(gold, pred, [f"l{j}" for j in range(L)], ["noisy", "empty", "perfect"])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_skips_match_scikit_learn_zero_division(seed):
    """Differential: each reading equals scikit-learn's ``*_score(average='samples', zero_division=...)``;
    its default ``"warn"`` equals zero_division=0; the count is the items with a zero denominator."""
    runs = _runs(seed)
    table = example_skips(count_multilabel(runs), list(SKLEARN)).set_index(["system", "measure"])
    assert list(example_skips(count_multilabel(runs), ["subset_accuracy", "hamming_loss"]).columns) == SKIP_COLUMNS
    gold = runs.gold
    for s, system in enumerate(runs.systems):
        pred = runs.pred[s]
        zero_den = {"example_precision": ~pred.any(1), "example_recall": ~gold.any(1),
                    "example_f1": ~(gold | pred).any(1), "example_jaccard": ~(gold | pred).any(1)}
        for m, fn in SKLEARN.items():
            row = table.loc[(system, m)]
            assert row.zero_division_items == int(zero_den[m].sum())
            for zd, col in ((np.nan, "zero_division_nan"), (0.0, "zero_division_0"), (1.0, "zero_division_1")):
                if np.isnan(zd) and m == "example_jaccard":      # jaccard_score takes 0 or 1 only: the mean of
                    inter, union = (gold & pred).sum(1), (gold | pred).sum(1)     # the defined items by hand
                    want = np.mean(inter[union > 0] / union[union > 0]) if (union > 0).any() else np.nan
                else:
                    want = fn(gold, pred, average="samples", zero_division=zd)
                assert row[col] == pytest.approx(want, nan_ok=True), (system, m, zd)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                assert fn(gold, pred, average="samples") == pytest.approx(row.zero_division_0)
            assert row.value == pytest.approx(row.zero_division_nan, nan_ok=True)      # policy nan
            assert "nan" in row["equals"].split(", ")


def test_empty_baseline_scores_zero_under_nan_and_the_share_of_empty_sets_with_zero_division_1():
    """The empty baseline's exactly right empty sets are skipped under nan (F1 = 0); with
    zero_division=1 (the convention) they count as right, so F1 = share of items with an empty gold set."""
    runs = _runs(3)
    row = example_skips(count_multilabel(runs), ["example_f1"]).set_index("system").loc["empty"]
    share = float((~runs.gold.any(1)).mean())
    assert row.value == 0.0 and row.zero_division_1 == pytest.approx(share) and share > 0
    conv = example_skips(count_multilabel(runs), ["example_f1"], policy="convention").set_index("system")
    assert conv.loc["empty", "value"] == pytest.approx(share) and conv.loc["empty", "equals"] == "1"


def test_undefined_stat_names():
    assert undefined_stat("example_f1") == "f1_undef" and undefined_stat("hamming_loss") is None


@pytest.mark.parametrize("policy", POLICIES)
def test_empty_verdict_follows_the_policy(policy):
    """EMPTY holds exactly where an empty-empty item counts like a right item: F1 and Jaccard under the
    convention (1) and policy one, precision and recall under policy one only (their convention is 0,
    scikit-learn's default), never under nan (the item is skipped). Computed, with the policies named."""
    f = audit_multilabel(properties=["EMPTY"], empty_policy=policy, max_n=3).set_index("measure")
    holds = {"example_f1": policy in ("one", "convention"), "example_jaccard": policy in ("one", "convention"),
             "example_precision": policy == "one", "example_recall": policy == "one",
             "subset_accuracy": True, "hamming_loss": True}
    for m, ok in holds.items():
        assert (f.loc[m, "verdict"] == "satisfied") == ok, (m, policy, f.loc[m, "detail"])
        assert f.loc[m, "policy"] == policy
    assert "holds under policies one, convention" in f.loc["example_f1", "detail"]
    assert "holds under policy one" in f.loc["example_precision", "detail"]
    if policy == "nan":
        assert "skipped in the mean over items" in f.loc["example_f1", "detail"]
        # the counterexample is the empty baseline's case: a right empty item left out of a defined mean
        assert f.loc["example_f1", "counterexample"] == "G=[{},{}] P=[{},{a}] (0) vs G=[{},{a}] P=[{a},{a}] (0.5)"


def test_the_comparison_audits_empty_under_its_own_policy():
    runs = _runs(4)
    for policy, verdict in (("nan", "violated"), ("convention", "satisfied")):
        c = compare(runs, policy=policy, bootstrap=0, randomization=0, baseline_samples=0)
        row = c.audit[(c.audit.property == "EMPTY") & (c.audit.measure == "example_f1")].iloc[0]
        assert row.verdict == verdict and row.policy == policy
        assert "example_skips" in c.tables() and set(c.example_skips.policy) == {policy}


def test_findings_rows_from_the_skips(tmp_path):
    """The findings of a comparison say, per system and example-based measure with 0/0 items, how many
    it left out and the scikit-learn readings that differ (skipped_items rows), in plain words in the
    report; nothing when no item is 0/0."""
    from evalreport.analyses.findings import findings
    from evalreport.report.summary import findings_note

    comp = compare(_runs(5), measures=["example_f1", "example_precision"], primary="example_f1",
                              bootstrap=0, randomization=0, audit=False)
    found = findings(comp).findings
    rows = found[found["finding"] == "skipped_items"].set_index(["system", "measure"])
    row = comp.example_skips.set_index(["system", "measure"]).loc[("empty", "example_f1")]
    detail = rows.loc[("empty", "example_f1"), "detail"]
    assert detail.startswith(f"averages only {row['items'] - row.zero_division_items} of the {row['items']} items")
    assert f"{row.zero_division_1:.3f} if counted as 1" in detail and "left out" in detail
    text = findings_note(found, primary=comp.primary).details.replace("\\", "")
    # plain words, no library API (zero_division=...) in what a reader reads
    assert "zero_division" not in text and "**0/0 labels and items:**" in text
    clean = Runs(np.ones((3, 2), bool), np.ones((1, 3, 2), bool), ["a", "b"], ["s"])
    found = findings(compare(clean, measures=["example_f1"], primary="example_f1", bootstrap=0,
                                        randomization=0, audit=False)).findings
    assert found[found["finding"].isin(["skipped_items", "rests_on_skipping"])].empty

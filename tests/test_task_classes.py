"""Classes that occur only in predictions (unknown labels counted as wrong, missing predictions as
<abstain>) are classes of a system only where it predicts them: one team's stray labels must not
change another team's scores (a shared task's leaderboard), while the team itself is scored as
scikit-learn scores it (its labels are the union of gold and predicted labels)."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import write_labels, write_run_files
from sklearn.metrics import f1_score, precision_score, recall_score

from evalreport import measures as M
from evalreport.analyses import resampling
from evalreport.analyses.compare import compare
from evalreport.counts import count
from evalreport.inputs import read_runs

GOLD = ["a", "b", "b", "c", "a", "c", "b", "a"]
CLEAN = ["a", "b", "c", "c", "b", "c", "b", "a"]
STRAY = ["a", "foo", "b", "bar", "a", "c", "b", "foo"]
PARTIAL = {0: "a", 1: "b", 2: "b", 4: "c", 6: "b", 7: "a"}          # items 3 and 5 missing


@pytest.fixture()
def files(tmp_path):
    gold, (clean, stray) = write_run_files(tmp_path, GOLD, {"clean": CLEAN, "stray": STRAY}, ids=range(len(GOLD)))
    partial = write_labels(tmp_path / "partial.tsv", PARTIAL.values(), ids=PARTIAL)
    return gold, clean, stray, partial


def _read(gold, runs):
    with pytest.warns(UserWarning) if len(runs) > 1 else _nothing():
        return read_runs(gold, runs, allow_unknown=True, missing="abstain")


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.mark.parametrize("policy", ["nan", "zero", "one", "convention"])
def test_a_teams_scores_do_not_depend_on_other_teams_stray_labels(files, policy):
    gold, clean, stray, partial = files
    alone = count(read_runs(gold, [clean]))
    together = count(_read(gold, [clean, stray, partial]))
    assert together.labels[:3] == ("a", "b", "c") and together.n_task == 3 and alone.n_task is None
    ids = [m.id for m in M.default_measures(positive=None)]
    a = M.evaluate(alone, ids, policy=policy).set_index(["system", "measure"])
    b = M.evaluate(together, ids, policy=policy).set_index(["system", "measure"]).loc["clean"]
    a = a.loc["clean"]
    np.testing.assert_allclose(b["value"].to_numpy(), a["value"].to_numpy(), equal_nan=True, rtol=1e-12)
    assert (b["undefined"].to_numpy() == a["undefined"].to_numpy()).all()
    assert not b["reason"].str.contains("foo|bar|abstain").any()


@pytest.mark.parametrize("zero_division", [0.0, 1.0])
def test_the_team_with_stray_labels_is_scored_as_scikit_learn_scores_it(files, zero_division):
    gold, clean, stray, partial = files
    counts = count(_read(gold, [clean, stray, partial]))
    policy = {0.0: "zero", 1.0: "one"}[zero_division]
    got = M.evaluate(counts, ["macro_f1", "macro_precision", "macro_recall"], policy=policy)
    got = got[got.system == "stray"].set_index("measure")["value"]
    for fn, mid in ((f1_score, "macro_f1"), (precision_score, "macro_precision"), (recall_score, "macro_recall")):
        want = fn(GOLD, STRAY, average="macro", zero_division=zero_division)   # labels: gold and predicted
        assert got[mid] == pytest.approx(want, abs=1e-12), mid


def test_k_counts_the_task_classes_only(files):
    """Sebastiani (2015), eq. 10: |C| is the task's class set; a prediction of another label is an error."""
    gold, clean, stray, partial = files
    counts = count(_read(gold, [clean, stray, partial]))
    k = M.evaluate(counts, ["k"]).set_index("system")["value"]
    C = np.asarray(counts.tensor)[1][:3, :3]                  # stray: its recalls of a, b, c
    rho = np.diag(C) / np.array([GOLD.count(c) for c in "abc"])
    assert k["stray"] == pytest.approx(3 / 2 * rho.mean() - 1 / 2, abs=1e-12)


def test_bootstrap_and_compare_use_the_same_classes(files):
    gold, clean, stray, partial = files
    runs = _read(gold, [clean, stray, partial])
    boot = resampling.bootstrap(runs, ["macro_f1", "k"], n_resamples=20, seed=0)
    point = M.evaluate(count(runs), ["macro_f1", "k"]).set_index(["system", "measure"])["value"]
    got = boot.intervals.set_index(["system", "measure"])["value"]
    np.testing.assert_allclose(got.loc[point.index].to_numpy(), point.to_numpy(), rtol=1e-12)
    scores = compare(runs, measures=["macro_f1"], primary="macro_f1", bootstrap=0).scores
    raw = scores[~scores.calibrated].set_index("system")["value"]
    assert raw["clean"] == pytest.approx(point[("clean", "macro_f1")])


def test_cost_measures_and_baselines_are_the_tasks(files):
    """k_cost's max(E_j) and expected_cost's trivial system range over the classes that count; the
    chance baselines predict the task's classes (a stray team must not move another's reference)."""
    from evalreport.analyses.baselines import baselines
    from evalreport.measures.ordinal import costs_from_order

    gold, clean, stray, partial = files
    alone, together = read_runs(gold, [clean]), _read(gold, [clean, stray, partial])
    D3 = costs_from_order(list("abc"), list("abc"))
    Dall = costs_from_order(list(together.labels), list(together.labels))
    for mid in ("k_cost", "expected_cost", "mae", "macro_mae"):
        a = M.evaluate(count(alone), [mid], costs=D3).set_index("system")["value"]["clean"]
        b = M.evaluate(count(together), [mid], costs=Dall).set_index("system")["value"]["clean"]
        assert b == pytest.approx(a, abs=1e-12), mid
    base_a = baselines(count(alone), ["macro_f1", "accuracy", "k"]).set_index(["measure", "baseline"])["value"]
    base_b = baselines(count(together), ["macro_f1", "accuracy", "k"]).set_index(["measure", "baseline"])["value"]
    assert list(base_b.index) == list(base_a.index)                   # no constant:foo, constant:<abstain>
    np.testing.assert_allclose(base_b.to_numpy(), base_a.to_numpy(), rtol=1e-9, atol=0.02)  # MC models: SE

"""Paired resampling straight from pattern counts.

A :class:`~evalreport.counts.bigdata.PatternCounts` (what ``count_patterns`` gets from DuckDB or
Spark) is resampled as it is - a multinomial over its P patterns, within folds - and never
expanded to its N items. The claim tested here: with distinct rows (as ``count_patterns``
returns them) every number equals, with the same seed, the number computed on the expanded items
``to_runs()``; with repeated rows the resampling matches in distribution. Then the wiring:
``compare``, the report's ``analyse`` and ``evalreport compare/report --backend duckdb``.
"""
from __future__ import annotations

import json
import tracemalloc

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalreport.analyses import resampling as rs
from evalreport.analyses.compare import compare
from evalreport.analyses.resampling_patterns import ITEM_DRAW_RATIO
from evalreport.counts import bigdata, count
from evalreport.counts.bigdata import PatternCounts
from evalreport.errors import InputError
from evalreport.inputs.runs import Source

SOME = ["accuracy", "macro_f1", "mcc", "kappa", "confusion_entropy"]   # incl. non-decomposable, lower-is-better


def make_pattern_counts(rng, *, P=200, S=4, K=3, folds=0, heavy=0.3, acc=0.7) -> PatternCounts:
    """Distinct pattern rows sorted by (fold, gold, predictions) like ``count_patterns``; a share
    ``heavy`` of them with many items (multinomial path of the draw), the rest with 1-3 items
    (item-draw path)."""
    gold = rng.integers(0, K, P)
    right = rng.random((S, P)) < acc
    pred = np.where(right, gold[None], (gold[None] + rng.integers(1, K, (S, P))) % K)
    fold = rng.integers(0, folds, P) if folds else np.zeros(P, dtype=np.int64)
    rows = np.column_stack([fold, gold, pred.T])
    rows = np.unique(rows, axis=0)                         # distinct, lexicographically sorted
    n = rows.shape[0]
    counts = np.where(rng.random(n) < heavy, rng.integers(20, 300, n), rng.integers(1, 4, n)).astype(np.int64)
    return PatternCounts(patterns=rows[:, 1:].astype(np.int8), counts=counts, labels=tuple("abcde"[:K]),
                         systems=tuple(f"sys{i}" for i in range(S)),
                         folds=rows[:, 0].astype(np.int8) if folds else None,
                         fold_names=tuple(f"f{i}" for i in range(folds)) if folds else ())


CASES = {"no folds": dict(), "folds": dict(folds=3), "mostly light": dict(heavy=0.02, P=600),
         "mostly heavy": dict(heavy=0.9, K=2, S=5), "many classes": dict(K=5, S=3, folds=2)}


# ----------------------------------------------------------------------------- the patterns themselves


@pytest.mark.parametrize("case", CASES)
def test_patterns_of_counts_are_the_patterns_of_the_expanded_items(rng, case):
    pc = make_pattern_counts(rng, **CASES[case])
    got, ref = rs.patterns(pc), rs.patterns(pc.to_runs())
    assert got.inverse is None                                 # nothing of size N
    assert got.n_items == ref.n_items == pc.n_items
    for name in ("counts", "gold", "pred", "fold"):
        np.testing.assert_array_equal(getattr(got, name), getattr(ref, name), err_msg=name)
    assert (got.n_classes, got.n_folds) == (ref.n_classes, ref.n_folds)


def test_repeated_rows_are_merged_and_empty_rows_dropped(rng):
    pc = make_pattern_counts(rng, P=80, folds=2)
    P = pc.n_patterns
    # the rows twice (second copy shuffled), some counts split between the copies, plus zero-count rows
    perm = rng.permutation(P)
    split = rng.integers(0, pc.counts + 1)
    messy = PatternCounts(patterns=np.concatenate([pc.patterns, pc.patterns[perm], pc.patterns[:5]]),
                          counts=np.concatenate([split, (pc.counts - split)[perm], np.zeros(5, dtype=np.int64)]),
                          labels=pc.labels, systems=pc.systems,
                          folds=np.concatenate([pc.folds, pc.folds[perm], pc.folds[:5]]), fold_names=pc.fold_names)
    got = rs.patterns(messy)
    assert got.n_items == pc.n_items and got.n_patterns <= P
    # same multiset of (fold, gold, pred..., count) as the clean rows
    def key(p):
        return sorted(zip(p.fold.tolist(), p.gold.tolist(), map(tuple, p.pred.T.tolist()), p.counts.tolist()))

    clean = rs.patterns(pc)
    assert key(got) == [k for k in key(clean)]


def test_bad_pattern_counts_are_input_errors(rng):
    pc = make_pattern_counts(rng, P=20)
    bad = [
        dict(patterns=pc.patterns[:, :-1]),                       # one system column missing
        dict(counts=-pc.counts),                                  # negative counts
        dict(counts=pc.counts.astype(float)),                     # not integers
        dict(patterns=np.where(pc.patterns == 0, 7, pc.patterns)),  # code outside the classes
        dict(counts=np.zeros_like(pc.counts)),                    # no items
    ]
    base = dict(patterns=pc.patterns, counts=pc.counts, labels=pc.labels, systems=pc.systems)
    for change in bad:
        with pytest.raises(InputError):
            rs.bootstrap(PatternCounts(**{**base, **change}), ["accuracy"], n_resamples=5)
    with pytest.raises(InputError, match="confusion matrices"):
        rs.pairwise(pc.confusion(), "accuracy", n_resamples=5)


# ----------------------------------------------------------------------------- equality with the expanded items


@pytest.mark.parametrize("case", CASES)
def test_bootstrap_equals_the_expanded_items_exactly(rng, case):
    pc = make_pattern_counts(rng, **CASES[case])
    got = rs.bootstrap(pc, SOME, n_resamples=60, seed=11)
    ref = rs.bootstrap(pc.to_runs(), SOME, n_resamples=60, seed=11)
    np.testing.assert_array_equal(got.samples, ref.samples)
    pd.testing.assert_frame_equal(got.intervals, ref.intervals)
    pd.testing.assert_frame_equal(got.rank_distribution, ref.rank_distribution)
    assert got.systems == pc.systems
    # the draw really resamples: the resampled values vary
    assert np.nanstd(got.samples[:, :, 0], axis=0).min() > 0


@pytest.mark.parametrize("case", ["no folds", "folds", "mostly light"])
def test_pairwise_tests_equal_the_expanded_items_exactly(rng, case):
    pc = make_pattern_counts(rng, **CASES[case])
    for measure in ("macro_f1", "confusion_entropy"):
        got = rs.pairwise(pc, measure, n_resamples=80, seed=5)
        ref = rs.pairwise(pc.to_runs(), measure, n_resamples=80, seed=5)
        pd.testing.assert_frame_equal(got, ref)
        assert set(got["test"]) == set(rs.TESTS)


def test_positive_class_and_costs_pass_through(rng):
    pc = make_pattern_counts(rng, K=3, folds=2)
    costs = np.abs(np.subtract.outer(np.arange(3), np.arange(3))).astype(float)
    kw = dict(n_resamples=40, seed=2, positive="b", costs=costs)
    got = rs.bootstrap(pc, ["f1", "precision", "accuracy"], **kw)
    ref = rs.bootstrap(pc.to_runs(), ["f1", "precision", "accuracy"], **kw)
    np.testing.assert_array_equal(got.samples, ref.samples)


# ----------------------------------------------------------------------------- no expansion, whatever N


def test_a_billion_items_are_resampled_without_making_them(rng, monkeypatch):
    """N = 1e9 items in 60 patterns: expanding them would need gigabytes; resampling the counts
    stays within a few MB, and the intervals shrink to the scale sqrt(p (1 - p) / N)."""
    pc = make_pattern_counts(rng, P=60, S=3, K=3, folds=2, heavy=1.0)
    counts = rng.multinomial(10 ** 9 - pc.n_patterns, pc.counts / pc.counts.sum()) + 1
    big = PatternCounts(patterns=pc.patterns, counts=counts, labels=pc.labels, systems=pc.systems, folds=pc.folds,
                        fold_names=pc.fold_names)
    monkeypatch.setattr(PatternCounts, "to_runs", lambda self: pytest.fail("expanded to items"))
    tracemalloc.start()
    try:
        boot = rs.bootstrap(big, ["accuracy", "macro_f1"], n_resamples=200, seed=0)
        pair = rs.pairwise(big, "accuracy", n_resamples=100, seed=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2 ** 20
    acc = boot.intervals[boot.intervals["measure"] == "accuracy"]
    assert ((acc["lo"] <= acc["value"]) & (acc["value"] <= acc["hi"])).all()
    # bootstrap SE of accuracy = binomial SE sqrt(p (1 - p) / N) (folds are stratified, so a bit
    # below it); B = 200 estimates it within ~15% (tolerance 30%)
    p = acc["value"].to_numpy()
    np.testing.assert_allclose(acc["se"].to_numpy(), np.sqrt(p * (1 - p) / 1e9), rtol=0.3)
    mcn = pair[pair["test"] == "mcnemar"]
    C = big.confusion().tensor
    assert (mcn["difference"].to_numpy() != 0).all()
    np.testing.assert_allclose(mcn["difference"].to_numpy(),
                               [(np.trace(C[a]) - np.trace(C[b])) / 1e9 for a, b in ((0, 1), (0, 2), (1, 2))])


def test_draws_keep_the_fold_sizes_and_use_both_draw_paths(rng):
    pc = make_pattern_counts(rng, P=300, folds=3, heavy=0.2)
    pat = rs.patterns(pc)
    plan = rs.draw_plan(pat)
    assert any(len(heavy) for heavy, _, _ in plan) and any(len(items) for _, items, _ in plan)
    # the light-item list is built from counts and bounded by the draw-cost model, not by N
    assert sum(len(items) for _, items, _ in plan) <= ITEM_DRAW_RATIO * pat.n_patterns
    W = rs.draw_weights(pat, np.random.default_rng(0), 500, plan)
    sizes = np.bincount(pat.fold, weights=pat.counts)
    for f in range(3):
        np.testing.assert_array_equal(W[:, pat.fold == f].sum(axis=1), sizes[f])
    # each pattern's draw count has the multinomial mean n_f * (n_p / n_f) = n_p and
    # variance n_p (1 - n_p / n_f): checked on the standardised mean over 500 draws
    frac = pat.counts / sizes[pat.fold]
    z = (W.mean(axis=0) - pat.counts) / np.sqrt(pat.counts * (1 - frac) / 500)
    assert abs(z.mean()) < 4 / np.sqrt(pat.n_patterns) + 0.05 and 0.8 < z.std() < 1.2


def test_repeated_rows_match_the_expanded_items_in_distribution(rng):
    """Rows split in two copies: the expanded items list a pattern's items in two places, so the
    draws differ - but both are the same multinomial: the bootstrap distributions of accuracy agree
    (two-sample KS) and their SE is the binomial one."""
    pc = make_pattern_counts(rng, P=400, S=4, K=3, heavy=0.0)          # all light: item draws
    split = rng.integers(1, pc.counts + 1)                  # >= 1: the first copy keeps the rows' order
    messy = PatternCounts(patterns=np.concatenate([pc.patterns, pc.patterns]),
                          counts=np.concatenate([split, pc.counts - split]), labels=pc.labels, systems=pc.systems)
    a = rs.bootstrap(messy, ["accuracy"], n_resamples=600, seed=1).samples[:, 0, 0]
    b = rs.bootstrap(messy.to_runs(), ["accuracy"], n_resamples=600, seed=2).samples[:, 0, 0]
    clean = rs.bootstrap(pc, ["accuracy"], n_resamples=600, seed=1).samples[:, 0, 0]
    np.testing.assert_array_equal(a, clean)                            # merged rows = the clean rows
    assert stats.ks_2samp(a, b).pvalue > 1e-3
    p, N = a.mean(), pc.n_items
    assert a.std(ddof=1) == pytest.approx(np.sqrt(p * (1 - p) / N), rel=0.15)


# ----------------------------------------------------------------------------- McNemar from counts


def test_mcnemar_counts_the_discordant_items_of_the_patterns():
    """b = 30 items only A gets right, c = 10 only B: chi-square with continuity correction
    (|30 - 10| - 1)^2 / 40 = 9.025; with b = 3, c = 1 the exact two-sided binomial p = 2 * 5/16."""
    rows = np.array([[1, 1, 0], [1, 0, 1], [0, 0, 0], [1, 1, 1], [0, 1, 1]], dtype=np.int8)
    for (b, c), stat, p in (((30, 10), 9.025, stats.chi2.sf(9.025, 1)), ((3, 1), 1.0, 0.625)):
        pc = PatternCounts(patterns=rows, counts=np.array([b, c, 50, 40, 7]), labels=("n", "y"), systems=("A", "B"))
        row = rs.pairwise(pc, "accuracy", tests="mcnemar").iloc[0]
        assert row["statistic"] == pytest.approx(stat) and row["p_value"] == pytest.approx(p)
        assert row["difference"] == pytest.approx((b - c) / (b + c + 97))


# ----------------------------------------------------------------------------- compare and the report


def test_compare_on_pattern_counts_equals_compare_on_the_items(rng):
    pc = make_pattern_counts(rng, P=150, S=3, folds=2)
    kw = dict(measures=["macro_f1", "accuracy", "kappa"], bootstrap=60, seed=4, baseline_samples=50)
    got, ref = compare(pc, **kw), compare(pc.to_runs(), **kw)
    assert got.settings["input"] == "patterns" and ref.settings["input"] == "runs"
    for name in ("scores", "intervals", "rank_distribution", "pairwise", "groups", "leaderboard"):
        pd.testing.assert_frame_equal(getattr(got, name), getattr(ref, name), obj=name)
    assert got.leaderboard[["lo", "hi"]].notna().all().all()
    # identical here because to_runs() lays the items out in pattern order; files read in memory keep
    # their item order, so the note says that the out-of-core draw is another Monte-Carlo draw
    assert any("another Monte-Carlo draw" in n for n in got.notes)
    assert not any("Monte-Carlo draw" in n for n in ref.notes)


def test_report_facts_of_pattern_counts(rng):
    from evalreport.report.build import _describe

    pc = make_pattern_counts(rng, P=50, folds=2)
    src = [Source("gold", "gold.parquet", "0" * 64, 0)]
    facts = _describe(pc, src)
    assert facts["n_items"] == int(pc.counts.sum()) and facts["n_systems"] == len(pc.systems)
    assert facts["n_classes"] == len(pc.labels) and facts["n_folds"] == 2 and facts["sources"] == tuple(src)
    np.testing.assert_array_equal(facts["counts"].tensor, count(pc.to_runs()).tensor)


# ----------------------------------------------------------------------------- the CLI on DuckDB


@pytest.fixture(scope="module")
def parquet(tmp_path_factory):
    pytest.importorskip("duckdb")
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    tmp = tmp_path_factory.mktemp("patterns")
    rng = np.random.default_rng(3)
    n, labels = 240, np.array(["neg", "neu", "pos"], dtype=object)
    ids = np.array([f"doc{i:04d}" for i in rng.permutation(n)], dtype=object)
    gold = rng.integers(0, 3, n)
    skill = np.array([[0.9], [0.75], [0.5]])
    pred = np.where(rng.random((3, n)) < skill, gold, rng.integers(0, 3, (3, n)))
    pq.write_table(pa.table({"id": ids, "label": labels[gold]}), tmp / "gold.parquet")
    long = pa.table({"system": np.repeat(np.array(["good", "fair", "poor"], dtype=object), n),
                     "id": np.tile(ids, 3), "label": labels[pred].ravel()})
    pq.write_table(long.take(rng.permutation(long.num_rows)), tmp / "runs.parquet")
    return tmp


def test_cli_compare_with_duckdb_gives_intervals(parquet, capsys):
    from evalreport.cli import main

    code = main(["compare", str(parquet / "gold.parquet"), str(parquet / "runs.parquet"), "--backend", "duckdb",
                 "--bootstrap", "200", "--format", "csv", "--no-progress"])
    out = capsys.readouterr()
    assert code == 0, out.err
    board = pd.read_csv(pd.io.common.StringIO(out.out))
    assert list(board["system"]) == ["good", "fair", "poor"]
    assert board[["lo", "hi"]].notna().all().all()
    assert ((board["lo"] <= board["value"]) & (board["value"] <= board["hi"]) & (board["lo"] < board["hi"])).all()
    assert board["group"].tolist() == [1, 2, 3]              # skills 0.9 / 0.75 / 0.5 on 240 items separate
    # the same numbers as the API on the counted patterns (and so as on their expanded items)
    pc = bigdata.count_patterns(parquet / "gold.parquet", parquet / "runs.parquet")
    ref = compare(pc, bootstrap=200, seed=0).leaderboard
    np.testing.assert_allclose(board[["value", "lo", "hi"]].to_numpy(), ref[["value", "lo", "hi"]].to_numpy(),
                               rtol=1e-12)


@pytest.mark.parametrize("argv", [["score"], ["compare", "--bootstrap", "0"]])
def test_cli_without_resampling_counts_confusions_only(parquet, capsys, monkeypatch, argv):
    """score and --bootstrap 0 need only the confusion tensors: one GROUP BY, no per-item pivot."""
    from evalreport.cli import main

    monkeypatch.setattr(bigdata, "count_patterns", lambda *a, **k: pytest.fail("patterns counted"))
    code = main([argv[0], str(parquet / "gold.parquet"), str(parquet / "runs.parquet"), "--backend", "duckdb",
                 "--format", "csv", *argv[1:]])
    assert code == 0, capsys.readouterr().err


def test_cli_report_with_duckdb_has_leaderboard_intervals(parquet, tmp_path, capsys):
    from evalreport.cli import main

    out = tmp_path / "report"
    code = main(["report", str(parquet / "gold.parquet"), str(parquet / "runs.parquet"), "--backend", "duckdb",
                 "--bootstrap", "100", "--format", "html", "--no-audit", "--engine", "builtin", "--quiet",
                 "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    board = pd.read_csv(out / "tables" / "leaderboard.csv")
    assert board[["lo", "hi"]].notna().all().all()
    meta = json.loads((out / "tables" / "report.json").read_text())
    assert meta["input"] == "patterns" and meta["bootstrap"] == 100 and meta["n_items"] == 240
    assert [s["role"] for s in meta["provenance"]["inputs"]] == ["gold", "runs"]
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "interval" in html
    for lo, hi in board[["lo", "hi"]].to_numpy():            # every interval printed (3 decimals) in the table
        assert f"[{lo:.3f}, {hi:.3f}]" in html

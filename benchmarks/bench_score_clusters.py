"""Benchmark of the cluster bootstrap of ROC AUC (run by hand; never part of the test suite).

    /work/main/.venv/bin/python benchmarks/bench_score_clusters.py            # 10 systems x 1e5 items, 5,000 clusters
    /work/main/.venv/bin/python benchmarks/bench_score_clusters.py --quick    # a smaller smoke run

Seeded synthetic binary data as benchmarks/bench_scores.py, the items in 5,000 clusters of about 20.
Timed in the same run, B resamples each:

* evalreport, whole clusters: :class:`evalreport.analyses.score_design.ScoreDesign` with
  :func:`evalreport.analyses.score_clusters.item_clusters` (cluster counts as item weights on the scores
  sorted once);
* evalreport, items: the same design without clusters (the reference: the goal is at most 1.5x its time);
* the peer: draw clusters with replacement, gather their items, scikit-learn's ``roc_auc_score`` per
  system, timed on a few resamples and extrapolated to B.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.metrics import roc_auc_score

from evalreport.analyses.score_clusters import item_clusters
from evalreport.analyses.score_design import ScoreDesign
from evalreport.counts.scores import score_counts
from evalreport.inputs.runs import Runs
from evalreport.measures import get


def synthetic(n: int, systems: int, clusters: int, seed: int = 25) -> Runs:
    """Binary gold, correlated scores in [0, 1] rounded to 3 decimals (ties), items in clusters."""
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, 2, n)
    item = rng.normal(size=n)
    skill = np.linspace(0.5, 1.5, systems)[:, None]
    raw = skill * gold + 0.7 * item + rng.normal(size=(systems, n))
    scores = np.round(1 / (1 + np.exp(-raw)), 3)
    codes = np.sort(rng.integers(0, clusters, n))
    return Runs(gold=gold, pred=(scores > 0.5).astype(int), labels=("neg", "pos"),
                systems=tuple(f"sys{i}" for i in range(systems)), scores=scores, clusters=codes,
                cluster_names=tuple(f"c{k}" for k in range(clusters)), cluster_col="doc")


def evalreport_seconds(runs: Runs, B: int, clustered: bool) -> float:
    start = time.perf_counter()
    design = ScoreDesign(score_counts(runs, positive=1), clusters=item_clusters(runs) if clustered else None)
    design.resample([get("roc_auc")], B, np.random.default_rng(0))
    return time.perf_counter() - start


def peer_seconds_per_resample(runs: Runs, timed: int) -> float:
    rng = np.random.default_rng(0)
    y, scores, codes = np.asarray(runs.gold), np.asarray(runs.scores), np.asarray(runs.clusters)
    members = np.split(np.argsort(codes, kind="stable"), np.flatnonzero(np.diff(np.sort(codes))) + 1)
    start = time.perf_counter()
    for _ in range(timed):
        idx = np.concatenate([members[c] for c in rng.integers(0, len(members), len(members))])
        for s in range(scores.shape[0]):
            roc_auc_score(y[idx], scores[s, idx])
    return (time.perf_counter() - start) / timed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n, S, C, B, timed = (10_000, 4, 500, 100, 3) if args.quick else (100_000, 10, 5_000, 1000, 5)
    runs = synthetic(n, S, C)
    cluster = float(np.median([evalreport_seconds(runs, B, True) for _ in range(3)]))
    item = float(np.median([evalreport_seconds(runs, B, False) for _ in range(3)]))
    peer = peer_seconds_per_resample(runs, timed) * B
    case = f"{B:,} resamples x {S} systems x {n:.0e} items in {C:,} clusters, binary, ties"
    print(f"| {case} | evalreport ScoreDesign, whole clusters (roc_auc) | {cluster:.2f} s | 3 | "
          f"{cluster / item:.2f}x | | cluster counts as item weights |")
    print(f"| {case} | evalreport ScoreDesign, items (roc_auc) | {item:.2f} s | 3 | 1x | | the reference |")
    print(f"| {case} | draw clusters, gather items + scikit-learn roc_auc_score per system | {peer:.1f} s | 1 | | "
          f"{peer / cluster:.0f}x | {timed} resamples timed, extrapolated to {B:,} |")


if __name__ == "__main__":
    main()

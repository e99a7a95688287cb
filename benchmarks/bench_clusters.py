"""The paired cluster bootstrap against the item bootstrap on the same data (run by hand; never part of
the test suite).

    .venv/bin/python benchmarks/bench_clusters.py               # 3 runs each
    .venv/bin/python benchmarks/bench_clusters.py --repeats 1

20 systems x 1e5 items x K = 5 classes, 1,000 resamples, items in clusters (1e4 clusters of 10 items,
and 1e3 clusters of 100; each system's skill varies by cluster). ``ConfusionDesign.resample`` with the
clusters (whole clusters drawn, turned into pattern counts by the cluster matrix) and without them
(items drawn), for accuracy alone (the cheapest measure: the draw's share of the time is largest) and for
the 16 measures of a comparison. The goal is a ratio, cluster / item, of at most 1.5, measured in the same
run (runs alternate); docs/benchmark.md records the figures with their date.
"""
from __future__ import annotations

import argparse
import resource
import statistics
import time

import numpy as np

from evalreport.analyses.compare import COMPARE_MEASURES
from evalreport.analyses.resampling import ConfusionDesign
from evalreport.inputs.runs import Runs
from evalreport.measures import get

GOAL = 1.5


def clustered(n_items: int = 100_000, per_cluster: int = 10, n_systems: int = 20, K: int = 5) -> Runs:
    """Runs whose systems' skills vary by cluster (seeded)."""
    rng = np.random.default_rng(0)
    C = n_items // per_cluster
    gold = rng.integers(0, K, size=n_items)
    skill = 1 / (1 + np.exp(-(1.0 + 0.8 * rng.standard_normal((n_systems, C)))))
    right = rng.random((n_systems, n_items)) < np.repeat(skill, per_cluster, axis=1)
    pred = np.where(right, gold, (gold + rng.integers(1, K, size=(n_systems, n_items))) % K)
    return Runs(gold=gold, pred=pred, labels=tuple(f"c{k}" for k in range(K)),
                systems=tuple(f"s{i}" for i in range(n_systems)), clusters=np.repeat(np.arange(C), per_cluster),
                cluster_names=tuple(f"d{i}" for i in range(C)), cluster_col="doc")


def timed(design: ConfusionDesign, measures, B: int) -> float:
    start = time.perf_counter()
    design.resample(measures, B, np.random.default_rng(1))
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    print("| case | measures | item bootstrap | cluster bootstrap | cluster / item | goal |")
    print("|---|---|---:|---:|---:|---|")
    for per_cluster in (10, 100):
        runs = clustered(per_cluster=per_cluster)
        items = ConfusionDesign(Runs(gold=runs.gold, pred=runs.pred, labels=runs.labels, systems=runs.systems))
        clusters = ConfusionDesign(runs)
        for label, measures in (("accuracy", [get("accuracy")]),
                                (f"{len(COMPARE_MEASURES)} of compare", [get(m) for m in COMPARE_MEASURES])):
            t_item, t_cluster = [], []
            for _ in range(args.repeats):                      # alternate, so that load affects both alike
                t_item.append(timed(items, measures, args.resamples))
                t_cluster.append(timed(clusters, measures, args.resamples))
            i, c = statistics.median(t_item), statistics.median(t_cluster)
            case = (f"{args.resamples} resamples x 20 systems x 1e5 items x K=5, "
                    f"{runs.n_clusters:,} clusters of {per_cluster}")
            print(f"| {case} | {label} | {i:.2f} s | {c:.2f} s | {c / i:.2f} | {'met' if c / i <= GOAL else 'MISSED'} "
                  f"(<= {GOAL}) |")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak RSS {peak:.0f} MB")


if __name__ == "__main__":
    main()

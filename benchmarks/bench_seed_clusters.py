"""Runs, then clusters: the two-level bootstrap of clustered items against the cluster bootstrap of the
same runs taken as systems (run by hand; never part of the test suite).

    .venv/bin/python benchmarks/bench_seed_clusters.py               # 3 runs each
    .venv/bin/python benchmarks/bench_seed_clusters.py --repeats 1

4 systems x 5 runs (20 runs) x 1e5 items x K = 5 classes in 1e4 clusters of 10, 1,000 resamples, the 16
measures of a comparison. ``SeedsDesign(ConfusionDesign(runs)).resample`` draws the clusters once for
every run (the wrapped design's resample) and then each system's runs; the reference is the wrapped
design's resample alone. The goal is a ratio, two-level / clusters, of at most 1.1, measured in the same
run (runs alternate); docs/benchmark.md#clusters records the figures with their date.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from bench_clusters import clustered

from evalreport.analyses.compare import COMPARE_MEASURES
from evalreport.analyses.resampling import ConfusionDesign
from evalreport.analyses.seeds import SeedsDesign
from evalreport.inputs.runs import Runs
from evalreport.measures import get

GOAL = 1.1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    runs = clustered(per_cluster=10)
    run_system = tuple(f"s{i // 5}" for i in range(len(runs.systems)))
    seeded = Runs(gold=runs.gold, pred=runs.pred, labels=runs.labels, systems=runs.systems, run_system=run_system,
                  clusters=runs.clusters, cluster_names=runs.cluster_names, cluster_col=runs.cluster_col)
    measures = [get(m) for m in COMPARE_MEASURES]
    times: dict[str, list[float]] = {"clusters": [], "two-level": []}
    for _ in range(args.repeats):
        for name in times:
            inner = ConfusionDesign(seeded)
            design = SeedsDesign(inner, run_system) if name == "two-level" else inner
            start = time.perf_counter()
            design.resample(measures, args.resamples, np.random.default_rng(1))
            times[name].append(time.perf_counter() - start)
    c, t = statistics.median(times["clusters"]), statistics.median(times["two-level"])
    print("| case | cluster bootstrap (runs as systems) | runs, then clusters | ratio | goal |")
    print("|---|---:|---:|---:|---|")
    print(f"| {args.resamples} resamples x 4 systems x 5 runs x 1e5 items x K=5, 10,000 clusters of 10, "
          f"{len(measures)} measures | {c:.2f} s | {t:.2f} s | {t / c:.2f} | "
          f"{'met' if t / c <= GOAL else 'missed'} (<= {GOAL}) |")


if __name__ == "__main__":
    main()

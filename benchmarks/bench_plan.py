"""``plan`` on a pilot of 2 systems x 10,000 items, against its goal (run by hand; never part of the
test suite, whose plan tests check the answers, not the time).

    .venv/bin/python benchmarks/bench_plan.py               # 3 runs per measure
    .venv/bin/python benchmarks/bench_plan.py --repeats 1

The goal is under 10 s wall clock on this project's machine (2 cores), for accuracy and for macro F1
(5 classes), at the default 2,000 resampled test sets per size; the median of the runs is compared
with it, and docs/benchmark.md records the figures with their date. Beside it, the time of one
comparison's paired bootstrap of the same pilot (1,000 resamples, accuracy only) as a peer measured in
the same run. Then the same pilot in 1,000 clusters of 10 items (``--cluster-col``: whole clusters are
resampled), against the comparison's paired cluster bootstrap of it.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from evalreport.analyses.plan import plan
from evalreport.inputs.runs import Runs

GOAL = 10.0


def pilot(n: int = 10_000, K: int = 5) -> Runs:
    """Two systems right on 80 % and 78 % of n items of K classes."""
    rng = np.random.default_rng(0)
    gold = rng.integers(0, K, n)
    right = rng.random((2, n)) < np.array([0.80, 0.78])[:, None]
    pred = np.where(right, gold, (gold + 1 + rng.integers(0, K - 1, (2, n))) % K)
    return Runs(gold=gold, pred=pred, labels=tuple(f"c{k}" for k in range(K)), systems=("a", "b"))


def clustered(runs: Runs, size: int = 10) -> Runs:
    """The pilot's items in clusters of ``size`` consecutive items."""
    codes = np.arange(runs.n_items) // size
    return Runs(gold=runs.gold, pred=runs.pred, labels=runs.labels, systems=runs.systems, clusters=codes,
                cluster_names=tuple(f"doc{k}" for k in range(int(codes.max()) + 1)), cluster_col="doc")


def _timed(runs: Runs, repeats: int, label: str) -> None:
    """Median time of plan per measure against the comparison's bootstrap of the same pilot."""
    from evalreport.analyses.compare import compare

    peer = []
    for _ in range(repeats):
        t = time.perf_counter()
        compare(runs, measures=("accuracy",), primary="accuracy", bootstrap=1000, randomization=0)
        peer.append(time.perf_counter() - t)
    for measure in ("accuracy", "macro_f1"):
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            result = plan(runs, measure, 0.01)
            times.append(time.perf_counter() - t)
        med = statistics.median(times)
        print(f"plan {label}{measure}: median {med:.2f} s over {repeats} (goal {GOAL:g} s: "
              f"{'met' if med < GOAL else 'MISSED'}); compare's bootstrap {statistics.median(peer):.2f} s "
              f"(ratio {med / statistics.median(peer):.2f}); {result.n_needed:,} items needed")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    runs = pilot()
    _timed(runs, args.repeats, "")
    _timed(clustered(runs), args.repeats, "clustered ")

if __name__ == "__main__":
    main()

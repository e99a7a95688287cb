"""Benchmark of the paired bootstrap of ROC AUC (run by hand; never part of the test suite).

    /work/main/.venv/bin/python benchmarks/bench_scores.py            # 10 systems x 1e5 items x 1,000 resamples
    /work/main/.venv/bin/python benchmarks/bench_scores.py --quick    # a smaller smoke run

Seeded synthetic binary data: 10 systems whose scores share an item effect (correlated, with ties from
rounding to 3 decimals). Timed in the same run:

* evalreport: :class:`evalreport.analyses.score_design.ScoreDesign` ``resample`` of ``roc_auc``
  (sort once, then weighted counts per resample, in blocks of bounded memory);
* the peer: resample the item indices, then scikit-learn's ``roc_auc_score`` per system, timed on a
  few resamples and extrapolated to B.

Peak memory of the evalreport run is measured with tracemalloc in a separate untimed run. The goal:
at least 50x faster than the peer.
"""
from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np
from sklearn.metrics import roc_auc_score

from evalreport.analyses.score_design import ScoreDesign
from evalreport.counts.scores import score_counts
from evalreport.inputs.runs import Runs
from evalreport.measures import get


def synthetic(n: int, systems: int, seed: int = 25) -> Runs:
    """Binary gold, correlated scores in [0, 1] rounded to 3 decimals (ties)."""
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, 2, n)
    item = rng.normal(size=n)
    skill = np.linspace(0.5, 1.5, systems)[:, None]
    raw = skill * gold + 0.7 * item + rng.normal(size=(systems, n))
    scores = np.round(1 / (1 + np.exp(-raw)), 3)
    return Runs(gold=gold, pred=(scores > 0.5).astype(int), labels=("neg", "pos"),
                systems=tuple(f"sys{i}" for i in range(systems)), scores=scores)


def evalreport_seconds(runs: Runs, B: int) -> tuple[float, np.ndarray]:
    start = time.perf_counter()
    design = ScoreDesign(score_counts(runs, positive=1))
    values = design.resample([get("roc_auc")], B, np.random.default_rng(0))
    return time.perf_counter() - start, values


def peer_seconds_per_resample(runs: Runs, timed: int) -> float:
    rng = np.random.default_rng(0)
    y, scores = np.asarray(runs.gold), np.asarray(runs.scores)
    start = time.perf_counter()
    for _ in range(timed):
        idx = rng.integers(0, y.shape[0], y.shape[0])
        for s in range(scores.shape[0]):
            roc_auc_score(y[idx], scores[s, idx])
    return (time.perf_counter() - start) / timed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n, S, B, timed = (10_000, 4, 100, 3) if args.quick else (100_000, 10, 1000, 5)
    runs = synthetic(n, S)
    times = []
    for _ in range(3):
        t, values = evalreport_seconds(runs, B)
        times.append(t)
    ours = float(np.median(times))
    tracemalloc.start()
    evalreport_seconds(runs, min(B, 100))
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    peer = peer_seconds_per_resample(runs, timed) * B
    point = [roc_auc_score(runs.gold, runs.scores[s]) for s in range(S)]
    ours_point = ScoreDesign(score_counts(runs, positive=1)).point([get("roc_auc")])[:, 0]
    assert np.allclose(point, ours_point, atol=1e-12)
    print(f"| {B:,} resamples x {S} systems x {n:.0e} items, binary, ties | evalreport ScoreDesign "
          f"(roc_auc) | {ours:.2f} s | 3 | | | {peak:.0f} MB traced | sorted once, weighted counts per resample |")
    print(f"| {B:,} resamples x {S} systems x {n:.0e} items, binary, ties | resample indices + scikit-learn "
          f"roc_auc_score per system | {peer:.1f} s | 1 | | {peer / ours:.0f}x | | {timed} resamples timed, "
          f"extrapolated to {B:,} |")


if __name__ == "__main__":
    main()

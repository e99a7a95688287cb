"""Benchmark of the two-level bootstrap of several runs per system (run by hand; never part of the test suite).

    PYTHONPATH=. .venv/bin/python benchmarks/bench_seeds.py            # 20 systems x 3 runs x 1e5 items, B = 1,000
    PYTHONPATH=. .venv/bin/python benchmarks/bench_seeds.py --quick    # a smaller smoke run

Seeded synthetic runs: 20 systems x 3 runs (seeds) x 100,000 items x 5 classes, each run its own
draw of errors around its system's skill. Timed on the same data, in the same process, alternating,
median of ``--repeat``:

* the peer: the item bootstrap of the 60 runs as 60 systems (:class:`ConfusionDesign`, B resamples,
  the comparison's default measures);
* the two-level bootstrap (:class:`SeedsDesign` around the same design): the same item resamples, then
  every system's runs drawn with replacement, the means over runs.

The goal: the two-level bootstrap within 1.5x of the item bootstrap. Also timed: the ASO
table of the 20 systems (190 pairs, 1,000 resamples).
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from evalreport.analyses.aso import aso_table
from evalreport.analyses.compare import comparison_measures
from evalreport.analyses.resampling import ConfusionDesign
from evalreport.analyses.seeds import SeedsDesign
from evalreport.inputs.runs import Runs
from evalreport.measures import get


def synthetic(*, systems: int, runs: int, n: int, classes: int, seed: int = 20261128) -> Runs:
    """Runs of ``systems`` systems with ``runs`` seeds each on ``n`` items of ``classes`` classes."""
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, classes, n).astype(np.int8)
    difficulty = rng.random(n)
    pred = np.empty((systems * runs, n), dtype=np.int8)
    names, owner = [], []
    for s in range(systems):
        skill = 0.55 + 0.3 * s / max(systems - 1, 1)
        for r in range(runs):
            run_skill = skill + 0.02 * rng.normal()
            right = difficulty < run_skill + 0.1 * (rng.random(n) - 0.5)
            wrong = (gold + rng.integers(1, classes, n)) % classes
            pred[s * runs + r] = np.where(right, gold, wrong)
            names.append(f"system{s:02d}/seed{r + 1}")
            owner.append(f"system{s:02d}")
    return Runs(gold=gold, pred=pred, labels=tuple(f"c{k}" for k in range(classes)), systems=tuple(names),
                run_system=tuple(owner))


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 systems x 3 runs x 1e4 items, B = 200")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    S, R, N, B = (5, 3, 10_000, 200) if args.quick else (20, 3, 100_000, 1000)
    runs = synthetic(systems=S, runs=R, n=N, classes=5)
    measures = [get(m) for m in comparison_measures(primary="macro_f1")]
    inner = ConfusionDesign(runs)
    design = SeedsDesign(inner, runs.run_system)

    def items_only() -> None:
        inner.resample(measures, B, inner.streams(0)[0])

    def two_level() -> None:
        design.resample(measures, B, design.streams(0)[0])

    peer, ours = [], []
    for _ in range(args.repeat):
        peer.append(_timed(items_only))
        ours.append(_timed(two_level))
    p, o = statistics.median(peer), statistics.median(ours)
    design.point(measures)
    per_run = design.run_point[:, 0]
    scores = {s: per_run[idx] for s, idx in zip(design.systems, design.index)}
    aso = statistics.median(_timed(lambda: aso_table(scores, measure="macro_f1", n_bootstrap=B, rng=0))
                            for _ in range(args.repeat))
    case = f"{S} systems x {R} runs x {N:.0e} items x K=5, B = {B}, {len(measures)} measures"
    print("| case | tool | median | runs | two-level / item bootstrap |")
    print("|---|---|---:|---:|---:|")
    print(f"| {case} | item bootstrap of the {S * R} runs (peer) | {p:.2f} s | {args.repeat} | |")
    print(f"| {case} | two-level bootstrap (runs, then items) | {o:.2f} s | {args.repeat} | {o / p:.2f}x |")
    print(f"| {S} systems x {R} runs | ASO table ({S * (S - 1)} ordered pairs, {B} resamples) | {aso:.2f} s | "
          f"{args.repeat} | |")


if __name__ == "__main__":
    main()

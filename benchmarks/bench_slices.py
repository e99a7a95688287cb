"""A comparison with slices against the same comparison without them (run by hand; never part of the
test suite).

    .venv/bin/python benchmarks/bench_slices.py               # 2 runs each, alternating
    .venv/bin/python benchmarks/bench_slices.py --repeats 1

20 systems x 1e5 items x K = 5 classes, 1,000 resamples, one slice column of 10 slices (each system's
skill varies by slice). ``compare`` with the default settings on the runs with their slices (the four
slice tables: a paired bootstrap of 1,000 resamples within each slice, the primary measure's tests,
the gaps and the summary) and on the same runs without them. The goal is a ratio, with / without, of
at most 2, measured in the same run (runs alternate); docs/benchmark.md records the figures with
their date.
"""
from __future__ import annotations

import argparse
import resource
import statistics
import time

import numpy as np

from evalreport.analyses.compare import compare
from evalreport.inputs.runs import Runs
from evalreport.inputs.settings import Settings

GOAL = 2.0


def sliced(n_items: int = 100_000, n_slices: int = 10, n_systems: int = 20, K: int = 5) -> Runs:
    """Runs whose systems' skills vary by slice (seeded)."""
    rng = np.random.default_rng(0)
    gold = rng.integers(0, K, size=n_items)
    which = rng.integers(0, n_slices, size=n_items)
    skill = 1 / (1 + np.exp(-(1.0 + 0.6 * rng.standard_normal((n_systems, n_slices)))))
    right = rng.random((n_systems, n_items)) < skill[:, which]
    pred = np.where(right, gold, (gold + rng.integers(1, K, size=(n_systems, n_items))) % K)
    names = np.array([f"domain{k}" for k in range(n_slices)], dtype=object)
    return Runs(gold=gold, pred=pred, labels=tuple(f"c{k}" for k in range(K)),
                systems=tuple(f"s{i}" for i in range(n_systems)), slices={"domain": names[which]})


def timed(runs: Runs, settings: Settings) -> float:
    start = time.perf_counter()
    compare(runs, settings)
    return time.perf_counter() - start


def slices_alone(runs: Runs, settings: Settings) -> float:
    """The slice tables alone (the work slices add to a comparison), as ``compare`` makes them."""
    from evalreport.analyses.designs import choose_design
    from evalreport.analyses.slices import compare_slices, single_label_designs
    from evalreport.counts import Counts
    from evalreport.measures import bind, evaluate

    records = [bind(m, runs.labels) for m in ("macro_f1", "accuracy")]
    scores = evaluate(Counts.from_runs(runs), records).assign(calibrated=False)
    start = time.perf_counter()
    designs = single_label_designs(choose_design(runs, settings), runs, positive=None, policy="nan", costs=None,
                                   strata=None)
    compare_slices(runs, designs, records, runs.systems, scores, settings)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    runs = sliced()
    plain = Runs(gold=runs.gold, pred=runs.pred, labels=runs.labels, systems=runs.systems)
    settings = Settings(bootstrap=args.resamples, audit=False)
    without, with_slices, alone = [], [], []
    for _ in range(args.repeats):
        without.append(timed(plain, settings))
        with_slices.append(timed(runs, settings))
        alone.append(slices_alone(runs, settings))
    a, b, c = statistics.median(without), statistics.median(with_slices), statistics.median(alone)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print("| case | compare without slices | with 10 slices | slice tables alone | with / without | goal |")
    print("|---|---:|---:|---:|---:|---|")
    print(f"| {args.resamples} resamples x 20 systems x 1e5 items x K=5, 10 slices | {a:.2f} s | {b:.2f} s | "
          f"{c:.2f} s | {b / a:.2f} ((without + alone) / without: {(a + c) / a:.2f}) | "
          f"{'met' if max(b, a + c) / a <= GOAL else 'missed'} (<= {GOAL:g}) |")
    print(f"peak RSS {peak:.0f} MB; median of {args.repeats} alternating runs")


if __name__ == "__main__":
    main()

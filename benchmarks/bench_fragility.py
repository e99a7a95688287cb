"""The fragility search of the findings (how many items must change before the leader loses its
place) on the two hard shapes, against the goals a report needs (run by hand; never part of the
test suite, whose fragility tests check the answers, not the time).

    .venv/bin/python benchmarks/bench_fragility.py               # every scenario, 3 runs each
    .venv/bin/python benchmarks/bench_fragility.py --repeats 1

Scenarios:

classes1000   3 systems, 1,000 classes x 20 items (accuracy 0.86 / 0.85 / 0.80):
              ``fragility(counts, m, "a")`` for accuracy (goal under 2 s: exact, by the trace)
              and macro F1 (goal under 10 s: restricted candidates, a verified upper bound).
greedy20      20 classes x 20,000 items, the leader right on 80 % of them and the challenger on
              60 %: ``pair_fragility(m, X, Y, exhaustive=False)`` for macro F1 and kappa (goal
              under 10 s each).

Goals are wall-clock seconds on this project's machine (2 cores); the median of the runs is
compared with them, and docs/benchmark.md records the figures with their date.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from evalreport.analyses.findings import fragility, pair_fragility
from evalreport.counts import Counts

GOALS = {"classes1000 accuracy": 2.0, "classes1000 macro_f1": 10.0, "greedy20 macro_f1": 10.0,
         "greedy20 kappa": 10.0}


def classes1000() -> Counts:
    """Three systems on 1,000 classes of 20 items; errors spread over the other classes."""
    rng = np.random.default_rng(0)
    K, n = 1000, 20
    C = np.zeros((3, K, K))
    for s, acc in enumerate((0.86, 0.85, 0.80)):
        for g in range(K):
            right = rng.binomial(n, acc)
            C[s, g, g] = right
            np.add.at(C[s, g], (g + 1 + rng.integers(0, K - 1, size=n - right)) % K, 1)
    return Counts(C, [f"c{k}" for k in range(K)], ["a", "b", "c"])


def greedy20(K: int = 20, n: int = 20_000) -> tuple[np.ndarray, np.ndarray]:
    """The leader's and the challenger's confusion matrices: right on 80 % and 60 % of the items."""
    rng = np.random.default_rng(0)
    gold = rng.integers(0, K, n)

    def matrix(acc: float) -> np.ndarray:
        pred = np.where(rng.random(n) < acc, gold, rng.integers(0, K, n))
        C = np.zeros((K, K))
        np.add.at(C, (gold, pred), 1)
        return C

    return matrix(0.8), matrix(0.6)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    counts, (X, Y) = classes1000(), greedy20()
    runs = {"classes1000 accuracy": lambda: fragility(counts, "accuracy", "a"),
            "classes1000 macro_f1": lambda: fragility(counts, "macro_f1", "a"),
            "greedy20 macro_f1": lambda: pair_fragility("macro_f1", X, Y, exhaustive=False),
            "greedy20 kappa": lambda: pair_fragility("kappa", X, Y, exhaustive=False)}
    met = True
    for name, run in runs.items():
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        med = statistics.median(times)
        met &= med < GOALS[name]
        print(f"{name}: median {med:.2f} s ({', '.join(f'{t:.2f}' for t in times)}); goal < {GOALS[name]:g} s: "
              f"{'met' if med < GOALS[name] else 'NOT met'}", flush=True)
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())

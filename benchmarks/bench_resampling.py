"""Benchmark of evalreport.analyses.resampling (run by hand; never part of the test suite).

    /work/venv/bin/python benchmarks/bench_resampling.py            # 20 systems x 1e5 items x 5 classes, B = 1,000
    /work/venv/bin/python benchmarks/bench_resampling.py --quick    # a smaller smoke run

Seeded synthetic data: 20 correlated systems x 100,000 items x 5 classes (shared item
difficulty, errors drawn mostly from a confusable class that all systems share), and a second
"many patterns" regime with independent errors over 20 classes, where almost every item is its
own (gold, predictions) pattern. For each, the median of 3 timings of:

* ``bootstrap`` with 1,000 resamples over the default measure set of ``compare`` and over
  every registered measure (binary ones for a positive class, ordinal ones with costs,
  parametrised families at their defaults);
* ``pairwise`` on the primary measure (bootstrap + randomisation + McNemar, 1,000 rounds);
* the naive way, "resample the item indices, then scikit-learn per measure and system"
  (measures without a scikit-learn function: scikit-learn's confusion matrix, then our
  measure on it), timed for a few resamples and extrapolated to 1,000.

Peak memory is measured in a separate untimed run with tracemalloc (numpy reports its
buffers to it); the process's maximum resident set size is printed at the end.
"""
from __future__ import annotations

import argparse
import resource
import statistics
import time
import tracemalloc

import numpy as np
from sklearn import metrics as skm

from evalreport import measures
from evalreport.analyses import resampling as rs
from evalreport.inputs.runs import Runs

try:
    from evalreport.analyses.compare import comparison_measures
except ImportError:  # compare not there yet: its documented default set
    def comparison_measures(**_):
        return ["accuracy", "macro_recall", "macro_precision", "macro_f1", "macro_f1_hm", "weighted_f1",
                "gmean_recall", "hmean_recall", "kappa", "mcc", "mcc_macro", "sba", "gm1_macro",
                "jaccard_macro", "k", "confusion_entropy"]

# scikit-learn functions for the measures that have one (y_true, y_pred) -> float
SKLEARN = {
    "accuracy": skm.accuracy_score,
    "macro_recall": lambda t, p: skm.recall_score(t, p, average="macro", zero_division=0),
    "macro_precision": lambda t, p: skm.precision_score(t, p, average="macro", zero_division=0),
    "macro_f1": lambda t, p: skm.f1_score(t, p, average="macro", zero_division=0),
    "weighted_f1": lambda t, p: skm.f1_score(t, p, average="weighted", zero_division=0),
    "kappa": skm.cohen_kappa_score,
    "mcc": skm.matthews_corrcoef,
    "jaccard_macro": lambda t, p: skm.jaccard_score(t, p, average="macro", zero_division=0),
    "balanced_accuracy": skm.balanced_accuracy_score,
}


def synthetic(*, n: int, systems: int, classes: int, correlated: bool, seed: int = 20240611) -> Runs:
    rng = np.random.default_rng(seed)
    prevalence = np.linspace(2.0, 1.0, classes)
    gold = rng.choice(classes, size=n, p=prevalence / prevalence.sum())
    skill = np.linspace(0.9, 0.6, systems)
    if correlated:
        hard = rng.random(n)                                       # shared item difficulty
        right = 0.3 * rng.random((systems, n)) + 0.7 * hard[None, :] < skill[:, None]
        confusable = (gold + 1 + rng.integers(0, classes - 1, n)) % classes   # one shared wrong label per item
        other = (gold[None, :] + 1 + rng.integers(0, classes - 1, (systems, n))) % classes
        wrong = np.where(rng.random((systems, n)) < 0.8, confusable[None, :], other)
    else:
        right = rng.random((systems, n)) < skill[:, None]
        wrong = (gold[None, :] + 1 + rng.integers(0, classes - 1, (systems, n))) % classes
    pred = np.where(right, gold[None, :], wrong)
    return Runs(gold=gold, pred=pred, labels=tuple(f"c{k}" for k in range(classes)),
                systems=tuple(f"sys{s:02d}" for s in range(systems)))


def every_measure() -> list[str]:
    return [m.id for m in measures.catalogue()]


def median_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def peak_mb(fn) -> float:
    tracemalloc.start()
    tracemalloc.reset_peak()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2 ** 20


def naive_seconds_per_resample(runs: Runs, ids, *, positive, costs, n_resamples: int) -> float:
    """Resample item indices, then per system and measure scikit-learn (or its confusion matrix
    and our measure on that one matrix)."""
    rng = np.random.default_rng(1)
    labels = np.arange(runs.n_classes)
    t = time.perf_counter()
    for _ in range(n_resamples):
        idx = rng.integers(0, runs.n_items, runs.n_items)
        g = runs.gold[idx]
        for s in range(runs.n_systems):
            p = runs.pred[s, idx]
            C = None
            for m in ids:
                if m in SKLEARN:
                    SKLEARN[m](g, p)
                else:
                    if C is None:
                        C = skm.confusion_matrix(g, p, labels=labels)
                    measures.compute(m, C, positive=positive, costs=costs, explain=False)
    return (time.perf_counter() - t) / n_resamples


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--systems", type=int, default=20)
    ap.add_argument("--classes", type=int, default=5)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--naive-resamples", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="10,000 items, 200 resamples, 1 repeat")
    args = ap.parse_args(argv)
    if args.quick:
        args.items, args.resamples, args.repeats, args.naive_resamples = 10_000, 200, 1, 1
    B = args.resamples
    costs_for = lambda K: np.abs(np.subtract.outer(np.arange(K), np.arange(K))).astype(float)   # noqa: E731

    scenarios = [
        ("correlated", synthetic(n=args.items, systems=args.systems, classes=args.classes, correlated=True)),
        ("many patterns", synthetic(n=args.items, systems=args.systems, classes=max(20, args.classes),
                                    correlated=False)),
    ]
    rows = []
    for name, runs in scenarios:
        pat = rs.patterns(runs)
        costs = costs_for(runs.n_classes)
        sets = [("compare default", comparison_measures(), None, None),
                ("every measure", every_measure(), 1, costs)]
        print(f"\n{name}: {runs.n_systems} systems x {runs.n_items:,} items x {runs.n_classes} classes, "
              f"{pat.n_patterns:,} distinct patterns ({pat.n_patterns / runs.n_items:.0%} of the items)")
        for set_name, ids, positive, c in sets:
            run = lambda: rs.bootstrap(runs, ids, n_resamples=B, positive=positive, costs=c)   # noqa: E731
            secs = median_time(run, args.repeats)
            naive = naive_seconds_per_resample(runs, ids, positive=positive, costs=c,
                                               n_resamples=args.naive_resamples) * B
            rows.append((name, f"bootstrap, {set_name}", len(ids), secs, naive, peak_mb(run)))
        primary = "macro_f1"
        run = lambda: rs.pairwise(runs, primary, n_resamples=B)                            # noqa: E731
        rows.append((name, f"pairwise {primary} (3 tests)", 1, median_time(run, args.repeats), float("nan"),
                     peak_mb(run)))
        run = lambda: rs.pairwise(runs, primary, n_resamples=B, tests=("randomization",))  # noqa: E731
        rows.append((name, "  of which randomisation", 1, median_time(run, args.repeats), float("nan"),
                     peak_mb(run)))

    print(f"\n{B} resamples, median of {args.repeats}; naive = resample indices + scikit-learn per measure "
          f"and system, {args.naive_resamples} resample(s) extrapolated to {B}\n")
    head = f"{'data':<14} {'task':<34} {'measures':>8} {'seconds':>9} {'naive s':>10} {'speed-up':>9} {'peak MB':>8}"
    print(head)
    print("-" * len(head))
    for data, task, m, secs, naive, peak in rows:
        ratio = naive / secs if naive == naive else float("nan")
        naive_s = f"{naive:10.1f}" if naive == naive else f"{'-':>10}"
        ratio_s = f"{ratio:8.0f}x" if ratio == ratio else f"{'-':>9}"
        print(f"{data:<14} {task:<34} {m:>8} {secs:9.2f} {naive_s} {ratio_s} {peak:8.0f}")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\nmax resident set size of this process: {rss:.0f} MB")


if __name__ == "__main__":
    main()

"""Benchmark of the multi-label analyses - the paired tests, per-label calibration and set-property
audit (run by hand; never part of the test suite).

    .venv/bin/python benchmarks/bench_multilabel_analyses.py            # the report's shape
    .venv/bin/python benchmarks/bench_multilabel_analyses.py --quick    # a smaller smoke run

Data: :func:`evalreport.examples.multilabel_demo_data` (10 systems x 20 labels x 5,000 items, the
shape of ``evalreport demo --multilabel``). Median of ``--repeats`` timings of

* the approximate randomisation test (1,000 rounds, every pair, primary f1_macro) as built
  (:meth:`evalreport.analyses.multilabel.LabelSetDesign.swap_differences` through
  :func:`evalreport.analyses.engine.pairwise_tests`), against the peer "swap the sets,
  then scikit-learn ``f1_score(average='macro')`` for both systems" per round, timed on a few
  rounds and extrapolated to 1,000 rounds x every pair;
* McNemar on exact match (every pair), the per-label calibration tables, the set-property audit;
* ``compare`` with and without the new tables (``randomization=0, audit=False``).
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from sklearn.metrics import f1_score

from evalreport.analyses.audit.multilabel import audit_multilabel
from evalreport.analyses.compare import compare
from evalreport.analyses.engine import pairwise_tests
from evalreport.analyses.multilabel import LabelSetDesign
from evalreport.analyses.multilabel_calibration import calibration_tables
from evalreport.counts.multilabel import count_multilabel
from evalreport.examples import multilabel_demo_data
from evalreport.inputs.multilabel import MultiLabelRuns
from evalreport.measures import get
from evalreport.measures.multilabel import compute_multilabel


def _median(f, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _peer_rounds(runs, pairs, rounds, seed=0):
    """scikit-learn per round: swap the two systems' sets on random items, score both."""
    rng = np.random.default_rng(seed)
    gold = runs.gold
    for i, j in pairs:
        a, b = runs.pred[i], runs.pred[j]
        for _ in range(rounds):
            z = rng.random(gold.shape[0]) < 0.5
            sa, sb = np.where(z[:, None], b, a), np.where(z[:, None], a, b)
            f1_score(gold, sa, average="macro", zero_division=0) - f1_score(gold, sb, average="macro", zero_division=0)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    shape = dict(n_systems=4, n_labels=10, n_items=1000) if args.quick else dict(n_systems=10, n_labels=20,
                                                                                  n_items=5000)
    d = multilabel_demo_data(**shape)
    runs = MultiLabelRuns(gold=d.gold, pred=np.stack(list(d.runs.values())), labels=d.labels, systems=tuple(d.runs),
                          ids=d.ids)
    S = runs.n_systems
    pairs = list(zip(*np.triu_indices(S, 1)))
    counts = count_multilabel(runs)
    point = compute_multilabel("f1_macro", counts, policy="zero").value
    R = 1000
    design = LabelSetDesign(runs, policy="zero")
    ours = _median(lambda: pairwise_tests(design, get("f1_macro"), point, tests=("randomization",), rounds=R,
                                          rng=np.random.default_rng(0)), args.repeats)
    mcnemar = _median(lambda: pairwise_tests(design, get("f1_macro"), point, tests=("mcnemar",)), args.repeats)
    peer_r, peer_pairs = 10, pairs[:3]
    peer = _median(lambda: _peer_rounds(runs, peer_pairs, peer_r), args.repeats) * (R / peer_r) * (
        len(pairs) / len(peer_pairs))
    chosen = [get(m) for m in ("f1_macro", "f1_micro", "f1_weighted", "precision_macro", "recall_macro",
                               "jaccard_macro", "mcc_macro")]
    calib = _median(lambda: calibration_tables(counts, chosen), args.repeats)
    audit = _median(lambda: audit_multilabel(), args.repeats)
    without = _median(lambda: compare(runs, bootstrap=1000, randomization=0, audit=False), args.repeats)
    full = _median(lambda: compare(runs, bootstrap=1000, randomization=1000), args.repeats)
    rows = [
        (f"randomisation, {R} rounds x {len(pairs)} pairs (f1_macro)", ours, peer,
         "scikit-learn f1_score per round (extrapolated)"),
        (f"McNemar on exact match, {len(pairs)} pairs", mcnemar, None, ""),
        ("calibration tables (7 label-based averages)", calib, None, ""),
        ("set-property audit (6 measures x 8 properties)", audit, None, ""),
        ("compare (label sets), bootstrap 1000, new tables off", without, None, ""),
        ("compare (label sets), bootstrap 1000, every table", full, None, ""),
    ]
    print(f"data: {S} systems x {runs.n_labels} labels x {runs.n_items} items; median of {args.repeats}")
    print("| step | evalreport (s) | peer (s) | peer / evalreport |")
    print("|---|---:|---:|---:|")
    for name, t, p, what in rows:
        ratio = f"{p / t:.0f}x ({what})" if p else ""
        print(f"| {name} | {t:.2f} | {'' if p is None else f'{p:.1f}'} | {ratio} |")


if __name__ == "__main__":
    main()

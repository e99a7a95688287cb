"""The gold-label analyses against the goals a report needs (run by hand; never part of the test
suite, whose tests check the answers, not the time).

    .venv/bin/python benchmarks/bench_gold.py               # every scenario, 3 runs each
    .venv/bin/python benchmarks/bench_gold.py --repeats 1

Scenarios (8 systems, 20,000 items, 5 classes):

label_noise    200 draws at one noise rate under macro F1: the vectorised recount (draws as the
               folds of one ``confusion_from_codes`` pass, the registry on the stacked tensors)
               against a peer measured in the same run: one scikit-learn ``f1_score`` per draw and
               system. Goal: at least 10 x faster than the peer.
gold_fragility every challenger under macro F1 (greedy search) and accuracy (closed form).
               Goal: under 10 s.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from evalreport.analyses.gold_fragility import gold_fragility
from evalreport.analyses.label_noise import label_noise, noisy_gold, uniform_noise
from evalreport.inputs.runs import Runs


def runs(n: int = 20_000, K: int = 5, S: int = 8) -> Runs:
    """S systems whose accuracy falls from 0.9 to 0.6 on n items of K classes."""
    rng = np.random.default_rng(0)
    g = rng.integers(0, K, n)
    pred = np.stack([np.where(rng.random(n) < p, g, rng.integers(0, K, n)) for p in np.linspace(0.9, 0.6, S)])
    return Runs(gold=g, pred=pred, labels=tuple(f"c{i}" for i in range(K)), systems=tuple(f"s{i}" for i in range(S)))


def peer(r: Runs, draws: int) -> None:
    """Per draw and system: scikit-learn's macro F1 on the flipped gold labels."""
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(0)
    gold = noisy_gold(r.gold, uniform_noise(0.05, len(r.labels)), draws, rng)
    for d in range(draws):
        for s in range(len(r.systems)):
            f1_score(gold[d], r.pred[s], average="macro", labels=np.arange(len(r.labels)), zero_division=0)


def timed(fn, repeats: int) -> float:
    """Median wall-clock seconds of ``repeats`` runs."""
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return statistics.median(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    r = runs()
    ours = timed(lambda: label_noise(r, "macro_f1", rates=[0.05], draws=200), args.repeats)
    theirs = timed(lambda: peer(r, 200), 1)
    print(f"label_noise 200 draws: evalreport {ours:.2f} s, scikit-learn per draw {theirs:.2f} s, "
          f"ratio {theirs / ours:.1f} x (goal >= 10 x)")
    frag = timed(lambda: gold_fragility(r, ["macro_f1", "accuracy"], leaders={"macro_f1": "s0", "accuracy": "s0"}),
                 args.repeats)
    print(f"gold_fragility (7 challengers, macro F1 + accuracy): {frag:.2f} s (goal < 10 s)")


if __name__ == "__main__":
    main()

"""Score-based measures out of core: the DuckDB histogram (evalreport.counts.bigdata_scores) against reading
the same long Parquet table into memory with pandas and calling scikit-learn per system, in one run.

    .venv/bin/python benchmarks/bench_score_histogram.py [--systems 4] [--items 1000000]

Prints the time and peak memory growth of each path and the largest |histogram - exact| / bound.
"""
from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq


def make(folder: Path, systems: int, items: int, seed: int = 0) -> tuple[Path, Path]:
    """Gold and one long run table with continuous scores (every score distinct: binned)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, items)
    ids = np.arange(items, dtype=np.int64)
    labels = np.where(y == 1, "yes", "no")
    pq.write_table(pa.table({"id": ids, "label": labels}), folder / "gold.parquet")
    parts = []
    for s in range(systems):
        score = np.clip(0.3 * y + 0.7 * rng.random(items), 0, 1)
        parts.append(pa.table({"system": np.full(items, f"sys{s}"), "id": ids,
                               "label": np.where(score >= 0.5, "yes", "no"), "score": score}))
    pq.write_table(pa.concat_tables(parts), folder / "runs.parquet")
    return folder / "gold.parquet", folder / "runs.parquet"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--systems", type=int, default=4)
    parser.add_argument("--items", type=int, default=1_000_000)
    args = parser.parse_args()
    from evalreport.counts.bigdata_scores import histogram_scores
    from evalreport.measures.score_histogram import histogram_columns

    with tempfile.TemporaryDirectory() as tmp:
        gold, runs = make(Path(tmp), args.systems, args.items)
        start = time.perf_counter()
        cols = histogram_columns(histogram_scores(gold, runs, positive="yes"))
        t_hist = time.perf_counter() - start
        rss_hist = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

        import pandas as pd
        from sklearn.metrics import average_precision_score, brier_score_loss, log_loss, roc_auc_score

        start = time.perf_counter()
        table = pd.read_parquet(runs)
        y = pd.read_parquet(gold).set_index("id")["label"]
        exact = {}
        for system, part in table.groupby("system"):
            truth = (y.loc[part["id"]].to_numpy() == "yes")
            p = part["score"].to_numpy()
            exact[system] = {"roc_auc": roc_auc_score(truth, p), "average_precision": average_precision_score(truth, p),
                             "brier": brier_score_loss(truth, p), "log_loss": log_loss(truth, p)}
        t_mem = time.perf_counter() - start
        rss_mem = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    worst = max(abs(v - exact[s][m]) / b if b > 0 else 0.0
                for s, m, v, b in zip(cols["system"], cols["measure"], cols["value"], cols["bound"]) if m in exact[s])
    bounds = {m: float(np.max(cols["bound"][cols["measure"] == m])) for m in dict.fromkeys(cols["measure"])}
    print(f"{args.systems} systems x {args.items:.0e} items: histogram {t_hist:.2f} s (peak RSS {rss_hist:.0f} MB); "
          f"pandas + scikit-learn {t_mem:.2f} s (peak RSS {rss_mem:.0f} MB); ratio {t_mem / t_hist:.1f}x")
    print(f"largest |histogram - exact| / bound: {worst:.3f}; largest bounds: "
          + ", ".join(f"{m} {b:.2e}" for m, b in bounds.items()))


if __name__ == "__main__":
    main()

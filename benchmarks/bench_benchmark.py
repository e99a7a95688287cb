"""Time ``compare_benchmark`` on a shared-task shape and say where the time goes (run by hand).

    .venv/bin/python benchmarks/bench_benchmark.py                      # 20 systems x 6 tasks x 1e4 items, B = 1,000
    .venv/bin/python benchmarks/bench_benchmark.py --systems 13 --tasks 2 --items 5000 --bootstrap 500

The data is :func:`evalreport.examples.shared_benchmark_data` (synthetic, 3 classes per task),
written as a tasks folder and read back, so the read is timed too. ``compare_benchmark``'s own
``timings`` split the total into the per-task comparisons, the cross-task statistics and the
consensus bootstrap; the consensus bootstrap is split further here into its per-task
resampling and the ranking of every replicate by every consensus method.
"""
from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--systems", type=int, default=20)
    ap.add_argument("--tasks", type=int, default=6)
    ap.add_argument("--items", type=int, default=10_000)
    ap.add_argument("--bootstrap", type=int, default=1000)
    args = ap.parse_args()

    from evalreport.analyses.benchmark import compare_benchmark
    from evalreport.analyses.consensus import consensus_ranks
    from evalreport.examples import shared_benchmark_data, write_benchmark
    from evalreport.inputs.benchmark import read_benchmark

    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        write_benchmark(shared_benchmark_data(n_systems=args.systems, n_tasks=args.tasks, n_items=args.items), tmp)
        made = time.perf_counter()
        bench = read_benchmark(tmp)
        read = time.perf_counter()
        result = compare_benchmark(bench, bootstrap=args.bootstrap, seed=0)
        done = time.perf_counter()
    print(f"{args.systems} systems x {args.tasks} tasks x {args.items:,} items, {args.bootstrap:,} resamples")
    print(f"make + write data  {made - start:7.2f} s")
    print(f"read_benchmark     {read - made:7.2f} s")
    print(f"compare_benchmark  {done - read:7.2f} s")
    for name, seconds in result.timings.items():
        print(f"  {name:<22}{seconds:7.2f} s")
    values = np.random.default_rng(0).random((args.bootstrap, args.tasks, args.systems))
    start = time.perf_counter()
    consensus_ranks(values, higher_is_better=np.ones(args.tasks, dtype=bool))
    print(f"  of the bootstrap: consensus_ranks alone {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()

"""Shared-task scale with the default settings: the time a report and a comparison take, against
the goals an organiser needs (20-100 systems, no tuning).

    .venv/bin/python benchmarks/bench_scale.py                 # both scenarios, 3 runs each
    .venv/bin/python benchmarks/bench_scale.py --scenario compare100 --repeats 1

Scenarios (inputs from :func:`evalreport.examples.shared_task_data`, long participant names):

report25    25 systems x 2,000 items x 5 classes: ``evalreport report GOLD --runs-dir RUNS``
            (HTML, PDF and every table; 1,000 bootstrap resamples). Goal: under 15 s.
compare100  100 systems x 10,000 items x 5 classes: ``evalreport compare GOLD --runs-dir RUNS``
            (every measure, intervals, all 4,950 pairwise tests, letters). Goal: under 60 s.

Each command is a whole process (imports included: what a user waits); the median of the runs is
compared with the goal, with the number of letters the default settings give (a sanity check that
the tiers separate). Goals are wall-clock seconds on this project's machine (2 cores), so the
figures printed say which machine they came from; docs/benchmark.md records them with the date.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOALS = {"report25": 15.0, "compare100": 60.0}
SHAPES = {"report25": (25, 2_000), "compare100": (100, 10_000)}


def _command(scenario: str, data: Path, out: Path) -> list[str]:
    from evalreport.examples import shared_task_data

    n_systems, n_items = SHAPES[scenario]
    paths = shared_task_data(n_systems=n_systems, n_classes=5, n_items=n_items, long_names=True,
                             seed=22).write(data)
    cli = [sys.executable, "-m", "evalreport"]
    if scenario == "report25":
        return [*cli, "report", str(paths["gold"]), "--runs-dir", str(paths["runs_dir"]), "-o", str(out), "--quiet"]
    return [*cli, "compare", str(paths["gold"]), "--runs-dir", str(paths["runs_dir"]), "--out", str(out), "--no-progress"]


def _letters(out: Path) -> int | None:
    import pandas as pd

    for path in (out / "tables" / "groups.csv", out / "groups.csv"):
        if path.is_file():
            return len(set("".join(pd.read_csv(path)["letters"].dropna().astype(str))))
    return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenario", action="append", choices=sorted(GOALS))
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    rows = []
    for scenario in args.scenario or list(GOALS):
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            times, letters = [], None
            for k in range(args.repeats):
                out = tmp / f"out{k}"
                cmd = _command(scenario, tmp / "data", out)
                t0 = time.perf_counter()
                subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
                times.append(time.perf_counter() - t0)
                letters = _letters(out)
            med = statistics.median(times)
            rows.append((scenario, med, GOALS[scenario], letters))
            print(f"{scenario}: median {med:.1f} s over {len(times)} runs "
                  f"({', '.join(f'{t:.1f}' for t in times)}); goal < {GOALS[scenario]:g} s: "
                  f"{'met' if med < GOALS[scenario] else 'NOT met'}; letters: {letters}", flush=True)
    print(f"machine: {os.cpu_count()} cores, {sys.platform}, python {sys.version.split()[0]}")
    return 0 if all(med < goal for _, med, goal, _ in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())

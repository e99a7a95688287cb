"""A report in seconds: whole-process wall time of ``evalreport`` building a report,
before and after, measured side by side in one run.

    .venv/bin/python benchmarks/bench_report.py --base /tmp/base --out /tmp/bench_report
    .venv/bin/python benchmarks/bench_report.py --scenario demo --repeats 5

Scenarios:

demo      ``evalreport demo`` (8 scikit-learn classifiers x 6 classes x 620 items, 5 folds; the data
          are made, i.e. the classifiers trained, in every run)
sys20     20 systems x 100,000 items x 5 classes (:func:`evalreport.examples.shared_task_data`),
          ``evalreport report GOLD --runs-dir RUNS`` with the default 1,000 bootstrap resamples
imagenet  the 11 ImageNet confusion matrices of Goesgens et al. (1,000 classes; read from
          /work/shared/data/gosgens2021/imagenet, skipped when absent),
          ``evalreport report --confusion DIR --primary accuracy``

Each command runs in a subprocess (imports included: what a user waits), the checkout under test
and the ``--base`` checkout (another copy of evalreport, e.g. the commit before) alternating, so
both see the same machine load; ``--repeats`` runs of each, the median reported. The stage split
is the median of each stage in the report's ``tables/timings.json`` (stages overlap: the kernel
starts while the analyses run, chart images are drawn beside the kernel, so they need not add up
to the wall time). The table is printed as markdown and written to ``OUT/bench_report.md``.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMAGENET = ROOT.parent / "shared" / "data" / "gosgens2021" / "imagenet"
SCENARIOS = ("demo", "sys20", "imagenet")


def _inputs(scenario: str, where: Path) -> list[str] | None:
    """The CLI arguments of ``scenario`` (its inputs written under ``where``), or None to skip it."""
    if scenario == "demo":
        return ["demo"]
    if scenario == "sys20":
        from evalreport.examples import shared_task_data

        paths = shared_task_data(n_systems=20, n_classes=5, n_items=100_000, seed=15).write(where)
        return ["report", str(paths["gold"]), "--runs-dir", str(paths["runs_dir"])]
    if scenario == "imagenet":
        if not IMAGENET.is_dir():
            return None
        return ["report", "--confusion", str(IMAGENET), "--primary", "accuracy"]
    raise SystemExit(f"unknown scenario {scenario!r}; choose from {SCENARIOS}")


def _run(code: Path, args: list[str], out: Path, env: dict[str, str] | None = None) -> tuple[float, float, dict]:
    """Wall time and CPU time (user + system, the process and every process it waited for: the
    kernel, pandoc) of ``python -m evalreport ARGS -o OUT`` with ``code`` first on the path, and
    the report's stage times."""
    shutil.rmtree(out, ignore_errors=True)
    env = {**os.environ, **(env or {}), "PYTHONPATH": str(code)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "evalreport", *args, "-o", str(out), "--engine", "builtin"],
                          capture_output=True, text=True, env=env, cwd=str(out.parent))
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args[:1])} with {code} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    timings = out / "tables" / "timings.json"
    return seconds, cpu, json.loads(timings.read_text(encoding="utf-8")) if timings.is_file() else {}


def _stage_key(name: str) -> str:
    """Stage names carry counts ("executing notebook 2/4: audit.ipynb"); group them coarsely."""
    if name.startswith("executing notebook"):
        return "notebooks (executing)"
    if name.startswith("rendering"):
        return "rendering"
    if name.startswith(("comparing", "auditing", "aggregating", "summarising")):
        return "analyses"
    return name


def _split(runs: list[dict]) -> dict[str, float]:
    grouped: list[dict[str, float]] = []
    for timings in runs:
        one: dict[str, float] = {}
        for name, seconds in timings.items():
            one[_stage_key(name)] = one.get(_stage_key(name), 0.0) + float(seconds)
        grouped.append(one)
    keys = list(dict.fromkeys(k for g in grouped for k in g))
    return {k: statistics.median(g.get(k, 0.0) for g in grouped) for k in keys}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", type=Path, default=Path("/tmp/base"), help="the checkout to compare against")
    ap.add_argument("--out", type=Path, default=Path("/tmp/bench_report"))
    ap.add_argument("--scenario", default=",".join(SCENARIOS), help=f"comma-separated, from {SCENARIOS}")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    codes = {"after": ROOT}
    if (args.base / "evalreport").is_dir():
        codes = {"before": args.base.resolve(), **codes}
    pair = len(codes) == 2
    lines = [f"Machine: {os.cpu_count()} cores, shared with other work (load average at start "
             f"{os.getloadavg()[0]:.1f}); medians of {args.repeats} whole-process runs, before and after "
             "alternating. Wall = what the user waits; CPU = user + system time of the process and its "
             "children (kernel, pandoc), less sensitive to other work on the machine.", "",
             "| scenario | " + " | ".join(f"{k} wall (s)" for k in codes) + (" | wall after/before" if pair else "")
             + " | " + " | ".join(f"{k} CPU (s)" for k in codes) + (" | CPU after/before" if pair else "")
             + " |",
             "|---|" + "---|" * (2 * len(codes) + (2 if pair else 0))]
    splits = ["", "Stage split (s, medians; stages overlap; the notebooks' and rendering stages are the "
                  "report engine's part):", "", "| scenario | code | stages |", "|---|---|---|"]
    for scenario in args.scenario.split(","):
        where = args.out / scenario
        where.mkdir(parents=True, exist_ok=True)
        inputs = _inputs(scenario, where / "input")
        if inputs is None:
            print(f"{scenario}: skipped (no data)", file=sys.stderr)
            continue
        walls: dict[str, list[float]] = {k: [] for k in codes}
        cpus: dict[str, list[float]] = {k: [] for k in codes}
        stages: dict[str, list[dict]] = {k: [] for k in codes}
        for i in range(args.repeats):
            for name, code in codes.items():
                seconds, cpu, timings = _run(code, inputs, where / f"report-{name}")
                walls[name].append(seconds)
                cpus[name].append(cpu)
                stages[name].append(timings)
                print(f"{scenario} {name} #{i + 1}: {seconds:.1f} s wall, {cpu:.1f} s CPU", file=sys.stderr)
        wall = {k: statistics.median(v) for k, v in walls.items()}
        cpu = {k: statistics.median(v) for k, v in cpus.items()}
        cells = [*(f"{wall[k]:.1f}" for k in codes), *([f"{wall['after'] / wall['before']:.2f}"] if pair else []),
                 *(f"{cpu[k]:.1f}" for k in codes), *([f"{cpu['after'] / cpu['before']:.2f}"] if pair else [])]
        lines.append(f"| {scenario} | " + " | ".join(cells) + " |")
        splits += [f"| {scenario} | {k} | " + ", ".join(f"{n} {v:.1f}" for n, v in _split(stages[k]).items()) + " |"
                   for k in codes]
    text = "\n".join(lines + splits) + "\n"
    (args.out / "bench_report.md").write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

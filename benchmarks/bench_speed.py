"""The three speed ratios (files against DuckDB, the catalogue against scikit-learn, chart images) in one
run (run by hand on an idle machine; never part of the tests).

    .venv/bin/python benchmarks/bench_speed.py                     # full sizes, medians of 5 alternating runs
    .venv/bin/python benchmarks/bench_speed.py --quick             # small sizes, a smoke run
    .venv/bin/python benchmarks/bench_speed.py --pin 0             # every process on core 0 (a busy machine)

1. ``evalreport score`` on 10 systems x 1e6 items (Parquet, every file's ids shuffled) against one DuckDB
   query that joins the files and counts by (system, gold, predicted); goal: evalreport / DuckDB <= 1.0.
2. ``evalreport score`` (the whole catalogue) on 20 systems x 1e6 items in gold order against
   scikit-learn's 10 metric calls per system on the same labels already in memory (goal: >= 30x); then the
   same with per-class scores in the files (``score_<class>``: the score-based measures join the
   catalogue) against those 10 calls plus ``roc_auc_score``, ``average_precision_score``,
   ``brier_score_loss`` and ``log_loss`` (goal: >= 30x).
3. ``evalreport demo``: the report's time split (``tables/timings.json``), with the default formats and
   with ``--formats html``; goal: the chart images off the critical path.

Processes alternate (ours, peer, ours, ...), so both sides see the same machine; the medians of wall time
and of CPU time (user + system, from ``os.wait4``) are printed. Threads: DuckDB uses as many as it
reports in ``current_setting('threads')`` (printed); ``evalreport score`` uses its main thread and two
reading threads (:data:`evalreport.inputs.readers._READERS`), which also align each run's ids; the
scikit-learn peer is one thread. ``--pin CPUS`` runs every process under ``taskset -c CPUS`` (both sides
alike) for a machine that other work keeps busy: CPU times then compare the work, not the sharing.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_files import DUCKDB_SCRIPT, make_files, script  # noqa: E402

EVALREPORT = Path(sys.executable).with_name("evalreport")
K = 5

DUCKDB_THREADS = "import duckdb; print(duckdb.connect().execute(\"SELECT current_setting('threads')\").fetchone()[0])"

#: The peer of goal 2: labels (and scores) read from the same files untimed, then the calls timed.
SKLEARN_SCRIPT = r"""
import sys, time
sys.path.insert(0, {here!r})
import numpy as np, pyarrow.compute as pc, pyarrow.parquet as pq
from sklearn import metrics as skm
from bench import sklearn_calls
gold_path, runs, with_scores = sys.argv[1], sys.argv[2:], {with_scores!r}
calls = list(sklearn_calls({K}).values())[:10]
def codes(path):
    col = pc.cast(pq.read_table(path, columns=["label"]).column("label"), "string")
    return np.asarray(pc.index_in(col, value_set=classes)).astype(np.int64)
classes = pc.unique(pc.cast(pq.read_table(gold_path, columns=["label"]).column("label"), "string")).sort()
gold = codes(gold_path)
cols = [f"score_{{c}}" for c in classes.to_pylist()]
loaded = [(codes(p), pq.read_table(p, columns=cols).to_pandas().to_numpy() if with_scores else None) for p in runs]
onehot = np.eye(len(classes))[gold]
t = time.process_time()
for pred, proba in loaded:
    for fn in calls:
        fn(gold, pred)
    if with_scores:
        skm.roc_auc_score(gold, proba, multi_class="ovr")
        skm.average_precision_score(onehot, proba)
        skm.brier_score_loss(gold, proba)
        skm.log_loss(gold, proba)
print(time.process_time() - t)
"""


def score_files(data_dir: Path, S: int, N: int) -> tuple[Path, list[Path]]:
    """Gold + S run files in gold order with per-class scores ``score_<class>`` (probabilities summing
    to 1), written once (seeded) beside the label files of :func:`bench_files.make_files`."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    gold_path, label_runs = make_files(data_dir, S, N, "parquet", "ordered")
    folder = data_dir / f"F_{S}x{N}x{K}_parquet_scores"
    runs = [folder / "runs" / p.name for p in label_runs]
    if (folder / ".complete").exists():
        return gold_path, runs
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(30)
    names = [f"class_{k}" for k in range(K)]
    for src, dst in zip(label_runs, runs):
        table = pq.read_table(src)
        pred = np.asarray(table.column("label").combine_chunks().dictionary_encode().indices)
        uniques = table.column("label").combine_chunks().dictionary_encode().dictionary.to_pylist()
        pred = np.array([names.index(u) for u in uniques])[pred]
        raw = rng.random((N, K)) + 1.5 * (np.arange(K)[None, :] == pred[:, None])
        proba = np.round(raw / raw.sum(1, keepdims=True), 6)
        top = proba.argmax(1)                  # the rounding's remainder to each row's largest score: sums are 1
        proba[np.arange(N), top] = 0.0
        proba[np.arange(N), top] = 1.0 - proba.sum(1)
        for k, name in enumerate(names):
            table = table.append_column(f"score_{name}", pa.array(proba[:, k]))
        pq.write_table(table, dst)
    (folder / ".complete").touch()
    return gold_path, runs


def run(cmd: list[str], pin: str | None) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds (user + system of the child) and stdout of one process."""
    if pin:
        cmd = ["taskset", "-c", pin, *cmd]
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tempfile.gettempdir())
    out, err = proc.communicate()
    secs = time.perf_counter() - t
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd[:4])} ... exited with {proc.returncode}:\n{err.decode()[-2000:]}")
    return secs, _children_cpu(), out.decode()


_LAST = [0.0]


def _children_cpu() -> float:
    """CPU seconds of the children waited for since the last call."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = usage.ru_utime + usage.ru_stime
    spent, _LAST[0] = total - _LAST[0], total
    return spent


def alternate(sides: dict[str, list[str]], repeats: int, pin: str | None) -> dict[str, dict]:
    """Median wall and CPU seconds of each side, the sides run in turn ``repeats`` times."""
    _children_cpu()
    got: dict[str, list] = {k: [] for k in sides}
    for _ in range(repeats):
        for name, cmd in sides.items():
            got[name].append(run(cmd, pin))
    return {k: {"wall": statistics.median(r[0] for r in v), "cpu": statistics.median(r[1] for r in v),
                "stdout": v[-1][2]} for k, v in got.items()}


def goal_files(data: Path, S: int, N: int, repeats: int, pin: str | None) -> list[str]:
    gold, runs = make_files(data, S, N, "parquet", "shuffled")
    files = [str(gold), *map(str, runs)]
    res = alternate({"evalreport": [str(EVALREPORT), "score", *files, "--format", "csv"],
                     "duckdb": script(DUCKDB_SCRIPT, fmt="parquet") + files}, repeats, pin)
    threads = run([sys.executable, "-c", DUCKDB_THREADS], pin)[2].strip()
    ours, duck = res["evalreport"], res["duckdb"]
    return [f"| 1. score, {S} x {N:.0e}, Parquet, ids shuffled | evalreport {ours['wall']:.2f} s wall, "
            f"{ours['cpu']:.2f} s CPU (3 threads) | DuckDB {duck['wall']:.2f} s wall, {duck['cpu']:.2f} s CPU "
            f"({threads} threads) | evalreport / DuckDB = {ours['wall'] / duck['wall']:.2f} wall, "
            f"{ours['cpu'] / duck['cpu']:.2f} CPU | <= 1.0 |"]


def goal_catalogue(data: Path, S: int, N: int, repeats: int, pin: str | None) -> list[str]:
    rows = []
    for with_scores in (False, True):
        gold, runs = score_files(data, S, N) if with_scores else make_files(data, S, N, "parquet", "ordered")
        files = [str(gold), *map(str, runs)]
        ours = alternate({"evalreport": [str(EVALREPORT), "score", *files, "--format", "csv"]}, repeats, pin)
        peer = script(SKLEARN_SCRIPT, here=str(HERE), K=K, with_scores=with_scores) + files
        sk = statistics.median(float(run(peer, pin)[2]) for _ in range(max(1, repeats // 2)))
        what = "labels and per-class scores" if with_scores else "labels"
        n_measures = len({line.split(",")[1] for line in ours["evalreport"]["stdout"].splitlines()[1:]})
        calls = "10 + 4 score calls" if with_scores else "10 calls"
        rows.append(f"| 2. files to the catalogue ({n_measures} measures), {S} x {N:.0e}, {what} | evalreport "
                    f"{ours['evalreport']['wall']:.2f} s wall, {ours['evalreport']['cpu']:.2f} s CPU | scikit-learn, "
                    f"{calls} per system on arrays in memory: {sk:.2f} s CPU | scikit-learn / evalreport = "
                    f"{sk / ours['evalreport']['wall']:.1f}x | >= 30x |")
    return rows


def goal_report(repeats: int, pin: str | None) -> list[str]:
    rows = []
    for formats in ("html,pdf", "html"):
        out = Path(tempfile.mkdtemp(prefix="bench-speed-demo-"))
        splits = []
        walls = []
        for _ in range(repeats):
            shutil.rmtree(out / "r", ignore_errors=True)
            wall, cpu, _ = run([str(EVALREPORT), "demo", "-o", str(out / "r"), "--quiet", "--engine", "builtin",
                                "--formats", formats], pin)
            walls.append((wall, cpu))
            splits.append(json.loads((out / "r" / "tables" / "timings.json").read_text(encoding="utf-8")))
        shutil.rmtree(out, ignore_errors=True)
        keys = list(dict.fromkeys(k for s in splits for k in s))
        split = ", ".join(f"{k} {statistics.median(s.get(k, 0.0) for s in splits):.2f}" for k in keys)
        rows.append(f"| 3. demo, --formats {formats} | {statistics.median(w for w, _ in walls):.1f} s wall, "
                    f"{statistics.median(c for _, c in walls):.1f} s CPU | timings.json: {split} | | images off "
                    "the critical path |")
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=Path("/tmp/bench-data"), type=Path)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--pin", help="taskset CPU list for every process (both sides), e.g. 0")
    ap.add_argument("--goals", default="1,2,3", help="which goals to measure, e.g. 1,2")
    args = ap.parse_args(argv)
    import compileall

    compileall.compile_dir(str(HERE.parent / "evalreport"), quiet=1)    # as an installed package is
    n1, n2 = (100_000, 100_000) if args.quick else (1_000_000, 1_000_000)
    load = os.getloadavg()[0]
    lines = [f"{time.strftime('%Y-%m-%d')}, {platform.node()}, {os.cpu_count()} cores, Python "
             f"{platform.python_version()}, load average at start {load:.1f}"
             f"{f', every process pinned to CPU {args.pin}' if args.pin else ''}; medians of {args.repeats}", "",
             "| goal | evalreport | peer | ratio | goal |", "|---|---|---|---|---|"]
    goals = args.goals.split(",")
    if "1" in goals:
        lines += goal_files(args.data_dir, 10, n1, args.repeats, args.pin)
        print(lines[-1], flush=True)
    if "2" in goals:
        lines += goal_catalogue(args.data_dir, 20, n2, args.repeats, args.pin)
        print(*lines[-2:], sep="\n", flush=True)
    if "3" in goals:
        lines += goal_report(max(1, args.repeats // 2), args.pin)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

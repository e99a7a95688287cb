"""Scenario I: files -> scores, evalreport against a database join (run by hand; never part of the tests).

    .venv/bin/python benchmarks/bench_files.py                       # full sizes, medians of 5
    .venv/bin/python benchmarks/bench_files.py --quick               # 4 systems x 1e5 items, a smoke run
    .venv/bin/python benchmarks/bench_files.py --repeats 3 --out /tmp/f.md --base /tmp/base

Data (generated once under ``--data-dir``, seeded): 20 systems x 1e6 items x 5 classes, string ids
(``doc<k>``) and string labels (``class_<k>``), written by pyarrow as Parquet and as TSV (pyarrow's
CSV writer quotes the header and every string, as R does), in two orders: every file's ids in a
different random order ("shuffled"), and every file in the gold order ("ordered").

Timed as whole processes (wall time; peak RSS of the child from ``os.wait4``), medians of
``--repeats``, all in one run so the ratios share the machine's state:

* ``evalreport score GOLD RUN... --format csv`` (with ``--base DIR``: the same run by ``python -S -m
  evalreport`` with ``PYTHONPATH=DIR`` + site-packages, the code before the change; ``-S`` keeps the
  editable install of this checkout from shadowing DIR);
* one DuckDB SQL query: every run joined to the gold file on ``id`` and counted by
  (system, gold label, predicted label) - the confusion tensors, which is what ``score`` needs;
* polars: read, join on ``id`` and count (group by), per run;
* scikit-learn, in memory (ordered files only): the first 10 calls of ``bench.sklearn_calls`` on int8
  label codes already in memory, once per system (the labels are not read from the files).

The stage split runs ``read_runs`` in-process as ``score`` does (no hashes) with
:mod:`evalreport.inputs.readers`'s ``timings`` hook (read = waiting for the reading threads, align,
encode), then counting, the measures and writing the CSV. The floor: a process that imports numpy and
pyarrow and reads every file with pyarrow in two threads, nothing else (Parquet: the label columns; TSV:
every field, which must be parsed to reach the labels). ``imports``: ``evalreport score --help``. The memory case: one system x
1e7 items (shuffled Parquet and TSV), peak RSS of ``evalreport score``.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
EVALREPORT = Path(sys.executable).with_name("evalreport")
ROOT = Path(__file__).resolve().parent.parent
K_CLASSES = 5


# ----------------------------------------------------------------------------- data


def make_files(data_dir: Path, S: int, N: int, fmt: str, order: str, K: int = K_CLASSES) -> tuple[Path, list[Path]]:
    """Gold + S run files (written once, seeded, reused): ``order`` is ``shuffled`` (each file its own
    permutation of the ids) or ``ordered`` (every file in the gold order)."""
    import pyarrow as pa
    import pyarrow.csv as pa_csv
    import pyarrow.parquet as pq

    folder = data_dir / f"F_{S}x{N}x{K}_{fmt}_{order}"
    ext = ".tsv" if fmt == "tsv" else ".parquet"
    gold_path = folder / f"gold{ext}"
    runs = [folder / "runs" / f"sys{s:02d}{ext}" for s in range(S)]
    if (folder / ".complete").exists():
        return gold_path, runs
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(2026)
    ids = pa.array(np.char.add("doc", np.arange(N).astype("U9")).astype(object), pa.string())
    names = pa.array([f"class_{k}" for k in range(K)])
    prior = np.linspace(2.0, 1.0, K)
    gold = rng.choice(K, size=N, p=prior / prior.sum())

    def write(codes, path):
        perm = rng.permutation(N) if order == "shuffled" else np.arange(N)
        table = pa.table({"id": ids.take(pa.array(perm)), "label": names.take(pa.array(codes[perm]))})
        if fmt == "tsv":     # the default quoting: the header and every string in double quotes
            pa_csv.write_csv(table, path, pa_csv.WriteOptions(delimiter="\t"))
        else:
            pq.write_table(table, path)

    write(gold, gold_path)
    skill = np.linspace(0.9, 0.5, S)
    for s, path in enumerate(runs):
        wrong = (gold + 1 + rng.integers(0, K - 1, N)) % K
        write(np.where(rng.random(N) < skill[s], gold, wrong), path)
    (folder / ".complete").touch()
    return gold_path, runs


# ----------------------------------------------------------------------------- peers (scripts run as processes)

DUCKDB_SCRIPT = r"""
import sys, duckdb
gold, runs, fmt = sys.argv[1], sys.argv[2:], {fmt!r}
src = (lambda p: f"read_parquet('{{p}}')") if fmt == "parquet" else \
      (lambda p: f"read_csv('{{p}}', delim='\t', header=true, quote='\"', all_varchar=true)")
parts = [f"SELECT {{s}} AS system, g.label AS gold, r.label AS pred FROM {{src(p)}} r JOIN g USING (id)"
         for s, p in enumerate(runs)]
con = duckdb.connect()
con.execute(f"CREATE TEMP TABLE g AS SELECT id, label FROM {{src(gold)}}")
rows = con.execute("SELECT system, gold, pred, count(*) FROM (" + " UNION ALL ".join(parts) +
                   ") GROUP BY ALL ORDER BY ALL").fetchall()
print(len(rows))
"""

POLARS_SCRIPT = r"""
import sys, polars as pl
gold, runs, fmt = sys.argv[1], sys.argv[2:], {fmt!r}
read = pl.read_parquet if fmt == "parquet" else (lambda p: pl.read_csv(p, separator="\t", infer_schema=False))
g = read(gold)
n = 0
for p in runs:
    counts = g.join(read(p), on="id", how="inner", suffix="_pred").group_by("label", "label_pred").len()
    n += counts.height
print(n)
"""

FLOOR_SCRIPT = r"""
import sys
from concurrent.futures import ThreadPoolExecutor
import numpy, pyarrow, pyarrow.compute
gold, runs, fmt = sys.argv[1], sys.argv[2:], {fmt!r}
if fmt == "parquet":       # the label columns only (a run storing the gold's ids is not decoded)
    import pyarrow.parquet as pq
    def read(p):
        with pq.ParquetFile(p, read_dictionary=["label"]) as f:
            return f.read(columns=["label"]).num_rows
else:                      # every field must be parsed to find the labels
    import pyarrow.csv as pc
    def read(p):
        return pc.read_csv(p, parse_options=pc.ParseOptions(delimiter="\t")).num_rows
with ThreadPoolExecutor(2) as pool:
    print(sum(pool.map(read, [gold, *runs])))
"""

SKLEARN_SCRIPT = r"""
import sys, time
sys.path.insert(0, {here!r})
import numpy as np
from bench import labels_arrays, sklearn_calls
S, N, K = {S}, {N}, {K}
calls = list(sklearn_calls(K).values())[:10]
gold, _ = labels_arrays(N, K, seed=1)
preds = [labels_arrays(N, K, seed=2 + s)[1] for s in range(S)]
t = time.perf_counter()
for pred in preds:
    for fn in calls:
        fn(gold, pred)
print(time.perf_counter() - t)
"""


def run_process(cmd: list[str], env: dict | None = None) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MB) and stdout of one child process; a failure stops the benchmark."""
    t = time.perf_counter()
    # run outside the checkout: python puts the working folder first on sys.path (it would shadow --base)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tempfile.gettempdir())
    out = proc.stdout.read()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    secs = time.perf_counter() - t
    code = os.waitstatus_to_exitcode(status)
    if code:
        raise SystemExit(f"{' '.join(cmd[:4])} ... exited with {code}:\n{err.decode()[-2000:]}")
    return secs, usage.ru_maxrss / 1024, out.decode()


def median_run(cmd, repeats, env=None) -> dict:
    results = [run_process(cmd, env) for _ in range(repeats)]
    return {"seconds": statistics.median(r[0] for r in results), "peak_mb": max(r[1] for r in results),
            "stdout": results[-1][2]}


def script(text: str, **fmt) -> list[str]:
    handle = tempfile.NamedTemporaryFile("w", suffix=".py", delete=False)
    handle.write(text.format(**fmt))
    handle.close()
    return [sys.executable, handle.name]


# ----------------------------------------------------------------------------- stage split


def stages(gold: Path, runs: list[Path]) -> dict:
    """Seconds per stage of ``score``, in this process (read, align, encode, count, measures, write)."""
    import io

    from evalreport.cli.output import emit_columns
    from evalreport.counts import Counts
    from evalreport.inputs import readers
    from evalreport.measures.evaluate import evaluate_columns

    timings: dict = {}
    t = time.perf_counter()
    loaded = readers.read_runs(gold, runs, score_col=None, timings=timings, hash_files=False)   # as `score` reads
    total_read = time.perf_counter() - t
    t = time.perf_counter()
    counts = Counts.from_runs(loaded)
    t_count = time.perf_counter() - t
    t = time.perf_counter()
    columns = evaluate_columns(counts)
    t_meas = time.perf_counter() - t
    t = time.perf_counter()
    emit_columns(columns, "csv", file=io.StringIO())
    t_write = time.perf_counter() - t
    out = {k: timings.get(k, 0.0) for k in ("read", "align", "encode")}
    out["other inputs (hashing, checks)"] = total_read - sum(out.values())
    out.update({"count": t_count, "measures": t_meas, "write": t_write})
    return out


# ----------------------------------------------------------------------------- main


def import_time(reps: int, env=None) -> float:
    """Median wall seconds of ``evalreport score --help``: the start every ``score`` pays before it reads
    a file (imports, parser); ``python -X importtime`` says which module costs what."""
    cmd = [sys.executable, *(["-S"] if env is not None else []), "-m", "evalreport", "score", "--help"]
    return statistics.median(run_process(cmd, env)[0] for _ in range(reps))


def stages_in_child(gold: Path, runs: list[Path]) -> dict:
    """:func:`stages` in a child process (so that this process stays small: a child's peak RSS as
    ``wait4`` reports it starts from its parent's size at the fork)."""
    out = run_process([sys.executable, str(Path(__file__).resolve()), "--stages", str(gold), *map(str, runs)])[2]
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--stages"]:
        print(json.dumps(stages(Path(argv[1]), [Path(p) for p in argv[2:]])))
        return 0
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default="/tmp/bench-data", type=Path)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--base", help="a checkout of the code before the change (timed with PYTHONPATH=BASE)")
    ap.add_argument("--skip-memory", action="store_true", help="skip the 1e7 x 1 memory case")
    ap.add_argument("--out", type=Path, help="also write the markdown table here")
    args = ap.parse_args(argv)
    S, N = (4, 100_000) if args.quick else (20, 1_000_000)
    reps = args.repeats
    rows: list[tuple] = []
    # Both checkouts byte-compiled first, as an installed package is (pip compiles at install time):
    # an editable checkout in an environment with PYTHONDONTWRITEBYTECODE=1 (this project's sandbox)
    # would otherwise compile evalreport's modules in every process (about 0.06 s of a 0.5 s run).
    import compileall

    for root in [ROOT / "evalreport", *([Path(args.base) / "evalreport"] if args.base else [])]:
        compileall.compile_dir(str(root), quiet=1)
    base_env = None
    if args.base:    # -S (below): without site's .pth files the editable install cannot shadow BASE
        import site

        paths = [str(Path(args.base).resolve()), *site.getsitepackages()]
        base_env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths))
    for fmt in ("parquet", "tsv"):
        for order in ("shuffled", "ordered"):
            gold, runs = make_files(args.data_dir, S, N, fmt, order)
            case = f"{S} x {N:.0e}, {fmt.upper()}, ids {order}"
            cmd = [str(EVALREPORT), "score", str(gold), *map(str, runs), "--format", "csv"]
            ours = median_run(cmd, reps)
            duck = median_run(script(DUCKDB_SCRIPT, fmt=fmt) + [str(gold), *map(str, runs)], reps)
            pol = median_run(script(POLARS_SCRIPT, fmt=fmt) + [str(gold), *map(str, runs)], reps)
            rows.append((case, "evalreport score (process)", ours["seconds"], ours["peak_mb"], ""))
            if base_env is not None:
                before = median_run([sys.executable, "-S", "-m", "evalreport", *cmd[1:]], reps, base_env)
                same = "same CSV" if before["stdout"] == ours["stdout"] else "CSV DIFFERS"
                rows.append((case, "  before the change (process)", before["seconds"], before["peak_mb"],
                             f"{before['seconds'] / ours['seconds']:.2f}x slower than now; {same}"))
            rows.append((case, "DuckDB: one SQL join + GROUP BY (process)", duck["seconds"], duck["peak_mb"],
                         f"evalreport / DuckDB = {ours['seconds'] / duck['seconds']:.2f}"))
            rows.append((case, "polars: read + join + count (process)", pol["seconds"], pol["peak_mb"],
                         f"evalreport / polars = {ours['seconds'] / pol['seconds']:.2f}"))
            floor = median_run(script(FLOOR_SCRIPT, fmt=fmt) + [str(gold), *map(str, runs)], reps)
            rows.append((case, "  floor: import numpy + pyarrow, read every file in 2 threads (process)",
                         floor["seconds"], floor["peak_mb"], "Parquet: label columns only; TSV: every field"))
            if order == "ordered":
                sk = [float(run_process(script(SKLEARN_SCRIPT, here=str(HERE), S=S, N=N, K=K_CLASSES))[2])
                      for _ in range(max(1, reps // 2))]
                t_sk = statistics.median(sk)
                rows.append((case, "scikit-learn, 10 calls x S systems, labels in memory", t_sk, None,
                             f"scikit-learn / evalreport = {t_sk / ours['seconds']:.1f}x"))
            split = stages_in_child(gold, runs)
            rows.append((case, "  stages of score (in process): " + ", ".join(
                f"{k} {v:.2f}" for k, v in split.items()), sum(split.values()), None, "seconds per stage"))
            print(*rows[-1], sep=" | ", flush=True)
    rows.append(("imports", "process: `evalreport score --help`", import_time(reps), None, ""))
    if base_env is not None:
        rows.append(("imports", "  before the change", import_time(reps, base_env), None, ""))
    if not args.skip_memory and not args.quick:
        for fmt in ("parquet", "tsv"):
            gold, runs = make_files(args.data_dir, 1, 10_000_000, fmt, "shuffled")
            cmd = [str(EVALREPORT), "score", str(gold), *map(str, runs), "--format", "csv"]
            one = median_run(cmd, 1)
            rows.append((f"1 x 1e7, {fmt.upper()}, ids shuffled", "evalreport score (process)", one["seconds"],
                         one["peak_mb"], "peak RSS goal < 1,500 MB"))
            if base_env is not None:
                b = median_run([sys.executable, "-S", "-m", "evalreport", *cmd[1:]], 1, base_env)
                rows.append((f"1 x 1e7, {fmt.upper()}, ids shuffled", "  before the change", b["seconds"],
                             b["peak_mb"], ""))
    text = markdown(rows, reps)
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


def markdown(rows, reps) -> str:
    info = f"{platform.node()}, {os.cpu_count()} cores, Python {platform.python_version()}; medians of {reps}"
    lines = [f"Scenario I ({info}; the machine was shared, so ratios within one run are what counts)", "",
             "| case | tool | seconds | peak RSS (MB) | note |", "|---|---|---:|---:|---|"]
    for case, tool, secs, mb, note in rows:
        lines.append(f"| {case} | {tool} | {secs:.2f} | {'' if mb is None else f'{mb:,.0f}'} | {note} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())

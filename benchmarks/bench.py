"""evalreport against its peers (run by hand; never part of the test suite).

    .venv/bin/python benchmarks/bench.py                    # every scenario, full sizes
    .venv/bin/python benchmarks/bench.py --quick            # small sizes, a smoke run
    .venv/bin/python benchmarks/bench.py --scenario A,D --out /tmp/bench.md

Scenarios; all data is synthetic and seeded, except D:

A  one system, N in {1e4, 1e6, 1e7} x K in {2, 5, 20}, int8 label arrays: every measure
   scikit-learn has, one call per measure as users write them, vs evalreport's whole
   catalogue (confusion_from_codes -> evaluate), vs PyCM's ConfusionMatrix, vs the floor: one
   ``np.bincount(gold.astype(np.intp) * K + pred)``.
B  50 systems x 1e6 items x 5 classes in files (TSV and Parquet, generated once under
   --data-dir): ``evalreport score ... --format csv`` in a subprocess (wall time, peak RSS) vs
   pandas + scikit-learn, with evalreport's time split into read_runs / counting / measures.
C  paired bootstrap, 1,000 resamples x 20 systems x 1e5 items x 5 classes, every measure:
   ``evalreport.analyses.resampling.bootstrap`` vs resample-indices-then-scikit-learn (the
   data and the naive loop come from benchmarks/bench_resampling.py).
D  the 11 ImageNet confusion matrices of Gösgens et al. (1,000 classes): load, every measure,
   prevalence calibration, Spearman rank correlation between measures.
E, F and G are timed in CPU seconds of the process (single-threaded code; a shared machine's waits
do not count); H in wall seconds.

E  the public ``evalreport.confusion_matrix(gold, pred)`` on 1e6 label arrays (5 classes; numpy
   strings and int64) vs scikit-learn's ``confusion_matrix``, PyCM's ``ConfusionMatrix`` and the
   floor ``pandas.factorize`` of both arrays + ``np.bincount``.
F  the whole catalogue from one 5 x 5 confusion matrix (``evaluate``: values, 0/0 reasons, tidy
   frame) vs PyCM computing its statistics from the same matrix (``ConfusionMatrix(matrix=...)``),
   timed alternately.
G  ``compare`` with B bootstrap resamples on 20 systems x 1e5 items: its time beyond
   ``compare(bootstrap=0)`` and the library's ``bootstrap`` alone, per resample (the pairwise
   randomisation test and the rest of the command), vs the library's own cost per resample.
H  the analyses of the ImageNet report (11 systems x 1,000 classes, confusion input, as
   ``evalreport report --confusion``): the stages of ``report.build.analyse`` and, inside
   "comparing", the chance baselines and the scores.
I  (benchmarks/bench_files.py) files -> scores: ``evalreport score`` on 20 x 1e6 items with ids
   shuffled or in order, Parquet and TSV, vs one DuckDB join + GROUP BY and polars.

Each scenario runs in its own subprocess so that its peak resident set size is its own. Times
are medians of repeated runs (the repeat count is in the table). A peer run that would take too
long is timed on a part and extrapolated; the table says so.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
IMAGENET = REPO.parent / "shared" / "data" / "gosgens2021" / "imagenet"
EVALREPORT = Path(sys.executable).with_name("evalreport")


# ----------------------------------------------------------------------------- helpers


def timed(fn, repeats: int) -> tuple[float, object]:
    """Median wall time of ``repeats`` calls (and the last result)."""
    times, out = [], None
    for _ in range(max(1, repeats)):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def emit(**row) -> None:
    """One result row, as a JSON line the parent collects."""
    print("ROW " + json.dumps(row), flush=True)


def labels_arrays(N: int, K: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """int8 gold and prediction codes: skewed class sizes, 70 % right, errors uniform."""
    rng = np.random.default_rng(seed)
    prior = np.linspace(2.0, 1.0, K)
    gold = rng.choice(K, size=N, p=prior / prior.sum()).astype(np.int8)
    wrong = ((gold + 1 + rng.integers(0, K - 1, N)) % K).astype(np.int8)
    pred = np.where(rng.random(N) < 0.7, gold, wrong).astype(np.int8)
    return gold, pred


def sklearn_calls(K: int) -> dict:
    """Every measure scikit-learn has for single-label classification, one call each."""
    from sklearn import metrics as skm

    calls = {
        "accuracy_score": lambda g, p: skm.accuracy_score(g, p),
        "balanced_accuracy_score": lambda g, p: skm.balanced_accuracy_score(g, p),
        "matthews_corrcoef": lambda g, p: skm.matthews_corrcoef(g, p),
        "cohen_kappa_score": lambda g, p: skm.cohen_kappa_score(g, p),
        "cohen_kappa_score(quadratic)": lambda g, p: skm.cohen_kappa_score(g, p, weights="quadratic"),
        "hamming_loss": lambda g, p: skm.hamming_loss(g, p),
        "zero_one_loss": lambda g, p: skm.zero_one_loss(g, p),
        "confusion_matrix": lambda g, p: skm.confusion_matrix(g, p),
        "classification_report": lambda g, p: skm.classification_report(g, p, zero_division=0),
    }
    averages = ["macro", "micro", "weighted"] + (["binary"] if K == 2 else [])
    for avg in averages:
        calls[f"precision_score({avg})"] = lambda g, p, a=avg: skm.precision_score(g, p, average=a, zero_division=0)
        calls[f"recall_score({avg})"] = lambda g, p, a=avg: skm.recall_score(g, p, average=a, zero_division=0)
        calls[f"f1_score({avg})"] = lambda g, p, a=avg: skm.f1_score(g, p, average=a, zero_division=0)
        calls[f"fbeta_score(beta=2,{avg})"] = lambda g, p, a=avg: skm.fbeta_score(g, p, beta=2, average=a,
                                                                                  zero_division=0)
        calls[f"jaccard_score({avg})"] = lambda g, p, a=avg: skm.jaccard_score(g, p, average=a, zero_division=0)
    return calls


# ----------------------------------------------------------------------------- A


def scenario_a(quick: bool) -> None:
    from evalreport.counts import confusion_from_codes
    from evalreport.measures import compute, default_measures, evaluate

    Ns = (10_000, 100_000) if quick else (10_000, 1_000_000, 10_000_000)
    Ks = (2, 5) if quick else (2, 5, 20)
    for N in Ns:
        for K in Ks:
            gold, pred = labels_arrays(N, K, seed=N + K)
            labels = [f"c{k}" for k in range(K)]
            positive = "c1" if K == 2 else None
            reps = 7 if N <= 10**6 else 3
            case = f"N={N:.0e} K={K}"
            t_floor, _ = timed(lambda: np.bincount(gold.astype(np.intp) * K + pred, minlength=K * K), reps)
            t_count, C = timed(lambda: confusion_from_codes(gold, pred, K), reps)

            def catalogue():
                return evaluate(confusion_from_codes(gold, pred, K), labels=labels, positive=positive)

            t_eval, frame = timed(catalogue, reps)
            ms = default_measures(positive=0 if K == 2 else None)
            t_values, _ = timed(lambda: [compute(m, C, positive=1 if K == 2 else None, explain=False)
                                         for m in ms], reps)
            n_measures = frame["measure"].nunique()
            emit(scenario="A", case=case, tool="np.bincount (floor)", seconds=t_floor, repeats=reps)
            emit(scenario="A", case=case, tool="evalreport confusion_from_codes", seconds=t_count, repeats=reps)
            emit(scenario="A", case=case, tool=f"evalreport whole catalogue ({n_measures} measures, tidy frame)",
                 seconds=t_eval, repeats=reps, ratio_to_floor=t_eval / t_floor)
            emit(scenario="A", case=case, tool=f"  of which measures from the tensor, values only ({len(ms)})",
                 seconds=t_values, repeats=reps)
            # scikit-learn: one call per measure
            calls = sklearn_calls(K)
            sk_reps = 3 if N <= 10**6 else 1
            total, slowest = 0.0, ("", 0.0)
            for name, fn in calls.items():
                t, _ = timed(lambda: fn(gold, pred), sk_reps)
                total += t
                if t > slowest[1]:
                    slowest = (name, t)
            emit(scenario="A", case=case, tool=f"scikit-learn, {len(calls)} calls (one per measure)",
                 seconds=total, repeats=sk_reps, ratio_to_floor=total / t_floor, ratio_to_evalreport=total / t_eval,
                 note=f"slowest {slowest[0]} {slowest[1]:.3g} s; mean {total / len(calls):.3g} s per call")
            if N <= 10**6:
                from pycm import ConfusionMatrix

                t, _ = timed(lambda: ConfusionMatrix(actual_vector=gold, predict_vector=pred), 1 if N > 10**5 else 3)
                emit(scenario="A", case=case, tool="PyCM ConfusionMatrix", seconds=t, repeats=1 if N > 10**5 else 3,
                     ratio_to_floor=t / t_floor, ratio_to_evalreport=t / t_eval)
            else:
                emit(scenario="A", case=case, tool="PyCM ConfusionMatrix", seconds=None, repeats=0,
                     note="skipped at N=1e7 to keep the run short")
    emit(scenario="A", case="peak", tool="process peak RSS (MB)", seconds=None, peak_mb=peak_rss_mb())


# ----------------------------------------------------------------------------- B


def b_files(data_dir: Path, S: int, N: int, K: int, fmt: str) -> tuple[Path, list[Path]]:
    """Gold + one run file per system, written once (seeded) and reused."""
    import pyarrow as pa
    import pyarrow.csv as pa_csv
    import pyarrow.parquet as pq

    folder = data_dir / f"B_{S}x{N}x{K}_{fmt}"
    ext = ".tsv" if fmt == "tsv" else ".parquet"
    gold_path = folder / f"gold{ext}"
    runs = [folder / "runs" / f"sys{s:02d}{ext}" for s in range(S)]
    if gold_path.exists() and all(p.exists() for p in runs):
        return gold_path, runs
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(2024)
    ids = pa.array(np.char.add("doc", np.arange(N).astype("U8")).astype(object), pa.string())
    names = pa.array([f"class_{k}" for k in range(K)])
    gold, _ = labels_arrays(N, K, seed=1)

    def write(table, path):
        if fmt == "tsv":
            pa_csv.write_csv(table, path, pa_csv.WriteOptions(delimiter="\t", quoting_style="none"))
        else:
            pq.write_table(table, path)

    write(pa.table({"id": ids, "label": names.take(pa.array(gold))}), gold_path)
    skill = np.linspace(0.9, 0.5, S)
    for s, path in enumerate(runs):
        wrong = (gold + 1 + rng.integers(0, K - 1, N)) % K
        pred = np.where(rng.random(N) < skill[s], gold, wrong)
        write(pa.table({"id": ids, "label": names.take(pa.array(pred))}), path)
    return gold_path, runs


def run_with_rusage(cmd: list[str]) -> tuple[float, float, int]:
    """Wall seconds, peak RSS (MB) and exit status of one child process (stdout discarded)."""
    t = time.perf_counter()
    with open(os.devnull, "wb") as sink:
        proc = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
    secs = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        sys.stderr.write(proc.stderr.read().decode()[-2000:])
    return secs, usage.ru_maxrss / 1024, proc.returncode


def scenario_b(quick: bool, data_dir: Path) -> None:
    import pandas as pd

    from evalreport.counts import count
    from evalreport.inputs import read_runs
    from evalreport.measures import evaluate

    S, N, K = (5, 100_000, 5) if quick else (50, 1_000_000, 5)
    n_peer = 2
    calls = sklearn_calls(K)
    for fmt in ("tsv", "parquet"):
        t0 = time.perf_counter()
        gold_path, runs = b_files(data_dir, S, N, K, fmt)
        case = f"{S} systems x {N:.0e} items x K={K}, {fmt.upper()}"
        size = sum(p.stat().st_size for p in [gold_path, *runs]) / 2**20
        emit(scenario="B", case=case, tool="(files)", seconds=None, note=f"{size:.0f} MB on disk; "
             f"generated/cached in {time.perf_counter() - t0:.1f} s")
        cmd = [str(EVALREPORT), "score", str(gold_path), *map(str, runs), "--format", "csv"]
        results = [run_with_rusage(cmd) for _ in range(2 if not quick else 1)]
        secs = statistics.median(r[0] for r in results)
        rss = max(r[1] for r in results)
        emit(scenario="B", case=case, tool="evalreport score (CLI, subprocess)", seconds=secs,
             repeats=len(results), peak_mb=rss, note="exit " + ",".join(str(r[2]) for r in results))
        # the same in-process, split by stage
        t_read, loaded = timed(lambda: read_runs(gold_path, runs), 1)
        t_count, counts = timed(lambda: count(loaded), 3)
        t_meas, _ = timed(lambda: evaluate(counts), 3)
        emit(scenario="B", case=case, tool="  read_runs (files -> codes, incl. SHA-256)", seconds=t_read, repeats=1)
        emit(scenario="B", case=case, tool="  counting (confusion tensors)", seconds=t_count, repeats=3)
        emit(scenario="B", case=case, tool="  measures (evaluate, whole catalogue)", seconds=t_meas, repeats=3)
        loaded = None          # frees the codes before the peer reads (a del would leave the lambda's name unbound)
        # peer: pandas read + merge, then scikit-learn per measure, for n_peer systems; extrapolated
        reader = (lambda p: pd.read_csv(p, sep="\t", dtype=str)) if fmt == "tsv" else pd.read_parquet
        t = time.perf_counter()
        gold = reader(gold_path)
        t_gold = time.perf_counter() - t
        t = time.perf_counter()
        for path in runs[:n_peer]:
            run = reader(path)
            merged = gold.merge(run, on="id", suffixes=("_gold", "_pred"), validate="one_to_one")
            g, p = merged["label_gold"].to_numpy(), merged["label_pred"].to_numpy()
            for fn in calls.values():
                fn(g, p)
        per_system = (time.perf_counter() - t) / n_peer
        peer = t_gold + per_system * S
        emit(scenario="B", case=case, tool=f"pandas + scikit-learn ({len(calls)} calls per system)", seconds=peer,
             repeats=1, ratio_to_evalreport=peer / secs,
             note=f"{n_peer} systems timed ({per_system:.1f} s each), extrapolated to {S}")
    emit(scenario="B", case="peak", tool="benchmark process peak RSS (MB)", seconds=None, peak_mb=peak_rss_mb())


# ----------------------------------------------------------------------------- C


def scenario_c(quick: bool) -> None:
    sys.path.insert(0, str(HERE))
    try:
        import bench_resampling as br
        from evalreport.analyses import resampling
    except ImportError as exc:
        emit(scenario="C", case="-", tool="not available", seconds=None, note=str(exc))
        return
    n, S, K, B = (10_000, 20, 5, 200) if quick else (100_000, 20, 5, 1000)
    runs = br.synthetic(n=n, systems=S, classes=K, correlated=True)
    ids = br.every_measure()
    costs = np.abs(np.subtract.outer(np.arange(K), np.arange(K))).astype(float)
    case = f"{B} resamples x {S} systems x {n:.0e} items x K={K}"
    secs, _ = timed(lambda: resampling.bootstrap(runs, ids, n_resamples=B, positive=1, costs=costs), 1 if quick else 3)
    emit(scenario="C", case=case, tool=f"evalreport bootstrap ({len(ids)} measures)", seconds=secs,
         repeats=1 if quick else 3, note=f"{resampling.patterns(runs).n_patterns:,} distinct patterns")
    k = 1 if quick else 2
    naive = br.naive_seconds_per_resample(runs, ids, positive=1, costs=costs, n_resamples=k) * B
    emit(scenario="C", case=case, tool="resample indices + scikit-learn per measure and system", seconds=naive,
         repeats=1, ratio_to_evalreport=naive / secs,
         note=f"{k} resample(s) timed, extrapolated to {B} (bench_resampling.naive_seconds_per_resample)")
    emit(scenario="C", case="peak", tool="process peak RSS (MB)", seconds=None, peak_mb=peak_rss_mb())


# ----------------------------------------------------------------------------- D


def scenario_d(quick: bool) -> None:
    from scipy import stats

    from evalreport.counts import read_confusions
    from evalreport.measures import evaluate

    if not IMAGENET.is_dir():
        emit(scenario="D", case="-", tool="not available", seconds=None, note=f"{IMAGENET} not found")
        return
    reps = 1 if quick else 3
    t_load, counts = timed(lambda: read_confusions(IMAGENET), reps)
    case = f"{len(counts.systems)} systems x K={len(counts.labels)}"
    emit(scenario="D", case=case, tool="load (read_confusions)", seconds=t_load, repeats=reps)
    t_eval, frame = timed(lambda: evaluate(counts), reps)
    emit(scenario="D", case=case, tool=f"every measure ({frame['measure'].nunique()})", seconds=t_eval, repeats=reps)
    try:
        from evalreport.analyses.prevalence import calibrate
        t_cal, calibrated = timed(lambda: evaluate(calibrate(counts)), reps)
        emit(scenario="D", case=case, tool="prevalence calibration + every measure", seconds=t_cal, repeats=reps)
    except ImportError:
        emit(scenario="D", case=case, tool="prevalence calibration", seconds=None,
             note="evalreport.analyses.prevalence not available (calibration = row normalisation)")

    def correlation():
        wide = frame.pivot(index="system", columns="measure", values="value").dropna(axis=1)
        wide = wide.loc[:, wide.nunique() > 1]
        return stats.spearmanr(wide.to_numpy()).statistic

    t_rho, rho = timed(correlation, reps)
    emit(scenario="D", case=case, tool=f"Spearman rank correlation ({np.shape(rho)[0]} measures)", seconds=t_rho,
         repeats=reps)
    emit(scenario="D", case="peak", tool="process peak RSS (MB)", seconds=None, peak_mb=peak_rss_mb())


# ----------------------------------------------------------------------------- E


def alternating(fns: dict, repeats: int, clock=time.process_time) -> dict:
    """Median seconds of each callable, the callables run in turn (``repeats`` rounds), so that a
    busy machine slows all of them alike. The default clock is the process's CPU time: on a shared
    machine it counts this process's work, not the waits for a core (the code timed here runs on
    one thread)."""
    times = {k: [] for k in fns}
    for _ in range(repeats):
        for k, fn in fns.items():
            t = clock()
            fn()
            times[k].append(clock() - t)
    return {k: statistics.median(v) for k, v in times.items()}


def scenario_e(quick: bool) -> None:
    import pandas as pd
    from pycm import ConfusionMatrix
    from sklearn.metrics import confusion_matrix as sk_confusion_matrix

    from evalreport.counts import confusion_matrix

    N = 100_000 if quick else 1_000_000
    codes_g, codes_p = labels_arrays(N, 5, seed=15)
    names = np.array(["alpha", "beta", "gamma", "delta", "epsilon"])
    for kind, gold, pred in (("strings", names[codes_g], names[codes_p]),
                             ("int64", codes_g.astype(np.int64), codes_p.astype(np.int64))):
        def floor(g=gold, p=pred):
            codes, uniq = pd.factorize(np.concatenate([g, p]))
            k = len(uniq)
            return np.bincount(codes[:N] * k + codes[N:], minlength=k * k)

        ref = confusion_matrix(gold, pred)
        if not np.array_equal(ref[0], sk_confusion_matrix(gold, pred, labels=list(ref[1]))):
            raise SystemExit("scenario E: evalreport and scikit-learn disagree")
        t = alternating({
            "evalreport": lambda g=gold, p=pred: confusion_matrix(g, p),
            "sklearn": lambda g=gold, p=pred: sk_confusion_matrix(g, p),
            "pycm": lambda g=gold, p=pred: ConfusionMatrix(actual_vector=g, predict_vector=p),
            "floor": floor,
        }, 3 if quick else 5)
        case = f"N={N:.0e} K=5 {kind}"
        ours = t["evalreport"]
        emit(scenario="E", case=case, tool="pandas.factorize + np.bincount (floor)", seconds=t["floor"],
             repeats=5, ratio_to_evalreport=t["floor"] / ours)
        emit(scenario="E", case=case, tool="evalreport confusion_matrix", seconds=ours, repeats=5,
             ratio_to_floor=ours / t["floor"])
        emit(scenario="E", case=case, tool="scikit-learn confusion_matrix", seconds=t["sklearn"], repeats=5,
             ratio_to_floor=t["sklearn"] / t["floor"], ratio_to_evalreport=t["sklearn"] / ours)
        emit(scenario="E", case=case, tool="PyCM ConfusionMatrix (vectors)", seconds=t["pycm"], repeats=5,
             ratio_to_floor=t["pycm"] / t["floor"], ratio_to_evalreport=t["pycm"] / ours)


# ----------------------------------------------------------------------------- F


def scenario_f(quick: bool) -> None:
    from pycm import ConfusionMatrix

    from evalreport.measures import evaluate

    rng = np.random.default_rng(15)
    C = rng.integers(1, 200, size=(5, 5))
    matrix = {str(i): {str(j): int(C[i, j]) for j in range(5)} for i in range(5)}
    evaluate(C)
    n = len(evaluate(C))
    t = alternating({"evalreport": lambda: evaluate(C), "pycm": lambda: ConfusionMatrix(matrix=matrix)},
                    20 if quick else 100)
    emit(scenario="F", case="one 5 x 5 matrix", tool=f"evalreport evaluate (whole catalogue, {n} measures, frame)",
         seconds=t["evalreport"], repeats=100)
    emit(scenario="F", case="one 5 x 5 matrix", tool="PyCM ConfusionMatrix(matrix=...) (its statistics)",
         seconds=t["pycm"], repeats=100, ratio_to_evalreport=t["pycm"] / t["evalreport"])


# ----------------------------------------------------------------------------- G


def scenario_g(quick: bool) -> None:
    sys.path.insert(0, str(HERE))
    import bench_resampling as br

    from evalreport.analyses import resampling
    from evalreport.analyses.compare import compare, comparison_measures
    from evalreport.measures import get

    n, S, K, B = (20_000, 20, 5, 100) if quick else (100_000, 20, 5, 1000)
    runs = br.synthetic(n=n, systems=S, classes=K, correlated=True)
    records = [get(m) for m in comparison_measures(primary="macro_f1")]
    reps = 1 if quick else 3
    t = alternating({
        "compare0": lambda: compare(runs, bootstrap=0),
        "compareB": lambda: compare(runs, bootstrap=B),
        "library": lambda: resampling.bootstrap(runs, records, n_resamples=B, seed=0),
    }, reps)
    case = f"{B} resamples x {S} systems x {n:.0e} items x K={K}"
    lib = t["library"] / B
    over = (t["compareB"] - t["compare0"] - t["library"]) / B
    emit(scenario="G", case=case, tool="compare(bootstrap=0)", seconds=t["compare0"], repeats=reps)
    emit(scenario="G", case=case, tool=f"compare(bootstrap={B})", seconds=t["compareB"], repeats=reps)
    emit(scenario="G", case=case, tool=f"library bootstrap alone ({len(records)} measures), per resample",
         seconds=lib, repeats=reps)
    emit(scenario="G", case=case, tool="compare's own time per resample (beyond the two above)", seconds=over,
         repeats=reps, ratio_to_evalreport=lib / over if over > 0 else None,
         note="ratio: library cost / compare's overhead (> 1: the overhead is below the library's cost)")


# ----------------------------------------------------------------------------- H


def scenario_h(quick: bool) -> None:
    import importlib
    import tempfile
    import warnings

    from evalreport.counts import read_confusions
    from evalreport.measures import evaluate

    if not IMAGENET.is_dir():
        emit(scenario="H", case="-", tool="not available", seconds=None, note=f"{IMAGENET} not found")
        return
    from evalreport.analyses.compare import comparison_measures
    from evalreport.report.build import Stages, analyse

    baselines = importlib.import_module("evalreport.analyses.baselines")
    warnings.simplefilter("ignore")
    case = "11 systems x K=1000"
    t_read, counts = timed(lambda: read_confusions(IMAGENET), 1)
    emit(scenario="H", case=case, tool="read the 11 confusion files", seconds=t_read, repeats=1)
    ms = comparison_measures(primary="accuracy")
    t_base, _ = timed(lambda: baselines.baselines(counts, ms), 1)
    t_eval, _ = timed(lambda: evaluate(counts, ms), 1 if quick else 3)
    stages = Stages(False)
    with tempfile.TemporaryDirectory() as tmp:
        t_all, _ = timed(lambda: analyse(counts, Path(tmp) / "tables", primary="accuracy", stages=stages,
                                         sources=()), 1)
    for name, secs in stages.times.items():
        emit(scenario="H", case=case, tool=f"stage: {name}", seconds=secs, repeats=1)
    emit(scenario="H", case=case, tool="  inside comparing: chance baselines (16 measures x 4 models)",
         seconds=t_base, repeats=1)
    emit(scenario="H", case=case, tool="  inside comparing: scores of the 16 measures (evaluate)", seconds=t_eval,
         repeats=1 if quick else 3)
    emit(scenario="H", case=case, tool="analyses in all (every table of the report)", seconds=t_all, repeats=1)
    emit(scenario="H", case="peak", tool="process peak RSS (MB)", seconds=None, peak_mb=peak_rss_mb())


# ----------------------------------------------------------------------------- driver


def machine() -> dict:
    import numpy
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
        mem = next(line for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal"))
        mem_gib = int(mem.split()[1]) / 2**20
    except (OSError, StopIteration):
        mem_gib = float("nan")
    versions = {"python": platform.python_version(), "numpy": numpy.__version__}
    for mod in ("pandas", "sklearn", "pycm", "duckdb", "pyarrow", "scipy"):
        try:
            versions[mod] = __import__(mod).__version__
        except Exception:  # noqa: BLE001 - a missing peer is reported, not fatal
            versions[mod] = "absent"
    return {"date": datetime.date.today().isoformat(), "nproc": os.cpu_count(), "cpu": model,
            "memory_gib": round(mem_gib, 1), "versions": versions,
            "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE", "(unset)")}


def fmt_seconds(s) -> str:
    if s is None:
        return "-"
    if s < 1e-3:
        return f"{s * 1e6:.0f} µs"
    if s < 1:
        return f"{s * 1e3:.1f} ms"
    return f"{s:.2f} s"


def markdown(rows: list[dict], info: dict) -> str:
    v = info["versions"]
    out = [f"Measured {info['date']} on {info['nproc']} cores ({info['cpu']}), {info['memory_gib']} GiB; "
           f"Python {v['python']}, numpy {v['numpy']}, pandas {v['pandas']}, scikit-learn {v['sklearn']}, "
           f"PyCM {v['pycm']}, DuckDB {v['duckdb']}, pyarrow {v['pyarrow']}; "
           f"OPENBLAS_CORETYPE={info['OPENBLAS_CORETYPE']}.", ""]
    for scenario in sorted({r["scenario"] for r in rows}):
        out += [f"### Scenario {scenario}", "",
                "| case | tool | median | runs | x floor | peer / evalreport | peak RSS | note |",
                "|---|---|---:|---:|---:|---:|---:|---|"]
        for r in (r for r in rows if r["scenario"] == scenario):
            ratio_f = f"{r['ratio_to_floor']:.1f}" if r.get("ratio_to_floor") is not None else ""
            ratio_e = f"{r['ratio_to_evalreport']:.3g}x" if r.get("ratio_to_evalreport") is not None else ""
            peak = f"{r['peak_mb']:.0f} MB" if r.get("peak_mb") is not None else ""
            out.append(f"| {r['case']} | {r['tool']} | {fmt_seconds(r.get('seconds'))} | {r.get('repeats', '')} | "
                       f"{ratio_f} | {ratio_e} | {peak} | {r.get('note', '')} |")
        out.append("")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke run of a few minutes)")
    ap.add_argument("--scenario", default="A,B,C,D,E,F,G,H", help="comma-separated subset of A,B,C,D,E,F,G,H")
    ap.add_argument("--data-dir", default="/tmp/evalreport-bench", help="where scenario B's files are cached")
    ap.add_argument("--out", help="also write the markdown table to this file")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        run = {"A": lambda: scenario_a(args.quick), "B": lambda: scenario_b(args.quick, Path(args.data_dir)),
               "C": lambda: scenario_c(args.quick), "D": lambda: scenario_d(args.quick),
               "E": lambda: scenario_e(args.quick), "F": lambda: scenario_f(args.quick),
               "G": lambda: scenario_g(args.quick), "H": lambda: scenario_h(args.quick)}[args.child]
        run()
        return 0
    rows: list[dict] = []
    for scenario in [s.strip().upper() for s in args.scenario.split(",") if s.strip()]:
        cmd = [sys.executable, __file__, "--child", scenario, "--data-dir", args.data_dir] + (["--quick"] if args.quick else [])
        t = time.perf_counter()
        print(f"scenario {scenario} ...", file=sys.stderr, flush=True)
        with subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True) as proc:
            for line in proc.stdout:
                if line.startswith("ROW "):
                    row = json.loads(line[4:])
                    rows.append(row)
                    print(f"  {row['case']:<40} {row['tool']:<62} {fmt_seconds(row.get('seconds')):>10}",
                          file=sys.stderr, flush=True)
                else:
                    sys.stderr.write(line)
        if proc.returncode:
            rows.append({"scenario": scenario, "case": "-", "tool": "FAILED", "seconds": None,
                         "note": f"exit status {proc.returncode}"})
        print(f"scenario {scenario}: {time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
    text = markdown(rows, machine())
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

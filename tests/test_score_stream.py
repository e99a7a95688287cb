"""``evalreport score`` computes the score-based measures run by run while the runs are read
(:mod:`evalreport.cli.score_stream`): its output and its errors are those of the whole-array path
(:func:`evalreport.cli.score.score_columns`), byte for byte, in every case that decides which measures
are reported or which problem is raised."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from evalreport.cli import main, score as score_cli
from evalreport.inputs.run_scores import _Buffers


def _both(args, capsys, monkeypatch):
    """(exit status, stdout, stderr) of ``evalreport score ARGS`` streamed, then from the whole array."""
    from evalreport.cli.score_stream import ScoreStream

    got, taken = [], []
    take = ScoreStream.take
    for streamed in (True, False):
        with monkeypatch.context() as mp:
            if streamed:
                mp.setattr(ScoreStream, "take", lambda self, s, *a: (taken.append(s), take(self, s, *a)))
            else:
                mp.setattr(score_cli, "_stream", lambda args: None)
            code = main(["score", *map(str, args)])
            out, err = capsys.readouterr()
            got.append((code, out, err))
    assert taken or "roc_auc" not in got[1][1], "the streamed path took no run's scores"
    return got


def _write(folder, gold, systems, *, fmt="csv"):
    """gold + one file per system: ``systems`` maps name -> (labels, {column: scores} or None, ids or None)."""
    folder.mkdir(parents=True, exist_ok=True)
    n = len(gold)
    ids = [f"i{k}" for k in range(n)]
    paths = []
    gold_path = folder / f"gold.{fmt}"
    _table(gold_path, {"id": ids, "label": list(gold)})
    for name, (labels, scores, order) in systems.items():
        rows = list(range(n)) if order is None else list(order)
        cols = {"id": [ids[r] for r in rows], "label": [labels[r] for r in rows]}
        for col, values in (scores or {}).items():
            cols[col] = [values[r] for r in rows]
        path = folder / f"{name}.{fmt}"
        _table(path, cols)
        paths.append(path)
    return gold_path, paths


def _table(path, cols):
    if path.suffix == ".parquet":
        pq.write_table(pa.table(cols), path)
        return
    names = list(cols)
    lines = [",".join(names)] + [",".join(_cell(cols[c][i]) for c in names) for i in range(len(cols[names[0]]))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _cell(v) -> str:
    return repr(float(v)) if isinstance(v, (float, np.floating)) else str(v)


def _probabilities(rng, n, k, gold, skill):
    raw = rng.random((n, k)) + skill * (np.arange(k)[None, :] == np.asarray(gold)[:, None])
    return raw / raw.sum(1, keepdims=True)


CLASSES = ["a", "b", "c"]


def _system(rng, gold, classes, *, skill=1.0, scores="classes", ties=False, shuffle=False):
    n, k = len(gold), len(classes)
    codes = np.array([classes.index(g) for g in gold])
    p = _probabilities(rng, n, k, codes, skill)
    if ties:
        p = np.round(p, 1)
    labels = [classes[j] for j in p.argmax(1)]
    order = rng.permutation(n) if shuffle else None
    if scores == "classes":
        return labels, {f"score_{c}": p[:, j] for j, c in enumerate(classes)}, order
    if scores == "binary":
        return labels, {"score": p[:, -1]}, order
    return labels, None, order


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize("case", ["plain", "shuffled", "ties", "no scores for one", "none scored first"])
def test_streamed_scores_equal_the_whole_array(tmp_path, capsys, monkeypatch, fmt, case):
    rng = np.random.default_rng(7)
    gold = list(rng.choice(CLASSES, 300))
    systems = {f"s{j}": _system(rng, gold, CLASSES, skill=0.5 + j, shuffle=case == "shuffled" and j % 2 == 0,
                                ties=case == "ties") for j in range(4)}
    if case == "no scores for one":
        systems["s2"] = (systems["s2"][0], None, None)
    if case == "none scored first":
        systems = {"s0": (systems["s0"][0], None, None), **{k: v for k, v in systems.items() if k != "s0"}}
    g, runs = _write(tmp_path, gold, systems, fmt=fmt)
    streamed, whole = _both([g, *runs, "--format", "csv"], capsys, monkeypatch)
    assert streamed == whole
    assert streamed[0] == 0 and "roc_auc_ovo" in streamed[1] and "ece" in streamed[1]


@pytest.mark.parametrize("case", ["binary with positive", "binary without positive", "binary, roc_auc asked, no positive",
                                  "not probabilities", "not probabilities, brier asked", "sums off",
                                  "missing items abstain", "layouts differ", "unknown label allowed",
                                  "measures asked", "positive not a class", "terminal table"])
def test_every_decision_and_error_is_the_whole_arrays(tmp_path, capsys, monkeypatch, case):
    rng = np.random.default_rng(11)
    gold = list(rng.choice(CLASSES[:2] if case.startswith("binary") else CLASSES, 240))
    classes = CLASSES[:2] if case.startswith("binary") else CLASSES
    kind = "binary" if case.startswith("binary") else "classes"
    systems = {f"s{j}": _system(rng, gold, classes, skill=1.0 + j, scores=kind) for j in range(3)}
    extra: list[str] = []
    if case == "binary with positive":
        extra = ["--positive", "b"]
    if case == "binary, roc_auc asked, no positive":
        extra = ["--measures", "roc_auc,accuracy"]
    if case.startswith("not probabilities"):
        labels, scores, order = systems["s1"]
        systems["s1"] = (labels, {c: 3.0 * v - 1.0 for c, v in scores.items()}, order)
        if case.endswith("brier asked"):
            extra = ["--measures", "roc_auc,brier"]
    if case == "sums off":
        labels, scores, order = systems["s2"]
        systems["s2"] = (labels, {c: 0.5 * v for c, v in scores.items()}, order)
    if case == "missing items abstain":
        labels, scores, _ = systems["s1"]
        systems["s1"] = (labels, scores, np.arange(200))
        extra = ["--missing", "abstain"]
    if case == "layouts differ":
        labels, scores, order = systems["s2"]
        systems["s2"] = (labels, {"score_a": scores["score_a"], "score_b": scores["score_b"]}, order)
    if case == "unknown label allowed":
        labels, scores, order = systems["s0"]
        systems["s0"] = (["zz" if i % 17 == 0 else lab for i, lab in enumerate(labels)], scores, order)
        extra = ["--allow-unknown"]
    if case == "measures asked":
        extra = ["--measures", "log_loss,roc_auc_ovo_weighted,mcc,average_precision"]
    if case == "positive not a class":
        extra = ["--positive", "nope"]
    g, runs = _write(tmp_path, gold, systems)
    fmt = [] if case == "terminal table" else ["--format", "csv"]
    streamed, whole = _both([g, *runs, *fmt, *extra], capsys, monkeypatch)
    assert streamed == whole


def test_several_runs_per_system(tmp_path, capsys, monkeypatch):
    rng = np.random.default_rng(3)
    gold = list(rng.choice(CLASSES, 150))
    g, _ = _write(tmp_path, gold, {})
    for system in ("alpha", "beta"):
        _write(tmp_path / "runs" / system, gold, {f"seed{k}": _system(rng, gold, CLASSES, skill=k) for k in range(3)})
        (tmp_path / "runs" / system / "gold.csv").unlink()
    streamed, whole = _both([g, "--runs-dir", tmp_path / "runs"], capsys, monkeypatch)
    assert streamed == whole and streamed[0] == 0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(2, 60), k=st.integers(2, 4), s=st.integers(1, 4), seed=st.integers(0, 2**16),
       decimals=st.sampled_from([1, 2, 6, 17]))
def test_random_tasks(tmp_path_factory, capsys, monkeypatch, n, k, s, seed, decimals):
    rng = np.random.default_rng(seed)
    classes = [f"c{j}" for j in range(k)]
    gold = list(rng.choice(classes, n))
    systems = {}
    for j in range(s):
        labels, scores, order = _system(rng, gold, classes, skill=rng.random() * 3, shuffle=bool(rng.random() < .5))
        systems[f"sys{j}"] = (labels, {c: np.round(v, decimals) for c, v in scores.items()}, order)
    g, runs = _write(tmp_path_factory.mktemp("t"), gold, systems)
    streamed, whole = _both([g, *runs, "--format", "csv"], capsys, monkeypatch)
    assert streamed == whole


def test_the_buffers_are_reused_and_bounded():
    """At most ``cap`` arrays are made; a taker waits for one given back (never more memory)."""
    import threading

    pool = _Buffers((4,), 2)
    a, b = pool.take(), pool.take()
    assert pool.take(wait=False) is None and pool.made == 2
    got = []
    t = threading.Thread(target=lambda: got.append(pool.take()))
    t.start()
    pool.give(a)
    t.join(5)
    assert got and got[0] is a and pool.made == 2
    pool.give(b)
    assert pool.take(wait=False) is b


def test_openblas_threads_are_not_started_for_score_only(monkeypatch):
    """``score`` does no matrix product: the executable asks OpenBLAS for one thread (set before numpy is
    imported); every other command keeps OpenBLAS's threads, and a user's own setting wins."""
    from evalreport.cli import _no_blas_threads

    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    _no_blas_threads(["report"])
    assert "OPENBLAS_NUM_THREADS" not in __import__("os").environ
    _no_blas_threads(["score"])
    assert __import__("os").environ["OPENBLAS_NUM_THREADS"] == "1"
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "4")
    _no_blas_threads(["score"])
    assert __import__("os").environ["OPENBLAS_NUM_THREADS"] == "4"

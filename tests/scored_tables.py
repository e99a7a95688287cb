"""A report's tables folder for systems that output probabilities, made the way a comparison on
scored runs writes it (the contract of the score curves): ``roc_curve.csv``, ``pr_curve.csv`` and
``reliability.csv`` beside a ``scores.csv`` that holds rows for ``roc_auc``, ``average_precision``,
``brier``, ``log_loss`` and ``ece`` (NaN and a reason for a system without scores).

The curves come from scikit-learn (``roc_curve``, ``precision_recall_curve``), the reliability bins
from a plain binning of the top-label confidence (15 equal-width bins, Guo et al. 2017), so that
the report side is tested against frames it did not make itself.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import average_precision_score, log_loss, precision_recall_curve, roc_auc_score, roc_curve

from evalreport.inputs import Runs

STUB_PLUGIN = Path(__file__).with_name("score_measures_stub.py")
SCORE_IDS = ("roc_auc", "average_precision", "brier", "log_loss", "ece")
NO_SCORES = "the run file has no score columns"


def scored_runs(seed: int, n_items: int, systems: Sequence[str], labels: Sequence[str]) -> tuple[Runs, np.ndarray]:
    """Runs whose predictions are the argmax of per-class probabilities, and those (S, N, K)
    probabilities: system s separates the gold class by a margin that falls with s, and its
    probabilities are sharpened or flattened by a temperature (some over-, some under-confident)."""
    rng = np.random.default_rng(seed)
    S, K = len(systems), len(labels)
    gold = rng.choice(K, n_items, p=np.linspace(2, 1, K) / np.linspace(2, 1, K).sum())
    margin = np.linspace(2.5, 0.6, S)[:, None, None]
    temperature = np.resize([1.0, 0.5, 2.0, 0.8, 1.4], S)[:, None, None]
    logits = margin * np.eye(K)[gold][None] + rng.normal(size=(S, n_items, K))
    z = logits / temperature
    probs = np.exp(z - z.max(axis=-1, keepdims=True))
    probs /= probs.sum(axis=-1, keepdims=True)
    runs = Runs(gold=gold, pred=probs.argmax(axis=-1), labels=tuple(labels), systems=tuple(systems))
    return runs, probs


def reliability_bins(y: np.ndarray, p: np.ndarray, bins: int = 15) -> pd.DataFrame:
    """bin, lo, hi, confidence, accuracy, count of the top-label confidence in equal-width bins."""
    confidence, right = p.max(axis=-1), (p.argmax(axis=-1) == y)
    b = np.minimum((confidence * bins).astype(int), bins - 1)
    rows = []
    for k in range(bins):
        m = b == k
        rows.append({"bin": k, "lo": k / bins, "hi": (k + 1) / bins, "count": int(m.sum()),
                     "confidence": float(confidence[m].mean()) if m.any() else np.nan,
                     "accuracy": float(right[m].mean()) if m.any() else np.nan})
    return pd.DataFrame(rows)


def score_frames(runs: Runs, probs: np.ndarray, *, without: Sequence[str] = ()) -> dict[str, pd.DataFrame]:
    """The three curve frames and the score-measure rows of scores.csv; the systems in ``without``
    have no scores (no curves, every measure NaN with a reason)."""
    K, y = len(runs.labels), runs.gold
    classes = [K - 1] if K == 2 else list(range(K))        # binary: the positive class (the second)
    roc, pr, rel, rows = [], [], [], []
    for s, name in enumerate(runs.systems):
        if name in without:
            rows += [{"system": name, "measure": m, "value": np.nan, "calibrated": False, "undefined": True,
                      "reason": NO_SCORES} for m in SCORE_IDS]
            continue
        p = probs[s]
        for k in classes:
            fpr, tpr, t = roc_curve(y == k, p[:, k])
            roc.append(pd.DataFrame({"system": name, "class": runs.labels[k], "fpr": fpr, "tpr": tpr, "threshold": t}))
            precision, recall, t = precision_recall_curve(y == k, p[:, k])
            pr.append(pd.DataFrame({"system": name, "class": runs.labels[k], "recall": recall,
                                    "precision": precision, "threshold": np.append(t, np.nan)}))
        bins = reliability_bins(y, p)
        rel.append(bins.assign(system=name))
        onehot = np.eye(K)[y]
        values = {
            "roc_auc": roc_auc_score(y, p[:, 1]) if K == 2 else roc_auc_score(y, p, multi_class="ovr"),
            "average_precision": (average_precision_score(y == 1, p[:, 1]) if K == 2
                                  else average_precision_score(onehot, p, average="macro")),
            "brier": (float(np.mean(((y == 1) - p[:, 1]) ** 2)) if K == 2
                      else float(((onehot - p) ** 2).sum(axis=1).mean())),
            "log_loss": log_loss(y, p, labels=list(range(K))),
            "ece": float((bins["count"] / len(y) * (bins["accuracy"] - bins["confidence"]).abs()).sum()),
        }
        rows += [{"system": name, "measure": m, "value": float(v), "calibrated": False, "undefined": False,
                  "reason": ""} for m, v in values.items()]
    return {"roc_curve": pd.concat(roc, ignore_index=True),
            "pr_curve": pd.concat(pr, ignore_index=True),
            "reliability": pd.concat(rel, ignore_index=True)[["system", "bin", "lo", "hi", "confidence", "accuracy",
                                                                "count"]],
            "score_rows": pd.DataFrame(rows)}


def add_score_tables(tables: Path, runs: Runs, probs: np.ndarray, *, without: Sequence[str] = ()) -> None:
    """Write the curve tables into ``tables`` (as report/write.py writes every table) and append the
    score-measure rows to its scores.csv/json."""
    from evalreport.report.sections._core import _read
    from evalreport.report.write import write_frames

    frames = score_frames(runs, probs, without=without)
    scores = _read(tables / "scores.csv")
    scores = pd.concat([scores, frames.pop("score_rows")[list(scores.columns)]], ignore_index=True)
    write_frames(tables, {**frames, "scores": scores})


def write_scored_tables(tables: Path, *, seed: int, n_items: int, systems: Sequence[str], labels: Sequence[str],
                        without: Sequence[str] = (), bootstrap: int = 40) -> Path:
    """A whole tables folder: the analyses of :func:`scored_runs`' runs, then the score tables."""
    from evalreport.report.build import analyse

    runs, probs = scored_runs(seed, n_items, systems, labels)
    analyse(runs, tables, bootstrap=bootstrap, seed=seed, audit=False)
    add_score_tables(tables, runs, probs, without=without)
    return tables

"""Comparisons the leaderboard page's tests share: the README's stance example and synthetic runs."""
from __future__ import annotations

from pathlib import Path

import numpy as np

import evalreport
from evalreport.inputs.runs import Runs

ROOT = Path(__file__).resolve().parent.parent
STANCE = ROOT / "examples" / "stance"

#: 30 measures of single labels (the comparison's defaults and more), for the page-size checks.
THIRTY = ("macro_f1", "accuracy", "macro_recall", "macro_precision", "macro_f1_hm", "weighted_f1", "gmean_recall",
          "hmean_recall", "kappa", "mcc", "mcc_macro", "sba", "gm1_macro", "jaccard_macro", "k",
          "confusion_entropy", "precision_weighted", "recall_weighted", "specificity_macro", "npv_macro",
          "fbeta_macro", "jaccard_weighted", "informedness_macro", "markedness_macro", "mcc_weighted",
          "kappa_macro", "dor_macro", "gm_macro", "fallout_macro", "fdr_macro")


def stance_runs() -> Runs:
    """The stance example of the README's tour (four systems; svm leads under MCC, bert under macro F1)."""
    return evalreport.read_runs(STANCE / "gold.tsv", runs_dir=STANCE / "runs")


def synthetic_runs(n_systems: int, *, n_items: int = 400, n_classes: int = 4, seed: int = 0,
                   names: list[str] | None = None) -> Runs:
    """Runs of ``n_systems`` systems of increasing skill on imbalanced classes (seeded)."""
    rng = np.random.default_rng(seed)
    p = np.linspace(2.0, 1.0, n_classes)
    gold = rng.choice(n_classes, size=n_items, p=p / p.sum())
    pred = np.empty((n_systems, n_items), dtype=np.int64)
    for s in range(n_systems):
        right = rng.random(n_items) < 0.45 + 0.5 * s / max(n_systems - 1, 1)
        pred[s] = np.where(right, gold, rng.integers(0, n_classes, n_items))
    labels = tuple(f"class {k}" for k in range(n_classes))
    systems = tuple(names) if names is not None else tuple(f"system {s:02d}" for s in range(n_systems))
    return Runs(gold=gold, pred=pred, labels=labels, systems=systems, ids=np.array([str(i) for i in range(n_items)]))


def thirty_measure_comparison(n_systems: int, *, bootstrap: int = 200, names: list[str] | None = None):
    """A comparison of ``n_systems`` synthetic systems under :data:`THIRTY` measures."""
    runs = synthetic_runs(n_systems, names=names)
    return runs, evalreport.compare(runs, evalreport.Settings(bootstrap=bootstrap, seed=1, primary="macro_f1",
                                                                measures=THIRTY[1:], progress=False))


def label_set_runs(n_systems: int = 3, *, n_items: int = 300, names: list[str] | None = None,
                   labels: tuple[str, ...] = ("joy", "trust", "fear", "anger", "<b>x</b>"), seed: int = 0):
    """Label sets (multi-label) of ``n_systems`` systems of decreasing skill: each keeps an item's gold label
    with probability 0.85, 0.75, ... and otherwise guesses it (seeded)."""
    from evalreport.inputs.multilabel import MultiLabelRuns

    rng = np.random.default_rng(seed)
    gold = rng.random((n_items, len(labels))) < np.linspace(0.45, 0.15, len(labels))
    pred = np.empty((n_systems, n_items, len(labels)), dtype=bool)
    for s in range(n_systems):
        keep = rng.random(gold.shape) < 0.85 - 0.1 * s
        pred[s] = np.where(keep, gold, rng.random(gold.shape) < 0.3)
    systems = tuple(names) if names is not None else tuple(f"system {s:02d}" for s in range(n_systems))
    return MultiLabelRuns(gold=gold, pred=pred, labels=tuple(labels), systems=systems,
                          ids=np.array([f"i{i}" for i in range(n_items)]))


def write_label_sets(runs, folder: Path) -> tuple[Path, Path]:
    """``runs`` as JSON Lines files (``gold.jsonl`` and ``runs/<system>.jsonl``): the gold file and the runs folder."""
    import json

    folder.mkdir(parents=True, exist_ok=True)
    labels = np.asarray(runs.labels, dtype=object)

    def write(path: Path, sets: np.ndarray) -> None:
        path.write_text("".join(json.dumps({"id": str(i), "label": list(labels[row])}) + "\n"
                                for i, row in zip(runs.ids, sets)), encoding="utf-8")

    write(folder / "gold.jsonl", runs.gold)
    (folder / "runs").mkdir(exist_ok=True)
    for s, name in enumerate(runs.systems):
        write(folder / "runs" / f"{name}.jsonl", runs.pred[s])
    return folder / "gold.jsonl", folder / "runs"

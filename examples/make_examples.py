"""Write the example files of the README's tour (they are committed; this script shows how they were made).

A made-up stance-detection task in the style of SemEval-2016 Task 6: 300 items (tweets), gold class
AGAINST, NONE or FAVOR, and four systems:

* ``majority``: predicts AGAINST, the largest class, for every item (a baseline);
* ``lexicon``: a word-list system, weak everywhere;
* ``svm``: strong on AGAINST and NONE, but it finds fewer than half of the FAVOR items;
* ``bert``: a little less accurate than ``svm`` overall, much better on FAVOR.

So accuracy ranks ``svm`` first and the task's official measure, the mean F1 of FAVOR and AGAINST,
ranks ``bert`` first; the majority baseline's MCC is 0/0. Every number comes from one seeded
generator, so running ``python examples/make_examples.py`` writes the same bytes again.

Files written (paths relative to this folder):

    stance/gold.tsv                      id, label
    stance/runs/<system>.tsv             id, label
    codabench/input/ref/gold.tsv         the gold file again, where the scoring program reads it
    codabench/input/res/predictions.tsv  one submission: bert's run
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
CLASSES = ("FAVOR", "AGAINST", "NONE")
GOLD_SIZES = {"FAVOR": 70, "AGAINST": 140, "NONE": 90}

#: P(predicted class | gold class), rows in CLASSES order (FAVOR, AGAINST, NONE).
SYSTEMS = {
    "bert": [[0.74, 0.14, 0.12],
             [0.08, 0.80, 0.12],
             [0.10, 0.16, 0.74]],
    "svm": [[0.40, 0.36, 0.24],
            [0.02, 0.92, 0.06],
            [0.03, 0.09, 0.88]],
    "lexicon": [[0.50, 0.25, 0.25],
                [0.20, 0.60, 0.20],
                [0.25, 0.25, 0.50]],
    "majority": [[0.0, 1.0, 0.0],
                 [0.0, 1.0, 0.0],
                 [0.0, 1.0, 0.0]],
}


def _write(path: Path, ids, labels) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ["id\tlabel", *(f"{i}\t{label}" for i, label in zip(ids, labels))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def make(root: Path = HERE, seed: int = 2016) -> None:
    rng = np.random.default_rng(seed)
    gold = np.concatenate([np.full(size, CLASSES.index(name)) for name, size in GOLD_SIZES.items()])
    rng.shuffle(gold)
    ids = [f"t{k:04d}" for k in range(1, len(gold) + 1)]
    names = np.asarray(CLASSES)
    _write(root / "stance" / "gold.tsv", ids, names[gold])
    _write(root / "codabench" / "input" / "ref" / "gold.tsv", ids, names[gold])
    for system, table in SYSTEMS.items():
        table = np.asarray(table)
        predicted = np.array([rng.choice(len(CLASSES), p=table[g]) for g in gold])
        _write(root / "stance" / "runs" / f"{system}.tsv", ids, names[predicted])
        if system == "bert":
            _write(root / "codabench" / "input" / "res" / "predictions.tsv", ids, names[predicted])


if __name__ == "__main__":
    make()

"""Per-slice keys of the Codabench scorer's scores.json made from untrusted slice names: ASCII ``[a-z0-9_]``,
at most 36 characters (a Codabench leaderboard column's key: ``Column.key``, ``max_length=36`` in
codalab/codabench src/apps/leaderboards/models.py), stable and distinct (evalreport.report.codabench_slices)."""
from __future__ import annotations

import hashlib
import io
import json
import re
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import f1_score

from evalreport.cli import main

LONG = "A very long domain name, as a data file may hold it: " + "blogs and forums " * 20
DOMAINS = [LONG, LONG + "!", "News & Blogs", "新闻", "博客", "tweets"]


def _scores(tmp_path, domains: list[str], name: str) -> tuple[dict, pd.DataFrame, np.ndarray]:
    """scores.json of one submission scored by `evalreport codabench --slice-col domain`."""
    rng = np.random.default_rng(7)
    n = 600
    gold = rng.choice(["pos", "neg", "neu"], n)
    pred = np.where(rng.random(n) < 0.7, gold, rng.choice(["pos", "neg", "neu"], n))
    domain = np.asarray(domains, dtype=object)[rng.integers(0, len(domains), n)]
    ids = [f"i{i}" for i in range(n)]
    root = tmp_path / name
    (root / "in" / "ref").mkdir(parents=True)
    (root / "in" / "res").mkdir()
    frame = pd.DataFrame({"id": ids, "label": gold, "domain": domain})
    frame.to_csv(root / "in" / "ref" / "gold.tsv", sep="\t", index=False)
    pd.DataFrame({"id": ids, "label": pred}).to_csv(root / "in" / "res" / "pred.tsv", sep="\t", index=False)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = main(["codabench", str(root / "in"), str(root / "out"), "--slice-col", "domain", "--measures",
                   "accuracy", "--bootstrap", "0"])
    assert rc == 0, err.getvalue()
    return json.loads((root / "out" / "scores.json").read_text(encoding="utf-8")), frame, pred


def _documented(full: str) -> str:
    """The documented rule, written out: a key over 36 characters keeps 28, then '__' and 6 hex of its SHA-256."""
    if len(full) <= 36:
        return full
    return full[:28].rstrip("_") + "__" + hashlib.sha256(full.encode()).hexdigest()[:6]


def test_slice_keys_are_ascii_capped_stable_and_distinct(tmp_path):
    scores, frame, pred = _scores(tmp_path, DOMAINS, "all")
    slice_keys = [k for k in scores if "__" in k]
    assert len(slice_keys) == 2 * len(DOMAINS)                      # macro_f1 and accuracy on every slice
    assert all(re.fullmatch(r"[a-z0-9_]{1,36}", k) for k in scores), [k for k in scores if len(k) > 36]
    long_part = re.sub(r"[^a-z0-9]+", "_", LONG.lower()).strip("_")
    first, second = (_documented(f"macro_f1__{long_part}"), _documented(f"macro_f1__{long_part}_2"))
    assert first in scores and second in scores and first != second
    assert {"macro_f1__news_blogs", "macro_f1__slice", "macro_f1__slice_2", "macro_f1__tweets"} <= set(scores)
    m = (frame["domain"] == LONG).to_numpy()
    assert scores[first] == pytest.approx(f1_score(frame["label"][m], pred[m], average="macro"), abs=1e-12)
    # stable: the same name gives the same key whatever the other slices are
    again, _, _ = _scores(tmp_path, [LONG, "tweets"], "two")
    assert first in again


def test_a_long_measure_key_and_its_bounds_fit_36_characters():
    """A class-subset measure over many classes has a long id: its key, ``KEY_lo`` and ``KEY_hi`` fit a Codabench
    column key (36), stay ASCII and distinct, and a short key is left as it is."""
    from evalreport.report.codabench import leaderboard_key

    classes = [f"class_{k}" for k in range(12)]
    first = leaderboard_key(f"macro_f1(classes={'|'.join(classes)})")
    second = leaderboard_key(f"macro_f1(classes={'|'.join(classes[:-1])})")
    for key in (first, second):
        assert len(key) <= 33 and len(f"{key}_lo") <= 36 and re.fullmatch(r"[a-z0-9_]+", key)
        assert key.startswith("macro_f1_classes_class")
    assert first != second
    whole = "macro_f1_classes_" + "_".join(classes)
    assert first.endswith("__" + hashlib.sha256(whole.encode("ascii")).hexdigest()[:6])
    assert leaderboard_key("macro_f1(classes=AGAINST|FAVOR)") == "macro_f1_classes_against_favor"

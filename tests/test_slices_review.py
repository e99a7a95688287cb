"""Slices as a shared task's organiser uses them: ``--slice-bins N`` beside a text slice column, and the
Codabench per-slice keys in the slices' own order."""
from __future__ import annotations

import numpy as np
import pytest

import evalreport
from evalreport.errors import InputError


def _files(tmp_path, n: int = 120):
    """A gold file with a text (domain) and a numeric (length) slice column and two runs."""
    rng = np.random.default_rng(7)
    gold = rng.choice(["x", "y"], n)
    domain = rng.choice(["web", "news", "blogs"], n)
    length = rng.integers(1, 500, n)
    lines = ["id\tlabel\tdomain\tlength"] + [f"i{i}\t{g}\t{d}\t{k}" for i, (g, d, k) in
                                               enumerate(zip(gold, domain, length))]
    (tmp_path / "gold.tsv").write_text("\n".join(lines) + "\n")
    runs = tmp_path / "runs"
    runs.mkdir()
    for s in ("a", "b"):
        pred = np.where(rng.random(n) < 0.8, gold, rng.choice(["x", "y"], n))
        (runs / f"{s}.tsv").write_text("id\tlabel\n" + "".join(f"i{i}\t{p}\n" for i, p in enumerate(pred)))
    return tmp_path / "gold.tsv", runs, domain, length


def test_slice_bins_cuts_the_numeric_column_and_keeps_the_text_column(tmp_path):
    gold, runs, domain, length = _files(tmp_path)
    got = evalreport.read_runs(str(gold), runs_dir=str(runs), slice_cols=("domain", "length"), slice_bins=3)
    assert got.slice_names["domain"] == ("blogs", "news", "web")
    assert len(got.slice_names["length"]) == 3
    assert list(got.slices["domain"]) == list(domain)


def test_slice_bins_with_only_text_columns_is_still_refused(tmp_path):
    gold, runs, *_ = _files(tmp_path)
    with pytest.raises(InputError, match="not numeric"):
        evalreport.read_runs(str(gold), runs_dir=str(runs), slice_cols=("domain",), slice_bins=3)

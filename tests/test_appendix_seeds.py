"""The paper appendix with several runs per system (training seeds): the captions and the methods paragraph
name the design the comparison used (the two-level bootstrap, runs then items, or runs then clusters with
--cluster-col; the paired bootstrap with one run), and the seed-spread and Almost Stochastic Order tables
(Dror et al. 2019) hold the values of seed_spread.csv and aso.csv, escaped for LaTeX and Typst, for the
first 40 systems of the leaderboard."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import write_labels, write_rows

from evalreport.cli import main
from evalreport.report.appendix import latex, typst, write_appendix
from evalreport.report.appendix.writer import AppendixData

LABELS = ("pos", "neg", "mid")
SYSTEMS = ("BERT-base", "svm&tfidf", "#rule$", "CNN_small")


def _seed_task(root: Path, systems, runs: int, *, docs: int = 0, n_items: int = 150, seed: int = 0):
    """gold.tsv (with a ``doc`` column when ``docs``) and runs/<system>/seed<k>.tsv, skills apart."""
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, len(LABELS), n_items)
    ids = [f"i{k}" for k in range(n_items)]
    root.mkdir(parents=True, exist_ok=True)
    if docs:
        write_rows(root / "gold.tsv", [(i, LABELS[g], f"d{k % docs}") for k, (i, g) in enumerate(zip(ids, gold))],
                   header=("id", "label", "doc"))
    else:
        write_labels(root / "gold.tsv", [LABELS[g] for g in gold], ids)
    for s, system in enumerate(systems):
        (root / "runs" / system).mkdir(parents=True)
        for k in range(runs):
            skill = 0.5 + 0.12 * s + 0.04 * rng.normal()
            pred = np.where(rng.random(n_items) < skill, gold, rng.integers(0, len(LABELS), n_items))
            write_labels(root / "runs" / system / f"seed{k + 1}.tsv", [LABELS[c] for c in pred], ids)
    return root / "gold.tsv", root / "runs"


def _bundle(root: Path, *extra: str, runs: int = 3, docs: int = 0) -> Path:
    gold, runs_dir = _seed_task(root / "in", SYSTEMS, runs, docs=docs)
    if runs > 1:
        args = ["--runs-dir", str(runs_dir)]
    else:
        files = [str(next((runs_dir / s).glob("*.tsv"))) for s in SYSTEMS]
        args = [*files, "--names", ",".join(SYSTEMS)]
    assert main(["compare", str(gold), *args, *extra, "--bootstrap", "100", "--seed", "1", "--primary", "macro_f1",
                 "--out", str(root / "tables"), "--quiet"]) == 0
    write_appendix(root / "tables", root / "out", figures=False)
    return root


@pytest.fixture(scope="module")
def seeds(tmp_path_factory):
    return _bundle(tmp_path_factory.mktemp("appseeds"))


@pytest.fixture(scope="module")
def seed_clusters(tmp_path_factory):
    return _bundle(tmp_path_factory.mktemp("appseedclu"), "--cluster-col", "doc", docs=25)


@pytest.fixture(scope="module")
def one_run(tmp_path_factory):
    return _bundle(tmp_path_factory.mktemp("apponerun"), runs=1)


def _captions(root: Path) -> dict[str, str]:
    from evalreport.report.appendix.tables import build_all

    data = AppendixData(root / "tables")
    return {s.name: s.caption for s in build_all(data) if isinstance(s.caption, str)}


def _methods(root: Path) -> str:
    return (root / "out" / "methods.md").read_text(encoding="utf-8")


# ----------------------------------------------------------------------------- the design named
@pytest.mark.parametrize("fixture, design", [("seeds", "two-level bootstrap (runs, then items)"),
                                             ("seed_clusters", "two-level bootstrap (runs, then clusters)")])
def test_captions_and_methods_name_the_two_level_design(fixture, design, request):
    root = request.getfixturevalue(fixture)
    caps = _captions(root)
    for name in ("leaderboard-column", "leaderboard-page"):
        assert f"95% {design} percentile interval" in caps[name], caps[name]
        assert f"not separated by the {design} test" in caps[name]
        assert "paired bootstrap" not in caps[name]
    assert design in caps["seed-spread"]
    text = _methods(root)
    assert f"two-sided {design} test of the difference" in text
    assert f"100 {design} replicates" in text
    assert f"not separated by the {design} test" in text
    assert "paired bootstrap test" not in text and "paired bootstrap replicates" not in text
    # the rendered files say it too (LaTeX breaks "two-level" as "two-{}level")
    tex = (root / "out" / "tables" / "leaderboard-page.tex").read_text(encoding="utf-8")
    assert "two-{}level bootstrap (runs,{} then" in tex and "paired bootstrap" not in tex
    typ = (root / "out" / "tables" / "leaderboard-column.typ").read_text(encoding="utf-8")
    assert design in typ and "paired bootstrap" not in typ


def test_one_run_per_system_keeps_the_paired_bootstrap_and_has_no_seed_tables(one_run):
    caps = _captions(one_run)
    assert "95% paired bootstrap percentile interval" in caps["leaderboard-page"]
    assert "not separated by the paired bootstrap test" in caps["leaderboard-page"]
    assert "two-level" not in _methods(one_run) and "two-level" not in caps["leaderboard-page"]
    assert not (one_run / "out" / "tables" / "seed-spread.tex").exists()
    assert not (one_run / "out" / "tables" / "aso.tex").exists()


# ----------------------------------------------------------------------------- the tables' values
def _latex_rows(tex: str) -> list[list[str]]:
    """The body rows of a booktabs table, cells stripped of \\textbf."""
    body = tex.split("\\midrule\n", 1)[1].split("\n\\bottomrule", 1)[0]
    return [[re.sub(r"\\textbf\{(.*)\}", r"\1", c.strip()) for c in line.rstrip(" \\").split(" & ")]
            for line in body.splitlines()]


def _same(cell: str, value: float) -> bool:
    """``cell`` is ``value`` rounded to the cell's decimals."""
    digits = len(cell.split(".")[1]) if "." in cell else 0
    return float(cell) == pytest.approx(round(float(value), digits), abs=1e-12)


def _board(root: Path) -> list[str]:
    board = pd.read_csv(root / "tables" / "leaderboard.csv", keep_default_na=False)
    return list(board.sort_values("rank", kind="stable")["system"].astype(str))


def test_seed_spread_table_equals_the_csv(seeds):
    spread = pd.read_csv(seeds / "tables" / "seed_spread.csv", keep_default_na=False)
    spread = spread[spread["measure"] == "macro_f1"].set_index("system")
    tex = (seeds / "out" / "tables" / "seed-spread.tex").read_text(encoding="utf-8")
    rows = _latex_rows(tex)
    board = _board(seeds)
    assert [r[0] for r in rows] == [latex.breakable(s, width_in=0.82) for s in board]   # escaped: \&, \#, \$
    assert r"svm\&tfidf" in tex and r"\#rule\$" in tex
    for system, row in zip(board, rows):
        want = spread.loc[system]
        assert row[1] == str(int(want["n_runs"])) == "3"
        for cell, key in zip(row[2:], ("value", "seed_sd", "item_se", "se")):
            assert _same(cell, want[key]), (system, key, cell, want[key])
        assert all(len(c.split(".")[1]) == 3 for c in row[3:])        # SD and SE to 3 decimals
    typ = (seeds / "out" / "tables" / "seed-spread.typ").read_text(encoding="utf-8")
    for row in rows:
        assert all(f'"{c}"' in typ for c in row[1:])
    assert '"svm&tfidf"' in typ and '"#rule$"' in typ                 # string literals: printed, never run
    assert "% seed-spread: 2.9" in tex or "% seed-spread: 3.00" in tex      # ACL's 3.03 in column holds it


def test_aso_matrix_equals_the_csv(seeds):
    aso = pd.read_csv(seeds / "tables" / "aso.csv", keep_default_na=False)
    aso = aso[aso["measure"] == "macro_f1"]
    eps = {(a, b): v for a, b, v in zip(aso["system_a"], aso["system_b"], aso["eps_min"])}
    tex = (seeds / "out" / "tables" / "aso.tex").read_text(encoding="utf-8")
    rows = _latex_rows(tex)
    board = _board(seeds)
    assert len(rows) == len(board) == 4 and r"\begin{table}" in tex          # 4 systems fit one column
    for i, (a, row) in enumerate(zip(board, rows)):
        assert row[0] == f"{i + 1}. {latex.breakable(a, width_in=1.0)}"
        for b, cell in zip(board, row[1:]):
            if a == b:
                assert cell == "---"
                continue
            assert _same(cell, eps[(a, b)]), (a, b, cell)
    bold = re.findall(r"\\textbf\{([\d.]+)\}", tex.split("\\midrule", 1)[1])
    assert len(bold) == int((aso["eps_min"].round(2) < 0.5).sum()) and all(float(v) < 0.5 for v in bold)
    assert "0.00833" in tex                  # alpha 0.05 Bonferroni-corrected over the 6 pairs


def test_methods_paragraph_cites_aso_and_the_tables_exist_in_both_targets(seeds):
    assert "Almost Stochastic Order" in _methods(seeds)
    tex = (seeds / "out" / "appendix.tex").read_text(encoding="utf-8")
    typ = (seeds / "out" / "appendix.typ").read_text(encoding="utf-8")
    for name in ("seed-spread", "aso"):
        assert rf"\input{{\evalreportdir tables/{name}}}" in tex
        assert f'#include "tables/{name}.typ"' in typ


# ----------------------------------------------------------------------------- many systems (a model of the tables)
class _Frames:
    """The tables a report writes, as the appendix reads them, from frames."""

    def __init__(self, frames: dict, settings: dict):
        self.frames, self.primary = frames, "macro_f1"
        self.manifest = {"settings": settings}
        self.settings = {"alpha": 0.05, "pairwise_test": "bootstrap", **settings}

    def table(self, name: str) -> pd.DataFrame:
        return self.frames.get(name, pd.DataFrame())


def _many(n: int) -> tuple[_Frames, list[str]]:
    rng = np.random.default_rng(3)
    names = [(f"Team & Co. #{i} $draft$ " if i % 3 == 0 else f"team{i:02d}_") + "averyverylongsystemname_" * 3
             for i in range(n)]
    names = [s[:50] for s in names]
    values = np.sort(rng.uniform(0.5, 0.9, n))[::-1]
    board = pd.DataFrame({"system": names, "rank": np.arange(1, n + 1), "value": values, "lo": values - 0.03,
                          "hi": values + 0.03})
    spread = pd.DataFrame({"system": names, "measure": "macro_f1", "n_runs": 3, "value": values,
                           "seed_sd": rng.uniform(0, 0.05, n), "item_se": rng.uniform(0.01, 0.04, n),
                           "se": rng.uniform(0.01, 0.04, n)})
    pairs = [(a, b) for a in names for b in names if a != b]
    aso = pd.DataFrame({"system_a": [a for a, _ in pairs], "system_b": [b for _, b in pairs], "measure": "macro_f1",
                        "eps_min": rng.uniform(0, 1, len(pairs)), "alpha": 0.05 / (n * (n - 1) / 2)})
    frames = {"leaderboard": board, "seed_spread": spread.iloc[::-1], "aso": aso}
    return _Frames(frames, {"runs_per_system": {s: 3 for s in names}}), names


def test_many_systems_show_the_first_40_and_name_the_csv():
    from evalreport.report.appendix.seed_tables import aso_tables, seed_spread_table

    data, names = _many(45)
    (spread,) = seed_spread_table(data)
    assert [r[0].text for r in spread.rows] == names[:40]                # leaderboard order, not the CSV's
    assert "the first 40 systems of the leaderboard's 45" in spread.caption and "seed_spread.csv" in spread.caption
    (aso,) = aso_tables(data)
    eps = data.table("aso").set_index(["system_a", "system_b"])["eps_min"]
    assert len(aso.rows) == 39 and len(aso.columns) == 4 and aso.width == "column"
    for i, row in enumerate(aso.rows):
        a, b = names[i], names[i + 1]
        assert row[0].text == str(i + 1) and row[1].text == a
        assert row[2].text == f"{eps[(a, b)]:.2f}" and row[3].text == f"{eps[(b, a)]:.2f}"
        assert row[2].bold == (eps[(a, b)] < 0.5)
    assert "the first 40 systems of the leaderboard's 45" in aso.caption and "aso.csv" in aso.caption
    assert "990 pairs" in aso.caption
    for spec in (spread, aso):
        assert spec.total_width() <= 3.0      # ACL's 3.03 in column
        tex, typ = latex.table(spec), typst.table(spec)
        assert r"Team \& Co. \#0 \$draft\$" in tex and "Team & Co." not in tex
        assert '"Team & Co. #0 $draft$ ' in typ


def test_a_few_systems_get_a_page_matrix_beyond_a_column():
    from evalreport.report.appendix.seed_tables import aso_tables
    from evalreport.report.appendix.tables import systems_per_table

    for n, width in ((4, "column"), (6, "page"), (systems_per_table(), "page")):
        data, names = _many(n)
        spec, *narrower = aso_tables(data)
        assert spec.width == width and len(spec.rows) == n and len(spec.columns) == n + 1, n
        assert spec.total_width() <= (3.0 if width == "column" else 6.9)
        assert [row[k + 1].text for k, row in enumerate(spec.rows)] == ["\u2014"] * n
        # a page matrix comes with narrower forms for a one-column paper's text (4.8 in) and a column
        assert [(s.family, s.form) for s in [spec, *narrower]] == (
            [("", "")] if width == "column" else [("aso", "page"), ("aso", "text"), ("aso", "column")])
        if narrower:
            assert narrower[0].total_width() <= 345 / 72.27 and narrower[1].total_width() <= 3.0
            assert [r[1:] for r in narrower[0].rows] == [r[1:] for r in spec.rows]     # the same matrix
    data, _ = _many(systems_per_table() + 1)
    assert len(aso_tables(data)[0].columns) == 4                           # beyond a page: next-system pairs

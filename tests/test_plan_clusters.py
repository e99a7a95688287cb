"""``plan`` on clustered pilots (``--cluster-col``): clusters needed by resampling whole clusters, the
paired-proportions size inflated by the design effect (Donner & Klar 2000), simulated power, and why
planning items as if they were independent asks for too few."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from evalreport.analyses.plan import anova_icc, cluster_design_effect, plan
from evalreport.cli import main
from evalreport.inputs.runs import Runs

P = np.array([0.80, 0.76])     # the two systems' mean accuracy over documents
SD = 0.12                      # the spread of a system's accuracy between documents
M = 10                         # items per document


def _clustered(C: int, seed: int, m: int = M, sd: float = SD) -> Runs:
    """C documents of m items; each system's chance of being right varies by document."""
    rng = np.random.default_rng(seed)
    cl = np.repeat(np.arange(C), m)
    pk = np.clip(P[:, None] + sd * rng.standard_normal((2, C)), 0.01, 0.99)
    gold = rng.integers(0, 2, C * m)
    right = rng.random((2, C * m)) < pk[:, cl]
    return Runs(gold=gold, pred=np.where(right, gold, 1 - gold), labels=("0", "1"), systems=("a", "b"),
                clusters=cl, cluster_names=tuple(f"doc{k}" for k in range(C)), cluster_col="doc")


def _flat(runs: Runs) -> Runs:
    """The same items without their clusters."""
    return Runs(gold=runs.gold, pred=runs.pred, labels=runs.labels, systems=runs.systems)


def _true_difference() -> float:
    """The population's difference of accuracies (the clipped normal skills, by quadrature)."""
    z = norm.ppf((np.arange(100_000) + 0.5) / 100_000)
    a, b = (float(np.clip(p + SD * z, 0.01, 0.99).mean()) for p in P)
    return a - b


def test_anova_icc_hand_worked():
    # Donner & Klar (2000), section 5.2, one-way ANOVA estimator. Two clusters of two items, values
    # (1, 1) and (0, 0): MSW = 0, so ICC = 1. Clusters (1, 0), (1, 0): MSB = 0, MSW = 0.5, m0 = 2:
    # ICC = (0 - 0.5) / (0 + 1 * 0.5) = -1.
    assert anova_icc(np.array([1, 1, 0, 0.]), np.array([0, 0, 1, 1])) == pytest.approx(1.0)
    assert anova_icc(np.array([1, 0, 1, 0.]), np.array([0, 0, 1, 1])) == pytest.approx(-1.0)
    # three clusters of 3: means 2, 4, 6 (grand 4), each with within deviations -1, 0, 1:
    # MSB = 3 * (4 + 0 + 4) / 2 = 12, MSW = 3 * 2 / 6 = 1, ICC = (12 - 1) / (12 + 2 * 1) = 11/14
    y = np.array([1, 2, 3, 3, 4, 5, 5, 6, 7.])
    c = np.repeat([0, 1, 2], 3)
    assert anova_icc(y, c) == pytest.approx(11 / 14)
    icc, deff = cluster_design_effect(y, c)
    assert deff == pytest.approx(1 + 2 * 11 / 14)              # 1 + (m - 1) ICC, m = 3
    # clusters of one item: no inflation
    assert cluster_design_effect(y, np.arange(9)) == (0.0, 1.0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_clusters_agree_with_the_design_effect_formula(seed):
    """The resampled clusters needed agree with the paired Wald size times the design effect
    1 + (m - 1) ICC, divided by m (Donner & Klar 2000), within 5 % on seeded pilots of 200 x 10 items."""
    pilot = _clustered(200, seed)
    got = plan(pilot, "accuracy", 0.03, systems=("a", "b"), resamples=4000, seed=1)
    cf = got.closed_form
    assert got.cluster_col == "doc" and got.n_clusters_pilot == 200 and got.mean_cluster_size == 10
    assert got.clusters_needed == pytest.approx(cf["wald_clusters"], rel=0.05)
    assert got.clusters_needed == pytest.approx(cf["connor_clusters"], rel=0.07)
    assert got.n_needed == math.ceil(got.clusters_needed * 10)
    assert cf["wald"] == pytest.approx(cf["wald_clusters"] * 10)
    assert cf["design_effect"] > 1.2                     # the documents matter on these pilots
    # the pilot's own size: se^2 = deff (psi - delta^2) / N
    psi, delta = cf["p10"] + cf["p01"], cf["p10"] - cf["p01"]
    assert got.se_pilot == pytest.approx(math.sqrt(cf["design_effect"] * (psi - delta ** 2) / 2000), rel=0.05)
    assert set(got.curve.columns) == {"clusters", "n", "se", "power"}
    table = got.table().set_index("quantity")["value"]
    assert table["clusters_needed"] == got.clusters_needed and table["pilot_clusters"] == 200


def test_ignoring_clusters_asks_for_too_few_items():
    """The point: on a clustered population, the size planned by resampling clusters reaches the target
    power (test sets of that many new documents, tested by the cluster-level paired Wald test, 400 seeded
    sets), while the size planned from the same pilot's items as if independent falls far short."""
    D = _true_difference()
    pilot = _clustered(1000, seed=0)
    clustered = plan(pilot, "accuracy", D, systems=("a", "b"), resamples=4000, seed=0)
    flat = plan(_flat(pilot), "accuracy", D, systems=("a", "b"), resamples=4000, seed=0)
    assert flat.cluster_col is None and flat.clusters_needed == 0
    assert flat.n_needed < 0.75 * clustered.n_needed
    assert flat.detectable < 0.85 * clustered.detectable

    def power(n_clusters: int) -> float:
        rng = np.random.default_rng(9)
        rejected = 0
        for _ in range(400):
            pk = np.clip(P[:, None] + SD * rng.standard_normal((2, n_clusters)), 0.01, 0.99)
            right = rng.random((2, n_clusters, M)) < pk[:, :, None]
            dk = (right[0].astype(float) - right[1]).mean(axis=1)
            rejected += 2 * norm.sf(abs(dk.mean()) / (dk.std(ddof=1) / math.sqrt(n_clusters))) < 0.05
        return rejected / 400

    assert power(clustered.clusters_needed) == pytest.approx(0.8, abs=0.06)
    assert power(math.ceil(flat.n_needed / M)) < 0.68


def test_any_measure_with_clusters_and_seeded():
    pilot = _clustered(120, seed=4)
    one = plan(pilot, "macro_f1", 0.05, resamples=1000, seed=3)
    two = plan(pilot, "macro_f1", 0.05, resamples=1000, seed=3)
    assert one.clusters_needed == two.clusters_needed and one.detectable == two.detectable
    assert one.closed_form == {}
    assert plan(pilot, "macro_f1", 0.10, resamples=1000, seed=3).clusters_needed < one.clusters_needed / 3


def test_unequal_clusters():
    """Clusters of unequal size: the items are clusters times the mean size, and the design effect uses
    m = sum m_k^2 / N (Kish 1965)."""
    rng = np.random.default_rng(5)
    sizes = rng.integers(2, 19, 300)
    cl = np.repeat(np.arange(300), sizes)
    pk = np.clip(P[:, None] + SD * rng.standard_normal((2, 300)), 0.01, 0.99)
    gold = rng.integers(0, 2, cl.shape[0])
    right = rng.random((2, cl.shape[0])) < pk[:, cl]
    runs = Runs(gold=gold, pred=np.where(right, gold, 1 - gold), labels=("0", "1"), systems=("a", "b"),
                clusters=cl, cluster_names=tuple(map(str, range(300))), cluster_col="doc")
    got = plan(runs, "accuracy", 0.03, systems=("a", "b"), resamples=4000, seed=2)
    assert got.mean_cluster_size == pytest.approx(sizes.mean())
    assert got.n_needed == math.ceil(got.clusters_needed * sizes.mean())
    assert got.clusters_needed == pytest.approx(got.closed_form["wald_clusters"], rel=0.08)


def _write(tmp_path, C: int = 40) -> tuple[str, str]:
    runs = _clustered(C, seed=7, m=5)
    gold = tmp_path / "gold.tsv"
    gold.write_text("id\tlabel\tdoc\n" + "".join(f"i{k}\t{runs.gold[k]}\t{runs.cluster_names[runs.clusters[k]]}\n"
                                                 for k in range(runs.n_items)))
    d = tmp_path / "runs"
    d.mkdir()
    for s, name in enumerate(runs.systems):
        (d / f"{name}.tsv").write_text("id\tlabel\n" + "".join(f"i{k}\t{runs.pred[s, k]}\n"
                                                              for k in range(runs.n_items)))
    return str(gold), str(d)


def test_cli_clusters(tmp_path, capsys):
    gold, runs = _write(tmp_path)
    assert main(["plan", gold, "--runs-dir", runs, "--measure", "accuracy", "--difference", "0.05",
                 "--cluster-col", "doc", "--resamples", "500", "--format", "csv", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "clusters_needed," in out and "pilot_clusters,40" in out and "closed_form_wald_clusters," in out
    assert main(["plan", gold, "--runs-dir", runs, "--measure", "accuracy", "--difference", "0.05",
                 "--cluster-col", "doc", "--resamples", "500", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "clusters" in err and "(" in err
    assert main(["plan", gold, "--runs-dir", runs, "--measure", "accuracy", "--difference", "0.05",
                 "--cluster-col", "dialogue", "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no cluster column 'dialogue'" in err[0] and "gold.tsv" in err[0]
    # the same line as compare's
    assert main(["compare", gold, "--runs-dir", runs, "--cluster-col", "dialogue", "--quiet"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == err
    # the task file's key, and a pilot of few clusters is warned about in words
    task = tmp_path / "task.toml"
    task.write_text('cluster_col = "doc"\nprimary = "accuracy"\n')
    assert main(["plan", gold, "--runs-dir", runs, "--measure", "accuracy", "--difference", "0.05",
                 "--task-file", str(task), "--resamples", "200", "--format", "csv", "--quiet"]) == 0
    assert "pilot_clusters,40" in capsys.readouterr().out
    (tmp_path / "few").mkdir()
    few, runs_few = _write(tmp_path / "few", C=12)
    assert main(["plan", few, "--runs-dir", runs_few, "--measure", "accuracy", "--difference", "0.05",
                 "--cluster-col", "doc", "--resamples", "200", "--quiet"]) == 0
    assert "only 12 clusters" in capsys.readouterr().err


def test_report_detectable_uses_clusters(tmp_path):
    """Under the leaderboard of a clustered comparison the detectable difference comes from the cluster
    bootstrap and names the clusters; it is the one ``plan`` gives at the pilot's own clusters."""
    from evalreport.analyses.compare import compare
    from evalreport.analyses.rank_findings import detectable_pair, rank_findings
    from evalreport.report.appendix import write_appendix
    from evalreport.report.build import analyse
    from evalreport.report.sections import ReportData

    runs = _clustered(150, seed=3)
    comp = compare(runs, measures=("accuracy",), bootstrap=2000, seed=0)
    flat = compare(_flat(runs), measures=("accuracy",), bootstrap=2000, seed=0)
    found, found_flat = detectable_pair(comp), detectable_pair(flat)
    assert found["n_clusters"] == 150 and found["cluster_col"] == "doc" and "n_clusters" not in found_flat
    assert found["detectable"] > 1.15 * found_flat["detectable"]         # design effect > 1.3 here
    planned = plan(runs, "accuracy", 0.03, systems=(found["system_a"], found["system_b"]), seed=0)
    assert planned.detectable == pytest.approx(found["detectable"], rel=0.06)
    row = [r for r in rank_findings(comp, 0.05) if r["finding"] == "detectable"][0]
    assert "cluster bootstrap se" in row["detail"] and "150 clusters" in row["detail"]

    analyse(runs, tmp_path / "t", bootstrap=200, seed=0, audit=False)
    rep = ReportData(tmp_path / "t")
    note = rep.detectable_note().text
    assert "with 150 clusters, the paired cluster bootstrap test" in note and "gives the clusters needed" in note
    rep.meta["n_items"] = 1500                     # as the built report's report.json has it
    assert "with 150 clusters (1,500 items), the paired cluster bootstrap test" in rep.detectable_note().text
    write_appendix(tmp_path / "t", tmp_path / "out", figures=False)
    assert "paired cluster bootstrap standard error" in (tmp_path / "out" / "methods.tex").read_text(encoding="utf-8")

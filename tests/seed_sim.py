"""Seeded null simulations of several runs per system, shared by the tests of the two-level bootstrap
(tests/test_seeds_coverage.py) and run as a script to measure the table in docs/seeds.md.

Two models of test sets on which two systems are equally good, each system trained with R seeds:

- ``items``: 200 items; on the logit scale the chance that run r of system s answers item i is
  MU + d_i + u_sr, with an item difficulty d_i (sd ``SD_ITEM`` = 1.0) shared by every run of every system
  and a seed effect u_sr (sd ``sd_seed``). The design draws runs, then items.
- ``clusters``: 40 documents of 8 items (the model of tests/test_seed_clusters_simulation.py): document
  difficulty (sd 0.8), a system's own document effect (sd 0.7), a seed effect (sd ``sd_seed``) and a
  run-by-document effect (sd 0.3). The design draws runs, then whole documents.

Claims checked: the paired two-level bootstrap test rejects at about alpha, and the 95 % interval of a
system's mean accuracy over its runs covers the population accuracy (over items and seeds) in about 95 % of
the test sets. With ``shift`` the second system's logits are raised by that much (a true difference: the
rejection rate is then the test's power; the first system, whose interval is checked, is unchanged).
"""
from __future__ import annotations

import sys

import numpy as np
from scipy.special import expit

from evalreport.analyses.engine import pairwise_tests
from evalreport.analyses.resampling import ConfusionDesign
from evalreport.analyses.seeds import SeedsDesign
from evalreport.inputs.runs import Runs
from evalreport.measures import get

ACC = get("accuracy")
MU, SD_ITEM, N_ITEMS = 0.5, 1.0, 200
DOCS, PER_DOC, MU_DOC, SD_DOC, SD_SYSTEM_DOC, SD_RUN_DOC = 40, 8, 1.0, 0.8, 0.7, 0.3


def population_accuracy(mu: float, sd: float) -> float:
    """E[expit(mu + sd Z)], Z standard normal (Gauss-Hermite quadrature, 80 nodes)."""
    x, w = np.polynomial.hermite_e.hermegauss(80)
    return float((w * expit(mu + sd * x)).sum() / w.sum())


def truth(model: str, sd_seed: float) -> float:
    """The population accuracy of either system under ``model``."""
    if model == "items":
        return population_accuracy(MU, float(np.hypot(SD_ITEM, sd_seed)))
    return population_accuracy(MU_DOC, float(np.sqrt(SD_DOC ** 2 + SD_SYSTEM_DOC ** 2 + sd_seed ** 2 + SD_RUN_DOC ** 2)))


def _runs(gold: np.ndarray, pred: np.ndarray, n_runs: int, clusters: np.ndarray | None) -> Runs:
    """Two systems x ``n_runs`` runs, optionally with documents as clusters."""
    systems = tuple(f"{s}/seed{r}" for s in "xy" for r in range(n_runs))
    run_system = tuple(s for s in "xy" for _ in range(n_runs))
    if clusters is None:
        return Runs(gold=gold, pred=pred, labels=("a", "b"), systems=systems, run_system=run_system)
    return Runs(gold=gold, pred=pred, labels=("a", "b"), systems=systems, run_system=run_system, clusters=clusters,
                cluster_names=tuple(f"d{i}" for i in range(int(clusters.max()) + 1)), cluster_col="doc")


def null_set(rng: np.random.Generator, model: str, n_runs: int, sd_seed: float, shift: float = 0.0) -> Runs:
    """One test set of ``model`` ("items" or "clusters"); null unless ``shift`` (the second system's logit shift)."""
    if model == "items":
        d = rng.normal(0, SD_ITEM, N_ITEMS)
        u = rng.normal(0, sd_seed, (2 * n_runs, 1))
        p = expit(MU + d[None] + u + np.repeat([0.0, shift], n_runs)[:, None])
        gold = rng.integers(0, 2, N_ITEMS)
        pred = np.where(rng.random(p.shape) < p, gold, 1 - gold)
        return _runs(gold, pred, n_runs, None)
    a = rng.normal(0, SD_DOC, DOCS)
    b = rng.normal(0, SD_SYSTEM_DOC, (2, 1, DOCS))
    u = rng.normal(0, sd_seed, (2, n_runs, 1))
    w = rng.normal(0, SD_RUN_DOC, (2, n_runs, DOCS))
    p = np.repeat(expit(MU_DOC + a + b + u + w + np.array([0.0, shift])[:, None, None]).reshape(2 * n_runs, DOCS),
                  PER_DOC, axis=1)
    gold = rng.integers(0, 2, DOCS * PER_DOC)
    pred = np.where(rng.random(p.shape) < p, gold, 1 - gold)
    return _runs(gold, pred, n_runs, np.repeat(np.arange(DOCS), PER_DOC))


def _verdicts(design: SeedsDesign, point: np.ndarray, samples: np.ndarray, target: float,
              alpha: float) -> tuple[bool, bool]:
    """Whether the engine's paired bootstrap test rejects and the first system's interval covers ``target``."""
    test = pairwise_tests(design, ACC, point, tests=("bootstrap",), samples=samples)
    lo, hi = np.quantile(samples[:, 0], [alpha / 2, 1 - alpha / 2])
    return bool(test["p_value"].iloc[0] < alpha), bool(lo <= target <= hi)


#: The designs compared: as shipped, the test on the widened resamples with the normal approximation, and the
#: runs drawn with replacement and nothing rescaled.
MODES = {"adjusted": {}, "widened": {"paired_t": False}, "off": {"adjust": False}}


def error_rates(model: str, n_runs: int, sd_seed: float, *, n_sets: int, seed: int, n_resamples: int = 200,
                alpha: float = 0.05, modes: tuple[str, ...] = ("adjusted", "off"),
                shift: float = 0.0) -> dict[str, tuple[float, float]]:
    """Per mode of :data:`MODES` (``"adjusted"``: the design as shipped, its run-level deviations rescaled by
    :func:`evalreport.analyses.seeds.widen` for the intervals and the paired test on Student's t with
    Welch-Satterthwaite degrees of freedom, ``SeedsDesign.pair_test``; ``"widened"``: the test on the
    widened resamples with the normal approximation, ``paired_t=False``; ``"off"``: ``adjust=False``, the runs
    drawn with replacement and nothing rescaled) the rejection rate at ``alpha`` and the coverage of the first
    system's ``1 - alpha`` interval over ``n_sets`` test sets (null unless ``shift``, see :func:`null_set`)."""
    target = truth(model, sd_seed)
    rng = np.random.default_rng(seed)
    hits = {m: np.zeros(2) for m in modes}
    for k in range(n_sets):
        runs = null_set(rng, model, n_runs, sd_seed, shift)
        for mode in modes:              # the same draws, rescaled (the design as shipped) or not
            design = SeedsDesign(ConfusionDesign(runs), runs.run_system, level=1 - alpha, **MODES[mode])
            point = design.point([ACC])[:, 0]
            samples = design.resample([ACC], n_resamples, np.random.default_rng([seed, k]))[:, :, 0]
            hits[mode] += _verdicts(design, point, samples, target, alpha)
    return {m: (float(h[0] / n_sets), float(h[1] / n_sets)) for m, h in hits.items()}


if __name__ == "__main__":          # the tables of docs/seeds.md: python tests/seed_sim.py N_SETS [SHIFT]
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    logit_shift = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
    modes = ("off", "widened", "adjusted")
    for model in ("items", "clusters"):
        for sd in (0.3, 1.0):
            for R in (2, 3, 5, 10):
                rates = error_rates(model, R, sd, n_sets=n, seed=1000 + R, modes=modes, shift=logit_shift)
                cells = "  ".join(f"{m}: {r:.3f} {c:.3f}" for m, (r, c) in rates.items())
                print(f"{model:8s} sd {sd:.1f} R {R:2d}  {cells}", flush=True)

"""Several runs per system (training seeds): the two-level bootstrap design and its tables.

A system trained with several seeds is a distribution of systems; its score on a test set varies
with the seed and with the items. Bouthillier et al. (2021) separate these sources of variance
(data sampling, initialisation and order of training, ...) and show that the seed's share is
often as large as the differences between methods. Here a system's value is the mean of the
measure over its runs, and the interval of that mean comes from a two-level bootstrap: each
resample draws every system's runs with replacement (its own number of runs) and then the items,
the same items for every run of every system (paired). For runs crossed with items this is the
"pigeonhole" bootstrap of a two-factor design (Owen 2007), which errs on the wide side when the seeds
matter little and on the narrow side with few runs when they matter: R runs drawn with replacement keep
(R - 1) / R of the variance between them, and that variance is known with R - 1 degrees of freedom. Each
resample's run-level deviation is therefore rescaled (:func:`widen`): by ``sqrt(R / (R - 1))``, the
adjusted two-stage resampling of Davison & Hinkley (1997, section 3.8), or more where the seed's own
variance needs Student's t with R - 1 degrees of freedom (Hesterberg 2015); values are clipped to the
measure's range. The engine (:mod:`evalreport.analyses.engine`) takes :class:`SeedsDesign` like any
other design: intervals, P(best), rank distributions, the paired bootstrap test and letters are of the
system means. The paired test of two systems with several runs is referred to Student's t with
Welch-Satterthwaite degrees of freedom (Satterthwaite 1946; Welch 1947) on resamples that hold each
system's seed variance once (:func:`paired_draws`, :meth:`SeedsDesign.pair_test`, the engine's one hook
for it), so it holds its level with few runs rather than being conservative. The measured error rates are
in docs/seeds.md.

With one run per system nothing is drawn or rescaled at the run level and the design gives the numbers
of the design it wraps, digit for digit (the tests check it against the ordinary comparison).

Tables (in a comparison's ``extra``): ``runs`` (system, run, measure, value: every run's own
value), ``seed_spread`` (per system and measure: runs, mean, the seed spread - the standard
deviation over runs - beside the item noise - the bootstrap standard error of one run) and
``aso`` (Almost Stochastic Order between every pair, :mod:`evalreport.analyses.aso`).
"""
from __future__ import annotations

import copy
import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from evalreport.analyses.aso import aso_table
from evalreport.analyses.engine import TESTS, Progress
from evalreport.analyses.significance import welch_df
from evalreport.errors import InputError

__all__ = ["SeedsDesign", "system_scores", "runs_table", "spread_table", "seed_findings", "seeds_extra", "RUNS_COLUMNS",
           "SPREAD_COLUMNS", "seed_tables", "widen", "paired_draws"]

RUNS_COLUMNS = ["system", "run", "measure", "value"]
SPREAD_COLUMNS = ["system", "measure", "n_runs", "value", "seed_sd", "item_se", "se"]


def _means(values: np.ndarray, index: Sequence[np.ndarray], weights: Sequence[np.ndarray] | None = None) -> np.ndarray:
    """``(B, S, M)`` per system the (weighted) mean over its runs of ``values`` ``(B, R, M)``, NaN runs left out."""
    B, _, M = values.shape
    out = np.empty((B, len(index), M), dtype=float)
    for s, idx in enumerate(index):
        x = values[:, idx]                                                   # (B, n_s, M)
        if idx.size == 1:
            out[:, s] = x[:, 0]
            continue
        w = np.ones((B, idx.size)) if weights is None else weights[s]
        defined = ~np.isnan(x)
        num = np.einsum("br,brm->bm", w, np.where(defined, x, 0.0))
        den = np.einsum("br,brm->bm", w, defined.astype(float))
        with np.errstate(invalid="ignore", divide="ignore"):
            out[:, s] = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return out


def _seed_variance(runs: np.ndarray, centre: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(M,)`` twice for one system's R runs ``(B, R, M)``: the seed's own variance of their mean (the variance
    between the runs less the run-by-item noise the item resamples already hold), and the variance between
    the runs over R (the part of it known with R - 1 degrees of freedom)."""
    R = runs.shape[1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        # the run-by-item noise: its share of one run's deviation from the mean, seen by the item resamples
        noise = np.nanmean(np.nanvar(runs - centre[:, None], axis=0, ddof=1), axis=0) * R / (R - 1)
        between = np.nanvar(np.nanmean(runs, axis=0), axis=0, ddof=1)
        return np.maximum(between - noise, 0.0) / R, between / R


def _seed_scale(runs: np.ndarray, centre: np.ndarray, dev: np.ndarray, z_ratio: float) -> np.ndarray:
    """``(M,)`` the factor of one system's run-level deviations (see :func:`widen`)."""
    R = runs.shape[1]
    adjusted = np.sqrt(R / (R - 1))
    seed_var = _seed_variance(runs, centre)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        drawn_var = np.nanvar(dev, axis=0, ddof=1)
        wide = z_ratio * np.sqrt(seed_var / np.where(drawn_var > 0, drawn_var, np.nan))
    return np.fmax(adjusted, wide)


def widen(drawn: np.ndarray, values: np.ndarray, index: Sequence[np.ndarray], *, level: float,
          ranges: Sequence[tuple[float, float]]) -> np.ndarray:
    """The two-level resamples with each system's run-level deviations rescaled for few runs.

    A resample's system value is the mean of its drawn runs, ``centre + dev`` with ``centre`` the plain
    mean of all the system's runs on that resample's items and ``dev`` what drawing the runs added. Each
    system of R >= 2 runs gets ``centre + c dev``, clipped to the measure's range, with ``c`` the larger of

    - ``sqrt(R / (R - 1))``: drawing R runs with replacement gives (R - 1) / R of the variance between
      them, and rescaling the first-stage deviations by this factor restores it (the adjusted two-stage
      resampling of Davison & Hinkley 1997, section 3.8);
    - ``t(R - 1) / z`` times the seed's own standard error over that of ``dev``: the seed's variance of
      the mean of R runs is the variance between the runs less the run-by-item noise the item resamples
      already hold (counted twice by the crossed bootstrap, Owen 2007), and its quantiles widen as
      Student's t with R - 1 degrees of freedom, as the expanded percentile interval does for a mean of
      R values (Hesterberg 2015): the variance between R runs is known with R - 1 degrees of freedom.
      When the seeds make all of the spread this factor is Hesterberg's ``sqrt(R / (R - 1)) t(R - 1) / z``.

    The paired test of two systems does not use these resamples: widened per system at R - 1 degrees of
    freedom it would be conservative with few runs (a difference of two systems has about 2 (R - 1)). It
    takes the resamples of :func:`paired_draws` and Student's t with Welch-Satterthwaite degrees of freedom
    (:meth:`SeedsDesign.pair_test`).

    Parameters
    ----------
    drawn : ndarray
        ``(B, S, M)`` the system means over the drawn runs.
    values : ndarray
        ``(B, R_total, M)`` every run's value on every resample of the items.
    index : sequence of ndarray
        Per system, the positions of its runs in ``values``.
    level : float
        The interval level (0.95): the t and normal quantiles are taken at ``(1 + level) / 2``.
    ranges : sequence of (float, float)
        Per measure, its range (resamples are clipped to it: an interval reaching the bound stops there).

    Returns
    -------
    ndarray
        ``(B, S, M)``; systems with one run unchanged.
    """
    from scipy.stats import norm, t as student

    out = np.array(drawn, dtype=float, copy=True)
    q = 0.5 + float(level) / 2
    for s, idx, centre, dev, clip in _run_deviations(drawn, values, index, ranges):
        scale = _seed_scale(values[:, idx], centre, dev, float(student.ppf(q, idx.size - 1) / norm.ppf(q)))
        out[:, s] = clip(centre + scale * dev)
    return out


def _run_deviations(drawn: np.ndarray, values: np.ndarray, index: Sequence[np.ndarray],
                    ranges: Sequence[tuple[float, float]]):
    """Per system of two or more runs: ``(s, its run positions, centre, dev, clip)``, the plain mean of its runs
    on each resample, what drawing the runs added to it, and a clip to the measures' ranges."""
    centre = _means(values, index)
    lo = np.array([r[0] for r in ranges], dtype=float)
    hi = np.array([r[1] for r in ranges], dtype=float)
    for s, idx in enumerate(index):
        if idx.size >= 2:
            yield s, idx, centre[:, s], drawn[:, s] - centre[:, s], lambda v: np.clip(v, lo, hi)


def paired_draws(drawn: np.ndarray, values: np.ndarray, index: Sequence[np.ndarray], *,
                 ranges: Sequence[tuple[float, float]]) -> tuple[np.ndarray, np.ndarray]:
    """The resamples of the paired test of two systems, and the part of each system's variance known with few
    degrees of freedom.

    A resample's system value is ``centre + dev`` (see :func:`widen`). Each system of R >= 2 runs gets
    ``centre + c dev``, clipped to the measure's range, with ``c`` the seed's own standard error of the mean
    of R runs over that of ``dev`` (the :func:`widen` factor without Student's t): the variance of a
    difference of two systems over these resamples is then the item part (with each run's run-by-item
    noise, once) plus each system's seed variance, once. Drawing the runs alone, or rescaling them by
    ``sqrt(R / (R - 1))`` as Davison & Hinkley (1997, section 3.8) do, counts the run-by-item noise a
    second time (Owen 2007) and tests conservatively where the seeds matter little; widening each system
    at R - 1 degrees of freedom, as the intervals need, tests conservatively with few runs (a difference
    of two systems has about 2 (R - 1)). The few degrees of freedom go into the test's reference
    distribution instead (:meth:`SeedsDesign.pair_test`).

    Parameters
    ----------
    drawn, values, index, ranges
        As in :func:`widen`.

    Returns
    -------
    samples : ndarray
        ``(B, S, M)``; systems with one run unchanged.
    run_variance : ndarray
        ``(S, M)`` the variance between each system's runs over R, estimated with R - 1 degrees of freedom
        (the seed's variance of the mean is it less the run-by-item noise, known from the items); 0 for a
        system of one run. The Welch-Satterthwaite degrees of freedom of a difference weigh these.
    """
    out = np.array(drawn, dtype=float, copy=True)
    run_var = np.zeros(out.shape[1:], dtype=float)
    for s, idx, centre, dev, clip in _run_deviations(drawn, values, index, ranges):
        seed_var, run_var[s] = _seed_variance(values[:, idx], centre)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            drawn_var = np.nanvar(dev, axis=0, ddof=1)
            scale = np.sqrt(seed_var / np.where(drawn_var > 0, drawn_var, np.nan))
        out[:, s] = clip(centre + np.nan_to_num(scale, nan=0.0) * dev)
    return out, run_var


class SeedsDesign:
    """Several runs per system for the comparison engine (:class:`evalreport.analyses.engine.Design`).

    Parameters
    ----------
    inner : Design
        The design of the runs, each run a "system" of it (e.g. a
        :class:`~evalreport.analyses.resampling.ConfusionDesign` of the runs).
    run_system : sequence of str
        Per run of ``inner`` (in its order), the system it is a run of.
    adjust : bool
        Rescale the run-level deviations of systems with few runs (:func:`widen`); False draws the runs
        with replacement and nothing more (narrow with 2 to 5 runs when seeds matter).
    level : float
        The interval level the rescaling is calibrated at; the engine sets it to ``1 - alpha``
        (:attr:`interval_level`).
    paired_t : bool
        The paired bootstrap test of two systems with several runs takes its standard error from the
        resamples of :func:`paired_draws` and refers ``|d| / se`` to Student's t with Welch-Satterthwaite
        degrees of freedom (:meth:`pair_test`); False tests on the widened resamples of the intervals with
        the normal approximation (conservative with few runs). Needs ``adjust``.

    Notes
    -----
    With several runs the pairwise table holds the paired bootstrap test only: approximate
    randomisation and McNemar's test exchange or compare one prediction per item, which a system
    of several runs does not have. Around a clustered design (``inner.clusters``: whole clusters
    drawn within folds, the same clusters for every run of every system) the two levels are runs,
    then clusters; with one run per system the randomisation test and McNemar's test are the wrapped
    design's (clusters swapped whole, the clustered McNemar test of Durkalski et al. 2003).
    """

    kind = "seeds"

    def __init__(self, inner, run_system: Sequence[str], *, adjust: bool = True, level: float = 0.95,
                 paired_t: bool = True) -> None:
        run_system = [str(s) for s in run_system]
        if len(run_system) != len(inner.systems):
            raise InputError(f"{len(run_system)} run systems for {len(inner.systems)} runs")
        self.inner = inner
        self.runs = tuple(inner.systems)
        self.run_system = tuple(run_system)
        self.systems = tuple(dict.fromkeys(run_system))
        self.index = [np.flatnonzero(np.asarray(run_system, dtype=object) == s) for s in self.systems]
        self.n_runs = np.array([idx.size for idx in self.index], dtype=np.int64)
        self.one_run = bool((self.n_runs == 1).all())
        self.tests = TESTS if self.one_run else ("bootstrap",)
        self.n_items = inner.n_items
        self.mcnemar_measure = inner.mcnemar_measure
        self.run_point: np.ndarray | None = None
        self.run_samples: np.ndarray | None = None
        self.adjust = bool(adjust)
        self.interval_level = float(level)
        self.paired_t = bool(paired_t)
        self._test_draws: np.ndarray | None = None
        self._run_var: np.ndarray | None = None
        self._measure_ids: list = []

    @property
    def interval_columns(self) -> Mapping[str, object]:
        """The wrapped design's extra columns."""
        return self.inner.interval_columns

    @property
    def class_absent(self) -> tuple:
        """The wrapped design's classes lost in resamples."""
        return getattr(self.inner, "class_absent", ())

    @property
    def n_missing_class(self) -> int:
        """The wrapped design's resamples that lost a class."""
        return int(getattr(self.inner, "n_missing_class", 0))

    def streams(self, seed: int) -> tuple[np.random.Generator, np.random.Generator]:
        """The wrapped design's generators (the run draws follow the item draws on the first)."""
        return self.inner.streams(seed)

    def direction(self, measure) -> bool:
        """Whether higher values of ``measure`` are better."""
        return self.inner.direction(measure)

    def point(self, measures: Sequence) -> np.ndarray:
        """``(S, M)`` per system the mean over its runs of the values on all items."""
        self.run_point = np.asarray(self.inner.point(measures), dtype=float)
        return _means(self.run_point[None], self.index)[0]

    def resample(self, measures: Sequence, n_resamples: int, rng: np.random.Generator,
                 progress: Progress = None) -> np.ndarray:
        """``(B, S, M)`` system means on B two-level resamples: the items (paired across every run), then
        each system's runs with replacement (drawn after the items, so the item draws equal the wrapped
        design's), their deviations rescaled for few runs (:func:`widen`, unless ``adjust`` is False)."""
        values = np.asarray(self.inner.resample(measures, n_resamples, rng, progress), dtype=float)
        self.run_samples = values
        weights = [np.ones((n_resamples, 1)) if idx.size == 1 else
                   rng.multinomial(idx.size, np.full(idx.size, 1.0 / idx.size), size=n_resamples).astype(float)
                   for idx in self.index]
        drawn = _means(values, self.index, weights)
        self._test_draws = self._run_var = None
        if not self.adjust or self.one_run:
            return drawn
        ranges = [tuple(getattr(m, "range", (-np.inf, np.inf))) for m in measures]
        if self.paired_t:
            self._measure_ids = [getattr(m, "id", m) for m in measures]
            self._test_draws, self._run_var = paired_draws(drawn, values, self.index, ranges=ranges)
        return widen(drawn, values, self.index, level=self.interval_level, ranges=ranges)

    def pair_test(self, measure, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """What the engine's paired bootstrap test of pairs ``(a[p], b[p])`` refers to, or None for the
        widened resamples and the normal approximation (one run per system, ``adjust`` or ``paired_t``
        off, or ``measure`` not resampled).

        Parameters
        ----------
        measure : Measure or str
            One of the measures of the last :meth:`resample`.
        a, b : ndarray
            ``(P,)`` the systems of each pair.

        Returns
        -------
        tuple or None
            ``(B, P)`` the differences ``a - b`` on the resamples of :func:`paired_draws`, and ``(P,)`` the
            Welch-Satterthwaite degrees of freedom of their variance (Satterthwaite 1946; Welch 1947): the
            item part with infinitely many, each system's seed part estimated from the variance between its
            R runs, with ``R - 1``; inf when neither system has several runs.
        """
        mid = getattr(measure, "id", measure)
        if self._test_draws is None or self._run_var is None or mid not in self._measure_ids:
            return None
        j = self._measure_ids.index(mid)
        a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        diffs = self._test_draws[:, a, j] - self._test_draws[:, b, j]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            total = np.nanvar(diffs, axis=0, ddof=1)
        parts = np.stack([self._run_var[a, j], self._run_var[b, j]])     # known with R - 1 df each
        dfs = np.stack([self.n_runs[a] - 1, self.n_runs[b] - 1]).astype(float)
        return diffs, welch_df(total, parts, dfs)

    def kept_pair_test(self):
        """:meth:`pair_test` over the draws of the last :meth:`resample`, unchanged by later resamples."""
        return copy.copy(self).pair_test

    @property
    def swap_unit(self) -> str:
        """What the wrapped design's randomisation test swaps (item or cluster)."""
        return str(getattr(self.inner, "swap_unit", "discordant item"))

    def cluster_right(self) -> np.ndarray | None:
        """``(S, C)`` the wrapped design's right items per cluster (one run per system), or None without
        clusters: McNemar's test on clustered items is then the clustered test, as without runs."""
        per_cluster = getattr(self.inner, "cluster_right", None)
        right = per_cluster() if per_cluster is not None else None
        return None if right is None else np.asarray(right)[self._single(np.arange(len(self.systems)))]

    def _single(self, systems: np.ndarray) -> np.ndarray:
        """The run of each system (one run per system only)."""
        if not self.one_run:
            raise InputError("approximate randomisation and McNemar's test need one run per system")
        return np.array([self.index[s][0] for s in np.asarray(systems, dtype=np.int64)], dtype=np.int64)

    def swap_differences(self, measure, first: np.ndarray, second: np.ndarray, rounds: int,
                         rng: np.random.Generator, progress: Progress = None) -> np.ndarray:
        """The wrapped design's randomisation differences (one run per system only)."""
        return self.inner.swap_differences(measure, self._single(first), self._single(second), rounds, rng, progress)

    def correct(self) -> tuple[np.ndarray, np.ndarray]:
        """The wrapped design's per-unit correctness (one run per system only)."""
        correct, weight = self.inner.correct()
        return np.asarray(correct)[self._single(np.arange(len(self.systems)))], weight


# ----------------------------------------------------------------------------- scores and tables


def system_scores(scores: pd.DataFrame, run_system: Mapping[str, str], systems: Sequence[str]) -> pd.DataFrame:
    """A ``scores`` frame of runs turned into one of systems: each value the mean over the system's runs.

    Parameters
    ----------
    scores : DataFrame
        system (the run's name), measure, value, calibrated, undefined, reason; one row per run and measure.
    run_system : mapping
        Run name -> system name.
    systems : sequence of str
        The systems, in the order of the rows of the result.

    Returns
    -------
    DataFrame
        The same columns, one row per system and measure: the mean over the runs with a value;
        undefined (with the first run's reason) only where no run has one.
    """
    frame = scores.assign(system=scores["system"].map(dict(run_system)))
    keys = ["measure", "calibrated"] if "calibrated" in frame else ["measure"]
    rows = []
    for key, part in frame.groupby(keys, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        for system in systems:
            one = part[part["system"] == system]
            v = one["value"].to_numpy(dtype=float)
            defined = ~np.isnan(v)
            row = dict(zip(keys, key))
            row["system"] = system
            row["value"] = float(v[defined].mean()) if defined.any() else np.nan
            if "undefined" in one:
                row["undefined"] = bool(not defined.any() and one["undefined"].astype(bool).any())
            if "reason" in one:
                reasons = [r for r in one["reason"].astype(str) if r]
                row["reason"] = reasons[0] if reasons and not defined.any() else ""
            rows.append(row)
    return pd.DataFrame(rows)[list(scores.columns)]


def runs_table(scores: pd.DataFrame, run_system: Mapping[str, str]) -> pd.DataFrame:
    """``runs``: system, run, measure, value - every run's own value (raw scores, not calibrated)."""
    raw = scores[~scores["calibrated"].astype(bool)] if "calibrated" in scores else scores
    names = raw["system"].astype(str)
    systems = names.map(dict(run_system))
    prefix = systems + "/"
    run = [n[len(p):] if n.startswith(p) else n for n, p in zip(names, prefix)]
    return pd.DataFrame({"system": systems.to_numpy(), "run": run, "measure": raw["measure"].to_numpy(),
                         "value": raw["value"].to_numpy(dtype=float)}, columns=RUNS_COLUMNS)


def spread_table(design: SeedsDesign, ids: Sequence[str], intervals: pd.DataFrame | None = None) -> pd.DataFrame:
    """``seed_spread``: per system and measure the seed spread beside the item noise.

    Parameters
    ----------
    design : SeedsDesign
        After :meth:`SeedsDesign.point` (and :meth:`SeedsDesign.resample` for the item noise).
    ids : sequence of str
        The measures, in the order of the design's arrays.
    intervals : DataFrame, optional
        The comparison's intervals (their ``se``: the two-level bootstrap standard error of the mean).

    Returns
    -------
    DataFrame
        system, measure, n_runs, value (mean over runs), seed_sd (standard deviation of the runs'
        values, ddof 1; NaN with one run), item_se (the bootstrap standard error of one run: the
        root of the mean over the system's runs of each run's bootstrap variance over items), se
        (the standard error of the mean from the two-level bootstrap).
    """
    point = design.run_point
    if point is None:
        raise ValueError("spread_table needs the design's point values (call point first)")
    samples = design.run_samples
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        item_var = None if samples is None or samples.shape[0] < 2 else np.nanvar(samples, axis=0, ddof=1)
        for system, idx in zip(design.systems, design.index):
            for j, mid in enumerate(ids):
                v = point[idx, j]
                v = v[~np.isnan(v)]
                sd = float(np.std(v, ddof=1)) if v.size > 1 else np.nan
                item = float(np.sqrt(np.nanmean(item_var[idx, j]))) if item_var is not None else np.nan
                rows.append((system, mid, int(idx.size), float(v.mean()) if v.size else np.nan, sd, item))
    table = pd.DataFrame(rows, columns=SPREAD_COLUMNS[:-1])
    se = np.nan
    if intervals is not None and len(intervals) and "se" in intervals:
        se = table.merge(intervals[["system", "measure", "se"]], on=["system", "measure"], how="left")["se"]
        se = se.to_numpy(dtype=float)
    return table.assign(se=se)[SPREAD_COLUMNS]


def seed_tables(design: SeedsDesign, scores: pd.DataFrame, records: Sequence, intervals: pd.DataFrame, *,
                alpha: float, n_bootstrap: int, seed: int | None) -> dict[str, pd.DataFrame]:
    """The tables of several runs per system: ``runs``, ``seed_spread`` and ``aso`` (primary measure).

    Parameters
    ----------
    design : SeedsDesign
        After :meth:`SeedsDesign.point` (and :meth:`SeedsDesign.resample`).
    scores : DataFrame
        The runs' scores (system = the run's name).
    records : sequence
        The measure records, the primary first, in the order of the design's arrays.
    intervals : DataFrame
        The comparison's intervals (empty without resampling).
    alpha : float
        The family-wise level of the ASO bounds.
    n_bootstrap : int
        Resamples of the ASO bounds (0: no ``aso`` rows).
    seed : int or None
        The seed (its own stream: the comparison's draws are not touched).

    Returns
    -------
    dict of str to DataFrame
    """
    run_system = dict(zip(design.runs, design.run_system))
    runs = runs_table(scores, run_system)
    spread = spread_table(design, [m.id for m in records], intervals)
    primary = records[0]
    if n_bootstrap > 0:
        values = {s: runs.loc[(runs["system"] == s) & (runs["measure"] == primary.id), "value"].to_numpy()
                  for s in design.systems}
        rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(3)[2])
        aso = aso_table(values, measure=primary.id, higher_is_better=design.direction(primary), alpha=alpha,
                        n_bootstrap=n_bootstrap, rng=rng)
    else:
        from evalreport.analyses.aso import ASO_COLUMNS

        aso = pd.DataFrame(columns=ASO_COLUMNS)
    return {"runs": runs, "seed_spread": spread, "aso": aso}


def seed_findings(board: pd.DataFrame, spread: pd.DataFrame, primary: str) -> list[dict]:
    """Findings rows (finding ``seed_spread``) for each pair of neighbours on the leaderboard whose gap
    is smaller than the seed spread (standard deviation over runs) of either of them.

    Parameters
    ----------
    board : DataFrame
        The leaderboard (rank, system, value), best first.
    spread : DataFrame
        The ``seed_spread`` table.
    primary : str
        The primary measure.

    Returns
    -------
    list of dict
        finding, system (the higher of the two), measure, value (the gap), detail
        (``"<lower system>|<larger seed sd>"``).
    """
    sd = spread[spread["measure"] == primary].set_index("system")["seed_sd"]
    board = board[board["value"].notna()].reset_index(drop=True)
    rows = []
    for k in range(len(board) - 1):
        a, b = str(board.loc[k, "system"]), str(board.loc[k + 1, "system"])
        gap = abs(float(board.loc[k, "value"]) - float(board.loc[k + 1, "value"]))
        spread_ab = np.nanmax([sd.get(a, np.nan), sd.get(b, np.nan), -np.inf])
        if np.isfinite(spread_ab) and gap < spread_ab:
            rows.append({"finding": "seed_spread", "system": a, "measure": primary, "value": gap,
                         "detail": f"{b}|{float(spread_ab)!r}"})
    return rows


def seeds_extra(runs, run_scores: pd.DataFrame, records: Sequence, intervals: pd.DataFrame, *,
                design: SeedsDesign | None, settings, positive: int | None) -> dict[str, pd.DataFrame]:
    """The tables of several runs per system for :func:`evalreport.analyses.compare.compare`.

    Parameters
    ----------
    runs : Runs
        The runs, with :attr:`~evalreport.inputs.runs.Runs.run_system`.
    run_scores : DataFrame
        The runs' scores (system = the run's name).
    records : sequence
        The measure records, the primary first.
    intervals : DataFrame
        The comparison's intervals (empty without resampling).
    design : SeedsDesign or None
        The comparison's design after resampling; None without resampling (the point values are
        then measured here).
    settings : Settings
        alpha, bootstrap (the ASO resamples), seed, policy, costs.
    positive : int or None
        The positive class's code.

    Returns
    -------
    dict of str to DataFrame
        ``runs``, ``seed_spread``, ``aso``.
    """
    if design is None:
        from evalreport.analyses.resampling import ConfusionDesign

        inner = ConfusionDesign(runs, positive=positive, policy=settings.policy, costs=settings.costs)
        design = SeedsDesign(inner, runs.run_system)
        design.point(records)
    return seed_tables(design, run_scores, records, intervals, alpha=settings.alpha, n_bootstrap=settings.bootstrap,
                       seed=settings.seed)


def system_counts(counts, run_system: Sequence[str]):
    """Per system the mean confusion matrix over its runs (the report's per-class views and what-if ranks).

    Parameters
    ----------
    counts : Counts
        One matrix per run, in the order of ``run_system``.
    run_system : sequence of str
        Per run, its system.

    Returns
    -------
    Counts
        One matrix per system (first-appearance order): the mean of its runs' matrices (the same items,
        so gold class sizes are unchanged; cells may be fractions).
    """
    from evalreport.counts import Counts

    names = np.asarray(list(run_system), dtype=object)
    systems = tuple(dict.fromkeys(names.tolist()))
    tensor = np.asarray(counts.tensor, dtype=float)
    mean = np.stack([tensor[names == s].mean(axis=0) for s in systems])
    return Counts(mean, counts.labels, systems, fold_names=counts.fold_names)

"""What each report section shows: one method per table or figure, each returning ONE
display object (:class:`~evalreport.report.display.Chart`, ``Table`` or ``Note``).

The report notebooks are thin: a ``parameters`` cell, ``rep = open_report(tables)``, then one
cell per call below. Everything here reads the tables that :mod:`evalreport.report.build`
wrote (the same CSV files the user gets), so what the report shows is exactly what is on
disk. Choices about what to show (which measures, how many classes fit a chart) live here,
not in the notebooks.
"""
from __future__ import annotations

import json
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from evalreport import charts
from evalreport.measures import get
from evalreport.report.display import Chart, Note, Table

#: Above this many classes the per-class chart shows the classes where systems differ most.
MAX_CLASSES_SHOWN = 24
#: Above this many classes the confusion matrices are not drawn (they would be unreadable).
MAX_CLASSES_CONFUSION = 12


def open_report(tables) -> "ReportData":
    """The report's data, read from the ``tables`` folder written by the build step."""
    charts.use_theme()
    return ReportData(Path(tables))


#: Columns that hold names, never numbers, whatever they look like.
_TEXT_COLUMNS = ("paper", "system", "system_a", "system_b", "class", "gold", "predicted", "measure", "measure_a",
                 "measure_b", "fold", "label", "members", "role", "path", "sha256")


def _read(path: Path) -> pd.DataFrame:
    if not path.exists():
        return pd.DataFrame()
    # "n/a" verdicts and "NA" classes stay text; names stay text too ("004" is a paper, "1" a system)
    df = pd.read_csv(path, keep_default_na=False, na_values=[""], dtype={c: str for c in _TEXT_COLUMNS})
    for col in ("reason", "counterexample", "detail", "note"):
        if col in df:
            df[col] = df[col].fillna("").astype(str)
    for col in ("undefined", "calibrated", "tied", "nan_last"):
        # flags only: measures.csv's "undefined" is the text of the undefined cases, kept as it is
        if col in df and df[col].dtype != bool and df[col].astype(str).str.lower().isin(["true", "false"]).all():
            df[col] = df[col].astype(str).str.lower().eq("true")
    return df


class ReportData:
    """Lazy access to the report tables, and the display objects built from them."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        meta = self.folder / "report.json"
        self.meta = json.loads(meta.read_text(encoding="utf-8")) if meta.exists() else {}
        manifest = self.folder / "manifest.json"
        self.manifest = json.loads(manifest.read_text(encoding="utf-8")) if manifest.exists() else {}

    def table(self, name: str) -> pd.DataFrame:
        return _read(self.folder / f"{name}.csv")

    # ------------------------------------------------------------------ shared facts
    @cached_property
    def primary(self) -> str:
        return self.manifest.get("primary") or self.meta.get("primary", "macro_f1")

    @cached_property
    def measures(self) -> list[str]:
        return list(self.manifest.get("measures", []))

    def _label(self, measure_id: str) -> str:
        try:
            return get(measure_id).label
        except Exception:
            return measure_id

    # ------------------------------------------------------------------ 1. overview
    def overview(self) -> Note:
        m = self.meta
        lines = [
            f"**{m.get('n_items', '?'):,} items**, **{m.get('n_classes', '?')} classes**, "
            f"**{m.get('n_systems', '?')} systems**. Primary measure: **{self._label(self.primary)}** "
            f"(`{self.primary}`).",
        ]
        if m.get("bootstrap"):
            lines.append(f"Uncertainty: {m['bootstrap']:,} paired bootstrap resamples over items, seed "
                         f"{m.get('seed')}; intervals are {100 * (1 - m.get('alpha', 0.05)):g}% percentile intervals.")
        if m.get("positive"):
            lines.append(f"Positive class for binary measures: **{m['positive']}**.")
        if m.get("folds"):
            lines.append(f"Cross-validation folds: {m['folds']} (see the cross-validation section).")
        for note in self.manifest.get("notes", []):
            if not note.startswith("intervals:"):  # already said above
                lines.append(f"Note: {note}.")
        return Note("\n\n".join(lines))

    def prevalence_chart(self) -> Chart | Note:
        prev = self.table("prevalence")
        present = prev[prev["count"] > 0]
        if len(prev) > MAX_CLASSES_SHOWN and present["count"].nunique() == 1:
            return Note(f"All {len(present):,} classes present in the gold labels have {int(present['count'].iloc[0]):,} "
                        "items each (a balanced test set)"
                        + (f"; {len(prev) - len(present):,} listed classes have none." if len(present) < len(prev)
                           else "."))
        caption = "Share of each class in the gold labels."
        if len(prev) > MAX_CLASSES_SHOWN:     # 1,000 bars would be a 14,000-pixel chart
            half = MAX_CLASSES_SHOWN // 2
            order = prev.sort_values("count", ascending=False, kind="stable")
            prev = pd.concat([order.head(half), order.tail(half)])
            caption += (f" Only the {half} largest and {half} smallest of {len(order):,} classes; every class is in "
                        "prevalence.csv.")
        return Chart(charts.prevalence_bar(prev), name="prevalence", caption=caption)

    def inputs_table(self) -> Table:
        df = self.table("inputs")
        if df.empty:
            return Table(pd.DataFrame({"input": ["(given in memory)"]}), caption="Inputs")
        df = df.assign(sha256=df["sha256"].astype(str).str[:16] + "…", file=df["path"].map(lambda p: Path(p).name))
        cols = [c for c in ("role", "system", "file", "rows", "sha256") if c in df]
        return Table(df[cols], caption="Input files and their SHA-256 hashes (first 16 hex digits).", index=False)

    # ------------------------------------------------------------------ 2. leaderboard
    def leaderboard_table(self) -> Table:
        board = self.table("leaderboard")
        undefined = board["value"].isna()
        show = pd.DataFrame({"rank": board["rank"], "system": board["system"], self.primary: board["value"]})
        if board["lo"].notna().any():
            show["interval"] = ["—" if pd.isna(lo) else f"[{lo:.3f}, {hi:.3f}]" for lo, hi in zip(board["lo"], board["hi"])]
        if "p_best" in board and board["p_best"].notna().any():
            show["P(best)"] = board["p_best"]
        if "group" in board and board["group"].notna().any():
            show["group"] = board["group"].map(lambda g: "—" if pd.isna(g) else f"{g:g}" if isinstance(g, float) else g)
        if "rank_calibrated" in board:
            show["rank (calibrated)"] = board["rank_calibrated"]
        ranks = {c: "{:g}" for c in ("rank", "rank (calibrated)") if c in show}   # ties are halves: 1.5
        caption = (f"Leaderboard under {self._label(self.primary)}: bootstrap interval, probability of being best, "
                   "significance group (systems in the same group are not separable at the chosen alpha) and the "
                   "rank after prevalence calibration.")
        if (board["rank"] % 1 != 0).any():
            caption += " Tied systems share the mean of their ranks (e.g. 1.5)."
        flags = reasons = None
        if undefined.any():
            scores = self.table("scores")
            why = scores[(scores["measure"] == self.primary) & ~scores["calibrated"]].set_index("system")["reason"]
            flags = pd.DataFrame({self.primary: undefined}, index=show.index)
            reasons = pd.DataFrame({self.primary: board["system"].map(why).fillna("")}, index=show.index)
            caption += (" A system whose value is undefined is ranked last and is in no significance group: no "
                        "test can compare an undefined value.")
        return Table(show, formats=ranks, index=False, caption=caption, undefined=flags, reasons=reasons)

    def leaderboard_chart(self) -> Chart | Note:
        iv = self.table("intervals")
        if iv.empty:
            scores = self.table("scores")
            iv = scores[(scores["measure"] == self.primary) & ~scores["calibrated"]].assign(lo=np.nan, hi=np.nan)
        iv = iv[iv["measure"] == self.primary]
        base = self.table("baselines")
        base = base[base["measure"] == self.primary] if not base.empty else None
        groups = self.table("groups")
        chart = charts.leaderboard_intervals(iv, measure=self.primary, baselines=base,
                                             groups=groups if not groups.empty else None,
                                             higher_is_better=get(self.primary).higher_is_better)
        return Chart(chart, name="leaderboard",
                     caption="Systems under the primary measure with bootstrap intervals; dashed lines: what "
                             "trivial or random systems score (chance baselines).")

    # ------------------------------------------------------------------ 3. every measure
    def scores_table(self, *, calibrated: bool = False) -> Table:
        scores = self.table("scores")
        scores = scores[scores["calibrated"] == calibrated]
        order_m = list(dict.fromkeys(scores["measure"]))
        order_s = list(dict.fromkeys(scores["system"]))

        def wide(column):
            return scores.pivot(index="measure", columns="system", values=column).reindex(index=order_m,
                                                                                           columns=order_s)

        values = wide("value")
        # a cell is marked only when it has no value: a defined average with a skipped class keeps its number
        mark = wide("undefined").fillna(False).astype(bool) & values.isna()
        reasons = wide("reason").fillna("").where(mark, "")
        values.index = [f"{m} ({'↑' if get(m).higher_is_better else '↓'})" for m in values.index]
        mark.index = reasons.index = values.index
        return Table(values, undefined=mark, reasons=reasons,
                     caption=("Every measure (rows; ↑ higher is better, ↓ lower is better) for every system (columns)"
                              + (" after prevalence calibration" if calibrated else "")
                              + ". Undefined (0/0) cells are marked and the reason is given."))

    def undefined_table(self) -> Table | Note:
        scores = self.table("scores")
        flagged = scores[(scores["reason"] != "") & ~scores["calibrated"]]
        if flagged.empty:
            return Note("No measure hit an undefined (0/0) case on these systems.")
        show = flagged[["system", "measure", "value", "reason"]]
        return Table(show, index=False, caption="Every 0/0 case met while computing the measures, named (value "
                                                "'undefined' means the measure has no value; a number means "
                                                "the case was inside an average and skipped or replaced as the "
                                                "policy says).")

    def rank_heatmap(self, *, calibrated: bool = False) -> Chart:
        return Chart(charts.rank_heatmap(self.table("ranks"), calibrated=calibrated),
                     name="ranks-calibrated" if calibrated else "ranks",
                     caption="Rank of every system under every measure (1 = best)"
                             + (" after prevalence calibration." if calibrated else "."))

    # ------------------------------------------------------------------ 4. agreement
    def correlation_heatmap(self, method: str = "spearman") -> Chart:
        corr = self.table("rank_correlation")
        return Chart(charts.correlation_heatmap(corr, method=method, order=self.measures or None),
                     name=f"correlation-{method}",
                     caption=f"{method.capitalize()} rank correlation between the system rankings of every pair "
                             "of measures.")

    def identities_note(self) -> Note:
        ids = self.table("identities")
        if ids.empty:
            return Note("No two measures of this report are the same quantity or always rank systems alike "
                        "(checked on seeded samples of confusion matrices), so every correlation above is "
                        "a fact about these systems.")
        lines = []
        for relation, text in (("equal", "the same quantity"),
                               ("same order", "always rank systems alike (one is an increasing function of the other)")):
            groups = list(dict.fromkeys(ids.loc[ids["relation"] == relation, "members"]))
            if relation == "same order":   # an equal group is also same-order: name only what is new
                equal = set(ids.loc[ids["relation"] == "equal", "members"])
                groups = [g for g in groups if g not in equal]
            for g in groups:
                lines.append(f"- {', '.join(f'`{m}`' for m in g.split(', '))}: {text}")
        return Note("Correlation 1 by construction. These measures of the report are related whatever the "
                    "systems (found by computing every measure on seeded samples of confusion matrices, "
                    "`identities.csv`; paper 003 and paper 004, section 5.1 discuss such pairs):\n\n"
                    + "\n".join(lines))

    def inconsistency_table(self) -> Table | Note:
        inc = self.table("inconsistency")
        if inc.empty:
            return Note("Fewer than two systems: nothing to compare.")
        pos = {m: i for i, m in enumerate(self.measures)}
        inc = inc[(inc["discordant"] > 0)
                  & (inc["measure_a"].map(pos).fillna(1e9) < inc["measure_b"].map(pos).fillna(1e9))]
        inc = inc.sort_values("rate", ascending=False, kind="stable")
        if inc.empty:
            return Note("Every pair of measures orders every pair of systems the same way.")
        return Table(inc.head(20), index=False,
                     caption="Pairs of measures that order some system pairs differently: discordant system pairs "
                             "and the inconsistency rate (Gösgens et al., paper 004, Tables 4-6). Top 20.")

    def flips_table(self) -> Table | Note:
        dis = self.table("disagreements")
        if dis.empty:
            return Note("No pair of systems changes order between the measures shown.")
        prim = dis[dis["measure_a"] == self.primary]
        if prim.empty:
            return Note(f"No pair of systems changes order between {self._label(self.primary)} and the other measures.")
        p = self.primary
        show = pd.DataFrame({"other measure": prim["measure_b"], "system A": prim["system_a"],
                             "system B": prim["system_b"], f"{p}: A": prim["value_a1"], f"{p}: B": prim["value_a2"],
                             "other: A": prim["value_b1"], "other: B": prim["value_b2"]})
        shown = f"first 30 of {len(show)}; " if len(show) > 30 else ""
        return Table(show.head(30), index=False,
                     caption=f"System pairs whose order under {self._label(self.primary)} flips under another measure, "
                             f"with both measures' values ({shown}all pairs of measures in disagreements.csv).")

    # ------------------------------------------------------------------ 5. calibration
    def calibration_chart(self) -> Chart:
        scores = self.table("scores")
        return Chart(charts.calibration_dumbbell(scores, measures=self.measures[:12] or None),
                     name="calibration", caption="Raw (grey) vs prevalence-calibrated (orange) value of every system: "
                                                 "the confusion matrix rescaled so that every class has the same "
                                                 "prevalence (Opitz, paper 002, eq. 6).")

    def calibration_table(self) -> Table:
        cc = self.table("calibration_correlation")
        wide = cc.pivot(index="measure", columns="method", values="value") if not cc.empty else cc
        return Table(wide, caption="Rank correlation of each measure with its prevalence-calibrated self "
                                   "(paper 002, Figure 2: metric vs metric_c). 1 = calibration changes no ranking.")

    def what_if_chart(self) -> Chart | Note:
        wi = self.table("what_if")
        if wi.empty:
            return Note("No prevalence scenarios were computed.")
        ranks = wi.assign(measure=wi["scenario"])[["system", "measure", "rank"]]
        chart = charts.rank_heatmap(ranks, title=f"{self.primary}: rank under other class distributions",
                                    measure_title="Class distribution")
        return Chart(chart, name="what-if",
                     caption=f"Rank of every system under {self._label(self.primary)} when the confusion matrices are "
                             "rescaled to other class distributions (each class's error proportions kept): observed, "
                             "equal prevalence, the observed shares reversed (rare classes frequent), and any "
                             "scenario given with --what-if.")

    def what_if_table(self) -> Table | Note:
        wi = self.table("what_if")
        if wi.empty:
            return Note("No prevalence scenarios were computed.")
        wide = wi.pivot(index="system", columns="scenario", values="value")
        wide = wide[list(dict.fromkeys(wi["scenario"]))]
        return Table(wide, caption=f"{self._label(self.primary)} under each class-distribution scenario.")

    # ------------------------------------------------------------------ 6. per class
    def per_class_chart(self) -> Chart | Note:
        pc = self.table("per_class")
        if pc.empty:
            return Note("No per-class values.")
        classes = list(dict.fromkeys(pc["class"].astype(str)))
        caption = "Recall, precision and F1 of every class for every system."
        if len(classes) > MAX_CLASSES_SHOWN:
            f1 = pc[pc["metric"] == "f1"]
            spread = f1.groupby("class")["value"].agg(lambda v: np.nanmax(v) - np.nanmin(v) if v.notna().any() else 0)
            keep = spread.sort_values(ascending=False).index[:MAX_CLASSES_SHOWN]
            pc = pc[pc["class"].isin(keep)]
            caption += f" Only the {MAX_CLASSES_SHOWN} of {len(classes)} classes where the systems' F1 differ most."
        return Chart(charts.per_class_heatmap(pc), name="per-class", caption=caption)

    def confusion_chart(self) -> Chart | Note:
        conf = self.table("confusion")
        n_classes = conf["gold"].nunique() if not conf.empty else 0
        if conf.empty or n_classes > MAX_CLASSES_CONFUSION:
            return Note(f"Confusion matrices are not drawn for {n_classes} classes; they are in confusion.csv.")
        return Chart(charts.confusion_grid(conf), name="confusion",
                     caption="Confusion matrices normalised per gold class (rows = gold, columns = predicted).")

    # ------------------------------------------------------------------ 7. chance baselines
    def baselines_table(self) -> Table | Note:
        base = self.table("baselines")
        if base.empty:
            return Note("No chance baselines were computed.")
        wide = base.pivot_table(index="measure", columns="baseline", values="value", aggfunc="first", dropna=False)
        wide = wide.reindex([m for m in self.measures if m in wide.index])
        # a baseline whose value is undefined (e.g. MCC of a constant predictor: 0/0) is marked, not blank
        flags = wide.isna()
        reasons = pd.DataFrame("undefined for this baseline (0/0); see baselines.csv", index=wide.index,
                               columns=wide.columns)
        return Table(wide, undefined=flags if flags.any().any() else None, reasons=reasons,
                     caption="What a system with no skill scores: constant-class and majority predictors, and "
                                   "the expected value under named random-classifier models (exact where the "
                                   "measure is linear in the cells, else enumerated or Monte Carlo; see "
                                   "baselines.csv for the method and standard error).")

    # ------------------------------------------------------------------ 8. rank uncertainty
    def rank_distribution_chart(self) -> Chart | Note:
        rd = self.table("rank_distribution")
        if rd.empty:
            return Note("Rank distributions need item-level predictions and bootstrap resamples.")
        return Chart(charts.rank_distribution_chart(rd, measure=self.primary), name="rank-distribution",
                     caption=f"Bootstrap distribution of each system's rank under {self._label(self.primary)}: "
                             "P(rank = k).")

    def pvalue_chart(self) -> Chart | Note:
        pw = self.table("pairwise")
        if pw.empty:
            return Note("Pairwise tests need item-level predictions, at least two systems and bootstrap resamples.")
        test = self.meta.get("pairwise_test", "bootstrap")
        return Chart(charts.pvalue_heatmap(pw, measure=self.primary, test=test, column="p_holm",
                                           alpha=self.meta.get("alpha", 0.05)),
                     name="pvalues", caption=f"Holm-corrected p-values of the paired {test} test between every pair "
                                             f"of systems under {self._label(self.primary)}.")

    def pairwise_table(self) -> Table | Note:
        pw = self.table("pairwise")
        if pw.empty:
            return Note("No pairwise tests.")
        pw = pw[(pw["measure"] == self.primary) | (pw["test"] == "mcnemar")]   # McNemar: on accuracy
        wide = pw.pivot_table(index=["system_a", "system_b"], columns="test", values="p_holm", aggfunc="first")
        wide.columns = [f"p ({t}, Holm)" for t in wide.columns]
        diff = pw[pw["test"] != "mcnemar"].groupby(["system_a", "system_b"])["difference"].first()
        wide.insert(0, f"{self.primary}: A - B", diff)
        wide = wide.reset_index().rename(columns={"system_a": "system A", "system_b": "system B"})
        return Table(wide, index=False,
                     caption="Every pair of systems: the difference under the primary measure and the Holm-corrected "
                             "p-values of each paired test (McNemar's test is on accuracy, as a cross-check). Raw and "
                             "Benjamini-Hochberg p-values are in pairwise.csv.")

    # ------------------------------------------------------------------ audit
    def audit_table(self) -> Table | Note:
        au = self.table("audit")
        if au.empty:
            return Note("The measure audit was not run.")
        au = au.assign(cell=au["verdict"].map({"satisfied": "✓", "violated": "✗"}).fillna("n/a"),
                       column=au["paper"].astype(str) + " " + au["property"].astype(str))
        setting = self._audit_setting(au)
        au = au[au["setting"] == setting]
        wide = au.pivot_table(index="measure", columns="column", values="cell", aggfunc="first")
        wide = wide.reindex([m for m in self.measures if m in wide.index] or wide.index)
        return Table(wide, caption=f"Which properties each measure of this report has ({setting} setting), "
                                   "computed by enumeration and random search (✓ satisfied, ✗ violated, n/a). "
                                   "Counterexamples follow.")

    def _audit_setting(self, au: pd.DataFrame) -> str:
        """The audit setting that matches the data: binary for two classes, else the multi-class one."""
        settings = list(dict.fromkeys(au["setting"]))
        if self.meta.get("n_classes") == 2 and "binary" in settings:
            return "binary"
        return settings[-1]

    def audit_counterexamples(self) -> Table | Note:
        au = self.table("audit")
        if au.empty:
            return Note("The measure audit was not run.")
        bad = au[au["verdict"] == "violated"][["measure", "property", "setting", "counterexample"]]
        return Table(bad.head(60), index=False, caption="The smallest counterexample found for each violated "
                                                        "property (first 60; all in audit.csv).")

    def audit_fit(self) -> Note:
        au = self.table("audit")
        if au.empty:
            return Note("The measure audit was not run.")
        wanted = self.meta.get("needs") or []
        if not wanted:
            return Note("State the properties you need with `--needs` (e.g. `--needs goesgens.CB,goesgens.Mon`) "
                        "and the report lists the measures that have all of them.")
        from evalreport.analyses.audit import PAPERS

        name = {number: key for key, (number, _) in PAPERS.items()}      # "004" -> "goesgens"
        ok = au.assign(key=au["paper"].astype(str).map(lambda p: name.get(p, p)) + "." + au["property"].astype(str))
        ok = ok[(ok["key"].isin(wanted) | ok["property"].isin(wanted)) & (ok["setting"] == self._audit_setting(au))]
        fits = ok.groupby("measure")["verdict"].agg(lambda v: bool((v == "satisfied").all()))
        names = [m for m in fits.index if fits[m]]
        return Note(f"Measures of this report that satisfy every stated need ({', '.join(wanted)}; "
                    f"{self._audit_setting(au)} setting): "
                    + (", ".join(f"`{m}`" for m in names) if names else "none."))

    # ------------------------------------------------------------------ cross-validation
    def cv_table(self) -> Table | Note:
        cv = self.table("cv_summary")
        if cv.empty:
            return Note("No cross-validation summary (a positive class is needed for the F estimators).")
        return Table(cv, index=False, caption="The five ways to compute F over folds (Forman & Scholz, paper 001, "
                                              "section 3) and AUC averaged per fold vs merged, per system.")

    def cv_folds_table(self) -> Table | Note:
        """The folds where a per-fold value is undefined: the folds the *_defined / avg estimators skip."""
        parts = []
        inv = self.table("cv_invalid_folds")
        if not inv.empty:
            parts.append(pd.DataFrame({"system": inv["system"], "fold": inv["fold"], "what": "precision or recall (F)",
                                       "reason": inv["reason"]}))
        sf = self.table("cv_score_folds")
        if not sf.empty:
            sf = sf[sf["undefined"]]
            parts.append(pd.DataFrame({"system": sf["system"], "fold": sf["fold"], "what": sf["measure"],
                                       "reason": sf["reason"]}))
        rows = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
        if not parts:
            return Note("Per-fold precision, recall and AUC need a positive class (--positive).")
        if rows.empty:
            return Note("Every fold has defined per-fold precision, recall and AUC: the fold-averaging estimators "
                        "skip nothing.")
        return Table(rows, index=False, caption="Folds where a per-fold value is undefined: F_avg counts them as 0, "
                                                "F~_avg, F~_pr,re and AUC_avg leave them out (paper 001, section 2.4).")

    def cv_chart(self) -> Chart | Note:
        est = self.table("cv_estimates")
        f = est[est.get("measure", pd.Series(dtype=str)).astype(str).str.startswith("f")] if not est.empty else est
        if f.empty or "estimator" not in f:
            return Note("No F estimates to draw.")
        f = f.assign(aggregation=f["estimator"])
        measure = f["measure"].iloc[0]
        return Chart(charts.cv_estimates(f[f["measure"] == measure], measure=measure), name="cv-estimates",
                     caption="The F estimators side by side: the spread is the aggregation's effect, not the system's.")

    def cv_aggregates_table(self) -> Table | Note:
        est = self.table("cv_estimates")
        if est.empty:
            return Note("No cross-validation estimates.")
        key = ["measure", "aggregation"]
        wide = est.pivot_table(index=key, columns="system", values="value", aggfunc="first", dropna=False)
        flags = est.pivot_table(index=key, columns="system", values="undefined", aggfunc="any", dropna=False)
        why = est.assign(reason=est["reason"].fillna("").astype(str)).pivot_table(
            index=key, columns="system", values="reason", aggfunc="first", dropna=False)
        flags = flags.reindex_like(wide).fillna(False).astype(bool) | wide.isna()
        return Table(wide, undefined=flags if flags.any().any() else None, reasons=why.reindex_like(wide),
                     caption="Every measure aggregated over folds each way: pooled (sum the fold matrices), "
                                   "mean of fold values, mean over folds where defined.")

    def cv_recommendation(self) -> Note:
        path = self.folder / "cv_recommendation.md"
        text = path.read_text(encoding="utf-8") if path.exists() else "No recommendation."
        return Note(text)

    # ------------------------------------------------------------------ ordinal
    def ordinal_table(self) -> Table | Note:
        scores = self.table("scores")
        ids = [m for m in dict.fromkeys(scores["measure"]) if get(m).kind == "ordinal"] if not scores.empty else []
        if not ids:
            return Note("No ordinal or cost-sensitive measures (give --order or --costs).")
        sub = scores[scores["measure"].isin(ids) & ~scores["calibrated"]]
        wide = sub.pivot(index="system", columns="measure", values="value")
        return Table(wide, caption="Ordinal / cost-sensitive measures: K with cost-sensitive recall (paper 000, "
                                   "eq. 11), mean absolute error, macro MAE, weighted kappa, expected cost.")

    # ------------------------------------------------------------------ appendix
    def definitions_table(self) -> Table:
        defs = self.table("measures").fillna("")
        # five columns of text (not nine narrow ones) so that the PDF page can hold the table
        facts = [f"{d} is better; range {r}" + (f"; chance {c}" if str(c) else "")
                 + (f"; convention for 0/0: {v}" if str(v) else "")
                 for d, r, c, v in zip(defs["direction"], defs["range"], defs["chance"], defs["convention"])]
        show = pd.DataFrame({"measure": defs["id"] + ": " + defs["label"], "formula": defs["formula"],
                             "range and chance": facts, "undefined when": defs["undefined"],
                             "source": defs["source"]})
        return Table(show, index=False, caption="Every measure in this report: definition, direction, range, "
                                                "chance value, undefined cases and their convention, source.")

    def policy_note(self) -> Note:
        policy = self.meta.get("policy", "nan")
        text = {
            "nan": "Undefined (0/0) cases are reported as undefined; inside averages over classes the undefined "
                   "classes are skipped (and named in the table of undefined cases).",
            "zero": "Undefined (0/0) cases are replaced by 0 (and still named); inside averages they count as 0.",
            "one": "Undefined (0/0) cases are replaced by 1 (and still named); inside averages they count as 1.",
            "convention": "Undefined (0/0) cases take each measure's documented convention (column 'convention' "
                          "above), NaN where it has none.",
        }.get(policy, policy)
        return Note(f"**Undefined-value policy: `{policy}`.** {text}")

    def provenance_table(self) -> Table:
        prov = self.meta.get("provenance", {})
        rows = [("evalreport command", prov.get("command", "")), ("seed", str(self.meta.get("seed", ""))),
                ("bootstrap resamples", str(self.meta.get("bootstrap", ""))),
                ("created", prov.get("created", ""))]
        rows += [(f"version: {k}", v) for k, v in prov.get("versions", {}).items()]
        rows += [(f"sha256: {Path(s['path']).name}", s["sha256"]) for s in prov.get("inputs", [])]
        return Table(pd.DataFrame(rows, columns=["item", "value"]), index=False,
                     caption="Provenance: versions, seed and input hashes. The same inputs and seed give the same "
                             "numbers.")

    # ------------------------------------------------------------------ simulation (paper 001, section 4)
    def simulation_chart(self, figure: int) -> Chart:
        """Paper 001's Figures 5-8 re-run: 5 = bias vs share of positives (F = 0.8); 6 / 7 = bias vs
        true F, stratified / unstratified folds; 8 = relative standard deviation, stratified."""
        df = self.table(f"figure{figure}")
        if figure == 5:
            chart = charts.simulation_bias(df, x="prevalence", column="stratified")
        elif figure == 8:
            chart = charts.simulation_sd(df, x="f_true", column="panel")
        else:
            chart = charts.simulation_bias(df, x="f_true", column="panel")
        what = {5: "relative bias against the share of positives, true F = 0.8 (paper 001, Figure 5)",
                6: "relative bias against the true F, stratified folds (paper 001, Figure 6)",
                7: "relative bias against the true F, unstratified folds (paper 001, Figure 7)",
                8: "relative standard deviation, stratified folds (paper 001, Figure 8)"}[figure]
        return Chart(chart, name=f"simulation-figure{figure}", caption=f"The five F estimators: {what}.")

    def simulation_table(self) -> Table:
        sim = self.table("simulation")
        summary = sim.groupby(["stratified", "label"], sort=False)[["rel_bias", "rel_sd"]].agg(
            lambda v: float(np.mean(np.abs(v)))).reset_index().rename(
            columns={"label": "estimator", "rel_bias": "mean |relative bias|", "rel_sd": "mean relative sd"})
        return Table(summary, index=False, caption="Over all simulated settings: mean absolute relative bias and mean "
                                                   "relative standard deviation of each estimator.")

    def simulation_note(self) -> Note:
        return Note(self.meta.get("simulation_note", ""))

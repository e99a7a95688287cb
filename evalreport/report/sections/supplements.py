"""The other notebooks' sections: cross-validation (crossval.ipynb), ordinal measures
(ordinal.ipynb), appendix (appendix.ipynb) and simulation (simulation.ipynb)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from evalreport import charts
from evalreport.analyses.crossval_words import F_ESTIMATORS
from evalreport.escape import markdown as escape
from evalreport.measures import get
from evalreport.report.display import Chart, Note, Table
from evalreport.report.section_tables import cv_differences, label as measure_label
from evalreport.report.sections._core import ReportBase

#: The notes in place of a table whose option was not given (Markdown).
NO_POSITIVE_NOTE = "Per-fold precision, recall and AUC need a positive class (`--positive`)."
NO_ORDINAL_NOTE = "No ordinal or cost-sensitive measures (give `--order` or `--costs`)."


class SupplementSections(ReportBase):
    """Cross-validation, ordinal, appendix and simulation sections."""

    # ------------------------------------------------------------------ cross-validation
    def cv_table(self) -> Table | Note:
        """The summary of Forman and Scholz's (2010) estimators; the caption names only the columns present and
        each undefined cell gives the reason of its row in cv_estimates.csv."""
        cv = self.table("cv_summary")
        if cv.empty:
            return Note("No cross-validation summary (a positive class is needed for the F estimators).")
        cv = self.by_board(cv).reset_index(drop=True)
        est = self.table("cv_estimates")
        f_cols = [c for c in F_ESTIMATORS if c in cv]
        auc_cols = [c for c in ("AUC_avg", "AUC_merge") if c in cv]
        f_rows = est[est["estimator"].astype(str).isin(f_cols)] if f_cols and not est.empty else est.iloc[:0]
        f_id = str(f_rows["measure"].iloc[0]) if len(f_rows) else "f1"
        why = {}
        for r in est.itertuples(index=False) if not est.empty else ():
            if (str(r.estimator) in f_cols and r.measure == f_id) or (str(r.estimator) in auc_cols):
                why[(r.system, str(r.estimator))] = r.reason if isinstance(r.reason, str) and r.reason else ""
        parts = []
        if f_cols:
            parts.append(f"The five ways to compute {measure_label(f_id)} of the positive class over folds, per system "
                         "(Forman and Scholz (2010), section 2.3): F_tp,fp from the pooled counts, F_avg the mean "
                         "of the fold values, F_pr,re from the mean fold precision and recall; the tilde variants "
                         "skip the folds where precision or recall is undefined (V(i) = 0)"
                         + (", listed in the last column." if "invalid_folds" in cv else "."))
        if auc_cols:
            parts.append(("AUC" if f_cols else "AUC of the positive class, per system") + ": AUC_avg is the mean of "
                         "the per-fold AUCs, AUC_merge one AUC over the merged scores of all folds (Forman and Scholz (2010), "
                         "section 2.4).")
        if "invalid_folds" in cv:
            cv = cv.rename(columns={"invalid_folds": "folds without precision or recall"})
        values = cv.drop(columns=[c for c in cv.columns if c == "system" or cv[c].dtype.kind not in "f"])
        flags = values.isna().reindex(columns=cv.columns, fill_value=False)
        reasons = pd.DataFrame([[(why.get((s, c), "") or "undefined") if flags.at[i, c] else "" for c in cv.columns]
                                for i, s in zip(cv.index, cv["system"])], index=cv.index, columns=cv.columns)
        return Table(cv, index=False, undefined=flags if flags.any().any() else None, reasons=reasons,
                     caption=" ".join(parts) + " The recommendation says which estimate to publish.")

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
            parts.append(pd.DataFrame({"system": sf["system"], "fold": sf["fold"],
                                       "what": sf["measure"].map(measure_label),
                                       "reason": sf["reason"]}))
        rows = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
        if not parts:
            return Note(NO_POSITIVE_NOTE)
        if rows.empty:
            return Note("Every fold has defined per-fold precision, recall and AUC: the fold-averaging estimators "
                        "skip nothing.")
        # one row per system, value and reason: the folds listed together
        rows = rows.groupby(["system", "what", "reason"], sort=False)["fold"] \
            .agg(lambda f: ", ".join(map(str, f))).reset_index().rename(columns={"fold": "folds"})
        rows = self.by_board(rows[["system", "folds", "what", "reason"]])
        policy = self.meta.get("policy", "nan")
        sub = {"zero": "0", "one": "1"}.get(policy, "0")
        words = []
        if not inv.empty:
            words.append(f"F_avg and F_pr,re count them (an undefined F, precision or recall as {sub}, policy "
                         f"{policy}), F~_avg and F~_pr,re leave them out (Forman and Scholz (2010), section 2.3)")
        if not sf.empty:
            auc = {"zero": "counts them as 0", "one": "counts them as 1"}.get(policy, "leaves them out")
            words.append(f"AUC_avg {auc} (policy {policy}; Forman and Scholz (2010), section 2.4)")
        return Table(rows, index=False, caption="Folds where a per-fold value is undefined: " + "; ".join(words) + ".")

    def cv_chart(self) -> Chart | Note:
        est = self.table("cv_estimates")
        f = est[est["estimator"].astype(object).fillna("").astype(str).isin(F_ESTIMATORS)] if "estimator" in est and not est.empty \
            else est
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
        rows, flags, reasons, same, n_differ = cv_differences(self.by_board(est))
        agree = (f" The aggregations agree (to 3 decimals, for every system) for {', '.join(same)}." if same else "")
        if rows.empty:
            return Note("Every measure gives the same value however it is aggregated over the folds (pooled, mean of "
                        "fold values, mean over folds where defined)." + agree + " All values are in cv_estimates.csv.")
        shown = (f"The {len(set(rows['measure']) - {''})} measures (of {n_differ}) where the aggregations differ most"
                 if n_differ > len(set(rows["measure"]) - {""}) else "The measures where the aggregations differ")
        return Table(rows, index=False, undefined=flags, reasons=reasons,
                     caption=f"{shown}, aggregated over folds each way: pooled (sum the fold confusion matrices), mean "
                             "of fold values, mean over folds where defined; aggregations that agree share a row."
                             + self._named_estimators(est) + agree
                             + " Every measure and aggregation is in cv_estimates.csv.")

    @staticmethod
    def _named_estimators(est: pd.DataFrame) -> str:
        """Which measures with Forman and Scholz's (2010) named estimators the summary shows instead (those present)."""
        names = est["estimator"].astype(object).fillna("").astype(str) if "estimator" in est else pd.Series("", index=est.index)
        named = set(est.loc[names.str.len() > 0, "measure"])
        shown = [w for m, w in (("auc", "AUC"), ("average_precision", "average precision")) if m in named]
        has_f = names.isin(F_ESTIMATORS).any()
        words = (["F"] if has_f else []) + [w for w in shown if w == "AUC"]
        text = f" {' and '.join(words)} {'is' if len(words) == 1 else 'are'} in the summary above." if words else ""
        if "average precision" in shown:
            text += " Average precision (AP_avg, AP_merge) is in cv_estimates.csv."
        return text

    def cv_recommendation(self) -> Note:
        path = self.folder / "cv_recommendation.md"
        text = path.read_text(encoding="utf-8") if path.exists() else "No recommendation."
        # plain text that quotes system names, fold names and reasons from the data: each line one
        # literal paragraph (F~_avg, F_pr,re and a system named [x](http://e.x) show as written)
        return Note("\n\n".join(escape(line) for line in text.splitlines() if line.strip()))

    # ------------------------------------------------------------------ ordinal
    def ordinal_table(self) -> Table | Note:
        scores = self.table("scores")
        ids = [m for m in dict.fromkeys(scores["measure"]) if get(m).kind == "ordinal"] if not scores.empty else []
        if not ids:
            return Note(NO_ORDINAL_NOTE)
        sub = scores[scores["measure"].isin(ids) & ~scores["calibrated"]]
        wide = sub.pivot(index="system", columns="measure", values="value").reindex(columns=ids)
        wide.columns = [f"{self._label(m)} ({'↑' if get(m).higher_is_better else '↓'})" for m in ids]
        return Table(wide, caption="Ordinal / cost-sensitive measures (↑ higher is better, ↓ lower is better): K "
                                   "with cost-sensitive recall (Sebastiani (2015), eq. 11), mean absolute error, macro MAE, "
                                   "weighted kappa, expected cost.")

    # ------------------------------------------------------------------ appendix
    def definitions_table(self) -> Table:
        defs = self.table("measures")
        defs = defs.astype(object).where(defs.notna(), "")   # text columns only: no float fill (pandas 4)
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
        skips = self.table("example_skips")
        if not skips.empty and (skips["zero_division_items"] > 0).any():
            worst = skips.loc[skips["zero_division_items"].idxmax()]
            verb = "left out of" if policy == "nan" else "substituted in"
            text += (f" Example-based multi-label measures average over items: their 0/0 items are {verb} the "
                     f"mean (up to {int(worst['zero_division_items'])} of {int(worst['items'])} items, "
                     f"{escape(str(worst['system']))}, {escape(measure_label(str(worst['measure'])))}); "
                     "example_skips.csv gives every count and the values with those items counted as 0 "
                     "or as 1.")
        return Note(f"**Undefined-value policy: `{policy}`.** {text}")

    def provenance_table(self) -> Table:
        prov = self.meta.get("provenance", {})
        rows = [("evalreport command", prov.get("command", "")), ("seed", str(self.meta.get("seed", ""))),
                ("bootstrap resamples", str(self.meta.get("bootstrap", ""))),
                ("created", prov.get("created", ""))]
        rows += [(f"version: {k}", v) for k, v in prov.get("versions", {}).items()]
        rows += [(f"sha256: {Path(s['path']).name}", s["sha256"]) if s.get("role") != "entry-point"
                 else ("entry point", s["path"]) for s in prov.get("inputs", [])]   # a distribution: its version
        return Table(pd.DataFrame(rows, columns=["item", "value"]), index=False,
                     caption="Provenance: versions, seed and input hashes. The same inputs and seed give the same "
                             "numbers.")

    # ------------------------------------------------------------------ simulation (Forman and Scholz (2010), section 4)
    def simulation_chart(self, figure: int) -> Chart:
        """Forman and Scholz's (2010) Figures 5-8 re-run: 5 = bias vs share of positives (F = 0.8); 6 / 7 = bias vs
        true F, stratified / unstratified folds; 8 = relative standard deviation, stratified."""
        df = self.table(f"figure{figure}")
        if figure == 5:
            chart = charts.simulation_bias(df, x="prevalence", column="stratified")
        elif figure == 8:
            chart = charts.simulation_sd(df, x="f_true", column="panel")
        else:
            chart = charts.simulation_bias(df, x="f_true", column="panel")
        what = {5: "relative bias against the share of positives, true F = 0.8 (Forman and Scholz (2010), Figure 5)",
                6: "relative bias against the true F, stratified folds (Forman and Scholz (2010), Figure 6)",
                7: "relative bias against the true F, unstratified folds (Forman and Scholz (2010), Figure 7)",
                8: "relative standard deviation, stratified folds (Forman and Scholz (2010), Figure 8)"}[figure]
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

"""The benchmark overview (benchmark.ipynb): several tasks ranked together.

Every method reads the benchmark's own tables, written by
:func:`evalreport.report.benchmark_build.build_benchmark_report` (the JSON files: lists of task
names and method ids stay lists, names stay text), and returns ONE display object. Names of
tasks and systems come from the data: in Markdown they go through :func:`escape`; table cells
and captions are plain text, escaped by :mod:`evalreport.report.display`.

The default consensus is the mean rank (:data:`DEFAULT_CONSENSUS`): the statistic that the
Friedman test, Nemenyi's critical difference and the CD diagram are about (Demšar 2006, JMLR 7,
section 3.2.2), so the words, the leaderboard and the diagram speak of one ranking.
"""
from __future__ import annotations

import json
import math
import re
from functools import cached_property

import numpy as np
import pandas as pd

from evalreport.charts import benchmark as bcharts
from evalreport.escape import markdown as escape
from evalreport.measures import get
from evalreport.report.display import Chart, Note, Table
from evalreport.report.section_tables import integer_ranks
from evalreport.report.sections._core import MAX_ROWS, ReportBase
from evalreport.report.write import read_json_table
from evalreport.words import counted

#: The consensus method the findings and the leaderboard's order use (see the module docstring).
DEFAULT_CONSENSUS = "mean_rank"
#: The consensus methods whose rank distribution is drawn: the default (rank-then-aggregate) and
#: the mean score (aggregate-then-rank); six panels would make the page very long.
SHOWN_DISTRIBUTIONS = (DEFAULT_CONSENSUS, "mean_score")
#: At most this many names in one list of the findings (the tables have every row).
MAX_NAMED = 6


def _names(items, limit: int = MAX_NAMED) -> str:
    """``a, b and c`` of escaped names; beyond ``limit``, ``a, b, ... and N more``."""
    items = [escape(i) for i in items]
    if len(items) > limit:
        return ", ".join(items[:limit]) + f" and {len(items) - limit} more"
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1] if items else "none"


def _p(p: float) -> str:
    return "p < 0.0001" if p < 1e-4 else f"p = {p:.4f}" if p < 0.01 else f"p = {p:.3f}"


class BenchmarkSections(ReportBase):
    """The benchmark overview: findings, consensus, Friedman/Nemenyi/Wilcoxon, wins, participation."""

    def bench_table(self, name: str) -> pd.DataFrame:
        """A benchmark table from its JSON file (empty frame when absent or empty)."""
        path = self.folder / f"{name}.json"
        return read_json_table(path) if path.exists() else pd.DataFrame()

    def friedman_row(self):
        """The Friedman table's row, or None where the test did not run (fewer than two systems in
        every task, or one task: its statistics are null)."""
        fr = self.bench_table("friedman")
        if fr.empty:
            return None
        r = fr.iloc[0]
        needed = ("k", "N", "chi2_F", "p_chi2", "F_F", "p_F")
        if any(r.get(c) is None or not np.isfinite(pd.to_numeric(r.get(c), errors="coerce")) for c in needed):
            return None
        return r

    @staticmethod
    def method_label(method: str) -> str:
        """A consensus method's name as readers see it ("Mean rank")."""
        return bcharts.METHOD_LABELS.get(method, method)

    @cached_property
    def consensus_order(self) -> list[str]:
        """Systems by the default consensus rank (then name)."""
        cons = self.bench_table("consensus")
        if cons.empty:
            return []
        own = cons[cons["method"] == DEFAULT_CONSENSUS].sort_values(["rank", "system"], kind="stable")
        return list(own["system"])

    @cached_property
    def tasks(self) -> pd.DataFrame:
        """task, folder, items, classes, systems, primary, positive, weight (each task's report.json)."""
        rows = []
        for task, folder in self.manifest.get("task_folders", {}).items():
            path = self.folder / "tasks" / folder / "report.json"
            meta = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
            rows.append({"task": task, "folder": folder, "items": meta.get("n_items"),
                         "classes": meta.get("n_classes"), "systems": meta.get("n_systems"),
                         "primary": meta.get("primary"), "positive": meta.get("positive"),
                         "weight": meta.get("weight", 1.0)})
        return pd.DataFrame(rows, columns=["task", "folder", "items", "classes", "systems", "primary", "positive",
                                           "weight"])

    # ------------------------------------------------------------------ findings
    def benchmark_findings(self) -> Note:
        """The benchmark's findings in words: leader and how sure, agreement of the methods,
        Friedman, who the CD cannot separate from the leader, wins, missing systems."""
        alpha = self.meta.get("alpha", 0.05)
        out = [self._leader_sentence(), self._agreement_sentence(), self._mixed_measures_sentence(),
               self._friedman_sentence(alpha), self._wins_sentence(), self._missing_sentence()]
        return Note("\n\n".join(f"- {s}" for s in out if s))

    def _leader_sentence(self) -> str:
        if not self.consensus_order:
            return ""
        leader = self.consensus_order[0]
        cons = self.bench_table("consensus")
        own = cons[cons["method"] == DEFAULT_CONSENSUS]
        tied = list(own.loc[own["rank"] == own["rank"].min(), "system"])
        agg = float(own.loc[own["system"] == leader, "aggregate"].iloc[0])
        n = len(self.manifest.get("tasks", []))
        head = (f"**{_names(tied)}** share the first place of" if len(tied) > 1 else f"**{escape(leader)}** leads") + (
            f" the consensus by mean rank (average rank {agg:.2f}; {n} tasks).")
        pf = self.bench_table("consensus_p_first")
        if pf.empty:
            return head + " No consensus bootstrap was run, so how sure that is cannot be said."
        pf = pf[pf["method"] == DEFAULT_CONSENSUS].sort_values("probability", ascending=False, kind="stable")
        p_lead = float(pf.loc[pf["system"] == leader, "probability"].iloc[0])
        b = self.meta.get("bootstrap", 0)
        who = "it" if len(tied) == 1 else escape(leader)
        text = (f"{head} In {b:,} joint bootstrap resamples of every task's items {who} comes first with probability "
                f"**{p_lead:.2f}**")
        others = pf[(pf["system"] != leader) & (pf["probability"] >= 0.05)]
        if len(others):
            text += "; " + ", ".join(f"{escape(s)} {p:.2f}" for s, p in
                                     zip(others["system"][:3], others["probability"][:3]))
        return text + "."

    def _agreement_sentence(self) -> str:
        cons = self.bench_table("consensus")
        if cons.empty:
            return ""
        firsts = {m: list(g.loc[g["rank"] == g["rank"].min(), "system"]) for m, g in cons.groupby("method", sort=False)}
        leaders = {tuple(v) for v in firsts.values()}
        if len(leaders) == 1:
            text = f"All {len(firsts)} aggregation methods put {_names(next(iter(leaders)))} first"
        else:
            text = "The aggregation methods disagree on the first place: " + "; ".join(
                f"{self.method_label(m)}: {_names(v)}" + (" (tied)" if len(v) > 1 else "") for m, v in firsts.items())
        dis = self.bench_table("consensus_disagreements")
        if dis.empty:
            return text + ", and they order every pair of systems alike."
        pairs = [f"{escape(a)} vs {escape(b)}" for a, b in zip(dis["system_a"], dis["system_b"])]
        shown = ", ".join(pairs[:3]) + (f" and {len(pairs) - 3} more" if len(pairs) > 3 else "")
        return (text + f". They order {counted(len(pairs), 'pair')} of systems differently ({shown}; see the table of "
                       "disagreements).")

    @cached_property
    def primaries(self) -> list[str]:
        """The tasks' distinct primary measures, in task order."""
        return list(dict.fromkeys(p for p in self.tasks["primary"] if isinstance(p, str)))

    def _mixed_measures_sentence(self) -> str:
        """A warning when the mean score averages different measures (organiser review, item 10)."""
        if len(self.primaries) < 2:
            return ""
        by = {m: list(self.tasks.loc[self.tasks["primary"] == m, "task"]) for m in self.primaries}
        listed = "; ".join(f"{escape(self._label(m))} in {_names(t)}" for m, t in by.items())
        return ("**Warning: the tasks have different primary measures** (" + listed + "). The mean score "
                "averages numbers of different measures, whose scales and chance levels differ, so its ranking "
                "has no single meaning; the rank-based methods (mean rank, median rank, Borda, Copeland, Kemeny) "
                "compare systems within each task first and do not have this problem.")

    def _friedman_sentence(self, alpha: float) -> str:
        r = self.friedman_row()
        if r is None:
            return "The Friedman test could not be run (fewer than two systems or tasks in common; see the notes)."
        sig = r["p_F"] < alpha
        text = (f"Friedman test over {int(r['N'])} tasks and {int(r['k'])} systems: chi2_F = {r['chi2_F']:.2f} "
                f"({_p(r['p_chi2'])}); Iman-Davenport F_F = {r['F_F']:.2f} with ({int(r['df1'])}, {int(r['df2'])}) "
                f"degrees of freedom, {_p(r['p_F'])}: the systems "
                + ("**differ** significantly" if sig else "do **not** differ significantly")
                + f" at alpha = {alpha:g}.")
        ranks = self.bench_table("average_ranks")
        cd = pd.to_numeric(r.get("cd"), errors="coerce")
        if ranks.empty or not np.isfinite(cd):
            return text
        ranks = ranks.sort_values(["rank", "system"], kind="stable")
        best, best_rank = ranks["system"].iloc[0], ranks["rank"].iloc[0]
        close = [s for s, v in zip(ranks["system"][1:], ranks["rank"][1:]) if v - best_rank <= cd + 1e-12]
        text += (f" Nemenyi's critical difference is {cd:.2f} ranks; "
                 + (f"it cannot separate {_names(close)} from {escape(best)} (best average rank {best_rank:.2f})."
                    if close else f"every other system is significantly worse than {escape(best)}."))
        return text

    def _wins_sentence(self) -> str:
        wins = self.bench_table("wins")
        if wins.empty:
            return ""
        tested = wins["significant_wins"].notna().any()      # null without a bootstrap: not tested
        wins = wins.assign(significant_wins=pd.to_numeric(wins["significant_wins"], errors="coerce").fillna(0))
        wins = wins.sort_values(["wins", "significant_wins"], ascending=False, kind="stable")
        winners = wins[wins["wins"] > 0]
        parts = [f"{escape(s)} {w:g}" + (f" ({sw:g} significantly)" if sw > 0 else "")
                 for s, w, sw in zip(winners["system"], winners["wins"], winners["significant_wins"])]
        text = "Tasks won: " + (", ".join(parts[:MAX_NAMED]) + (" and more" if len(parts) > MAX_NAMED else "")
                                if parts else "none")
        if not tested:
            text += "; significance not tested (no bootstrap)"
        elif not (wins["significant_wins"] > 0).any():
            text += "; no win is significant (a sole winner separated from every other system of its task)"
        return text + "."

    def _missing_sentence(self) -> str:
        part = self.bench_table("participation")
        policy = self.meta.get("missing", "drop")
        words = {"drop": "each aggregation uses only the tasks a system took part in",
                 "last": "a missing system is ranked last in that task, and by mean score after every system "
                         "with a score in every task (whatever its mean over the tasks it took part in)",
                 "exclude": "systems missing from any task are excluded from the benchmark"}
        if part.empty or part["present"].all():
            return f"Every system took part in every task (missing-systems policy: {policy})."
        gone = part[~part["present"]].groupby("system", sort=False)["task"].apply(list)
        named = "; ".join(f"{escape(s)} (from {_names(t)})" for s, t in list(gone.items())[:MAX_NAMED])
        return (f"{counted(len(gone), 'system')} did not take part in every task: {named}"
                + (" and more" if len(gone) > MAX_NAMED else "")
                + f". Policy **{policy}**: {words.get(policy, policy)}; Friedman, Nemenyi and Wilcoxon use only the "
                  "systems present in every task.")

    # ------------------------------------------------------------------ tasks and consensus
    def tasks_table(self) -> Table:
        t = self.tasks.copy()
        t["primary"] = t["primary"].map(lambda m: self._label(m) if isinstance(m, str) else "")
        t["positive"] = t["positive"].map(lambda v: "" if v is None or (isinstance(v, float) and math.isnan(v))
                                          else str(v))
        cols = ["task", "items", "classes", "systems", "primary"] + (["positive"] if (t["positive"] != "").any()
                                                                     else [])
        if (t["weight"].astype(float) != 1.0).any():
            cols.append("weight")
        renamed = (t["folder"] != t["task"]).any()
        if renamed:
            cols.append("folder")
        return Table(t[cols].rename(columns={"primary": "primary measure", "positive": "positive class",
                                             "folder": "tables folder"}),
                     index=False, caption="The tasks: their items, classes, systems and primary (official) measure; "
                                          "each task is ranked by its own primary measure."
                                          + (" Tables folder: where the task's tables are (tables/tasks/FOLDER/; a "
                                             "task whose name is not a safe file name gets task_K; the same map is in "
                                             "tables/tasks/index.csv)." if renamed else ""))

    def consensus_table(self) -> Table:
        cons = self.bench_table("consensus")
        wide = cons.pivot(index="system", columns="method", values="rank")
        methods = list(dict.fromkeys(cons["method"]))
        wide = wide.reindex(index=self.consensus_order, columns=methods)
        wide.columns = [self.method_label(m) for m in methods]
        pf = self.bench_table("consensus_p_first")
        if not pf.empty:
            own = pf[pf["method"] == DEFAULT_CONSENSUS].set_index("system")["probability"]
            wide["P(first), mean rank"] = own.reindex(wide.index)
        avg = cons[cons["method"] == DEFAULT_CONSENSUS].set_index("system")["aggregate"]
        wide.insert(0, "average rank", avg.reindex(wide.index))
        wide.index.name = "system"
        part = self.bench_table("participation")
        gaps = not part.empty and not part["present"].all()
        if gaps:
            took = part.groupby("system")["present"].sum().astype(int)
            wide.insert(1, "tasks", took.reindex(wide.index).map(lambda n: f"{n} of {part['task'].nunique()}"))
        ranks = {c: (lambda r: "" if pd.isna(r) else f"{r:g}") for c in wide.columns
                 if c not in ("average rank", "P(first), mean rank", "tasks")}
        return Table(wide, formats={**ranks, "average rank": "{:.2f}"},
                     caption="Consensus leaderboard: each system's consensus rank under every aggregation method "
                             "(1 = best), best first by mean rank. Aggregate-then-rank: mean score (and the pooled "
                             "score where the tasks share a class set); rank-then-aggregate: mean rank, median rank, "
                             "Borda, Copeland and Kemeny-Young. Tied systems share the mean of their positions "
                             "(Kemeny: systems that equally good consensus orders put in different orders). "
                             "P(first): the share of joint bootstrap resamples in which the system ranks first by "
                             "mean rank." + self._policy_words(gaps) + self._mixed_words())

    def _policy_words(self, gaps: bool) -> str:
        """How the missing-systems policy shaped the ranks, for the consensus table's caption."""
        if not gaps:
            return ""
        policy = self.meta.get("missing", "drop")
        if policy == "last":
            return (" Tasks: how many tasks the system took part in. Missing-systems policy last: a system missing "
                    "from a task is ranked last there (tied with the other missing ones), and by mean score every "
                    "system without a score in every task comes after every complete system, whatever its mean "
                    "over the tasks it took part in.")
        return (" Tasks: how many tasks the system took part in. Missing-systems policy drop: each aggregate uses "
                "only the tasks the system took part in.")

    def _mixed_words(self) -> str:
        if len(self.primaries) < 2:
            return ""
        return (" Warning: the tasks have different primary measures (" + ", ".join(
            self._label(m) for m in self.primaries) + "), so the mean score averages different measures.")

    def disagreements_table(self) -> Table | Note:
        dis = self.bench_table("consensus_disagreements")
        if dis.empty:
            return Note("The aggregation methods order every pair of systems alike.")

        def words(v):
            return ", ".join(self.method_label(m) for m in v) if isinstance(v, list) and v else "—"

        show = pd.DataFrame({"system A": dis["system_a"], "system B": dis["system_b"],
                             "A ahead by": dis["methods_a_first"].map(words),
                             "B ahead by": dis["methods_b_first"].map(words),
                             "tied by": dis["methods_tied"].map(words)})
        more = f" First {MAX_ROWS} of {len(show)}; all in consensus_disagreements.csv." if len(show) > MAX_ROWS else ""
        return Table(show.head(MAX_ROWS), index=False,
                     caption="Where the aggregation methods disagree: pairs of systems that some methods order one "
                             "way and others the other way (or tie)." + more)

    def consensus_methods_chart(self) -> Chart:
        return Chart(bcharts.consensus_methods(self.bench_table("consensus")), name="consensus-methods",
                     caption="The consensus rank of every system under each aggregation method; a line that "
                             "crosses another is a pair of systems the methods order differently.")

    def cd_diagram(self) -> Chart | Note:
        ranks = self.bench_table("average_ranks")
        r = self.friedman_row()
        if ranks.empty or r is None or not np.isfinite(pd.to_numeric(r.get("cd"), errors="coerce")):
            return Note("No critical-difference diagram: the Friedman test needs at least two systems present in "
                        "at least two tasks.")
        cliques = self.bench_table("cd_cliques")
        groups = [list(g["system"]) for _, g in cliques.groupby("clique", sort=True)] if not cliques.empty else []
        return Chart(bcharts.cd_diagram(ranks, float(r["cd"]), groups, alpha=float(r["alpha"])), name="cd-diagram",
                     caption=f"Critical-difference diagram (Demšar 2006): average rank of each system over the "
                             f"{int(r['N'])} tasks (1 = best, at the left); systems joined by a bar are not "
                             f"significantly different by the Nemenyi test (CD = {r['cd']:.2f} at alpha = "
                             f"{r['alpha']:g}).")

    def task_rank_chart(self) -> Chart:
        return Chart(bcharts.task_rank_heatmap(self.bench_table("task_ranks"), order=self.consensus_order or None),
                     name="task-ranks",
                     caption="Rank of every system in every task by the task's primary measure (1 = best); systems "
                             "in consensus order (mean rank).")

    def rank_frequency_chart(self) -> Chart:
        return Chart(bcharts.rank_frequency(self.bench_table("task_ranks"), order=self.consensus_order or None),
                     name="rank-frequency",
                     caption="How many tasks each system ranked first, second, ... (dark = better); grey: tasks it "
                             "did not take part in.")

    def consensus_distribution_chart(self) -> Chart | Note:
        dist = self.bench_table("consensus_rank_distribution")
        if dist.empty:
            return Note("No consensus bootstrap was run (bootstrap = 0, or a task given as confusion matrices only): "
                        "the uncertainty of the consensus ranks is unknown.")
        cons = self.bench_table("consensus")
        methods = [m for m in SHOWN_DISTRIBUTIONS if m in set(dist["method"])]
        return Chart(bcharts.consensus_rank_distribution(dist, observed=cons, methods=methods),
                     name="consensus-distribution",
                     caption=f"Uncertainty of the consensus: the probability (circle area) of each consensus rank "
                             f"by {' and by '.join(self.method_label(m).lower() for m in methods)} in "
                             f"{self.meta.get('bootstrap', 0):,} joint bootstrap resamples of the items of every "
                             "task; the bar marks the observed rank. Every method's distribution is in "
                             "consensus_rank_distribution.csv.")

    # ------------------------------------------------------------------ tests
    def friedman_table(self) -> Table | Note:
        r = self.friedman_row()
        if r is None:
            return Note("The Friedman test was not computed: it needs at least two systems present in at least two "
                        "tasks (see the notes).")
        rows = [("systems (k)", f"{int(r['k'])}"), ("tasks (N)", f"{int(r['N'])}"),
                ("Friedman chi2_F", f"{r['chi2_F']:.3f} (df {int(r['df'])}), {_p(r['p_chi2'])}"),
                ("Iman-Davenport F_F", f"{r['F_F']:.3f} (df {int(r['df1'])}, {int(r['df2'])}), {_p(r['p_F'])}"),
                ("Nemenyi q_alpha", f"{r['q_alpha']:.3f} (alpha = {r['alpha']:g})"),
                ("critical difference", f"{r['cd']:.3f} ranks")]
        if isinstance(r.get("excluded_systems"), str) and r["excluded_systems"]:
            rows.append(("left out (missing from some task)", r["excluded_systems"]))
        return Table(pd.DataFrame(rows, columns=["statistic", "value"]), index=False,
                     caption="Friedman test with the Iman-Davenport correction and Nemenyi's critical difference "
                             "(Demšar 2006, section 3.2.2), on the ranks of the systems present in every task.")

    def nemenyi_table(self) -> Table | Note:
        ranks = self.bench_table("average_ranks")
        r = self.friedman_row()
        cd = np.nan if r is None else pd.to_numeric(r.get("cd"), errors="coerce")
        if ranks.empty or not np.isfinite(cd):
            return Note("No Nemenyi test: it needs at least two systems present in at least two tasks (see the notes).")
        cd = float(cd)
        ranks = ranks.sort_values(["rank", "system"], kind="stable").reset_index(drop=True)
        gap = ranks["rank"] - ranks["rank"].iloc[0]
        cliques = self.bench_table("cd_cliques")
        member = (cliques.groupby("system")["clique"].apply(lambda c: ", ".join(str(int(x)) for x in sorted(c)))
                  if not cliques.empty else pd.Series(dtype=str))
        show = pd.DataFrame({"system": ranks["system"], "average rank": ranks["rank"], "behind the best": gap,
                             "separable from the best": np.where(gap > cd + 1e-12, "yes", "no"),
                             "groups": ranks["system"].map(member).fillna("")})
        return Table(show, index=False, formats={"average rank": "{:.3f}", "behind the best": "{:.3f}"},
                     caption=f"Nemenyi post hoc test: average ranks, the distance to the best, whether it exceeds "
                             f"the critical difference {cd:.3f}, and the groups of systems the test cannot separate "
                             "(the bars of the CD diagram). Every pair is in nemenyi.csv.")

    def wilcoxon_table(self) -> Table | Note:
        wx = self.bench_table("wilcoxon")
        if wx.empty:
            return Note("No Wilcoxon signed-rank tests (fewer than two systems present in every task).")
        futile = [n for n in self.manifest.get("notes", []) if n.startswith("wilcoxon:") and "can be significant" in n]
        if futile and not wx["significant"].astype(bool).any():
            # too few tasks: the table would list p-values that cannot reach alpha
            return Note(f"No Wilcoxon signed-rank test can be significant here ({escape(futile[0].split(': ', 1)[1])}); "
                        "every pair is in wilcoxon.csv.")
        wx = wx.sort_values(["p_holm", "p", "system_a", "system_b"], kind="stable")
        n_sig = int(wx["significant"].astype(bool).sum())
        show = pd.DataFrame({"system A": wx["system_a"], "system B": wx["system_b"], "better": wx["better"],
                             "tasks": wx["n_tasks"], "W": wx["statistic"], "p": wx["p"], "p (Holm)": wx["p_holm"],
                             "significant": np.where(wx["significant"].astype(bool), "yes", "no")})
        more = (f" The {MAX_ROWS} pairs with the smallest p of {len(show)}; all in wilcoxon.csv."
                if len(show) > MAX_ROWS else "")
        n = int(wx["n_tasks"].max())
        alpha = float(self.meta.get("alpha", 0.05))
        if n_sig == 0 and 2.0 / 2 ** n * len(show) > alpha:
            # the exact test's smallest two-sided p (every task favours one system) times Holm's first factor
            more += (f" With {n} tasks the smallest possible p is 2/2^{n} = {2.0 / 2 ** n:.4f}, and Holm's first "
                     f"step multiplies it by {len(show)}: no pair can be significant at alpha = {alpha:g} with so "
                     "few tasks.")
        return Table(show.head(MAX_ROWS), index=False, formats={"p": "{:.4f}", "p (Holm)": "{:.4f}", "W": "{:g}"},
                     caption=f"Wilcoxon signed-rank tests between systems over the tasks (Demšar 2006, section "
                             f"3.2.1), Holm-corrected over all {len(show)} pairs: {n_sig} significant." + more)

    def wins_table(self) -> Table:
        wins = self.bench_table("wins")
        order = {s: i for i, s in enumerate(self.consensus_order)}
        wins = wins.assign(_o=wins["system"].map(order)).sort_values(["wins", "_o"], ascending=[False, True],
                                                                      kind="stable")
        show = pd.DataFrame({"system": wins["system"], "tasks": wins["tasks"], "wins": wins["wins"],
                             "significant wins": wins["significant_wins"],
                             "tasks won": wins["tasks_won"].map(lambda v: ", ".join(map(str, v)) if v else "")})
        return Table(show, index=False, formats={"wins": "{:g}", "significant wins": "{:g}"},
                     caption="Tasks won by each system (a tie for first is shared), and won significantly: the sole "
                             "winner, separated from every other system of the task by its paired bootstrap test, "
                             "Holm-corrected across tasks.")

    def participation_table(self) -> Table | Note:
        part = self.bench_table("participation")
        if part.empty or part["present"].all():
            return Note("Every system took part in every task.")
        wide = part.pivot(index="system", columns="task", values="present")
        missing = wide.index[~wide.all(axis=1)]
        wide = wide.loc[missing].reindex(columns=list(dict.fromkeys(part["task"])))
        return Table(wide.apply(lambda c: c.map(lambda v: "yes" if v else "—")),
                     caption=f"Systems missing from some task (— = did not take part); missing-systems policy: "
                             f"{self.meta.get('missing', 'drop')}.")

    def pooled_table(self) -> Table | Note:
        pooled = self.bench_table("pooled")
        if pooled.empty:
            why = [n for n in self.manifest.get("notes", []) if n.startswith("pooled")]
            return Note("No pooled (micro) score" + (f": {escape(why[0].split(': ', 1)[-1])}." if why else "."))
        primary = self._label(self.primary)
        hib = bool(get(self.primary).higher_is_better)
        show = pooled.sort_values("value", ascending=not hib, kind="stable").reset_index(drop=True)
        show = pd.DataFrame({"rank": integer_ranks(show["value"].rank(ascending=not hib, method="average")),
                             "system": show["system"], f"pooled {primary}": show["value"]})
        return Table(show, index=False, caption=f"Pooled (micro) {primary}: the confusion matrices of all tasks "
                                                "summed, each item counting once (no task weights).")

    def benchmark_notes(self) -> Note:
        notes = self.manifest.get("notes", [])
        return Note("\n".join(f"- {escape(plain_note(n))}" for n in notes) if notes else "No notes.")


#: How the analyses' method notes name their settings in code, and the reader's words for them.
_PLAIN = (
    (re.compile(r"zero_method='zsplit'"), "a task where the two systems score the same counts half for each"),
    (re.compile(r"zero_method='wilcox'"), "tasks where the two systems score the same are left out"),
    (re.compile(r"zero_method='pratt'"), "tasks where the two systems score the same are ranked, then left out"),
    (re.compile(r"scipy method='auto'"), "exact p-values for few tasks, the normal approximation for many"),
    (re.compile(r"\(SeedSequence\((\d+)\)\.spawn\((\d+)\); seeds in settings\)"),
     r"(\2 streams drawn from seed \1; their seeds are in the settings)"),
    (re.compile(r"exact \(dynamic programming over 2\^S subsets\), S = (\d+) <= (\d+)"),
     r"exact (the best of all orders of the \1 systems, found by dynamic programming; exact up to \2 systems)"),
    (re.compile(r"S = (\d+) > (\d+)"), r"\1 systems, more than the \2 of the exact method"),
)


def plain_note(text: str) -> str:
    """A method note of the benchmark analysis in plain words: the settings it names as code (scipy's
    ``zero_method='zsplit'``, numpy's ``SeedSequence(0).spawn(3)``, ``2^S subsets``) said as what they do."""
    for pattern, words in _PLAIN:
        text = pattern.sub(words, text)
    return text

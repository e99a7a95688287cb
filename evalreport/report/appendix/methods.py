"""The methods paragraph, generated from the settings a report was made with (never written per data set).

:func:`methods_segments` turns the report folder's settings (``manifest.json``, ``report.json``)
and tables into a list of segments - text, citations - and :func:`render` writes them as LaTeX
(``\\cite``), Markdown (pandoc's ``[@key]``) or Typst (``#cite(<key>)``), escaping every text for
its target. What it states: the data's size, the primary measure with its definition and source,
how undefined (0/0) cases were treated, the resampling (B, seed, paired over items, within
folds), the tests and the correction, alpha, the significance letters, the prevalence calibration,
the rank correlations, the rounding rule, and the software with its version. :func:`cited_methods`
names the methods used, for the bibliography.
"""
from __future__ import annotations

import re

from evalreport.analyses.letters import letters_sentence
from evalreport.analyses.resampling import p_floor, resamples_needed
from evalreport.measures import get
from evalreport.measures.references import METHODS, works_for_source
from evalreport.report.appendix.crossval import crossval_segments, folds
from evalreport.report.appendix.numbers import MAX_DIGITS, MIN_DIGITS, REPORT_DIGITS
from evalreport.report.appendix.rank_methods import rank_methods, rank_segments
from evalreport.report.appendix.seeds import design_test
from evalreport.report.appendix.sources import paper_label, source_refs

__all__ = ["methods_segments", "cited_methods", "render", "POLICY_WORDS", "benchmark_segments",
           "cited_benchmark_methods", "MISSING_WORDS"]

#: How each ``--policy`` treats a 0/0 case, in a reviewer's words.
POLICY_WORDS = {
    "nan": ("left undefined (no value): a system whose value is undefined ranks last under that measure and has no "
            "significance letter, and a class whose per-class value is undefined is skipped in macro averages"),
    "zero": "set to 0",
    "one": "set to 1",
    "convention": "set to each measure's documented convention (given with its definition in the measures table)",
}



class _Segments(list):
    """A paragraph as ("text", str) and ("cite", [keys]) segments, rendered per target by :func:`render`."""

    def text(self, text: str) -> None:
        self.append(("text", text))

    def cite(self, *keys) -> None:
        unique = [k for k in dict.fromkeys(keys) if k]
        if unique:
            self.append(("cite", unique))

    def math(self, formula: str) -> None:
        """A formula in the registry's notation, set as math (:mod:`.formula`). What follows ``; `` (a
        subset average's "averaged over the classes a, b only": names from the data) and a formula the
        notation cannot read (a plugin's free text) print as written."""
        from evalreport.report.appendix.formula import tokens

        head, sep, tail = formula.partition("; ")
        try:
            tokens(head)
        except ValueError:
            self.append(("data", formula))
            return
        self.append(("math", head))
        if sep:
            self.append(("data", sep + tail))

    def sources(self, source: str) -> None:
        """A registry source as ``Opitz (2022), eq. 18-19`` and one citation per work."""
        for k, ref in enumerate(source_refs(source)):
            self.text("; " if k else "")
            if ref.who:
                self.text(ref.who + (f", {ref.where} " if ref.where else " "))
                self.cite(*ref.keys)
            else:
                self.text(ref.text)

def _settings(data) -> dict:
    s = dict(data.manifest.get("settings", {}))
    for key in ("primary", "policy", "bootstrap", "seed", "alpha", "positive"):
        if key not in s and key in data.meta:
            s[key] = data.meta[key]
    return s


def cited_methods(data, *, benchmark: bool = False) -> list[str]:
    """The methods (keys of :data:`~evalreport.measures.references.METHODS`) the report used."""
    used = ["calibration"]
    pw = data.table("pairwise")
    if not data.table("intervals").empty:
        used += ["bootstrap", "rounding"]
    if not pw.empty:
        tests = set(pw["test"])
        used += [t for t in ("randomization", "mcnemar", "delong") if t in tests] + ["holm", "bh", "letters"]
        used += rank_methods(data)
        if "mcnemar" in tests and _settings(data).get("cluster_col"):
            used = [m for m in used if m != "mcnemar"] + ["clustered_mcnemar"]
    if _settings(data).get("cluster_col") and not data.table("intervals").empty:
        used.append("cluster_bootstrap")
    corr = data.table("rank_correlation")
    if not corr.empty:
        used += ["rank_correlation"]
    if not data.table("inconsistency").empty:
        used.append("inconsistency")
    if folds(data):
        used.append("crossval")
    if benchmark:
        used.append("demsar")
    if _settings(data).get("runs_per_system"):
        used.append("seeds")
        used.append("seeds_few_runs")          # the run-level rescaling (appendix/seeds.py says it)
        used.append("seeds_pair_test")         # the t reference of the paired test (appendix/seeds.py)
        aso = data.table("aso")
        if not aso.empty and aso["eps_min"].notna().any():
            used.append("aso")
    return [m for m in METHODS if m in used]


def _cite_keys(source: str) -> list[str]:
    return [w.key for w in works_for_source(source)]


def methods_segments(data, *, benchmark: bool = False, version: str | None = None) -> list[tuple[str, object]]:
    """The paragraph as segments: ``("text", str)``, ``("cite", [keys])``, ``("break", "")`` (a new paragraph)."""
    s = _settings(data)
    primary = get(s.get("primary") or data.primary)
    systems = data.manifest.get("systems", [])
    labels = data.manifest.get("labels", [])
    prev = data.table("prevalence")
    n_items = int(prev["count"].sum()) if not prev.empty else data.meta.get("n_items")
    seg = _Segments()
    t, c = seg.text, seg.cite

    t(f"We compared {len(systems)} systems on {n_items:,} items with {len(labels)} classes"
      if n_items is not None else f"We compared {len(systems)} systems on {len(labels)} classes")
    t(f" under {len(data.measures)} evaluation measures. The primary measure, which orders the leaderboard "
      f"({'higher' if primary.higher_is_better else 'lower'} is better), is {paper_label(primary.id)}, defined as ")
    seg.math(primary.formula)
    t(" (")
    seg.sources(primary.source)
    t(").")
    if s.get("positive"):
        t(" The binary measures take the class ")
        seg.append(("data", str(s["positive"])))
        t(" as positive.")
    policy = s.get("policy", "nan")
    t(f" Undefined cases (a 0/0 in a measure's formula) were {POLICY_WORDS.get(policy, policy)} (policy \"{policy}\").")
    if policy == "convention":
        from evalreport.measures.references import works_for_measures

        conv = {w.key for w in works_for_measures(data.measures)} - {
            w.key for w in works_for_measures(data.measures, conventions=False)}
        if conv:
            t(" Conventions taken from ")
            c(*sorted(conv))
            t(".")
    B, seed, alpha = int(s.get("bootstrap") or 0), s.get("seed", 0), float(s.get("alpha", 0.05))
    intervals = not data.table("intervals").empty
    seg.append(("break", ""))
    clustered = bool(s.get("cluster_col")) and intervals
    if clustered:
        _cluster_methods(seg, data, s, B, seed, alpha)
        if s.get("runs_per_system"):          # clustered items with several runs: runs, then clusters
            from evalreport.report.appendix.seeds import seeds_segments

            seeds_segments(data, seg, s["runs_per_system"], B, clusters=True)
    if intervals and not clustered:
        folds = data.meta.get("folds") or 0
        design = "two-level bootstrap resamples, runs then items" if s.get("runs_per_system") else \
            "paired bootstrap resamples over items"      # two levels: said just below
        t(f"Uncertainty was estimated with {B:,} {design} (every resample draws the "
          "same items for all systems, so that the systems are compared on the same data"
          + (f"; items were resampled within each of the {folds} cross-validation folds" if folds else "")
          + ((" and within each gold class, so that no resample loses a class" if folds else
              "; items were resampled within each gold class, so that no resample loses a class")
             if s.get("bootstrap_strata") == "gold" else "")
          + f"), random seed {seed}; intervals are {100 * (1 - alpha):g}% percentile intervals ")
        c(*METHODS["bootstrap"])
        t(".")
        if s.get("runs_per_system"):          # several runs per system: the two-level design
            from evalreport.report.appendix.seeds import seeds_segments

            seeds_segments(data, seg, s["runs_per_system"], B)
    if intervals:
        pw = data.table("pairwise")
        if not pw.empty:
            m = pw[pw["test"] == pw["test"].iloc[0]]
            pairs = len(m)
            tests = set(pw["test"])
            boot = design_test(data, "bootstrap")
            t(f" Each of the {pairs:,} pairs of systems was compared under the primary measure by a two-sided {boot} "
              f"test of the difference: z is the observed difference over the standard deviation of its "
              f"{B:,} {boot} replicates, and p = 2\u03a6(\u2212|z|), the normal approximation ")
            c(*METHODS["bootstrap"])
            t(", whose p-values, unlike a count of resamples, are not bounded below by 1/(B\u00a0+\u00a01)")
            if "randomization" in tests:
                t(f", by approximate randomisation ({B:,} rounds, each swapping the two systems' predictions on every "
                  f"{'cluster' if clustered else 'item'} with probability 1/2) ")
                c(*METHODS["randomization"])
            if "mcnemar" in tests and clustered:
                t(" and, as a cross-check on accuracy, by the clustered McNemar test, which replaces McNemar's test "
                  "when items are clustered ")
                c(*METHODS["clustered_mcnemar"])
            elif "mcnemar" in tests:
                t(" and, as a cross-check on accuracy, by McNemar's test ")
                c(*METHODS["mcnemar"])
            if "delong" in tests:
                t(" and, for the area under the ROC curve, by DeLong's test for two correlated AUCs (the fast "
                  "algorithm of Sun and Xu) ")
                c(*METHODS["delong"])
            t(". The p-values were corrected for the multiple comparisons with Holm's step-down method ")
            c(*METHODS["holm"])
            # the appendix's tables hold no p-values: say where the adjusted ones are
            t(" (the report's pairwise table, pairwise.csv, also gives Benjamini-Hochberg adjusted p-values ")
            c(*METHODS["bh"])
            test = s.get("pairwise_test", "bootstrap")
            t(").")
            t(" The leaderboard's significance letters are a compact letter display ")
            c(*METHODS["letters"])
            t(": s" + letters_sentence(design_test(data, test), alpha)[1:] + " No letter can be removed without breaking that, and "
              "the letters are named in leaderboard order (the best system holds the letter a).")
            rank_segments(data, seg, test, alpha)
            floor = p_floor(pw, test)
            if floor and floor["holm"] >= alpha:
                need = resamples_needed(floor["pairs"], alpha)
                t(f" With {floor['B']:,} resamples no p-value can be below 1/({floor['B']:,} + 1), so Holm's correction "
                  f"over {floor['pairs']:,} pairs cannot give a corrected p-value below {floor['holm']:.3g}: no "
                  f"difference can be significant at alpha = {alpha:g} (at least {need:,} resamples would be needed), "
                  "and all systems share one letter.")
    else:
        t("No resampling was done" + (" (confusion-matrix input: intervals and tests need item-level predictions)"
                                      if s.get("input") == "confusion matrices" else f" (bootstrap = {B})")
          + f", so no intervals or significance tests are given; values are shown with {REPORT_DIGITS} decimals.")
    from evalreport.report.appendix.slices import slices_segments

    slices_segments(data, seg)          # per-slice values and tests, with slices
    seg.append(("break", ""))
    crossval_segments(data, seg)
    t("Class prevalence matters to many measures; every measure was also computed after prevalence calibration "
      "(each system's confusion matrix rescaled to equal class prevalence; Opitz (2022), eq.\u00a05\u20136 ")
    c(*METHODS["calibration"])
    t("), and the agreement of the measures' system rankings is given as Spearman and Kendall rank correlations ")
    c(*METHODS["rank_correlation"])
    if not data.table("inconsistency").empty:
        t(" and as the inconsistency rate of every pair of measures ")
        c(*METHODS["inconsistency"])
    t(".")
    if benchmark:
        t(" Across tasks, the systems' average ranks were compared with the Friedman test and the Nemenyi critical "
          "difference ")
        c(*METHODS["demsar"])
        t(".")
    if intervals:
        t(" Numbers are rounded to what their intervals resolve: a value is given to the decimal place of the first "
          "significant digit of its interval's half-width ")
        c(*METHODS["rounding"])
        t(f", one number of decimals per table column (that of the column's median half-width, between {MIN_DIGITS} "
          f"and {MAX_DIGITS}); values without an interval keep {REPORT_DIGITS} decimals.")
    seg.append(("break", ""))
    t("The measures and their sources: ")
    for i, mid in enumerate(data.measures):
        m = get(mid)
        t(("; " if i else "") + f"{paper_label(m.id)} ")
        c(*_cite_keys(m.source))
    t(f". Computed with evalreport {version or _version()}.")
    return seg


def _cluster_methods(seg, data, s: dict, B: int, seed, alpha: float) -> None:
    """The uncertainty sentences of a clustered test set: the resampling unit, the clusters, the design effect."""
    t = seg.text
    design = data.table("design")
    folds = data.meta.get("folds") or 0
    t("Items were clustered by the gold column ")
    seg.append(("data", str(s["cluster_col"])))
    if not design.empty:
        row = design.iloc[0]
        t(f" ({int(row['n_clusters']):,} clusters of {float(row['mean_cluster_size']):.3g} items on average)")
    t(", so the resampling unit was the cluster: uncertainty was estimated with "
      f"{B:,} paired cluster bootstrap resamples (every resample draws whole clusters with replacement, the same "
      "clusters for all systems" + (f", within each of the {folds} cross-validation folds" if folds else "")
      + f"), random seed {seed}; intervals are {100 * (1 - alpha):g}% percentile intervals ")
    seg.cite(*METHODS["bootstrap"], *METHODS["cluster_bootstrap"])
    t(".")
    deff = design["design_effect"].dropna() if not design.empty else design
    if len(deff):
        t(" The design effect of the primary measure (the cluster bootstrap's variance over that of "
          f"{int(design['n_resamples_item'].iloc[0]):,} item bootstrap resamples) was "
          f"{deff.min():.2f}" + (f" to {deff.max():.2f}" if deff.max() - deff.min() >= 0.005 else "")
          + " across the systems.")


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("evalreport")
    except metadata.PackageNotFoundError:
        return "(version unknown)"


#: Characters that can start Markdown syntax in our own prose (formulas hold _ * ^ and brackets).
_MD_ACTIVE = re.compile(r"([\\`*_\[\]<>#|@$~^{}=+!])")


def render(segments, target: str) -> str:
    """The segments as ``latex``, ``markdown`` or ``typst`` text (paragraphs separated by a blank line).
    Kinds: ``text`` (our prose), ``data`` (a name from the data), ``cite`` (keys), ``math`` (a formula in
    the registry's notation, or a (LaTeX, Typst) pair), ``ref`` (a table's label), ``break``."""
    from evalreport import escape
    from evalreport.report.appendix.formula import to_latex, to_typst

    out = []
    for kind, value in segments:
        if kind == "break":
            out.append("\n\n")
        elif kind == "math":
            pair = value if isinstance(value, tuple) else (to_latex(value), to_typst(value))
            # Markdown: pandoc's TeX math
            out.append(f"${pair[1]}$" if target == "typst" else f"${pair[0]}$")
        elif kind == "ref":
            out.append(rf"Table~\ref{{{value}}}" if target == "latex" else f"@{value}" if target == "typst"
                       else "the cross-validation table")
        elif kind in ("text", "data"):
            if target == "latex":   # our prose may use LaTeX's typography; a name from the data prints as written
                # our prose's no-break spaces ("eq. 18") are LaTeX's ties (the escape folds white space)
                text = (escape.latex_portable(value, literal=True) if kind == "data" else "~".join(
                    escape.latex_portable(part, literal=False) for part in value.split("\u00a0")))
            elif target == "markdown":   # a name from the data fully escaped; our prose keeps . , ( ) ' -
                text = escape.markdown(value) if kind == "data" else "\u00a0".join(
                    _MD_ACTIVE.sub(r"\\\1", " ".join(part.split())) for part in value.split("\u00a0"))
            else:
                out.append(f"#{escape.typst(escape.printable(value))}")
                continue
            # the escapes fold white space at the ends: the segments' own spaces join them
            out.append((" " if value[:1].isspace() else "") + text + (" " if value[-1:].isspace() else ""))
        elif kind == "cite":
            if target == "latex":
                out.append(rf"\cite{{{','.join(value)}}}")
            elif target == "markdown":
                out.append("[" + "; ".join(f"@{k}" for k in value) + "]")
            else:
                out.append("".join(f"#cite(<{k}>)" for k in value))
    text = "".join(out)
    return "\n\n".join(p.strip() for p in text.split("\n\n")) + "\n"


#: The consensus methods in a sentence ("ranked by ...").
_CONSENSUS_WORDS = {"borda": "the Borda count", "copeland": "Copeland's pairwise-majority score",
                    "kemeny": "Kemeny-Young"}

#: How each missing-systems policy of a benchmark treats a system absent from a task.
MISSING_WORDS = {
    "drop": "each aggregation used only the tasks a system took part in",
    "last": "a system missing from a task was ranked last in that task",
    "exclude": "systems missing from any task were excluded from the benchmark",
}


def cited_benchmark_methods(data) -> list[str]:
    """The methods (keys of :data:`~evalreport.measures.references.METHODS`) a benchmark report used."""
    used = ["demsar"]
    if not data.table("task_scores").empty and data.table("task_scores")["lo"].notna().any():
        used += ["bootstrap", "rounding"]
    if data.friedman is not None:
        used += ["friedman", "iman_davenport", "nemenyi"]
    if not data.bench_table("wilcoxon").empty:
        used += ["wilcoxon", "holm"]
    used += [m for m in ("borda", "copeland", "kemeny") if m in data.methods_used]
    if not data.bench_table("consensus_rank_distribution").empty:
        used.append("bootstrap")
    if data.settings.get("runs_per_system") and "bootstrap" in used:
        used += ["seeds", "seeds_few_runs", "seeds_pair_test"]
    return [m for m in METHODS if m in used]


def _benchmark_seeds_sentence(seg, runs_per_system: dict) -> None:
    """The two-level design of the benchmark's tasks with several runs per system."""
    counts = sorted({int(n) for runs in runs_per_system.values() for n in runs.values()})
    runs = f"{counts[0]} runs" if len(counts) == 1 else f"{counts[0]} to {counts[-1]} runs"
    seg.text(f" In {'task' if len(runs_per_system) == 1 else 'tasks'} ")
    for k, name in enumerate(runs_per_system):      # task names come from the data: escaped per target
        if k:
            seg.text(", ")
        seg.append(("data", str(name)))
    seg.text(f" the systems were trained with several random seeds ({runs} per system): a system's value is the mean of the measure over its runs, and "
             "each resample (the consensus bootstrap's too) first drew every system's runs with replacement, then "
             "the items, paired across all runs ")
    seg.cite(*METHODS["seeds"])
    seg.text("; each system's deviation of the drawn runs from the mean of its R runs was rescaled for few runs, "
             "by at least \u221a(R/(R\u22121)) ")
    seg.cite(*METHODS["seeds_few_runs"])
    seg.text(", and within a task the paired test of two systems referred their difference to Student's t with "
             "Welch-Satterthwaite degrees of freedom ")
    seg.cite(*METHODS["seeds_pair_test"])
    seg.text(".")


def benchmark_segments(data, *, version: str | None = None) -> list[tuple[str, object]]:
    """The methods paragraph of a benchmark report (:class:`.benchmark.BenchmarkAppendixData`):
    the tasks and their primary measures, the per-task resampling, the consensus methods, the
    Friedman and Iman-Davenport tests with k and N, Nemenyi's q_alpha and critical difference at
    alpha, the Wilcoxon-Holm tests, the consensus bootstrap (B, seed) and the missing-systems
    policy; the numbers are those of the report's tables."""
    s = data.settings
    B, seed, alpha = int(s.get("bootstrap") or 0), s.get("seed", 0), float(s.get("alpha", 0.05))
    systems, tasks = data.manifest.get("systems", []), data.manifest.get("tasks", [])
    n_items = data.meta.get("n_items")
    primaries = [p for p in dict.fromkeys(data.tasks["primary"]) if isinstance(p, str)] if not data.tasks.empty \
        else [data.primary]
    seg = _Segments()
    t, c = seg.text, seg.cite

    t(f"We compared {len(systems)} systems on {len(tasks)} tasks"
      + (f" ({n_items:,} items in all)" if n_items else "") + ". Each task ranks the systems by its primary measure")
    if len(primaries) == 1:
        m = get(primaries[0])
        t(f", {paper_label(m.id)} ({'higher' if m.higher_is_better else 'lower'} is better), defined as ")
        seg.math(m.formula)
        t(" (")
        seg.sources(m.source)
        t(")")
    else:
        t(" (" + "; ".join(paper_label(p) for p in primaries) + ") ")
        c(*(k for p in primaries for k in _cite_keys(get(p).source)))
    policy = s.get("policy", "nan")
    t(f"; undefined cases (a 0/0) were {POLICY_WORDS.get(policy, policy)} (policy \"{policy}\").")
    if "bootstrap" in cited_benchmark_methods(data) and B:
        t(f" Within each task, {B:,} paired bootstrap resamples over items (random seed {seed}) give "
          f"{100 * (1 - alpha):g}% percentile intervals ")
        c(*METHODS["bootstrap"])
        t(".")
        if s.get("runs_per_system"):
            _benchmark_seeds_sentence(seg, s["runs_per_system"])
    else:
        t(f" No resampling was done (bootstrap = {B}), so no intervals are given; the tasks' values are shown with "
          f"{REPORT_DIGITS} decimals.")
    seg.append(("break", ""))
    from evalreport.charts.benchmark import METHOD_LABELS

    used = data.methods_used
    words = [_CONSENSUS_WORDS.get(m) or METHOD_LABELS.get(m, m).lower() for m in used]
    if used:
        pending = "Across tasks, the systems were ranked by "
        for k, (m, word) in enumerate(zip(used, words)):
            pending += ("" if k == 0 else " and " if k == len(used) - 1 else ", ") + word
            if m in ("borda", "copeland", "kemeny"):      # each consensus method cited where it is named
                t(pending + (" (the order that disagrees least with the tasks' orders " if m == "kemeny" else " "))
                c(*METHODS[m])
                pending = ")" if m == "kemeny" else ""
        t(pending)
        t("; the tables order the systems by the mean rank, the statistic the Friedman test is about ")
        c(*METHODS["demsar"])
        t(".")
    r = data.friedman
    if r is not None:
        k, n = int(r["k"]), int(r["N"])
        t(" The Friedman test ")
        c(*METHODS["friedman"])
        t(f" on the ranks of the k = {k} systems present in every task over N = {n} tasks gives chi-square_F = "
          f"{r['chi2_F']:.3f} with {int(r['df'])} degrees of freedom ({p_words(r['p_chi2'])}), and the "
          f"Iman-Davenport statistic ")
        c(*METHODS["iman_davenport"])
        t(f" F_F = {r['F_F']:.3f} with ({int(r['df1'])}, {int(r['df2'])}) degrees of freedom "
          f"({p_words(r['p_F'])}); the systems {'differ' if r['p_F'] < alpha else 'do not differ'} significantly "
          f"at alpha = {alpha:g}. Nemenyi's post hoc test ")
        c(*METHODS["nemenyi"])
        t(f" separates two systems whose average ranks differ by more than the critical difference CD = q_alpha "
          f"sqrt(k(k+1)/(6N)) = {r['q_alpha']:.3f} x sqrt({k} x {k + 1}/(6 x {n})) = {r['cd']:.3f} ranks at "
          f"alpha = {alpha:g} ")
        c(*METHODS["demsar"])
        t("; the bars of the critical-difference diagram join the systems it cannot separate.")
        if isinstance(r.get("excluded_systems"), str) and r["excluded_systems"]:
            t(" Left out of these tests as missing from some task: ")
            seg.append(("data", r["excluded_systems"]))
            t(".")
    else:
        t(" The Friedman test could not be run (fewer than two systems present in every task, or fewer than two "
          "tasks), so there is no critical difference.")
    if not data.bench_table("wilcoxon").empty:
        t(" Every pair of systems was also compared by a two-sided Wilcoxon signed-rank test over the tasks ")
        c(*METHODS["wilcoxon"])
        t(", with Holm's correction over all pairs ")
        c(*METHODS["holm"])
        t(".")
    dist = data.bench_table("consensus_rank_distribution")
    if not dist.empty and B:
        t(f" The uncertainty of the consensus was estimated from {B:,} joint bootstrap resamples of the items of "
          f"every task (one independent random stream per task, derived from seed {seed}), each resample ranked by "
          "every aggregation method ")
        c(*METHODS["bootstrap"])
        t(".")
    missing = s.get("missing") or data.meta.get("missing") or "drop"
    t(f" Missing systems (policy \"{missing}\"): {MISSING_WORDS.get(missing, missing)}; the Friedman, Nemenyi and "
      "Wilcoxon tests use only the systems present in every task.")
    seg.append(("break", ""))
    if "rounding" in cited_benchmark_methods(data):
        t("Numbers are rounded to what their intervals resolve: a task's values are given to the decimal place of "
          "the first significant digit of the median half-width of its intervals ")
        c(*METHODS["rounding"])
        t(f" (between {MIN_DIGITS} and {MAX_DIGITS} decimals); average ranks and probabilities are given to 2 "
          "decimals, test statistics to 3.")
    t(f" Computed with evalreport {version or _version()}.")
    return seg


def p_words(p: float) -> str:
    """A p-value as the report's tables print it.

    Parameters
    ----------
    p : float
        The p-value.

    Returns
    -------
    str
        ``p < 0.0001``, or ``p = `` with 4 decimals below 0.01 and 3 above.
    """
    return "p < 0.0001" if p < 1e-4 else f"p = {p:.4f}" if p < 0.01 else f"p = {p:.3f}"

"""The multi-label report's sections (multilabel.ipynb): one method per table or figure,
each returning ONE display object, read from the tables that
:mod:`evalreport.report.multilabel_build` wrote.

Sections, in order: findings in words; overview (items, labels, label cardinality, label
frequencies, labels per item); leaderboard; every measure (label-based and example-based); rank
correlation between measures; the per-label view; label errors; pairwise tests (bootstrap,
approximate randomisation, McNemar); prevalence calibration per label; chance baselines for sets;
the audit of the example-based measures. The appendix is the shared appendix.ipynb.

Methods that the single-label report has and that read tables of the same name and columns (the
leaderboard chart, rank heatmap, rank correlation, inconsistency, flips, rank distribution, inputs,
the appendix) are inherited from
:class:`~evalreport.report.sections.ReportData`. A table the comparison does not have (an older
comparison without ``tests``, ``calibration`` or ``audit``) makes its method return None: the
report leaves the part out. Names from the data go through :func:`escape` in Markdown; table cells
and captions are plain text, escaped by :mod:`evalreport.report.display`.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from evalreport import charts
from evalreport.charts import multilabel as mlcharts
from evalreport.analyses.letters import letters_sentence, shares_letter
from evalreport.escape import markdown as escape
from evalreport.report.display import Chart, Note, Table
from evalreport.report.section_tables import integer_ranks
from evalreport.report.sections.multilabel_parts import BASELINE_WORDS, TEST_WORDS, MultiLabelParts
from evalreport.report.sections.multilabel_skips import skips_sentence
from evalreport.report.sections._core import MAX_ROWS, wide_scores
from evalreport.words import counted

__all__ = ["open_multilabel_report", "MultiLabelReport"]

#: Labels each system's row of the label-error table names (most added, most dropped).
TOP_ERRORS = 3
#: At most this many names in one list of the findings.
MAX_NAMED = 5


def _counted(rows: pd.DataFrame, column: str) -> str:
    """``"joy (12), fear (7)"``: each row's label and its count in ``column`` ("—" when none)."""
    return ", ".join(f"{lab} ({int(n)})" for lab, n in zip(rows["label"], rows[column])) or "—"


def open_multilabel_report(tables) -> "MultiLabelReport":
    """The multi-label report's data, read from the ``tables`` folder written by the build."""
    charts.use_theme()
    return MultiLabelReport(Path(tables))


def _names(items, limit: int = MAX_NAMED) -> str:
    items = [escape(str(i)) for i in items]
    if not items:
        return "none"
    if len(items) > limit:
        return ", ".join(items[:limit]) + f" and {len(items) - limit} more"
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _p(p: float) -> str:
    return "p < 0.0001" if p < 1e-4 else f"p = {p:.4f}" if p < 0.01 else f"p = {p:.3f}"

class MultiLabelReport(MultiLabelParts):
    """The tables of a multi-label report and the display objects made from them (findings to label
    errors here; the later parts in :class:`~evalreport.report.sections.multilabel_parts.MultiLabelParts`)."""

    # ------------------------------------------------------------------ 0. findings
    def ml_findings(self) -> Note:
        """The findings in words: leader and how sure, whether the two families of measures agree,
        the tests, calibration, the best chance baseline, undefined values."""
        parts = [self._leader_sentence(), self._families_sentence(), self._tests_sentence(),
                 self._calibration_sentence(), self._baseline_sentence(), self._undefined_sentence(),
                 self._label_skips_sentence(),
                 skips_sentence(self.table("example_skips"), label=self._label, order=self.order)]
        return Note("\n\n".join(f"- {s}" for s in parts if s))

    def _leader_sentence(self) -> str:
        board = self.table("leaderboard")
        if board.empty:
            return ""
        top = board[board["rank"] == board["rank"].min()]
        p = escape(self._label(self.primary))
        lead = top.iloc[0]
        if len(top) > 1:
            text = f"**{_names(top['system'])}** share the first place under {p} ({lead['value']:.3f})."
        else:
            text = f"**{escape(lead['system'])}** leads under {p} with {lead['value']:.3f}"
            if pd.notna(lead.get("lo")):
                text += (f" ({100 * (1 - self.meta.get('alpha', 0.05)):g}% bootstrap interval "
                         f"{lead['lo']:.3f} to {lead['hi']:.3f})")
            text += "."
        if "p_best" in board and pd.notna(lead.get("p_best")):
            text += f" In {self.meta.get('bootstrap', 0):,} bootstrap resamples of the items it is first with " \
                    f"probability **{lead['p_best']:.2f}**"
            others = board[(board["system"] != lead["system"]) & (board["p_best"] >= 0.05)]
            if len(others):
                text += " (" + ", ".join(f"{escape(s)} {v:.2f}" for s, v in zip(others["system"][:3],
                                                                                 others["p_best"][:3])) + ")"
            text += "."
        constant = self._constant_systems()
        if len(top) == 1 and lead["system"] in constant:
            text += (f" {escape(lead['system'])} predicts the same label set for every item: {p} rewards that "
                     "degenerate prediction on this data, so its ranking says little about skill here.")
        caveat = self._skipped_words([(lead["system"], self.primary)])
        if len(top) == 1 and caveat:
            text += f" {caveat}"
        groups = self.table("groups")
        letters = groups.set_index("system")["letters"] if "letters" in groups else {}
        mine = letters.get(lead["system"], "") if len(groups) else ""     # sharing a letter = not separated
        if isinstance(mine, str) and mine:
            same = [s for s in groups["system"] if s != lead["system"] and shares_letter(mine, letters.get(s, ""))]
            text += (f" The Holm-corrected paired bootstrap tests cannot separate {_names(same)} from it." if same
                     else " The Holm-corrected paired bootstrap tests separate it from every other system.")
            from evalreport.report.section_tables import p_floor

            floor = p_floor(self.table("pairwise"), "bootstrap")
            alpha = self.meta.get("alpha", 0.05)
            if same and floor and floor["holm"] >= alpha:
                text += (f" That says little here: with {floor['B']:,} resamples and {floor['pairs']:,} pairs no "
                         f"Holm-corrected bootstrap p-value can be below {floor['holm']:.3g} (alpha = {alpha:g}); "
                         "more resamples (--bootstrap) lower that floor.")
        return text

    def _winners(self) -> dict:
        ranks = self.table("ranks")
        ranks = ranks[~ranks["calibrated"]] if "calibrated" in ranks else ranks
        return {m: tuple(g.loc[g["rank"] == g["rank"].min(), "system"])
                for m, g in ranks.groupby("measure", sort=False)}

    def _families_sentence(self) -> str:
        wins = self._winners()
        if not wins:
            return ""
        fam = {"label": {}, "example": {}}
        for m, w in wins.items():
            fam[self.kinds.get(m, "label")].setdefault(w, []).append(m)
        words = []
        for kind, name in (("label", "label-based"), ("example", "example-based")):
            if not fam[kind]:
                continue
            total = sum(len(v) for v in fam[kind].values())
            ranked = sorted(fam[kind].items(), key=lambda kv: -len(kv[1]))
            def crowned(w, ms):
                return f"{_names(w)}{' tied' if len(w) > 1 else ''} ({len(ms)} of {total})"
            parts = [crowned(w, ms) for w, ms in ranked[:3]]
            rest = ranked[3:]
            if len(rest) == 1:          # one more winner: name it rather than count it
                parts.append(crowned(*rest[0]))
            elif rest:
                parts.append(f"{len(rest)} other winners ({sum(len(ms) for _, ms in rest)} of {total})")
            words.append(f"the {name} measures crown " + (", ".join(parts[:-1]) + " and " + parts[-1]
                                                          if len(parts) > 1 else parts[0]))
        leaders = {w for f in fam.values() for w in f}
        head = ("Every measure, label-based and example-based, puts the same system first: "
                if len(leaders) == 1 else "The measures do not agree on the winner: ")
        text = head + "; ".join(words) + "."
        return " ".join(t for t in (text, self._noise_words(wins), self._degenerate_words(wins),
                                    self._skipped_words([(w[0], m) for m, w in wins.items() if len(w) == 1],
                                                        winners=True)) if t)

    def _noise_words(self, wins: dict) -> str:
        """Which winners lead their runner-up beyond the paired bootstrap noise (paired_differences.csv:
        its winner family, Holm-corrected, :mod:`evalreport.analyses.paired`), and the
        near-ties."""
        pdiff = self.table("paired_differences")
        if pdiff.empty or "noise" not in pdiff:
            return ""
        alpha = self.meta.get("alpha", 0.05)
        if "family" in pdiff:
            pdiff = pdiff[pdiff["family"] == "winner"]
        rows = []
        for m, w in wins.items():
            r = pdiff[(pdiff["measure"] == m) & (pdiff["system_a"] == w[0])] if len(w) == 1 else pdiff.iloc[:0]
            if len(r):
                rows.append((m, r.iloc[0]))
        if not rows:
            return ""
        from evalreport.report.summary import _differences, _p_range

        p_col = "p_holm" if "p_holm" in pdiff else "p_value"
        rule = (f"paired bootstrap test of the winner against the runner-up, Holm-corrected over the {len(rows)} "
                f"measures with one winner, alpha {alpha:g}")
        near = [(m, r) for m, r in rows if r["noise"] == "within noise"]
        clear = [m for m, r in rows if r["noise"] == "beyond noise"]
        # sole winners without a verdict: no runner-up with a value, or no resample defines both values
        untested = [m for m, w in wins.items() if len(w) == 1 and m not in clear and m not in {x for x, _ in near}]
        words = []
        if not near:
            words.append(f"Every tested winner ({len(clear)} of {len(wins)} measures) leads its runner-up beyond the "
                         f"bootstrap noise ({rule})." if clear else "")
        else:
            span = (f"{_differences([r['difference'] for _, r in near])}, "
                    + ("corrected " if p_col == "p_holm" else "") + f"{_p_range([r[p_col] for _, r in near])}")
            shown = _names([f"{r['system_a']} under {self._label(m)}" for m, r in near])
            words.append(f"Near-ties, each lead over the runner-up within the bootstrap noise ({span}; {rule}): "
                         f"{shown}; " + ("that measure does not separate its first two systems." if len(near) == 1
                                         else "these measures do not separate their first two systems."))
        if untested:
            words.append("Not tested against a runner-up (no other system has a value, or no resample defines "
                         "both): " + _names([f"{wins[m][0]} under {self._label(m)}" for m in untested]) + ".")
        return " ".join(w for w in words if w)

    def _constant_systems(self) -> set:
        """Systems that predict the same label set for every item (one distinct set in cardinality.csv)."""
        card = self.table("cardinality")
        if card.empty or "distinct_sets" not in card:
            return set()
        own = card[(card["role"] == "system") & (card["distinct_sets"] == 1)]
        return set(own["source"].astype(str))

    def _degenerate_words(self, wins: dict) -> str:
        """A constant predictor among the winners: the measure rewards the degenerate prediction."""
        constant = self._constant_systems()
        won: dict = {}
        for m, w in wins.items():
            for s in w:
                if s in constant:
                    won.setdefault(s, []).append(self._label(m))
        out = [f"**A constant predictor wins:** {escape(s)} predicts the same label set for every item and still "
               f"comes first under {_names(ms)}: {'these measures reward' if len(ms) > 1 else 'this measure rewards'} "
               "the degenerate prediction on this data." for s, ms in won.items()]
        beats = self._baseline_beats_all()
        if beats:
            out.append(f"**A chance baseline beats every system** under {_names(beats)}: "
                       + ("these measures reward" if len(beats) > 1 else "this measure rewards")
                       + " a prediction without skill on this data.")
        return " ".join(out)

    def _baseline_beats_all(self) -> list[str]:
        """``"Hamming loss (empty set: 0.050)"`` for each measure whose strongest chance baseline
        (:func:`evalreport.analyses.findings.strongest_baseline`) scores better than every system."""
        from evalreport.analyses.findings import strongest_baseline

        base, scores = self.table("baselines"), self.table("scores")
        if base.empty or scores.empty:
            return []
        out = []
        for m, own in scores[scores["value"].notna()].groupby("measure", sort=False):
            higher = self._higher(m)
            best = strongest_baseline(base[base["measure"] == m], higher_is_better=higher)
            sign = 1.0 if higher else -1.0
            if best is not None and sign * float(best["value"]) > (sign * own["value"]).max() + 1e-12:
                out.append(f"{self._label(m)} ({BASELINE_WORDS.get(best['baseline'], best['baseline'])}: "
                           f"{float(best['value']):.3f})")
        return out

    def _skipped_words(self, pairs, *, winners: bool = False) -> str:
        """The caveat for values that exist only because 0/0 items or labels were left out: how many of
        the items (example_skips.csv) or labels (label_skips.csv) each (system, measure) of ``pairs``
        averages."""
        counted = []
        if self._has("label_skips"):
            ls = self.table("label_skips")
            counted += [(r["system"], r["measure"], int(r["skipped"]), int(r["total"]), "labels", r["policy"])
                        for _, r in ls.iterrows()]
        if self._has("example_skips"):
            es = self.table("example_skips")
            counted += [(r["system"], r["measure"], int(r["zero_division_items"]), int(r["items"]), "items",
                         r["policy"]) for _, r in es.iterrows() if r["zero_division_items"] > 0]
        if not counted:
            return ""
        at = {(s, m): (k, n, unit, pol) for s, m, k, n, unit, pol in counted}
        scores = self.table("scores")
        value = scores.set_index(["system", "measure"])["value"] if not scores.empty else pd.Series(dtype=float)
        valued = scores[scores["value"].notna()] if not scores.empty else scores
        parts, policies = [], set()
        for system, m in dict.fromkeys(pairs):
            if (system, m) not in at or (system, m) not in value.index or pd.isna(value[(system, m)]):
                continue
            k, n, unit, pol = at[(system, m)]
            if str(pol) == "zero":      # a 0/0 case filled with 0 lowers the value: it favours nobody
                continue
            # a case every system meets alike (the gold sets' empty items for recall) favours nobody
            fewest = min(at.get((o, m), (0,))[0] for o in valued.loc[valued["measure"] == m, "system"])
            if k <= fewest:
                continue
            policies.add(str(pol))
            used = (f"averages only {n - k:,} of the {n:,} {unit}" if str(pol) == "nan" else
                    f"counts {k:,} of the {n:,} {unit} as the {pol} policy's value")
            parts.append(f"{system}'s {self._label(m)} ({value[(system, m)]:.3f}) {used}")
        if not parts:
            return ""
        cases = ("an empty predicted or gold set, a label never predicted or never in the gold sets - of which it "
                 "has more than another system")
        if policies == {"nan"}:
            head, why = "**Defined after skipping:** ", f"the others are its 0/0 cases - {cases}"
        else:       # under one/convention the 0/0 cases are filled in, not skipped
            head, why = "**Defined with filled-in 0/0 cases:** ", f"those are its 0/0 cases - {cases}"
        return (head if winners else "Caveat: ") + _names(parts, limit=len(parts)) + f" ({why})."

    def _label_skips_sentence(self) -> str:
        """Label-based averages over fewer labels than the task's: how many each system's value left out
        (label_skips.csv), for the values that exist (an undefined one is in the undefined sentence)."""
        if not self._has("label_skips"):
            return ""
        ls = self.table("label_skips")
        if ls.empty:
            return ""
        scores = self.table("scores")
        defined = set(zip(scores.loc[scores["value"].notna(), "system"], scores.loc[scores["value"].notna(),
                                                                                    "measure"]))
        ls = ls[[(s, m) in defined for s, m in zip(ls["system"], ls["measure"])]]
        if ls.empty:
            return ""
        policy = str(ls["policy"].iloc[0])
        skipping = policy == "nan"
        parts = []
        for m, g in ls.groupby("measure", sort=False):
            g = g.sort_values("skipped", ascending=False, kind="stable")
            parts.append(f"{escape(self._label(m))}: " + _names(
                [f"{s} {int(r['total']) - int(r['skipped']) if skipping else int(r['skipped'])} of "
                 f"{int(r['total']):,}" for s, (_, r) in zip(g["system"], g.iterrows())]))
        if skipping:
            return ("**Label averages defined after skipping labels** (labels where the per-label value is 0/0, "
                    "e.g. a label never predicted, are left out of the mean; labels averaged): " + "; ".join(parts)
                    + ". Every case: label_skips.csv.")
        return (f"**Label averages with filled-in labels** (labels where the per-label value is 0/0, e.g. a label "
                f"never predicted, count as the `{escape(policy)}` policy's value; labels filled in): "
                + "; ".join(parts) + ". Every case: label_skips.csv.")

    def _tests_sentence(self) -> str:
        if not self._has("tests"):
            return ""
        t = self.table("tests")
        if t.empty:
            return ""
        out = []
        for test, g in t.groupby("test", sort=False):
            sig = int(g["significant"].astype(str).str.lower().eq("true").sum())
            out.append(f"{TEST_WORDS.get(test, test)}: {sig} of {len(g)} pairs differ significantly (Holm)")
        return "Paired tests over items - " + "; ".join(out) + "."

    def _calibration_sentence(self) -> str:
        if not self._has("calibration_summary"):
            return ""
        cs = self.table("calibration_summary")
        if cs.empty:
            return ""
        m = self.primary if self.primary in set(cs["measure"]) else cs["measure"].iloc[0]
        own = cs[cs["measure"] == m]
        first = list(own.loc[own["rank"] == own["rank"].min(), "system"])
        first_c = list(own.loc[own["rank_calibrated"] == own["rank_calibrated"].min(), "system"])
        ref = self.calibration_reference_words()
        moved = int((own["rank"] != own["rank_calibrated"]).sum())
        head = f"After prevalence calibration of every label ({ref}), "
        if set(first) == set(first_c):
            return (head + f"{_names(first_c)} stays first under {escape(self._label(m))}; "
                    f"{counted(moved, 'system')} change rank.")
        return head + f"**{_names(first_c)}** is first under {escape(self._label(m))} instead of {_names(first)}."

    def _baseline_sentence(self) -> str:
        """The strongest chance baseline (exact values, or a Monte-Carlo estimate better by more than
        2 standard errors: :func:`evalreport.analyses.findings.strongest_baseline`) and the systems
        whose bootstrap interval lies below it or holds it (indistinguishable from chance)."""
        from evalreport.analyses.findings import MC_SE, strongest_baseline

        base = self.table("baselines")
        board = self.table("leaderboard")
        if base.empty or board.empty:
            return ""
        own = base[(base["measure"] == self.primary) & base["value"].notna()]
        higher = self._higher(self.primary)
        best = strongest_baseline(own, higher_is_better=higher)
        if best is None:
            return ""
        sign = 1.0 if higher else -1.0
        b = float(best["value"])
        se = float(best["se"]) if "se" in best.index and pd.notna(best["se"]) else 0.0
        text = (f"The strongest chance baseline under {escape(self._label(self.primary))} is "
                f"{BASELINE_WORDS.get(best['baseline'], escape(best['baseline']))} ({b:.3f}"
                + (", exact" if se <= 0 else f", a Monte-Carlo estimate with standard error {se:.2g}") + ")")
        if "se" in own:
            noise = own[(sign * own["value"] > sign * b + 1e-12) & (pd.to_numeric(own["se"], errors="coerce") > 0)
                        & (own["baseline"] != best["baseline"])]
            if len(noise):
                text += (f"; {_names([BASELINE_WORDS.get(x, x) for x in noise['baseline']])} "
                         f"{'scores' if len(noise) == 1 else 'score'} higher only within {MC_SE:g} Monte-Carlo "
                         "standard errors")
        below, level, point = [], [], []
        for _, r in board[board["value"].notna()].iterrows():
            if pd.notna(r.get("lo")) and pd.notna(r.get("hi")):
                lo, hi = sorted((sign * float(r["lo"]), sign * float(r["hi"])))
                shown = f"{r['system']} ({r['value']:.3f}, interval {r['lo']:.3f} to {r['hi']:.3f})"
                if hi < sign * b - 1e-12:
                    below.append(shown)
                elif lo <= sign * b + 1e-12:
                    level.append(shown)
            elif sign * float(r["value"]) <= sign * b + 1e-12:
                point.append(f"{r['system']} ({r['value']:.3f})")
        out = []
        if below:
            out.append(f"**below chance** (the whole bootstrap interval is worse): {_names(below)}")
        if level:
            out.append(f"**indistinguishable from chance** (the bootstrap interval holds it): {_names(level)}")
        if point:
            out.append(f"at or below it (point values, no intervals): {_names(point)}")
        if not out:
            return text + ("; the bootstrap interval of every system lies above it." if board["lo"].notna().any()
                           else "; every system scores better.")
        return text + "; " + "; ".join(out) + "."

    def _undefined_sentence(self) -> str:
        """The measures with no value (0/0), grouped by the systems concerned."""
        scores = self.table("scores")
        bad = scores[scores["value"].isna()]
        if bad.empty:
            return ""
        groups: dict = {}
        for m, one in bad.groupby("measure", sort=False):
            groups.setdefault(tuple(dict.fromkeys(one["system"])), []).append(self._label(m))
        parts = [f"{_names(ms, limit=len(ms))} for {_names(systems)}" for systems, ms in groups.items()]
        n = len(bad)
        return (f"{n} value{'s are' if n != 1 else ' is'} undefined (0/0) under the "
                f"`{escape(self.meta.get('policy', 'nan'))}` policy: " + "; ".join(parts)
                + " (the reasons are in scores.csv).")

    # ------------------------------------------------------------------ 1. overview
    def ml_overview(self) -> Note:
        m = self.meta
        card = self.table("cardinality")
        gold = card[card["role"] == "gold"].iloc[0] if not card.empty else None
        lines = [f"**{m.get('n_items', 0):,} items**, **{m.get('n_labels', '?')} labels**"
                 + (f" (and {m['n_prediction_only']} label(s) found only in predictions, counted as false positives)"
                    if m.get("n_prediction_only") else "")
                 + f", **{m.get('n_systems', '?')} systems**. Each item has a set of labels (possibly empty). "
                 f"Primary measure: **{escape(self._label(self.primary))}** (`{self.primary}`)."]
        if gold is not None:
            lines.append(f"Gold sets: label cardinality (mean labels per item) **{gold['cardinality']:.2f}**, label "
                         f"density {gold['density']:.3f} (cardinality / labels), {gold['empty']:.1%} of the items "
                         f"have the empty set, {int(gold['distinct_sets']):,} distinct label sets.")
        if m.get("bootstrap"):
            lines.append(f"Uncertainty: {m['bootstrap']:,} paired bootstrap resamples over items (the same items for "
                         f"every system), seed {m.get('seed')}; "
                         f"{100 * (1 - m.get('alpha', 0.05)):g}% percentile intervals.")
        for note in self.manifest.get("notes", []):
            if not note.startswith("intervals:"):
                lines.append(f"Note: {escape(note)}.")
        return Note("\n\n".join(lines))

    def cardinality_table(self) -> Table:
        card = self.table("cardinality")
        pos = {s: i + 1 for i, s in enumerate(self.order)}
        card = card.assign(_o=[0 if r == "gold" else pos.get(s, len(pos) + 1) for r, s in zip(card["role"],
                                                                                              card["source"])])
        card = card.sort_values("_o", kind="stable").reset_index(drop=True)
        show = pd.DataFrame({"source": card["source"], "labels per item": card["cardinality"],
                             "density": card["density"], "empty sets": card["empty"],
                             "distinct sets": card["distinct_sets"].astype(int)})
        return Table(show, index=False, formats={"empty sets": "{:.1%}", "labels per item": "{:.2f}"},
                     caption="Label cardinality of the gold sets and of each system's predictions (Tsoumakas & "
                             "Katakis 2007): mean labels per item, density (cardinality / labels), share of items "
                             "with the empty set, and distinct label sets (systems in leaderboard order).")

    def label_frequency_chart(self) -> Chart:
        freq = self.table("label_frequency")
        return Chart(mlcharts.label_frequency(freq, order=self.label_order, systems=self.order), name="label-frequency",
                     caption="Share of the items that carry each label, most frequent first: the gold labels (bars) "
                             "and how often each system predicts the label (ticks). Counts are in "
                             "label_frequency.csv.")

    def set_size_chart(self) -> Chart:
        sizes = self.table("set_sizes")
        return Chart(mlcharts.set_size_heatmap(sizes, sources=["gold", *self.order]), name="set-sizes",
                     caption="How many labels each item gets: the share of items with a set of k labels, for the "
                             "gold sets (top row) and each system (best first). A system whose row is shifted left "
                             "predicts too few labels per item.")

    # ------------------------------------------------------------------ 2. leaderboard
    def leaderboard_table(self) -> Table:
        board = self.table("leaderboard")
        p_label = self._label(self.primary)
        show = pd.DataFrame({"rank": integer_ranks(board["rank"]), "system": board["system"], p_label: board["value"]})
        if board["lo"].notna().any():
            show["interval"] = ["—" if pd.isna(lo) else f"[{lo:.3f}, {hi:.3f}]" for lo, hi in zip(board["lo"],
                                                                                                  board["hi"])]
        if "p_best" in board and board["p_best"].notna().any():
            show["P(best)"] = board["p_best"]
        has_letters = "letters" in board and board["letters"].map(lambda v: isinstance(v, str) and v != "").any()
        if has_letters:
            show["letters"] = board["letters"].map(lambda v: "—" if pd.isna(v) or v == "" else str(v))
        if "rank_calibrated" in board and board["rank_calibrated"].notna().any():
            show["rank (calibrated)"] = integer_ranks(board["rank_calibrated"])
        ranks = {c: (lambda r: "" if pd.isna(r) else f"{r:g}") for c in ("rank", "rank (calibrated)") if c in show}
        return Table(show, formats=ranks, index=False,
                     caption=f"Leaderboard under {p_label}: the value, its paired bootstrap interval, the "
                             "probability of being best, and the significance letters"
                             + ("; the rank after prevalence calibration of every label." if "rank (calibrated)"
                                in show else ".")
                             + (" " + letters_sentence("bootstrap", self.meta.get("alpha", 0.05)) if has_letters
                                else ""))

    # ------------------------------------------------------------------ 3. every measure
    def ml_scores_table(self) -> Table:
        scores = self.table("scores")
        scores = scores[~scores["calibrated"]] if "calibrated" in scores else scores
        measures = list(dict.fromkeys(scores["measure"]))
        measures = [m for m in measures if self.kinds.get(m) != "example"] + \
                   [m for m in measures if self.kinds.get(m) == "example"]
        systems = [s for s in self.order if s in set(scores["system"])] or list(dict.fromkeys(scores["system"]))
        values, mark, reasons = wide_scores(scores, measures, systems)
        rows = [f"{'E' if self.kinds.get(m) == 'example' else 'L'}: {self._label(m)} "
                f"{'↑' if self._higher(m) else '↓'}" for m in measures]
        values.index = mark.index = reasons.index = rows
        values.index.name = "measure"
        return Table(values, undefined=mark, reasons=reasons,
                     caption="Every measure (rows; L: label-based, an average over the labels' 2 x 2 matrices; "
                             "E: example-based, an average over the items' sets; ↑ higher is better, ↓ lower) for "
                             "every system (columns, best first under the primary measure). Undefined (0/0) cells "
                             "are marked with the reason; definitions are in the appendix.")

    def ml_undefined_table(self) -> Table | Note:
        """Every 0/0 case met, the reason shortened where it lists many labels (the full text is in
        scores.csv)."""
        import re

        scores = self.table("scores")
        flagged = scores[(scores["reason"] != "") & ~scores["calibrated"]]
        if flagged.empty:
            return Note("No measure hit an undefined (0/0) case on these systems.")

        def short(reason: str) -> str:
            def names(m):
                items = m.group(2).split(", ")
                if len(items) <= 3:
                    return m.group(0)
                return f"({m.group(1)} {', '.join(items[:3])} and {len(items) - 3} more)"
            return re.sub(r"\((class|label)\s([^()]*)\)", names, reason)

        show = pd.DataFrame({"system": flagged["system"], "measure": flagged["measure"].map(self._label),
                             "value": flagged["value"], "reason": flagged["reason"].map(short)})
        shown = f" First {MAX_ROWS} of {len(show):,}; all in scores.csv." if len(show) > MAX_ROWS else ""
        return Table(show.head(MAX_ROWS), index=False,
                     caption="Every 0/0 case met while computing the measures (no value: the measure is undefined; "
                             "a number: the case was inside an average over labels or items and skipped or replaced "
                             "as the policy says). Long lists of labels are cut; the column reason of scores.csv "
                             "has them whole." + shown)

    # ------------------------------------------------------------------ 5. per label
    def per_label_chart(self) -> Chart:
        pl = self.table("per_label")
        return Chart(mlcharts.label_heatmap(pl, value="f1", order=self.label_order, systems=self.order,
                                            value_title="F1", marked=self.extra_labels),
                     name="per-label-f1",
                     caption="F1 of every label (rows, most frequent first) for every system (columns, best first). "
                             "Precision, recall and F1 of every label are in per_label.csv.")

    def per_label_table(self) -> Table:
        pl = self.table("per_label")
        g = pl.groupby("label", sort=False)
        best = pl.loc[pl["f1"].fillna(-1).groupby(pl["label"], sort=False).idxmax()].set_index("label")
        worst = pl.loc[pl["f1"].fillna(2).groupby(pl["label"], sort=False).idxmin()].set_index("label")
        show = pd.DataFrame({"gold items": g["support"].first().astype(int), "mean F1": g["f1"].mean(),
                             "best system": best["system"], "best F1": best["f1"], "worst system": worst["system"],
                             "worst F1": worst["f1"]})
        show = show.reindex([x for x in self.label_order if x in show.index])
        show.index.name = "label"
        more = ""
        if len(show) > 2 * MAX_ROWS:
            more = f" The {MAX_ROWS} most and {MAX_ROWS} least frequent of {len(show)} labels; all in per_label.csv."
            show = pd.concat([show.head(MAX_ROWS), show.tail(MAX_ROWS)])
        return Table(show, caption="Per label: its gold items, the mean F1 over the systems, and the systems with the "
                                   "highest and lowest F1." + more)

    # ------------------------------------------------------------------ 6. label errors
    def label_errors_chart(self) -> Chart:
        le = self.table("label_errors")
        return Chart(mlcharts.label_error_heatmap(le, order=self.label_order, systems=self.order), name="label-errors",
                     caption="Which labels each system adds (false positives) or drops (false negatives): "
                             "(added − dropped) as a share of the label's gold items; the counts are in the tooltip "
                             "and in label_errors.csv.")

    def label_errors_table(self) -> Table:
        le = self.table("label_errors")
        rows = []
        for system in [s for s in self.order if s in set(le["system"])] or list(dict.fromkeys(le["system"])):
            own = le[le["system"] == system]
            added = own[own["added"] > 0].sort_values("added", ascending=False, kind="stable").head(TOP_ERRORS)
            dropped = own[own["dropped"] > 0].sort_values("dropped", ascending=False, kind="stable").head(TOP_ERRORS)
            rows.append({"system": system, "adds most (FP)": _counted(added, "added"),
                         "drops most (FN)": _counted(dropped, "dropped"),
                         "added": int(own["added"].sum()), "dropped": int(own["dropped"].sum())})
        return Table(pd.DataFrame(rows), index=False,
                     caption=f"Per system: the {TOP_ERRORS} labels it adds most often where the gold set lacks them "
                             f"and the {TOP_ERRORS} it drops most often (counts of items), and its totals.")


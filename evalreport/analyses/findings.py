"""What a comparison found, as tidy rows: the numbers behind the report's opening findings block.

:func:`findings` reads the tables of a :class:`~evalreport.analyses.compare.Comparison` (plus the
what-if ranks and the confusion tensor) and returns one frame of rows ``finding, system, measure,
value, detail`` - every sentence of the findings block is made from these rows and nothing else,
so the report and ``findings.csv`` agree - and one frame ``fragility`` with the search per
challenger. The rows (``finding``):

``leader``            the rank-1 system under the primary measure; value = its value; detail
                      ``"sole"`` or ``"tied"`` (then one row per system tied for first)
``leader_lo`` / ``leader_hi``  its bootstrap interval (item-level input only)
``p_best``            P(rank 1) over the bootstrap resamples
``inseparable``       a system the corrected pairwise tests cannot separate from the leader (it
                      shares a significance letter with it); value = the corrected p-value of the pair; detail =
                      the test and correction
``separable_count``   how many systems the tests do separate from the leader (value); only
                      systems with a defined primary value and a significance group count
``separated_pairs``   how many pairs of systems the corrected tests separate (value); detail: out of
                      how many (``"of m"``, the pairs with a p-value)
``letters``           how many distinct letters the leaderboard's letter display uses (value)
``untested``          a system in no significance group (its primary value undefined, or not
                      tested): neither separated nor inseparable; detail = why
``p_floor``           the smallest Holm-corrected p-value the resampling test can give (m pairs
                      with a defined p-value, B resamples: m / (B + 1),
                      :func:`evalreport.analyses.resampling.p_floor`); at or above alpha no pair
                      can be separated
``resamples_needed``  then: the fewest resamples B with m / (B + 1) < alpha (value)
``winner`` / ``winner_calibrated``  per measure, the system(s) ranked first on the raw /
                      prevalence-calibrated matrices (Opitz 2022, eq. 6); value = its value
``winner_what_if``    per what-if class distribution, the system(s) ranked first under the primary
                      measure; detail = the scenario
``runner_up``         the system ranked second; value = the gap to the leader (oriented: > 0
                      means the leader is better)
``gap_noise``         value = the Holm-corrected p-value of leader vs runner-up in the family of
                      all pairs under the primary measure (the letters' family); detail
                      ``"below noise"`` when p >= alpha, else ``"beyond noise"``
``fragility``         value = the fragility count (:mod:`.fragility`); system = the challenger that needs
                      the fewest changes; detail = ``"exact: <how>"`` or ``"upper bound: <how>"``
``winner_margin``     per measure with one winner: system = the runner-up, value = the winner's lead
                      over it (oriented: > 0), from the paired bootstrap (:mod:`.paired`)
``winner_noise``      the same pair: value = its Holm-corrected p-value in the family of every
                      measure's winner-vs-runner-up test (:mod:`.paired`); detail ``"within noise"``
                      (p >= alpha: a near-tie) or ``"beyond noise"``
``constant_system``   a system that predicts one class for every item; detail = which
``degenerate_winner`` such a system ranked first: measure, value, detail = ``leader``, ``winner``,
                      ``winner_calibrated`` or ``winner_what_if: <scenario>``
``baseline_beats_all``  a measure under which the strongest chance baseline scores better than every
                      system: system = the baseline, value = its value (the measure rewards a
                      prediction without skill on this data)
``baseline_best``     the strongest chance baseline under the primary measure
                      (:func:`strongest_baseline`); system = its name, detail = ``"exact"`` or the
                      Monte-Carlo standard error
``baseline_set_aside``  a Monte-Carlo estimate above the strongest exact baseline by less than
                      :data:`MC_SE` standard errors: noise, not a stronger baseline
``below_baseline``    a system whose whole bootstrap interval is worse than the strongest baseline
``chance_level``      a system whose bootstrap interval holds it: indistinguishable from chance
``at_or_below_baseline``  without intervals (confusion matrices, no bootstrap): a system whose value
                      is at or below it. These three: value = the system's value, detail = the
                      baseline's name; ``interval_lo`` / ``interval_hi``: the interval of the first two
``baseline``          the baseline named by those rows: system = its name, value = its value
``no_value``          a system whose primary value is undefined (ranked last, in no comparison)
``undefined``         a measure with no value (0/0) for a system; detail = the reason from scores.csv
``undefined_skipped`` a class average that has a value only because undefined classes were
                      skipped; value = that value, detail = the reason
``not_available``     what cannot be said with this input, and why (detail)
``tied_first``, ``verdicts``, ``leader_verdict``, ``detectable``  rank intervals, equivalence verdicts
                      and the detectable difference (:mod:`.rank_findings`)
``slice_leads``, ``slice_leader``, ``slice_dependence``  who leads on which slice of the test set
                      (:mod:`.slice_findings`)

Label sets (:mod:`.findings_labelsets`) add ``separated_by_test`` (a cross-check test of
``pairwise``: value = the pairs it separates), ``calibration_rank_changes`` (systems whose rank
per-label calibration changes), ``skipped_labels`` / ``skipped_items`` (0/0 labels or items a
value skipped or filled in), ``rests_on_skipping`` (a leader or winner that skips more than
another system) and ``not_computed`` (what needs one confusion matrix, and why); their
``winner`` rows name the measure's family (label-based, example-based) in the detail.

Noise
-----
Every verdict on a difference comes from a corrected family of tests; the p-values are the paired
bootstrap test's (normal approximation, :func:`evalreport.analyses.significance.bootstrap_p`).
The gap between leader and runner-up is *below the bootstrap noise* when the pair's Holm-corrected
p-value over all pairs under the primary measure is at least alpha: the same family, and the same
verdict, as the significance letters.

Every measure's winner is tested against its runner-up on the same resamples
(:func:`evalreport.analyses.paired.comparison_pairs`), the family of those tests (one per measure)
corrected by Holm; both measures of every flip of the primary measure's order form a second
family. The differences are the third table, ``paired_differences``.

The fragility count (its definition and search) is in :mod:`evalreport.analyses.fragility`; its
names are importable from here as well.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evalreport.analyses.findings_labelsets import (
    constant_sets,
    is_label_sets,
    label_set_rows,
    measure_families,
    measure_record,
    rank_one,
)
from evalreport.analyses.fragility import (  # noqa: F401
    FRAGILITY_COLUMNS,
    FULL_CLASSES,
    MAX_CHALLENGERS,
    MAX_NEIGHBOURS,
    MAX_ROWS,
    MAX_STATES,
    SINGLE_CELLS,
    PairFragility,
    fragility,
    pair_fragility,
)
from evalreport.analyses.letters import (
    CLUSTER_TEST,
    TEST_NAMES,
    TWO_LEVEL_CLUSTER_TEST,
    TWO_LEVEL_TEST,
    letter_set,
    shares_letter,
)
from evalreport.analyses.paired import COLUMNS as PAIRED_COLUMNS, comparison_pairs
from evalreport.analyses.rank_findings import rank_findings
from evalreport.analyses.resampling import p_floor, resamples_needed
from evalreport.analyses.significance import ROUND_DECIMALS
from evalreport.errors import MeasureError
from evalreport.measures.scores import is_score_measure

__all__ = ["findings", "Findings", "fragility", "pair_fragility", "FULL_CLASSES", "MAX_ROWS", "MAX_CHALLENGERS",
           "COLUMNS", "strongest_baseline", "MC_SE"]

COLUMNS = ["finding", "system", "measure", "value", "detail"]
#: A Monte-Carlo baseline estimate is stronger than an exact one only when better by more than
#: this many of its standard errors.
MC_SE = 2.0


# ----------------------------------------------------------------------------- findings


@dataclass(frozen=True)
class Findings:
    """``findings``: tidy rows (finding, system, measure, value, detail); ``fragility``: per challenger;
    ``paired``: the paired bootstrap differences behind the noise verdicts (:mod:`.paired`), written as
    ``paired_differences``."""

    findings: pd.DataFrame
    fragility: pd.DataFrame
    paired: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=PAIRED_COLUMNS))

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"findings": self.findings, "fragility": self.fragility, "paired_differences": self.paired}


def findings(comp, counts=None, *, what_if: pd.DataFrame | None = None, alpha: float | None = None,
             costs=None, fragility_count: bool = True) -> Findings:
    """Every finding of the report's opening block, from the comparison's tables.

    One implementation for both count types: a comparison of label sets gets the same rows where
    they make sense, its own rows where its tables differ and a ``not_computed`` row with the
    reason for what needs one confusion matrix (:mod:`.findings_labelsets`).

    Parameters
    ----------
    comp
        A comparison of single labels (:class:`~evalreport.analyses.compare.Comparison`) or of
        label sets.
    counts
        The confusion tensor (:class:`~evalreport.counts.Counts`) of a single-label comparison,
        for the fragility count and the constant predictors; None otherwise.
    what_if
        The frame of :func:`evalreport.analyses.prevalence.what_if_ranks` (optional).
    alpha
        The significance level (default: the comparison's).
    costs
        The costs of the fragility search's moves (:func:`.fragility`).
    fragility_count
        Whether to search for the fragility count.

    Returns
    -------
    Findings
        The rows, the fragility search per challenger and the paired differences.
    """
    primary = comp.primary
    labelsets = is_label_sets(comp)
    seeds = dict(getattr(comp, "extra", {}) or {}).get("seed_spread")
    if seeds is not None:     # several runs per system: counts are per run, so no fragility count or constant systems
        counts = None
    m = measure_record(comp, primary)   # bound to the comparison's classes and gain matrix
    alpha = comp.settings.get("alpha", 0.05) if alpha is None else alpha
    rows: list[dict] = []

    def add(finding, system="", measure="", value=np.nan, detail=""):
        rows.append({"finding": finding, "system": system, "measure": measure, "value": value, "detail": detail})

    board = comp.leaderboard
    defined = board[board["value"].notna()]
    resampled = len(comp.intervals) > 0
    frag = pd.DataFrame(columns=FRAGILITY_COLUMNS)
    if defined.empty:
        add("not_available", measure=primary, detail=f"{m.label} is undefined for every system")
        return Findings(pd.DataFrame(rows, columns=COLUMNS), frag)
    top = defined[defined["rank"] == defined["rank"].min()]
    leader = str(top["system"].iloc[0])
    lead = top.iloc[0]
    for _, r in top.iterrows():
        add("leader", r["system"], primary, float(r["value"]), "tied" if len(top) > 1 else "sole")
    if resampled and pd.notna(lead["lo"]):
        add("leader_lo", leader, primary, float(lead["lo"]), f"{100 * (1 - alpha):g}% bootstrap interval")
        add("leader_hi", leader, primary, float(lead["hi"]), f"{100 * (1 - alpha):g}% bootstrap interval")
    if resampled and pd.notna(lead["p_best"]):
        add("p_best", leader, primary, float(lead["p_best"]), "share of bootstrap resamples ranking it first")

    # the corrected pairwise tests: the leader's significance group
    test = comp.settings.get("pairwise_test", "bootstrap")
    # several runs per system: the bootstrap draws runs, then items
    two_level = TWO_LEVEL_CLUSTER_TEST if comp.settings.get("cluster_col") else TWO_LEVEL_TEST
    test_name = (two_level if test == "bootstrap" and comp.settings.get("runs_per_system")
                 else CLUSTER_TEST if test == "bootstrap" and comp.settings.get("cluster_col")
                 else TEST_NAMES.get(test, test))
    pw = comp.pairwise[(comp.pairwise["test"] == test)] if len(comp.pairwise) else comp.pairwise
    if len(pw) and len(comp.groups):
        g = comp.groups.set_index("system")["group"]
        lead_group = g.get(leader)
        # not separated from the leader = sharing a letter with it (Piepho 2004), whatever the tiers say
        letters = comp.groups.set_index("system")["letters"]
        together = {s: shares_letter(letters.get(leader), letters.get(s)) for s in comp.groups["system"]}
        valued = set(defined["system"])
        # tested: a defined primary value and a significance group; the others are named, not counted
        tested = [s for s in comp.groups["system"] if s != leader and s in valued and pd.notna(g.get(s))]
        for s in board["system"]:
            if s != leader and s not in tested:
                add("untested", s, primary, np.nan, "no significance group: " + (
                    f"{m.label} is undefined" if s not in valued else "not tested against the others"))
        for s in tested:
            pair = pw[((pw["system_a"] == leader) & (pw["system_b"] == s))
                      | ((pw["system_b"] == leader) & (pw["system_a"] == s))]
            p = float(pair["p_holm"].iloc[0]) if len(pair) else np.nan
            if pd.notna(lead_group) and together[s]:
                add("inseparable", s, primary, p, f"{test_name} test, Holm-corrected, alpha {alpha:g}")
        n_sep = int(sum(1 for s in tested if pd.notna(lead_group) and not together[s]))
        # the smallest Holm-corrected p the test can give: m pairs with a defined p x 1 / (B + 1)
        floor = p_floor(pw, test) if "n_resamples" in pw else None
        if floor is not None:
            add("p_floor", "", primary, floor["holm"],
                f"{floor['pairs']} pair{'s' * (floor['pairs'] != 1)} with a p-value and {floor['B']:,} resamples: "
                "Holm's smallest attainable p")
            if floor["holm"] >= alpha:
                add("resamples_needed", "", primary, resamples_needed(floor["pairs"], alpha),
                    f"the fewest resamples B with {floor['pairs']} / (B + 1) below alpha {alpha:g}")
        n_pairs = int(pw["p_value"].notna().sum())
        p_corr = pw["p_holm"].to_numpy(float)
        add("separated_pairs", "", primary, int((p_corr < alpha).sum()), f"of {n_pairs:,}")
        add("letters", "", primary, _n_letters(letters), "distinct letters on the leaderboard")
        add("separable_count", leader, primary, n_sep,
            f"{test_name}, Holm-corrected over " + ("the one pair" if n_pairs == 1 else f"all {n_pairs:,} pairs")
            + f", alpha {alpha:g}")

    # who wins under each measure: raw, calibrated, what-if distributions
    ranks = comp.ranks if len(comp.systems) > 1 else comp.ranks.iloc[:0]      # one system wins trivially
    family = measure_families(comp)       # label sets: label-based or example-based, in the detail
    for cal, name in ((False, "winner"), (True, "winner_calibrated")):
        part = ranks[ranks["calibrated"].astype(bool) == cal]
        for meas, s, v in rank_one(part, "measure"):
            add(name, s, meas, float(v) if pd.notna(v) else np.nan, family.get(meas, ""))
    if what_if is not None and len(what_if) and len(comp.systems) > 1:
        wi = what_if[what_if["scenario"] != "observed"]
        for scen, s, v in rank_one(wi, "scenario"):
            add("winner_what_if", s, primary, float(v) if pd.notna(v) else np.nan, str(scen))

    # is each measure's winner ahead of its runner-up by more than the paired bootstrap noise?
    paired = pd.DataFrame(columns=PAIRED_COLUMNS)
    if comp.samples is not None and len(comp.systems) > 1:
        higher = {x: measure_record(comp, x).higher_is_better for x in comp.measures}
        margins, paired = comparison_pairs(comp, higher, alpha=alpha)
        if len(paired):
            at = paired[paired["family"] == "winner"].set_index(["measure", "system_a", "system_b"])
            for key in margins:
                r = at.loc[key]
                add("winner_margin", key[2], key[0], float(r["difference"]),
                    f"lead of {key[1]} over the runner-up (paired bootstrap; winner better: > 0)")
                add("winner_noise", key[2], key[0], float(r["p_holm"]), str(r["noise"]))

    # a constant predictor among the systems that wins, or a chance baseline that beats every system
    constant = constant_sets(comp) if labelsets else _constant_systems(counts)
    for s, label in constant.items():
        add("constant_system", s, "", np.nan, f"predicts {label} for every item")
    for r in [r for r in rows if r["finding"] in ("leader", "winner", "winner_calibrated", "winner_what_if")]:
        if r["system"] in constant:
            add("degenerate_winner", r["system"], r["measure"], r["value"],
                r["finding"] + (f": {r['detail']}" if r["finding"] == "winner_what_if" else ""))
    if len(comp.baselines) and len(comp.systems) > 1:
        for meas, one in comp.ranks[~comp.ranks["calibrated"].astype(bool)].groupby("measure", sort=False):
            rec = measure_record(comp, meas)
            vals = one["value"].dropna()
            b = strongest_baseline(comp.baselines[comp.baselines["measure"] == meas],
                                   higher_is_better=rec.higher_is_better)
            if b is None or vals.empty:
                continue
            s_sign = 1.0 if rec.higher_is_better else -1.0
            if s_sign * float(b["value"]) > (s_sign * vals).max() + 10.0 ** -ROUND_DECIMALS:
                add("baseline_beats_all", str(b["baseline"]), meas, float(b["value"]),
                    "better than every system; the best system scores "
                    f"{float(vals.loc[(s_sign * vals).idxmax()]):.6g}")

    # the runner-up, the gap and the noise
    sign = 1.0 if m.higher_is_better else -1.0
    others = defined[defined["system"] != leader]
    runner = None
    if len(others):
        runner_row = others.iloc[0]
        runner = str(runner_row["system"])
        add("runner_up", runner, primary, sign * (float(lead["value"]) - float(runner_row["value"])),
            "gap to the leader (leader better: > 0)")
        # the pair's Holm-corrected p-value in the family of all pairs: the letters' verdict
        pair = pw[((pw["system_a"] == leader) & (pw["system_b"] == runner))
                  | ((pw["system_b"] == leader) & (pw["system_a"] == runner))] if len(pw) else pw
        if len(pair) and pd.notna(pair["p_holm"].iloc[0]):
            p = float(pair["p_holm"].iloc[0])
            add("gap_noise", runner, primary, p, "below noise" if p >= alpha else "beyond noise")

    # fragility of the top position
    if len(top) > 1:
        add("fragility", str(top["system"].iloc[1]), primary, 0, "exact: tied for first")
    elif fragility_count and counts is not None and runner is not None and is_score_measure(m):
        # changed predictions move a confusion matrix; a measure of scores has none to move
        add("not_available", measure=primary, detail=f"fragility count not computed: {m.label} is computed from "
            "the systems' scores, and the count changes predicted labels")
    elif fragility_count and counts is not None and runner is not None:
        try:
            frag = fragility(counts, m, leader, positive=_positive(comp),
                             policy=comp.settings.get("policy", "nan"), costs=costs)
        except (MeasureError, ValueError) as exc:        # the count is an extra: say why it is missing
            add("not_available", measure=primary, detail=f"fragility count not computed: {exc}")
        found = frag[frag["moves"].notna()]
        if len(found):
            best = found.loc[found["moves"].astype(float).idxmin()]
            F = int(best["moves"])
            tied_min = found[found["moves"] == F]
            # every system with a defined value, the leader aside, was a challenger
            every = set(defined["system"]) - {leader} <= set(frag["system"])
            # exact when every other system was a challenger and none can need fewer than F
            exact = every and bool(frag["at_least"].notna().all()) and int(frag["at_least"].min()) >= F
            how = ("exact: " if exact else "upper bound: ") + str(best["method"])
            if not every:
                how += f"; challengers: the {len(frag)} systems closest to the leader"
            add("fragility", best["system"], primary, F,
                how + f"; leader changes {int(best['leader_moves'])}, "
                f"challenger changes {int(best['challenger_moves'])}"
                + (f"; {len(tied_min)} challengers need as few" if len(tied_min) > 1 else ""))

    # systems without a primary value: never tested, never compared with a baseline
    for s in board.loc[board["value"].isna(), "system"]:
        add("no_value", str(s), primary, np.nan, f"{m.label} is undefined")

    # chance baselines under the primary measure
    base = comp.baselines[comp.baselines["measure"] == primary] if len(comp.baselines) else comp.baselines
    strongest = strongest_baseline(base, higher_is_better=m.higher_is_better)
    if strongest is not None:
        b_name, b_value = str(strongest["baseline"]), float(strongest["value"])
        add("baseline_best", b_name, primary, b_value, _baseline_method(strongest))
        for _, r in _set_aside(base, strongest, sign).iterrows():
            add("baseline_set_aside", str(r["baseline"]), primary, float(r["value"]),
                f"Monte-Carlo estimate, se {float(r['se']):.2g}: within {MC_SE:g} standard errors of {b_name}")
        named = False
        for _, r in board.iterrows():
            if pd.isna(r["value"]):
                continue
            verdict = _chance_verdict(r, b_value, sign, resampled)
            if verdict:
                add(verdict, r["system"], primary, float(r["value"]), b_name)
                if verdict != "at_or_below_baseline":
                    level = f"{100 * (1 - alpha):g}% bootstrap interval"
                    add("interval_lo", r["system"], primary, float(r["lo"]), level)
                    add("interval_hi", r["system"], primary, float(r["hi"]), level)
                named = True
        if named:           # the value of the baseline named above, in its own row
            add("baseline", b_name, primary, b_value, "the chance baseline the systems above are compared with")

    # undefined measures and why
    sc = comp.scores[comp.scores["undefined"].astype(bool) & ~comp.scores["calibrated"].astype(bool)]
    for _, r in sc.iterrows():
        reason = "" if pd.isna(r["reason"]) else str(r["reason"])
        if pd.isna(r["value"]):
            add("undefined", r["system"], r["measure"], np.nan, reason)
        else:           # a class average with undefined classes skipped: it has a value
            add("undefined_skipped", r["system"], r["measure"], float(r["value"]), reason)

    if labelsets:       # the cross-check tests, per-label calibration, skipped labels and items
        label_set_rows(comp, add, rows, alpha=alpha, test=test)
    # rank intervals (tied for first), equivalence verdicts, the detectable difference
    rows += rank_findings(comp, alpha)

    # what this input cannot tell
    if not resampled:
        counted = any(r["finding"] == "fragility" for r in rows)
        why = ("with confusion matrices only there are no bootstrap intervals, P(best) or significance tests (they "
               "resample test items, which need item-level predictions), so whether the leader's lead is larger than "
               "the sampling noise cannot be said"
               + ("; the fragility count still shows how many changed predictions it rests on" if counted else "")
               if comp.settings.get("input") == "confusion matrices" else
               "no resampling was requested (bootstrap = 0), so there are no intervals, P(best) or significance "
               "tests, and whether the leader's lead is larger than the sampling noise cannot be said")
        add("not_available", measure=primary, detail=why)
    if seeds is not None:     # neighbours on the leaderboard closer than the spread between seeds
        from evalreport.analyses.seeds import seed_findings

        rows += seed_findings(board, seeds, primary)
    slice_leaders = dict(getattr(comp, "extra", {}) or {}).get("slice_leaders")
    if slice_leaders is not None:     # who leads on each slice, and whether the leader's lead depends on it
        from evalreport.analyses.slice_findings import slice_findings

        rows += slice_findings(board, slice_leaders, primary)
    return Findings(pd.DataFrame(rows, columns=COLUMNS), frag, paired)


def _n_letters(letters: pd.Series) -> int:
    """How many distinct letters the compact letter display uses (ranges and two-character names read as
    :func:`~evalreport.analyses.letters.letter_set` reads them)."""
    return len(set().union(*(letter_set(str(x)) for x in letters.dropna())))


def _positive(comp):
    pos = comp.settings.get("positive")
    return None if pos is None else list(comp.labels).index(pos)


# ----------------------------------------------------------------------------- chance baselines


def strongest_baseline(baselines: pd.DataFrame, *, higher_is_better: bool = True, k: float | None = None):
    """The strongest chance baseline of one measure's rows of ``baselines.csv`` (None: no value).

    Exact values (``se`` 0: constant predictors, the linear and enumerated expectations) are
    taken as they are. A Monte-Carlo estimate (``se`` > 0) is stronger than the best exact value
    only when it is better by more than ``k`` (default :data:`MC_SE`) of its standard errors: an
    estimate within that of an exact baseline is that baseline plus noise (the uniformly random
    confusion table's kappa 0.003 +- 0.004 against the exact 0.000 of fixed class sizes). Without
    any exact value the best estimate is taken. Among equals a named predictor or random model
    comes before ``constant:<class>``, and an exact value before an estimate."""
    k = MC_SE if k is None else k
    if baselines is None or not len(baselines):
        return None
    b = baselines[pd.to_numeric(baselines["value"], errors="coerce").notna()]
    if b.empty:
        return None
    sign = 1.0 if higher_is_better else -1.0
    v = sign * b["value"].astype(float).to_numpy()
    se = pd.to_numeric(b["se"], errors="coerce").fillna(0.0).to_numpy(float) if "se" in b else np.zeros(len(b))
    exact = se <= 0
    if exact.any():
        floor = v[exact].max()
        keep = exact | (v - k * se > floor + 10.0 ** -ROUND_DECIMALS)
    else:
        keep = np.ones(len(b), dtype=bool)
    v_kept = np.where(keep, v, -np.inf)
    top = v_kept.max()
    equal = np.flatnonzero(v_kept >= top - 10.0 ** -ROUND_DECIMALS)
    constant = np.array([str(x).startswith("constant:") for x in b["baseline"]])
    best = min(equal, key=lambda i: (bool(constant[i]), not bool(exact[i]), int(i)))
    return b.iloc[int(best)]


def _baseline_method(row) -> str:
    se = float(row["se"]) if "se" in row and pd.notna(row["se"]) else 0.0
    return "exact" if se <= 0 else f"Monte-Carlo estimate, se {se:.2g}"


def _set_aside(base: pd.DataFrame, strongest, sign: float) -> pd.DataFrame:
    """Monte-Carlo estimates above the strongest exact baseline by less than :data:`MC_SE` standard errors."""
    if base is None or not len(base) or "se" not in base:
        return base.iloc[:0] if base is not None else pd.DataFrame()
    b = base[base["value"].notna()]
    se = pd.to_numeric(b["se"], errors="coerce").fillna(0.0)
    better = sign * b["value"].astype(float) > sign * float(strongest["value"]) + 10.0 ** -ROUND_DECIMALS
    return b[better & (se > 0) & (b["baseline"] != strongest["baseline"])]


def _chance_verdict(r, b_value: float, sign: float, resampled: bool) -> str:
    """``below_baseline``, ``chance_level``, ``at_or_below_baseline`` or '' for a system against the baseline."""
    tol = 10.0 ** -ROUND_DECIMALS
    if resampled and pd.notna(r.get("lo")) and pd.notna(r.get("hi")):
        lo, hi = sorted((sign * float(r["lo"]), sign * float(r["hi"])))
        bo = sign * b_value
        if hi < bo - tol:
            return "below_baseline"
        return "chance_level" if lo <= bo + tol else ""
    return "at_or_below_baseline" if sign * float(r["value"]) <= sign * b_value + tol else ""


# ----------------------------------------------------------------------------- constant predictors


def _constant_systems(counts) -> dict[str, str]:
    """System -> the one class it predicts for every item (systems that predict one class only)."""
    if counts is None:
        return {}
    T = np.asarray(counts.tensor, dtype=float)
    cols = T.sum(axis=-2)                                           # (S, K) predicted class sizes
    out = {}
    for s, c in zip(counts.systems, cols):
        used = np.flatnonzero(c > 0)
        if len(used) == 1 and c.sum() > 0:
            out[str(s)] = str(counts.labels[int(used[0])])
    return out

"""Long, similar names stay distinct when shortened (evalreport.charts.names), in every chart and in
the terminal table of ``score``.

The names are those of a shared-task organiser's review (runs of 15 teams: "UniversityOfSomewhere-
NLP-run1-bert-large" and "...-run1-bert-large-copy", "Polytechnic-of-Southland-IR-run2-..." vs
"...-IRx-run2-..."), where labels cut at the end made different runs look the same in the HTML and
the PDF. Each chart is checked on what a reader sees: the axis label expression, the header label
expression, or the text field of a text mark.
"""
from __future__ import annotations

import io
import json
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from evalreport.charts import names as N

ORGANISER = [
    "BigCorpResearch-AppliedScience-run1-bert-large", "BigCorpResearch-AppliedScience-run2-roberta-large-ensemble",
    "BigCorpResearch-AppliedScience2-run1-bert-large", "BigCorpResearch-AppliedScience2-run2-roberta-large-ensemble",
    "BigCorpResearch-AppliedScience2-run3-xlm-r-base", "Independent-Researcher-42-run2-roberta-large-ensemble",
    "Independent-Researcher-42-run3-xlm-r-base", "InstituteForLanguageTechnology-A-run1-bert-large",
    "InstituteForLanguageTechnology-A-run2-roberta-large-ensemble", "InstituteForLanguageTechnology-A-run3-xlm-r-base",
    "InstituteForLanguageTechnology-B-run1-bert-large", "NationalLabOfComputing-Team-Student-run1-bert-large",
    "NationalLabOfComputing-Team-Student-run2-roberta-large-ensemble", "NationalLabOfComputing-Team-run1-bert-large",
    "Polytechnic-of-Southland-IR-run1-bert-large", "Polytechnic-of-Southland-IR-run2-roberta-large-ensemble",
    "Polytechnic-of-Southland-IRx-run1-bert-large", "Polytechnic-of-Southland-IRx-run2-roberta-large-ensemble",
    "Polytechnic-of-Southland-IRx-run3-xlm-r-base", "StartupXYZ-ML-Department-run1-bert-large",
    "TechnicalUniversityOfNowhere-CL-run1-bert-large", "TechnicalUniversityOfNowhere-CLLab-run1-bert-large",
    "TechnicalUniversityOfNowhere-CLLab-run2-roberta-large-ensemble", "UniversityOfSomewhere-NLP-run1-bert-large-copy",
    "UniversityOfSomewhere-NLP-run1-bert-large", "UniversityOfSomewhere-NLPGroup-run1-bert-large",
    "UniversityOfSomewhere-NLPGroup-run2-roberta-large-ensemble", "UniversityOfSomewhere-NLPGroup-run3-xlm-r-base",
    "UniversityOfSomewhereElse-NLP-run1-bert-large", "UniversityOfSomewhereElse-NLP-run2-roberta-large-ensemble",
    "Ωmega-<b>Évaluation<\\b>_*Ünï*_$x^2$_&amp;_`rm -rf`_#1|\\textbf{x}_日本語",
]


def faithful(name: str, shown: str) -> bool:
    """``shown`` is ``name``, or pieces of it in order with each gap (at least one character)
    replaced by one ellipsis, the first piece a prefix and the last a suffix, at most two gaps."""
    if shown == name:
        return True
    marks = [i for i, c in enumerate(shown) if c == N.ELLIPSIS]
    for k in (1, 2):
        for chosen in _combinations(marks, k):
            bounds = [-1, *chosen, len(shown)]
            pieces = [shown[a + 1:b] for a, b in zip(bounds, bounds[1:])]
            if _fits(name, pieces):
                return True
    return False


def _combinations(items, k):
    if k == 0:
        yield ()
        return
    for i, x in enumerate(items):
        for rest in _combinations(items[i + 1:], k - 1):
            yield (x, *rest)


def _fits(name: str, pieces: list[str]) -> bool:
    """The pieces lie in ``name`` in order, the first at its start and the last at its end, with at
    least one character dropped between two pieces."""
    first, last, middle = pieces[0], pieces[-1], pieces[1:-1]
    if not name.startswith(first) or not name.endswith(last):
        return False
    lo, hi = len(first), len(name) - len(last)
    if not middle:
        return hi - lo >= 1
    (mid,) = middle
    return any(name.startswith(mid, i) for i in range(lo + 1, hi - len(mid)))


def test_faithful_checker_can_fail():
    assert faithful("abcdef", "ab…ef") and faithful("abcdef", "a…cd…f") and faithful("abcdef", "abcdef")
    assert not faithful("abcdef", "ab…fe") and not faithful("abcdef", "abcdef…") and not faithful("abcdef", "abc…def")
    assert not faithful("abcdef", "a…c…d…f")


# --------------------------------------------------------------------------------------------
# the helper

NAME = st.text(alphabet="ab-_ x日…", min_size=1, max_size=40)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), budget=st.integers(N.MIN_BUDGET, 40))
def test_shortened_names_are_distinct_faithful_and_within_budget(data, budget):
    """Hypothesis: for any list of distinct names and any budget >= MIN_BUDGET, the shown names are
    distinct and faithful abbreviations; each is within the budget whenever the list is no longer
    than the number of abbreviations a name surely has, (m + 1)(m + 2) / 2 with m = (budget - 1) // 2,
    and no name contains the ellipsis itself."""
    m = (budget - 1) // 2
    names = data.draw(st.lists(NAME, min_size=1, max_size=min(30, (m + 1) * (m + 2) // 2), unique=True))
    shown = N.shorten_names(names, budget)
    assert set(shown) == set(names)
    assert len(set(shown.values())) == len(names), shown
    for n, s in shown.items():
        assert faithful(n, s), (n, s)
        if not any(N.ELLIPSIS in x for x in names):
            assert N.text_units(s) <= budget, (n, s, budget)
        if N.text_units(n) <= budget:
            assert s == n                     # a name that fits is shown whole


@settings(max_examples=100, deadline=None)
@given(names=st.lists(st.text(alphabet="ab-", min_size=1, max_size=30), min_size=2, max_size=12, unique=True),
       budget=st.integers(N.MIN_BUDGET, 20), seed=st.randoms())
def test_result_does_not_depend_on_the_order(names, budget, seed):
    shuffled = list(names)
    seed.shuffle(shuffled)
    assert N.shorten_names(names, budget) == N.shorten_names(shuffled, budget)


def test_organiser_names_distinct_at_every_budget():
    for budget in range(N.MIN_BUDGET, 60):
        shown = N.shorten_names(ORGANISER, budget)
        assert len(set(shown.values())) == len(ORGANISER), budget
        assert all(N.text_units(s) <= budget for s in shown.values())


def test_the_part_that_differs_is_kept():
    """IR-run2 and IRx-run2 differ in one letter after a 27-character common beginning: at the
    leaderboard's 250 px both shortened names keep it (the review saw ``Polytechnic-of-Southland-I…``)."""
    a, b = "Polytechnic-of-Southland-IR-run2-roberta-large-ensemble", \
        "Polytechnic-of-Southland-IRx-run2-roberta-large-ensemble"
    shown = N.shorten_names([a, b], N.budget_for(250, [a, b]))
    assert "IR-" in shown[a] and "IRx" in shown[b]
    # names that differ only at the end keep their ends
    c, d = "UniversityOfSomewhere-NLP-run1-bert-large", "UniversityOfSomewhere-NLP-run1-bert-large-copy"
    shown = N.shorten_names([c, d], 20)
    assert shown[c].endswith("large") and shown[d].endswith("copy")


def test_default_is_a_middle_ellipsis_and_short_names_stay_whole():
    shown = N.shorten_names(["short", "team-02-a-really-long-run-name-words-sys2"], 22)
    assert shown["short"] == "short"
    assert shown["team-02-a-really-long-run-name-words-sys2"] == "team-02-a-…-words-sys2"   # 10 + ellipsis + 11


def test_budget_below_minimum_is_refused():
    with pytest.raises(ValueError, match="at least"):
        N.shorten_names(["abc"], N.MIN_BUDGET - 1)


def test_wide_characters_count_twice():
    assert N.text_units("日本語") == 6 and N.text_units("abc") == 3
    shown = N.shorten_names(["日本語日本語日本語日本語"], 9)
    assert N.text_units(shown["日本語日本語日本語日本語"]) <= 9


def test_budget_for_pixels_follows_the_font():
    assert N.budget_for(130) == 18    # (130 px - two ellipses of 11.55 px less 6.5) / 6.5 px
    assert N.budget_for(130, size=8) > N.budget_for(130)    # smaller font, more characters
    assert N.budget_for(130, ["WWWWMMMM"]) < N.budget_for(130, ["illlllii"])   # wide capitals, fewer
    assert N.budget_for(1) == N.MIN_BUDGET


def test_label_expression_lookup_is_safe():
    assert N.label_expr({"a": "a"}) is None
    expr = N.label_expr({"constructor-x": "c…x", 'q"uote': 'q"…'})
    assert "indexof(" in expr and json.dumps('q"uote') in expr


# --------------------------------------------------------------------------------------------
# every chart, on the organiser's names

alt = pytest.importorskip("altair")
from evalreport import charts
from evalreport.charts import benchmark as bcharts, multilabel as mlcharts

SYSTEMS = ORGANISER
TASKS = ["track-A-en", "track-B-de", "track-C-fr"]


def _eval_label_expr(expr: str, value: str) -> str:
    """The label a Vega ``labelExpr`` of :func:`label_expr` gives ``value`` (``datum.label`` = value)."""
    m = re.fullmatch(r"indexof\((\[.*?\]), datum\.value\) < 0 \? datum\.label : "
                     r"(\[.*\])\[indexof\(\1, datum\.value\)\]", expr)
    assert m, expr
    keys, texts = json.loads(m.group(1)), json.loads(m.group(2))
    return texts[keys.index(value)] if value in keys else value


def _walk(spec):
    if isinstance(spec, dict):
        yield spec
        for v in spec.values():
            yield from _walk(v)
    elif isinstance(spec, list):
        for v in spec:
            yield from _walk(v)


def _axis_labels(spec: dict, field: str = "system") -> list[list[str]]:
    """For every encoding of ``field`` with an axis or header: the labels a reader sees for the
    field's values (through its label expression, if any), checked to fit the label limit."""
    seen = []
    values = set(SYSTEMS)
    for node in _walk(spec):
        for channel in ("x", "y", "facet", "row", "column"):
            enc = node.get(channel) if isinstance(node.get(channel), dict) else None
            if not enc or enc.get("field") != field:
                continue
            guide = enc.get("axis") or enc.get("header") or {}
            expr = guide.get("labelExpr")
            labels = [_eval_label_expr(expr, v) if expr else v for v in sorted(values)]
            limit = guide.get("labelLimit")
            if limit:   # Vega cuts a label wider than the limit at its end: that is what a reader sees
                labels = [_cut(t, limit, guide.get("labelFontSize", 11)) for t in labels]
            seen.append(labels)
    assert seen, f"no axis or header of {field!r} found"
    return seen


def _cut(text: str, limit: float, size: float = 11) -> str:
    """``text`` as Vega draws it within ``limit`` px at font ``size`` (Arial metrics): whole when it
    fits, else the longest beginning that fits with an ellipsis."""
    if N.text_px(text, size) <= limit:
        return text
    k = len(text)
    while k > 0 and N.text_px(text[:k] + N.ELLIPSIS, size) > limit:
        k -= 1
    return text[:k] + N.ELLIPSIS


def test_a_cut_label_is_seen_as_cut():
    """The check below can fail: the review's labels, cut at 110 px, look alike."""
    cut = [_cut(s, 110) for s in SYSTEMS]
    assert len(set(cut)) < len(cut)


def _distinct(label_lists):
    for labels in label_lists:
        assert len(set(labels)) == len(labels), sorted(labels)


def _task_ranks():
    rng = np.random.default_rng(0)
    rows = []
    for t in TASKS:
        ranks = rng.permutation(len(SYSTEMS)) + 1.0
        rows += [{"task": t, "system": s, "rank": r, "value": 1 - r / 40} for s, r in zip(SYSTEMS, ranks)]
    return pd.DataFrame(rows)


def test_leaderboard_and_points_charts():
    iv = pd.DataFrame({"system": SYSTEMS, "measure": "accuracy", "value": np.linspace(0.9, 0.6, len(SYSTEMS)),
                       "lo": np.nan, "hi": np.nan})
    _distinct(_axis_labels(charts.leaderboard_intervals(iv, measure="accuracy").to_dict()))
    rd = pd.DataFrame([{"system": s, "measure": "accuracy", "rank": r, "probability": 1.0 if r == i + 1 else 0.0}
                       for i, s in enumerate(SYSTEMS) for r in range(1, len(SYSTEMS) + 1)])
    labels = _axis_labels(charts.rank_distribution_chart(rd, measure="accuracy").to_dict())
    _distinct(labels)
    cal = pd.DataFrame([{"system": s, "measure": "accuracy", "value": v, "calibrated": c}
                        for s in SYSTEMS for v, c in ((0.5, False), (0.6, True))])
    _distinct(_axis_labels(charts.calibration_dumbbell(cal).to_dict()))
    cv = pd.DataFrame([{"system": s, "measure": "f1", "aggregation": a, "value": 0.5}
                       for s in SYSTEMS for a in ("pooled", "average")])
    _distinct(_axis_labels(charts.cv_estimates(cv).to_dict()))


def test_heatmaps():
    ranks = pd.DataFrame([{"system": s, "measure": m, "rank": i + 1} for i, s in enumerate(SYSTEMS)
                          for m in ("accuracy", "macro_f1")])
    for orient in ("measures_rows", "systems_rows"):
        _distinct(_axis_labels(charts.rank_heatmap(ranks, orient=orient).to_dict()))
    pairs = pd.DataFrame([{"system_a": a, "system_b": b, "measure": "accuracy", "test": "bootstrap",
                           "p_value": 0.5, "p_holm": 0.5, "p_bh": 0.5}
                          for i, a in enumerate(SYSTEMS) for b in SYSTEMS[i + 1:]])
    spec = charts.pvalue_heatmap(pairs, measure="accuracy", test="bootstrap").to_dict()
    _distinct(_axis_labels(spec, "system_a") + _axis_labels(spec, "system_b"))
    conf = pd.DataFrame([{"system": s, "gold": g, "predicted": p, "count": 1, "rate": 0.5}
                         for s in SYSTEMS[:9] for g in "ab" for p in "ab"])
    spec = charts.confusion_grid(conf).to_dict()
    header = spec["facet"]["header"] if "header" in spec["facet"] else None
    assert header is not None and "labelExpr" in header
    shown = [_eval_label_expr(header["labelExpr"], s) for s in SYSTEMS[:9]]
    assert len(set(shown)) == 9


def test_benchmark_charts():
    tr = _task_ranks()
    _distinct(_axis_labels(bcharts.task_rank_heatmap(tr).to_dict()))
    _distinct(_axis_labels(bcharts.rank_frequency(tr).to_dict()))
    dist = pd.DataFrame([{"method": m, "system": s, "rank": i + 1, "probability": 1.0}
                         for m in ("mean_rank", "borda") for i, s in enumerate(SYSTEMS)])
    labels = _axis_labels(bcharts.consensus_rank_distribution(dist).to_dict())
    _distinct(labels)
    assert all(N.text_px(t) <= 110 for ls in labels for t in ls)     # the review's 110 px, never cut by Vega
    table = pd.DataFrame([{"method": m, "system": s, "rank": float(i + 1)} for m in ("mean_rank", "kemeny")
                          for i, s in enumerate(SYSTEMS)])
    spec = bcharts.consensus_methods(table).to_dict()
    texts = [d for node in _walk(spec) for d in node.get("values", []) if isinstance(d, dict) and "shown" in d] or \
        [d for ds in spec.get("datasets", {}).values() for d in ds if "shown" in d]
    shown = [d["shown"] for d in texts]
    assert len(shown) == len(SYSTEMS) and len(set(shown)) == len(SYSTEMS)
    assert all(faithful(d["system"], d["shown"]) for d in texts)


def test_consensus_methods_large_tie_names_its_first_and_counts_the_rest():
    rows = [{"method": m, "system": s, "rank": 1.0 if i < 6 else float(i + 1)} for m in ("mean_rank", "kemeny")
            for i, s in enumerate(SYSTEMS[:10])]
    spec = bcharts.consensus_methods(pd.DataFrame(rows)).to_dict()
    ends = [d for ds in spec.get("datasets", {}).values() for d in ds if "shown" in d]
    tie = next(d for d in ends if d["rank"] == 1.0)
    assert tie["shown"].endswith(" +5 tied") and tie["system"].count(", ") == 5
    first = tie["shown"][:-len(" +5 tied")]
    assert any(faithful(s, first) for s in SYSTEMS[:6])


def test_consensus_methods_ties_show_every_name_distinct():
    """The original run and its byte-identical copy tie under every method: their shared end label
    names both, shortened so that the two stay apart."""
    a, b = "UniversityOfSomewhere-NLP-run1-bert-large", "UniversityOfSomewhere-NLP-run1-bert-large-copy"
    others = SYSTEMS[:5]
    rows = [{"method": m, "system": s, "rank": float(i + 1)} for m in ("mean_rank", "borda")
            for i, s in enumerate(others)]
    rows += [{"method": m, "system": s, "rank": 6.5} for m in ("mean_rank", "borda") for s in (a, b)]
    spec = bcharts.consensus_methods(pd.DataFrame(rows)).to_dict()
    ends = [d for ds in spec.get("datasets", {}).values() for d in ds if "shown" in d]
    tie = next(d for d in ends if a in d["system"])
    first, second = tie["shown"].split(", ")
    assert first != second and faithful(a, first) and faithful(b, second)


def test_cd_diagram_keeps_ir_and_irx_apart():
    """Demšar's CD diagram (Demšar 2006, Fig. 1) on two lines per name: the review saw IRx-run2 as
    ``Polytechnic-of-Southland-I… / run2-roberta-large-ensemble``."""
    ranks = {s: 1 + i * 0.5 for i, s in enumerate(SYSTEMS)}
    lay = bcharts.cd_layout(ranks, 2.0)
    lab = lay["labels"]
    room = lay["axis"]["room"]
    joined = ["".join(lines) for lines in lab["lines"]]
    assert len(set(joined)) == len(SYSTEMS)
    for full, lines in zip(lab["full"], lab["lines"]):
        assert len(lines) <= 2 and all(N.text_px(x, 11) <= room + 1e-9 for x in lines), lines
        assert faithful(full, "".join(lines)), (full, lines)
    irx = joined[list(lab["full"]).index("Polytechnic-of-Southland-IRx-run2-roberta-large-ensemble")]
    assert "IRx" in irx


def test_multilabel_heatmap_axes():
    rows = [{"label": f"label-{k}", "system": s, "f1": 0.5, "support": 3} for s in SYSTEMS for k in range(3)]
    spec = mlcharts.label_heatmap(pd.DataFrame(rows), order=[f"label-{k}" for k in range(3)]).to_dict()
    shown = {d["system_shown"] for ds in spec["datasets"].values() for d in ds if "system_shown" in d}
    assert len(shown) == len(SYSTEMS)


# --------------------------------------------------------------------------------------------
# the terminal table of `score`

def _table(width, names=SYSTEMS, measures=16):
    from evalreport.cli.terminal import print_table

    cols = {f"measure_{j:02d}": np.linspace(0.1, 0.9, len(names)) for j in range(measures)}
    df = pd.DataFrame(cols, index=pd.Index(names, name="system"))
    out = io.StringIO()
    print_table(df, title="evalreport score", file=out, width=width)
    return out.getvalue()


def _first_cells(text):
    return [line.split("│")[1].strip() for line in text.splitlines() if line.startswith("│")]


def test_terminal_table_full_names_when_it_fits():
    text = _table(None)
    assert all(n in text for n in SYSTEMS[:-1])
    assert "…" not in text
    text = _table(400, measures=3)
    assert all(n in _first_cells(text) for n in SYSTEMS[:-1])


def test_terminal_table_wraps_and_shortens_uniquely():
    for width in (80, 100, 200):
        text = _table(width)
        assert max(len(line) for line in text.splitlines()) <= width
        cells = _first_cells(text)
        tables = len(cells) // len(SYSTEMS)
        assert tables >= 1 and len(cells) == tables * len(SYSTEMS)
        first = cells[:len(SYSTEMS)]
        assert len(set(first)) == len(SYSTEMS), first        # no two runs look alike
        assert all(c in cells[i::len(SYSTEMS)] for i, c in enumerate(first))
        for name, c in zip(SYSTEMS, first):
            assert faithful(name, c) or faithful(name.replace("\\", "\\"), c), (name, c)
        assert all(f"measure_{j:02d}" in text for j in range(16))    # every measure, whole header

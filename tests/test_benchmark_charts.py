"""The benchmark charts (evalreport.charts.benchmark) in the shapes a benchmark report meets:
Demšar's example (4 systems x 14 data sets), 13 systems x 2 tasks, 20 x 6, and 40 x 12 with
40-character names. Every spec validates (``to_dict()``) and has the expected layers; the
critical-difference diagram's labels are checked for overlap from their positions in the spec;
rendering to PNG and SVG through vl-convert is marked slow."""
from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from test_chart_shapes import data_of, mark, views  # the spec helpers of the chart tests

alt = pytest.importorskip("altair")

from evalreport.analyses import consensus, multitask_tests
from evalreport.analyses.benchmark import rank_distribution_of
from evalreport.charts import _common, benchmark as bc, critical_difference as cdm

# Demšar (2006), JMLR 7, Table 6: AUC of C4.5 with and without curtailing (m) and pruning (cf)
# on 14 UCI data sets (rows: data sets; columns: DEMSAR_SYSTEMS). The table prints three decimals;
# in "voting" it shows C4.5+cf and C4.5+m+cf both at 0.975, but Demšar's ranks put C4.5+cf ahead
# (without that his averages 2.893 and 1.964 come out 2.929 and 1.929), hence 0.97501.
DEMSAR_SYSTEMS = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
DEMSAR_AUC = np.array([
    [0.763, 0.768, 0.771, 0.798], [0.599, 0.591, 0.590, 0.569], [0.954, 0.971, 0.968, 0.967],
    [0.628, 0.661, 0.654, 0.657], [0.882, 0.888, 0.886, 0.898], [0.936, 0.931, 0.916, 0.931],
    [0.661, 0.668, 0.609, 0.685], [0.583, 0.583, 0.563, 0.625], [0.775, 0.838, 0.866, 0.875],
    [1.000, 1.000, 1.000, 1.000], [0.940, 0.962, 0.965, 0.962], [0.619, 0.666, 0.614, 0.669],
    [0.972, 0.981, 0.97501, 0.975], [0.957, 0.978, 0.946, 0.970]])
DEMSAR_TASKS = ["adult (sample)", "breast cancer", "breast cancer wisconsin", "cmc", "ionosphere", "iris",
                "liver disorders", "lung cancer", "lymphography", "mushroom", "primary tumor", "rheum", "voting",
                "wine"]
#: Demšar (2006), section 3.2.2: average ranks, and the Nemenyi CD at alpha = 0.05 (q = 2.569).
DEMSAR_RANKS = [3.143, 2.000, 2.893, 1.964]
DEMSAR_CD = 1.25


def long_names(n):
    """``n`` distinct 40-character system names sharing long beginnings (the hard case)."""
    names = [f"team{i:02d}_multilingual_contrastive_run{i % 3}_v{i % 10}" for i in range(n)]
    names = [(s + "_" * 40)[:40] if len(s) < 40 else s[:40] for s in names]
    assert all(len(s) == 40 for s in names) and len(set(names)) == n
    return names


def scores_frame(values, systems, tasks):
    """(task, system, value) from a tasks x systems array (NaN = did not take part: no row)."""
    rows = [(t, s, float(values[i, j])) for i, t in enumerate(tasks) for j, s in enumerate(systems)
            if np.isfinite(values[i, j])]
    return pd.DataFrame(rows, columns=["task", "system", "value"])


def scores_of(task_ranks):
    return task_ranks.loc[~task_ranks["missing"], ["task", "system", "value"]].reset_index(drop=True)


def demsar():
    """consensus.task_ranks of Demšar's Table 6."""
    return consensus.task_ranks(scores_frame(DEMSAR_AUC, DEMSAR_SYSTEMS, DEMSAR_TASKS))


def synthetic(n_systems, n_tasks, *, names=None, seed=0, absent=0.0):
    """task_ranks of scores with a true order plus noise (ranks mostly but not always
    consistent); ``absent``: the share of (task, system) cells where the system did not take
    part (the first system takes part everywhere)."""
    rng = np.random.default_rng(seed)
    systems = names or [f"sys_{chr(65 + i % 26)}{i // 26 or ''}" for i in range(n_systems)]
    tasks = [f"task {t + 1}" for t in range(n_tasks)]
    values = 0.9 - 0.01 * np.arange(n_systems)[None, :] + rng.normal(0, 0.012, (n_tasks, n_systems))
    if absent:
        values[rng.random(values.shape) < absent] = np.nan
        values[:, 0] = np.where(np.isnan(values[:, 0]), 0.9, values[:, 0])
    return consensus.task_ranks(scores_frame(values, systems, tasks))


def cd_inputs(task_ranks, alpha=0.05):
    """(average ranks frame, CD, cliques) from multitask_tests' Friedman, Nemenyi and cd_cliques (the
    systems present in every task: Friedman needs complete blocks)."""
    f = multitask_tests.friedman(scores_of(task_ranks))
    cd, _, _ = multitask_tests.nemenyi(f["average_ranks"], f["N"], alpha=alpha)
    avg = pd.DataFrame({"system": list(f["average_ranks"]), "rank": list(f["average_ranks"].values())})
    return avg, cd, multitask_tests.cd_cliques(f["average_ranks"], cd)


def cliques_of(avg, cd):
    return multitask_tests.cd_cliques(dict(zip(avg["system"], avg["rank"])), cd)


def consensus_table(task_ranks):
    return consensus.consensus(scores_of(task_ranks)).table


def rank_distribution(task_ranks, seed=0, replicates=200, noise=0.01):
    """(method, system, rank, probability) as compare_benchmark makes it - consensus_ranks
    over replicates and rank_distribution_of - with the item
    bootstrap replaced by Gaussian noise on the scores (the charts only see the frame)."""
    wide = task_ranks.pivot(index="task", columns="system", values="value")
    present = wide.notna().to_numpy()
    rng = np.random.default_rng(seed)
    values = wide.to_numpy()[None] + rng.normal(0, noise, (replicates,) + wide.shape)
    ranks = consensus.consensus_ranks(values, higher_is_better=np.ones(wide.shape[0], bool), present=present)
    systems, S = wide.columns.to_numpy(dtype=object), wide.shape[1]
    return pd.concat([pd.DataFrame({"method": m, "system": np.repeat(systems, S), "rank": np.tile(np.arange(1, S + 1), S),
                                    "probability": rank_distribution_of(r).ravel()}) for m, r in ranks.items()],
                     ignore_index=True)


SHAPES = {
    "demsar_4x14": lambda: demsar(),
    "13x2": lambda: synthetic(13, 2, seed=2),
    "20x6": lambda: synthetic(20, 6, seed=3, absent=0.05),
    "40x12_long": lambda: synthetic(40, 12, names=long_names(40), seed=4, absent=0.03),
}
#: The same shapes with every system in every task (a CD diagram shows all of them).
COMPLETE = {"demsar_4x14": demsar, "13x2": SHAPES["13x2"], "20x6": lambda: synthetic(20, 6, seed=3),
            "40x12_long": lambda: synthetic(40, 12, names=long_names(40), seed=4)}


def all_charts(shape):
    tr = SHAPES[shape]()
    avg, cd, cliques = cd_inputs(COMPLETE[shape]())
    table = consensus_table(tr)
    dist = rank_distribution(tr)
    return {
        "cd_diagram": bc.cd_diagram(avg, cd, cliques, alpha=0.05),
        "task_rank_heatmap": bc.task_rank_heatmap(tr),
        "rank_frequency": bc.rank_frequency(tr),
        "rank_frequency_bootstrap": bc.rank_frequency(dist, method="kemeny"),
        "consensus_rank_distribution": bc.consensus_rank_distribution(dist, observed=table,
                                                                      methods=["mean_rank", "kemeny"]),
        "consensus_methods": bc.consensus_methods(table),
    }


# --------------------------------------------------------------------------------------------
# spec helpers


def marks(spec):
    return sorted({mark(v) for v in views(spec)})


@pytest.fixture(scope="module", params=sorted(SHAPES))
def built(request):
    return request.param, all_charts(request.param)


# --------------------------------------------------------------------------------------------
# the fixture itself: Demšar's Table 6 ranked as Demšar ranks it


def test_demsar_table_6_gives_the_published_average_ranks():
    """The fixture: Demšar (2006), section 3.2.2: average ranks 3.143, 2.000, 2.893, 1.964 (ties
    averaged) and CD = 1.25, through multitask_tests' friedman and nemenyi."""
    avg, cd, _ = cd_inputs(demsar())
    assert avg.set_index("system").loc[DEMSAR_SYSTEMS, "rank"].round(3).tolist() == DEMSAR_RANKS
    assert round(cd, 2) == DEMSAR_CD


# --------------------------------------------------------------------------------------------
# every chart in every shape: a valid spec with the expected layers


def test_every_chart_validates_with_the_expected_marks(built):
    shape, made = built
    expected = {"cd_diagram": {"rule", "text", "tick"}, "task_rank_heatmap": {"rect", "text"},
                "rank_frequency": {"bar"}, "rank_frequency_bootstrap": {"bar"},
                "consensus_rank_distribution": {"circle", "tick"}, "consensus_methods": {"line", "circle", "text"}}
    for name, chart in made.items():
        spec = chart.to_dict()                       # validates against the Vega-Lite schema
        assert expected[name] <= set(marks(spec)), (shape, name, marks(spec))
        assert spec["title"]["text"]


def test_cd_diagram_of_demsars_example():
    """Demšar (2006), section 3.2.2: CD = 1.25 at alpha = 0.05; every difference of average
    ranks (at most 3.143 - 1.964 = 1.179) is below it, so one bar joins all four classifiers."""
    avg, cd, cliques = cd_inputs(demsar())
    assert cliques == [("C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5")]
    spec = bc.cd_diagram(avg, cd, cliques).to_dict()
    texts = pd.concat([data_of(spec, v) for v in views(spec) if mark(v) == "text" and "text" in v["encoding"]])
    assert "CD = 1.25" in set(texts["text"])
    lay = bc.cd_layout(avg, cd, cliques)
    labels = lay["labels"].set_index("system")
    # 1 (best) at the left: x grows with the average rank; the better half is named on the left
    assert labels["x"].is_monotonic_increasing and lay["axis"]["x0"] < lay["axis"]["x1"]
    assert labels.loc[["C4.5+m+cf", "C4.5+m"], "side"].eq("left").all()
    assert labels.loc[["C4.5+cf", "C4.5"], "side"].eq("right").all()
    # the CD bar starts at rank 1 and is 1.25 ranks long on the same scale as the systems
    per_rank = (lay["axis"]["x1"] - lay["axis"]["x0"]) / 3
    assert lay["cd"]["x"] == pytest.approx(lay["axis"]["x0"])
    assert lay["cd"]["x2"] - lay["cd"]["x"] == pytest.approx(cd * per_rank)
    bar = lay["cliques"].iloc[0]
    assert bar["x"] < labels.at["C4.5+m+cf", "x"] and bar["x2"] > labels.at["C4.5", "x"]
    assert len(lay["cliques"]) == 1


def _boxes(lay):
    """Bounding boxes (x0, x1, y0, y1) px of the names as drawn (width estimated generously,
    capped by the mark's limit; a broken name spans its lines)."""
    ax, out = lay["axis"], []
    for _, r in lay["labels"].iterrows():
        w = min(ax["room"], max(_common.text_width(s, cdm.CD_FONT) for s in r["lines"]))
        x0 = r["text_x"] - w if r["align"] == "right" else r["text_x"]
        y0 = r["y"] - cdm.CD_LINE / 2
        out.append((r["system"], x0, x0 + w, y0, y0 + cdm.CD_LINE * len(r["lines"])))
    return out


def assert_cd_layout_is_clean(lay):
    """No two names overlap; no leader line crosses another or a name; names stay in the view."""
    boxes = _boxes(lay)
    for i, (a, ax0, ax1, ay0, ay1) in enumerate(boxes):
        assert ax0 >= -1 and ax1 <= lay["width"] + 1, f"{a} sticks out of the view"
        for b, bx0, bx1, by0, by1 in boxes[i + 1:]:
            assert ax1 <= bx0 or bx1 <= ax0 or ay1 <= by0 or by1 <= ay0, f"names {a!r} and {b!r} overlap"
    labels = lay["labels"]
    axis_y = lay["axis"]["y"]
    for _, r in labels.iterrows():
        # its vertical leader (x, axis_y..y) against other names and other horizontal leaders
        for name, x0, x1, y0, y1 in boxes:
            if name != r["system"]:
                assert not (x0 < r["x"] < x1 and y0 < r["y"] and y1 > axis_y), f"{r['system']} crosses {name}"
        for _, o in labels.iterrows():
            if o["system"] == r["system"]:
                continue
            lo, hi = sorted((o["x"], o["end_x"]))
            assert not (lo < r["x"] < hi and axis_y < o["y"] < r["y"]), f"{r['system']} crosses {o['system']}"


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_cd_diagram_labels_never_overlap(shape):
    avg, cd, cliques = cd_inputs(COMPLETE[shape]())
    lay = bc.cd_layout(avg, cd, cliques)
    assert_cd_layout_is_clean(lay)
    # the spec draws the layout: every name once, at the layout's positions
    spec = bc.cd_diagram(avg, cd, cliques).to_dict()
    names = pd.concat([data_of(spec, v) for v in views(spec) if mark(v) == "text" and "full" in
                       {e.get("field") for e in [v["encoding"].get("tooltip", [{}])[0]]}])
    assert sorted(names["full"]) == sorted(avg["system"])
    assert spec["width"] <= _common.PAGE_WIDTH


def test_cd_diagram_breaks_40_character_names_and_keeps_the_axis_readable():
    avg, cd, cliques = cd_inputs(COMPLETE["40x12_long"]())
    assert len(avg) == 40
    lay = bc.cd_layout(avg, cd, cliques)
    assert lay["labels"]["lines"].map(len).eq(2).all()             # too long for a side: two lines
    assert ("".join(lay["labels"]["lines"].iloc[0]) == lay["labels"]["system"].iloc[0])  # nothing lost
    assert lay["axis"]["x1"] - lay["axis"]["x0"] >= cdm.CD_MIN_AXIS
    numbered = np.asarray(lay["axis"]["numbered"])
    per_rank = (lay["axis"]["x1"] - lay["axis"]["x0"]) / 39
    half = np.array([_common.text_width(f"{v:.0f}") for v in numbered]) / 2
    gaps = np.diff(numbered) * per_rank - (half[1:] + half[:-1])
    assert gaps.min() >= 6 and numbered[0] == 1 and len(numbered) >= 5    # rank numbers never run together
    # clique bars that would touch are on different rows
    for _, g in lay["cliques"].groupby("row"):
        g = g.sort_values("x")
        assert (g["x"].to_numpy()[1:] > g["x2"].to_numpy()[:-1]).all()


def test_the_overlap_check_finds_overlaps():
    """The geometry checks above fail on a layout whose names share a row or whose leader lines
    cross (so that their passing means something)."""
    avg, _, _ = cd_inputs(COMPLETE["13x2"]())
    lay = bc.cd_layout(avg, 1.0)
    same_row = dict(lay, labels=lay["labels"].assign(y=lay["labels"]["y"].min()))
    with pytest.raises(AssertionError, match="overlap|crosses"):
        assert_cd_layout_is_clean(same_row)
    flipped = lay["labels"].copy()
    left = flipped["side"] == "left"
    flipped.loc[left, "y"] = flipped.loc[left, "y"].to_numpy()[::-1]     # best name lowest: lines cross
    with pytest.raises(AssertionError, match="crosses"):
        assert_cd_layout_is_clean(dict(lay, labels=flipped))


hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st


@settings(max_examples=25, deadline=None)
@given(ranks=st.lists(st.floats(1, 30), min_size=2, max_size=30),
       lengths=st.lists(st.integers(1, 60), min_size=30, max_size=30), seed=st.integers(0, 10))
def test_cd_layout_is_clean_for_any_ranks_and_name_lengths(ranks, lengths, seed):
    rng = np.random.default_rng(seed)
    names = []
    for i, n in enumerate(lengths[:len(ranks)]):
        body = "".join(rng.choice(list("abcdefghij_-. "), size=n))
        names.append(f"{i}{body}")
    avg = pd.DataFrame({"system": names, "rank": ranks})
    lay = bc.cd_layout(avg, 1.0, cliques_of(avg, 1.0))
    assert_cd_layout_is_clean(lay)


def test_cd_diagram_rejects_bad_input():
    avg, _, _ = cd_inputs(demsar())
    with pytest.raises(ValueError, match="no average rank"):
        bc.cd_diagram(avg, 1.25, [("C4.5", "C5.0")])
    with pytest.raises(ValueError, match="missing column"):
        bc.cd_diagram(avg.rename(columns={"rank": "mean"}), 1.25)
    with pytest.raises(ValueError, match="finite"):
        bc.cd_diagram(avg.assign(rank=np.nan), 1.25)
    # a mapping works as well as a frame, and no CD bar without a CD
    spec = bc.cd_diagram(dict(zip(avg["system"], avg["rank"])), None).to_dict()
    texts = pd.concat([data_of(spec, v) for v in views(spec) if mark(v) == "text"])
    assert not texts.get("text", pd.Series(dtype=str)).astype(str).str.startswith("CD").any()


# --------------------------------------------------------------------------------------------
# per-task ranks and rank frequencies


def test_task_rank_heatmap_prints_the_ranks_in_consensus_order():
    tr = demsar()
    spec = bc.task_rank_heatmap(tr).to_dict()
    cells = pd.DataFrame(spec["datasets"][spec["data"]["name"]])
    merged = cells.merge(tr, on=["task", "system"], suffixes=("", "_in"))
    assert len(merged) == 56 and (merged["rank"] == merged["rank_in"]).all()
    assert set(cells.loc[cells["task"] == "mushroom", "label"]) == {"2.5"}     # all tied: shared rank
    rect = next(v for v in views(spec) if mark(v) == "rect" and "fill" in v["encoding"])
    assert rect["encoding"]["y"]["sort"] == ["C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5"]   # by mean rank
    assert "did not take part" not in str(spec)
    order = ["C4.5", "C4.5+cf", "C4.5+m", "C4.5+m+cf"]
    rect = next(v for v in views(bc.task_rank_heatmap(tr, order=order).to_dict())
                if mark(v) == "rect" and "fill" in v["encoding"])
    assert rect["encoding"]["y"]["sort"] == order
    # an order that leaves systems out (e.g. excluded from the consensus): they follow, by mean rank
    rect = next(v for v in views(bc.task_rank_heatmap(tr, order=["C4.5"]).to_dict())
                if mark(v) == "rect" and "fill" in v["encoding"])
    assert rect["encoding"]["y"]["sort"] == ["C4.5", "C4.5+m+cf", "C4.5+m", "C4.5+cf"]
    with pytest.raises(ValueError, match="none of the systems"):
        bc.task_rank_heatmap(tr, order=["C5.0"])


def test_task_rank_heatmap_marks_missing_participation():
    tr = SHAPES["20x6"]()
    absent = int(tr["missing"].sum())
    assert absent > 0 and len(tr) == 120
    spec = bc.task_rank_heatmap(tr).to_dict()
    cells = pd.DataFrame(spec["datasets"][spec["data"]["name"]])
    assert len(cells) == 120 and int((cells["status"] == bc.MISSING_LABEL).sum()) == absent
    assert (cells.loc[cells["status"] == bc.MISSING_LABEL, "label"] == "").all()    # no number printed
    hatch = [v for v in views(spec) if mark(v) == "rule"]
    assert len(hatch) == 1 and hatch[0]["encoding"]["x"]["bandPosition"] == 0
    legend = [v for v in views(spec) if "stroke" in v["encoding"]]
    assert legend[0]["encoding"]["stroke"]["scale"]["domain"] == [bc.MISSING_LABEL]
    # missing="last": ranked last, flagged missing - still "did not take part", its rank in the tooltip
    last = consensus.task_ranks(scores_of(tr), missing="last")
    cells = pd.DataFrame((s := bc.task_rank_heatmap(last).to_dict())["datasets"][s["data"]["name"]])
    flagged = cells[cells["status"] == bc.MISSING_LABEL]
    assert len(flagged) == absent and flagged["rank_text"].str.startswith("ranked last").all()
    # without a "missing" column (a frame with only the rows taken part), the gaps are found too
    cells = pd.DataFrame((s := bc.task_rank_heatmap(tr[~tr["missing"]].drop(columns="missing")).to_dict())
                         ["datasets"][s["data"]["name"]])
    assert int((cells["status"] == bc.MISSING_LABEL).sum()) == absent


def test_rank_frequency_counts_each_task_once():
    tr = demsar()
    spec = bc.rank_frequency(tr).to_dict()
    bars = data_of(spec, next(v for v in views(spec) if mark(v) == "bar"))
    per_system = bars.groupby("system")["amount"].sum()
    assert np.allclose(per_system, 14)                    # 14 data sets each
    per_place = bars.groupby("position")["amount"].sum()
    assert np.allclose(per_place, 14)                     # every place taken once per data set
    # expected counts by hand from the ranks (a tie of n counts 1/n at each place it spans)
    firsts = bars[bars["position"] == 1].set_index("system")["amount"]
    direct = tr.assign(share=lambda d: np.where(d["rank"] == 1, 1.0, 0.0))
    share = tr.groupby(["task", "rank"])["system"].transform("size")
    spans_first = (tr["rank"] - (share - 1) / 2) <= 1
    expected = (spans_first / share).groupby(tr["system"]).sum()
    assert np.allclose(firsts.reindex(expected.index).fillna(0), expected)
    assert direct["share"].sum() <= expected.sum()


def test_rank_frequency_shows_missing_tasks_and_probabilities():
    tr = SHAPES["20x6"]()
    spec = bc.rank_frequency(tr).to_dict()
    bars = data_of(spec, next(v for v in views(spec) if mark(v) == "bar"))
    assert np.allclose(bars.groupby("system")["amount"].sum(), 6)
    assert bars.loc[bars["place"] == bc.MISSING_LABEL, "amount"].sum() == tr["missing"].sum()
    colour = next(v for v in views(spec) if mark(v) == "bar")["encoding"]["color"]
    assert colour["scale"]["domain"][-1] == bc.MISSING_LABEL and colour["scale"]["range"][-1] == _common.UNDEFINED_FILL
    dist = rank_distribution(tr)
    spec = bc.rank_frequency(dist, method="borda").to_dict()
    bars = data_of(spec, next(v for v in views(spec) if mark(v) == "bar"))
    assert np.allclose(bars.groupby("system")["amount"].sum(), 1.0)
    with pytest.raises(ValueError, match="no rows with method"):
        bc.rank_frequency(dist, method="plurality")


def test_rank_colours_darken_towards_rank_one():
    """The rank colours must print in grey: lightness strictly increases from rank 1."""
    colours = bc._ordinal_colours(40)
    rgb = np.array([[int(c[i:i + 2], 16) for i in (1, 3, 5)] for c in colours]) / 255
    luminance = rgb @ [0.2126, 0.7152, 0.0722]
    assert (np.diff(luminance) > 0).all() and luminance[-1] < 0.95


# --------------------------------------------------------------------------------------------
# the consensus: its uncertainty and the methods side by side


def test_blob_plot_orders_systems_by_the_observed_consensus():
    tr = SHAPES["13x2"]()
    table = consensus_table(tr)
    dist = rank_distribution(tr)
    spec = bc.consensus_rank_distribution(dist, observed=table, methods=["kemeny", "borda"]).to_dict()
    assert [p["title"]["text"] for p in spec["vconcat"]] == ["Kemeny", "Borda"]
    for panel, method in zip(spec["vconcat"], ["kemeny", "borda"]):
        circle = next(v for v in views(panel) if mark(v) == "circle")
        observed_rank = table[table["method"] == method].set_index("system")["rank"]
        part = dist[dist["method"] == method]
        expected = (part["rank"] * part["probability"]).groupby(part["system"]).sum()
        order = circle["encoding"]["x"]["sort"]
        assert sorted(order) == sorted(observed_rank.index)
        key = list(zip(observed_rank[order], expected[order].round(12)))
        assert key == sorted(key)                 # by observed rank, ties by expected rank
        assert circle["encoding"]["size"]["field"] == "probability"
        assert circle["encoding"]["y"]["scale"]["domain"][0] > circle["encoding"]["y"]["scale"]["domain"][1]
        tick = next(v for v in views(panel) if mark(v) == "tick")
        observed = data_of(spec, tick)
        assert set(observed["method"]) == {method} and len(observed) == 13
    with pytest.raises(ValueError, match="no rows for method"):
        bc.consensus_rank_distribution(dist, methods=["plurality"])


def test_bump_chart_highlights_the_systems_that_change_rank():
    table = consensus_table(SHAPES["20x6"]())
    spec = bc.consensus_methods(table).to_dict()
    line = next(v for v in views(spec) if mark(v) == "line")
    data = data_of(spec, line)
    spread = table.groupby("system")["rank"].agg(lambda r: r.max() - r.min())
    flagged = data.groupby("system")["changes"].first()
    assert (flagged[spread > 0] == "rank differs between methods").all()
    assert (flagged[spread == 0] == "same rank under every method").all()
    assert line["encoding"]["detail"]["field"] == "system"
    assert line["encoding"]["y"]["scale"]["domain"][0] > line["encoding"]["y"]["scale"]["domain"][1]  # 1 on top
    assert "Kemeny" in line["encoding"]["x"]["axis"]["labelExpr"]
    names = data_of(spec, next(v for v in views(spec) if mark(v) == "text"))
    assert sorted(", ".join(names["system"]).split(", ")) == sorted(table["system"].unique())
    same = table.assign(rank=table.groupby("system")["rank"].transform("first"))
    assert "every method ranks the systems the same" in str(bc.consensus_methods(same).to_dict()["title"])


def test_bump_chart_draws_tied_systems_apart():
    """Demšar's example: the median rank ties C4.5+m+cf and C4.5+m (1.5); every other method
    puts C4.5+m+cf first. The two lines must not meet (which would read as a swap)."""
    table = consensus_table(demsar())
    spec = bc.consensus_methods(table).to_dict()
    data = data_of(spec, next(v for v in views(spec) if mark(v) == "line")).set_index(["method", "system"])
    tied = data.loc["median_rank"].loc[["C4.5+m+cf", "C4.5+m"]]
    assert (tied["rank"] == 1.5).all()
    assert tied.at["C4.5+m+cf", "position"] < tied.at["C4.5+m", "position"] < 2   # apart, best on top
    untied = data[data["rank"] % 1 == 0]
    assert (untied["position"] == untied["rank"]).all()


def test_names_from_the_data_stay_text():
    """Quotes, a line break, markup and a 200-character name: every chart validates, the CD
    layout stays clean (the line break is a space, the long name is shortened by display_text)
    and a method name with quotes cannot break the bump chart's label expression."""
    names = ["it's \"quoted\"", "two\nlines", "<b>bold</b> & {x}", "x" * 200, "ünï ß 名前"]
    tr = synthetic(5, 3, names=names, seed=5)
    avg, cd, cliques = cd_inputs(tr)
    lay = bc.cd_layout(avg, cd, cliques)
    assert_cd_layout_is_clean(lay)
    assert not any("\n" in line for lines in lay["labels"]["lines"] for line in lines)
    assert max(len("".join(x)) for x in lay["labels"]["lines"]) <= _common.MAX_TEXT
    table = consensus_table(tr).replace({"method": {"borda": "bor'da\"]"}})
    for chart in (bc.cd_diagram(avg, cd, cliques), bc.task_rank_heatmap(tr), bc.rank_frequency(tr),
                  bc.consensus_rank_distribution(rank_distribution(tr)), bc.consensus_methods(table)):
        chart.to_dict()
    expr = next(v for v in views(bc.consensus_methods(table).to_dict()) if mark(v) == "line")["encoding"]["x"]
    assert json.loads(expr["axis"]["labelExpr"].split("[datum")[0])[3] == "bor'da\"]"


def test_the_package_exports_the_benchmark_charts():
    from evalreport import charts

    for name in ("cd_diagram", "task_rank_heatmap", "rank_frequency", "consensus_rank_distribution",
                 "consensus_methods"):
        assert getattr(charts, name) is getattr(bc, name) and name in charts.__all__


# --------------------------------------------------------------------------------------------
# rendering (slow): PNG and SVG through vl-convert, within the page width


@pytest.mark.slow
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_benchmark_charts_render_to_png_and_svg(shape, tmp_path):
    vl_convert = pytest.importorskip("vl_convert")
    from evalreport.charts import use_theme

    use_theme()
    try:
        for name, chart in all_charts(shape).items():
            spec = chart.to_dict()
            svg = vl_convert.vegalite_to_svg(spec)
            png = vl_convert.vegalite_to_png(spec)
            (tmp_path / f"{shape}_{name}.png").write_bytes(png)
            assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 2000
            assert svg.lstrip().startswith("<svg") and "<text" in svg
            width = float(re.search(r'<svg[^>]*\swidth="([\d.]+)"', svg).group(1))
            assert 150 < width <= 530, f"{shape} {name} is {width:.0f} px wide"
    finally:
        alt.theme.enable("default")

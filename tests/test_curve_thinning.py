"""Drawn ROC and precision-recall curves are simplified (Ramer-Douglas-Peucker; Douglas & Peucker
1973) to a stated tolerance: every point of the exact curve within it of the drawn line, and the
drawn line within it of the exact curve, the ends kept, the area under the drawn ROC curve within a
bound of the exact AUC, and a chart of 100 systems x 12 classes a bounded size. The exact curves are
scikit-learn's (``roc_curve``, ``precision_recall_curve``), so the thinning is checked against frames
it did not make."""
from __future__ import annotations

import json
import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from scored_tables import score_frames, scored_runs
from sklearn.metrics import average_precision_score, roc_auc_score, roc_curve

from evalreport.charts.curves import CURVE_PIXELS, MAX_LINES, _layout, pr_chart, roc_chart, thin_curves
from evalreport.charts.simplify import segment_distance, simplify, staircase


def _to_polyline(points: np.ndarray, line: np.ndarray) -> np.ndarray:
    """The distance of each of ``points`` (n, 2) to the polyline through ``line`` (m, 2)."""
    if len(line) == 1:
        return np.hypot(*(points - line[0]).T)
    a, b = line[:-1], line[1:]
    n, m = len(points), len(a)
    d = segment_distance(np.repeat(points, m, axis=0), np.tile(a, (n, 1)), np.tile(b, (n, 1)))
    return d.reshape(n, m).min(axis=1)


def _dense(line: np.ndarray, per: int = 8) -> np.ndarray:
    """Points along every segment of ``line``, its vertices included."""
    t = np.linspace(0.0, 1.0, per, endpoint=False)[None, :, None]
    inner = (line[:-1, None] + t * (line[1:, None] - line[:-1, None])).reshape(-1, 2)
    return np.vstack([inner, line[-1:]])


def _rdp(xy: np.ndarray, tolerance: float) -> np.ndarray:
    """The textbook recursion of Douglas & Peucker (1973), one curve: the reference."""
    keep = np.zeros(len(xy), dtype=bool)
    keep[[0, -1]] = True
    stack = [(0, len(xy) - 1)]
    while stack:
        i, j = stack.pop()
        if j - i < 2:
            continue
        d = segment_distance(xy[i + 1:j], np.repeat(xy[i:i + 1], j - i - 1, 0), np.repeat(xy[j:j + 1], j - i - 1, 0))
        k = int(np.argmax(d))
        if d[k] > tolerance:
            keep[i + 1 + k] = True
            stack += [(i, i + 1 + k), (i + 1 + k, j)]
    return keep


def _scores(seed: int, n: int, decimals: int) -> tuple[np.ndarray, np.ndarray]:
    """Gold 0/1 and scores of ``n`` items, rounded to ``decimals`` (ties for few decimals)."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < rng.uniform(0.05, 0.6)
    y[:2] = [True, False]
    s = np.round(rng.normal(size=n) + rng.uniform(0, 2.5) * y, decimals)
    return y.astype(int), s


def _roc_frame(y: np.ndarray, s: np.ndarray) -> pd.DataFrame:
    fpr, tpr, thr = roc_curve(y, s, drop_intermediate=False)
    return pd.DataFrame({"system": "s", "class": "c", "fpr": fpr, "tpr": tpr, "threshold": thr})


def _pr_frame(y: np.ndarray, s: np.ndarray) -> pd.DataFrame:
    """The precision-recall points from the top score down, as analyses.curves writes them."""
    order = np.argsort(-s, kind="stable")
    ss, yy = s[order], y[order]
    last = np.r_[np.flatnonzero(np.diff(ss)), len(ss) - 1]
    tp, fp = np.cumsum(yy)[last], np.cumsum(1 - yy)[last]
    return pd.DataFrame({"system": "s", "class": "c", "recall": np.r_[0.0, tp / tp[-1]],
                         "precision": np.r_[1.0, tp / (tp + fp)], "threshold": np.r_[np.inf, ss[last]]})


scores = st.tuples(st.integers(0, 10_000), st.integers(3, 400), st.sampled_from([1, 2, 3, 6]))
tolerances = st.sampled_from([0.001, 0.002, 0.0035, 0.007, 0.02])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scores, tolerances)
def test_the_drawn_roc_curve_stays_within_the_tolerance_and_keeps_the_auc(case, tol):
    y, s = _scores(*case)
    exact = _roc_frame(y, s)
    thin = thin_curves(exact, "fpr", "tpr", ["system", "class"], 10_000, tolerance=tol)
    a, b = exact[["fpr", "tpr"]].to_numpy(), thin[["fpr", "tpr"]].to_numpy()
    assert (b[0] == a[0]).all() and (b[-1] == a[-1]).all()                # the ends kept
    assert _to_polyline(a, b).max() <= tol + 1e-12                        # exact -> drawn
    assert _to_polyline(_dense(b), a).max() <= tol + 1e-12                # drawn -> exact
    # in the diagonal's coordinates a monotone curve is a function of slope at most 1, so two curves
    # within tol of each other differ by at most sqrt(2) tol over a run of sqrt(2): 2 tol of area
    # (seen: at most 0.88 tol over 1,200 score sets)
    assert abs(np.trapezoid(b[:, 1], b[:, 0]) - roc_auc_score(y, s)) <= 2 * tol
    assert thin["step"].tolist() == list(range(len(thin)))
    assert len(thin) <= len(exact)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scores, tolerances)
def test_the_drawn_precision_recall_staircase_stays_within_the_tolerance(case, tol):
    y, s = _scores(*case)
    exact = _pr_frame(y, s)
    x, yy, _ = staircase(exact["recall"].to_numpy(), exact["precision"].to_numpy(), np.array([0]))
    stairs = np.c_[x, yy]
    # the staircase's area is average precision (each interval of recall at its right end's precision)
    assert np.trapezoid(stairs[:, 1], stairs[:, 0]) == pytest.approx(average_precision_score(y, s), abs=1e-12)
    thin = thin_curves(exact, "recall", "precision", ["system", "class"], 10_000, tolerance=tol, steps=True)
    b = thin[["recall", "precision"]].to_numpy()
    assert (b[0] == [0, 1]).all() and (b[-1] == np.round(stairs[-1], 4)).all()      # the ends kept (rounded)
    assert _to_polyline(stairs, b).max() <= tol + 1e-12
    assert _to_polyline(_dense(b), stairs).max() <= tol + 1e-12
    length = np.hypot(*np.diff(stairs, axis=0).T).sum()
    assert abs(np.trapezoid(b[:, 1], b[:, 0]) - average_precision_score(y, s)) <= tol * length + 1e-12


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10_000), st.integers(2, 300)), min_size=1, max_size=6), tolerances)
def test_many_curves_at_once_keep_what_the_textbook_recursion_keeps_one_by_one(curves, tol):
    """Every curve refined at once, a round per level, keeps the points of the plain recursion."""
    parts = [np.random.default_rng(seed).random((n, 2)).cumsum(axis=0) / n for seed, n in curves]
    starts = np.cumsum([0] + [len(p) for p in parts[:-1]])
    got = simplify(np.vstack(parts), starts, tol)
    want = np.concatenate([_rdp(p, tol) for p in parts])
    assert (got == want).all()


def test_a_cap_keeps_the_farthest_points_and_the_ends():
    t = np.linspace(0, 1, 2001)
    xy = np.c_[t, 0.5 + 0.4 * np.sin(40 * t)]
    keep = simplify(np.vstack([xy, xy]), np.array([0, len(xy)]), 1e-6, cap=30)
    for part in (keep[:len(xy)], keep[len(xy):]):
        assert part.sum() == 30 and part[0] and part[-1]
    # the first points of a capped curve are those of its coarsest rounds: the peaks of the sine
    few = simplify(xy, np.array([0]), 1e-6, cap=3)
    assert np.flatnonzero(few).tolist()[1] in np.flatnonzero(np.abs(np.sin(40 * t)) > 0.99)


def test_a_curve_without_finite_points_is_left_out_and_rows_of_a_curve_apart_are_joined():
    frame = pd.DataFrame({"system": ["a", "b", "a", "b", "n", "n"], "class": "c",
                          "x": [0, 0, 1, 1, np.nan, np.nan], "y": [0, 0, 1, 0.5, np.nan, np.nan]})
    thin = thin_curves(frame, "x", "y", ["system", "class"], 10)
    assert thin["system"].tolist() == ["a", "a", "b", "b"] and thin["step"].tolist() == [0, 1, 0, 1]


@pytest.fixture(scope="module")
def hundred() -> dict[str, pd.DataFrame]:
    """100 systems x 12 classes x 4,000 items, half with per-class probabilities: the curve frames."""
    labels, systems = [f"class {k}" for k in range(12)], [f"team{s:03d}" for s in range(100)]
    runs, probs = scored_runs(15, 4000, systems, labels)
    return score_frames(runs, probs, without=systems[1::2])


def _size(chart) -> int:
    return len(json.dumps(chart.to_dict(), separators=(",", ":")))


@pytest.mark.slow
def test_the_curve_charts_of_100_systems_and_12_classes_stay_small(hundred):
    """Before thinning, every point of every curve drawn, these two charts took 15.8 MB (docs/benchmark.md)."""
    roc, pr = hundred["roc_curve"], hundred["pr_curve"]
    classes = sorted(set(roc["class"]))
    roc_size, pr_size = _size(roc_chart(roc, classes=classes)), _size(pr_chart(pr, classes=classes))
    assert roc_size + pr_size < 2_500_000, (roc_size, pr_size)
    # and the coloured curves are still within half a pixel of the exact ones: spot-check one
    spec = roc_chart(roc[roc["class"] == classes[0]], classes=classes[:1]).to_dict()
    data = next(iter(spec["datasets"].values())) if "datasets" in spec else spec["data"]["values"]
    drawn = pd.read_csv(pd.io.common.StringIO(data))
    side = _layout(1)[1]
    for system in list(dict.fromkeys(roc["system"]))[:MAX_LINES]:
        exact = roc[(roc["system"] == system) & (roc["class"] == classes[0])][["fpr", "tpr"]].to_numpy()
        line = drawn[(drawn["system"] == system) & (drawn["kind"] == "curve")][["fpr", "tpr"]].to_numpy()
        assert _to_polyline(exact, line).max() <= CURVE_PIXELS / side + 1e-9


QUOTE = '"'


def _page(charts) -> str:
    from evalreport.report.display import Chart
    from evalreport.report.render import vega_bundle

    body = "\n".join(Chart(chart, name=name)._html() for name, chart in charts.items())
    return f"<!doctype html><html><head><meta charset='utf-8'><script>{vega_bundle()}</script></head><body>{body}</body></html>"


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed (apt-get install chromium)")
def test_the_thinned_curves_draw_in_headless_chromium(tmp_path):
    """The inline CSV data parses in the browser: a line per curve, drawn with marks."""
    runs, probs = scored_runs(4, 600, [f"team {s}" for s in range(12)], ["a, \"quoted\"", "b", "12"])
    frames = score_frames(runs, probs)
    page = tmp_path / "curves.html"
    page.write_text(_page({"roc": roc_chart(frames["roc_curve"]), "pr": pr_chart(frames["pr_curve"])}), "utf-8")
    dom = subprocess.run([shutil.which("chromium"), "--headless", "--no-sandbox", "--disable-gpu",
                          "--disable-background-networking", "--no-first-run", f"--user-data-dir={tmp_path / 'p'}",
                          "--virtual-time-budget=20000", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=180).stdout
    for name in ("roc", "pr"):
        inner = dom.split(f'id="chart-{name}"')[1].split("</figure>")[0]
        assert re.search(r'<(svg|canvas)[^>]*class="[^"]*marks', inner), f"{name} was not drawn"
        # the three class panels, named from the data, and a line per system in each (12 systems)
        for label in ('a, "quoted"', "b", "12"):
            assert f">{label}<" in inner or f">{label.replace(QUOTE, '&quot;')}<" in inner, label
        assert len(re.findall(r'<path[^>]*aria-roledescription="line mark"', inner)) >= 3 * 12


def test_names_from_the_data_survive_the_inline_csv():
    """Commas, quotes, line breaks, markup and a name that reads as a number come back as they were,
    read as RFC 4180 CSV (Vega's reader) with the declared types: names stay strings."""
    import csv
    import io

    names = ["a,b", 'say "hi"', "two\nlines", "007", "<script>x</script>", " padded "]
    frame = pd.concat([pd.DataFrame({"system": s, "class": c, "fpr": [0.0, 0.3, 1.0], "tpr": [0.0, 0.8, 1.0],
                                     "threshold": [np.inf, 0.5, 0.1]}) for s in names for c in names[:2]])
    spec = roc_chart(frame, systems=names).to_dict()
    data = spec["datasets"][spec["data"]["name"]]
    assert spec["data"]["format"]["parse"] == {"system": "string", "class": "string", "fpr": "number",
                                               "tpr": "number", "threshold": "number", "step": "number",
                                               "kind": "string"}
    rows = list(csv.DictReader(io.StringIO(data, newline="")))
    assert {r["system"] for r in rows if r["kind"] != "chance"} == set(names)
    assert {r["class"] for r in rows} == set(names[:2])
    assert {r["threshold"] for r in rows if r["kind"] == "curve"} >= {"", "0.5", "0.1"}    # inf: no value


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 200), min_size=1, max_size=5), st.integers(2, 40), st.integers(0, 1000))
def test_no_curve_keeps_more_than_the_cap_and_every_curve_keeps_its_ends(lengths, cap, seed):
    xy = np.random.default_rng(seed).random((sum(lengths), 2))
    starts = np.cumsum([0, *lengths[:-1]])
    keep = simplify(xy, starts, 0.0, cap)
    for s, n in zip(starts, lengths):
        part = keep[s:s + n]
        assert part[0] and part[-1] and part.sum() == min(n, cap)    # tolerance 0: every point it may keep

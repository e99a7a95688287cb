"""Contract-shaped slice tables (slices, slice_leaders, slice_summary) from seeded random data, for the
tests of the slices' charts, report section, appendix and Codabench keys."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

SLICES_COLUMNS = ["system", "slice_col", "slice", "measure", "value", "lo", "hi", "n", "rank", "best", "small",
                  "overall", "difference_to_overall", "ratio_to_overall"]
LEADERS_COLUMNS = ["slice_col", "slice", "measure", "n", "best", "value", "separated", "tied", "small"]
SUMMARY_COLUMNS = ["system", "slice_col", "measure", "worst_slice", "worst_value", "best_slice", "best_value",
                   "min_max_ratio", "max_difference", "robustness_rank"]


def system_names(n: int, long: bool = False) -> list[str]:
    """``n`` system names, long ones sharing a beginning and an end (the hard case for shortening)."""
    return [f"transformer-large-finetuned-on-everything-run-{i:02d}-final" if long else f"sys{i}" for i in range(n)]


def slice_frames(n_systems: int = 4, n_slices: int = 3, *, seed: int = 0, long: bool = False, small=(),
                 measure: str = "macro_f1", names=None, column: str = "domain") -> dict[str, pd.DataFrame]:
    """The three tables for random values; ``small``: indices of small slices (5 items, no interval);
    ``names``: the slice names (default ``slice0`` ...); ``column``: the slice column. Higher values are better."""
    rng = np.random.default_rng(seed)
    systems = system_names(n_systems, long)
    slices = list(names) if names is not None else [f"slice{j}" for j in range(n_slices)]
    overall = dict(zip(systems, np.sort(rng.uniform(0.5, 0.8, n_systems))[::-1]))
    rows, leaders = [], []
    for j, s in enumerate(slices):
        v = np.clip(np.array([overall[x] for x in systems]) + rng.normal(0, 0.08, n_systems), 0, 1)
        rank = pd.Series(-v).rank(method="min").to_numpy()
        is_small = j in small
        for i, x in enumerate(systems):
            rows.append({"system": x, "slice_col": column, "slice": s, "measure": measure, "value": v[i],
                         "lo": np.nan if is_small else v[i] - 0.05, "hi": np.nan if is_small else v[i] + 0.05,
                         "n": 5 if is_small else 100, "rank": rank[i], "best": rank[i] == 1, "small": is_small,
                         "overall": overall[x], "difference_to_overall": v[i] - overall[x],
                         "ratio_to_overall": v[i] / overall[x]})
        best = systems[int(np.argmax(v))]
        sep = [] if is_small else [x for x, val in zip(systems, v) if v.max() - val > 0.1]
        tied = [x for x in systems if x != best and x not in sep]
        leaders.append({"slice_col": column, "slice": s, "measure": measure, "n": 5 if is_small else 100,
                        "best": best, "value": float(v.max()), "separated": "; ".join(sep), "tied": "; ".join(tied),
                        "small": is_small})
    frame = pd.DataFrame(rows, columns=SLICES_COLUMNS)
    summary = []
    for x, part in frame.groupby("system", sort=False):
        lo, hi = part.loc[part["value"].idxmin()], part.loc[part["value"].idxmax()]
        summary.append({"system": x, "slice_col": column, "measure": measure, "worst_slice": lo["slice"],
                        "worst_value": lo["value"], "best_slice": hi["slice"], "best_value": hi["value"],
                        "min_max_ratio": lo["value"] / hi["value"], "max_difference": hi["value"] - lo["value"]})
    summ = pd.DataFrame(summary)
    summ["robustness_rank"] = (-summ["worst_value"]).rank(method="min")
    board = pd.DataFrame({"rank": np.arange(1, n_systems + 1), "system": systems,
                          "value": [overall[x] for x in systems], "lo": np.nan, "hi": np.nan})
    return {"slices": frame, "slice_leaders": pd.DataFrame(leaders, columns=LEADERS_COLUMNS),
            "slice_summary": summ[SUMMARY_COLUMNS], "leaderboard": board}


def write_tables(folder: Path, frames: dict[str, pd.DataFrame], primary: str = "macro_f1") -> Path:
    """The frames as the report's CSV tables, with the manifest naming the primary measure."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, df in frames.items():
        df.to_csv(folder / f"{name}.csv", index=False)
    (folder / "manifest.json").write_text(json.dumps({"primary": primary, "measures": [primary]}), encoding="utf-8")
    return folder

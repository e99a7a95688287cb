"""The leaderboard page of a benchmark (several tasks): a consensus view and one interactive view per task.

Built from a benchmark's output folder (``benchmark --out`` or ``report`` of a benchmark: the root ``tables/`` with
``consensus``, ``consensus_p_first`` and ``task_ranks``, and ``tasks/<folder>/`` with each task's comparison). The
consensus view is a table of every system's consensus rank under each method of
:mod:`evalreport.analyses.consensus` (mean rank first, the benchmark report's default) with P(first); each task's
view is the single-task component (:func:`evalreport.report.leaderboard_page.component_html`). A selector switches
views; only one is shown at a time.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from evalreport import escape
from evalreport.errors import InputError
from evalreport.report.leaderboard_data import page_data, read_tables

__all__ = ["benchmark_folder", "benchmark_page_html", "CONSENSUS_FIRST"]

#: The consensus method listed first and used for the order of the consensus view (as in the benchmark report).
CONSENSUS_FIRST = "mean_rank"


def benchmark_folder(folder: str | Path) -> Path | None:
    """The tables folder of a benchmark's output (the root ``manifest.json`` names ``task_folders``), else None.

    Parameters
    ----------
    folder : path
        A benchmark report's folder, its ``tables/``, or any other folder.

    Returns
    -------
    pathlib.Path or None
    """
    root = Path(folder)
    for candidate in (root, root / "tables"):
        manifest = candidate / "manifest.json"
        if manifest.is_file():
            try:
                if "task_folders" in json.loads(manifest.read_text(encoding="utf-8")):
                    return candidate
            except (ValueError, UnicodeDecodeError):
                return None
    return None


def _consensus_table(root: Path, systems: list[str]) -> str:
    """The consensus view: one row per system (ordered by :data:`CONSENSUS_FIRST`), a rank column per method."""
    from evalreport.report.write import read_json_table

    cons = read_json_table(root / "consensus.json") if (root / "consensus.json").is_file() else pd.DataFrame()
    if not len(cons):
        return "<p>This benchmark's tables have no consensus ranking.</p>"
    methods = list(dict.fromkeys(cons["method"]))
    methods = sorted(methods, key=lambda m: (m != CONSENSUS_FIRST, methods.index(m)))
    rank = cons.pivot_table(index="system", columns="method", values="rank", aggfunc="first")
    first = root / "consensus_p_first.json"
    p_first = read_json_table(first) if first.is_file() else pd.DataFrame()
    p = (p_first[p_first["method"] == methods[0]].set_index("system")["probability"] if len(p_first)
         else pd.Series(dtype=float))
    order = sorted(rank.index, key=lambda s: (rank.loc[s].get(methods[0], float("inf")), str(s)))
    order += [s for s in systems if s not in rank.index]

    def cell(v: Any) -> str:
        return "" if v is None or v != v else (f"{v:g}" if isinstance(v, float) else escape.html(v))

    head = "".join(f'<th scope="col">{escape.html(m.replace("_", " "))}</th>' for m in methods)
    rows = []
    for s in order:
        ranks = "".join(f"<td>{cell(rank.loc[s].get(m)) if s in rank.index else ''}</td>" for m in methods)
        prob = f"{p[s]:.3f}" if s in p.index and p[s] == p[s] else ""
        rows.append(f'<tr><th scope="row" class="lb-name">{escape.html(s)}</th>{ranks}<td>{prob}</td></tr>')
    caption = (f"Consensus ranks of every system over the tasks under each aggregation method (columns); rows in "
               f"{CONSENSUS_FIRST.replace('_', ' ')} order; P(first) is the share of consensus bootstrap replicates "
               f"in which the system is first under {methods[0].replace('_', ' ')}.")
    return (f'<div class="lb-wrap"><table class="lb-table"><caption>{escape.html(caption)}</caption><thead><tr>'
            f'<th scope="col" class="lb-name">System</th>{head}<th scope="col">P(first)</th></tr></thead><tbody>{"".join(rows)}'
            f"</tbody></table></div>")


def benchmark_page_html(folder: str | Path, *, title: str = "Leaderboard", bundle: str | None = None) -> str:
    """The benchmark's page: a view selector, the consensus view and one interactive leaderboard per task.

    Parameters
    ----------
    folder : path
        The benchmark's tables folder (:func:`benchmark_folder`).
    title : str
        The page's title.
    bundle : str, optional
        The Vega JavaScript for the tasks' charts (:func:`evalreport.report.render.vega_bundle`).

    Returns
    -------
    str
        One self-contained HTML document.
    """
    from evalreport.report.leaderboard_page import assets_html, component_html, document

    root = Path(folder)
    manifest: Mapping[str, Any] = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    folders: Mapping[str, str] = manifest.get("task_folders") or {}
    if not folders:
        raise InputError("the benchmark's manifest names no task folders", path=str(root / "manifest.json"))
    style, script = assets_html()
    options = ['<option value="consensus">Consensus over the tasks</option>']
    views = [f'<section data-lb-view="consensus"><h2>Consensus over {len(folders)} tasks</h2>'
             f'{_consensus_table(root, [str(s) for s in manifest.get("systems") or ()])}</section>']
    for k, (task, sub) in enumerate(folders.items(), start=1):
        tables, task_manifest, prov = read_tables(root / "tasks" / sub)
        data = page_data(tables, task_manifest, provenance=prov, title=str(task))
        options.append(f'<option value="task-{k}">Task: {escape.html(task)}</option>')
        views.append(f'<section data-lb-view="task-{k}" hidden><h2>Task: {escape.html(task)}</h2>'
                     + component_html(data, root_id=f"lb-task-{k}", chart=bundle is not None, footer=False,
                                      assets=False) + "</section>")
    chooser = ('<div class="lb-controls"><div><label for="lb-view">View</label>'
               f'<select id="lb-view" data-lb-views>{"".join(options)}</select></div></div>')
    lead = (f"{len(manifest.get('systems') or ())} systems on {len(folders)} tasks. The consensus view ranks the "
            "systems over the tasks; each task's view is its own leaderboard, where the reader picks the measure.")
    return document(title, style + f"<p>{escape.html(lead)}</p>" + chooser + "".join(views) + script, bundle=bundle)

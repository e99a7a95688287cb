"""Build the multi-label report: label sets in, one report folder out.

    MultiLabelRuns -> compare (every table of the comparison)
                   -> tables/*.csv + *.json   (the comparison's tables, plus label_frequency,
                                               set_sizes, measures, inputs, report.json)
                   -> notebooks: multilabel.ipynb, appendix.ipynb (parameter: the tables folder)
                   -> render (one HTML page, one PDF)

The layout and the guarantees are those of :func:`evalreport.report.build.build_report`: built in
a staging folder and swapped into place atomically (a failure leaves the previous output as it
was), an output folder that holds an input is refused, the folder is a project that ``evalreport
render DIR`` renders again, and ``tables/timings.json`` records the time of every stage.
"""
from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from evalreport._atomic import atomic_dir
from evalreport.inputs.settings import Settings
from evalreport.report.build import (
    REPORT_PRELOAD,
    Stages,
    execute_and_render,
    protected_inputs,
    provenance,
    report_plugin_sources,
    report_runner,
)
from evalreport.report.write import write_comparison, write_frames
from evalreport.words import counted

__all__ = ["build_multilabel_report", "analyse_multilabel", "label_frequency_frame", "set_size_frame",
           "MULTILABEL_NOTEBOOKS"]

#: The notebooks of a multi-label report, in order.
MULTILABEL_NOTEBOOKS = ("multilabel", "appendix")
#: Imported by the notebooks' kernel as soon as it starts, while the analyses run.
_PRELOAD = (*REPORT_PRELOAD, "evalreport.report.sections.multilabel")


def start_runner():
    """The multi-label report's kernel, started now (:func:`evalreport.report.build.start_runner`)."""
    from evalreport.report.build import start_runner as start

    return start(_PRELOAD)


def _by_source(runs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The gold sets and each system's, stacked ``(1 + S, N, L)``, with their source and role names."""
    gold = np.asarray(runs.gold, dtype=bool)
    sources = np.asarray(["gold", *runs.systems], dtype=object)
    roles = np.asarray(["gold"] + ["system"] * len(runs.systems), dtype=object)
    return np.concatenate([gold[None], np.asarray(runs.pred, dtype=bool)]), sources, roles


def label_frequency_frame(runs) -> pd.DataFrame:
    """How often each label is given, by the gold sets and by each system's predictions:
    label, source (``gold`` or a system), role (gold | system), count (items with the label),
    share (count / items). Labels in the runs' order."""
    sets, sources, roles = _by_source(runs)
    n, L = sets.shape[1:]
    counts = sets.sum(axis=1)                                                    # (1 + S, L)
    return pd.DataFrame({"label": np.tile(np.asarray(runs.labels, dtype=object), len(sources)),
                         "source": np.repeat(sources, L), "role": np.repeat(roles, L),
                         "count": counts.ravel().astype(np.int64),
                         "share": counts.ravel() / n if n else np.full(counts.size, np.nan)})


def set_size_frame(runs) -> pd.DataFrame:
    """The distribution of labels per item (the set size), for the gold sets and each system:
    source, role, size (0, 1, ... the largest seen in any source), items, share. Every size from
    0 to the largest is listed for every source (zero rows included), so each source's rows are
    a histogram."""
    sets, sources, roles = _by_source(runs)
    n = sets.shape[1]
    sizes = sets.sum(axis=-1)                                                    # (1 + S, N)
    top = int(sizes.max()) if sizes.size else 0
    hist = np.stack([np.bincount(row, minlength=top + 1) for row in sizes]) if n else \
        np.zeros((len(sets), top + 1), dtype=np.int64)
    k = top + 1
    return pd.DataFrame({"source": np.repeat(sources, k), "role": np.repeat(roles, k),
                         "size": np.tile(np.arange(k), len(sources)), "items": hist.ravel().astype(np.int64),
                         "share": hist.ravel() / n if n else np.full(hist.size, np.nan)})


def analyse_multilabel(runs: Any, tables: Path, settings: Settings | None = None, *, stages: Stages | None = None,
                       sources: Sequence[Any] | None = None, progress: Callable | None = None,
                       **changes: Any) -> dict:
    """Every analysis of a multi-label report, written into ``tables`` (which must not exist).

    :func:`~evalreport.analyses.compare.compare`, its tables and manifest, the label
    frequencies and set sizes (:func:`label_frequency_frame`, :func:`set_size_frame`), the
    definitions of the measures, the inputs with their SHA-256, and ``report.json`` (title, facts,
    settings, provenance).

    Parameters
    ----------
    runs : MultiLabelRuns
        The label sets.
    tables : Path
        The folder the tables go to.
    settings : Settings, optional
        The settings (its primary measure defaults to ``f1_macro``; ``randomization``,
        ``calibration_reference``, ``baseline_samples`` and ``audit`` are the label sets' own);
        ``changes`` are keyword shorthands for its fields.
    stages : Stages, optional
        Where the long steps report their progress and time.
    sources : list of Source, optional
        The inputs to record (default: the runs' own).
    progress : callable, optional
        ``progress(done, total)`` of the resampling.

    Returns
    -------
    dict
        ``comparison`` and ``meta`` (the report.json written).
    """
    from evalreport.analyses.compare import compare
    from evalreport.measures import catalogue_frame

    settings = Settings.coerce(settings, **changes)
    bootstrap, seed, alpha, policy = settings.bootstrap, settings.seed, settings.alpha, settings.policy
    stages = stages or Stages(False)
    tables = Path(tables)
    S, L, N = len(runs.systems), len(runs.labels), int(np.asarray(runs.gold).shape[0])
    with stages.stage(f"comparing {counted(S, 'system')} on {counted(N, 'item')} and {counted(L, 'label')}"
                      + (f" ({counted(bootstrap, 'bootstrap resample')})" if bootstrap else "")):
        comp = compare(runs, settings, progress=progress)
    write_comparison(comp, tables)
    sources = tuple(sources if sources is not None else getattr(runs, "sources", ()))
    frames = {"label_frequency": label_frequency_frame(runs), "set_sizes": set_size_frame(runs),
              "measures": catalogue_frame(comp.measures),
              "inputs": pd.DataFrame([{"role": s.role, "system": s.system or "", "path": s.path, "rows": s.rows,
                                       "sha256": s.sha256} for s in sources],
                                     columns=["role", "system", "path", "rows", "sha256"])}
    # the findings (findings.csv, as a single-label report writes it) and the paired differences behind them
    from evalreport.analyses.findings import findings

    found = findings(comp, alpha=alpha)
    frames.update(findings=found.findings, paired_differences=found.paired)
    write_frames(tables, frames)
    n_task = int(getattr(runs, "n_task", None) or L)
    meta = {"title": settings.title or "Multi-label evaluation report", "task": "multilabel",
            "primary": comp.primary, "n_items": N, "n_labels": n_task,
            "n_classes": n_task, "n_prediction_only": L - n_task, "n_systems": S, "policy": policy,
            "bootstrap": bootstrap, "seed": seed, "alpha": alpha, "needs": [],
            "pairwise_test": comp.settings.get("pairwise_test", "bootstrap"),
            "settings": dict(comp.settings), "provenance": provenance(settings.command, sources)}
    (tables / "report.json").write_text(json.dumps(meta, indent=1, default=str) + "\n", encoding="utf-8")
    return {"comparison": comp, "meta": meta}


def build_multilabel_report(runs: Any, out_dir: str | Path, settings: Settings | None = None, *,
                            sources: Sequence[Any] | None = None, include: Mapping[str, Path] | None = None,
                            inputs: Sequence[str | Path] = (), plugins: Sequence[str | Path] = (),
                            runner: Any = None, **changes: Any) -> dict[str, Path]:
    """One report folder for a :class:`~evalreport.inputs.multilabel.MultiLabelRuns`.

    Findings, overview (cardinality, label frequencies, labels per item), leaderboard, every
    measure, rank correlation, the per-label view, label errors, pairwise tests, prevalence
    calibration per label, chance baselines for sets, the audit of the example-based measures and
    the appendix (the sections of :mod:`evalreport.report.sections.multilabel`; a table the
    comparison does not have leaves its section out).

    Parameters
    ----------
    runs : MultiLabelRuns
        The label sets.
    out_dir : path
        Receives ``report.html`` and ``report.pdf`` (per ``settings.formats``), ``notebooks/``,
        ``tables/`` (every table as CSV and JSON, ``report.json``, ``timings.json``).
    settings : Settings, optional
        The settings (:func:`analyse_multilabel`; title, formats, engine, progress);
        ``changes`` are keyword shorthands for its fields.
    sources, include, inputs, plugins, runner
        As in :func:`evalreport.report.build.build_report`.

    Returns
    -------
    dict
        Format or folder name -> path: ``html``, ``pdf``, ``tables``, ``notebooks``.
    """
    settings = Settings.coerce(settings, **changes)
    title = settings.title or "Multi-label evaluation report"
    out_dir = Path(out_dir)
    own = list(sources if sources is not None else getattr(runs, "sources", ()))
    if plugins:
        own += report_plugin_sources(plugins)
    guarded = protected_inputs(out_dir, inputs, own, include)
    stages = Stages(settings.progress)
    # the kernel starts (and imports the report code) while the analyses run
    with atomic_dir(out_dir, inputs=guarded) as staging, report_runner(staging, _PRELOAD, runner=runner) as runner:
        tables = staging / "tables"
        done = analyse_multilabel(runs, tables, settings.replace(title=title), stages=stages, sources=own)
        meta = done["meta"]
        from evalreport.measures.labels import short_measure_label

        subtitle = (f"{meta['n_systems']} systems, {meta['n_items']:,} items, {meta['n_labels']} labels (multi-label); "
                    f"primary measure {short_measure_label(meta['primary'])}")
        paths = execute_and_render(staging, list(MULTILABEL_NOTEBOOKS), title=title, formats=settings.formats,
                                    engine=settings.engine,
                                    stages=stages, plugins=[str(Path(p).resolve()) for p in plugins or ()],
                                    subtitle=subtitle, runner=runner)
        for name, folder in dict(include or {}).items():   # e.g. the demo's input files, as OUTDIR/data
            shutil.copytree(folder, staging / name)
        timings = {k: round(v, 2) for k, v in stages.times.items()}
        (tables / "timings.json").write_text(json.dumps(timings, indent=1) + "\n", encoding="utf-8")
    out = {fmt: out_dir / Path(p).name for fmt, p in paths.items()}
    out.update(tables=out_dir / "tables", notebooks=out_dir / "notebooks")
    return out

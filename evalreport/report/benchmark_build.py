"""Build a benchmark report: several tasks ranked together, in ONE report folder.

    Benchmark -> compare_benchmark (every task compared once, then across tasks)
              -> tables/*.csv + *.json            (the benchmark's own tables)
              -> tables/tasks/<folder>/...        (each task's single-task tables: analyse(comparison=...))
              -> tables/audit.csv                 (one audit, for the union of the tasks' measures)
              -> notebooks: benchmark.ipynb, then per task report.ipynb (+ crossval, ordinal) prepared
                 as its section (:func:`evalreport.report.task_sections.prepare_task_notebook`),
                 then audit.ipynb and appendix.ipynb
              -> render (one HTML page, one PDF)

The layout and the guarantees are those of :func:`evalreport.report.build.build_report`: built
in a staging folder and swapped into place atomically, the folder is a project that
``evalreport render DIR`` renders again (each task notebook's ``tables`` parameter is in the
manifest), and ``tables/timings.json`` records the time of every stage.
"""
from __future__ import annotations

import json
import shutil
import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evalreport._atomic import atomic_dir
from evalreport.inputs.settings import Settings
from evalreport.report.build import (
    Stages,
    analyse,
    execute_and_render,
    protected_inputs,
    provenance,
    report_runner,
    resolve_needs,
    write_report_meta,
)
from evalreport.report.task_sections import chart_prefixes
from evalreport.report.write import write_frames
from evalreport.words import counted

__all__ = ["build_benchmark_report", "analyse_benchmark"]

def _task_runs(task, comparison):
    """The task's data with the systems of its comparison (``missing="exclude"`` drops some)."""
    from evalreport.analyses.benchmark import select_systems

    return select_systems(task.runs, comparison.systems) if tuple(comparison.systems) != task.systems else task.runs


def _audit_records(comparisons) -> list:
    """The measures of every task, each once (by id, in first-seen order)."""
    out: dict = {}
    for comp in comparisons:
        for rec in comp.records:
            out.setdefault(rec.id, rec)
    return list(out.values())


def analyse_benchmark(benchmark: Any, tables: Path, settings: Settings | None = None, *,
                      sources: Sequence[Any] | None = None, stages: Stages | None = None, **changes: Any) -> dict:
    """Every analysis of a benchmark report, written into ``tables`` (which must not exist).

    :func:`compare_benchmark` once; the benchmark's tables; per task the single-task tables in
    ``tasks/<folder>/`` (:func:`~evalreport.report.build.analyse` given the task's comparison)
    with its ``report.json``; one audit of the union of the tasks' measures; ``measures``,
    ``manifest.json`` and ``report.json``.

    Parameters
    ----------
    benchmark : Benchmark
        The tasks.
    tables : Path
        The folder the tables go to.
    settings : Settings, optional
        The settings (bootstrap, seed, alpha, policy, missing_systems, audit, needs as qualified
        property ids, title, command); ``changes`` are keyword shorthands for its fields.
    sources : list of Source, optional
        The inputs to record (default: the benchmark's own).
    stages : Stages, optional
        Where the long steps report their progress and time.

    Returns
    -------
    dict
        ``comparison`` (the :class:`~evalreport.analyses.benchmark.BenchmarkComparison`), ``tasks``
        (name -> folder, included notebooks, report.json) and ``meta`` (the benchmark's report.json).
    """
    from evalreport.analyses.benchmark import compare_benchmark
    from evalreport.measures import catalogue_frame

    settings = Settings.coerce(settings, **changes)
    bootstrap, seed, policy = settings.bootstrap, settings.seed, settings.policy
    stages = stages or Stages(False)
    tables = Path(tables)
    tables.mkdir()
    n_tasks = len(benchmark.tasks)
    with stages.stage(f"comparing {counted(len(benchmark.systems), 'system')} on {counted(n_tasks, 'task')}"
                      + (f" ({counted(bootstrap, 'bootstrap resample')} per task and of the consensus)"
                         if bootstrap else "")):
        bc = compare_benchmark(benchmark, settings)
    write_frames(tables, bc.own_tables())
    folders = bc.task_folders()
    tasks: dict[str, dict[str, Any]] = {}
    primaries: Counter[str] = Counter()
    for k, name in enumerate(bc.tasks, 1):
        task, comp, folder = benchmark.task(name), bc.comparisons[name], folders[name]
        with stages.stage(f"task {k}/{n_tasks} {name}: the single-task tables"):
            own = settings.replace(primary=task.primary, positive=task.positive, costs=task.costs, audit=False,
                                   title=f"Task: {name}")
            result = analyse(_task_runs(task, comp), tables / "tasks" / folder, own, comparison=comp,
                             sources=benchmark.task_sources.get(name) or None)
        meta = write_report_meta(tables / "tasks" / folder, result, own,
                                 extra={"task": name, "weight": task.weight})
        tasks[name] = {"folder": folder, "meta": meta,
                       "notebooks": ["report"] + [n for n in ("crossval", "ordinal") if result["included"][n]]}
        primaries[comp.primary] += 1
    measures = list(dict.fromkeys(m for c in bc.comparisons.values() for m in c.measures))
    primary = primaries.most_common(1)[0][0]
    frames = {"measures": catalogue_frame(measures)}
    if settings.audit:
        from evalreport.analyses.audit import audit_for_report

        records = _audit_records(bc.comparisons.values())
        max_n = settings.audit_max_n
        with stages.stage(f"auditing {len(records)} measures of the {n_tasks} tasks "
                          f"(exhaustive up to n = {max_n})"):
            frames["audit"] = audit_for_report(records, max_n=max_n, seed=seed, policy=policy)
    write_frames(tables, frames)
    manifest = {**bc.manifest(), "primary": primary, "measures": measures}
    (tables / "manifest.json").write_text(json.dumps(manifest, indent=1, default=str) + "\n", encoding="utf-8")
    classes = {t["meta"]["n_classes"] for t in tasks.values()}
    meta = {
        "title": settings.title or "Benchmark report", "benchmark": True, "primary": primary, "primaries": sorted(primaries),
        "n_tasks": n_tasks, "n_systems": len(bc.systems), "n_classes": classes.pop() if len(classes) == 1 else None,
        "n_items": int(sum(t["meta"]["n_items"] for t in tasks.values())),
        "policy": policy, "bootstrap": bootstrap, "seed": seed, "alpha": settings.alpha,
        "missing": bc.settings.get("missing"), "needs": list(settings.needs or []), "consensus_default": "mean_rank",
        "provenance": provenance(settings.command, sources if sources is not None else benchmark.sources),
    }
    (tables / "report.json").write_text(json.dumps(meta, indent=1, default=str) + "\n", encoding="utf-8")
    return {"comparison": bc, "tasks": tasks, "meta": meta}


def build_benchmark_report(benchmark: Any, out_dir: str | Path, settings: Settings | None = None, *,
                           include: Mapping[str, Path] | None = None, inputs: Sequence[str | Path] = (),
                           plugins: Sequence[str | Path] = (), extra_sources: Sequence[Any] = (),
                           appendix: bool = False, runner: Any = None, **changes: Any) -> dict[str, Path]:
    """One report folder for a :class:`~evalreport.inputs.benchmark.Benchmark`.

    The benchmark overview first, then one section per task (the single-task report), the measure
    audit and the appendix (see the module docstring).

    Parameters
    ----------
    benchmark : Benchmark
        The tasks.
    out_dir : path
        Receives ``report.html``, ``report.pdf``, ``notebooks/``, ``tables/`` (and ``appendix/``).
    settings : Settings, optional
        The settings (``missing_systems``: drop | last | exclude, default the benchmark's; title,
        formats, engine, audit, needs, progress); ``changes`` are keyword shorthands for its fields.
    include, inputs, plugins
        As in :func:`evalreport.report.build.build_report` (the benchmark's own files are added to ``inputs``).
    extra_sources : sequence of Source
        What else decides the numbers (the benchmark file, a task file, entry points), recorded in
        the provenance.
    appendix : bool
        Also write ``out_dir/appendix``, the paper appendix
        (:func:`evalreport.report.appendix.write_benchmark_appendix`).
    runner : NotebookRunner, optional
        As in :func:`evalreport.report.build.build_report`.

    Returns
    -------
    dict
        ``html``, ``pdf``, ``tables``, ``notebooks`` (and ``appendix``) -> path.
    """
    import nbformat

    from evalreport.report.resources import notebooks_dir

    settings = Settings.coerce(settings, **changes)
    settings = settings.replace(title=settings.title or "Benchmark report",
                                needs=tuple(resolve_needs(settings.needs, settings.audit)))
    title = settings.title
    out_dir = Path(out_dir)
    sources = [*benchmark.sources, *extra_sources]
    if plugins:
        from evalreport.report.build import report_plugin_sources

        sources += report_plugin_sources(plugins)
    inputs = protected_inputs(out_dir, inputs, sources, include)
    stages = Stages(settings.progress)
    # the kernel starts (and imports the report code) while the analyses run
    with atomic_dir(out_dir, inputs=inputs) as staging, report_runner(staging, runner=runner) as runner:
        tables = staging / "tables"
        done = analyse_benchmark(benchmark, tables, settings, sources=sources, stages=stages)
        meta = done["meta"]
        # each task's notebooks, prepared as its section before they run (a re-render runs them as they are)
        prepared = Path(tempfile.mkdtemp(prefix=".evalreport-sources-", dir=staging))
        task_notebooks = []
        prefixes = chart_prefixes(t["folder"] for t in done["tasks"].values())
        for name, task in done["tasks"].items():
            folder = task["folder"]
            for j, nb_name in enumerate(task["notebooks"]):
                nb = nbformat.read(str(notebooks_dir() / f"{nb_name}.ipynb"), as_version=4)
                stem = f"task-{folder}" + ("" if nb_name == "report" else f"-{nb_name}")
                section = _prepare(nb, name, folder, task["meta"], first=j == 0, prefix=prefixes[folder])
                nbformat.write(section, str(prepared / f"{stem}.ipynb"))
                task_notebooks.append((stem, prepared / f"{stem}.ipynb", {"tables": f"../tables/tasks/{folder}"}))
        chosen = ["benchmark", *task_notebooks] + (["audit"] if settings.audit else []) + ["appendix"]
        one = len(meta["primaries"]) == 1
        from evalreport.measures.labels import short_measure_label

        subtitle = (f"{meta['n_systems']} systems, {meta['n_tasks']} tasks, {meta['n_items']:,} items; ranked by "
                    + (f"each task's {short_measure_label(meta['primary'])}" if one else "each task's primary measure"))
        paths = execute_and_render(staging, chosen, title=title, formats=settings.formats, engine=settings.engine,
                                    stages=stages,
                                    plugins=[str(Path(p).resolve()) for p in plugins or ()], subtitle=subtitle,
                                    runner=runner)
        shutil.rmtree(prepared)
        if appendix:
            from evalreport.report.appendix import write_benchmark_appendix

            with stages.stage("writing the paper appendix (tables, figures, methods, references)"):
                write_benchmark_appendix(tables, staging / "appendix")
        for name, folder in dict(include or {}).items():   # e.g. the demo's input files, as OUTDIR/data
            shutil.copytree(folder, staging / name)
        timings = {k: round(v, 2) for k, v in stages.times.items()}
        timings.update({f"compare_benchmark: {k}": round(v, 2) for k, v in done["comparison"].timings.items()})
        (tables / "timings.json").write_text(json.dumps(timings, indent=1) + "\n", encoding="utf-8")
    out = {fmt: out_dir / Path(p).name for fmt, p in paths.items()}
    out.update(tables=out_dir / "tables", notebooks=out_dir / "notebooks")
    if appendix:
        out["appendix"] = out_dir / "appendix"
    return out


def _prepare(nb, task: str, folder: str, meta: dict, *, first: bool, prefix: str):
    """The single-task notebook ``nb`` as the section of ``task`` (its intro states the task's facts)."""
    from evalreport.escape import markdown as escape
    from evalreport.measures.labels import short_measure_label
    from evalreport.report.task_sections import prepare_task_notebook

    intro = (f"The single-task report of task **{escape(task)}**: {meta['n_items']:,} items, {meta['n_classes']} "
             f"classes, {meta['n_systems']} systems; primary measure {escape(short_measure_label(meta['primary']))}. "
             f"Its tables are in `tables/tasks/{folder}/`.")
    return prepare_task_notebook(nb, task=task, folder=folder, intro=intro, first=first, prefix=prefix)


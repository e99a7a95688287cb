"""Build a report: analyse once, write every table, execute the notebooks, render, move into place.

    inputs (Runs) -> analyses (compare, audit, cross-validation) -> tables/*.csv + *.json
                  -> papermill runs notebooks/*.ipynb (parameter: the tables folder)
                  -> render (quarto or builtin) -> report.html, report.pdf

Everything is built in a temporary folder next to the output folder and renamed into place
at the end: a failure leaves no half-written report behind.
"""
from __future__ import annotations

import json
import logging
import shutil
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from evalreport._atomic import atomic_dir
from evalreport.errors import InputError, MeasureError
from evalreport.inputs.settings import DEFAULT_PRIMARY, Settings
from evalreport.report.report_meta import (  # noqa: F401  (re-exported for the other report builds)
    provenance,
    report_plugin_sources,
    versions,
    write_report_meta,
)
from evalreport.report.write import write_comparison, write_frames
from evalreport.words import counted

log = logging.getLogger("evalreport.report")

#: Above this many classes confusion.csv lists only the non-zero cells.
SPARSE_CONFUSION_ABOVE = 30

class Stages:
    """Progress of the long steps, printed to stderr (one line per stage, with its time)."""

    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self.times: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str):
        if self.enabled:
            print(f"evalreport: {name} ...", file=sys.stderr, flush=True)
        start = time.perf_counter()
        yield
        self.times[name] = time.perf_counter() - start
        if self.enabled:
            print(f"evalreport: {name} done in {self.times[name]:.1f} s", file=sys.stderr, flush=True)


def _describe(data, sources=None) -> dict:
    """Facts of the input shown in the overview (Runs, PatternCounts or Counts)."""
    from evalreport.counts import Counts
    from evalreport.counts.bigdata import PatternCounts

    if isinstance(data, Counts):
        tensor = np.asarray(data.tensor)
        items = int(round(float(tensor[0].sum())))
        return {"counts": data, "n_items": items, "n_classes": len(data.labels), "n_systems": len(data.systems),
                "n_folds": 0, "folds": None, "sources": tuple(sources or ())}
    if isinstance(data, PatternCounts):
        return {"counts": data.confusion(), "n_items": data.n_items, "n_classes": len(data.labels),
                "n_systems": len(data.systems), "n_folds": len(data.fold_names) if data.folds is not None else 0,
                "folds": data.folds, "sources": tuple(sources or ())}
    counts = Counts.from_runs(data)
    if data.run_system is not None:       # several runs per system: the mean confusion over each system's runs
        from evalreport.analyses.seeds import system_counts

        counts = system_counts(counts, data.run_system)
    return {"counts": counts, "n_items": data.n_items, "n_classes": data.n_classes,
            "n_systems": data.n_systems if data.run_system is None else len(set(data.run_system)),
            "n_folds": data.n_folds, "folds": data.folds,
            "sources": tuple(sources or data.sources)}


def analyse(runs: Any, tables: Path, settings: Settings | None = None, *, stages: Stages | None = None,
            progress: Callable | None = None, sources: Sequence[Any] | None = None, comparison: Any = None,
            **changes: Any) -> dict:
    """Run every analysis of a report and write its tables into ``tables``.

    Parameters
    ----------
    runs : Runs, PatternCounts or Counts
        :class:`~evalreport.inputs.Runs` (everything),
        :class:`~evalreport.counts.bigdata.PatternCounts` (everything but score-based measures: the
        patterns are resampled without expanding them to items) or :class:`~evalreport.counts.Counts`
        (confusion matrices only: no bootstrap intervals, significance tests or cross-validation).
    tables : Path
        The folder the tables go to.
    settings : Settings, optional
        The settings (default: :class:`~evalreport.inputs.settings.Settings`'s); ``changes`` are
        keyword shorthands for its fields.
    stages : Stages, optional
        Where the long steps report their progress and time.
    progress : callable, optional
        ``progress(done, total)`` of the bootstrap.
    sources : list of Source, optional
        The inputs to record (default: the runs' own).
    comparison : Comparison, optional
        The comparison of these runs when it is computed already (a benchmark compares every task
        once, in :func:`~evalreport.analyses.benchmark.compare_benchmark`): it is written, not
        computed again, and its measures are the report's.

    Returns
    -------
    dict
        ``comparison``, ``included`` (section -> whether its tables were written), ``measures`` and
        ``facts`` (the data's sizes and sources).
    """
    from evalreport.analyses.compare import compare, comparison_measures
    from evalreport.measures import catalogue_frame, default_measures, get
    from evalreport.measures.perclass import per_class_frame

    settings = Settings.coerce(settings, **changes)
    primary, pos, policy, costs, gains = (settings.primary or DEFAULT_PRIMARY["single"], settings.positive,
                                          settings.policy, settings.costs, settings.gains)
    bootstrap, seed = settings.bootstrap, settings.seed
    stages = stages or Stages(False)
    facts = _describe(runs, sources)
    counts = facts["counts"]
    measures = None if settings.measures is None else list(settings.measures)
    if comparison is not None:
        measures = list(comparison.measures)
    elif measures is None:
        measures = comparison_measures(positive=_pos_index(pos, counts.labels, getattr(counts, "n_task", None)),
                                       costs=costs, primary=primary)
        if costs is not None:
            measures += [m.id for m in default_measures(costs=costs) if m.kind == "ordinal" and m.id not in measures]
        if gains is not None:
            measures += [m.id for m in default_measures(gains=gains) if "gains" in m.needs and m.id not in measures]
        from evalreport.analyses.score_compare import default_score_ids

        measures += [m for m in default_score_ids(runs, pos) if m not in measures]   # scored runs
    with stages.stage(f"comparing {counted(facts['n_systems'], 'system')} under {counted(len(measures), 'measure')}"
                      + (f" ({counted(bootstrap, 'bootstrap resample')})"
                         if bootstrap and not hasattr(runs, "tensor") else "")):
        comp = comparison if comparison is not None else compare(
            runs, settings.replace(primary=primary, measures=tuple(measures)), progress=progress)
        write_comparison(comp, tables)
    extra: dict[str, pd.DataFrame] = {}
    tensor = np.asarray(counts.tensor)
    gold_sizes = tensor[0].sum(axis=1)
    # the gold classes are the task's (Counts.n_task); "<abstain>" and unknown predicted labels have no gold items
    n_task = getattr(counts, "n_task", None) or len(counts.labels)
    extra["prevalence"] = pd.DataFrame({"class": list(counts.labels)[:n_task], "count": gold_sizes[:n_task],
                                        "share": gold_sizes[:n_task] / max(gold_sizes.sum(), 1)})
    extra["per_class"] = per_class_frame(counts, policy=policy)
    K = tensor.shape[-1]
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = tensor / tensor.sum(axis=-1, keepdims=True)
    # every cell; with many classes the matrices are sparse, so only the non-zero cells
    cells = np.indices(tensor.shape).reshape(3, -1) if K <= SPARSE_CONFUSION_ABOVE else np.nonzero(tensor)
    s_i, g_i, p_i = cells
    systems_arr, labels_arr = np.asarray(counts.systems, dtype=object), np.asarray(counts.labels, dtype=object)
    extra["confusion"] = pd.DataFrame({"system": systems_arr[s_i], "gold": labels_arr[g_i], "predicted": labels_arr[p_i],
                                       "count": tensor[s_i, g_i, p_i], "rate": np.nan_to_num(rates[s_i, g_i, p_i])})
    extra["measures"] = catalogue_frame(comp.measures)
    from evalreport.analyses.measure_letters import measure_letters

    extra["measure_letters"] = measure_letters(comp)     # the interactive leaderboard's letters under every measure
    # how the leaderboard moves under other class distributions (Opitz 2022, eq. 5): equal
    # prevalence, the observed shares reversed (rare classes frequent), and the user's scenarios
    from evalreport.analyses.prevalence import PrevalenceWarning, reversed_prevalence, what_if_ranks

    scenarios = {"equal prevalence": "uniform", "reversed prevalence": reversed_prevalence(counts),
                 **dict(settings.what_if)}
    import warnings

    with warnings.catch_warnings():   # an absent class: compare's notes already say what calibration did
        warnings.simplefilter("ignore", PrevalenceWarning)
        primary_record = comp.record(comp.primary)
        scored = primary_record.kind == "scores"     # prevalence rescales confusion matrices, not scores: no rows
        extra["what_if"] = what_if_ranks(counts, comp.records[0] if scored else primary_record, scenarios,
                                         positive=pos, policy=policy, costs=costs)
        if scored:
            extra["what_if"] = extra["what_if"].iloc[0:0]
    extra["inputs"] = pd.DataFrame([{"role": s.role, "system": s.system or "", "path": s.path, "rows": s.rows,
                                     "sha256": s.sha256} for s in facts["sources"]],
                                   columns=["role", "system", "path", "rows", "sha256"])
    # measures of this report that are one quantity or always rank alike (their correlation is 1 by construction)
    from evalreport.analyses.audit.identities import identities

    K = len(counts.labels)
    # (on sampled matrices; which class is positive does not matter there: class 0 stands for it)
    extra["identities"] = identities(list(comp.records), classes=(2,) if K == 2 else (3, 4), policy=policy,
                                     seed=seed)
    included = {"audit": False, "crossval": False, "ordinal": any(get(m).kind == "ordinal" for m in comp.measures)}
    included["seeds"] = "runs" in comp.extra          # several runs per system
    if settings.audit:
        from evalreport.analyses.audit import audit_for_report

        max_n = settings.audit_max_n
        with stages.stage(f"auditing {len(comp.measures)} measures (exhaustive up to n = {max_n})"):
            extra["audit"] = audit_for_report(list(comp.records), max_n=max_n, seed=seed, policy=policy)
        included["audit"] = True
    # which of the report's measures meet the default requirements of a choice of measure (docs/recommend.md)
    from evalreport.analyses.recommend import recommend_for_report

    extra.update(recommend_for_report(list(counts.labels)[:n_task], gold_sizes[:n_task], list(comp.records),
                                      extra.get("audit"), policy=policy))
    if facts["folds"] is not None:
        from evalreport.analyses.crossval import cross_validate

        with stages.stage(f"aggregating over {facts['n_folds']} cross-validation folds"):
            cv = cross_validate(runs, list(comp.records), positive=pos, policy=policy, costs=costs)
        extra["cv_estimates"] = cv.estimates
        if cv.summary is not None:
            extra["cv_summary"] = cv.summary
        if cv.invalid_folds is not None:
            extra["cv_invalid_folds"] = cv.invalid_folds
        if cv.score_folds is not None:
            extra["cv_score_folds"] = cv.score_folds
        (tables / "cv_recommendation.md").write_text(cv.recommendation + "\n", encoding="utf-8")
        included["crossval"] = True
    # the report's opening findings: leader, how sure, how fragile, does the measure matter
    from evalreport.analyses.findings import findings

    with stages.stage("summarising the findings (fragility of the first place)"):
        extra.update(findings(comp, counts, what_if=extra["what_if"], costs=costs).tables())
    from evalreport.analyses.gold import noise_finding

    noise_row = noise_finding(comp)          # the label-noise sentence (--label-noise) among the findings
    if noise_row is not None and "findings" in extra:
        extra["findings"] = pd.concat([extra["findings"], pd.DataFrame([noise_row])], ignore_index=True)
    write_frames(tables, extra)
    return {"comparison": comp, "included": included, "measures": list(comp.measures), "facts": facts}


def resolve_needs(needs: Sequence[str] | None, audit: bool) -> list[str]:
    """The stated needs as qualified property ids; an unknown one is an error.

    Parameters
    ----------
    needs : sequence of str or None
        The properties the user needs, as given.
    audit : bool
        Whether the report audits its measures.

    Returns
    -------
    list of str
        Qualified property ids (``goesgens.CB``); empty without needs.
    """
    if not needs:
        return []
    from evalreport.analyses.audit import resolve_properties

    if not audit:
        raise InputError("--needs is answered by the audit section: drop --no-audit")
    try:
        return [f"{p.paper}.{p.id}" for p in resolve_properties(list(needs))]
    except MeasureError as exc:
        raise InputError(f"--needs: {exc}") from None


def _pos_index(positive, labels, n_task: int | None = None):
    if positive is None:
        return None
    from evalreport.measures import resolve_positive

    return resolve_positive(positive, labels, len(labels), n_task=n_task)


def protected_inputs(out_dir: Path, inputs, sources, include) -> list:
    """The input paths an output folder must not hold: ``inputs`` and the recorded ``sources``, but
    not an installed entry point (recorded by distribution name: no file) and not the inputs that
    lie where this report's own copies will be (``include``, e.g. the demo's data/)."""
    paths = [*inputs, *(s.path for s in sources or () if s.role != "entry-point")]
    copies = [(Path(out_dir) / name).resolve() for name in (include or {})]
    return [p for p in paths if not any(c == Path(p).resolve() or c in Path(p).resolve().parents for c in copies)]


def build_report(runs: Any, out_dir: str | Path, settings: Settings | None = None, *,
                 sources: Sequence[Any] | None = None, include: Mapping[str, Path] | None = None,
                 inputs: Sequence[str | Path] = (), plugins: Sequence[str | Path] = (),
                 gains_file: str | Path | None = None, runner: Any = None, **changes: Any) -> dict[str, Path]:
    """The product's main job: a report folder from item-level runs (or, with fewer sections,
    from confusion matrices: :class:`~evalreport.counts.Counts` plus their ``sources``).

    Parameters
    ----------
    runs : Runs, PatternCounts or Counts
        The data (see :func:`analyse`).
    out_dir : path
        Receives ``report.html``, ``report.pdf`` (per ``settings.formats``), ``notebooks/`` (the
        executed notebooks) and ``tables/`` (every table behind the report as CSV and JSON, plus
        ``report.json`` with settings, versions, seed and input hashes). An ``out_dir`` that holds
        one of the inputs (``inputs``, ``sources`` or the runs' own sources) is refused.
    settings : Settings, optional
        Every setting of the analyses and the report (title, formats, engine, audit, needs, ...);
        ``changes`` are keyword shorthands for its fields.
    sources : list of Source, optional
        The inputs to record (default: the runs' own).
    include : dict, optional
        Name -> folder copied into the report (the demo's ``data/``).
    inputs : sequence of path
        Paths ``out_dir`` must not hold.
    plugins : sequence of path
        The plugin files whose measures the report uses (loaded already): recorded among the inputs
        with their SHA-256, and loaded again in each notebook's kernel.
    gains_file : path, optional
        The file ``settings.gains`` was read from (recorded among the inputs).
    runner : NotebookRunner, optional
        A kernel started earlier (:func:`start_runner`) to run the notebooks in.

    Returns
    -------
    dict
        Format or folder name -> path: ``html``, ``pdf``, ``tables``, ``notebooks``.
    """
    settings = Settings.coerce(settings, **changes)
    out_dir = Path(out_dir)
    settings = settings.replace(needs=tuple(resolve_needs(settings.needs, settings.audit)))
    title = settings.title or "Evaluation report"
    if plugins:
        sources = [*(sources if sources is not None else getattr(runs, "sources", ())), *report_plugin_sources(plugins)]
    if gains_file:
        from evalreport.inputs.readers import hash_file
        from evalreport.inputs.runs import Source

        sources = [*(sources if sources is not None else getattr(runs, "sources", ())),
                   Source("gains", str(gains_file), hash_file(gains_file), None)]
    own = sources if sources is not None else getattr(runs, "sources", ())
    inputs = protected_inputs(out_dir, inputs, own, include)
    stages = Stages(settings.progress)
    started = time.perf_counter()
    with atomic_dir(out_dir, inputs=inputs) as staging, report_runner(staging, runner=runner,
                                                                        images="pdf" in settings.formats) as runner:
        tables = staging / "tables"
        result = analyse(runs, tables, settings, stages=stages, sources=sources)
        comp, facts = result["comparison"], result["facts"]
        meta = write_report_meta(tables, result, settings.replace(title=title))
        n_task = meta["n_classes"]
        from evalreport.measures.labels import short_measure_label

        chosen = ["report"] + [n for n in ("seeds", "audit", "crossval", "ordinal") if result["included"].get(n)] + ["appendix"]
        paths = execute_and_render(staging, chosen, title=title, formats=settings.formats, engine=settings.engine,
                                    stages=stages, plugins=[str(Path(p).resolve()) for p in plugins or ()],
                                    subtitle=f"{facts['n_systems']} systems, {facts['n_items']:,} items, "
                                             f"{n_task} classes; primary measure "
                                             f"{short_measure_label(comp.primary)}", runner=runner)
        for name, folder in dict(include or {}).items():   # e.g. the demo's input files, as OUTDIR/data
            shutil.copytree(folder, staging / name)
        # (stages overlap: the kernel starts during the analyses, the images are drawn beside it)
        timings = {k: round(v, 2) for k, v in stages.times.items()}
        timings["total (building the report, the stages above)"] = round(time.perf_counter() - started, 2)
        (tables / "timings.json").write_text(json.dumps(timings, indent=1) + "\n", encoding="utf-8")
    out = {fmt: out_dir / Path(p).name for fmt, p in paths.items()}
    out.update(tables=out_dir / "tables", notebooks=out_dir / "notebooks")
    return out


#: Imported by the notebooks' kernel as soon as it starts, while the analyses run.
REPORT_PRELOAD = ("evalreport.measures.plugins", "evalreport.report.sections")


#: What building a report imports before its first stage: the analyses and the kernel's client.
_FIRST_IMPORTS = ("evalreport.analyses.compare", "evalreport.analyses.audit", "evalreport.analyses.findings",
                  "evalreport.analyses.prevalence", "evalreport.measures.perclass", "jupyter_client", "papermill")


def prefetch_imports(modules=_FIRST_IMPORTS) -> threading.Thread:
    """Import ``modules`` in a daemon thread, now: the report commands call this first, so the
    imports (scipy.stats alone takes 0.4 s) overlap reading the inputs, which spends its time in
    pyarrow outside the GIL. An import that fails is left for the code that needs it to report."""

    def run() -> None:
        import importlib

        for name in modules:
            try:
                importlib.import_module(name)
            except Exception as exc:   # (ImportError, or a plugin's error: reported where it is used)
                log.debug("prefetching %s: %s", name, exc)

    thread = threading.Thread(target=run, name="evalreport-prefetch", daemon=True)
    thread.start()
    return thread


def start_runner(preload=REPORT_PRELOAD):
    """A report kernel (:class:`~evalreport.report.kernel.NotebookRunner`) started now, before
    the report's folder exists: its start and imports overlap what the caller does next (the
    demo trains its classifiers). Pass it to :func:`build_report` (``runner=``); the caller
    closes it (a context manager)."""
    from evalreport.report.kernel import NotebookRunner

    return NotebookRunner(None, preload=preload).start()


@contextmanager
def report_runner(staging: Path, preload=REPORT_PRELOAD, runner=None, images: bool = True):
    """The kernel that will run the report's notebooks, started now so that its start overlaps the analyses.

    Parameters
    ----------
    staging : Path
        The report's staging folder; the notebooks run in ``staging/notebooks``.
    preload : tuple of str
        Modules the kernel imports as it starts.
    runner : NotebookRunner, optional
        A kernel the caller started earlier (:func:`start_runner`): given this folder and left open.
    images : bool
        Whether the charts' static images will be drawn (a PDF is rendered): False starts no drawing process.

    Yields
    ------
    NotebookRunner
        The kernel (:class:`~evalreport.report.kernel.NotebookRunner`).
    """
    from evalreport.report.kernel import NotebookRunner

    if runner is not None:
        runner.cwd = staging / "notebooks"
        runner.draw_images = images
        runner.warm_images()
        yield runner
        return
    with NotebookRunner(staging / "notebooks", preload=preload) as own:
        own.draw_images = images
        own.start()
        yield own


def execute_and_render(staging: Path, notebooks, *, title, formats, engine, stages, subtitle, plugins=(),
                        runner=None) -> dict:
    """Run the notebooks (parameter: ``../tables``) into ``staging/notebooks``, then render.

    The folder also becomes a Quarto project that ``quarto render`` or ``evalreport render`` renders
    again (:mod:`evalreport.report.project`). The notebooks run one after the other in ONE kernel, each
    from a fresh namespace; the charts' images are drawn beside the kernel.

    Parameters
    ----------
    staging : Path
        The report's staging folder, its ``tables`` written.
    notebooks : sequence of str or (str, Path, dict)
        A shipped notebook's name, or ``(name, source path, parameters)``: a notebook prepared for this
        report (a benchmark's task), run with its own parameters over the common ones (both kept in
        the manifest, so a re-render passes them again).
    title, subtitle, formats, engine
        The report's title and subtitle, the formats to render (``html``, ``pdf``) and the engine.
    stages : Stages
        Gets the time of each step, including the image drawing the notebooks did not hide.
    plugins : sequence of str
        Plugins the kernel loads (their measures).
    runner : NotebookRunner, optional
        A kernel started earlier by the caller, whose folder is ``staging/notebooks``; else one made here.

    Returns
    -------
    dict
        The paths of what was written, by kind (``html``, ``pdf``, ``notebooks``, ...).
    """
    from evalreport.report.kernel import NotebookRunner
    from evalreport.report.project import write_project
    from evalreport.report.render import RenderError, preload, render
    from evalreport.report.resources import notebooks_dir

    if runner is None:
        with NotebookRunner(staging / "notebooks", preload=REPORT_PRELOAD) as own_runner:
            return execute_and_render(staging, notebooks, title=title, formats=formats, engine=engine,
                                       stages=stages, subtitle=subtitle, plugins=plugins, runner=own_runner)

    def _keep_failed(staging: Path, notebook: Path, message: str) -> str:
        """Copy a failed notebook and its tables to ``NAME.failed-XXXXXXXX``; return ``message`` naming the copy."""
        import re
        import tempfile

        match = re.fullmatch(r"\.(.+)\.\d+-[^.]+\.tmp", staging.name)
        name = match.group(1) if match else "evalreport"
        kept = None
        for where in (staging.parent, None):
            try:
                kept = Path(tempfile.mkdtemp(prefix=f"{name}.failed-", dir=where))
                if (staging / "tables").is_dir():       # the notebook reads ../tables: keep that layout
                    shutil.copytree(staging / "tables", kept / "tables")
                (kept / "notebooks").mkdir()
                if notebook.is_file():
                    shutil.copy2(notebook, kept / "notebooks" / notebook.name)
                break
            except OSError:
                if kept is not None:
                    shutil.rmtree(kept, ignore_errors=True)
                kept = None
        if kept is None or not (kept / "notebooks" / notebook.name).is_file():
            return message.replace(f" (partly executed notebook: {notebook})", "")
        return message.replace(str(notebook), str(kept / "notebooks" / notebook.name))

    nb_out = staging / "notebooks"
    nb_out.mkdir(exist_ok=True)
    executed = []
    parameters: dict[str, Any] = {"tables": "../tables"}
    if plugins:         # the kernels must know the plugins' measures (the sections look measures up by id)
        parameters["plugins"] = list(plugins)
    own: dict[str, dict] = {}
    runner.draw_images = "pdf" in formats      # only the PDF shows the charts' static images
    preload(engine)
    for i, entry in enumerate(notebooks, 1):
        name, source, extra = (entry, notebooks_dir() / f"{entry}.ipynb", None) if isinstance(entry, str) else entry
        if extra:
            own[name] = dict(extra)
        with stages.stage(f"executing notebook {i}/{len(notebooks)}: {name}.ipynb"):
            try:
                executed.append(runner.execute(source, nb_out / f"{name}.ipynb", {**parameters, **(extra or {})},
                                               images=False))
            except RenderError as exc:
                # the staging folder is removed on the way out: name a copy the user can open
                raise RenderError(_keep_failed(staging, nb_out / f"{name}.ipynb", str(exc))) from exc
    with stages.stage("waiting for the chart images"):
        runner.fill_images(executed)
    stages.times["drawing chart images (beside the kernel)"] = runner.image_seconds
    with stages.stage(f"rendering {', '.join(formats)} ({engine} engine)"):
        paths = render(executed, staging, title=title, formats=tuple(formats), engine=engine,
                       metadata={"subtitle": subtitle})
    with stages.stage("writing the Quarto project"):
        write_project(staging, executed, title=title, metadata={"subtitle": subtitle}, parameters=parameters,
                      formats=tuple(formats), notebook_parameters=own)
    return paths

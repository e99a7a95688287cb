"""The scoring program of a Codabench / CodaLab competition: one submission -> the leaderboard's numbers.

The platform runs the program in a container with ``INPUT/ref/`` (the reference data: the gold
file) and ``INPUT/res/`` (one participant's submission: one run file) and reads what it writes to
``OUTPUT/``: ``scores.json``, a flat JSON object whose keys are the leaderboard's column keys and
whose values are numbers; ``scores.txt`` (``key: value`` lines, the CodaLab legacy format); and,
where the competition enables detailed results, ``detailed_results.html`` (Codabench docs:
"Competition Bundle Structure", "Submission Docker Container Layout", "Detailed Results and
Visualizations"; see docs/codabench.md).

Leaderboard keys (:func:`leaderboard_key`): a measure's canonical id, lower case, with every run
of characters outside ``[a-z0-9]`` turned into one ``_`` and no ``_`` at either end
(``macro_f1(classes=AGAINST|FAVOR)`` -> ``macro_f1_classes_against_favor``); the bootstrap
interval bounds are ``KEY_lo`` and ``KEY_hi``; a key longer than 33 characters keeps its first 25, then
``__`` and 6 hexadecimal digits of its SHA-256, so that every key fits Codabench's 36. The official measure is also written under the
key ``score`` when asked (``primary_key``). When the reference carries slice columns (``slice_cols``),
each measure's value on each slice is written beside them under ``KEY__SLICE``
(:mod:`evalreport.report.codabench_slices` states the rule).
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from evalreport.errors import ConfigError, InputError, MeasureError
from evalreport.inputs.settings import DEFAULT_PRIMARY, Settings
from evalreport.measures.plugins import PluginError
from evalreport.report.codabench_files import data_file
from evalreport.report.codabench_page import detail_page
from evalreport.report.codabench_slices import MAX_KEY_LENGTH, scores_of as slice_scores_of


@dataclass(frozen=True)
class Scored:
    """What a submission scored: the flat ``scores`` mapping (finite numbers only), the tidy rows
    behind it (measure, key, value, lo, hi, undefined, reason), and the per-class and confusion
    frames of the detail page."""

    scores: dict[str, float]
    rows: pd.DataFrame
    per_class: pd.DataFrame
    confusion: pd.DataFrame
    labels: tuple[str, ...]
    primary: str
    notes: tuple[str, ...]
    positive: str | None = None
    #: The submission's score curves (``roc_curve``, ``pr_curve``, ``reliability`` frames), when it has scores.
    curves: dict[str, pd.DataFrame] = field(default_factory=dict)
    #: The submission's value on each slice of the test set (:func:`evalreport.report.codabench_slices.slice_rows`).
    slices: pd.DataFrame | None = None
    #: What the bootstrap resamples: the test items, or whole clusters (their number and the gold column).
    unit: str = "the test items"


def leaderboard_key(measure_id: str) -> str:
    """A measure id as a leaderboard column key: ``[a-z0-9_]`` only (see the module docstring), short
    enough that ``KEY_lo`` and ``KEY_hi`` fit a Codabench column key (:data:`MAX_KEY_LENGTH`): a longer
    one keeps its first characters, then ``__`` and 6 hexadecimal digits of the SHA-256 of the whole."""
    key = re.sub(r"[^a-z0-9]+", "_", str(measure_id).strip().lower()).strip("_")
    if not key:
        raise InputError(f"measure {measure_id!r} gives no leaderboard key")
    room = MAX_KEY_LENGTH - len("_lo")
    if len(key) > room:
        digest = hashlib.sha256(key.encode("ascii")).hexdigest()[:6]
        key = f"{key[:room - 8].rstrip('_')}__{digest}"
    return key


def organiser_error(exc: Exception) -> ConfigError:
    """``exc`` (an error of the task file, the reference data, a plugin or a measure setting) as a
    :class:`~evalreport.errors.ConfigError`: exit status 3, and the message says the organiser's
    side is at fault."""
    if isinstance(exc, ConfigError):
        return exc
    problem = getattr(exc, "problem", None) or str(exc)
    return ConfigError(f"{ORGANISER}: {problem}", path=getattr(exc, "path", None), line=getattr(exc, "line", None),
                       item=getattr(exc, "item", None))


#: The words that open an error of the organiser's configuration (exit status 3).
ORGANISER = "task configuration error (the organiser's scoring setup, not the submission)"
#: The words that open an error of the submission (exit status 2).
SUBMISSION = "submission error"


def score_submission(input_dir: str | Path, settings: Settings | None = None, *,
                     labels: Sequence[str] | None = None, id_col: str = "id",
                     label_col: str = "label", missing: str = "error", allow_unknown: bool = False,
                     primary_key: bool = True, **changes: Any) -> Scored:
    """Score the submission in ``INPUT/res`` against the gold file in ``INPUT/ref``.

    Class-subset measures (``macro_f1(classes=A|B)``) are bound to the class set first.

    The organiser's side is checked before the submission is read: the reference data, and every
    measure scored once on the reference against itself (unknown measure or class, a binary
    measure without ``positive``, an ordinal one without ``order`` or ``costs``). Its errors are
    :class:`~evalreport.errors.ConfigError` (exit status 3); the submission's are
    :class:`~evalreport.errors.InputError` (exit status 2), both saying which side is at fault. A
    submission that cannot be scored gets every fault found in one message
    (:func:`~evalreport.inputs.submission.submission_faults`: labels that are no class, repeated ids,
    ids that are no test item, items without a prediction, empty ids and predictions, each counted
    with its first lines), in the participant's words: it names no option of the organiser's.

    A measure undefined (0/0) on the submission is written as :func:`undefined_value` (its convention,
    else its chance value, else the worst end of its range: MCC of a constant prediction 0), so that
    every leaderboard column is present (CodaLab needs the first one) and the submission never sorts
    above a scored one by being blank; its interval bounds are left out, and a note (stderr, detail
    page) says so. A measure with none of the three gets no value. ``policy`` decides 0/0 cases first.

    Parameters
    ----------
    input_dir : path
        The folder that holds ``ref/`` and ``res/``.
    settings : Settings, optional
        ``primary`` (the official measure, default ``macro_f1``), ``measures`` (beside it),
        ``positive``, ``policy``, ``costs`` and ``gains`` (a (K, K) matrix or the path of a matrix
        file), ``order`` (the class order of ordinal measures), ``bootstrap`` (paired resamples
        over items for the ``_lo``/``_hi`` bounds, percentile intervals at ``1 - alpha``; 0: no
        bounds), ``bootstrap_strata`` (``"gold"``: resampled within each gold class,
        :func:`evalreport.analyses.resampling.bootstrap`) and ``seed``; ``changes`` are keyword
        shorthands for its fields.
    labels : sequence of str, optional
        The class set and order.
    id_col, label_col : str
        The item id and label columns.
    missing : {"error", "abstain"}
        A gold id absent from the submission: an error, or a wrong ``abstain`` prediction.
    allow_unknown : bool
        Accept predicted labels outside the class set.
    primary_key : bool
        Also write the official measure under the key ``score``.

    Returns
    -------
    Scored
        The flat scores and the tables of the detail page.
    """
    settings = Settings.coerce(settings, **changes)
    task = {"primary": settings.primary or DEFAULT_PRIMARY["single"], "measures": settings.measures,
            "positive": settings.positive, "policy": settings.policy, "costs": settings.costs,
            "order": settings.order, "gains": settings.gains}
    input_dir = Path(input_dir)
    try:
        reference, classes = _check_setup(input_dir, **task, labels=labels, id_col=id_col, label_col=label_col,
                                          cluster_col=settings.cluster_col, bootstrap=settings.bootstrap)
    except (InputError, MeasureError, PluginError) as exc:
        raise organiser_error(exc) from None
    try:
        return _score(input_dir, reference, classes, **task, labels=labels, id_col=id_col, label_col=label_col,
                      missing=missing, allow_unknown=allow_unknown, bootstrap=settings.bootstrap, seed=settings.seed,
                      alpha=settings.alpha, primary_key=primary_key, strata=settings.bootstrap_strata,
                      cluster_col=settings.cluster_col,
                      slice_cols=tuple(getattr(settings, "slice_cols", ()) or ()),
                      slice_bins=getattr(settings, "slice_bins", None))
    except ConfigError:
        raise
    except PluginError as exc:      # a plugin's measure failing on one submission is the plugin's fault
        raise organiser_error(exc) from None
    except InputError as exc:
        problem = exc.problem if exc.problem.startswith(SUBMISSION) else f"{SUBMISSION}: {exc.problem}"
        raise InputError(problem, path=exc.path, line=exc.line, item=exc.item) from None


def _records(counts, primary, measures, gains):
    from evalreport.measures import get
    from evalreport.measures.subsets import bind

    records = {}                 # id -> the record bound to this task; an id asked twice counts once
    for spec in [primary, *(measures or ())]:
        m = bind(get(spec), counts.labels, gains=gains)
        records.setdefault(m.id, m)
    return list(records.values())


def _costs_gains(counts, costs, order, gains):
    if order and costs is not None:
        raise InputError("give either order or costs, not both")
    if isinstance(costs, (str, os.PathLike)):        # a cost-matrix file: read against the class set
        from evalreport.inputs.costs import read_costs

        costs = read_costs(costs, counts.labels)
    if isinstance(gains, (str, os.PathLike)):
        from evalreport.inputs.costs import read_gains

        gains = read_gains(gains, counts.labels)
    if order:
        from evalreport.measures import ordinal

        costs = ordinal.costs_from_order(list(order), counts.labels)
    return costs, gains


def _counted(gold: Path, files: list, name: str, *, primary, measures, costs, order, gains, labels, id_col,
             label_col, **read):
    """``files`` read against ``gold`` as one system ``name``, counted, with the task's cost/gain
    matrices and measure records: (runs, counts, costs, gains, records, ids, leaderboard keys)."""
    from evalreport.counts import Counts
    from evalreport.inputs.readers import read_runs
    from evalreport.measures.scores import is_score_measure

    scored = any(is_score_measure(m) for m in [primary, *(measures or ())])    # score columns read only then
    runs = read_runs(gold, files, names=[name], id_col=id_col, label_col=label_col, labels=labels,
                     score_col="score" if scored and name != "reference" else None, **read)
    counts = Counts.from_runs(runs)
    costs, gains = _costs_gains(counts, costs, order, gains)
    records = _records(counts, primary, measures, gains)
    ids = [m.id for m in records]
    return runs, counts, costs, gains, records, ids, [leaderboard_key(i) for i in ids]


def _check_setup(input_dir: Path, *, primary, measures, positive, policy, costs, order, gains, labels, id_col,
                 label_col, cluster_col=None, bootstrap: int = 0):
    """The reference read as its own perfect submission, and every measure scored on it: what the
    organiser set up works before any submission is read. Returns the gold file's path and the classes."""
    from evalreport.measures import evaluate

    gold = data_file(input_dir / "ref", "ref")
    ref_runs, counts, c, g, records, ids, keys = _counted(
        gold, [gold], "reference", primary=primary, measures=measures, costs=costs, order=order, gains=gains,
        labels=labels, id_col=id_col, label_col=label_col, fold_col=None, hash_files=False, cluster_col=cluster_col)
    if bootstrap and getattr(ref_runs, "clusters", None) is not None:
        from evalreport.analyses.designs import check_clusters

        check_clusters(ref_runs)          # one cluster: every submission's bounds would have no width
    clash = {k for k in keys if keys.count(k) > 1}
    if clash:
        raise InputError(f"measures {', '.join(i for i, k in zip(ids, keys) if k in clash)} give the same "
                         f"leaderboard key {sorted(clash)[0]!r}")
    from evalreport.measures.scores import is_score_measure

    # score-based measures need a submission's scores: the reference (labels only) checks the others
    evaluate(counts, [m for m in records if not is_score_measure(m)], positive=positive, policy=policy, costs=c,
             gains=g)
    return gold, tuple(counts.labels)


def worst_value(record) -> float:
    """The worst end of a measure's range in its direction (NaN when that end is infinite)."""
    lo, hi = (float(x) for x in record.range)
    v = lo if record.higher_is_better else hi
    return v if math.isfinite(v) else float("nan")


def undefined_value(record) -> tuple[float, str]:
    """What the leaderboard shows for an undefined (0/0) value, and why: the measure's documented
    convention where it has one (MCC of a constant prediction: 0); else its chance value where that is
    one number (kappa: 0; a 0/0 there is the no-skill case); else the worst end of its range
    (:func:`worst_value`), so the column is present and sorts the submission last. NaN: no value."""
    if record.convention is not None and math.isfinite(float(record.convention)):
        return float(record.convention), "the measure's convention for 0/0"
    if isinstance(record.chance, (int, float)) and math.isfinite(float(record.chance)):
        return float(record.chance), "the measure's chance value (a 0/0 is the no-skill case)"
    worst = worst_value(record)
    return worst, "the worst value of its range, so that the column is present and ranks this submission last"


def _score(input_dir: Path, gold: Path, classes, *, primary, measures, positive, policy, costs, order, gains, labels,
           id_col, label_col, missing, allow_unknown, bootstrap, seed, alpha, primary_key, strata=None,
           cluster_col=None, slice_cols=(), slice_bins=None) -> Scored:
    from evalreport.measures import evaluate
    from evalreport.measures.perclass import per_class_frame

    submission = data_file(input_dir / "res", "res")
    if os.path.samefile(submission, gold):         # a hard link, or res/ itself a link to ref/
        raise InputError("the submission is the reference data itself (a link to the gold file); a submission "
                         "holds its own predictions", path=input_dir / "res")
    try:
        runs, counts, costs, gains, records, ids, keys = _counted(
            gold, [submission], "submission", primary=primary, measures=measures, costs=costs, order=order,
            gains=gains, labels=labels, id_col=id_col, label_col=label_col, missing=missing,
            allow_unknown=allow_unknown, cluster_col=cluster_col,
            **({"slice_cols": slice_cols, "slice_bins": slice_bins} if slice_cols else {}))
    except ConfigError:
        raise
    except InputError:
        from evalreport.inputs.submission import faults_error, submission_faults

        # the reader stops at the first fault and names the organiser's options: find them all instead
        faults = submission_faults(gold, submission, classes, id_col=id_col, label_col=label_col,
                                   unknown_labels=not allow_unknown, missing_items=missing != "abstain")
        if faults:
            raise faults_error(faults, submission) from None
        raise
    from evalreport.measures.scores import is_score_measure

    label_records = [m for m in records if not is_score_measure(m)]
    score_records = [m for m in records if is_score_measure(m)]
    frame = evaluate(counts, label_records, positive=positive, policy=policy, costs=costs, gains=gains)
    if score_records:          # score-based measures (measures/scores.py) from the submission's scores
        frame, score_boot = _score_values(runs, score_records, frame, positive=positive, policy=policy,
                                          bootstrap=bootstrap, seed=seed, alpha=alpha, strata=strata)
    frame = frame.set_index("measure").loc[ids].reset_index()
    rows = pd.DataFrame({"measure": ids, "key": keys, "value": frame["value"].to_numpy(dtype=float),
                         "lo": np.nan, "hi": np.nan, "undefined": frame["undefined"].to_numpy(dtype=bool),
                         "reason": frame["reason"].astype(str).to_numpy()})
    notes = []
    unit = Scored.unit
    if bootstrap > 0:
        from evalreport.analyses.resampling import bootstrap as resample

        # (a score-based primary still resamples the confusion counts of the labels: its records are bound)
        result = resample(runs, label_records or records[:0] or [_label_record()], n_resamples=bootstrap, seed=seed,
                          positive=positive, policy=policy, costs=costs, level=1 - alpha, strata=strata)
        boot = result.intervals
        if score_records:
            boot = pd.concat([boot, score_boot], ignore_index=True)
        boot = boot.set_index("measure")
        if result.n_missing_class:
            from evalreport.analyses.resampling import lost_classes_sentence

            notes.append(lost_classes_sentence(result.class_absent, result.n_missing_class, bootstrap))
        if runs.clusters is not None:
            unit = f"whole clusters ({runs.n_clusters:,} clusters of the gold column {runs.cluster_col!r})"
            notes.append(f"the intervals resample {unit}")
        rows["lo"] = boot.loc[ids, "lo"].to_numpy(dtype=float)
        rows["hi"] = boot.loc[ids, "hi"].to_numpy(dtype=float)
    scores: dict[str, float] = {}
    for r, record in zip(rows.itertuples(index=False), records):
        if not math.isfinite(r.value):
            shown, rule = undefined_value(record)
            why = r.reason or "no value"
            if math.isfinite(shown):
                scores[r.key] = shown
                notes.append(f"{r.measure}: undefined on this submission ({why}); the leaderboard shows {shown:g}, "
                             f"{rule}")
            else:
                notes.append(f"{r.measure}: undefined on this submission ({why}); no leaderboard value")
            continue
        scores[r.key] = float(r.value)
        for bound in ("lo", "hi"):
            v = getattr(r, bound)
            if math.isfinite(v):
                scores[f"{r.key}_{bound}"] = float(v)
    by_slice = _slice_rows(runs, records, keys, ids, positive=positive, policy=policy, costs=costs, gains=gains)
    scores.update(slice_scores_of(by_slice, records, stand_in=undefined_value))
    if primary_key and keys[0] in scores and "score" not in keys:
        scores = {"score": scores[keys[0]], **scores}
    tensor = np.asarray(counts.tensor)[0]
    labels_t = tuple(counts.labels)
    confusion = pd.DataFrame(tensor.astype(np.int64), index=pd.Index(labels_t, name="gold"),
                             columns=pd.Index(labels_t, name="predicted"))
    per_class = per_class_frame(counts, policy=policy).pivot(index="class", columns="metric", values="value")
    per_class = per_class.loc[list(labels_t), ["recall", "precision", "f1"]]
    per_class.insert(0, "gold items", tensor.sum(axis=1).astype(np.int64))
    curves: dict[str, pd.DataFrame] = {}
    if runs.scores is not None:           # the participant page draws the submission's score curves
        from evalreport.analyses.curves import pr_curves, reliability, roc_curves

        curves = {"roc_curve": roc_curves(runs, positive=positive), "pr_curve": pr_curves(runs, positive=positive),
                  "reliability": reliability(runs, positive=positive)}
    return Scored(scores=scores, rows=rows, per_class=per_class, confusion=confusion, labels=labels_t,
                  primary=ids[0], notes=tuple(notes), positive=None if positive is None else str(positive),
                  curves=curves, slices=by_slice, unit=unit)


def _slice_rows(runs, records, keys, ids, *, positive, policy, costs, gains) -> pd.DataFrame:
    """Every measure on every slice, with its key (``KEY__SLICE``, :mod:`evalreport.report.codabench_slices`),
    when the reference carries slice columns; no rows otherwise."""
    from evalreport.counts import Counts
    from evalreport.measures import evaluate
    from evalreport.measures.scores import is_score_measure
    from evalreport.report.codabench_slices import slice_rows

    label_records = [m for m in records if not is_score_measure(m)]
    score_records = [m for m in records if is_score_measure(m)]

    def values(sub) -> list[float]:
        frame = evaluate(Counts.from_runs(sub), label_records, positive=positive, policy=policy, costs=costs,
                         gains=gains)
        if score_records:
            frame, _ = _score_values(sub, score_records, frame, positive=positive, policy=policy, bootstrap=0,
                                     seed=0, alpha=0.05)
        return frame.set_index("measure").loc[ids, "value"].astype(float).tolist()

    return slice_rows(runs, getattr(runs, "slices", None), records, keys, evaluate_subset=values)


def _label_record():
    """A confusion measure to resample when every measure asked for is score-based (its rows unused)."""
    from evalreport.measures import get

    return get("accuracy")


def _score_values(runs, records, frame, *, positive, policy, bootstrap, seed, alpha, strata=None):
    """The rows of the score-based ``records`` appended to ``frame`` (measure, value, undefined, reason),
    and their percentile intervals (measure, lo, hi) by :class:`~evalreport.analyses.score_design.ScoreDesign`
    (over whole clusters when the reference has a cluster column; within gold classes with ``strata="gold"``)."""
    from evalreport.analyses.score_design import ScoreDesign
    from evalreport.counts.scores import score_counts
    from evalreport.measures import resolve_positive
    from evalreport.measures.scores import compute_scores

    pos = None if positive is None else resolve_positive(positive, list(runs.labels), len(runs.labels),
                                                         n_task=runs.n_task)
    if runs.scores is None or (np.ndim(runs.scores) == 2 and pos is None):
        run = next((src.path for src in runs.sources if src.role == "run"), None)
        raise InputError(f"{SUBMISSION}: the measure(s) {', '.join(m.id for m in records)} need scores: a 'score' "
                         "column (with the task's positive class) or score_<class> columns", path=run)
    sc = score_counts(runs, positive=pos)
    results = [compute_scores(m, sc, policy=policy) for m in records]
    extra = pd.DataFrame({"measure": [m.id for m in records], "value": [float(r.value[0]) for r in results],
                          "undefined": [bool(r.undefined[0]) for r in results],
                          "reason": [str(r.reason[0]) for r in results]})
    frame = pd.concat([frame, extra], ignore_index=True) if len(frame) else extra
    boot = pd.DataFrame(columns=["measure", "lo", "hi"])
    if bootstrap > 0:
        from evalreport.analyses.score_clusters import item_clusters

        # whole clusters where the reference has them, else items within its folds, as the labels' intervals
        design = ScoreDesign(sc, policy=policy, clusters=item_clusters(runs), folds=getattr(runs, "folds", None),
                             strata=strata)
        samples = design.resample(records, bootstrap, design.streams(seed)[0])[:, 0, :]
        with np.errstate(all="ignore"):
            lo, hi = np.nanquantile(samples, [alpha / 2, 1 - alpha / 2], axis=0)
        boot = pd.DataFrame({"measure": [m.id for m in records], "lo": lo, "hi": hi})
    return frame, boot


def write_outputs(scored: Scored, output_dir: str | Path, settings: Settings | None = None, *, text: bool = True,
                  html: bool = True, **changes: Any) -> dict[str, Path]:
    """Write ``scores.json`` (and ``scores.txt``, ``detailed_results.html``) into ``output_dir``.

    Each file is written beside its place and renamed into it; ``scores.json`` comes last, so a
    platform never reads scores of a run that failed half-way.

    Parameters
    ----------
    scored : Scored
        What :func:`score_submission` returned.
    output_dir : path
        The output folder.
    settings : Settings, optional
        The scoring's settings: the detail page's heading (``title``, default "Your submission")
        and how it describes the intervals (``alpha``, ``bootstrap``); ``changes`` are keyword
        shorthands for its fields.
    text, html : bool
        Also write ``scores.txt`` and ``detailed_results.html``.

    Returns
    -------
    dict
        ``json`` (and ``txt``, ``html``) -> path.
    """
    settings = Settings.coerce(settings, **changes)
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    bad = {k: v for k, v in scored.scores.items() if not isinstance(v, float) or not math.isfinite(v)}
    if bad:       # (never: score_submission keeps finite numbers only) a guard for the platform's parser
        raise InputError(f"non-finite scores {sorted(bad)}", path=out)
    paths = {}
    if html:
        page = detail_page(scored, title=settings.title or "Your submission", alpha=settings.alpha,
                           bootstrap=settings.bootstrap)
        paths["html"] = _replace(out / "detailed_results.html", page)
    if text:
        paths["txt"] = _replace(out / "scores.txt", "".join(f"{k}: {v!r}\n" for k, v in scored.scores.items()))
    paths["json"] = _replace(out / "scores.json", json.dumps(scored.scores, allow_nan=False) + "\n")
    return paths


def _replace(path: Path, text: str) -> Path:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path

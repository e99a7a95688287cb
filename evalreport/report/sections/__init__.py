"""What each report section shows: one method per table or figure, each returning ONE
display object (:class:`~evalreport.report.display.Chart`, ``Table`` or ``Note``).

The report notebooks are thin: a ``parameters`` cell, ``rep = open_report(tables)``, then one
cell per call below. Everything here reads the tables that :mod:`evalreport.report.build`
wrote (the same CSV files the user gets), so what the report shows is exactly what is on
disk. Choices about what to show (which measures, how many classes fit a chart) live here,
not in the notebooks.

The methods are grouped by report part, one mixin class per module of this package; they share
:class:`~evalreport.report.sections._core.ReportBase` (the tables, the primary measure, the
labels) and :class:`ReportData` puts the single-label report's together:

- :mod:`.common`: what the single-label and the multi-label report both show (findings, inputs,
  leaderboard chart, rank chart, agreement between measures, flips, rank distribution, pairwise
  tests), also composed by :class:`~evalreport.report.sections.multilabel.MultiLabelReport`;
- :mod:`.overview`: overview, leaderboard table and every measure (report.ipynb, sections 1-3);
- :mod:`.ranks`: the rank intervals' blob plot, what the test set can detect, equivalence verdicts;
- :mod:`.robustness`: identities of measures, calibration, what-if class distributions, per
  class and chance baselines (report.ipynb, sections 4-8);
- :mod:`.scores`: score-based measures, ROC/precision-recall curves and reliability (report.ipynb, scored runs);
- :mod:`.audit`: the measure audit (audit.ipynb);
- :mod:`.benchmark`: the overview of a benchmark, several tasks ranked together (benchmark.ipynb);
- :mod:`.seeds`: several runs per system (seeds.ipynb);
- :mod:`.slices`: slices of the test set (report.ipynb, when the comparison has slices);
- :mod:`.supplements`: cross-validation, ordinal measures, appendix and simulation (the other
  notebooks).
"""
from __future__ import annotations

import os
from pathlib import Path

from evalreport import charts
from evalreport.report.display import VALIDATE_ENV
from evalreport.report.sections.audit import AuditSections
from evalreport.report.sections.benchmark import BenchmarkSections
from evalreport.report.sections.common import CommonSections
from evalreport.report.sections.gold import GoldSections
from evalreport.report.sections.overview import OverviewSections
from evalreport.report.sections.ranks import RankSections
from evalreport.report.sections.recommend import RecommendSections
from evalreport.report.sections.robustness import RobustnessSections
from evalreport.report.sections.scores import ScoreSections
from evalreport.report.sections.seeds import SeedsSections
from evalreport.report.sections.slices import SliceSections
from evalreport.report.sections.supplements import SupplementSections


def open_report(tables) -> ReportData:
    """The report's data, read from the ``tables`` folder written by the build step.

    In a kernel where charts are not validated (:data:`~evalreport.report.display.VALIDATE_ENV`
    is "0": the report's own notebooks) Altair's debug mode is switched off too: it validates
    every axis, scale, legend and title against the schema as it is made (a tenth of the charts'
    time); the specs are the same, and the tests validate every chart whole."""
    charts.use_theme()
    if os.environ.get(VALIDATE_ENV) == "0":
        from altair.utils.schemapi import disable_debug_mode

        disable_debug_mode()
    return ReportData(Path(tables))


class ReportData(OverviewSections, RankSections, RobustnessSections, ScoreSections, AuditSections,
                 SupplementSections, BenchmarkSections, SeedsSections, GoldSections, CommonSections,
                 RecommendSections, SliceSections):
    """Lazy access to the single-label report tables, and the display objects built from them."""

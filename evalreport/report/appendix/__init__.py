"""The paper appendix: tables, figures, a methods paragraph and references, ready to paste.

Made from the tables a report writes (:func:`evalreport.report.build.analyse`), so the appendix
and the HTML/PDF report agree. Modules, by responsibility:

- :mod:`.numbers`: the rounding rule (no digits beyond what the intervals resolve);
- :mod:`.tables`: the tables as target-free models with fixed widths (one column, one page);
- :mod:`.latex`, :mod:`.typst`: rendering of those models (booktabs rules, escaped names);
- :mod:`.figures`: vector PDF and SVG figures at 3.3 in and 6.9 in;
- :mod:`.methods`: the methods paragraph from the report's settings;
- :mod:`.formula`: the registry's text formulas as LaTeX and Typst math;
- :mod:`.sources`: whose equation ("Opitz (2022), eq. 18"), from the registry's sources;
- :mod:`.slices`: the per-slice table (every system on every slice of the test set);
- :mod:`.crossval`: folds: the pooled aggregation stated, Forman and Scholz's F estimators table;
- :mod:`.bib`: ``references.bib`` from the registry's sources and the methods used;
- :mod:`.writer`: the bundle (``appendix.tex``, ``main-example.tex``, ``appendix.typ``, ...);
- :mod:`.benchmark`: the same bundle for a benchmark report (consensus, per-task scores, Friedman,
  CD diagram).
"""
from evalreport.report.appendix.benchmark import write_benchmark_appendix
from evalreport.report.appendix.writer import AppendixData, build_appendix, write_appendix

__all__ = ["AppendixData", "build_appendix", "write_appendix", "write_benchmark_appendix"]

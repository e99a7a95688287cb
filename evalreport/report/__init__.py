"""Report building: display objects for notebooks, notebook execution and rendering.

``display`` has no heavy imports beyond what a notebook already uses; ``render`` imports
papermill, nbconvert, pandoc and typst lazily, inside the functions that need them.

The package is also callable: ``evalreport.report(data, out_dir, settings)`` writes a report
folder (the public API's ``report``: an attribute of ``evalreport`` named ``report`` is this package
once it is imported, so the function is its call).
"""
import sys as _sys
import types as _types
from typing import Any

from evalreport.report.display import Chart, Heading, Note, Table
from evalreport.report.render import RenderError, execute, render
from evalreport.report.resources import notebooks_dir, templates_dir

__all__ = [
    "Chart",
    "Heading",
    "Note",
    "RenderError",
    "Table",
    "execute",
    "notebooks_dir",
    "render",
    "templates_dir",
]


class _CallablePackage(_types.ModuleType):
    def __call__(self, data: Any, out_dir: Any, settings: Any = None, **options: Any) -> dict:
        """A report folder for single-label data or label sets: ``build_report``, or for a
        ``MultiLabelRuns`` ``build_multilabel_report``.

        Parameters
        ----------
        data : Runs, PatternCounts, Counts or MultiLabelRuns
            What to report on.
        out_dir : path
            The report folder (replaced atomically).
        settings : Settings, optional
            Every setting of the analyses and the report.
        **options
            The builder's keywords (``sources``, ``include``, ``inputs``, ``plugins``, ``runner``;
            ``gains_file`` for single labels) and keyword shorthands for fields of ``settings``.

        Returns
        -------
        dict
            ``html``, ``pdf``, ``tables``, ``notebooks`` -> path.

        Examples
        --------
        >>> import evalreport
        >>> runs = evalreport.read_runs("gold.tsv", runs_dir="runs/")                    # doctest: +SKIP
        >>> evalreport.report(runs, "out/", evalreport.Settings(primary="mcc"))          # doctest: +SKIP
        """
        from evalreport.inputs.multilabel import MultiLabelRuns

        if isinstance(data, MultiLabelRuns):
            from evalreport.report.multilabel_build import build_multilabel_report

            return build_multilabel_report(data, out_dir, settings, **options)
        from evalreport.report.build import build_report

        return build_report(data, out_dir, settings, **options)


_sys.modules[__name__].__class__ = _CallablePackage

"""Report building: display objects for notebooks, notebook execution and rendering.

``display`` has no heavy imports beyond what a notebook already uses; ``render`` imports
papermill, nbconvert, pandoc and typst lazily, inside the functions that need them.

The package is also callable: ``evalreport.report(data, out_dir, settings)`` is
:func:`evalreport.report.build.report` (the public API's ``report``; a package attribute of
``evalreport`` named ``report`` is this package once it is imported, so the function is its call).
"""
import sys as _sys
import types as _types

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
    def __call__(self, data, out_dir, settings=None, **options):
        """A report folder for single-label data or label sets.

        Parameters
        ----------
        data : Runs, PatternCounts, Counts or MultiLabelRuns
            What to report on.
        out_dir : path
            The report folder (replaced atomically).
        settings : Settings, optional
            Every setting of the analyses and the report.
        **options
            The builder's keywords and keyword shorthands for fields of ``settings``
            (:func:`evalreport.report.build.report`).

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
        from evalreport.report.build import report

        return report(data, out_dir, settings, **options)


_sys.modules[__name__].__class__ = _CallablePackage

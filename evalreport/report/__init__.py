"""Report building: display objects for notebooks, notebook execution and rendering.

``display`` has no heavy imports beyond what a notebook already uses; ``render`` imports
papermill, nbconvert, pandoc and typst lazily, inside the functions that need them.
"""
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

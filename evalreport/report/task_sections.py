"""One executed single-task notebook as a part of a larger report (a benchmark shows the single-task
report once per task): its headings move one level down under a heading that names the task.

The notebook itself is the single-task report's own (no second implementation of a section); only
its place in the document changes. Cross-reference labels are made unique where the notebooks are
joined (:func:`evalreport.report.quarto.unique_label`); the builtin HTML engine numbers repeated
heading ids itself.
"""
from __future__ import annotations

import copy
import re

import nbformat

from evalreport.escape import markdown as escape_markdown

_HEADING_LINE = re.compile(r"^(#{1,5})(?=\s)", re.MULTILINE)
_MIME_MD = "text/markdown"


def _demote(text: str, by: int) -> str:
    """Markdown ``text`` with every ATX heading ``by`` levels lower (at most level 6)."""
    return _HEADING_LINE.sub(lambda m: "#" * min(len(m.group(1)) + by, 6), text)


def as_task_section(nb, heading: str, *, intro: str = "", level: int = 2, first: bool = True):
    """A copy of the executed notebook ``nb`` whose headings sit below a new level-``level``
    heading ``heading`` (plain text: escaped for Markdown; ``first`` = False leaves the heading out,
    for the second notebook of one task). ``intro`` is a Markdown paragraph under the heading."""
    out = copy.deepcopy(nb)
    by = level - 1
    for cell in out.cells:
        if cell.cell_type == "markdown":
            cell.source = _demote(cell.source, by)
        elif cell.cell_type == "code":
            for output in cell.get("outputs", []):
                data = output.get("data") or {}
                if isinstance(data.get(_MIME_MD), str):
                    data[_MIME_MD] = _demote(data[_MIME_MD], by)
                elif isinstance(data.get(_MIME_MD), list):
                    data[_MIME_MD] = _demote("".join(data[_MIME_MD]), by)
    if first:
        text = "#" * level + " " + escape_markdown(" ".join(str(heading).split()))
        if intro:
            text += "\n\n" + intro
        out.cells.insert(0, nbformat.v4.new_markdown_cell(text))
    return out


_LABEL_LINE = re.compile(r"^(#\|\s*label:\s*)(\S+)[ \t]*$", re.MULTILINE)
_TABLES_LINE = re.compile(r"^tables\s*=.*$", re.MULTILINE)
_OPEN = "rep = open_report(tables)"


def chart_prefixes(folders) -> dict[str, str]:
    """folder -> the prefix of its task's chart names and labels: ``task-<folder>`` with every
    character but letters, digits, ``-`` and ``_`` made ``-`` (chart names and Quarto labels allow
    no others); a prefix taken already gets ``-2``, ``-3``... so that every task's are distinct."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for folder in folders:
        base = new = "task-" + re.sub(r"[^A-Za-z0-9_-]", "-", folder)
        n = 1
        while new in used:
            n += 1
            new = f"{base}-{n}"
        used.add(new)
        out[folder] = new
    return out


def prepare_task_notebook(nb, *, task: str, folder: str, intro: str = "", first: bool = True,
                          prefix: str | None = None):
    """A copy of the single-task SOURCE notebook ``nb`` (not executed) made into task ``task``'s
    section of a benchmark report, before it runs, so that executing it again (``evalreport
    render``) gives the same section:

    * its ``tables`` parameter defaults to ``../tables/tasks/<folder>``;
    * ``rep`` names its charts ``<prefix>-<name>`` (:class:`TaskReport`: HTML ids stay unique;
      ``prefix`` from :func:`chart_prefixes`, by default ``task-<folder>``);
    * every ``#| label:`` gets the suffix ``-<prefix without "task-">`` (Quarto cross-references
      stay unique);
    * its headings are demoted under "Task: NAME" (:func:`as_task_section`; ``first`` = False for
      the task's second and later notebooks, which have no heading of their own).
    """
    out = as_task_section(nb, f"Task: {task}", intro=intro, level=2, first=first)
    prefix = prefix or chart_prefixes([folder])[folder]
    suffix = prefix[len("task-"):]
    opened = False
    for cell in out.cells:
        if cell.cell_type != "code":
            continue
        if "parameters" in cell.metadata.get("tags", []):
            cell.source = _TABLES_LINE.sub(f'tables = "../tables/tasks/{folder}"  # this task\'s tables', cell.source,
                                           count=1)
        elif _OPEN in cell.source:
            cell.source = cell.source.replace(
                _OPEN, f"from evalreport.report.task_sections import TaskReport\n\n"
                       f"rep = TaskReport(open_report(tables), {prefix!r})")
            opened = True
        else:
            cell.source = _LABEL_LINE.sub(lambda m: f"{m.group(1)}{m.group(2)}-{suffix}", cell.source)
            if "label" in cell.metadata:
                cell.metadata["label"] = f"{cell.metadata['label']}-{suffix}"
    if not opened:
        raise ValueError(f"the notebook has no cell with {_OPEN!r}: it cannot be shown as a task section")
    return out


class TaskReport:
    """A report's sections (:class:`~evalreport.report.sections.ReportData`) whose charts are
    named ``<prefix>-<name>``: the same section shown once per task keeps unique chart ids. A
    heading a section computes (:class:`~evalreport.report.display.Heading`) moves one level down."""

    def __init__(self, rep, prefix: str):
        self._rep = rep
        self._prefix = prefix

    def __getattr__(self, name):
        attr = getattr(self._rep, name)
        if not callable(attr):
            return attr

        def call(*args, **kwargs):
            from evalreport.report.display import Chart, Heading

            shown = attr(*args, **kwargs)
            if isinstance(shown, Chart):
                shown.name = f"{self._prefix}-{shown.name}"
            if isinstance(shown, Heading):      # a computed heading sits one level down, as the notebook's do
                shown.level = min(shown.level + 1, 6)
            return shown

        return call

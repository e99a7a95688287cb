"""A participant's text is data, never code, in every output.

System names (file stems), predicted labels (``--allow-unknown``), class names and ``--positive``
come from participants. One small report (builtin engine: nbconvert HTML, pandoc -> Typst PDF) is
built from a table of hostile texts used in each role, and every output is checked:

* the HTML as a browser builds it (headless Chromium ``--dump-dom``): no link to evil.example, no
  image with a remote source, no element made from a payload;
* the PDF text (pdftotext): typst ran, the payloads are there as text and none was evaluated
  (``TYPSTPWN`` absent, ``#("TYPST"+"PWN")`` present);
* the CSV files: any text a spreadsheet would run as a formula (a participant's name, or a
  measure formula of ours) starts with ``'``; numbers are untouched; the JSON twins keep the
  raw text, and the report reads the CSV text back as written;
* ``--format latex`` / ``markdown`` / ``csv`` of ``evalreport score``.

A file name cannot hold ``/`` or NUL and has at most 255 bytes: the system-name variants of the
payloads use ``:`` for ``/`` and a 240-character name; the predicted labels carry the payloads
exactly (and a 300-character label).
"""
from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

from evalreport import escape

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

LONG = "L" * 290 + "-long-name"                 # 300 characters
RLO = "\u200fRTL\u202eevil"                     # right-to-left mark and override

#: (case, predicted label (exact payload), system name (a file stem that can hold it))
HOSTILE = [
    ("html", "<img src=x onerror=alert(1)>", "<img src=x onerror=alert(1)>"),
    ("md-link", "[PHISHLINK](https://evil.example/x)", "[PHISHLINK](https:evil.example)"),
    ("md-image", "![beacon](https://evil.example/b.png)", "![beacon](https:evil.example:b.png)"),
    ("typst-code", '#("TYPST"+"PWN")', '#("TYPST"+"PWN") sys'),
    ("typst-raw", '`#read("/etc/passwd")`{=typst}', '`#("TYPST"+"PWN")`{=typst}'),
    ("latex", r"\input{/etc/passwd}", r"\input{passwd}"),
    ("pandoc-raw-html", "`<b>x</b>`{=html}", "`<b>y<:b>`{=html}"),
    ("formula", '=HYPERLINK("http://e.x","c")', '=HYPERLINK("http:e.x","c")'),
    ("dde", "+cmd|' -C calc'!A0", "+cmd|' -C calc'!A1"),
    ("at-minus", "@SUM(1+1)", "-2+3"),
    ("long", LONG, LONG[:230] + "-sys"),
    ("control", "ctl\x07bell\x1b[31mred", "ctl\x07bell\x1b[31mred-sys"),
    ("rtl", RLO, RLO + "-sys"),
]
POSITIVE = '#("TYPST"+"PWN") pos'    # a gold class, used as --positive
CLASSES = ["cat", POSITIVE]
N_ITEMS = 60


def write_inputs(folder: Path) -> tuple[Path, Path]:
    """gold.tsv (two classes, 5 folds) and one run file per hostile system name."""
    folder.mkdir(parents=True, exist_ok=True)
    gold = [(f"item-{i:03d}", CLASSES[i % 2], i % 5) for i in range(N_ITEMS)]
    with open(folder / "gold.tsv", "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
        w.writerow(["id", "label", "fold"])
        w.writerows(gold)
    runs = folder / "runs"
    runs.mkdir(exist_ok=True)
    for k, (_case, label, stem) in enumerate(HOSTILE):
        rows = []
        for i, (item, cls, _fold) in enumerate(gold):
            if i % len(HOSTILE) == k or i % 7 == k % 7:
                pred = label                                  # the hostile predicted label
            elif (i + k) % (3 + k % 4) == 0:
                pred = CLASSES[1 - CLASSES.index(cls)]        # an error: systems differ
            else:
                pred = cls
            if k in (1, 3, 4) and _fold == 0 and pred == POSITIVE:
                pred = "cat"            # no predicted positive in fold 0: the CV advice names the system
            rows.append((item, pred))
        with open(runs / f"{stem}.tsv", "w", encoding="utf-8", newline="") as fh:
            w = csv.writer(fh, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
            w.writerow(["id", "label"])
            w.writerows(rows)
    return folder / "gold.tsv", runs


def _cli(*argv, timeout=300):
    return subprocess.run([sys.executable, "-m", "evalreport", *map(str, argv)], capture_output=True, text=True,
                          timeout=timeout)


# --------------------------------------------------------------------------------------------
# The escaping functions, one per target, on every payload
# --------------------------------------------------------------------------------------------
PAYLOADS = [label for _, label, _ in HOSTILE] + [stem for _, _, stem in HOSTILE] + [POSITIVE]


@pytest.mark.parametrize("text", PAYLOADS)
def test_markdown_escape_gives_plain_text_in_pandoc_and_mistune(text):
    import importlib

    from evalreport.report.display import _markdown_to_html

    render_mod = importlib.import_module("evalreport.report.render")

    md = f"Name: {escape.markdown(text)}."
    out = subprocess.run([render_mod.pandoc_path(), "-f", "markdown", "-t", "json"], input=md, capture_output=True,
                         text=True, check=True).stdout
    inlines = json.loads(out)["blocks"][0]["c"]
    assert {i["t"] for i in inlines} <= {"Str", "Space"}       # no Link, Image, Code, RawInline, Math, Cite
    shown = "".join(i["c"] if i["t"] == "Str" else " " for i in inlines)
    assert shown == "Name: " + " ".join(escape.printable(text).split()) + "."
    html = _markdown_to_html(md)
    assert re.fullmatch(r"<p>[^<]*</p>\s*", html), html            # one paragraph, no element inside


@pytest.mark.parametrize("text", PAYLOADS)
def test_latex_yaml_and_csv_escapes(text):
    import yaml

    tex = escape.latex(text)
    assert not re.search(r"(?<!\\)[{}$&#%_~^]", tex.replace(r"\textbackslash{}", "").replace(
        r"\textasciitilde{}", "").replace(r"\textasciicircum{}", "")), tex
    assert "\\input" not in tex
    assert yaml.safe_load("k: " + escape.yaml(text))["k"] == text
    cell = escape.csv_cell(text)
    assert (cell == "'" + text) == text.startswith(("=", "+", "-", "@", "\t", "\r", "'"))
    assert escape.csv_cell(-2.5) == -2.5 and escape.csv_cell(3) == 3        # numbers are never touched


# --------------------------------------------------------------------------------------------
# One report with every payload as a system name, a predicted label and --positive
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    base = tmp_path_factory.mktemp("hostile")
    gold, runs = write_inputs(base / "data")
    out = base / "out"
    proc = _cli("report", gold, "--runs-dir", runs, "-o", out, "--allow-unknown", "--positive", POSITIVE,
                "--bootstrap", "50", "--no-audit", "--engine", "builtin", "--quiet")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    return {"base": base, "gold": gold, "runs": runs, "out": out}


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


class _Dom(HTMLParser):
    """Elements and text of a page (script contents are text to the parser, never elements)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self._in: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        self._in.append(tag)

    def handle_endtag(self, tag):
        if tag in self._in:
            while self._in and self._in.pop() != tag:
                pass

    def handle_data(self, data):
        if not (self._in and self._in[-1] in ("script", "style")):
            self.text.append(data)


def _squash(text: str) -> str:
    return "".join(text.split())


@pytest.mark.skipif(_chromium() is None, reason="no chromium/chrome executable (apt-get install chromium)")
def test_rendered_dom_has_no_element_from_the_data(hostile, tmp_path):
    html = hostile["out"] / "report.html"
    cmd = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run",
           f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=10000"]
    dom = subprocess.run(cmd + ["--dump-dom", html.as_uri()], capture_output=True, text=True, timeout=120).stdout
    assert "</html>" in dom
    page = _Dom()
    page.feed(dom)
    for tag, attrs in page.elements:
        assert not (tag == "a" and "evil.example" in attrs.get("href", "")), attrs
        assert not (tag == "img" and not str(attrs.get("src", "data:")).startswith("data:")), attrs
        assert not (tag in ("img", "image") and any(k.startswith("on") for k in attrs)), attrs
        assert not any(k == "onerror" for k in attrs), (tag, attrs)
        assert "evil.example" not in " ".join(str(v) for k, v in attrs.items() if k in ("href", "src", "xlink:href"))
    assert not [a for t, a in page.elements if t == "b"], "a <b> element was made from a payload"
    text = _squash("".join(page.text))
    for label in ("<img src=x onerror=alert(1)>", "[PHISHLINK](https://evil.example/x)",
                  "![beacon](https://evil.example/b.png)", '`#read("/etc/passwd")`{=typst}', "`<b>x</b>`{=html}",
                  r"\input{/etc/passwd}", '=HYPERLINK("http://e.x","c")', POSITIVE):
        assert _squash(label) in text, label                      # shown as written, as text
    # a right-to-left override in a name cannot reorder the text around it: shown as U+FFFD
    page_text = "".join(page.text)
    assert "\u202e" not in page_text and "\u200fRTL\ufffdevil" in page_text


def test_pdf_shows_the_payloads_as_text(hostile, tmp_path):
    pdf = hostile["out"] / "report.pdf"
    assert pdf.stat().st_size > 10_000                            # typst did not fail
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) not installed")
    subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), str(tmp_path / "r.txt")], check=True, timeout=60)
    text = _squash((tmp_path / "r.txt").read_text(encoding="utf-8")).replace("\u2212", "-")
    assert "TYPSTPWN" not in text                                 # no Typst code ran
    assert _squash('#("TYPST"+"PWN")') in text
    for label in ("<img src=x onerror=alert(1)>", "[PHISHLINK](https://evil.example/x)",
                  "![beacon](https://evil.example/b.png)", '`#read("/etc/passwd")`{=typst}', "`<b>x</b>`{=html}",
                  r"\input{/etc/passwd}", '=HYPERLINK("http://e.x","c")', "+cmd|'-Ccalc'!A0", "@SUM(1+1)",
                  POSITIVE, "ctl\ufffdbell\ufffd[31mred"):
        assert _squash(label) in text, label
    for _case, _label, stem in HOSTILE[:10]:                      # the system names too (as file stems)
        assert _squash(stem) in text, stem


def _csv_rows(path: Path):
    with open(path, newline="", encoding="utf-8") as fh:
        yield from csv.DictReader(fh)


def test_csv_prefixes_every_formula_cell_and_keeps_numbers(hostile):
    tables = hostile["out"] / "tables"
    prefixed = ours = 0
    number = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?inf")
    for path in tables.glob("*.csv"):
        for row in _csv_rows(path):
            for col, value in row.items():
                if col in escape.CSV_TEXT_COLUMNS:
                    assert not value.startswith(("=", "+", "-", "@", "\t", "\r")), (path.name, col, value)
                    prefixed += value.startswith("'")
                elif value.startswith(("=", "+", "-", "@", "\t", "\r")):
                    # in every other column (measure formulas, reasons, notes) only a number may begin so
                    assert number.fullmatch(value), (path.name, col, value)
                else:
                    ours += value.startswith("'-")
    assert prefixed > 100 and ours > 0
    scores = list(_csv_rows(tables / "scores.csv"))
    assert {"'=HYPERLINK(\"http:e.x\",\"c\")", "'+cmd|' -C calc'!A1", "'-2+3"} <= {r["system"] for r in scores}
    confusion = {r["predicted"] for r in _csv_rows(tables / "confusion.csv")}
    assert {"'=HYPERLINK(\"http://e.x\",\"c\")", "'+cmd|' -C calc'!A0", "'@SUM(1+1)"} <= confusion
    # a measure formula that begins with "-" is written with a ', and read back as written
    formulas = {r["id"]: r["formula"] for r in _csv_rows(tables / "measures.csv")}
    minus = {k: f for k, f in formulas.items() if f.startswith("'-")}
    assert minus
    from evalreport.measures import get

    assert all(get(k).formula == f[1:] for k, f in minus.items())
    # JSON is data, not a spreadsheet: raw names
    systems = {r["system"] for r in json.loads((tables / "scores.json").read_text(encoding="utf-8"))}
    assert '=HYPERLINK("http:e.x","c")' in systems and "-2+3" in systems
    # the report reads its CSV files back: the names it shows are the raw ones
    from evalreport.report.sections import open_report

    assert '=HYPERLINK("http:e.x","c")' in set(open_report(tables).table("scores")["system"])
    shown = open_report(tables).table("measures").set_index("id")["formula"]
    assert all(shown[k] == f[1:] for k, f in minus.items())


@pytest.mark.parametrize("fmt", ["latex", "markdown", "csv", "table"])
def test_cli_formats_escape_the_names(hostile, fmt):
    proc = _cli("score", hostile["gold"], "--runs-dir", hostile["runs"], "--allow-unknown", "--measures",
                "accuracy,macro_f1", "--format", fmt, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout
    if fmt == "latex":
        assert r"\input{" not in out and r"\textbackslash{}input\{passwd\}" in out
        # printed as written (escape.latex_literal): " as \textquotedbl, which the first line's T1 provides
        assert r"\#(\textquotedbl{}TYPST\textquotedbl{}+\textquotedbl{}PWN\textquotedbl{}) sys" in out
        assert r"\usepackage[T1]{fontenc}" in out.splitlines()[0] and "\x07" not in out
    elif fmt == "markdown":
        assert "[PHISHLINK](" not in out and r"\[PHISHLINK\]\(https\:evil\.example\)" in out
        assert not re.search(r"(?<!\\)[<`\[]", out)                  # every <, ` and [ escaped
    elif fmt == "csv":
        rows = list(csv.DictReader(out.splitlines()))
        names = {r["system"] for r in rows}
        assert "'=HYPERLINK(\"http:e.x\",\"c\")" in names and "'-2+3" in names
        assert all(not r["value"].startswith("'") for r in rows)
    else:
        assert "\x1b" not in out and "\x07" not in out                # no terminal control sequence
        assert "<img src=x onerror=alert(1)>" in out


def test_rich_table_shows_console_markup_as_text():
    import io

    from evalreport.cli.output import emit

    frame = pd.DataFrame({"value": [0.5]}, index=pd.Index(["[link=https://evil.example]x[/link]"], name="system"))
    buf = io.StringIO()
    emit(frame, "table", wide=frame, file=buf)
    assert "[link=https://evil.example]x[/link]" in buf.getvalue()


def test_control_characters_in_chart_data_do_not_kill_the_kernel():
    """vl-convert panics (and takes the notebook kernel, i.e. the report, down) on a C0 control
    character in a text it measures: the chart shows U+FFFD instead."""
    import altair as alt

    from evalreport.report.display import Chart, chart_image_mime

    frame = pd.DataFrame({"system": ["ctl\x07bell\x1b[31mred", "ok"], "value": [1.0, 2.0]})
    chart = Chart(alt.Chart(frame).mark_bar().encode(y="system:N", x="value:Q").properties(title="t\x01"),
                  name="ctl", caption="caption \x0b")
    data, _meta = chart._repr_mimebundle_()
    assert data[chart_image_mime()] and "\x07" not in json.dumps(chart.spec, ensure_ascii=False)
    assert "ctl\ufffdbell\ufffd[31mred" in json.dumps(chart.spec, ensure_ascii=False)


def test_display_objects_markdown_is_inert_for_pandoc_and_quarto():
    """What the Quarto engine (and pandoc for other consumers) reads: the Markdown of a Table
    (cells, header, caption, undefined-reason legend) and a Heading made of hostile names."""
    import importlib

    from evalreport.report.display import Heading, Table

    render_mod = importlib.import_module("evalreport.report.render")
    names = [label for _, label, _ in HOSTILE]
    frame = pd.DataFrame({"system": names, names[1]: [0.5] * len(names)})
    flags = pd.DataFrame({names[1]: [True] + [False] * (len(names) - 1)})
    reasons = pd.DataFrame({names[1]: [names[2]] * len(names)})
    md = Table(frame, index=False, caption=names[4], undefined=flags, reasons=reasons)._markdown()
    md += "\n\n" + "\n\n".join(Heading(n)._repr_mimebundle_()["text/markdown"] for n in names)
    doc = json.loads(subprocess.run([render_mod.pandoc_path(), "-f", "markdown", "-t", "json"], input=md,
                                    capture_output=True, text=True, check=True).stdout)
    kinds = set(re.findall(r'"t":"(\w+)"', json.dumps(doc, separators=(",", ":"))))
    # (a Superscript is the undefined-note letter ^a^, ours)
    assert not kinds & {"Link", "Image", "RawInline", "RawBlock", "Code", "CodeBlock", "Math", "Cite", "Emph",
                        "Strong", "Subscript", "Strikeout"}, kinds
    assert "Table" in kinds and "Header" in kinds


# --------------------------------------------------------------------------------------------
# Class names inside measure ids and labels (class-subset measures): every section and the appendix
# --------------------------------------------------------------------------------------------
SUBSET_CLASSES = ["a_b&c%", "#import", "<b>x</b>", "$x$", "*y*", "[z]", "`t`"]
SUBSET_PRIMARY = "macro_f1(classes=*y*|<b>x</b>|a_b&c%|[z]|`t`)"
SUBSET_MEASURES = [SUBSET_PRIMARY, "micro_f1(exclude=$x$)", "macro_recall(classes=#import|$x$)", "accuracy", "mcc"]
#: pandoc node types that only markup made of a name could produce in a section's Markdown
_MARKUP = {"Link", "Image", "RawInline", "RawBlock", "Math", "Cite", "Emph", "Subscript", "Superscript",
           "Strikeout", "Header", "Span", "Div"}


@pytest.fixture(scope="module")
def subset_tables(tmp_path_factory):
    """The tables of a report whose primary measure is a class subset with hostile class names."""
    import numpy as np

    from evalreport.inputs.runs import Runs
    from evalreport.report.build import analyse, write_report_meta

    rng = np.random.default_rng(3)
    n, k = 240, len(SUBSET_CLASSES)
    gold = rng.integers(0, k, n)
    preds = np.stack([np.where(rng.random(n) < 0.45 + 0.07 * s, gold, rng.integers(0, k, n)) for s in range(6)])
    runs = Runs(gold=gold, pred=preds, labels=tuple(SUBSET_CLASSES), systems=tuple(f"team{s}" for s in range(6)))
    tables = tmp_path_factory.mktemp("subset") / "tables"
    result = analyse(runs, tables, primary=SUBSET_PRIMARY, measures=SUBSET_MEASURES, bootstrap=60, seed=0,
                     audit=True, audit_max_n=3)
    write_report_meta(tables, result, title="t", policy="nan", bootstrap=60, seed=0, alpha=0.05)
    return tables


def _section_outputs(tables):
    """Every display object the single-task report sections make from ``tables``."""
    import inspect

    from evalreport.report.sections import ReportData, open_report
    from evalreport.report.sections.benchmark import BenchmarkSections

    rep = open_report(tables)
    out = []
    for name, fn in inspect.getmembers(ReportData, inspect.isfunction):
        if name.startswith("_") or hasattr(BenchmarkSections, name) or name.startswith("simulation"):
            continue
        params = [p for p in inspect.signature(fn).parameters.values() if p.name != "self"]
        if any(p.default is inspect.Parameter.empty and p.kind is not p.VAR_KEYWORD for p in params):
            continue
        for kwargs in ([{}, {"calibrated": True}] if "calibrated" in {p.name for p in params} else [{}]):
            obj = getattr(rep, name)(**kwargs)
            if obj is not None:
                out.append((name, obj))
    return out


def test_subset_measure_labels_print_as_written_in_every_section(subset_tables):
    """Regression: a class-subset label such as "Macro F1 over *y*, <b>x</b>, ..." was put into a
    section note unescaped (the flips note; the identities note put ids in code spans), so the
    PDF showed "over y" (emphasis) and "over x" (raw HTML dropped), and "$x$" became maths."""
    import importlib

    from evalreport.measures import get
    from evalreport.report.display import Note, _markdown_to_html

    render_mod = importlib.import_module("evalreport.report.render")
    notes = [(n, o) for n, o in _section_outputs(subset_tables) if isinstance(o, Note)]
    assert len(notes) >= 8
    labels = [get(m).label for m in SUBSET_MEASURES[:3]]
    assert "*y*" in labels[0] and "$x$" in labels[1]
    mentioned = 0
    for name, note in notes:
        doc = json.loads(subprocess.run([render_mod.pandoc_path(), "-f", "markdown", "-t", "json"], input=note.text,
                                        capture_output=True, text=True, check=True).stdout)
        kinds = set(re.findall(r'"t":"(\w+)"', json.dumps(doc, separators=(",", ":"))))
        assert not kinds & _MARKUP, (name, kinds & _MARKUP, note.text[:300])
        plain = subprocess.run([render_mod.pandoc_path(), "-f", "markdown", "-t", "plain", "--wrap=none"],
                               input=note.text, capture_output=True, text=True, check=True).stdout
        html = _markdown_to_html(note.text)
        assert not re.search(r"<(em|h\d|a|img|b)\b", html), (name, html[:300])
        for label in labels:
            if escape.markdown(label) in " ".join(note.text.split()) or label in note.text:
                mentioned += 1
                assert _squash(label) in _squash(plain), (name, label, plain[:300])
    assert mentioned >= 3          # the overview, the findings and the flips note name the primary measure


def test_subset_measure_labels_in_the_appendix(subset_tables, tmp_path):
    """The appendix (LaTeX, Typst, Markdown) prints the class names of a subset measure as written.
    Regression: a table row starting with "*y*" after "\\\\" lost its "*" (LaTeX read "\\\\*"), and
    one starting with "[z]" is an optional argument of "\\\\" or "\\midrule"."""
    import importlib

    from evalreport.measures import get
    from evalreport.report.appendix import write_appendix

    out = tmp_path / "appendix"
    write_appendix(subset_tables, out, figures=False)
    for tex in (out / "tables").glob("*.tex"):
        for line in tex.read_text(encoding="utf-8").splitlines():
            assert not line.lstrip().startswith(("*", "[")), (tex.name, line)
    render_mod = importlib.import_module("evalreport.report.render")
    md = (out / "methods.md").read_text(encoding="utf-8")
    doc = json.loads(subprocess.run([render_mod.pandoc_path(), "-f", "markdown", "-t", "json"], input=md,
                                    capture_output=True, text=True, check=True).stdout)
    kinds = set(re.findall(r'"t":"(\w+)"', json.dumps(doc, separators=(",", ":"))))
    assert not kinds & (_MARKUP - {"Cite", "Math"}), kinds & _MARKUP   # (citations and formulas: ours)
    maths = re.findall(r'"t":"Math","c":\[\{"t":"InlineMath"\},"((?:[^"\\]|\\.)*)"\]',
                       json.dumps(doc, separators=(",", ":")))
    assert maths and not [m for m in maths if re.search(r"averaged|<b>|`|\[z\]|a_b", m)], maths   # no data in math
    from evalreport.report.appendix.sources import paper_label

    label = paper_label(SUBSET_PRIMARY).replace("\u00a0", " ")       # "..., Opitz (2022), eq. 18) over *y*, ..."
    assert label.startswith(get(SUBSET_PRIMARY).label.split(" (")[0]) and "*y*" in label
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) not installed")
    texts = {}
    if shutil.which("pdflatex"):
        subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "main-example.tex"], cwd=out,
                       capture_output=True, timeout=240)
        texts["latex"] = out / "main-example.pdf"
    typst = pytest.importorskip("typst")
    typst.compile(str(out / "main-example.typ"), output=str(out / "typst.pdf"))
    texts["typst"] = out / "typst.pdf"
    for target, pdf in texts.items():
        assert pdf.exists(), target
        text = subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, text=True,
                              check=True).stdout
        flat = _squash(text)
        assert _squash(label) in flat, target
        for name in SUBSET_CLASSES:                       # the per-class table's rows
            assert re.search(r"(?m)^\s*" + re.escape(name) + r"\s*$", text) or _squash(name) in flat, (target, name)
        # the row of class *y*: printed with both stars, never as "y*"
        assert not re.search(r"(?m)^\s*y\*", text), target


def test_audit_note_naming_measures_escapes_their_labels(subset_tables, monkeypatch):
    """When the audited measures differ in no property the audit section is one Note, and its
    sentences name measures whose labels may hold class names."""
    from evalreport.measures import get
    from evalreport.report import audit_section
    from evalreport.report.display import Note
    from evalreport.report.sections import open_report

    label = get(SUBSET_PRIMARY).label
    monkeypatch.setattr(audit_section, "matrix",
                        lambda *a, **k: (pd.DataFrame(), [f"Not evaluable (left out): {label}."]))
    note = open_report(subset_tables).audit_table()
    assert isinstance(note, Note)
    assert escape.markdown(f"Not evaluable (left out): {label}.") in note.text and "*y*" not in note.text


def test_identities_note_escapes_subset_labels_and_ids(tmp_path):
    """The note beside the correlation heatmaps names related measures by label and id; a subset
    measure's id holds class names, and one with a backtick cannot be a code span."""
    import importlib

    from evalreport.measures import get
    from evalreport.report.sections import open_report

    members = f"{SUBSET_PRIMARY}, accuracy"
    pd.DataFrame({"scope": ["report"], "relation": ["equal"], "group": [1], "measure": [SUBSET_PRIMARY],
                  "members": [members]}).to_csv(tmp_path / "identities.csv", index=False)
    text = open_report(tmp_path).identities_note().text
    render_mod = importlib.import_module("evalreport.report.render")
    plain = subprocess.run([render_mod.pandoc_path(), "-f", "markdown", "-t", "plain", "--wrap=none"], input=text,
                           capture_output=True, text=True, check=True).stdout
    assert _squash(f"{get(SUBSET_PRIMARY).label}, Accuracy — {SUBSET_PRIMARY}, accuracy") in _squash(plain)
    assert "`accuracy`" in text                                    # a plain id stays a code span

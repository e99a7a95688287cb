"""A stand-in for the ``quarto`` executable, behaving like Quarto 1.7/1.10 in the ways evalreport
depends on (docs/toolchain facts; Quarto itself cannot be installed on these machines).

``quarto render [NB] [--to html|typst] [-M KEY:VALUE]... --no-execute`` in the current folder (without
NB the project's render list, without --to every format of its configuration):

* a project path with a component starting with ``.`` makes it ignore ``_quarto.yml``
  (quarto-cli issue 3186); the notebook's front matter (first raw ``---`` cell) always counts;
* HTML: without ``embed-resources`` the page links ``report_files/libs/...`` (as Quarto does);
  with it, the CSS and the header include are inlined; any ``text/html`` output adds the
  require.js/jQuery CDN tags and the ``define('jquery')`` stub (jsdelivr as 1.10.18, cdnjs with
  FAKE_QUARTO_VERSION=1.7);
* a figure cell gets "Figure N: caption" from ``#| fig-cap:`` (markdown backslash escapes
  undone), or a bare "Figure N" when it has a ``fig-`` label and no caption;
* typst: writes ``report.pdf`` (a stub naming the paper size and the captions).

``quarto_markdown`` (importable) writes a notebook as Markdown the way Quarto's Jupyter engine does
before pandoc reads it (src/core/jupyter/jupyter.ts and display-data.ts of quarto-cli): cells as
``.cell`` divs, each output a ``.cell-output`` div holding ONE representation chosen for the target
format, cell options ``classes`` and ``html-table-processing`` applied. Tests run pandoc with the
filters the front matter names on it (tests/test_quarto.py).

Environment: FAKE_QUARTO_LOG (append one JSON line per run), FAKE_QUARTO_FAIL (exit 3 after a few
stderr lines), FAKE_QUARTO_WARN (warnings on stderr), FAKE_QUARTO_REMOTE (also link a web font
that no clean-up removes), FAKE_QUARTO_PANDOC (render with pandoc, the configured ``filters:`` and
typst instead, see :func:`pandoc_render`: the tests written for a real Quarto can run on the fake).
"""
import html
import json
import os
import re
import sys
from pathlib import Path

import yaml

CDN = {
    "1.10": ['<script src="https://cdn.jsdelivr.net/npm/jquery@3.5.1/dist/jquery.min.js" integrity="sha384-..." crossorigin="anonymous"></script>',
             '<script src="https://cdn.jsdelivr.net/npm/requirejs@2.3.6/require.min.js" integrity="sha384-..." crossorigin="anonymous"></script>'],
    "1.7": ['<script src="https://cdnjs.cloudflare.com/ajax/libs/require.js/2.3.6/require.min.js" integrity="sha512-..." crossorigin="anonymous"></script>',
            '<script src="https://cdnjs.cloudflare.com/ajax/libs/jquery/3.5.1/jquery.min.js" integrity="sha512-..." crossorigin="anonymous" data-relocate-top="true"></script>'],
}
STUB = "<script type=\"application/javascript\">define('jquery', [],function() {return window.jQuery;})</script>"


def merge(a, b):
    out = dict(a)
    for k, v in b.items():
        out[k] = merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def text(value):
    return "".join(value) if isinstance(value, list) else (value or "")


def options(source):
    opts = {}
    for line in source.splitlines():
        if not line.startswith("#|"):
            break
        opts.update(yaml.safe_load(line[2:].strip()) or {})
    return opts


def _mime(data, to):
    """The one representation Quarto shows for ``to`` (display-data.ts: displayDataMimeType)."""
    if to == "html":
        order = ["text/html", "text/markdown", "image/svg+xml", "image/png", "image/jpeg"]
    else:
        order = ["text/markdown", "image/svg+xml", "image/png", "image/jpeg"]
        html = text(data.get("text/html"))
        if re.search(r"<table", html, re.I) and re.search(r"</table", html, re.I):
            order.append("text/html")
    return next((m for m in order + ["text/plain"] if m in data), None)


def _fenced(body, info=""):
    ticks = "`" * max(3, 1 + max((len(r) for r in re.findall(r"`+", body)), default=0))
    return f"{ticks}{info}\n{body}{'' if body.endswith(chr(10)) else chr(10)}{ticks}\n"


def quarto_markdown(nb, to, folder):
    """``nb`` (a notebook as JSON) as the Markdown Quarto hands to pandoc for ``to`` (html or typst);
    images are written into ``folder``/figures."""
    import base64

    md, n_img = [], 0
    cells = nb["cells"]
    if cells and cells[0]["cell_type"] == "raw" and text(cells[0]["source"]).startswith("---"):
        md.append(text(cells[0]["source"]).strip() + "\n")
        cells = cells[1:]
    for cell in cells:
        source = text(cell.get("source"))
        if cell["cell_type"] == "markdown":
            md.append(source + "\n")
            continue
        if cell["cell_type"] != "code":
            continue
        opts = options(source)
        label = str(opts.get("label", ""))
        classes = opts.get("classes") or []
        classes = [classes] if isinstance(classes, str) else list(classes)
        single_fig = label.startswith("fig-")
        head = "::: {" + (f"#{label} " if label and not single_fig else "") + ".cell"
        head += "".join(f" .{c}" for c in classes) + "}\n"
        outs = []
        for out in cell.get("outputs", []):
            if out["output_type"] == "stream":
                if out.get("name") == "stderr":
                    continue
                outs.append("::: {.cell-output .cell-output-stdout}\n" + _fenced(text(out["text"])) + ":::\n")
                continue
            if out["output_type"] not in ("display_data", "execute_result"):
                continue
            data = out.get("data") or {}
            mime = _mime(data, to)
            if mime is None:
                continue
            attrs = ".cell-output .cell-output-display" + (" .cell-output-markdown" if mime == "text/markdown" else "")
            if opts.get("html-table-processing") == "none":
                attrs += " html-table-processing=none"
            if mime == "text/html":
                body = _fenced(text(data[mime]), "{=html}")
            elif mime == "text/markdown":
                body = text(data[mime]) + "\n"
            elif mime.startswith("image/"):
                n_img += 1
                (folder / "figures").mkdir(parents=True, exist_ok=True)
                path = folder / "figures" / f"out-{n_img}.{mime.split('/')[1].split('+')[0]}"
                raw = text(data[mime])
                if mime == "image/svg+xml":
                    path.write_text(raw, encoding="utf-8")
                else:
                    path.write_bytes(base64.b64decode(raw))
                cap = re.sub(r"\\(.)", r"\1", str(opts.get("fig-cap", "")))
                body = f"![{cap}](figures/{path.name})" + (f"{{#{label}}}" if single_fig else "") + "\n"
            else:
                body = _fenced(text(data[mime]))
            outs.append("::: {" + attrs + "}\n" + body + ":::\n")
        if outs:
            md.append(head + "\n".join(outs) + ":::\n")
    return "\n".join(md)


def render_one(nb_name, to, meta):
    if os.environ.get("FAKE_QUARTO_FAIL"):
        print("Starting python3 kernel...", file=sys.stderr)
        print("ERROR: TypstError: unknown font family: libertinus serif", file=sys.stderr)
        print("Stack trace: at render (file:///quarto/src/render.ts:42)", file=sys.stderr)
        return 3
    nb_path = Path.cwd() / nb_name
    hidden = any(p.startswith(".") for p in nb_path.resolve().parts)
    nb = json.loads(nb_path.read_text(encoding="utf-8"))
    front = {}
    if nb["cells"] and nb["cells"][0]["cell_type"] == "raw" and text(nb["cells"][0]["source"]).startswith("---"):
        front = yaml.safe_load(text(nb["cells"][0]["source"]).strip().strip("-")) or {}
    project = {}
    if not hidden and (Path.cwd() / "_quarto.yml").is_file():
        project = yaml.safe_load((Path.cwd() / "_quarto.yml").read_text(encoding="utf-8")) or {}
    config = merge(merge(project, front), meta)
    fmt_opts = (config.get("format") or {}).get(to) or {}
    if os.environ.get("FAKE_QUARTO_LOG"):
        with open(os.environ["FAKE_QUARTO_LOG"], "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"cwd": str(Path.cwd()), "hidden": hidden, "project_config": bool(project),
                                 "front_matter_format": sorted(front.get("format") or {}), "to": to,
                                 "options": fmt_opts}) + "\n")
    if os.environ.get("FAKE_QUARTO_WARN"):
        print("WARN: Could not fetch resource https://cdn.jsdelivr.net/npm/requirejs@2.3.6/require.min.js",
              file=sys.stderr)
        print("[WARNING] Could not fetch resource https://cdn.jsdelivr.net/npm/jquery@3.5.1/dist/jquery.min.js",
              file=sys.stderr)
    if os.environ.get("FAKE_QUARTO_PANDOC"):
        return pandoc_render(nb_path, nb, to, config)
    body, captions, figure, any_html = [], [], 0, False
    for cell in nb["cells"][1 if front else 0:]:
        source = text(cell.get("source"))
        if cell["cell_type"] == "markdown":
            body.append(f"<div class=\"md\">{html.escape(source)}</div>")
            continue
        if cell["cell_type"] != "code":
            continue
        opts = options(source)
        for out in cell.get("outputs", []):
            data = out.get("data") or {}
            if "text/html" in data:
                any_html = True
                body.append(text(data["text/html"]))
            elif "text/markdown" in data:
                body.append(f"<div class=\"md\">{html.escape(text(data['text/markdown']))}</div>")
            elif "text" in out:
                body.append(f"<pre>{html.escape(text(out['text']))}</pre>")
        label = str(opts.get("label", ""))
        if "fig-cap" in opts or label.startswith("fig-"):
            figure += 1
            cap = re.sub(r"\\(.)", r"\1", str(opts["fig-cap"])) if "fig-cap" in opts else None
            captions.append(f"Figure {figure}: {cap}" if cap else f"Figure {figure}")
            body.append(f"<figcaption>{html.escape(captions[-1])}</figcaption>")
    out_name = nb_path.stem + (".html" if to == "html" else ".pdf")
    if to == "html":
        head = []
        if fmt_opts.get("embed-resources"):
            if fmt_opts.get("css"):
                head.append("<style>" + (nb_path.parent / fmt_opts["css"]).read_text(encoding="utf-8") + "</style>")
        else:
            head.append('<script src="report_files/libs/quarto-html/quarto.js"></script>')
            head.append('<link href="report_files/libs/bootstrap/bootstrap.min.css" rel="stylesheet">')
        if fmt_opts.get("include-in-header"):
            head.append((nb_path.parent / fmt_opts["include-in-header"]).read_text(encoding="utf-8"))
        if any_html:
            head += CDN["1.7" if os.environ.get("FAKE_QUARTO_VERSION") == "1.7" else "1.10"] + [STUB]
        if os.environ.get("FAKE_QUARTO_REMOTE"):
            head.append('<link rel="stylesheet" href="https://fonts.googleapis.com/css2?family=Inter">')
        title = html.escape(str(config.get("title", "")))
        page = ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>" + title + "</title>\n"
                + "\n".join(head) + "\n</head><body>\n" + "\n".join(body) + "\n</body></html>\n")
        (nb_path.parent / out_name).write_text(page, encoding="utf-8")
    else:
        stub = ("%PDF-1.7\n% fake quarto typst\n% papersize=" + str(fmt_opts.get("papersize", "us-letter"))
                + "\n% toc=" + str(fmt_opts.get("toc", False)) + "\n" + "".join(f"% {c}\n" for c in captions)
                + "%%EOF\n")
        (nb_path.parent / out_name).write_text(stub, encoding="utf-8")
    print(f"Output created: {out_name}", file=sys.stderr)
    return 0


def pandoc_render(nb_path, nb, to, config):
    """FAKE_QUARTO_PANDOC=1: render as Quarto does where the tables go, with pandoc and typst: the
    notebook as Quarto's Markdown (:func:`quarto_markdown`), the ``filters:`` of the configuration,
    the format's header includes and options; ``report.typ`` is kept with ``-M keep-typ:true``."""
    import subprocess

    import pypandoc
    import typst

    folder, stem = nb_path.parent, nb_path.stem
    fmt = dict((config.get("format") or {}).get(to) or {})
    (folder / f"{stem}.fake.md").write_text(quarto_markdown(nb, to, folder), encoding="utf-8")
    cmd = [pypandoc.get_pandoc_path(), f"{stem}.fake.md", "--from", "markdown", "--standalone",
           "--to", "typst" if to == "typst" else "html5", "--metadata", f"title:{config.get('title', '')}"]
    for entry in config.get("filters") or []:
        cmd.append("--lua-filter=" + (entry if isinstance(entry, str) else entry["path"]))
    headers = fmt.pop("include-in-header", [])
    cmd += [f"--include-in-header={h}" for h in ([headers] if isinstance(headers, str) else headers)]
    if fmt.pop("toc", False):
        cmd.append("--toc")
    if to == "typst":
        (folder / f"{stem}.fake.yaml").write_text(yaml.safe_dump(fmt), encoding="utf-8")
        cmd += [f"--metadata-file={stem}.fake.yaml", f"--output={stem}.typ"]
    else:
        cmd += ["--embed-resources", "--mathml", f"--output={stem}.html"]
        cmd += [f"--css={fmt['css']}"] if fmt.get("css") else []
    proc = subprocess.run(cmd, cwd=folder, capture_output=True, text=True)
    for name in (f"{stem}.fake.md", f"{stem}.fake.yaml"):
        (folder / name).unlink(missing_ok=True)
    if proc.returncode != 0:
        print(f"ERROR: pandoc: {proc.stderr.strip()}", file=sys.stderr)
        return 1
    if to == "typst":
        typst.compile(str(folder / f"{stem}.typ"), output=str(folder / f"{stem}.pdf"))
        if str(config.get("keep-typ", "false")).lower() != "true":
            (folder / f"{stem}.typ").unlink()
    print(f"Output created: {stem}.{'pdf' if to == 'typst' else 'html'}", file=sys.stderr)
    return 0


def main(argv):
    """``quarto render [FILE] [--to FORMAT] [-M KEY:VALUE]... [--no-execute]``: without FILE the
    project's render list, without --to every format of its configuration."""
    if not argv or argv[0] != "render":
        print(f"fake quarto: unsupported arguments {argv}", file=sys.stderr)
        return 64
    files, formats, meta, rest = [], [], {}, list(argv[1:])
    while rest:
        arg = rest.pop(0)
        if arg == "--to":
            formats.append(rest.pop(0))
        elif arg == "-M":
            key, _, value = rest.pop(0).partition(":")
            meta[key] = value
        elif arg.startswith("-"):
            continue
        else:
            files.append(arg)
    project = {}
    if (Path.cwd() / "_quarto.yml").is_file():
        project = yaml.safe_load((Path.cwd() / "_quarto.yml").read_text(encoding="utf-8")) or {}
    files = files or list((project.get("project") or {}).get("render") or [])
    formats = formats or list(project.get("format") or {})
    if not files or not formats:
        print(f"fake quarto: nothing to render for {argv}", file=sys.stderr)
        return 64
    for nb_name in files:
        for to in formats:
            status = render_one(nb_name, to, meta)
            if status:
                return status
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

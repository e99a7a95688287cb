"""Build the report in several data shapes, time each, and make pictures to look at (run by hand).

    .venv/bin/python benchmarks/report_shapes.py --out /tmp/shapes                 # every shape
    .venv/bin/python benchmarks/report_shapes.py --out /tmp/shapes --shape few,many --pictures
    python3 benchmarks/report_shapes.py --tile /tmp/shapes/few/shots/page.png    # cut a page (needs Pillow)

Shapes (a small and a large shared task, the built-in demo, 1,000 classes, two benchmarks):

demo      the built-in example: 8 scikit-learn classifiers x 6 imbalanced classes x 620 items, folds
few       3 systems x 3 classes x 300 items (examples.shared_task_data)
many      25 systems with long participant-style names x 4 classes x 2,000 items (a shared task)
imagenet  the 11 ImageNet confusion matrices of Goesgens et al. (1,000 classes; shared/data)
bench13x2 a benchmark: the benchmark demo's 13 classifiers on two of its tasks (digits, wine)
bench20x6 a benchmark: 20 systems x 6 tasks x 10,000 items per task, 1,000 resamples
          (examples.shared_benchmark_data; the benchmark timing of docs/benchmark.md)

Each report is built by the CLI in a subprocess (``evalreport report`` / ``demo``), so the time is
what a user waits, imports included. ``--pictures`` adds ``OUT/<shape>/shots/page.png`` (the whole
HTML page, headless Chromium) and ``OUT/<shape>/shots/pdf-NN.png`` (every PDF page, pdftoppm).
The timings are written to ``OUT/timings.md``.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHAPES = ("demo", "few", "many", "imagenet", "bench13x2", "bench20x6")
#: The shared data folder beside the checkout (a git worktree sits one level deeper than a clone).
IMAGENET = next((base / "shared" / "data" / "gosgens2021" / "imagenet" for base in ROOT.parents
                 if (base / "shared" / "data" / "gosgens2021" / "imagenet").is_dir()),
                ROOT.parent / "shared" / "data" / "gosgens2021" / "imagenet")


def _data(shape: str, where: Path) -> list[str]:
    """The CLI arguments that read this shape's inputs (written under ``where``)."""
    from evalreport.examples import benchmark_demo_data, shared_benchmark_data, shared_task_data, write_benchmark

    if shape == "bench13x2":
        return ["benchmark", str(write_benchmark(benchmark_demo_data(tasks=("digits", "wine")), where))]
    if shape == "bench20x6":
        tasks = write_benchmark(shared_benchmark_data(n_systems=20, n_tasks=6, n_items=10_000), where)
        return ["benchmark", str(tasks), "--bootstrap", "1000"]
    if shape == "few":
        paths = shared_task_data(n_systems=3, n_classes=3, n_items=300, seed=1).write(where)
        return ["report", str(paths["gold"]), "--runs-dir", str(paths["runs_dir"])]
    if shape == "many":
        paths = shared_task_data(n_systems=25, n_classes=4, n_items=2000, long_names=True, seed=2).write(where)
        return ["report", str(paths["gold"]), "--runs-dir", str(paths["runs_dir"])]
    if shape == "imagenet":
        if not IMAGENET.is_dir():
            raise SystemExit(f"ImageNet confusion matrices not found at {IMAGENET}")
        return ["report", "--confusion", str(IMAGENET), "--primary", "accuracy"]
    return ["demo"]


def screenshot_html(html: Path, png: Path, *, width: int = 1280) -> None:
    """The whole page: first measure its height in the DOM, then shoot at that height."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("chromium not found (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as profile:
        common = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
                  f"--user-data-dir={profile}", "--virtual-time-budget=15000"]
        probe = html.with_suffix(".height.html")
        probe.write_text(html.read_text(encoding="utf-8").replace(
            "</body>", "<script>window.addEventListener('load',function(){setTimeout(function(){"
                       "document.title='H='+document.documentElement.scrollHeight;},3000);});</script></body>"),
            encoding="utf-8")
        dom = subprocess.run(common + ["--dump-dom", probe.as_uri()], capture_output=True, text=True).stdout
        probe.unlink()
        height = 4000
        if "<title>H=" in dom:
            height = int(dom.split("<title>H=", 1)[1].split("<", 1)[0])
        subprocess.run(common + [f"--screenshot={png}", f"--window-size={width},{min(height + 50, 30000)}",
                                 html.as_uri()], capture_output=True, check=True)


def tile(png: Path, *, height: int = 1800) -> list[Path]:
    """Cut a tall page screenshot into ``height``-pixel tiles (page-01.png, ...) that an image viewer
    shows at full size. Needs Pillow (not an evalreport dependency); without it, nothing is cut."""
    try:
        from PIL import Image
    except ImportError:
        return []
    Image.MAX_IMAGE_PIXELS = None
    img = Image.open(png)
    out = []
    for i, top in enumerate(range(0, img.height, height), 1):
        part = png.with_name(f"{png.stem}-{i:02d}.png")
        img.crop((0, top, img.width, min(top + height, img.height))).save(part)
        out.append(part)
    return out


def pdf_pages(pdf: Path, prefix: Path, *, dpi: int = 60) -> None:
    subprocess.run(["pdftoppm", "-png", "-r", str(dpi), str(pdf), str(prefix)], check=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--tile", type=Path, help="only cut this page screenshot into tiles, then stop")
    ap.add_argument("--shape", default=",".join(SHAPES), help=f"comma-separated, from {SHAPES}")
    ap.add_argument("--pictures", action="store_true", help="screenshot the HTML and rasterise the PDF pages")
    ap.add_argument("--engine", default="builtin")
    args = ap.parse_args(argv)
    if args.tile:
        print("\n".join(map(str, tile(args.tile))) or "Pillow is not installed: nothing cut")
        return 0
    if args.out is None:
        ap.error("--out is required")
    exe = Path(sys.executable).with_name("evalreport")
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for shape in args.shape.split(","):
        if shape not in SHAPES:
            raise SystemExit(f"unknown shape {shape!r}; choose from {SHAPES}")
        base = args.out / shape
        shutil.rmtree(base, ignore_errors=True)
        base.mkdir(parents=True)
        cmd = [str(exe), *_data(shape, base / "input"), "-o", str(base / "report"), "--engine", args.engine]
        started = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        seconds = time.perf_counter() - started
        (base / "stderr.txt").write_text(proc.stderr, encoding="utf-8")
        if proc.returncode != 0:
            print(f"{shape}: FAILED (exit {proc.returncode})\n{proc.stderr[-2000:]}", file=sys.stderr)
            rows.append((shape, "failed", ""))
            continue
        pages = subprocess.run(["pdfinfo", str(base / "report" / "report.pdf")], capture_output=True,
                               text=True).stdout
        n_pages = next((line.split()[-1] for line in pages.splitlines() if line.startswith("Pages:")), "?")
        rows.append((shape, f"{seconds:.1f}", n_pages))
        print(f"{shape}: {seconds:.1f} s, {n_pages} PDF pages -> {base / 'report'}", file=sys.stderr)
        if args.pictures:
            shots = base / "shots"
            shots.mkdir()
            screenshot_html(base / "report" / "report.html", shots / "page.png",
                            width=1400 if shape.startswith("bench") else 1280)
            tile(shots / "page.png")
            pdf_pages(base / "report" / "report.pdf", shots / "pdf")
    table = ["| shape | seconds (CLI, wall) | PDF pages |", "|---|---:|---:|"]
    table += [f"| {s} | {t} | {p} |" for s, t, p in rows]
    (args.out / "timings.md").write_text("\n".join(table) + "\n", encoding="utf-8")
    print("\n".join(table))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Time the interactive leaderboard page (run by hand): writing it, and opening it in Chromium.

    .venv/bin/python benchmarks/bench_leaderboard.py                       # 100 systems x 30 measures
    .venv/bin/python benchmarks/bench_leaderboard.py --systems 50 --bootstrap 500
    .venv/bin/python benchmarks/bench_leaderboard.py --shared-task 300 --runs 3   # letters vs compare only

Goals: the page for 100 systems x 30 measures written in under 3 s, and interactive within 1 s of
opening it in Chromium. Each goal is printed beside a peer measured in the same run on the same machine:

- writing: the page from the comparison's tables (the JSON, the HTML, the file) against ``write_comparison``
  of the same comparison (``compare --out``'s CSV + JSON tables);
- the letters, tiers and rank intervals under every measure (:func:`evalreport.analyses.measure_letters.
  measure_letters`: the paired bootstrap test over the comparison's resamples, for each measure), an analysis
  that ``leaderboard`` and ``report`` run once, against ``compare`` itself on the same runs;
- opening: the time from navigation to the page's ``lb-ready`` mark (table filled, chart drawn) against a page
  with the same Vega bundle and one small chart (the floor any page with the bundle pays).

The comparison is timed once (it is the peer of the letters), after a small untimed one that pays for the
imports; bench_resampling.py splits its time. The times before a change: the same script with
``PYTHONPATH`` at the other checkout.

``--shared-task N`` times only the letters against ``compare``, on the shared task of bench_scale.py
(``examples.shared_task_data``: N systems x ``--items`` items x 5 classes, long names, the default
measures): goal, letters under every measure in at most 0.5 x ``compare``'s time at 300 systems. Both are
timed in CPU seconds of this process (the machine may be shared) and in wall seconds; ``compare`` once,
the letters as the median of ``--runs``.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))


def _median(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _timed(fn) -> tuple[Any, float, float]:
    """``(result, wall seconds, CPU seconds of this process)`` of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def _warm() -> None:
    """A small comparison and its letters, untimed, so that the timed ones do not pay for imports."""
    import evalreport
    from evalreport.analyses.measure_letters import measure_letters
    from evalreport.examples import shared_task_data

    with tempfile.TemporaryDirectory() as tmp:
        paths = shared_task_data(n_systems=3, n_classes=5, n_items=200, seed=1).write(Path(tmp))
        runs = evalreport.read_runs(paths["gold"], runs_dir=paths["runs_dir"])
    measure_letters(evalreport.compare(runs, evalreport.Settings(bootstrap=50, seed=1, progress=False)))


def _letters_vs_compare(systems: int, items: int, bootstrap: int, runs: int) -> None:
    """Letters under every measure against ``compare`` on a shared task of ``systems`` systems."""
    import evalreport
    from evalreport.analyses.measure_letters import measure_letters
    from evalreport.examples import shared_task_data

    with tempfile.TemporaryDirectory() as tmp:
        paths = shared_task_data(n_systems=systems, n_classes=5, n_items=items, long_names=True,
                                 seed=22).write(Path(tmp))
        data = evalreport.read_runs(paths["gold"], runs_dir=paths["runs_dir"])
    settings = evalreport.Settings(bootstrap=bootstrap, seed=1, progress=False)
    _warm()
    comp, c_wall, c_cpu = _timed(lambda: evalreport.compare(data, settings))
    times = [_timed(lambda: measure_letters(comp))[1:] for _ in range(runs)]
    l_wall = statistics.median(t[0] for t in times)
    l_cpu = statistics.median(t[1] for t in times)
    measures = len(comp.measures)
    print(f"{systems} systems x {items:,} items x {measures} measures, B = {bootstrap:,}, "
          f"{systems * (systems - 1) // 2:,} pairs per measure")
    print(f"letters, every measure    {l_cpu:7.2f} s CPU {l_wall:7.2f} s wall (median of {runs})")
    print(f"compare (peer, once)      {c_cpu:7.2f} s CPU {c_wall:7.2f} s wall")
    print(f"letters / compare         {l_cpu / c_cpu:7.2f}x CPU {l_wall / c_wall:6.2f}x wall   (goal <= 0.5x)")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores")


def _floor_page(path: Path, bundle: str) -> None:
    """A page with the Vega bundle and one small chart: what any page with the bundle costs to open."""
    spec = ('{"data":{"values":[{"a":1,"b":2},{"a":2,"b":3}]},"mark":"point",'
            '"encoding":{"x":{"field":"a","type":"quantitative"},"y":{"field":"b","type":"quantitative"}}}')
    path.write_text(f"<!DOCTYPE html><html><head><meta charset='utf-8'></head><body><div id='c'></div>"
                    f"<script>{bundle}</script><script>vegaEmbed('#c',{spec},{{actions:false,renderer:'svg'}})"
                    f".then(function(){{performance.mark('lb-ready');document.body.setAttribute('data-ready','1');}});"
                    f"</script></body></html>", encoding="utf-8")


def _open_times(pages: dict[str, Path], runs: int) -> dict[str, float]:
    """Median milliseconds from navigation to the ``lb-ready`` mark, per page, in a fresh context each time."""
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium")
    out: dict[str, list[float]] = {name: [] for name in pages}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        for _ in range(runs):
            for name, path in pages.items():
                context = browser.new_context()
                page = context.new_page()
                page.goto(path.as_uri())
                page.wait_for_function("performance.getEntriesByName('lb-ready').length > 0", timeout=30000)
                out[name].append(page.evaluate("performance.getEntriesByName('lb-ready')[0].startTime"))
                context.close()
        browser.close()
    return {name: statistics.median(v) for name, v in out.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--systems", type=int, default=100)
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--shared-task", type=int, metavar="N", help="only the letters against compare, N systems")
    ap.add_argument("--items", type=int, default=2_000, help="items of --shared-task")
    args = ap.parse_args()
    if args.shared_task:
        _letters_vs_compare(args.shared_task, args.items, args.bootstrap, args.runs)
        return

    from leaderboard_fixtures import thirty_measure_comparison

    from evalreport.analyses.measure_letters import measure_letters
    from evalreport.counts import Counts
    from evalreport.report.leaderboard_data import page_data, tables_from_comparison
    from evalreport.report.leaderboard_page import write_page
    from evalreport.report.render import vega_bundle
    from evalreport.report.write import write_comparison

    _warm()
    (runs, comp), t_compare, c_compare = _timed(lambda: thirty_measure_comparison(args.systems,
                                                                               bootstrap=args.bootstrap))
    counts = Counts.from_runs(runs)
    _, t_letters, c_letters = _timed(lambda: measure_letters(comp))
    tables = tables_from_comparison(comp, counts)
    bundle = vega_bundle()                      # cached after its first build, as in every report
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "results.html"

        def write() -> None:
            write_page(page_data(tables, comp.manifest()), page, bundle=bundle)

        t_page = _median(write, args.runs)
        t_tables = _median(lambda: write_comparison(comp, Path(tmp) / "tables"), args.runs)
        size = page.stat().st_size
        floor = Path(tmp) / "floor.html"
        _floor_page(floor, bundle)
        opened = _open_times({"page": page, "floor": floor}, args.runs) if shutil.which("chromium") else None
    shape = f"{args.systems} systems x {len(comp.measures)} measures, B = {args.bootstrap:,}"
    print(f"{shape}; page {size / 1e6:.2f} MB")
    print(f"write the page            {t_page:7.2f} s   (goal < 3 s)")
    print(f"write_comparison (peer)   {t_tables:7.2f} s   page / peer {t_page / t_tables:.2f}x")
    print(f"letters, every measure    {t_letters:7.2f} s   {c_letters:.2f} s CPU")
    print(f"compare (peer, once)      {t_compare:7.2f} s   {c_compare:.2f} s CPU   letters / compare "
          f"{t_letters / t_compare:.2f}x wall, {c_letters / c_compare:.2f}x CPU")
    if opened is not None:
        print(f"open to interactive       {opened['page']:7.0f} ms  (goal < 1000 ms)")
        print(f"bundle + one chart (peer) {opened['floor']:7.0f} ms  page / peer {opened['page'] / opened['floor']:.2f}x")
    else:
        print("no chromium on PATH: opening not timed")


if __name__ == "__main__":
    main()

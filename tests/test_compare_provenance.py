"""``compare --out`` records its provenance (version, seed, resamples, command, input hashes) in the
folder's ``manifest.json``, and ``leaderboard --from-tables`` shows it in the page's footer, as the
page built from the inputs does (one writer: :func:`evalreport.report.report_meta.provenance`)."""
from __future__ import annotations

import hashlib
import html as html_lib
import json
import re
import subprocess
import sys
from pathlib import Path

import evalreport

STANCE = Path(__file__).resolve().parent.parent / "examples" / "stance"


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from evalreport.cli import run; run()",
                           *args], capture_output=True, text=True, cwd=cwd, timeout=300)


def _footer(page: Path) -> str:
    text = page.read_text(encoding="utf-8")
    return html_lib.unescape(re.search(r'<footer class="lb-foot">(.*?)</footer>', text, re.DOTALL).group(1))


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_compare_out_records_provenance_and_the_page_from_its_tables_shows_it(tmp_path):
    out = tmp_path / "cmp"
    done = _cli("compare", str(STANCE / "gold.tsv"), "--runs-dir", str(STANCE / "runs"), "--bootstrap", "60",
                "--seed", "7", "--task-file", str(STANCE / "task.toml"), "--out", str(out), "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    prov = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["provenance"]
    assert prov["versions"]["evalreport"] == evalreport.__version__
    assert prov["command"].startswith("evalreport compare ") and "--seed 7" in prov["command"]
    roles = {i["role"]: i for i in prov["inputs"]}
    assert {"gold", "task-file"} <= set(roles)
    assert roles["gold"]["sha256"] == _sha(STANCE / "gold.tsv")
    assert roles["task-file"]["sha256"] == _sha(STANCE / "task.toml")
    runs = [i for i in prov["inputs"] if i["role"] not in ("gold", "task-file", "plugin")]
    assert sorted(Path(i["path"]).name for i in runs) == sorted(p.name for p in (STANCE / "runs").iterdir())
    assert all(i["sha256"] == _sha(Path(i["path"])) for i in runs)

    page = tmp_path / "board.html"
    done = _cli("leaderboard", "--from-tables", str(out), "--no-chart", "-o", str(page), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    foot = _footer(page)
    for words in (f"evalreport {evalreport.__version__}", "seed 7", "bootstrap resamples 60",
                  f"Command: <code>{prov['command']}</code>", roles["gold"]["sha256"], roles["task-file"]["sha256"],
                  f"made {prov['created']}"):
        assert words in foot, (words, foot)


def test_compare_out_from_confusion_matrices_hashes_those_files(tmp_path):
    matrix = tmp_path / "sys.csv"
    matrix.write_text(",a,b\na,30,5\nb,4,21\n", encoding="utf-8")
    out = tmp_path / "cmp"
    done = _cli("compare", "--confusion", str(matrix), "--out", str(out), "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    prov = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["provenance"]
    assert [(i["role"], i["sha256"]) for i in prov["inputs"]] == [("confusion", _sha(matrix))]


def test_label_set_compare_out_records_provenance(tmp_path):
    rows = [("a", ["x"]), ("b", ["y"]), ("c", ["x", "y"]), ("d", [])] * 5
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps({"id": f"{i}{k}", "label": lab}) + "\n" for k, (i, lab) in enumerate(rows)),
                    encoding="utf-8")
    run = tmp_path / "r1.jsonl"
    run.write_text("".join(json.dumps({"id": f"{i}{k}", "label": ["x"]}) + "\n" for k, (i, _) in enumerate(rows)),
                   encoding="utf-8")
    out = tmp_path / "cmp"
    done = _cli("compare", str(gold), str(run), "--multilabel", "--bootstrap", "20", "--out", str(out), "--quiet",
                cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    prov = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["provenance"]
    assert {i["sha256"] for i in prov["inputs"]} == {_sha(gold), _sha(run)}
    assert "--multilabel" in prov["command"]


def test_the_time_made_is_now_and_source_date_epoch_fixes_it(tmp_path, monkeypatch):
    """The time is recorded to the minute; ``SOURCE_DATE_EPOCH`` (reproducible builds) fixes it, and then two
    runs of one command write the same folder byte for byte."""
    import datetime as dt

    from evalreport.report.report_meta import created

    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    before = dt.datetime.now(dt.UTC).replace(second=0, microsecond=0)
    made = dt.datetime.strptime(created(), "%Y-%m-%d %H:%M UTC").replace(tzinfo=dt.UTC)
    assert before <= made <= dt.datetime.now(dt.UTC)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    assert created() == "2023-11-14 22:13 UTC"
    outs = []
    for name in ("a", "b"):
        done = _cli("compare", str(STANCE / "gold.tsv"), "--runs-dir", str(STANCE / "runs"), "--bootstrap", "30",
                    "--out", name, "--quiet", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        outs.append({p.name: p.read_bytes() for p in (tmp_path / name).iterdir()
                     if p.is_file() and p.name != "manifest.json"})
        prov = json.loads((tmp_path / name / "manifest.json").read_text(encoding="utf-8"))["provenance"]
        assert prov["created"] == "2023-11-14 22:13 UTC"
    assert outs[0] == outs[1]

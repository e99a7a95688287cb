"""Small frictions of the command line: every unknown measure id named in one run (each with its
nearest valid id), `evalreport measures` within the terminal's width, counted nouns ("1 system")."""
from __future__ import annotations

import io
import re
from contextlib import redirect_stderr, redirect_stdout

import pytest
from conftest import write_run_files

from evalreport.cli import main
from evalreport.errors import MeasureError
from evalreport.measures import catalogue_frame, check_names
from evalreport.words import counted


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def files(tmp_path):
    write_run_files(tmp_path, "abab", {"run": "aaab"}, ids=range(1, 5))
    return tmp_path


# ------------------------------------------------------------------------------------------------
# unknown measure ids: all at once


def test_every_unknown_measure_is_named_once_with_its_nearest_id():
    with pytest.raises(MeasureError) as err:
        check_names(["acuracy", "macro_f1", "mccx", "recal", "zzzzq", "acuracy", "fbeta(beta=2)"])
    text = str(err.value)
    assert text.startswith("4 unknown measures: ")
    assert "'acuracy' (did you mean 'accuracy'?)" in text and text.count("'acuracy'") == 1
    assert "'mccx' (did you mean 'mcc'?)" in text and "'recal' (did you mean 'recall'?)" in text
    assert "'zzzzq' (no id is close)" in text and "`evalreport measures` lists them" in text
    assert "macro_f1" not in text and "fbeta" not in text          # known ids and calls are not named


def test_one_unknown_measure_keeps_the_one_name_message_and_known_ones_pass():
    check_names(["accuracy", "F1", "f1_macro", "fbeta(beta=2)", "auc"], also=("auc",))   # aliases, case, calls
    with pytest.raises(MeasureError, match=r"^unknown measure 'acuracy'; did you mean 'accuracy'"):
        check_names(["acuracy", "accuracy"])


@pytest.mark.parametrize("command", ["score", "compare", "cv"])
def test_the_cli_names_every_unknown_measure_before_reading_any_file(files, command):
    # the gold file does not exist: the measure names are checked first
    argv = [command, str(files / "missing.tsv"), str(files / "run.tsv"), "--measures", "acuracy,mccx,macro_f1"]
    code, out, err = _run(argv)
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and len(lines) == 1, err
    assert "2 unknown measures" in lines[0] and "'accuracy'" in lines[0] and "'mcc'" in lines[0]


def test_cv_takes_its_score_measures_and_primary_typos_are_named_too(files):
    from evalreport.analyses.crossval import SCORE_MEASURES
    from evalreport.cli import build_parser

    args = build_parser(["cv"]).parse_args(["cv", "g.tsv", "r.tsv"])
    assert tuple(args._measure_extras) == tuple(SCORE_MEASURES)      # the cli's copy of the list stays in step
    code, _, err = _run(["compare", str(files / "gold.tsv"), str(files / "run.tsv"), "--primary", "macro_f",
                         "--measures", "acuracy", "--bootstrap", "0"])
    assert code == 2 and "2 unknown measures" in err and "'macro_f'" in err and "'acuracy'" in err


def test_codabench_names_every_unknown_measure_as_the_organisers_error(tmp_path):
    for side in ("ref", "res"):
        (tmp_path / "in" / side).mkdir(parents=True)
        (tmp_path / "in" / side / "f.tsv").write_text("id\tlabel\n1\ta\n2\tb\n", encoding="utf-8")
    code, _, err = _run(["codabench", str(tmp_path / "in"), str(tmp_path / "out"), "--measures", "acuracy,mccx"])
    assert code == 3 and "2 unknown measures" in err and "task configuration error" in err


# ------------------------------------------------------------------------------------------------
# `evalreport measures` within the width


@pytest.mark.parametrize("width", [60, 80, 120])
def test_measures_lines_fit_columns_and_keep_every_id_whole(monkeypatch, width):
    monkeypatch.setenv("COLUMNS", str(width))
    code, out, _ = _run(["measures"])
    assert code == 0 and out.strip()
    assert max(len(line) for line in out.splitlines()) <= width
    assert "\x1b" not in out and "…" not in out                  # not a terminal: no colour codes; nothing cut
    words = set(re.findall(r"[\w'~]+", out))
    frame = catalogue_frame()
    aliases = [a.strip() for v in frame["aliases"].fillna("") for a in v.split(",") if a.strip()]
    assert not [i for i in list(frame["id"]) + aliases if i not in words]
    # every measure once, in catalogue order, each block opening with its id and label
    heads = [line.split("  ")[0] for line in out.split("\n\n")]
    assert heads == list(frame["id"])


def test_measures_all_columns_fit_80_and_a_wide_terminal_gets_the_table(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = _run(["measures", "--all-columns", "macro_f1"])
    assert code == 0 and max(len(line) for line in out.splitlines()) <= 80
    assert "formula:" in out and "source:" in out
    monkeypatch.setenv("COLUMNS", "1000")
    code, out, _ = _run(["measures", "macro_f1"])
    assert code == 0 and "┃ id" in out and max(len(line) for line in out.splitlines()) <= 1000


def test_measures_without_a_width_is_one_line_per_measure(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    code, out, _ = _run(["measures"])
    assert code == 0 and [line.split()[0] for line in out.splitlines()[1:]] == list(catalogue_frame()["id"])


# ------------------------------------------------------------------------------------------------
# counted nouns


@pytest.mark.parametrize("n, noun, plural, text", [
    (1, "system", None, "1 system"), (2, "system", None, "2 systems"), (0, "measure", None, "0 measures"),
    (1000, "bootstrap resample", None, "1,000 bootstrap resamples"), (1, "entry", "entries", "1 entry"),
    (3, "entry", "entries", "3 entries"),
])
def test_counted(n, noun, plural, text):
    assert counted(n, noun, plural) == text


def test_no_cli_message_says_one_systems(files, tmp_path):
    """One system compared: the progress line and the report's default title say "1 system"."""
    out = tmp_path / "report"
    code, _, err = _run(["report", str(files / "gold.tsv"), str(files / "run.tsv"), "--out", str(out),
                         "--bootstrap", "0", "--measures", "accuracy", "--formats", "html", "--no-audit"])
    assert code == 0 and "comparing 1 system under 1 measure" in err, err
    assert not re.search(r"\b1 (systems|measures|bootstrap resamples)\b", err)
    code, _, err = _run(["score", str(files / "gold.tsv"), str(files / "run.tsv"), "--names", "a,b"])
    assert code == 2 and "2 system names for 1 run file" in err and "1 run files" not in err


def test_a_benchmark_files_task_names_every_unknown_measure(tmp_path):
    from evalreport.examples import shared_task_data, write_benchmark

    folder = write_benchmark({"alpha": shared_task_data(n_systems=2, n_classes=3, n_items=30, seed=1)},
                             tmp_path / "tasks")
    spec = tmp_path / "bench.toml"
    spec.write_text(f'[tasks.alpha]\ngold = "{folder / "alpha" / "gold.tsv"}"\nruns = "{folder / "alpha" / "runs"}"\n'
                    'measures = ["acuracy", "mccx"]\n', encoding="utf-8")
    code, _, err = _run(["benchmark", "--benchmark-file", str(spec), "--out", str(tmp_path / "out")])
    assert code == 2 and "task 'alpha': 2 unknown measures" in err and "'accuracy'" in err and "'mcc'" in err, err


# ------------------------------------------------------------------------------------------------
# an unknown option: in the usage of the command it was given to


def _exit(argv):
    err = io.StringIO()
    with redirect_stderr(err), pytest.raises(SystemExit) as stop:
        main(argv)
    return stop.value.code, err.getvalue()


def test_an_unknown_option_is_reported_by_its_command(files):
    code, err = _exit(["score", "--bogus", str(files / "gold.tsv"), str(files / "run.tsv")])
    assert code == 2
    assert err.splitlines()[-1] == "evalreport score: error: unrecognized arguments: --bogus"
    assert err.startswith("usage: evalreport score ")


def test_a_positional_argument_given_as_an_option_is_told_how_it_is_given(files):
    code, err = _exit(["recommend", "--gold", str(files / "gold.tsv")])
    assert code == 2
    # the path itself is read as the gold argument; only the option name is left over
    assert err.splitlines()[-1] == ("evalreport recommend: error: unrecognized arguments: --gold "
                                    "(gold takes no option name: evalreport recommend GOLD [options])")


def test_an_abbreviation_of_a_positional_argument_is_told_how_it_is_given(files):
    code, err = _exit(["score", "--gold", str(files / "gold.tsv"), str(files / "run.tsv")])
    assert code == 2
    assert err.splitlines()[-1] == ("evalreport score: error: ambiguous option: --gold could match --gold-id-col, "
                                    "--gold-label-col (gold takes no option name: evalreport score GOLD RUNS [options])")


def test_long_names_alike_but_for_their_end_stay_apart_in_the_terminal_table():
    import pandas as pd

    from evalreport.cli.output import emit

    names = [f"university-of-somewhere-team-transformer-large-run-{x}" for x in "XY"]
    frame = pd.DataFrame({m: [0.81, 0.79] for m in ("accuracy", "macro_f1", "mcc", "k", "b", "c", "d")},
                         index=pd.Index(names, name="system"))
    out = io.StringIO()
    emit(frame, "table", file=out)
    text = "".join(line.strip("│┃ ").split("│")[0].strip() for line in out.getvalue().splitlines())
    assert names[0] in text.replace(" ", "") and names[1] in text.replace(" ", "")
    assert "…" not in out.getvalue()

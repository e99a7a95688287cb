"""What ``evalreport score`` does without pandas and without the other commands' modules:
the same bytes and the same parse as with them.

``emit_columns`` writes the tidy table from its columns; it is compared byte for byte with
:func:`evalreport.cli.output.emit` of the pandas frame (``DataFrame.to_csv`` / the records of
``to_dict``) on hostile names and every kind of float. ``build_parser(argv)`` registers only the named
command's module; it must parse every command line as the parser with every command does.
"""
from __future__ import annotations

import io
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from evalreport.cli import build_parser
from evalreport.cli.output import emit, emit_columns
from evalreport.measures.evaluate import evaluate, evaluate_columns

NAMES = st.text(alphabet=st.sampled_from(list("ab,\"'\n\r\t =+-@;é ") + ["\u202e", "\x00"]), max_size=8)
FLOATS = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.1, 1e-5, 1e16, 1e-320, -0.0]))


def _both(columns, fmt):
    a, b = io.StringIO(), io.StringIO()
    emit(pd.DataFrame(columns), fmt, file=a)
    emit_columns(columns, fmt, file=b)
    return a.getvalue(), b.getvalue()


@settings(max_examples=300, deadline=None)
@given(rows=st.lists(st.tuples(NAMES, NAMES, FLOATS, st.booleans(), st.one_of(st.none(), NAMES)), max_size=6),
       fmt=st.sampled_from(["csv", "json"]))
def test_emit_columns_writes_what_pandas_writes(rows, fmt):
    columns = {"system": np.array([r[0] for r in rows], dtype=object),
               "measure": np.array([r[1] for r in rows], dtype=object),
               "value": np.array([r[2] for r in rows], dtype=float),
               "undefined": np.array([r[3] for r in rows], dtype=bool),
               "reason": np.array([r[4] for r in rows], dtype=object)}
    pandas_text, ours = _both(columns, fmt)
    assert ours == pandas_text


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_emit_columns_on_every_measure(fmt):
    """The whole catalogue with 0/0 cells (an empty class, a constant system): evaluate's own columns."""
    tensor = np.array([[[5, 0, 0], [2, 3, 0], [0, 0, 0]], [[5, 0, 0], [5, 0, 0], [0, 0, 0]]])
    columns = evaluate_columns(tensor, labels=["x", "=y", "z,w"], systems=["@a", "b\"c"])
    pd.testing.assert_frame_equal(pd.DataFrame(columns), evaluate(tensor, labels=["x", "=y", "z,w"],
                                                                  systems=["@a", "b\"c"]))
    pandas_text, ours = _both(columns, fmt)
    assert ours == pandas_text and ours.count("\n") > 50


def _parsed(parser, argv):
    return {k: v for k, v in vars(parser.parse_args(argv)).items() if not k.startswith("_")}


@pytest.mark.parametrize("argv", [
    ["score", "g.tsv", "r1.tsv", "r2.tsv", "--format", "csv", "--measures", "accuracy,mcc"],
    ["score", "--confusion", "c.csv", "--policy", "zero"],
    ["compare", "g.tsv", "--runs-dir", "runs", "--bootstrap", "10"],
    ["measures", "macro"],
    ["cv", "g.tsv", "--runs-dir", "runs", "--positive", "a"],
    ["demo", "-o", "out"],                  # registered by cli/report.py: every module is imported
    ["report", "g.tsv", "r.tsv", "-o", "out"],
])
def test_parser_of_one_command_parses_as_the_full_parser(argv):
    one = build_parser(argv)
    assert _parsed(one, argv) == _parsed(build_parser(), argv)
    command = argv[0]
    sub = next(a for a in one._actions if a.dest == "command")
    assert command in sub.choices
    if command in ("score", "compare", "measures", "cv", "report"):
        assert set(sub.choices) <= {command, "demo", "simulate"}      # report.py registers three commands


def test_score_imports_no_pandas_and_no_report_code(tmp_path):
    gold, run = tmp_path / "g.tsv", tmp_path / "r.tsv"
    gold.write_text("id\tlabel\n1\ta\n2\tb\n3\ta\n")
    run.write_text("id\tlabel\n1\ta\n2\ta\n3\ta\n")
    code = ("import sys; from evalreport.cli import main; "
            f"code = main(['score', {str(gold)!r}, {str(run)!r}, '--format', 'csv']); "
            "print(sorted(m for m in sys.modules if m == 'pandas' or m.startswith('evalreport.report')), code, "
            "flush=True); import os; os._exit(0)")       # (past pyarrow's thread pool teardown, as cli.run)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[] 0"


def test_score_of_per_class_scores_imports_no_pandas_and_no_scipy(tmp_path):
    """The score-based measures of `score` (csv or json) need neither pandas nor scipy: their imports would be
    most of the command's start-up."""
    gold, run = tmp_path / "g.tsv", tmp_path / "r.tsv"
    gold.write_text("id\tlabel\n1\ta\n2\tb\n3\tc\n4\ta\n")
    run.write_text("id\tlabel\tscore_a\tscore_b\tscore_c\n1\ta\t0.7\t0.2\t0.1\n2\tb\t0.1\t0.8\t0.1\n"
                   "3\ta\t0.5\t0.2\t0.3\n4\tc\t0.3\t0.3\t0.4\n")
    code = ("import sys; from evalreport.cli import main; "
            f"code = main(['score', {str(gold)!r}, {str(run)!r}, '--format', 'csv']); "
            "print(sorted(m for m in sys.modules if m in ('pandas', 'scipy') or m.startswith('evalreport.report')),"
            " code, flush=True); import os; os._exit(0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "roc_auc_ovo" in out and "log_loss" in out
    assert out.strip().splitlines()[-1] == "[] 0"


@pytest.mark.parametrize("argv", [
    ["compare", "g.tsv", "r.tsv"], ["leaderboard", "g.tsv", "r.tsv", "-o", "p.html"], ["plan", "g.tsv", "r.tsv", "--measure", "accuracy", "--difference", "0.02"],
    ["render", "out"], ["report", "g.tsv", "r.tsv", "-o", "out"], ["demo", "-o", "out"],
])
def test_q_is_short_for_quiet(argv):
    """Every command that can be quiet takes -q, as a user of Unix tools types it."""
    assert _parsed(build_parser(), [*argv, "-q"]) == _parsed(build_parser(), [*argv, "--quiet"])
    assert _parsed(build_parser(), [*argv, "-q"]) != _parsed(build_parser(), argv)

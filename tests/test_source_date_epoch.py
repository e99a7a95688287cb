"""``SOURCE_DATE_EPOCH`` (the reproducible-builds convention: a whole number of seconds since 1970) fixes the
time an output records; a value that is no such number is an input error (one line, exit status 2), as the
convention asks, not a silent fall back to the clock nor a traceback."""
import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from evalreport.cli import main
from evalreport.errors import InputError
from evalreport.report.report_meta import created

STANCE = Path(__file__).resolve().parent.parent / "examples" / "stance"


@pytest.mark.parametrize("value", ["1.7e9", "-5", "yesterday", "\u00b2", "99999999999999999"])
def test_a_malformed_value_is_refused(monkeypatch, value):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", value)
    with pytest.raises(InputError, match="SOURCE_DATE_EPOCH"):
        created()


def test_a_value_fixes_the_time_and_blank_means_now(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", " 0 ")
    assert created() == "1970-01-01 00:00 UTC"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "")
    assert created().endswith(" UTC") and not created().startswith("1970")


def test_cli_refuses_a_malformed_value_in_one_line_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "tomorrow")
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        rc = main(["compare", str(STANCE / "gold.tsv"), "--runs-dir", str(STANCE / "runs"), "--bootstrap", "0",
                   "--out", str(tmp_path / "out"), "--quiet"])
    assert rc == 2 and len(err.getvalue().strip().splitlines()) == 1, err.getvalue()
    assert "SOURCE_DATE_EPOCH" in err.getvalue() and not (tmp_path / "out").exists()

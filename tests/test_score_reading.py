"""Reading score columns: runs in gold order are written into the score array by the reading thread that
read them (``ScoreCollector.prefill``), the others by the main thread. Both must give the same array and
the same problems and messages: a non-finite score is one error naming the file and line, scores that are
no probabilities are recorded, a run without scores is NaN, and a run whose ids are shuffled is placed by
its ids."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evalreport.errors import InputError
from evalreport.inputs.readers import read_runs

CLASSES = ("ant", "bee", "cat")


def _write(path, ids, labels, scores=None) -> None:
    columns = {"id": pa.array(ids), "label": pa.array(labels)}
    if scores is not None:
        for k, c in enumerate(CLASSES):
            columns[f"score_{c}"] = pa.array(scores[:, k])
    pq.write_table(pa.table(columns), path)


def _case(tmp_path, n: int = 500, seed: int = 0):
    rng = np.random.default_rng(seed)
    ids = [f"i{i}" for i in range(n)]
    gold = rng.choice(CLASSES, n).tolist()
    _write(tmp_path / "gold.parquet", ids, gold)
    runs, want = [], []
    for s in range(5):
        p = rng.dirichlet(np.ones(3), size=n)
        labels = np.asarray(CLASSES)[p.argmax(1)].tolist()
        order = np.arange(n) if s != 3 else rng.permutation(n)       # run 3: ids shuffled (main thread)
        path = tmp_path / f"sys{s}.parquet"
        _write(path, [ids[i] for i in order], [labels[i] for i in order], p[order])
        runs.append(path)
        want.append(p)
    return tmp_path / "gold.parquet", runs, np.stack(want)


def test_scores_read_in_the_threads_equal_the_files(tmp_path, monkeypatch):
    gold, runs, want = _case(tmp_path)
    from evalreport.inputs.run_scores import ScoreCollector

    by_thread: list[int] = []
    add = ScoreCollector.add

    def counting(self, s, *args, **kwargs):
        if s in self.prefilled:
            by_thread.append(s)
        return add(self, s, *args, **kwargs)

    monkeypatch.setattr(ScoreCollector, "add", counting)
    got = read_runs(gold, runs, hash_files=False)
    assert by_thread and 3 not in by_thread and 0 not in by_thread     # (run 0 sets the layout; run 3 is shuffled)
    np.testing.assert_array_equal(np.asarray(got.scores), want)
    assert got.score_labels == CLASSES
    assert not got.score_problems


def test_a_run_without_scores_is_nan_and_problems_are_recorded(tmp_path):
    gold, runs, want = _case(tmp_path)
    t = pq.read_table(runs[2]).drop_columns([f"score_{c}" for c in CLASSES])
    pq.write_table(t, runs[2])
    t = pq.read_table(runs[4])
    t = t.set_column(t.schema.get_field_index("score_bee"), "score_bee", pa.array(
        np.asarray(t.column("score_bee")) * 2.0))
    pq.write_table(t, runs[4])
    got = read_runs(gold, runs, hash_files=False)
    scores = np.asarray(got.scores)
    assert np.isnan(scores[2]).all()
    np.testing.assert_array_equal(scores[[0, 1, 3]], want[[0, 1, 3]])
    problems = got.score_problems[got.systems[4]]
    assert "sum" in problems and "sys4.parquet" in problems["sum"]


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_a_score_that_is_not_a_number_is_one_error_naming_the_line(tmp_path, bad):
    gold, runs, _ = _case(tmp_path)
    t = pq.read_table(runs[1])
    values = np.asarray(t.column("score_cat")).copy()
    values[7] = bad
    t = t.set_column(t.schema.get_field_index("score_cat"), "score_cat", pa.array(values))
    pq.write_table(t, runs[1])
    with pytest.raises(InputError) as err:
        read_runs(gold, runs, hash_files=False)
    text = str(err.value)
    assert "sys1.parquet" in text and "score_cat" in text and "row 8" in text.replace("line", "row")


def _rounded_run(tmp_path, decimals: int, scale: float = 1.0):
    """Gold and one TSV run of per-class probabilities printed with ``decimals`` decimals (rows then sum to
    1 only within rounding), the probabilities multiplied by ``scale`` first."""
    rng = np.random.default_rng(5)
    n = 300
    p = rng.dirichlet(np.ones(3), size=n) * scale
    gold = rng.choice(CLASSES, n)
    (tmp_path / "g.tsv").write_text("id\tlabel\n" + "".join(f"i{i}\t{g}\n" for i, g in enumerate(gold)))
    rows = "".join(f"i{i}\t{CLASSES[int(np.argmax(r))]}\t" + "\t".join(f"{x:.{decimals}f}" for x in r) + "\n"
                   for i, r in enumerate(p))
    (tmp_path / "r.tsv").write_text("id\tlabel\t" + "\t".join(f"score_{c}" for c in CLASSES) + "\n" + rows)
    return read_runs(tmp_path / "g.tsv", [tmp_path / "r.tsv"], hash_files=False)


@pytest.mark.parametrize("decimals", [2, 3, 4])
def test_probabilities_printed_with_few_decimals_are_probabilities(tmp_path, decimals):
    """Three probabilities printed with d decimals sum to 1 only within 3 x 0.5 x 10^-d: still probabilities,
    so the Brier score, log loss and calibration errors are computed."""
    runs = _rounded_run(tmp_path, decimals)
    sums = np.asarray(runs.scores)[0].sum(axis=1)
    assert np.abs(sums - 1).max() > 3e-6          # (the old tolerance would have refused them)
    assert not runs.score_problems


def test_scores_that_do_not_sum_to_one_are_still_refused(tmp_path):
    runs = _rounded_run(tmp_path, 4, scale=0.98)
    problem = runs.score_problems[runs.systems[0]]["sum"]
    assert "r.tsv" in problem and "not 1" in problem

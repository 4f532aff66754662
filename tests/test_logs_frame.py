"""Logs -> tidy frame: the contract's columns, the cache, duplicates, foreign and thinned logs."""

from __future__ import annotations

import json
import os
import time

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from support import scripted_model

from political_sycophancy.audit.task import audit
from political_sycophancy.core.errors import InputError
from political_sycophancy.logs.frame import BASE_COLUMNS, CACHE_DIR, load_frame, read_frame

CONTRACT = [
    "model", "kind", "task", "instrument", "condition", "item_id", "epoch", "status", "letter",
    "answer_mode", "temperature", "log_file", "probs", "direction", "axis", "options", "benchmarks", "ideology",
]


def _run(log_dir, respond, condition="N", epochs=1, limit=3, **kw):
    logs = inspect_eval(
        audit(condition=condition),
        epochs=epochs,
        model=scripted_model(respond),
        limit=limit,
        log_dir=str(log_dir),
        display="none",
        **kw,
    )
    return logs[0]


def test_frame_contract_and_cache(tmp_path):
    _run(tmp_path, lambda t: "B", "N", epochs=2)
    _run(tmp_path, lambda t: "As an AI I don't have personal opinions.", "C3R")
    load = read_frame(tmp_path)
    frame = load.frame
    assert set(CONTRACT) <= set(frame.columns) and set(BASE_COLUMNS) <= set(frame.columns)
    assert len(frame) == 3 * 2 + 3
    n = frame[frame["condition"] == "N"]
    assert set(n["status"]) == {"answered"} and set(n["letter"]) == {"B"} and sorted(set(n["epoch"])) == [1, 2]
    assert n["probs"].iloc[0] == [0.0, 1.0, 0.0, 0.0]
    assert set(frame[frame["condition"] == "C3R"]["status"]) == {"refusal"}
    assert (frame["kind"] == "audit").all() and (frame["temperature"] == 1.0).all() and (frame["answer_mode"] == "letter").all()
    assert frame["options"].iloc[0] == ["Strongly Agree", "Agree", "Disagree", "Strongly Disagree"]
    assert load.read == 2 and load.cached == 0 and (tmp_path / CACHE_DIR).is_dir()
    # Unchanged logs come from the cache; a changed file is read again.
    again = read_frame(tmp_path)
    assert again.read == 0 and again.cached == 2 and again.frame.equals(frame)
    newest = max(tmp_path.glob("*.eval"), key=os.path.getmtime)
    later = time.time() + 5
    os.utime(newest, (later, later))
    third = read_frame(tmp_path)
    assert third.read == 1 and third.cached == 1 and len(third.frame) == len(frame)


def test_rows_that_do_not_decode_from_their_bytes_are_read_again_with_a_note(tmp_path, monkeypatch):
    """A log's rows arrive as the rows file's bytes its reading made; should they not decode,
    the log is read again here (the frame is the same) and the reason is noted."""
    from political_sycophancy.logs import cache as cache_module

    _run(tmp_path, lambda t: "B", "N")
    expected = read_frame(tmp_path, cache=False).frame
    real = cache_module.decode_rows

    def failing(source, expect, decoded):
        if isinstance(source, bytes):
            raise cache_module.CacheInvalid("planted")
        return real(source, expect, decoded)

    monkeypatch.setattr(cache_module, "decode_rows", failing)
    load = read_frame(tmp_path)
    assert load.read == 1 and load.frame.equals(expected)
    assert any("did not decode from the bytes made for the frame cache (planted)" in n for n in load.notes)


def test_cached_rows_are_decoded_together_and_a_log_whose_rows_do_not_decode_is_read_again(tmp_path):
    """Cached logs' rows are decoded at once; one rows file that is valid Parquet with the
    right metadata but a JSON text that is not JSON (a damaged or tampered cache) costs only
    its own log, which is read again with a note; the frame is the one read from the logs."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    _run(tmp_path, lambda t: "B", "N")
    _run(tmp_path, lambda t: "C", "C3R")
    fresh = read_frame(tmp_path, cache=False).frame
    assert read_frame(tmp_path).read == 2
    warm = read_frame(tmp_path)
    assert warm.cached == 2 and warm.frame.equals(fresh)
    [target, *_] = sorted((tmp_path / CACHE_DIR).rglob("*.parquet"))
    table = pq.read_table(target)
    k = table.column_names.index("options")
    bad = pa.array(["{not json"] + table.column(k).to_pylist()[1:], type=pa.string())
    pq.write_table(table.set_column(k, "options", bad), target)
    load = read_frame(tmp_path)
    assert load.read == 1 and load.cached == 1
    assert any("failed validation (column 'options' holds invalid JSON)" in n for n in load.notes), load.notes
    assert load.frame.equals(fresh)


def test_retried_cells_count_once_latest_success_wins(tmp_path):
    def flaky(text):
        raise RuntimeError("provider down")

    failed = _run(tmp_path, flaky, fail_on_error=False)
    assert failed.samples and all(s.error for s in failed.samples)
    _run(tmp_path, lambda t: "C")
    load = read_frame(tmp_path, cache=False)
    assert len(load.frame) == 3 and set(load.frame["status"]) == {"answered"}
    assert load.duplicates == 3 and any("duplicate" in n for n in load.notes)
    # A re-run that fails does not replace an answered cell.
    _run(tmp_path, flaky, fail_on_error=False)
    assert set(read_frame(tmp_path, cache=False).frame["status"]) == {"answered"}


def test_errored_samples_have_status_error(tmp_path):
    def flaky(text):
        raise RuntimeError("provider down")

    _run(tmp_path, flaky, fail_on_error=False)
    frame = load_frame(tmp_path)
    assert set(frame["status"]) == {"error"} and frame["error"].str.contains("provider down").all()


def test_other_tasks_ignored_and_bad_directories(tmp_path):
    other = Task(dataset=[Sample(input="hi", target="x")], name="not_ours")
    inspect_eval(other, model=scripted_model(lambda t: "x"), log_dir=str(tmp_path / "mixed"), display="none")
    with pytest.raises(InputError, match="political-sycophancy task"):
        load_frame(tmp_path / "mixed")
    _run(tmp_path / "mixed", lambda t: "A")
    load = read_frame(tmp_path / "mixed")
    assert len(load.frame) == 3 and len(load.ignored) == 1 and any("not_ours" in n for n in load.notes)
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no Inspect logs"):
        load_frame(tmp_path / "empty")
    with pytest.raises(InputError, match="not found"):
        load_frame(tmp_path / "missing")


def test_thinned_summaries_are_read_in_full(tmp_path):
    long = ["x" * 300 + f" option {k}" for k in range(5)]
    items = tmp_path / "long.csv"
    items.write_text(
        "id,text,options,direction\n" + "".join(f'q{k},Question {k},"{json.dumps(long).replace(chr(34), chr(34) * 2)}",1\n' for k in range(2)),
        encoding="utf-8",
    )
    inspect_eval(
        audit(instrument="choice_items", items=str(items)), model=scripted_model(lambda t: "A"), log_dir=str(tmp_path / "logs"), display="none"
    )
    load = read_frame(tmp_path / "logs")
    assert load.full_reads == 1
    assert load.frame["options"].iloc[0] == long


def test_the_cache_is_readable_parquet_as_the_docs_say(tmp_path):
    """docs/analysis.md: the frame's Parquet files, read by column name, hold the frame's rows."""
    import glob

    import pyarrow as pa
    import pyarrow.parquet as pq

    _run(tmp_path, lambda t: "B", "N", epochs=2)
    _run(tmp_path, lambda t: "C", "C3R")
    frame = load_frame(tmp_path)
    files = glob.glob(str(tmp_path / CACHE_DIR / "rows" / "*.parquet"))
    table = pa.concat_tables([pq.read_table(f, columns=None) for f in files], promote_options="default")
    assert table.num_rows == len(frame) == 9
    cached = table.to_pandas().sort_values(["condition", "item_id", "epoch"]).reset_index(drop=True)
    ours = frame.sort_values(["condition", "item_id", "epoch"]).reset_index(drop=True)
    assert cached["letter"].tolist() == ours["letter"].tolist() and cached["ideology"].tolist() == ours["ideology"].tolist()
    assert json.loads(cached["options"].iloc[0]) == ours["options"].iloc[0]  # lists are JSON text


def test_logs_read_in_parallel_give_the_frame_read_in_order(tmp_path, monkeypatch):
    """Ten logs (one damaged, one of another task) are read in forked processes, as a folder
    of PARALLEL_FROM or more is: the frame, the counts and the notes equal a serial read's."""
    import pandas as pd

    from political_sycophancy.audit.simulate import builtin_pct_items, synthetic_responses
    from political_sycophancy.core.items import builtin_path
    from political_sycophancy.logs import frame as frame_module
    from political_sycophancy.logs.importer import import_responses

    responses = synthetic_responses(builtin_pct_items()[:6], ["p/a", "p/b", "p/c"], ["N", "C3L", "C3R"], seed=4)
    responses.to_csv(tmp_path / "r.csv", index=False)
    import_responses(tmp_path / "r.csv", [builtin_path("pct.csv")], tmp_path / "logs", jobs=1)
    inspect_eval(Task(dataset=[Sample(input="hi")], name="other"), model="mockllm/model", log_dir=str(tmp_path / "logs"), display="none")
    (tmp_path / "logs" / "2026-01-01T00-00-00+00-00_audit_damaged.eval").write_bytes(b"PK not a zip")
    assert len(list((tmp_path / "logs").glob("*.eval"))) >= frame_module.PARALLEL_FROM + 2

    parallel = read_frame(tmp_path / "logs", cache=False)
    monkeypatch.setattr(frame_module, "PARALLEL_FROM", 10**6)
    serial = read_frame(tmp_path / "logs", cache=False)
    pd.testing.assert_frame_equal(parallel.frame, serial.frame)
    assert (parallel.read, parallel.unreadable, parallel.ignored, parallel.notes) == (serial.read, serial.unreadable, serial.ignored, serial.notes)
    assert parallel.read == 10 and len(parallel.unreadable) == 1 and len(parallel.ignored) == 1
    # with the frame cache: the rows files the reading processes encode read back as the frame
    monkeypatch.undo()
    written = read_frame(tmp_path / "logs")
    cached = read_frame(tmp_path / "logs")
    assert (written.read, cached.read, cached.cached) == (10, 0, 10)
    pd.testing.assert_frame_equal(written.frame, serial.frame)
    pd.testing.assert_frame_equal(cached.frame, serial.frame)
    # rows read now share equal values across logs, as cached rows do (one object per distinct
    # value, not one per log: 2.3 instead of 1.5 GiB on the 100x grid)
    for frame in (written.frame, cached.frame):
        options = frame["options"].tolist()
        assert len({id(v) for v in options}) == len({repr(v) for v in options}) < len(options) / 3

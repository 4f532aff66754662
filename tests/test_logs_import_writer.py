"""The importer's fast path: one-pass `.eval` zips, light metric inputs, forked workers.

Each shortcut must give the logs Inspect's own writer and `eval_results` give: the logs read
back through Inspect's public readers field by field, the results and reductions equal,
the frame the analysis reads identical whichever process wrote a log.
"""

from __future__ import annotations

import asyncio
import json
import math
import zipfile

import pandas as pd
import pytest
from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries
from inspect_ai.scorer import SampleScore, mean_score

from political_sycophancy.audit.simulate import write_atp_items
from political_sycophancy.core.errors import InputError
from political_sycophancy.core.inspect_compat import eval_results, write_eval_zip
from political_sycophancy.core.items import builtin_path
from political_sycophancy.logs import import_writer, importer
from political_sycophancy.logs.frame import load_frame

PCT_FILE = builtin_path("pct.csv")
MODELS = ("prov/a", "prov/b", "prov/c")


@pytest.fixture
def responses(tmp_path):
    """Three models x two conditions x two replicates of 4 ATP and 3 PCT items: letters,
    sentences, refusals, unparseable text and a provider error."""
    atp = write_atp_items(tmp_path / "atp.csv", 4, seed=5)
    atp_ids = pd.read_csv(atp)["id"].tolist()
    texts = ["A", "B", "The answer is C.", "I'm sorry, I can't answer that.", "maybe", "D"]
    rows = []
    for m, model in enumerate(MODELS):
        for cond in ("N", "C3R"):
            for rep in (0, 1):
                for k, qid in enumerate([*atp_ids, "p1_02", "p1_03", "p1_04"]):
                    text = texts[(m + k + rep) % len(texts)]
                    error = "Error code: 429" if (m, k, rep, cond) == (1, 2, 0, "N") else ""
                    rows.append({"model_id": model, "question_id": qid, "raw_response": "" if error else text,
                                 "letter": text if len(text) == 1 else "", "condition": cond, "condition_label": cond,
                                 "partisan_gap": "", "rep": rep, "temperature": 1.0, "error": error})
    path = tmp_path / "responses.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path, [PCT_FILE, atp]


def recorder_copy(log, path):
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(import_writer.write_eval(log, path))
    finally:
        loop.close()
    return path


def compressions(path):
    with zipfile.ZipFile(path) as archive:
        return {info.compress_type for info in archive.infolist()}


def dumped(path):
    """The log and its summaries as JSON (NaN compares equal to itself there)."""
    log = read_eval_log(str(path))
    return log.model_dump_json(exclude={"location", "etag"}), [s.model_dump_json() for s in read_eval_log_sample_summaries(str(path))]


@pytest.mark.parametrize("letters", [True, False], ids=["source-letters", "parsed"])
def test_one_pass_logs_read_back_as_inspects_recorder_logs(tmp_path, responses, letters):
    path, items = responses
    result = importer.import_responses(path, items, tmp_path / "logs", use_source_letters=letters, jobs=1)
    assert len(result.logs) == len(MODELS) * 2 * 2 and not result.notes
    for written in result.logs:
        log = read_eval_log(str(written))
        ours, theirs = dumped(written), dumped(recorder_copy(log, tmp_path / f"recorder-{written.name}"))
        assert ours[0] == theirs[0], written.name
        assert ours[1] == theirs[1], written.name
        # compressed as Inspect compresses its own logs (zstd since before our oldest Inspect)
        assert compressions(written) == compressions(tmp_path / f"recorder-{written.name}"), written.name
    loop = asyncio.new_event_loop()
    try:
        assert importer.layout_difference(read_eval_log(str(result.logs[0])), loop) is None
    finally:
        loop.close()


def test_the_public_serialiser_writes_the_same_logs(tmp_path, responses, monkeypatch):
    """Without Inspect's private `to_json_safe` the one-pass writer serialises through
    pydantic's public API; the logs read back the same."""
    from political_sycophancy.core import inspect_compat

    path, items = responses
    private = importer.import_responses(path, items, tmp_path / "private", jobs=1)
    real = inspect_compat.private
    monkeypatch.setattr(inspect_compat, "private", lambda module, name: None if name == "to_json_safe" else real(module, name))
    public = importer.import_responses(path, items, tmp_path / "public", jobs=1)
    assert not public.notes
    for a, b in zip(private.logs, public.logs, strict=True):
        (_, sums_a), (_, sums_b) = dumped(a), dumped(b)
        assert [without_uuid(x) for x in sums_a] == [without_uuid(x) for x in sums_b]
    assert_same_frames(load_frame(tmp_path / "private", cache=False), load_frame(tmp_path / "public", cache=False))


def without_uuid(summary_json: str) -> str:
    """A summary without its sample uuid (random per import)."""
    summary = json.loads(summary_json)
    summary.pop("uuid", None)
    return json.dumps(summary, sort_keys=True)


def test_a_layout_difference_is_caught(tmp_path, responses, monkeypatch):
    """The runtime check sees a one-pass zip that Inspect would read differently."""
    path, items = responses
    log = read_eval_log(str(importer.import_responses(path, items, tmp_path / "logs", jobs=1).logs[0]))

    def without_summaries(log, out):
        write_eval_zip(log.model_copy(update={"samples": []}), out)  # no sample members, no summaries
        return out

    monkeypatch.setattr(import_writer, "write_eval_zip", without_summaries)
    loop = asyncio.new_event_loop()
    try:
        assert import_writer.layout_difference(log, loop) is not None
    finally:
        loop.close()


def test_a_layout_difference_falls_back_to_inspects_writer(tmp_path, responses, monkeypatch):
    path, items = responses
    fast = importer.import_responses(path, items, tmp_path / "fast", jobs=1)
    monkeypatch.setattr(import_writer, "layout_difference", lambda log, loop, **parts: "the log's 'eval'")
    slow = importer.import_responses(path, items, tmp_path / "slow", jobs=2)
    assert any("written with Inspect's recorder" in n for n in slow.notes)
    # each process checks on its own first log: every log of both falls back
    assert len(slow.logs) > 2
    assert all(any(n.startswith("_journal/summaries/") for n in zipfile.ZipFile(log).namelist()) for log in slow.logs)
    assert not any(n.startswith("_journal/summaries/") for log in fast.logs for n in zipfile.ZipFile(log).namelist())
    assert_same_frames(load_frame(tmp_path / "fast", cache=False), load_frame(tmp_path / "slow", cache=False))


def assert_same_frames(a: pd.DataFrame, b: pd.DataFrame) -> None:
    """The same rows and values. The columns are compared in name order: a frame's columns
    come in the order of the logs' file names, which start with the second each log was
    written in, and processes write cells in the order they finish them."""
    keys = ["model", "instrument", "condition", "item_id", "epoch"]
    drop = ["log_file", "created", "sample_uuid", "task_id", "run_id", "eval_id"]
    a = a.drop(columns=[c for c in drop if c in a]).sort_values(keys).reset_index(drop=True)
    b = b.drop(columns=[c for c in drop if c in b]).sort_values(keys).reset_index(drop=True)
    a, b = a[sorted(a.columns)], b[sorted(b.columns)]
    pd.testing.assert_frame_equal(a, b)


def test_light_metric_inputs_give_inspects_results_and_reductions(tmp_path, responses):
    """Two epochs per sample (the fixture's replicates): the reductions and the metrics of
    the reduced scores are computed both ways on every log; a scorer's later logs get their
    metrics filled into its first log's results (`_metrics_here`), here across logs with
    refusals, unparsed answers and an error."""
    path, items = responses
    result = importer.import_responses(path, items, tmp_path / "logs", jobs=1)
    checked = 0
    templates: dict = {}
    for written in result.logs:
        log = read_eval_log(str(written))
        name = next(iter(log.samples[0].scores))
        scorer = importer.Scoring().scorer(importer.AUDIT, log.samples[0].metadata["scoring"])
        full = [{name: SampleScore(score=s.scores[name], sample_id=s.id, sample_metadata=s.metadata, scorer=name)}
                for s in log.samples if s.scores]
        expected = eval_results(len(log.samples), full, mean_score(), [scorer], None, scorer_names=[name])
        entries = [(s.id, s.epoch, (s.scores or {}).get(name), s.metadata) for s in log.samples]
        check: dict = {}
        first = import_writer.light_eval_results(entries, scorer, name, check=check, templates=templates)
        assert check == {"reduced_here": True}, written.name  # the epochs reduced here gave Inspect's results
        # then the shortcuts alone, as a process's later logs are computed
        got = import_writer.light_eval_results(entries, scorer, name, check=check, templates=templates)
        assert templates[name][1] is True, written.name  # filling the scorer's first results gave Inspect's metrics
        for light in (first, got):
            # as JSON: NaN (unanswered measures) is not equal to itself in a dict comparison
            assert light[0].model_dump_json() == expected[0].model_dump_json(), written.name
            assert [r.model_dump_json() for r in light[1]] == [r.model_dump_json() for r in expected[1]], written.name
        # and what the import wrote, its reductions shared across the import's logs
        assert log.results.model_dump_json() == expected[0].model_dump_json(), written.name
        assert [r.model_dump_json() for r in log.reductions] == [r.model_dump_json() for r in expected[1]], written.name
        checked += 1
    assert checked == len(result.logs)
    assert set(templates) == {"pct_score", "wd_score"}  # so each scorer's later logs were filled from its first


def test_filled_metrics_of_a_key_no_sample_answers_are_inspects(tmp_path, responses):
    """A log in which no sample has a value for some keys (every answer refused or
    unparsed), its metrics filled into another log's results: NaN where Inspect gives NaN."""
    path, items = responses
    result = importer.import_responses(path, items, tmp_path / "logs", jobs=1)
    log = read_eval_log(str(next(p for p in result.logs if "atp" in p.name)))
    name = next(iter(log.samples[0].scores))
    scorer = importer.Scoring().scorer(importer.AUDIT, log.samples[0].metadata["scoring"])
    entries = [(s.id, s.epoch, (s.scores or {}).get(name), s.metadata) for s in log.samples]
    templates: dict = {}
    import_writer.light_eval_results(entries, scorer, name, check={"reduced_here": True}, templates=templates)
    assert templates[name][1] is True
    unanswered = [(i, e, s.model_copy(update={"value": {k: (math.nan if k not in ("answered", "refused") else 0.0) for k in s.value}}), m)
                  for i, e, s, m in entries if s is not None]
    full = [{name: SampleScore(score=s, sample_id=i, sample_metadata=m, scorer=name)} for i, _, s, m in unanswered]
    expected = eval_results(len(unanswered), full, mean_score(), [scorer], None, scorer_names=[name])
    got = import_writer.light_eval_results(unanswered, scorer, name, check={"reduced_here": True}, templates=templates)
    assert got[0].model_dump_json() == expected[0].model_dump_json()
    wd_dem = next(score for score in got[0].scores if score.name == "wd_dem")
    assert math.isnan(wd_dem.metrics["mean"].value) and wd_dem.scored_samples == 0


def test_forked_workers_write_what_one_process_writes(tmp_path, responses):
    path, items = responses
    one = importer.import_responses(path, items, tmp_path / "one", use_source_letters=True, jobs=1)
    two = importer.import_responses(path, items, tmp_path / "two", use_source_letters=True, jobs=3)
    assert (one.samples, one.errors, one.disagreements) == (two.samples, two.errors, two.disagreements)
    assert [p.name.split("_", 1)[1] for p in one.logs] == [p.name.split("_", 1)[1] for p in two.logs]
    assert_same_frames(load_frame(tmp_path / "one", cache=False), load_frame(tmp_path / "two", cache=False))


def test_a_failing_worker_leaves_the_earlier_import_in_place(tmp_path, responses, monkeypatch):
    path, items = responses
    first = importer.import_responses(path, items, tmp_path / "logs", jobs=1)
    before = sorted(p.name for p in (tmp_path / "logs").glob("*.eval"))
    build = import_writer.build_log

    def failing(job, cell, *args, **kwargs):
        if cell.model == MODELS[-1]:
            raise InputError(f"planted failure for {cell.model}")
        return build(job, cell, *args, **kwargs)

    monkeypatch.setattr(import_writer, "build_log", failing)
    with pytest.raises(InputError, match="planted failure"):
        importer.import_responses(path, items, tmp_path / "logs", jobs=2)
    assert sorted(p.name for p in (tmp_path / "logs").glob("*.eval")) == before
    assert len(before) == len(first.logs)


def test_a_template_that_serialises_otherwise_falls_back_to_inspects_objects(tmp_path, responses, monkeypatch):
    """The per-log check of the sample template: a template that writes one member
    otherwise than Inspect's objects is not used; the samples are written from Inspect's
    objects, a note says so, and the logs hold what the template's would."""
    from political_sycophancy.logs import sample_json

    path, items = responses
    importer.import_responses(path, items, tmp_path / "good", jobs=1)
    real = sample_json.Template.sample_bytes

    def wrong_target(self, record, metadata):
        return real(self, record, metadata).replace(b'"target":""', b'"target":"planted"')

    monkeypatch.setattr(sample_json.Template, "sample_bytes", wrong_target)
    checked = importer.import_responses(path, items, tmp_path / "checked", jobs=1)
    assert any("serialises a sample otherwise than the importer's template" in n for n in checked.notes)
    for written in checked.logs:
        assert all(s.target == "" for s in read_eval_log(str(written)).samples)
    assert_same_frames(load_frame(tmp_path / "good", cache=False), load_frame(tmp_path / "checked", cache=False))


def test_imported_ids_have_inspects_form_and_do_not_repeat(tmp_path, responses):
    path, items = responses
    result = importer.import_responses(path, items, tmp_path / "logs", jobs=1)
    ids = []
    for written in result.logs:
        for sample in read_eval_log(str(written)).samples:
            ids += [sample.uuid, *(m.id for m in sample.messages), sample.output.choices[0].message.id]
    assert len(ids) == len(set(ids)) and all(len(i) == 22 and i.isalnum() for i in ids)

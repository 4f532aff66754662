"""Fault injection (`faulty/<inner>`): transient errors are retried, permanent ones end as
counted `error` samples, broken answers are counted as unparsed, and a run with 30%
injected faults accounts for every cell exactly once."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from inspect_ai import eval
from inspect_ai.model import RetryDecision, get_model
from support import requires_embedded, scripted_model

from political_sycophancy.audit import audit, audit_tasks
from political_sycophancy.core.parsing import parse_choice
from political_sycophancy.logs.frame import read_frame
from political_sycophancy.models.faulty import FAULTS, FaultyAPI, PermanentFault, TransientFault
from political_sycophancy.shared.cells import build_cells
from political_sycophancy.shared.summaries import status_counts

CELL = ["model", "task", "condition", "sample_id", "epoch"]


def faulty(answer: str = "B", **rates):
    """A faulty model (named after its answer) over a scripted model that always answers `answer`."""
    return get_model(f"faulty/answers_{answer}", inner=scripted_model(lambda _: answer), memoize=False, **rates)


def test_retry_classification():
    api = FaultyAPI("custom", inner=scripted_model(lambda _: "A"))
    assert api.should_retry(TransientFault("rate_limit", 429)) == RetryDecision.rate_limit()
    assert api.should_retry(TransientFault("timeout", 408)) == RetryDecision.transient()
    assert api.should_retry(TransientFault("server_error", 503)) == RetryDecision.transient()
    assert not api.should_retry(PermanentFault())
    # the inner model decides for its own errors (mockllm retries nothing)
    assert not api.should_retry(RuntimeError("inner failure"))


def test_bad_parameters_are_refused():
    inner = scripted_model(lambda _: "A")
    with pytest.raises(ValueError, match="transient"):
        FaultyAPI("custom", inner=inner, transient=1.5)
    with pytest.raises(ValueError, match="sum to"):
        FaultyAPI("custom", inner=inner, transient=0.6, empty=0.6)
    with pytest.raises(ValueError, match="garbage"):
        FaultyAPI("custom", inner=inner, garbage="lots")
    with pytest.raises(ValueError, match="name the inner model"):
        FaultyAPI("", transient=0.1)


def test_draws_are_reproducible_and_match_rates():
    rates = dict(transient=0.1, permanent=0.05, empty=0.05, truncated=0.05, garbage=0.05, several_letters=0.05, hang=0.05)
    a = FaultyAPI("custom", inner=scripted_model(lambda _: "A"), seed=3, **rates)
    b = FaultyAPI("custom", inner=scripted_model(lambda _: "A"), seed=3, **rates)
    prompts = [f"prompt {i}" for i in range(4000)]
    draws_a = [a.draw(p)[0] for p in prompts]
    assert draws_a == [b.draw(p)[0] for p in prompts]
    # a second call with the same prompt is a fresh draw
    assert [a.draw(p)[0] for p in prompts[:500]] != draws_a[:500]
    counts = Counter(draws_a)
    for name, rate in rates.items():
        assert abs(counts[name] / len(prompts) - rate) < 0.02, (name, counts[name])


def test_broken_answers_are_never_read_as_a_choice():
    """What the faulty model sends instead of an answer is never coded as an option."""
    options = ["Strongly Agree", "Agree", "Disagree", "Strongly Disagree"]
    api = FaultyAPI("custom", inner=scripted_model(lambda _: "A"), garbage=1.0)
    import random

    from political_sycophancy.models.faulty import GARBAGE_ALPHABET

    rng = random.Random(0)
    for _ in range(500):
        text = "".join(rng.choices(GARBAGE_ALPHABET, k=rng.randint(5, 80)))
        assert parse_choice(text, options).status != "answered", text
    assert parse_choice("A and B", options).status == "unparsed"
    assert parse_choice("", options).status == "unparsed"
    assert api.rates["garbage"] == 1.0


def test_transient_errors_and_hangs_are_retried_and_every_cell_answered(tmp_path):
    model = faulty(transient=0.4, hang=0.1, hang_seconds=30, seed=1)
    [log] = eval(
        audit(condition="N"), model=model, limit=12, log_dir=str(tmp_path), display="none", attempt_timeout=1, max_retries=30
    )
    assert log.status == "success"
    outcomes = model.api.outcomes
    samples = log.samples or []
    assert len(samples) == 12
    assert all(s.error is None for s in samples)
    assert all(s.scores["pct_score"].metadata["status"] == "answered" for s in samples)
    # every cell was answered once, after its failed attempts (429/408/503 and hangs
    # abandoned at attempt_timeout)
    assert outcomes["ok"] == 12 and outcomes["transient"] >= 5 and outcomes["hang"] >= 1
    assert sum(outcomes.values()) == 12 + outcomes["transient"] + outcomes["hang"]
    print(f"\ntransient retry run: {dict(outcomes)} calls for 12 cells, all answered")


def test_permanent_failures_are_error_samples_counted_per_model_and_condition(tmp_path):
    models = [faulty(permanent=0.3, seed=4), faulty(answer="C", permanent=0.3, seed=5)]
    tasks = audit_tasks(conditions="N,C3L")
    logs = eval(tasks, model=models, limit=10, log_dir=str(tmp_path), display="none", fail_on_error=False)
    assert all(log.status == "success" for log in logs)
    frame = read_frame(tmp_path, cache=False).frame
    assert len(frame) == 2 * 2 * 10 and not frame.duplicated(CELL).any()
    errors = frame[frame["status"] == "error"]
    injected = sum(m.api.outcomes["permanent"] for m in models)
    assert len(errors) == injected > 0
    # an error is never coded as an answer
    assert errors["letter"].isna().all() and errors["ideology"].isna().all()
    assert errors["error"].str.contains("permanent").all()
    # counted per model x condition
    counts = status_counts(frame)
    per_cell = counts[counts["status"] == "error"].set_index(["condition"]).groupby("condition")["n"].sum()
    assert per_cell.sum() == injected
    cells = build_cells(frame)
    assert int(cells["n_error"].sum()) == injected
    assert cells.loc[cells["n_error"] > 0, "ideology"].isna().all()
    print("\nerror samples per model x condition:\n" + counts[counts["status"] == "error"].to_string(index=False))


EXPECTED_STATUS = {
    "ok": "answered",
    "empty": "unparsed",
    "truncated": "unparsed",  # a one-letter answer cut in half is empty
    "garbage": "unparsed",
    "several_letters": "unparsed",
    "permanent": "error",
    "transient": "error",  # retries ran out
    "hang": "error",
}


def test_thirty_percent_faults_leave_no_cell_lost_or_duplicated(tmp_path):
    """All six conditions x 6 items x 2 epochs on two models with 30% of calls faulty;
    errored samples are retried once (`retry_on_error`), which must not duplicate cells."""
    rates = dict(transient=0.10, permanent=0.05, empty=0.04, truncated=0.03, garbage=0.03, several_letters=0.03, hang=0.02)
    assert abs(sum(rates.values()) - 0.30) < 1e-9
    models, files = [], []
    for seed, answer in ((11, "B"), (12, "C")):
        files.append(tmp_path / f"calls_{answer}.jsonl")
        models.append(faulty(answer, seed=seed, hang_seconds=30, calls_file=str(files[-1]), **rates))
    logs = eval(
        audit_tasks(conditions="all"),
        epochs=2,
        model=models,
        limit=6,
        log_dir=str(tmp_path / "logs"),
        display="none",
        fail_on_error=False,
        retry_on_error=1,
        max_retries=2,
        attempt_timeout=1,
    )
    assert all(log.status == "success" for log in logs)
    load = read_frame(tmp_path / "logs", cache=False)
    frame = load.frame
    expected_cells = 2 * 6 * 6 * 2
    # none lost, none duplicated
    assert len(frame) == expected_cells
    assert not frame.duplicated(CELL).any()
    assert load.duplicates == 0
    by_status = Counter(frame["status"])
    assert set(by_status) <= {"answered", "unparsed", "error"}
    # answered cells hold the inner model's letter; nothing else holds a letter or a score
    assert set(frame.loc[frame["status"] == "answered", "letter"]) <= {"B", "C"}
    assert frame.loc[frame["status"] != "answered", "letter"].isna().all()
    assert frame.loc[frame["status"] != "answered", "ideology"].isna().all()
    # each cell's status is what its last model call says (errors: permanent, or retries
    # exhausted; unparsed: a broken answer)
    final: Counter[str] = Counter()
    for path in files:
        last = {}
        for rec in map(json.loads, path.read_text().splitlines()):
            last[(rec["task"], rec["condition"], rec["sample_id"], rec["epoch"])] = rec["outcome"]
        assert len(last) == expected_cells // 2
        final.update(EXPECTED_STATUS[o] for o in last.values())
    assert final == by_status, (final, by_status)
    outcomes = sum((m.api.outcomes for m in models), Counter())
    assert sum(outcomes.values()) == sum(len(p.read_text().splitlines()) for p in files)
    assert set(outcomes) <= {"ok", *FAULTS}
    print(
        f"\n30% faults: {sum(outcomes.values())} calls {dict(outcomes)}; "
        f"{expected_cells} cells -> {dict(by_status)}; lost 0, duplicated 0"
    )


@requires_embedded
def test_wraps_the_embedded_model_by_name(tmp_path):
    """`faulty/gguf/smollm2`: the inner model is built from its name; injected errors are
    retried and the embedded model's answers come through (3 generations)."""
    model = get_model("faulty/gguf/smollm2", memoize=False, transient=0.5, seed=3)
    [log] = eval(audit(condition="N"), model=model, limit=3, log_dir=str(tmp_path), display="none", max_tokens=4, max_retries=20)
    assert log.status == "success"
    assert model.api.outcomes["ok"] == 3 and model.api.outcomes["transient"] >= 1
    assert all(s.error is None and s.output.completion is not None for s in log.samples or [])

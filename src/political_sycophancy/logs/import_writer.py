"""Building and writing an import's logs: one `Cell` (model x instrument x condition x
temperature of a response file) becomes one `.eval` log, built as a run of the task would
have left it and written in one pass (`write_eval_zip`) once the first log reads back as
Inspect's own recorder's."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import math
import os
import re
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import pandas as pd
import shortuuid
from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalError,
    EvalLog,
    EvalPlan,
    EvalPlanStep,
    EvalSample,
    EvalSpec,
    EvalStats,
    condense_sample,
    read_eval_log,
    read_eval_log_sample_summaries,
)
from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, GenerateConfig, ModelOutput
from inspect_ai.scorer import SampleScore, Score, ScoreReducer, mean_score

from ..core.atomic import temp_path
from ..core.conditions import Condition, redefines_builtin
from ..core.declare import TASK_LABEL, task_label
from ..core.errors import InputError
from ..core.inspect_compat import EvalRecorder, eval_results, json_bytes, registry_unqualified_name, write_eval_zip
from ..core.io import read_bytes
from ..core.items import Item
from ..core.metrics import METRIC_METADATA
from ..shared.import_scoring import ResponseKind, Scoring, task_state
from .design import EXCLUDED_KEY
from .import_rows import EXCLUDED, ImportResult

FLUSH_EVERY = 100
# samples of the first log written both ways to check the one-pass writer (`layout_difference`)
CHECK_SAMPLES = 12


def short_key(text: str) -> str:
    """A short file-name-safe digest (10 base-57 characters, about 58 bits)."""
    return shortuuid.encode(uuid.UUID(hex=hashlib.sha256(text.encode()).hexdigest()[:32]))[:10]


@dataclass(frozen=True)
class Source:
    """A response file's identity: its absolute path and its content."""

    path: Path
    sha256: str

    @classmethod
    def of(cls, path: Path) -> Source:
        return cls(path.resolve(), hashlib.sha256(read_bytes(path)).hexdigest())

    @property
    def prefix(self) -> str:
        return f"{short_key(str(self.path))}-{short_key(self.sha256)}"

    def log_id(self, model: str, instrument: str, condition: str, temperature: float, epochs: list[int], letters: str) -> str:
        cell = short_key(f"{model}|{instrument}|{condition}|{temperature!r}|{sorted(set(epochs))}|{letters}")
        return f"{self.prefix}-{cell}"


@dataclass
class Cell:
    """One log to write: a model x instrument x condition x temperature of the file."""

    index: int
    model: str
    instrument: str
    condition: str
    temperature: float
    rows: pd.DataFrame
    log_id: str


@dataclass(frozen=True)
class ImportJob:
    """What every cell of one import shares."""

    source: Source
    log_dir: Path
    conditions: dict[str, Condition]
    items: dict[str, Item]
    use_source_letters: bool
    progress: Callable[[str], None] | None
    kind: ResponseKind


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")


def write_cells(job: ImportJob, cells: list[Cell], fast: bool | None) -> tuple[list[tuple[int, Path]], ImportResult, bool | None]:
    """Write the cells' logs: (cell index, log path) pairs, what they add to the result, and
    whether the one-pass writer was used (None when no log was written)."""
    part = ImportResult()
    run = Scoring()
    write = Writer(run.loop, part, fast)
    written = []
    try:
        for cell in cells:
            written.append((cell.index, write_one(job, cell, run, write, part)))
    finally:
        run.close()
    return written, part, write.fast


def write_one(job: ImportJob, cell: Cell, run: Scoring, write: Writer, result: ImportResult) -> Path:
    log = build_log(job, cell, run, result)
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H-%M-%S-00-00")
    out = job.log_dir / f"{stamp}_{_slug(task_label(log.eval.task, log.eval.metadata, log.eval.task_registry_name))}_{cell.log_id}.eval"
    write(log, out)
    result.logs.append(out)
    result.samples += len(log.samples or [])
    if job.progress:
        job.progress(
            f"  {out.name}: {cell.model}, {cell.instrument}, {cell.condition}, T={cell.temperature:g}, {len(log.samples or [])} samples"
        )
    return out


class _ShallowCopied(Score):
    """A reduced score that Inspect's metric-dict path deep-copies once per metric key only
    to replace the copy's `value` (never to mutate it): a shallow copy gives the same
    results, without the deep copies that were a quarter of an import's time."""

    def __deepcopy__(self, memo: dict | None = None) -> _ShallowCopied:
        return self.__copy__()


def _content(score: Score) -> tuple:
    """What a reducer reads of a light score (no metadata): equal contents reduce equally
    (`reason` where this inspect_ai's Score has one)."""
    value = score.value
    return (tuple(value.items()) if isinstance(value, dict) else value, score.answer, score.explanation, getattr(score, "reason", None))


def _shallow_copied(reducer: ScoreReducer, reduced: dict[tuple, Score]) -> ScoreReducer:
    """`reducer` whose reduced scores are `_ShallowCopied` (its registry name kept), each
    distinct list of score contents reduced once into `reduced` (one per import and
    reducer: most imported answers are one of an item's few letters)."""

    @functools.wraps(reducer)
    def reduce(scores: list[Score]) -> Score:
        key = tuple(_content(s) for s in scores)
        try:
            hit = reduced.get(key)
        except TypeError:  # a value that cannot be a key (a list): reduced every time
            return _ShallowCopied.model_construct(**dict(reducer(scores)))
        if hit is None:
            hit = reduced[key] = _ShallowCopied.model_construct(**dict(reducer(scores)))
        return hit.model_copy()

    return cast(ScoreReducer, reduce)


def light_eval_results(samples: list[EvalSample], scorer, scorer_name: str, reduced: dict[tuple, Score] | None = None):
    """The log's results and reductions as a run computes them, from light copies of the
    scores: the metrics see only the sample metadata they read (`METRIC_METADATA`) and no
    score metadata, the reduced scores are copied shallowly (`_ShallowCopied`), and they
    get back the metadata Inspect's reducers keep (the first epoch's). Inspect deep-copies
    every score once per metric key, which was most of an import's time;
    tests/test_logs_import_writer.py checks the light results and reductions equal the
    full ones. `reduced` holds the mean reductions already computed in this import."""
    scores = [
        {
            scorer_name: SampleScore(
                score=s.scores[scorer_name].model_copy(update={"metadata": None}),
                sample_id=s.id,
                sample_metadata={k: s.metadata[k] for k in METRIC_METADATA if k in s.metadata},
                scorer=scorer_name,
            )
        }
        for s in samples
        if s.scores
    ]
    if not scores:
        return None, None
    mean = _shallow_copied(mean_score(), {} if reduced is None else reduced)
    results, reductions = eval_results(len(samples), scores, mean, [scorer], None, scorer_names=[scorer_name])
    first: dict[Any, Any] = {}
    for s in sorted(samples, key=lambda s: s.epoch):
        if s.scores:
            first.setdefault(s.id, s.scores[scorer_name].metadata)
    for reduction in reductions or []:
        for sample_score in reduction.samples:
            sample_score.metadata = first.get(sample_score.sample_id)
    return results, reductions


async def write_eval(log: EvalLog, out: Path) -> None:
    """Write an `.eval` log through Inspect's own recorder, flushing every `FLUSH_EVERY`
    samples as a running eval does (`write_eval_log` buffers every sample and de-duplicates
    the buffer on each one, quadratic in the number of samples). The importer's fallback
    when `write_eval_zip`'s layout does not read back as this writer's."""
    recorder = EvalRecorder(str(out.parent))
    await recorder.log_init(log.eval, str(out), clean=True)
    await recorder.log_start(log.eval, log.plan)
    for i, sample in enumerate(log.samples or [], start=1):
        await recorder.log_sample(log.eval, condense_sample(sample))
        if i % FLUSH_EVERY == 0:
            await recorder.flush(log.eval)
    await recorder.log_finish(log.eval, log.status, log.stats, log.results, log.reductions)


def _read_back(path: Path) -> tuple[dict[str, str], list[str]]:
    """A log as Inspect's public readers return it, field by field as JSON (NaN, which
    unanswered measures hold, is not equal to itself in a comparison of values)."""
    log = read_eval_log(str(path))
    fields = {name: json_bytes(getattr(log, name)).decode() for name in type(log).model_fields if name not in ("location", "etag")}
    return fields, [json_bytes(s).decode() for s in read_eval_log_sample_summaries(str(path))]


def layout_difference(log: EvalLog, loop: asyncio.AbstractEventLoop, samples: int = CHECK_SAMPLES) -> str | None:
    """None when a log written by `write_eval_zip` reads back through Inspect's public
    readers (`read_eval_log`, `read_eval_log_sample_summaries`) exactly as the same log
    written by Inspect's recorder does, checked on the first `samples` samples of `log`;
    otherwise the first field that differs. The fast writer relies on Inspect's member
    layout, which no public contract fixes, so each import checks it once."""
    probe = log.model_copy(update={"samples": (log.samples or [])[:samples]})
    with tempfile.TemporaryDirectory(prefix="ps-layout-") as scratch:
        fast, slow = Path(scratch) / "fast.eval", Path(scratch) / "inspect.eval"
        write_eval_zip(probe, fast)
        loop.run_until_complete(write_eval(probe, slow))
        (fast_log, fast_summaries), (slow_log, slow_summaries) = _read_back(fast), _read_back(slow)
    for key in slow_log:
        if fast_log.get(key) != slow_log[key]:
            return f"the log's {key!r}"
    return None if fast_summaries == slow_summaries else "the sample summaries"


class Writer:
    """Writes an import's logs with `write_eval_zip` once `layout_difference` finds it reads
    back as Inspect's recorder's log (checked on the first log), else with the recorder."""

    def __init__(self, loop: asyncio.AbstractEventLoop, result: ImportResult, fast: bool | None = None) -> None:
        self.loop, self.result = loop, result
        self.fast = fast

    def __call__(self, log: EvalLog, out: Path) -> None:
        if self.fast is None:
            difference = layout_difference(log, self.loop)
            self.fast = difference is None
            if difference:
                self.result.notes.append(
                    f"this inspect_ai reads {difference} of a one-pass .eval zip differently from its own writer's; "
                    "the logs were written with Inspect's recorder instead (slower)"
                )
        if self.fast:
            write_eval_zip(log, out)  # to a temporary sibling, renamed
            return
        tmp = temp_path(out)
        try:
            self.loop.run_until_complete(write_eval(log, tmp))
            os.replace(tmp, out)
        finally:
            tmp.unlink(missing_ok=True)


def build_log(job: ImportJob, cell: Cell, run: Scoring, result: ImportResult) -> EvalLog:
    """The cell's log as a run of `job.kind`'s task would have written it."""
    items, kind = job.items, job.kind
    scorings = {items[i].scoring for i in cell.rows["item_id"]}
    if len(scorings) != 1:
        raise InputError(f"instrument {cell.instrument!r} mixes scoring rules {sorted(scorings)}; split its items into files")
    scorer = run.scorer(kind, scorings.pop())
    scorer_name = registry_unqualified_name(scorer)
    left_out = cell.rows[cell.rows[EXCLUDED].notna()]
    rows = cell.rows[cell.rows[EXCLUDED].isna()]
    condition = job.conditions[cell.condition]
    disagree = result.disagreements.setdefault(cell.model, {"rows": 0, "source_only": 0, "ours_only": 0, "different": 0})
    order = {item_id: i for i, item_id in enumerate(dict.fromkeys(rows["item_id"]))}
    samples = [_sample(job, cell, condition, rec, run, scorer, scorer_name, result, disagree) for rec in rows.to_dict("records")]
    samples.sort(key=lambda s: (s.epoch, order[str(s.id)]))
    results, reductions = light_eval_results(samples, scorer, scorer_name, run.reductions)
    created = datetime.now(UTC).isoformat(timespec="seconds")
    n_errors = sum(1 for s in samples if s.error)
    log = EvalLog(
        version=2,
        status="success" if n_errors < len(samples) else "error",
        eval=_spec(job, cell, condition, created, list(order), max(s.epoch for s in samples), left_out),
        plan=EvalPlan(
            steps=[
                EvalPlanStep(solver="political_sycophancy/import_responses", params={"source": str(job.source.path)}),
            ],
            config=GenerateConfig(temperature=cell.temperature),
        ),
        results=results,
        stats=EvalStats(started_at=created, completed_at=created),
        samples=samples,
    )
    # set after construction: EvalLog's validator only accepts reductions beside dict results
    log.reductions = reductions
    return log


def _sample(
    job: ImportJob, cell: Cell, condition: Condition, rec: dict, run: Scoring, scorer: Callable, scorer_name: str,
    result: ImportResult, disagree: dict[str, int],
) -> EvalSample:
    """One response row as the sample a run would have logged, scored by our scorer (or the
    file's letter with `use_source_letters`, our reading counted against it in `disagree`)."""
    item, model, kind = job.items[rec["item_id"]], cell.model, job.kind
    prompt = run.prompt(kind, item, condition)
    raw = rec.get("raw_response") or ""
    metadata: dict[str, Any] = {
        **run.item_metadata(item),
        "condition": condition.id,
        "condition_label": condition.label,
        "source_file": job.source.path.name,
        "source_row": int(rec["_row"]),
        "source_question_id": rec["question_id"],
        "source_rep": None if math.isnan(rec["rep_value"]) else rec["rep_value"],
    }
    for extra in ("run_id", "model_label", "model_name"):
        if rec.get(extra):
            metadata[f"source_{extra}"] = rec[extra]
    if rec.get("file_model_id"):  # the file's model_id, when another column names the models
        metadata["source_model_id"] = rec["file_model_id"]
    error_text = (rec.get("error") or "").strip()
    epoch = int(rec["epoch"])
    make_state = functools.partial(task_state, item, condition, model, epoch, prompt, metadata=metadata)
    sample_error = None
    scores = None
    if error_text and not raw.strip():
        sample_error = EvalError(message=error_text, traceback="", traceback_ansi="")
        result.errors += 1
    elif job.use_source_letters:
        score = kind.source_score(run, scorer, item, rec, make_state)
        scores = {scorer_name: score}
        meta = score.metadata or {}
        ours, src = meta.get("text_letter"), meta.get("source_letter")
        disagree["rows"] += 1
        if src and not ours:
            disagree["source_only"] += 1
        elif ours and not src:
            disagree["ours_only"] += 1
        elif ours and src and ours != src:
            disagree["different"] += 1
    else:
        scores = {scorer_name: kind.parsed_score(run, scorer, item, rec, functools.partial(make_state, completion=raw))}
    return EvalSample(
        id=item.id,
        epoch=epoch,
        input=prompt,
        target="",
        messages=[ChatMessageUser(content=prompt), ChatMessageAssistant(content=raw, model=model)],
        output=ModelOutput.from_content(model=model, content=raw),
        scores=scores,
        metadata=metadata,
        error=sample_error,
        uuid=shortuuid.uuid(),
    )


def _spec(
    job: ImportJob, cell: Cell, condition: Condition, created: str, sample_ids: list[str], epochs: int, left_out: pd.DataFrame
) -> EvalSpec:
    """The log's eval spec: the task, its arguments and the import's identity in the metadata."""
    instrument, temperature, source = cell.instrument, cell.temperature, job.source
    return EvalSpec(
        created=created,
        task=f"political_sycophancy/{job.kind.name}",
        task_id=shortuuid.uuid(),
        task_registry_name=f"political_sycophancy/{job.kind.name}",
        task_args={
            "instrument": instrument,
            "condition": condition.id,
            "answer": "letter",
            "temperature": temperature,
            "epochs": epochs,
        },
        dataset=EvalDataset(
            name=instrument,
            location=str(source.path),
            samples=len(sample_ids),
            sample_ids=sample_ids,
        ),
        model=cell.model,
        config=EvalConfig(epochs=epochs, epochs_reducer=["replicates"]),
        metadata={
            "political_sycophancy": job.kind.name,
            TASK_LABEL: job.kind.task_label(instrument, condition.id),
            "instrument": instrument,
            "condition": condition.id,
            "condition_label": condition.label,
            "preamble": condition.preamble,
            "answer_mode": "letter",
            "pool": "imported",
            "temperature": temperature,
            "imported_from": str(source.path),
            "imported_sha256": source.sha256,
            "import_id": cell.log_id,
            "letters": "source" if job.use_source_letters else "parsed",
            "condition_redefines_builtin": redefines_builtin(condition),
            **({EXCLUDED_KEY: [{"sample_id": str(r["item_id"]), "epoch": int(r["epoch"]), "row": int(r["_row"]), "reason": str(r[EXCLUDED])}
                               for r in left_out.to_dict("records")]} if len(left_out) else {}),
        },
    )

"""Published response files -> real Inspect `.eval` logs.

The first seed's response files (`results_phase1.csv`; the Phase 2 files add condition,
condition_label, partisan_gap, rep and temperature) become one log per model x instrument
x condition x temperature, as if our `audit` task had run them: the sample input is the
prompt rebuilt from the item and the condition (`prompts.audit_prompt` + `Condition.apply`),
the output is the raw response, the model name is the file's `model_id`, and the scores
come from our scorers. By default our never-guess parser reads the raw response; with
`use_source_letters` the file's `letter` column is scored instead (to reproduce the
paper's numbers), and our own reading of the text is kept beside it in the score
metadata (`text_status`, `text_letter`) so the two can be compared.
"""

from __future__ import annotations

import asyncio
import csv
import hashlib
import io
import math
import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable

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
)
from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, GenerateConfig, ModelName, ModelOutput
from inspect_ai.scorer import SampleScore, Score, Target, mean_score
from inspect_ai.solver import TaskState

from .conditions import Condition, condition_registry
from .errors import InputError
from .inspect_compat import EvalRecorder, eval_results, registry_unqualified_name
from .items import Item, load_items
from .prompts import audit_prompt
from .scorers import scorer_for
from .scorers.letters import ANSWERED, ERROR, UNPARSED, parse_choice
from .scorers.answers import restatus

REQUIRED = ("model_id", "question_id", "raw_response")
SOURCE_RULE = "source letter"
FLUSH_EVERY = 100


@dataclass
class ImportResult:
    """What an import wrote and what it left out."""

    logs: list[Path] = field(default_factory=list)
    samples: int = 0
    skipped_unknown: int = 0
    unknown_ids: list[str] = field(default_factory=list)
    errors: int = 0
    replaced: int = 0
    # per model: rows whose source letter and our parse disagree (only with source letters)
    disagreements: dict[str, dict[str, int]] = field(default_factory=dict)


def read_responses(path: str | Path) -> pd.DataFrame:
    """The response file as strings, with a `_row` column (1-based data row numbers).

    Phase 1 shape: model_id, question_id, raw_response, letter, error, ... (all at
    temperature 1, one replicate, condition N). Phase 2 adds condition, rep, temperature.
    """
    path = Path(path)
    if not path.exists():
        raise InputError("file not found", file=path)
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as ex:
        raise InputError(f"not valid UTF-8 (byte {ex.start})", file=path) from None
    if not text.strip():
        raise InputError("file is empty", file=path)
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    try:
        frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, sep=delimiter)
    except (pd.errors.ParserError, csv.Error) as ex:
        raise InputError(f"cannot parse as CSV ({str(ex).splitlines()[0]})", file=path) from None
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        raise InputError(
            f"missing column(s) {', '.join(missing)} (a response file needs {', '.join(REQUIRED)})", file=path, field=missing[0]
        )
    if frame.empty:
        raise InputError("file has a header but no responses", file=path)
    short = _short_row(text, delimiter, len(frame.columns), path)
    if short is not None:
        raise InputError("fewer values than header columns", file=path, row=short)
    frame.insert(0, "_row", range(1, len(frame) + 1))
    return frame


def _short_row(text: str, delimiter: str, width: int, path: Path) -> int | None:
    """The first data row with fewer values than the header (pandas pads such rows with
    empty strings, which would silently pass as empty responses)."""
    csv.field_size_limit(max(csv.field_size_limit(), 2**31 - 1))
    records = (r for r in csv.reader(io.StringIO(text), delimiter=delimiter) if r)
    try:
        next(records, None)
        for i, record in enumerate(records, start=1):
            if len(record) < width:
                return i
    except csv.Error as ex:
        raise InputError(f"cannot parse as CSV ({ex})", file=path) from None
    return None


def _item_index(item_files: Iterable[str | Path]) -> dict[str, Item]:
    index: dict[str, Item] = {}
    origin: dict[str, Path] = {}
    for f in item_files:
        path = Path(f)
        for item in load_items(path, instrument=_instrument_of(path)):
            if item.id in index:
                raise InputError(f"item id {item.id!r} is also in {origin[item.id]}", file=path, field="id")
            index[item.id] = item
            origin[item.id] = path
    if not index:
        raise InputError("no item files given (use --items pct.csv typology.csv atp.csv)")
    return index


def _instrument_of(path: Path) -> str | None:
    from .items import INSTRUMENTS

    return path.stem if path.stem in INSTRUMENTS else None


def _canonical(question_id: str) -> str:
    from .pew.replication import canonical_item_id

    return canonical_item_id(question_id)


def _number(value: str, *, path: Path, row: int, column: str, default: float) -> float:
    if value is None or str(value).strip() == "":
        return default
    try:
        out = float(value)
    except ValueError:
        raise InputError(f"not a number: {value!r}", file=path, row=row, field=column) from None
    if math.isnan(out) or math.isinf(out):
        raise InputError(f"not a finite number: {value!r}", file=path, row=row, field=column)
    return out


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")


def prepare(
    responses: pd.DataFrame,
    items: dict[str, Item],
    conditions: dict[str, Condition],
    *,
    path: Path,
    use_source_letters: bool,
    skip_unknown: bool,
    result: ImportResult,
) -> pd.DataFrame:
    """Validated rows with item, condition, epoch and temperature resolved."""
    frame = responses.copy()
    blank_model = frame["model_id"].str.strip() == ""
    if blank_model.any():
        raise InputError("empty model id", file=path, row=int(frame.loc[blank_model, "_row"].iloc[0]), field="model_id")
    frame["item_id"] = [_canonical(q.strip()) for q in frame["question_id"]]
    known = frame["item_id"].isin(items.keys())
    if not known.all():
        unknown = frame.loc[~known]
        ids = list(dict.fromkeys(unknown["question_id"]))
        if not skip_unknown:
            first = unknown.iloc[0]
            raise InputError(
                f"{len(unknown)} response(s) to {len(ids)} question id(s) not in the item files, "
                f"e.g. {', '.join(ids[:5])} (pass the item files that hold them, or --skip-unknown to leave them out)",
                file=path,
                row=int(first["_row"]),
                field="question_id",
            )
        result.skipped_unknown = len(unknown)
        result.unknown_ids = ids
        frame = frame.loc[known].copy()
        if frame.empty:
            raise InputError("no response matches an item of the item files", file=path, field="question_id")
    if "condition" in frame.columns:
        frame["condition"] = frame["condition"].str.strip().replace("", "N")
    else:
        frame["condition"] = "N"
    bad = frame.loc[~frame["condition"].isin(conditions.keys())]
    if len(bad):
        first = bad.iloc[0]
        raise InputError(
            f"unknown condition {first['condition']!r} (known: {', '.join(conditions)}; add it with --conditions-file)",
            file=path,
            row=int(first["_row"]),
            field="condition",
        )
    frame["temperature_value"] = [
        _number(v, path=path, row=r, column="temperature", default=1.0)
        for v, r in zip(frame.get("temperature", pd.Series("", index=frame.index)), frame["_row"])
    ]
    reps = [
        _number(v, path=path, row=r, column="rep", default=math.nan)
        for v, r in zip(frame.get("rep", pd.Series("", index=frame.index)), frame["_row"])
    ]
    frame["rep_value"] = reps
    # Replicates are numbered from 0 or from 1 in the wild; epochs count from 1.
    given = [r for r in reps if not math.isnan(r)]
    offset = 1 if given and min(given) == 0 else 0
    epochs = []
    for r, row in zip(reps, frame["_row"]):
        if math.isnan(r):
            epochs.append(1)
        elif r < 0 or not float(r).is_integer():
            raise InputError(f"replicate must be a whole number >= 0, got {r}", file=path, row=int(row), field="rep")
        else:
            epochs.append(int(r) + offset)
    frame["epoch"] = epochs
    if use_source_letters and "letter" not in frame.columns:
        raise InputError("--use-source-letters needs a 'letter' column", file=path, field="letter")
    key = ["model_id", "item_id", "condition", "temperature_value", "epoch"]
    dup = frame.duplicated(key, keep=False)
    if dup.any():
        rows = frame.loc[dup, "_row"].tolist()
        raise InputError(
            f"{len(rows)} rows repeat the same model, item, condition, temperature and replicate (rows {rows[:6]})",
            file=path,
            row=int(rows[1]),
            field="question_id",
        )
    return frame


def _state(item: Item, condition: Condition, model: str, epoch: int, prompt: str, completion: str, metadata: dict) -> TaskState:
    output = ModelOutput.from_content(model=model, content=completion)
    return TaskState(
        model=ModelName(model if "/" in model else f"unknown/{model}"),
        sample_id=item.id,
        epoch=epoch,
        input=prompt,
        messages=[ChatMessageUser(content=prompt), ChatMessageAssistant(content=completion, model=model)],
        output=output,
        metadata=metadata,
    )


class _Scoring:
    """Runs our async scorers synchronously on one event loop (one per import).

    A score depends only on the item, the condition-independent metadata and the completion,
    so it is computed once per (scorer, item, completion) and copied for repeats (most
    responses are a bare letter)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.cache: dict[tuple, Score] = {}

    def __call__(self, scorer: Callable, state: TaskState) -> Score:
        key = (registry_unqualified_name(scorer), state.sample_id, state.output.completion)
        score = self.cache.get(key)
        if score is None:
            score = self.loop.run_until_complete(scorer(state, Target("")))
            self.cache[key] = score
        return score.model_copy(deep=True)

    def close(self) -> None:
        self.loop.close()


def _source_score(run: _Scoring, scorer: Callable, item: Item, letter: str, raw: str, make_state) -> Score:
    """Score the file's letter with our scorer; keep our own reading of the text beside it."""
    ours = parse_choice(raw, item.options)
    letter = (letter or "").strip()
    extra = dict(text_status=ours.status, text_letter=ours.letter, source_letter=letter or None)
    if letter:
        score = run(scorer, make_state(letter))
        return restatus(score, (score.metadata or {}).get("status", UNPARSED), SOURCE_RULE, **extra)
    score = run(scorer, make_state(""))
    status = ours.status if ours.status != ANSWERED else UNPARSED
    return restatus(score, status, "no letter in the source file", **extra)


def _eval_results(samples: list[EvalSample], scorer, scorer_name: str):
    scores = [
        {
            scorer_name: SampleScore(
                score=s.scores[scorer_name], sample_id=s.id, sample_metadata=s.metadata, scorer=scorer_name
            )
        }
        for s in samples
        if s.scores
    ]
    if not scores:
        return None, None
    return eval_results(len(samples), scores, mean_score(), [scorer], None, scorer_names=[scorer_name])


async def _write_eval(log: EvalLog, out: Path) -> None:
    """Write an `.eval` log as `write_eval_log` does, flushing every `FLUSH_EVERY` samples
    as a running eval does: `write_eval_log` buffers every sample and de-duplicates the
    buffer on each one, quadratic in the number of samples (7 s for 1,600 samples)."""
    recorder = EvalRecorder(str(out.parent))
    await recorder.log_init(log.eval, str(out), clean=True)
    await recorder.log_start(log.eval, log.plan)
    for i, sample in enumerate(log.samples or [], start=1):
        await recorder.log_sample(log.eval, condense_sample(sample))
        if i % FLUSH_EVERY == 0:
            await recorder.flush(log.eval)
    await recorder.log_finish(log.eval, log.status, log.stats, log.results, log.reductions)


def _log_id(source: Path, model: str, instrument: str, condition: str, temperature: float, letters: str) -> str:
    digest = hashlib.sha256(f"{source.name}|{model}|{instrument}|{condition}|{temperature}|{letters}".encode()).hexdigest()
    return shortuuid.encode(uuid.UUID(hex=digest[:32]))


def import_responses(
    responses_file: str | Path,
    item_files: Iterable[str | Path],
    log_dir: str | Path,
    *,
    use_source_letters: bool = False,
    conditions_file: str | Path | None = None,
    skip_unknown: bool = False,
    progress: Callable[[str], None] | None = None,
) -> ImportResult:
    """Write one `.eval` log per model x instrument x condition x temperature of the file.

    Re-importing the same file into the same directory replaces the logs it wrote before
    (their names carry a hash of file, model, instrument, condition, temperature and
    letter source).
    """
    path = Path(responses_file)
    items = _item_index(item_files)
    conditions = condition_registry(conditions_file)
    result = ImportResult()
    frame = prepare(
        read_responses(path),
        items,
        conditions,
        path=path,
        use_source_letters=use_source_letters,
        skip_unknown=skip_unknown,
        result=result,
    )
    log_dir = Path(log_dir)
    log_dir.mkdir(parents=True, exist_ok=True)
    letters = "source" if use_source_letters else "parsed"
    groups = frame.groupby(
        ["model_id", frame["item_id"].map(lambda i: items[i].instrument), "condition", "temperature_value"], sort=True
    )
    run = _Scoring()
    try:
        for (model, instrument, cond_id, temperature), rows in groups:
            _write_one(
                run, path, log_dir, model, instrument, conditions[cond_id], float(temperature),
                rows, items, use_source_letters, letters, result, progress,
            )
    finally:
        run.close()
    return result


def _write_one(
    run: _Scoring,
    path: Path,
    log_dir: Path,
    model: str,
    instrument: str,
    condition: Condition,
    temperature: float,
    rows: pd.DataFrame,
    items: dict[str, Item],
    use_source_letters: bool,
    letters: str,
    result: ImportResult,
    progress: Callable[[str], None] | None,
) -> None:
    log = _build_log(run, path, model, instrument, condition, temperature, rows, items, use_source_letters, result)
    log_id = _log_id(path, model, instrument, condition.id, temperature, letters)
    for old in log_dir.glob(f"*_{log_id}.eval"):
        old.unlink()
        result.replaced += 1
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H-%M-%S-00-00")
    out = log_dir / f"{stamp}_{_slug(log.eval.task)}_{log_id}.eval"
    run.loop.run_until_complete(_write_eval(log, out))
    result.logs.append(out)
    result.samples += len(log.samples or [])
    if progress:
        progress(f"  {out.name}: {model}, {instrument}, {condition.id}, T={temperature:g}, {len(log.samples or [])} samples")


def _build_log(
    run: _Scoring,
    source: Path,
    model: str,
    instrument: str,
    condition: Condition,
    temperature: float,
    rows: pd.DataFrame,
    items: dict[str, Item],
    use_source_letters: bool,
    result: ImportResult,
) -> EvalLog:
    scorings = {items[i].scoring for i in rows["item_id"]}
    if len(scorings) != 1:
        raise InputError(f"instrument {instrument!r} mixes scoring rules {sorted(scorings)}; split its items into files")
    scoring = scorings.pop()
    scorer = scorer_for(scoring, "letter")
    scorer_name = registry_unqualified_name(scorer)
    samples: list[EvalSample] = []
    disagree = result.disagreements.setdefault(model, {"rows": 0, "source_only": 0, "ours_only": 0, "different": 0})
    order = {item_id: i for i, item_id in enumerate(dict.fromkeys(rows["item_id"]))}
    for rec in rows.to_dict("records"):
        item = items[rec["item_id"]]
        prompt = condition.apply(audit_prompt(item))
        raw = rec.get("raw_response") or ""
        metadata: dict[str, Any] = {
            **item.sample_metadata(),
            "condition": condition.id,
            "condition_label": condition.label,
            "source_file": source.name,
            "source_row": int(rec["_row"]),
            "source_question_id": rec["question_id"],
        }
        for extra in ("run_id", "model_label", "model_name"):
            if rec.get(extra):
                metadata[f"source_{extra}"] = rec[extra]
        error_text = (rec.get("error") or "").strip()
        epoch = int(rec["epoch"])
        base = _state(item, condition, model, epoch, prompt, raw, metadata)
        sample_error = None
        scores = None
        if error_text and not raw.strip():
            sample_error = EvalError(message=error_text, traceback="", traceback_ansi="")
            result.errors += 1
        elif use_source_letters:
            score = _source_score(
                run,
                scorer,
                item,
                rec.get("letter", ""),
                raw,
                lambda text: _state(item, condition, model, epoch, prompt, text, metadata),
            )
            scores = {scorer_name: score}
            ours, src = score.metadata.get("text_letter"), score.metadata.get("source_letter")
            disagree["rows"] += 1
            if src and not ours:
                disagree["source_only"] += 1
            elif ours and not src:
                disagree["ours_only"] += 1
            elif ours and src and ours != src:
                disagree["different"] += 1
        else:
            scores = {scorer_name: run(scorer, base)}
        samples.append(
            EvalSample(
                id=item.id,
                epoch=epoch,
                input=prompt,
                target="",
                messages=[ChatMessageUser(content=prompt), ChatMessageAssistant(content=raw, model=model)],
                output=base.output,
                scores=scores,
                metadata=metadata,
                error=sample_error,
                uuid=shortuuid.uuid(),
            )
        )
    samples.sort(key=lambda s: (s.epoch, order[str(s.id)]))
    results, reductions = _eval_results(samples, scorer, scorer_name)
    task = f"audit_{instrument}_{condition.id}"
    created = datetime.now(timezone.utc).isoformat(timespec="seconds")
    epochs = max(s.epoch for s in samples)
    spec = EvalSpec(
        created=created,
        task=task,
        task_id=shortuuid.uuid(),
        task_registry_name="political_sycophancy/audit",
        task_args={
            "instrument": instrument,
            "condition": condition.id,
            "answer": "letter",
            "temperature": temperature,
            "epochs": epochs,
        },
        dataset=EvalDataset(
            name=instrument,
            location=str(source),
            samples=len(order),
            sample_ids=list(order),
        ),
        model=model,
        config=EvalConfig(epochs=epochs, epochs_reducer=["replicates"]),
        metadata={
            "political_sycophancy": "audit",
            "instrument": instrument,
            "condition": condition.id,
            "condition_label": condition.label,
            "preamble": condition.preamble,
            "answer_mode": "letter",
            "pool": "imported",
            "temperature": temperature,
            "imported_from": str(source),
            "letters": "source" if use_source_letters else "parsed",
        },
    )
    n_errors = sum(1 for s in samples if s.error)
    log = EvalLog(
        version=2,
        status="success" if n_errors < len(samples) else "error",
        eval=spec,
        plan=EvalPlan(
            steps=[
                EvalPlanStep(solver="political_sycophancy/import_responses", params={"source": str(source)}),
            ],
            config=GenerateConfig(temperature=temperature),
        ),
        results=results,
        stats=EvalStats(started_at=created, completed_at=created),
        samples=samples,
    )
    # set after construction: EvalLog's validator only accepts reductions beside dict results
    log.reductions = reductions
    return log

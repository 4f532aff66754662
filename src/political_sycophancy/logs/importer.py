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

An import's identity is the response file's absolute path, a hash of its content and
the cell (model, instrument, condition, temperature, replicates, letter source); the log
names carry it (`<time>_<task>_<path key>-<content key>-<cell key>.eval`). Re-importing a
file replaces only its own earlier logs; files with one base name in different folders
never touch each other; an edited file at the same path is refused until the caller says
to replace the logs of its earlier version.

An import is all or nothing for `analyze`: each log is written to a temporary name and
renamed, and a marker file (`core.io.IMPORT_MARKER_PREFIX`) stands in the log folder from
the first log written until the last earlier log is replaced. An import that fails
removes what it wrote; one that is killed leaves its marker, and `analyze` notes the
import as unfinished until it is run again.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import math
import multiprocessing
import os
import re
import tempfile
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

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
from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, GenerateConfig, ModelName, ModelOutput
from inspect_ai.scorer import SampleScore, Score, Target, mean_score
from inspect_ai.solver import TaskState

from ..core.answers import restatus
from ..core.atomic import clean_stale_temp, temp_path, write_atomic
from ..core.conditions import Condition, condition_registry, redefines_builtin
from ..core.errors import InputError
from ..core.generation import MAX_EPOCHS
from ..core.inspect_compat import EvalRecorder, eval_results, json_bytes, registry_unqualified_name, write_eval_zip
from ..core.io import IMPORT_MARKER_PREFIX, IMPORT_MARKER_SUFFIX, read_bytes, read_csv
from ..core.items import LETTERS, Item, load_items, parse_options
from ..core.metrics import METRIC_METADATA
from ..core.parsing import ANSWERED, UNPARSED, parse_choice
from ..core.prompts import audit_prompt
from ..shared.scorers import scorer_for
from .design import EXCLUDED_KEY

REQUIRED = ("model_id", "question_id", "raw_response")
SOURCE_RULE = "source letter"
FLUSH_EVERY = 100
# samples of the first log written both ways to check the one-pass writer (`layout_difference`)
CHECK_SAMPLES = 12
# the column of `prepare`'s frame that holds why a row is left out (None: kept)
EXCLUDED = "_excluded"


class ResponseKind:
    """The task a file's rows answer (default: the audit). `probe_import` defines the
    probes' kinds: their prompt, scorer, source-letter columns and source scoring."""

    name = "audit"
    letter_columns: tuple[str, ...] = ("letter",)

    def task(self, instrument: str, condition: str) -> str:
        return f"audit_{instrument}_{condition}"

    def prompt(self, item: Item, condition: Condition) -> str:
        return condition.apply(audit_prompt(item))

    def scorer(self, scoring: str) -> Callable:
        return scorer_for(scoring, "letter")

    def source_score(self, run: _Scoring, scorer: Callable, item: Item, rec: dict, make_state) -> Score:
        return _source_score(run, scorer, item, rec.get("letter", ""), rec.get("raw_response") or "", make_state)

    def parsed_score(self, run: _Scoring, scorer: Callable, item: Item, rec: dict, make_state: Callable[[], TaskState]) -> Score:
        return run(scorer, item.id, rec.get("raw_response") or "", make_state)


AUDIT = ResponseKind()


@dataclass
class ImportResult:
    """What an import wrote and what it left out."""

    logs: list[Path] = field(default_factory=list)
    samples: int = 0
    skipped_unknown: int = 0
    unknown_ids: list[str] = field(default_factory=list)
    errors: int = 0
    # logs of an earlier import of the same file (same path and content) now replaced
    replaced: int = 0
    # logs of an earlier version of the same path (other content), replaced on request
    replaced_changed: int = 0
    # rows whose own copy of the question (options, n_options, question text, letter)
    # disagrees with the item files: (row, field, reason), left out with skip_mismatched
    mismatches: list[tuple[int, str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # per model: rows whose source letter and our parse disagree (only with source letters)
    disagreements: dict[str, dict[str, int]] = field(default_factory=dict)


def read_responses(path: str | Path, columns: dict[str, str] | None = None) -> pd.DataFrame:
    """The response file as strings, with a `_row` column (1-based data row numbers).

    Phase 1 shape: model_id, question_id, raw_response, letter, error, ... (all at
    temperature 1, one replicate, condition N). Phase 2 adds condition, rep, temperature.
    Read with `core.io.read_csv`: a repeated column, a ragged or cut-short row is an error.
    """
    path = Path(path)
    header, rows = read_csv(path)
    # `columns` renames a file's own columns to ours (a probe file's model_label to model_id)
    renames = {old: new for old, new in (columns or {}).items() if new not in header}
    header = [renames.get(h, h) for h in header]
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise InputError(
            f"missing column(s) {', '.join(missing)} (a response file needs {', '.join(REQUIRED)})", file=path, field=missing[0]
        )
    if not rows:
        raise InputError("file has a header but no responses", file=path)
    frame = pd.DataFrame([values for _, values in rows], columns=header, dtype=str)
    frame.insert(0, "_row", [row for row, _ in rows])
    return frame


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
    from ..core.items import INSTRUMENTS

    return path.stem if path.stem in INSTRUMENTS else None


def _canonical(question_id: str) -> str:
    from ..pew.replication import canonical_item_id

    return canonical_item_id(question_id)


def _number(value: str, *, path: Path, row: int, column: str, default: float, minimum: float | None = None) -> float:
    """A finite number of at least `minimum` (-0 read as 0, so it names the same cell as 0);
    `default` when blank."""
    if value is None or str(value).strip() == "":
        return default
    try:
        out = float(value)
    except ValueError:
        raise InputError(f"not a number: {value!r}", file=path, row=row, field=column) from None
    if math.isnan(out) or math.isinf(out):
        raise InputError(f"not a finite number: {value!r}", file=path, row=row, field=column)
    if minimum is not None and out < minimum:
        raise InputError(f"must be {minimum:g} or more, got {value!r}", file=path, row=row, field=column)
    return out + 0.0


_WHOLE = re.compile(r"[0-9]{1,12}(\.0*)?")


def _replicate(value: str, *, path: Path, row: int) -> float:
    """A replicate number as written: digits (a trailing .0 allowed), 0 to MAX_EPOCHS - 1;
    NaN when blank. `1e3` or a 20-digit number is an error, not 1,000 or 10**19 epochs."""
    text = "" if value is None else str(value).strip()
    if not text:
        return math.nan
    if not _WHOLE.fullmatch(text) or float(text) > MAX_EPOCHS - 1:
        raise InputError(f"replicate must be a whole number from 0 to {MAX_EPOCHS - 1}, got {text[:40]!r}", file=path, row=row, field="rep")
    return float(text)


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
    skip_mismatched: bool = False,
    letter_columns: tuple[str, ...] = ("letter",),
) -> pd.DataFrame:
    """Validated rows with item, condition, epoch and temperature resolved; rows whose own
    copy of the question disagrees with the items (`mismatch`) are an error, or with
    `skip_mismatched` left out and listed in `result.mismatches`."""
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
    frame = _cross_check(frame, items, path=path, skip_mismatched=skip_mismatched, result=result)
    if EXCLUDED not in frame.columns:
        frame[EXCLUDED] = None
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
        _number(v, path=path, row=r, column="temperature", default=1.0, minimum=0.0)
        for v, r in zip(frame.get("temperature", pd.Series("", index=frame.index)), frame["_row"], strict=True)
    ]
    reps = [_replicate(v, path=path, row=r) for v, r in zip(frame.get("rep", pd.Series("", index=frame.index)), frame["_row"], strict=True)]
    frame["rep_value"] = reps
    # Replicates are numbered from 0 or from 1 in the wild; epochs count from 1.
    given = [r for r in reps if not math.isnan(r)]
    offset = 1 if given and min(given) == 0 else 0
    if given and min(given) > 0:
        # a file of replicates 1.. numbered from 0 would be read one epoch too low: say so
        result.notes.append(f"replicates taken as numbered from 1 (the file has no rep 0): rep k is epoch k, from rep {min(given):g}")
    frame["epoch"] = [1 if math.isnan(r) else int(r) + offset for r in reps]
    missing = [c for c in letter_columns if c not in frame.columns] if use_source_letters else []
    if missing:
        raise InputError(f"--use-source-letters needs a '{missing[0]}' column", file=path, field=missing[0])
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


def mismatch(rec: dict[str, Any], item: Item, path: Path) -> tuple[str, str] | None:
    """(field, reason) when a response row's own copy of its question disagrees with the
    item it is matched to: its options (text, count or order), `n_options`, the start of
    `question_text`, or a `letter` / `letter_index` beyond the item's options. A row
    scored against options other than those its model saw is a wrong number."""
    row = int(rec["_row"])
    listed = str(rec.get("options") or "").strip()
    if listed:
        try:
            options = parse_options(listed, path=path, row=row, column="options")
        except InputError as ex:
            return "options", f"unreadable options: {str(ex).rsplit(': ', 1)[-1]}"
        ours = [o.strip() for o in item.options]
        theirs = [o.strip() for o in options]
        if theirs != ours:
            if len(theirs) != len(ours):
                why = f"{len(theirs)} options, item {item.id} has {len(ours)}"
            elif sorted(theirs) == sorted(ours):
                why = f"the options of item {item.id} in another order"
            else:
                why = f"option texts differ from item {item.id}"
            return "options", f"{why} (file {theirs[:4]}, items {ours[:4]})"
    count = str(rec.get("n_options") or "").strip()
    if count:
        try:
            n = float(count)
        except ValueError:
            return "n_options", f"not a number: {count!r}"
        if n != len(item.options):
            return "n_options", f"n_options {count} but item {item.id} has {len(item.options)} options"
    text = " ".join(str(rec.get("question_text") or "").split())
    if text and not " ".join(item.text.split()).startswith(text):
        return "question_text", f"question text is not that of item {item.id} ({text[:60]!r})"
    letter = str(rec.get("letter") or "").strip().upper()
    if len(letter) == 1 and letter in LETTERS:
        index = LETTERS.index(letter)
        if index >= len(item.options):
            return "letter", f"letter {letter} but item {item.id} has {len(item.options)} options (A-{LETTERS[len(item.options) - 1]})"
        given = str(rec.get("letter_index") or "").strip()
        if given and given not in (str(index), f"{index}.0"):
            return "letter_index", f"letter_index {given} but letter {letter} is option {index} (0-based)"
    return None


def _cross_check(frame: pd.DataFrame, items: dict[str, Item], *, path: Path, skip_mismatched: bool, result: ImportResult) -> pd.DataFrame:
    columns = {"options", "n_options", "question_text", "letter", "letter_index"} & set(frame.columns)
    if not columns:
        return frame
    keep: list[bool] = []
    reasons: list[str | None] = []
    cache: dict[tuple, tuple[str, str] | None] = {}
    for rec in frame[["_row", "item_id", *sorted(columns)]].to_dict("records"):
        key = tuple(rec.get(c) for c in ("item_id", *sorted(columns)))
        if key not in cache:
            cache[key] = mismatch({str(k): v for k, v in rec.items()}, items[rec["item_id"]], path)
        found = cache[key]
        if found is not None:
            if not skip_mismatched:
                raise InputError(
                    f"{found[1]} (fix the file or the item files, or pass --skip-mismatched to leave such rows out)",
                    file=path,
                    row=int(rec["_row"]),
                    field=found[0],
                )
            result.mismatches.append((int(rec["_row"]), *found))
        keep.append(found is None)
        reasons.append(None if found is None else f"{found[0]}: {found[1]}")
    if not any(keep):
        raise InputError(f"every one of {len(frame)} response(s) disagrees with the item files", file=path)
    # Left out, but kept to the end of `prepare` (which gives them their epoch), so that each
    # cell's log records the samples its import left out (`EXCLUDED_KEY`): the design then
    # counts them as excluded at import, not as a run still to finish.
    out = frame.copy()
    out[EXCLUDED] = reasons
    return out


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
    so it is computed once per (scorer, item, completion), its task state built only then,
    and copied for repeats (most responses are a bare letter)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.cache: dict[tuple, Score] = {}
        self.scorers: dict[tuple[str, str], Callable] = {}
        self.parses: dict[tuple[str, str], Any] = {}

    def scorer(self, kind: ResponseKind, scoring: str) -> Callable:
        """The kind's scorer for a scoring rule, one object per import (the score cache's key)."""
        key = (kind.name, scoring)
        if key not in self.scorers:
            self.scorers[key] = kind.scorer(scoring)
        return self.scorers[key]

    def parse(self, raw: str, item: Item) -> Any:
        """Our parser's reading of a response to an item (the same text is read once)."""
        key = (item.id, raw)
        if key not in self.parses:
            self.parses[key] = parse_choice(raw, item.options)
        return self.parses[key]

    def __call__(self, scorer: Callable, item_id: str, completion: str, make_state: Callable[[], TaskState]) -> Score:
        key = (scorer, item_id, completion)
        score = self.cache.get(key)
        if score is None:
            score = self.loop.run_until_complete(scorer(make_state(), Target("")))
            self.cache[key] = score
        return score.model_copy()

    def close(self) -> None:
        self.loop.close()


def _source_score(run: _Scoring, scorer: Callable, item: Item, letter: str, raw: str, make_state) -> Score:
    """Score the file's letter with our scorer; keep our own reading of the text beside it."""
    ours = run.parse(raw, item)
    letter = (letter or "").strip()
    extra = dict(text_status=ours.status, text_letter=ours.letter, source_letter=letter or None)
    if letter:
        score = run(scorer, item.id, letter, lambda: make_state(letter))
        return restatus(score, (score.metadata or {}).get("status", UNPARSED), SOURCE_RULE, **extra)
    score = run(scorer, item.id, "", lambda: make_state(""))
    status = ours.status if ours.status != ANSWERED else UNPARSED
    return restatus(score, status, "no letter in the source file", **extra)


def _eval_results(samples: list[EvalSample], scorer, scorer_name: str):
    """The log's results and reductions as a run computes them, from light copies of the
    scores: the metrics see only the sample metadata they read (`METRIC_METADATA`) and no
    score metadata, and the reduced scores get back the metadata Inspect's reducers keep
    (the first epoch's). Inspect deep-copies every score with both once per metric key,
    which was most of an import's time; tests/test_logs_import_writer.py checks the light
    results and reductions equal the full ones."""
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
    results, reductions = eval_results(len(samples), scores, mean_score(), [scorer], None, scorer_names=[scorer_name])
    first: dict[Any, Any] = {}
    for s in sorted(samples, key=lambda s: s.epoch):
        if s.scores:
            first.setdefault(s.id, s.scores[scorer_name].metadata)
    for reduction in reductions or []:
        for reduced in reduction.samples:
            reduced.metadata = first.get(reduced.sample_id)
    return results, reductions


async def _write_eval(log: EvalLog, out: Path) -> None:
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
        loop.run_until_complete(_write_eval(probe, slow))
        (fast_log, fast_summaries), (slow_log, slow_summaries) = _read_back(fast), _read_back(slow)
    for key in slow_log:
        if fast_log.get(key) != slow_log[key]:
            return f"the log's {key!r}"
    return None if fast_summaries == slow_summaries else "the sample summaries"


class _Writer:
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
            self.loop.run_until_complete(_write_eval(log, tmp))
            os.replace(tmp, out)
        finally:
            tmp.unlink(missing_ok=True)


def _key(text: str) -> str:
    """A short file-name-safe digest (10 base-57 characters, about 58 bits)."""
    return shortuuid.encode(uuid.UUID(hex=hashlib.sha256(text.encode()).hexdigest()[:32]))[:10]


@dataclass(frozen=True)
class _Source:
    """A response file's identity: its absolute path and its content."""

    path: Path
    sha256: str

    @classmethod
    def of(cls, path: Path) -> _Source:
        return cls(path.resolve(), hashlib.sha256(read_bytes(path)).hexdigest())

    @property
    def prefix(self) -> str:
        return f"{_key(str(self.path))}-{_key(self.sha256)}"

    def log_id(self, model: str, instrument: str, condition: str, temperature: float, epochs: list[int], letters: str) -> str:
        cell = _key(f"{model}|{instrument}|{condition}|{temperature!r}|{sorted(set(epochs))}|{letters}")
        return f"{self.prefix}-{cell}"


def _earlier_imports(log_dir: Path, source: _Source, *, replace_changed: bool, result: ImportResult) -> tuple[dict[str, list[Path]], list[Path]]:
    """Logs in `log_dir` written from this path before: by import id for the same content
    (replaced when rewritten) and those of an earlier content (an error unless
    `replace_changed`). Logs of the same content from another path are noted."""
    path_key, content_key = source.prefix.split("-")
    same: dict[str, list[Path]] = {}
    changed: list[Path] = []
    for log in sorted(log_dir.glob(f"*_{path_key}-*.eval")):
        import_id = log.stem.rsplit("_", 1)[-1]
        if import_id.split("-")[1] == content_key:
            same.setdefault(import_id, []).append(log)
        else:
            changed.append(log)
    if changed and not replace_changed:
        raise InputError(
            f"{len(changed)} log(s) in {log_dir} were imported from an earlier version of this file (its content has "
            "changed since); pass --replace-changed to replace them, or import into another --log-dir",
            file=source.path,
        )
    twins = [log for log in log_dir.glob(f"*_*-{content_key}-*.eval") if not log.stem.rsplit("_", 1)[-1].startswith(path_key)]
    if twins:
        result.notes.append(
            f"{len(twins)} log(s) in {log_dir} hold this same content imported from another path (e.g. {twins[0].name}); "
            "the directory now has these responses twice"
        )
    return same, changed


def import_responses(
    responses_file: str | Path,
    item_files: Iterable[str | Path],
    log_dir: str | Path,
    *,
    use_source_letters: bool = False,
    conditions_file: str | Path | None = None,
    skip_unknown: bool = False,
    skip_mismatched: bool = False,
    replace_changed: bool = False,
    progress: Callable[[str], None] | None = None,
    kind: ResponseKind = AUDIT,
    columns: dict[str, str] | None = None,
    jobs: int | None = None,
) -> ImportResult:
    """Write one `.eval` log per model x instrument x condition x temperature of the file,
    in `jobs` processes (default: one per CPU).

    Re-importing the same file (same path and content) into the same directory replaces
    the logs it wrote before, and only those; logs written from an earlier version of the
    same path are an error unless `replace_changed` (see the module docstring).
    """
    path = Path(responses_file)
    items = _item_index(item_files)
    conditions = condition_registry(conditions_file)
    result = ImportResult()
    frame = prepare(
        read_responses(path, columns),
        items,
        conditions,
        path=path,
        use_source_letters=use_source_letters,
        skip_unknown=skip_unknown,
        skip_mismatched=skip_mismatched,
        result=result,
        letter_columns=kind.letter_columns,
    )
    source = _Source.of(path)
    log_dir = Path(log_dir)
    log_dir.mkdir(parents=True, exist_ok=True)
    same, changed = _earlier_imports(log_dir, source, replace_changed=replace_changed, result=result)
    letters = "source" if use_source_letters else "parsed"
    groups = frame.groupby(
        ["model_id", frame["item_id"].map(lambda i: items[i].instrument), "condition", "temperature_value"], sort=True
    )
    cells: list[_Cell] = []
    for key, rows in groups:
        if rows[EXCLUDED].notna().all():
            continue  # nothing of this cell is kept: no log, and the rows are counted in result.mismatches
        model, instrument, cond_id = (str(k) for k in key[:3])
        temperature = float(rows["temperature_value"].iloc[0])
        log_id = source.log_id(model, instrument, cond_id, temperature, list(rows["epoch"]), letters)
        cells.append(_Cell(len(cells), model, instrument, cond_id, temperature, rows, log_id))
    job = functools.partial(
        _write_cells, source=source, log_dir=log_dir, conditions=conditions, items=items,
        use_source_letters=use_source_letters, progress=progress, kind=kind,
    )
    clean_stale_temp(log_dir)  # logs half-written by killed imports
    marker = log_dir / f"{IMPORT_MARKER_PREFIX}{source.prefix}{IMPORT_MARKER_SUFFIX}"
    killed_before = marker.exists()  # an earlier run of this import was killed: still unfinished if this one fails
    write_atomic(marker, json.dumps({"source": str(source.path), "logs": len(cells), "started": datetime.now(UTC).isoformat(timespec="seconds")}))
    try:
        written = _run_cells(job, cells, jobs, result)
    except BaseException:
        # leave the directory as it was: this run's new logs go, the earlier import stays
        olds = {old for logs in same.values() for old in logs}
        for cell in cells:
            for new in log_dir.glob(f"*_{cell.log_id}.eval"):
                if new not in olds:
                    new.unlink(missing_ok=True)
        if not killed_before:
            marker.unlink(missing_ok=True)
        raise
    result.logs = [out for _, out in sorted(written)]
    for index, out in sorted(written):
        # the earlier logs go only once every replacement is written
        for old in same.pop(cells[index].log_id, []):
            if old != out:
                old.unlink(missing_ok=True)
            result.replaced += 1
    for old in changed:
        old.unlink(missing_ok=True)
        result.replaced_changed += 1
    marker.unlink(missing_ok=True)
    return result


@dataclass
class _Cell:
    """One log to write: a model x instrument x condition x temperature of the file."""

    index: int
    model: str
    instrument: str
    condition: str
    temperature: float
    rows: pd.DataFrame
    log_id: str


def _write_cells(
    cells: list[_Cell], fast: bool | None, *, source: _Source, log_dir: Path, conditions: dict[str, Condition],
    items: dict[str, Item], use_source_letters: bool, progress: Callable[[str], None] | None, kind: ResponseKind,
) -> tuple[list[tuple[int, Path]], ImportResult, bool | None]:
    """Write the cells' logs: (cell index, log path) pairs, what they add to the result, and
    whether the one-pass writer was used (None when no log was written)."""
    part = ImportResult()
    run = _Scoring()
    write = _Writer(run.loop, part, fast)
    written = []
    try:
        for cell in cells:
            out = _write_one(
                run, write, source, log_dir, cell.log_id, cell.model, cell.instrument, conditions[cell.condition],
                cell.temperature, cell.rows, items, use_source_letters, part, progress, kind,
            )
            written.append((cell.index, out))
    finally:
        run.close()
    return written, part, write.fast


def _merge(into: ImportResult, part: ImportResult) -> None:
    into.samples += part.samples
    into.errors += part.errors
    into.notes += [n for n in part.notes if n not in into.notes]
    for model, counts in part.disagreements.items():
        mine = into.disagreements.setdefault(model, dict.fromkeys(counts, 0))
        for k, v in counts.items():
            mine[k] += v


def _buckets(cells: list[_Cell], n: int) -> list[list[_Cell]]:
    """`n` lists of cells with about equal numbers of rows (largest first, each to the lightest)."""
    buckets: list[list[_Cell]] = [[] for _ in range(n)]
    loads = [0] * n
    for cell in sorted(cells, key=lambda c: -len(c.rows)):
        k = loads.index(min(loads))
        buckets[k].append(cell)
        loads[k] += len(cell.rows)
    return [b for b in buckets if b]


def _child(job: Callable, cells: list[_Cell], fast: bool | None, conn: Any) -> None:
    try:
        conn.send(("ok", job(cells, fast)))
    except BaseException as ex:  # sent to the parent, which raises it
        conn.send(("error", (type(ex).__name__, str(ex), isinstance(ex, InputError))))
    finally:
        conn.close()


def _run_cells(job: Callable, cells: list[_Cell], jobs: int | None, result: ImportResult) -> list[tuple[int, Path]]:
    """Write every cell: the first here (it checks the one-pass writer), the rest in `jobs`
    forked processes (default: one per CPU) when the platform forks, else here. Each log is
    independent of the others, so the logs are the same whichever process writes them."""
    if not cells:
        return []
    written, part, fast = job(cells[:1], None)
    _merge(result, part)
    rest = cells[1:]
    n = max(1, min(jobs or os.cpu_count() or 1, len(rest)))
    if n == 1 or "fork" not in multiprocessing.get_all_start_methods():
        more, part, _ = job(rest, fast)
        _merge(result, part)
        return written + more
    context = multiprocessing.get_context("fork")
    buckets = _buckets(rest, n)
    children = []
    for bucket in buckets[1:]:
        receive, send = context.Pipe(duplex=False)
        process = context.Process(target=_child, args=(job, bucket, fast, send), daemon=True)
        process.start()
        send.close()
        children.append((process, receive))
    failure: tuple[str, str, bool] | None = None
    try:
        more, part, _ = job(buckets[0], fast)
        written += more
        _merge(result, part)
    finally:
        for process, receive in children:
            try:
                status, payload = receive.recv()
            except EOFError:
                status, payload = "error", ("WorkerDied", f"an import process exited with code {process.exitcode}", False)
            process.join()
            if status == "ok":
                more, part, _ = payload
                written += more
                _merge(result, part)
            else:
                failure = failure or payload
    if failure:
        name, message, is_input = failure
        raise InputError(message) if is_input else RuntimeError(f"{name}: {message}")
    return written


def _write_one(
    run: _Scoring,
    write: _Writer,
    source: _Source,
    log_dir: Path,
    log_id: str,
    model: str,
    instrument: str,
    condition: Condition,
    temperature: float,
    rows: pd.DataFrame,
    items: dict[str, Item],
    use_source_letters: bool,
    result: ImportResult,
    progress: Callable[[str], None] | None,
    kind: ResponseKind = AUDIT,
) -> Path:
    log = _build_log(run, source, log_id, model, instrument, condition, temperature, rows, items, use_source_letters, result, kind)
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H-%M-%S-00-00")
    out = log_dir / f"{stamp}_{_slug(log.eval.task)}_{log_id}.eval"
    write(log, out)
    result.logs.append(out)
    result.samples += len(log.samples or [])
    if progress:
        progress(f"  {out.name}: {model}, {instrument}, {condition.id}, T={temperature:g}, {len(log.samples or [])} samples")
    return out


def _build_log(
    run: _Scoring,
    source: _Source,
    log_id: str,
    model: str,
    instrument: str,
    condition: Condition,
    temperature: float,
    rows: pd.DataFrame,
    items: dict[str, Item],
    use_source_letters: bool,
    result: ImportResult,
    kind: ResponseKind = AUDIT,
) -> EvalLog:
    scorings = {items[i].scoring for i in rows["item_id"]}
    if len(scorings) != 1:
        raise InputError(f"instrument {instrument!r} mixes scoring rules {sorted(scorings)}; split its items into files")
    scoring = scorings.pop()
    left_out = rows[rows[EXCLUDED].notna()]
    rows = rows[rows[EXCLUDED].isna()]
    scorer = run.scorer(kind, scoring)
    scorer_name = registry_unqualified_name(scorer)
    samples: list[EvalSample] = []
    disagree = result.disagreements.setdefault(model, {"rows": 0, "source_only": 0, "ours_only": 0, "different": 0})
    order = {item_id: i for i, item_id in enumerate(dict.fromkeys(rows["item_id"]))}
    for rec in rows.to_dict("records"):
        item = items[rec["item_id"]]
        prompt = kind.prompt(item, condition)
        raw = rec.get("raw_response") or ""
        metadata: dict[str, Any] = {
            **item.sample_metadata(),
            "condition": condition.id,
            "condition_label": condition.label,
            "source_file": source.path.name,
            "source_row": int(rec["_row"]),
            "source_question_id": rec["question_id"],
            "source_rep": None if math.isnan(rec["rep_value"]) else rec["rep_value"],
        }
        for extra in ("run_id", "model_label", "model_name"):
            if rec.get(extra):
                metadata[f"source_{extra}"] = rec[extra]
        error_text = (rec.get("error") or "").strip()
        epoch = int(rec["epoch"])
        make_state = functools.partial(_state, item, condition, model, epoch, prompt, metadata=metadata)
        sample_error = None
        scores = None
        if error_text and not raw.strip():
            sample_error = EvalError(message=error_text, traceback="", traceback_ansi="")
            result.errors += 1
        elif use_source_letters:
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
        samples.append(
            EvalSample(
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
        )
    samples.sort(key=lambda s: (s.epoch, order[str(s.id)]))
    results, reductions = _eval_results(samples, scorer, scorer_name)
    task = kind.task(instrument, condition.id)
    created = datetime.now(UTC).isoformat(timespec="seconds")
    epochs = max(s.epoch for s in samples)
    spec = EvalSpec(
        created=created,
        task=task,
        task_id=shortuuid.uuid(),
        task_registry_name=f"political_sycophancy/{kind.name}",
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
            samples=len(order),
            sample_ids=list(order),
        ),
        model=model,
        config=EvalConfig(epochs=epochs, epochs_reducer=["replicates"]),
        metadata={
            "political_sycophancy": kind.name,
            "instrument": instrument,
            "condition": condition.id,
            "condition_label": condition.label,
            "preamble": condition.preamble,
            "answer_mode": "letter",
            "pool": "imported",
            "temperature": temperature,
            "imported_from": str(source.path),
            "imported_sha256": source.sha256,
            "import_id": log_id,
            "letters": "source" if use_source_letters else "parsed",
            "condition_redefines_builtin": redefines_builtin(condition),
            **({EXCLUDED_KEY: [{"sample_id": str(r["item_id"]), "epoch": int(r["epoch"]), "row": int(r["_row"]), "reason": str(r[EXCLUDED])}
                               for r in left_out.to_dict("records")]} if len(left_out) else {}),
        },
    )
    n_errors = sum(1 for s in samples if s.error)
    log = EvalLog(
        version=2,
        status="success" if n_errors < len(samples) else "error",
        eval=spec,
        plan=EvalPlan(
            steps=[
                EvalPlanStep(solver="political_sycophancy/import_responses", params={"source": str(source.path)}),
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

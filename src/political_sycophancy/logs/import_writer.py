# Long: a log built as Inspect's recorder leaves it replicates Inspect's score reduction and metrics here.
"""Building and writing an import's logs.

One `Cell` (model x instrument x condition x temperature of a response file) becomes one
`.eval` log, built as a run of the task would have left it and written in one pass
(`write_eval_zip`) once the first log reads back as Inspect's own recorder's.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import hashlib
import math
import os
import re
import tempfile
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pandas as pd
import shortuuid
from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalLog,
    EvalPlan,
    EvalPlanStep,
    EvalResults,
    EvalSampleReductions,
    EvalSampleScore,
    EvalSpec,
    EvalStats,
    condense_sample,
    read_eval_log,
    read_eval_log_sample_summaries,
)
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import SampleScore, Score, Scorer, ScoreReducer, mean_score
from inspect_ai.util import registry_info

from ..core.atomic import temp_path
from ..core.conditions import Condition, redefines_builtin
from ..core.declare import TASK_LABEL, task_label
from ..core.errors import InputError
from ..core.inspect_compat import EvalRecorder, eval_results, json_bytes, registry_unqualified_name, write_eval_zip
from ..core.items import Item
from ..core.metrics import METRIC_METADATA
from ..shared.import_scoring import ResponseKind, Scoring, task_state
from .design import EXCLUDED_KEY
from .import_rows import EXCLUDED, ImportResult
from .provenance import PROVENANCE_KEY, file_sha256
from .sample_json import Pieces, Record, Template, random_ids, sample_of

FLUSH_EVERY = 100
# allocations between collections of the youngest generation while logs are written (`_fewer_collections`)
YOUNG_COLLECTION = 10_000
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
        """The identity of the response file at `path`: its absolute path and the SHA-256 of its bytes."""
        return cls(path.resolve(), file_sha256(path))

    @property
    def prefix(self) -> str:
        """The file's part of a log id: short digests of its path and content."""
        return f"{short_key(str(self.path))}-{short_key(self.sha256)}"

    def log_id(
        self, model: str, instrument: str, condition: str, temperature: float, epochs: list[int], letters: str
    ) -> str:
        """The id of one cell's log: the file's prefix and a digest of the cell.

        The same file imported again into the same folder gives the same ids, so its logs are replaced, not repeated.
        """
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
    provenance: dict[str, Any] | None = None  # where the data came from (`logs.provenance`), in every log


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")


def write_cells(
    job: ImportJob, cells: Iterable[Cell], fast: bool | None
) -> tuple[list[tuple[int, Path]], ImportResult, bool | None]:
    """Write the cells' logs.

    Returns (cell index, log path) pairs, what they add to the result, and whether the
    one-pass writer was used (None when no log was written).
    """
    part = ImportResult()
    run = Scoring()
    write = Writer(run.loop, part, fast)
    written = []
    try:
        with _fewer_collections():
            for cell in cells:
                written.append((cell.index, write_one(job, cell, run, write, part)))
    finally:
        run.close()
    return written, part, write.fast


@contextlib.contextmanager
def _fewer_collections() -> Iterator[None]:
    """Python's cycle collector made rarer while logs are written.

    The objects that exist before (the response frame, the items) are frozen out of its
    scans and its youngest generation collected every `YOUNG_COLLECTION` allocations,
    not every 700. Writing allocates millions of short-lived objects with few cycles;
    the scans were a sixth of an import's time. Restored on leaving.
    """
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTION, *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


def write_one(job: ImportJob, cell: Cell, run: Scoring, write: Writer, result: ImportResult) -> Path:
    """Write one cell's .eval log into the job's log folder, count it in `result` and report progress."""
    log, records, scorer_name = build_log(job, cell, run, result)
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H-%M-%S-00-00")
    label = task_label(log.eval.task, log.eval.metadata, log.eval.task_registry_name)
    out = job.log_dir / f"{stamp}_{_slug(label)}_{cell.log_id}.eval"
    write(log, records, scorer_name, out)
    result.logs.append(out)
    result.samples += len(records)
    if job.progress:
        job.progress(
            f"  {out.name}: {cell.model}, {cell.instrument}, {cell.condition}, T={cell.temperature:g}, {len(records)}"
            " samples"
        )
    return out


class _ShallowCopied(Score):
    """A reduced score that copies shallowly: Inspect's metric-dict path deep-copies it only to replace `value`.

    It deep-copies once per metric key only to replace the copy's `value` (never to
    mutate it): a shallow copy gives the same results, without the deep copies that were
    a quarter of an import's time.
    """

    def __deepcopy__(self, memo: dict | None = None) -> _ShallowCopied:
        return self.__copy__()


def _content(score: Score) -> tuple:
    """What a reducer reads of a light score (no metadata).

    Equal contents reduce equally (`reason` where this inspect_ai's Score has one).
    """
    value = score.value
    return (
        tuple(value.items()) if isinstance(value, dict) else value,
        score.answer,
        score.explanation,
        getattr(score, "reason", None),
    )


def _shallow_copied(reducer: ScoreReducer, reduced: dict[tuple, Score]) -> ScoreReducer:
    """`reducer` with its reductions shared: each distinct list of score contents is reduced once.

    Its reduced scores are `_ShallowCopied` (its registry name kept), each distinct list
    of score contents reduced once into `reduced` (one per import and reducer: most
    imported answers are one of an item's few letters), and looked up by the scores'
    identities before their contents (the importer shares a score among the rows that
    repeat it; the lists reduced hold them alive while `reduce` is used).
    """
    seen: dict[tuple[int, ...], Score] = {}

    @functools.wraps(reducer)
    def reduce(scores: list[Score]) -> Score:
        ids = tuple(map(id, scores))
        hit = seen.get(ids)
        if hit is None:
            key = tuple(_content(s) for s in scores)
            try:
                hit = reduced.get(key)
            except TypeError:  # a value that cannot be a key (a list): reduced every time
                return _ShallowCopied.model_construct(**dict(reducer(scores)))
            if hit is None:
                hit = reduced[key] = _ShallowCopied.model_construct(**dict(reducer(scores)))
            seen[ids] = hit
        return _bare_copy(hit)

    return cast(ScoreReducer, reduce)


class _ShallowSampleScore(SampleScore):
    """A sample score that copies cheaply, for Inspect's metric-dict path.

    That path deep-copies a sample score once per sample and metric key only to set the
    copy's `score.value` to that key's value and hand the copies to the key's metrics,
    which read `score.value` (and a sample's metadata to cluster by). The copy is a plain
    namespace of the same fields, the score's too: the same results, with none of
    pydantic's copying, which was a fifth of an import's time. Its metadata is shared (no
    metric mutates it); tests/test_logs_import_writer.py checks the results equal those
    of Inspect's own objects.
    """

    def __deepcopy__(self, memo: dict | None = None) -> Any:
        fields = self.__dict__
        return SimpleNamespace(**{**fields, "score": SimpleNamespace(**fields["score"].__dict__)})


def _bare_copy(model: Any) -> Any:
    """A shallow copy of a pydantic model without its machinery.

    What its `__copy__` does, minus the private-attribute copy our scores do not have.
    """
    new = object.__new__(type(model))
    object.__setattr__(new, "__dict__", model.__dict__.copy())
    object.__setattr__(new, "__pydantic_fields_set__", set(model.__pydantic_fields_set__))
    object.__setattr__(new, "__pydantic_extra__", model.__pydantic_extra__)
    object.__setattr__(new, "__pydantic_private__", model.__pydantic_private__)
    return new


def _constructed(cls: Any, values: dict[str, Any]) -> Any:
    """`cls.model_construct(**values)`, without its per-field checks when `values` holds every field of `cls`.

    What `model_construct` does then; else `model_construct` itself.
    """
    if values.keys() != cls.model_fields.keys():
        return cls.model_construct(**values)
    new = object.__new__(cls)
    object.__setattr__(new, "__dict__", values)
    object.__setattr__(new, "__pydantic_fields_set__", set(values))
    object.__setattr__(new, "__pydantic_extra__", None)
    object.__setattr__(new, "__pydantic_private__", None)
    return new


def _reduced_here(
    scores: Sequence[Mapping[str, SampleScore]],
    reducer: ScoreReducer,
    scorer: Scorer,
    scorer_name: str,
    samples: int,
    templates: dict[str, tuple[Any, bool]] | None = None,
) -> tuple[EvalResults | None, list[EvalSampleReductions] | None]:
    """`eval_results` with the epochs reduced here, as Inspect's `reduce_scores` does, into cheap copies.

    Reduced by sample id, in order of first appearance, into `_ShallowSampleScore`s, whose
    copies per metric key are cheap; the metrics of the reduced scores are Inspect's
    (`_metrics_here`). Its results' reducer and count of completed samples are set as an
    eval with the reducer sets them, its reductions built as Inspect builds them. Checked
    against Inspect's own path on each process's first log (`light_eval_results`).
    """
    groups: dict[str, list[SampleScore]] = {}
    for by_scorer in scores:
        groups.setdefault(str(by_scorer[scorer_name].sample_id), []).append(by_scorer[scorer_name])
    reduced = [
        _constructed(
            _ShallowSampleScore,
            {
                "score": reducer([s.score for s in group]),
                "sample_id": group[0].sample_id,
                "sample_metadata": group[0].sample_metadata,
                "scorer": None,
            },
        )
        for group in groups.values()
    ]
    results = _metrics_here(reduced, scorer, scorer_name, samples, templates)
    if results is None:
        return None, None
    name = registry_unqualified_name(reducer)
    for score in results.scores:
        score.reducer = name
    headline = getattr(results, "headline", None)  # the headline metric's reference, in newer Inspects
    if headline is not None and hasattr(headline, "reducer"):
        headline.reducer = name
    results.completed_samples = len(scores)
    samples_reduced = [_constructed(EvalSampleScore, {**s.score.__dict__, "sample_id": s.sample_id}) for s in reduced]
    return results, [EvalSampleReductions(scorer=scorer_name, reducer=name, samples=samples_reduced)]


def _metrics_here(
    reduced: Sequence[SampleScore],
    scorer: Scorer,
    scorer_name: str,
    samples: int,
    templates: dict[str, tuple[Any, bool]] | None,
) -> EvalResults | None:
    """The metrics of the reduced scores as Inspect's `eval_results` computes them.

    Its metric-dict path copies every score once per key, a fifth of an import's time; so
    the first log of each scorer in a process goes through `eval_results`, which gives
    the results' layout, and later logs are that layout with the metrics computed again
    here (`_filled`), once `_filled` gave Inspect's results on that first log.
    `templates` holds, per scorer, the first results and whether that check held.
    """
    known = None if templates is None else templates.get(scorer_name)
    if known is not None and known[1]:
        filled = _filled(known[0], reduced, scorer, samples)
        if filled is not None:
            return filled
    results, _ = eval_results(
        samples, [{scorer_name: s} for s in reduced], [], [scorer], None, scorer_names=[scorer_name]
    )
    if templates is not None and known is None and results is not None:
        try:
            filled = _filled(results, reduced, scorer, samples)
        except Exception:  # a metric that reads more than a value: Inspect's path from here on
            filled = None
        templates[scorer_name] = (
            results.model_copy(deep=True),
            filled is not None and json_bytes(filled) == json_bytes(results),
        )
    return results


class _KeyValue:
    """One sample's value of one key, as a metric reads a sample score (`score.value`, `sample_id`, `sample_metadata`).

    The sample score is its own score.
    """

    __slots__ = ("value", "sample_id", "sample_metadata")
    scorer = None

    def __init__(self, value: Any, sample_id: Any, sample_metadata: Any) -> None:
        self.value, self.sample_id, self.sample_metadata = value, sample_id, sample_metadata

    @property
    def score(self) -> _KeyValue:
        return self


def _filled(template: Any, reduced: Sequence[SampleScore], scorer: Scorer, samples: int) -> Any:
    """`template` (a scorer's results) with each key's metrics computed over `reduced`, as Inspect computes them.

    As Inspect's metric-dict path does: samples whose value (or the key's) is NaN are unscored, each metric
    gets the scored samples' values of the key under `score.value` (and their sample metadata), and a key no
    sample has a value for gets NaN. None when the scorer's metrics are not one scalar metric per entry of a
    dict of keys, as the template lists them.
    """
    metrics = registry_info(scorer).metadata.get("metrics")
    if not isinstance(metrics, dict):
        return None
    scores = []
    for eval_score in template.scores:
        key = eval_score.name
        metric_list = metrics.get(key)
        if (
            not isinstance(metric_list, list)
            or len(metric_list) != len(eval_score.metrics)
            or not all(map(callable, metric_list))
        ):
            return None
        views, unscored = [], 0
        for s in reduced:
            whole = s.score.value
            if isinstance(whole, float) and math.isnan(whole):
                unscored += 1
                continue
            if not isinstance(whole, dict) or key not in whole:
                return None
            value = whole[key]
            if isinstance(value, float) and math.isnan(value):
                unscored += 1
                continue
            views.append(_KeyValue(value, s.sample_id, s.sample_metadata))
        computed = {}
        for (name, out), metric in zip(eval_score.metrics.items(), metric_list, strict=True):
            value = metric(views) if views else math.nan
            if isinstance(value, (Mapping, list, tuple, str, bytes)):
                return None
            computed[name] = out.model_copy(update={"value": value})
        scores.append(
            eval_score.model_copy(
                update={"metrics": computed, "scored_samples": len(views), "unscored_samples": unscored}
            )
        )
    out = template.model_copy(update={"scores": scores, "total_samples": samples})
    if getattr(out, "headline", None) is not None:  # its own, as the caller sets its reducer
        out.headline = out.headline.model_copy()
    return out


def _light(score: Score, light: dict[int, tuple[Score, Score]] | None) -> Score:
    """The score without its metadata, made once per score object in `light`.

    `light` keeps the score alive, so its identity is not reused.
    """
    if light is None:
        return score.model_copy(update={"metadata": None})
    hit = light.get(id(score))
    if hit is None:
        hit = light[id(score)] = (score, score.model_copy(update={"metadata": None}))
    return hit[1]


def light_eval_results(
    entries: list[tuple[Any, int, Score | None, dict[str, Any]]],
    scorer: Scorer,
    scorer_name: str,
    reduced: dict[tuple, Score] | None = None,
    check: dict[str, bool | None] | None = None,
    light: dict[int, tuple[Score, Score]] | None = None,
    templates: dict[str, tuple[Any, bool]] | None = None,
) -> tuple[EvalResults | None, list[EvalSampleReductions] | None]:
    """The log's results and reductions as a run computes them, from light copies of the scores.

    From its samples' (id, epoch, score, metadata) and light copies of the scores: the
    metrics see only the sample metadata they read (`METRIC_METADATA`) and no score
    metadata, the sample scores and reduced scores are copied shallowly
    (`_ShallowSampleScore`, `_ShallowCopied`), and they get back the metadata Inspect's
    reducers keep (the first epoch's). Inspect deep-copies every score once per metric
    key, which was most of an import's time; tests/test_logs_import_writer.py checks the
    light results and reductions equal the full ones. `reduced` holds the mean reductions
    already computed in this import.

    The epochs are reduced here (`_reduced_here`) once `check` (one per process) records
    that doing so gave Inspect's own results on a first log; without `check` both are
    computed and Inspect's returned. `light` holds the light copy of each score of this
    import by identity (the importer shares a score among the rows that repeat it);
    `templates` the first results of each scorer in this process (`_metrics_here`).
    """
    scores = [
        {
            scorer_name: _constructed(
                _ShallowSampleScore,
                {  # its parts are valid already
                    "score": _light(score, light),
                    "sample_id": sample_id,
                    "sample_metadata": {k: metadata[k] for k in METRIC_METADATA if k in metadata},
                    "scorer": scorer_name,
                },
            )
        }
        for sample_id, _, score, metadata in entries
        if score is not None
    ]
    if not scores:
        return None, None
    mean = _shallow_copied(mean_score(), {} if reduced is None else reduced)
    known = None if check is None else check.get("reduced_here")
    if known is True:
        results, reductions = _reduced_here(scores, mean, scorer, scorer_name, len(entries), templates)
    else:
        results, reductions = eval_results(len(entries), scores, mean, [scorer], None, scorer_names=[scorer_name])
        if known is None:
            here = _reduced_here(scores, mean, scorer, scorer_name, len(entries))
            same = json_bytes(here[0]) == json_bytes(results) and json_bytes(here[1]) == json_bytes(reductions)
            if check is not None:
                check["reduced_here"] = same
    first: dict[Any, Any] = {}
    for sample_id, _, score, _ in sorted(entries, key=lambda e: e[1]):
        if score is not None:
            first.setdefault(sample_id, score.metadata)
    for reduction in reductions or []:
        for sample_score in reduction.samples:
            sample_score.metadata = first.get(sample_score.sample_id)
    return results, reductions


async def write_eval(log: EvalLog, out: Path) -> None:
    """Write an `.eval` log through Inspect's own recorder, flushing every `FLUSH_EVERY` samples as a running eval does.

    `write_eval_log` buffers every sample and de-duplicates the buffer on each one,
    quadratic in the number of samples. The importer's fallback when `write_eval_zip`'s
    layout does not read back as this writer's.
    """
    recorder = EvalRecorder(str(out.parent))
    await recorder.log_init(log.eval, str(out), clean=True)
    await recorder.log_start(log.eval, log.plan)
    for i, sample in enumerate(log.samples or [], start=1):
        await recorder.log_sample(log.eval, condense_sample(sample))
        if i % FLUSH_EVERY == 0:
            await recorder.flush(log.eval)
    await recorder.log_finish(log.eval, log.status, log.stats, log.results, log.reductions)


def _read_back(path: Path) -> tuple[dict[str, str], list[str]]:
    """A log as Inspect's public readers return it, field by field as JSON.

    As JSON, since NaN, which unanswered measures hold, is not equal to itself in a
    comparison of values.
    """
    log = read_eval_log(str(path))
    fields = {
        name: json_bytes(getattr(log, name)).decode()
        for name in type(log).model_fields
        if name not in ("location", "etag")
    }
    return fields, [json_bytes(s).decode() for s in read_eval_log_sample_summaries(str(path))]


def layout_difference(
    log: EvalLog,
    loop: asyncio.AbstractEventLoop,
    samples: int = CHECK_SAMPLES,
    fast_parts: tuple[list[tuple[str | int, int, bytes]], bytes, bytes | None] | None = None,
) -> str | None:
    """The first field that differs between a log written by `write_eval_zip` and by Inspect's recorder, or None.

    None when it reads back through Inspect's public readers (`read_eval_log`,
    `read_eval_log_sample_summaries`) exactly as the same log written by Inspect's
    recorder does, checked on the first `samples` samples of `log`. `fast_parts` are those
    samples' JSON, their summaries' and the log's reductions' as the importer writes them
    (`sample_json`), else they are serialised from the log. The fast writer relies on
    Inspect's member layout, which no public contract fixes, so each import checks it
    once.
    """
    probe = log.model_copy(update={"samples": (log.samples or [])[:samples]})
    with tempfile.TemporaryDirectory(prefix="ps-layout-") as scratch:
        fast, slow = Path(scratch) / "fast.eval", Path(scratch) / "inspect.eval"
        write_eval_zip(probe, fast, *fast_parts) if fast_parts else write_eval_zip(probe, fast)
        loop.run_until_complete(write_eval(probe, slow))
        (fast_log, fast_summaries), (slow_log, slow_summaries) = _read_back(fast), _read_back(slow)
    for key in slow_log:
        if fast_log.get(key) != slow_log[key]:
            return f"the log's {key!r}"
    return None if fast_summaries == slow_summaries else "the sample summaries"


class Writer:
    """Writes an import's logs in one pass (`write_eval_zip`), each sample's JSON filled from a checked template.

    The template is its log's (`sample_json.Template`), used once `layout_difference`
    finds such a log reads back as Inspect's recorder's (checked on the first log). A log
    whose template does not serialise a sample as Inspect does is written from Inspect's
    objects, as is every later one; without the one-pass layout, through the recorder.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, result: ImportResult, fast: bool | None = None) -> None:
        self.loop, self.result = loop, result
        self.fast = fast
        self.pieces = Pieces.of()

    def _template(self, log: EvalLog, records: list[Record], scorer_name: str) -> Template | None:
        """The log's checked template, or None when a record does not serialise as Inspect's objects do.

        None (with a note the first time) when the last record of a shape (scored,
        errored) serialises otherwise than Inspect's objects.
        """
        if self.pieces is None or not records:
            return None
        template = Template.of(records[0], log.eval.model, scorer_name, self.pieces)
        last = {r.shape: r for r in records}
        difference = next((d for r in last.values() if (d := template.difference(r))), None)
        if difference:
            self.pieces = None
            self.result.notes.append(
                f"this inspect_ai serialises {difference} otherwise than the importer's template; "
                "the samples were written from Inspect's objects instead (slower)"
            )
            return None
        return template

    def __call__(self, log: EvalLog, records: list[Record], scorer_name: str, out: Path) -> None:
        """Write one log to `out`: in one pass when the layout and the template check out, else as Inspect does."""
        template = self._template(log, records, scorer_name) if self.fast is not False else None

        def parts(some: list[Record]) -> tuple[list[tuple[str | int, int, bytes]], bytes, bytes | None] | None:
            if template is None:
                return None
            return (
                *template.json(some),
                None if log.reductions is None else template.pieces.reductions(log.reductions),
            )

        if self.fast is None:
            probe = records[:CHECK_SAMPLES]
            difference = layout_difference(_with_samples(log, probe, scorer_name), self.loop, fast_parts=parts(probe))
            self.fast = difference is None
            if difference:
                self.result.notes.append(
                    f"this inspect_ai reads {difference} of a one-pass .eval zip differently from its own writer's; "
                    "the logs were written with Inspect's recorder instead (slower)"
                )
        if self.fast:
            if template is not None:
                samples, summaries = template.json(records)
                reductions = None if log.reductions is None else template.pieces.reductions(log.reductions)
                write_eval_zip(log, out, samples, summaries, reductions)  # to a temporary sibling, renamed
            else:
                write_eval_zip(_with_samples(log, records, scorer_name), out)
            return
        tmp = temp_path(out)
        try:
            self.loop.run_until_complete(write_eval(_with_samples(log, records, scorer_name), tmp))
            os.replace(tmp, out)
        finally:
            tmp.unlink(missing_ok=True)


def _with_samples(log: EvalLog, records: list[Record], scorer_name: str) -> EvalLog:
    """The log with its records as Inspect's samples.

    Reductions are kept: the constructor's validator drops them beside results that are
    not a dict.
    """
    out = log.model_copy(update={"samples": [sample_of(r, log.eval.model, scorer_name) for r in records]})
    out.reductions = log.reductions
    return out


def build_log(job: ImportJob, cell: Cell, run: Scoring, result: ImportResult) -> tuple[EvalLog, list[Record], str]:
    """The cell's log as a run of `job.kind`'s task would have written it, without its samples.

    The samples' records (in the log's order) and the scorer's name.
    """
    items, kind = job.items, job.kind
    scorings = {items[i].scoring for i in cell.rows["item_id"]}
    if len(scorings) != 1:
        raise InputError(
            f"instrument {cell.instrument!r} mixes scoring rules {sorted(scorings)}; split its items into files"
        )
    scorer = run.scorer(kind, scorings.pop())
    scorer_name = registry_unqualified_name(scorer)
    left_out = cell.rows[cell.rows[EXCLUDED].notna()]
    rows = cell.rows[cell.rows[EXCLUDED].isna()]
    condition = job.conditions[cell.condition]
    disagree = result.disagreements.setdefault(
        cell.model, {"rows": 0, "source_only": 0, "ours_only": 0, "different": 0}
    )
    order = {item_id: i for i, item_id in enumerate(dict.fromkeys(rows["item_id"]))}
    ids = iter(random_ids(4 * len(rows)))
    records = [_record(job, cell, condition, rec, run, scorer, result, disagree, ids) for rec in _row_dicts(rows)]
    records.sort(key=lambda r: (r.epoch, order[str(r.id)]))
    results, reductions = light_eval_results(
        [(r.id, r.epoch, r.score, r.metadata) for r in records],
        scorer,
        scorer_name,
        run.reductions,
        run.checks,
        run.light,
        run.results,
    )
    created = datetime.now(UTC).isoformat(timespec="seconds")
    n_errors = sum(1 for r in records if r.error is not None)
    log = EvalLog(
        version=2,
        status="success" if n_errors < len(records) else "error",
        eval=_spec(job, cell, condition, created, list(order), max(r.epoch for r in records), left_out),
        plan=EvalPlan(
            steps=[
                EvalPlanStep(solver="political_sycophancy/import_responses", params={"source": str(job.source.path)}),
            ],
            config=GenerateConfig(temperature=cell.temperature),
        ),
        results=results,
        stats=EvalStats(started_at=created, completed_at=created),
    )
    # set after construction: EvalLog's validator only accepts reductions beside dict results
    log.reductions = reductions
    return log, records, scorer_name


def _row_dicts(rows: pd.DataFrame) -> list[dict[str, Any]]:
    """`rows.to_dict("records")` (Python values, as it boxes them), from whole columns."""
    columns = [str(c) for c in rows.columns]
    return [
        dict(zip(columns, values, strict=True))
        for values in zip(*(rows[c].tolist() for c in rows.columns), strict=True)
    ]


def _record(
    job: ImportJob,
    cell: Cell,
    condition: Condition,
    rec: dict,
    run: Scoring,
    scorer: Callable,
    result: ImportResult,
    disagree: dict[str, int],
    ids: Iterator[str],
) -> Record:
    """One response row as the sample a run would have logged, scored by our scorer.

    With `use_source_letters`, the file's letter is scored and our reading counted against
    it in `disagree`.
    """
    item, model, kind = job.items[rec["item_id"]], cell.model, job.kind
    prompt = run.prompt(kind, item, condition)
    raw = rec.get("raw_response") or ""
    item_metadata = run.item_metadata(item)
    metadata: dict[str, Any] = {
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
    make_state = functools.partial(
        task_state, item, condition, model, epoch, prompt, metadata={**item_metadata, **metadata}
    )
    sample_error = None
    score = None
    if error_text and not raw.strip():
        sample_error = error_text
        result.errors += 1
    elif job.use_source_letters:
        score = kind.source_score(run, scorer, item, rec, make_state)
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
        score = kind.parsed_score(run, scorer, item, rec, functools.partial(make_state, completion=raw))
    return Record(
        item.id,
        epoch,
        prompt,
        raw,
        item_metadata,
        metadata,
        score,
        sample_error,
        next(ids),
        (next(ids), next(ids), next(ids)),
    )


def _spec(
    job: ImportJob,
    cell: Cell,
    condition: Condition,
    created: str,
    sample_ids: list[str],
    epochs: int,
    left_out: pd.DataFrame,
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
            **({PROVENANCE_KEY: job.provenance} if job.provenance else {}),
            **(
                {
                    EXCLUDED_KEY: [
                        {
                            "sample_id": str(r["item_id"]),
                            "epoch": int(r["epoch"]),
                            "row": int(r["_row"]),
                            "reason": str(r[EXCLUDED]),
                        }
                        for r in left_out.to_dict("records")
                    ]
                }
                if len(left_out)
                else {}
            ),
        },
    )

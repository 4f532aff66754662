"""Inspect eval logs -> one tidy frame, cached beside the logs.

One row per model x task x sample x epoch (for the audit: model x instrument x condition x
item x epoch). Columns (the contract every analysis module writes against):

  model, variant, model_name, model_args, generate_config (identity: `analysis.identity`),
  kind, task, instrument, condition, item_id, sample_id, epoch, status, letter,
  answer_mode, temperature (from the effective generate config), log_file, created, non_ordinal (the WD treatment), error, rule, text_status, text_letter,
  covered_mass, probs, every key of the score value dict (ideology, typology, wd_dem, ...)
  and every key of the sample metadata not already a column (direction, axis, options,
  positions, benchmarks, item_text, item_partisan_gap, ...).

`kind` is the task metadata key `political_sycophancy`; logs without it are ignored and
listed in the notes. Both score contracts give the same columns: the old one keeps status,
letter and string labels (closer, ...) in `Score.value`; the new one keeps numbers only there
(with `answered`/`refused` indicators, dropped as redundant with `status`) and status,
letter and labels in `Score.metadata` (the letter also as `Score.answer`). Samples are read from their summaries; a sample whose summary lost a
needed value (Inspect thins metadata over 1 kB) is read from its full record.
The `.eval` zips are read directly (header and sample summaries as JSON, about ten times
faster than Inspect's validating reader); `.json` logs, and `.eval` zips whose layout is not
the expected one (no header, sample members without summaries, a member present twice,
which readers may resolve to either copy), go through Inspect's public
`read_eval_log`, with a note: a log is read the way Inspect reads it.
The logs are those Inspect lists (regular files; symbolic links and FIFOs are not followed
nor opened); what else stands under the folder (a linked sub-folder or log, a FIFO) is
named in the notes. A value that cannot be read as a number (`logs.values`) leaves its
sample out, or for a header its log, counted and named in the notes; an import-responses
that did not finish is named too (`design.unfinished_imports`).
A cell sampled by several true re-runs (same model identity, variant, answer mode, task,
sample and epoch) counts once: the latest sample that did not fail wins; runs under other
model args or generate configs are kept apart and counted in the notes. Each log's rows are cached under `<log dir>/.political-sycophancy-cache/`
keyed by the file's name, size and modification time, so unchanged logs are not read again;
the cache is data only (Parquet and JSON, validated on read: `analysis.cache`).
"""

from __future__ import annotations

import json
import os
import re
import stat
import time
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core.declare import task_label
from ..core.errors import InputError
from ..core.io import MAX_INPUT_BYTES, file_kind
from ..core.zipped import zstd_zips
from .cache import CACHE_DIR, Entry, FrameCache, encode_rows, rows_meta
from .design import design_notes, design_table, eval_set_tasks, planned, task_id_of_file, unfinished_imports
from .identity import identity_notes, label_identities, temperature_of
from .provenance import provenance_table
from .values import NAMED, exclusion_note, header_problem, sample_problem

# Bump when the row layout (or what the cache index records per log) changes, so old caches are not reused.
SCHEMA_VERSION = 8
KIND_KEY = "political_sycophancy"
THINNED = "Key removed from summary (> 1k)"

BASE_COLUMNS = [
    "model",
    "variant",
    "model_name",
    "model_args",
    "generate_config",
    "kind",
    "task",
    "instrument",
    "condition",
    "item_id",
    "sample_id",
    "epoch",
    "status",
    "letter",
    "answer_mode",
    "temperature",
    "log_file",
    "created",
    "non_ordinal",
    "error",
    "rule",
    "text_status",
    "text_letter",
    "covered_mass",
    "probs",
]
# A cell: the same sample of the same task run on the same model the same way (model =
# name + model args, variant = generate config: see `analysis.identity`).
CELL_KEY = ["model", "variant", "kind", "task", "condition", "answer_mode", "sample_id", "epoch"]
# Score metadata about how the answer was read (old and new contract alike): frame columns
# only through BASE_COLUMNS (rule, text_status, ...), never as labels of their own.
READING_METADATA = frozenset(
    {
        "mode", "rule", "text_status", "text_letter", "probs", "logprob_probs", "covered_mass", "logprob_p_plus",
        "expected_rule", "own_rule", "rating_rule", "dem_preferred", "rep_preferred", "reasoning",
        "categories_matched", "grader_reply", "grader_text", "stated_confidence", "label_probs", "threshold",
    }
)
# Numeric indicators of the new contract, redundant with `status`.
INDICATORS = ("answered", "refused")
# Sample metadata whose loss in the summaries forces a full read.
NEEDED_METADATA = ("options", "positions", "benchmarks", "direction", "item_id", "condition", "instrument")

Progress = Callable[[str], None]


@dataclass
class FrameLoad:
    """The frame and what happened while reading it."""

    frame: pd.DataFrame
    files: int = 0
    read: int = 0
    cached: int = 0
    ignored: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)
    duplicates: int = 0
    design: pd.DataFrame = field(default_factory=pd.DataFrame)
    models_split: int = 0
    variants: int = 0
    full_reads: int = 0
    fallbacks: list[str] = field(default_factory=list)
    excluded: int = 0
    skipped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class _Interner:
    """Shares equal list/dict values (options, benchmarks, point-mass probs) between rows."""

    def __init__(self) -> None:
        self._seen: dict[Any, Any] = {}

    def __call__(self, value: Any) -> Any:
        key = _freeze(value)
        if key is None:
            return value
        return self._seen.setdefault(key, value)


def _freeze(value: Any) -> Any:
    if isinstance(value, list):
        try:
            return ("l", tuple(_freeze(v) if isinstance(v, (list, dict)) else v for v in value))
        except TypeError:
            return None
    if isinstance(value, dict):
        try:
            return ("d", tuple((k, _freeze(v) if isinstance(v, (list, dict)) else v) for k, v in value.items()))
        except TypeError:
            return None
    return None


# Inspect's rule for which files of a folder are logs (`inspect_ai.log._file.is_log_file`):
# every `.eval` file, and `.json` files whose names start with a full ISO timestamp.
LOG_JSON_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}[:-]\d{2}[:-]\d{2}.*\.json$")


def list_logs(log_dir: Path) -> list[tuple[Path, int, float]]:
    """Log files (path, size, mtime) under `log_dir`, as Inspect's `list_eval_logs` lists
    them: regular files only (no symbolic link followed: `skipped_entries` names them),
    hidden folders included, our cache folder left out. Walked here rather than through
    Inspect, whose import costs about 2.5 s that a run served by the frame cache need not
    pay (tests/test_logs_listing.py checks both list the same files)."""
    out = []
    stack = [Path(os.path.abspath(log_dir))]  # absolute, as Inspect names them
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except FileNotFoundError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if entry.name != CACHE_DIR:
                    stack.append(Path(entry.path))
            elif entry.is_file(follow_symlinks=False) and (entry.name.endswith(".eval") or LOG_JSON_NAME.match(entry.name)):
                st = entry.stat(follow_symlinks=False)
                out.append((Path(entry.path), st.st_size, st.st_mtime))
    return sorted(out)


def _describe(path: Path, st: os.stat_result) -> str:
    """What a non-regular entry is, in words (a link says what it points to)."""
    if not stat.S_ISLNK(st.st_mode):
        return file_kind(st.st_mode)
    try:
        target = path.stat()
    except OSError:
        return "a broken symbolic link"
    if stat.S_ISDIR(target.st_mode):
        return "a symbolic link to a folder"
    return "a symbolic link to a file" if stat.S_ISREG(target.st_mode) else f"a symbolic link to {file_kind(target.st_mode)}"


def skipped_entries(log_dir: Path) -> list[str]:
    """The entries under `log_dir` that neither Inspect's listing nor the analysis reads:
    symbolic links (to a folder, a log or a device) and files that are not regular (FIFOs,
    devices, sockets), each as `relative path (what it is)`. Links are not followed: a
    link can lead out of the folder, to a device, or round in a loop."""
    out: list[str] = []
    stack = [log_dir]
    while stack:
        folder = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            path = Path(entry.path)
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(st.st_mode):
                if entry.name != CACHE_DIR:
                    stack.append(path)
            elif not stat.S_ISREG(st.st_mode):
                out.append(f"{path.relative_to(log_dir)} ({_describe(path, st)})")
    return sorted(out)


def _answer_mode(header: dict) -> str | None:
    ev = header.get("eval") or {}
    mode = (ev.get("metadata") or {}).get("answer_mode") or (ev.get("task_args") or {}).get("answer")
    return str(mode) if mode else None


def _put(into: dict[str, Any], key: str, value: Any, scorer: str) -> None:
    """A key that two scorers both set keeps the first value; the second goes under `<scorer>.<key>`."""
    into[key if key not in into else f"{scorer}.{key}"] = value


def _score_parts(scores: dict | None) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], Any]:
    """Merged score values, the first score's metadata, the merged string labels of the
    score metadata (new contract: status, letter, closer, ...; reading details such as the
    rule or the probabilities excluded) and the first `Score.answer`."""
    values: dict[str, Any] = {}
    meta: dict[str, Any] = {}
    labels: dict[str, Any] = {}
    answer = None
    for name, score in (scores or {}).items():
        value = score.get("value")
        if isinstance(value, dict):
            for k, v in value.items():
                _put(values, k, v, name)
        else:
            values[name if name not in values else f"{name}.value"] = value
        smeta = score.get("metadata") if isinstance(score.get("metadata"), dict) else {}
        for k, v in smeta.items():
            if k not in READING_METADATA:
                _put(labels, k, v, name)
        if not meta and smeta:
            meta = smeta
        if answer is None:
            answer = score.get("answer")
    return values, meta, labels, answer


def _status_and_letter(values: dict[str, Any], labels: dict[str, Any], answer: Any) -> tuple[Any, Any]:
    """Status and letter of a score under either contract, removed from `values` and
    `labels`: the old one keeps them in the value dict, the new one in the metadata (the
    letter also as `Score.answer`) with numeric `answered`/`refused` indicators in the value."""
    status = values.pop("status", None)
    if status is None:
        status = labels.pop("status", None)
    labels.pop("status", None)
    if "letter" in values:
        letter = values.pop("letter")
    elif "letter" in labels:
        letter = labels.pop("letter")
    else:
        letter = answer
    labels.pop("letter", None)
    answered, refused = (values.pop(k, None) for k in INDICATORS)
    if status is None and answered is not None:
        status = "answered" if answered == 1 else "refusal" if refused == 1 else "unparsed"
    return status, letter


def _thinned(sample: dict) -> bool:
    meta = sample.get("metadata") or {}
    if any(meta.get(k) == THINNED for k in NEEDED_METADATA):
        return True
    for score in (sample.get("scores") or {}).values():
        if isinstance(score.get("metadata"), dict) and score["metadata"].get("probs") == THINNED:
            return True
    return False


def _zip_json(archive: zipfile.ZipFile, name: str) -> Any:
    return json.loads(archive.read(name))


class UnexpectedLayout(Exception):
    """An .eval zip not laid out as the fast reader expects (read with Inspect's reader instead)."""


class BadLog(Exception):
    """A log left out whole: its header holds a value out of range (`values.header_problem`)
    or a member too large to unpack."""


def _journal_summaries(archive: zipfile.ZipFile, names: set[str]) -> list[dict]:
    journal = sorted(
        (n for n in names if n.startswith("_journal/summaries/")),
        key=lambda n: int(Path(n).stem) if Path(n).stem.isdigit() else 0,
    )
    latest: dict[tuple, dict] = {}
    for name in journal:
        for summary in _zip_json(archive, name):
            latest[(str(summary.get("id")), summary.get("epoch"))] = summary
    return list(latest.values())


def _read_eval_zip(path: Path) -> tuple[dict, list[dict]]:
    """Header and sample summaries straight from the `.eval` zip (header.json or the
    journal's start.json; summaries.json or the journal's summaries while a run is
    going). Samples whose summaries were thinned are read from their own member. Raises
    UnexpectedLayout when the zip holds no header, or sample members no summary covers;
    BadLog when a member would unpack past `MAX_INPUT_BYTES` (a zip bomb is not unpacked,
    by this reader nor Inspect's)."""
    with zipfile.ZipFile(path) as archive:
        big = next((i for i in archive.infolist() if i.file_size > MAX_INPUT_BYTES), None)
        if big is not None:
            raise BadLog(f"zip member {big.filename[:80]} would unpack to {big.file_size:,} bytes, more than {MAX_INPUT_BYTES:,}")
        # a name written twice (a hand-edited header, a second summaries.json, a re-logged
        # sample) may resolve to either copy depending on the reader: Inspect's decides
        listed = Counter(archive.namelist())
        twice = sorted(n for n, k in listed.items() if k > 1)
        if twice:
            raise UnexpectedLayout(f"duplicate zip member(s) {', '.join(twice[:5])}" + (" ..." if len(twice) > 5 else ""))
        names = set(listed)
        header_name = next((n for n in ("header.json", "_journal/start.json") if n in names), None)
        if header_name is None:
            raise UnexpectedLayout("no header.json or _journal/start.json")
        header = _zip_json(archive, header_name)
        summaries = _zip_json(archive, "summaries.json") if "summaries.json" in names else _journal_summaries(archive, names)
        if not isinstance(header, dict) or not isinstance(summaries, list) or not all(isinstance(s, dict) for s in summaries):
            raise UnexpectedLayout("header or summaries of an unknown shape")
        members = {n for n in names if n.startswith("samples/") and n.endswith(".json")}
        uncovered = members - {f"samples/{s.get('id')}_epoch_{s.get('epoch')}.json" for s in summaries}
        if uncovered:
            raise UnexpectedLayout(f"{len(uncovered)} sample member(s) without a summary")
        full = 0
        for i, summary in enumerate(summaries):
            if _thinned(summary):
                member = f"samples/{summary['id']}_epoch_{summary['epoch']}.json"
                if member not in names:
                    raise UnexpectedLayout(f"thinned summary without its sample member {member}")
                sample = _zip_json(archive, member)
                summaries[i] = {**summary, "metadata": sample.get("metadata"), "scores": sample.get("scores")}
                full += 1
    header["_full_reads"] = full
    return header, summaries


def _read_with_inspect(path: Path, *, full: bool = False) -> tuple[dict, list[dict]]:
    """Header and samples through Inspect's public readers (`.json` logs, and `.eval` zips
    the fast reader does not understand: `full` reads every sample, not the summaries)."""
    from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries

    log = read_eval_log(str(path), header_only=not full, exclude_fields={"events", "messages", "attachments", "store"})
    header: dict[str, Any] = {"eval": log.eval.model_dump(mode="json"), "plan": log.plan.model_dump(mode="json") if log.plan else {}, "status": log.status}
    if not full:
        summaries = [s.model_dump(mode="json") for s in read_eval_log_sample_summaries(str(path))]
        full = any(_thinned(s) for s in summaries)
        if full:
            log = read_eval_log(str(path), exclude_fields={"events", "messages", "attachments", "store"})
    if full:
        summaries = [s.model_dump(mode="json", include={"id", "epoch", "metadata", "scores", "error"}) for s in log.samples or []]
    header["_full_reads"] = int(full)
    return header, summaries


def _read_log(path: Path) -> tuple[dict, list[dict]]:
    """Header and samples of a log: `.eval` zips directly when laid out as expected, else
    (and `.json` logs) through Inspect's public reader; `header["_fallback"]` says why."""
    if path.suffix != ".eval":
        return _read_with_inspect(path)
    try:
        return _read_eval_zip(path)
    except (UnexpectedLayout, KeyError, ValueError, TypeError) as ex:
        header, summaries = _read_with_inspect(path, full=True)
        header["_fallback"] = f"{path.name}: {ex}"
        return header, summaries


@dataclass
class LogRows:
    """What one log gave: its rows, the reason it was ignored (or None), whether samples were
    read in full, its task id, what it was meant to hold (`design.planned`) and why it was
    read through Inspect's reader (or None)."""

    rows: list[dict]
    ignored: str | None
    full: bool
    task_id: str | None
    plan: dict | None
    fallback: str | None
    excluded: int = 0
    exclusions: list[str] = field(default_factory=list)


def _rows_of_log(path: Path, intern: _Interner) -> LogRows:
    """Rows of one log (see `LogRows`)."""
    zstd_zips()

    header, samples = _read_log(path)
    ev = header.get("eval") or {}
    meta = ev.get("metadata") or {}
    kind = meta.get(KIND_KEY)
    task_id = ev.get("task_id") if isinstance(ev.get("task_id"), str) else None
    if not kind:
        ignored = f"{path.name} (task {ev.get('task')!r} has no '{KIND_KEY}' metadata)"
        return LogRows([], ignored, False, task_id, None, header.get("_fallback"))
    problem = header_problem(header)
    if problem:
        raise BadLog(problem)
    plan = planned(header, str(kind), _answer_mode(header))
    base = {
        "model": plan["model_name"],
        "model_name": plan["model_name"],
        "model_args": plan["model_args"],
        "generate_config": plan["generate_config"],
        "kind": str(kind),
        "task": task_label(ev.get("task"), meta, ev.get("task_registry_name")),
        "phase": meta.get("phase"),
        "answer_mode": plan["answer_mode"],
        "temperature": temperature_of(json.loads(plan["generate_config"])),
        "log_file": str(path),
        "created": str(ev.get("created")),
        "non_ordinal": (ev.get("task_args") or {}).get("non_ordinal") or "keep",
    }
    rows = []
    excluded: list[str] = []
    for s in samples:
        error = s.get("error")
        if isinstance(error, dict):
            error = error.get("message") or "error"
        if s.get("completed") is False and not error and not s.get("scores"):
            continue  # still running when the log was written
        problem = sample_problem(s)
        if problem:
            excluded.append(f"sample {str(s.get('id'))[:40]} epoch {str(s.get('epoch'))[:20]}: {problem}")
            continue
        values, smeta, labels, answer = _score_parts(s.get("scores"))
        sm = s.get("metadata") or {}
        status, letter = _status_and_letter(values, labels, answer)
        if error or status is None:
            status = "error"
        row = dict(base)
        row.update(
            instrument=sm.get("instrument", meta.get("instrument")),
            condition=sm.get("condition", meta.get("condition")),
            item_id=str(sm.get("item_id", s.get("id"))),
            sample_id=str(s.get("id")),
            epoch=int(s.get("epoch") or 1),
            status=str(status),
            letter=letter,
            error=(error or ("not scored" if not s.get("scores") else None)),
            rule=smeta.get("rule"),
            text_status=smeta.get("text_status"),
            text_letter=smeta.get("text_letter"),
            covered_mass=smeta.get("covered_mass"),
            probs=intern(smeta.get("probs")) if smeta.get("probs") is not None else None,
        )
        if row["answer_mode"] is None:
            row["answer_mode"] = smeta.get("mode") or "letter"
        for k, v in (*values.items(), *labels.items()):
            if k not in row:
                row[k] = v
        for k, v in sm.items():
            if k not in row:
                row[k] = intern(v) if isinstance(v, (list, dict)) else v
        rows.append(row)
    return LogRows(rows, None, bool(header.get("_full_reads")), task_id, plan, header.get("_fallback"), len(excluded), excluded[:NAMED])


def deduplicate(frame: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """Keep one row per cell (`CELL_KEY`): the latest row that did not fail, else the latest."""
    if frame.empty:
        return frame, 0
    if not frame.duplicated(subset=CELL_KEY).any():  # the usual case: no copy of the frame
        return frame, 0
    ordered = frame[[*CELL_KEY, "created", "log_file"]].assign(
        _ok=(frame["status"] != "error").astype(int).to_numpy(), _at=np.arange(len(frame))
    ).sort_values(["_ok", "created", "log_file"], kind="stable")
    kept = np.sort(ordered["_at"].to_numpy()[~ordered.duplicated(subset=CELL_KEY, keep="last").to_numpy()])
    return frame.iloc[kept].reset_index(drop=True), len(frame) - len(kept)


# Logs to read before the reading is spread over processes (forking costs about 0.1 s).
PARALLEL_FROM = 8


def _entry_of_log(job: tuple[str, Path, int, float, int | None]) -> tuple[str, Entry | str]:
    """One log's cache entry, or why it cannot be read (one line); with a cache `version`,
    its rows file's bytes too, made here (in a reading process) rather than by the one
    process that saves the cache."""
    name, path, size, mtime, version = job
    try:
        got = _rows_of_log(path, _Interner())
    except Exception as ex:
        reason = str(ex).splitlines()[0][:200] if str(ex) else ""
        return name, reason if isinstance(ex, BadLog) else f"{type(ex).__name__}: {reason}"
    rows = None if got.ignored else pd.DataFrame(got.rows)
    entry = Entry(size, mtime, got.ignored, rows, got.task_id, got.plan,
                  fallback=got.fallback, full=got.full, excluded=got.excluded, exclusions=got.exclusions)
    if version is not None and rows is not None:
        try:
            entry.encoded, entry.n_rows = encode_rows(rows, rows_meta(version, name, entry)), len(rows)
            entry.rows = None  # the parent decodes them from the bytes (`FrameCache.decode_fresh`)
        except (TypeError, ValueError):  # left to the cache's save, which notes why it cannot write it
            entry.encoded = None
    return name, entry


def _read_entries(todo: list[tuple[str, Path, int, float, int | None]]) -> Iterator[tuple[str, Entry | str]]:
    """`_entry_of_log` of each log, in order: in forked processes, one per CPU, when there
    are `PARALLEL_FROM` logs or more and the platform forks (reading is CPU-bound JSON
    parsing; each process returns the log's rows as a frame, or as their frame-cache bytes
    when there is a cache), else here."""
    import multiprocessing

    n = min(os.cpu_count() or 1, len(todo))
    if n < 2 or len(todo) < PARALLEL_FROM or "fork" not in multiprocessing.get_all_start_methods():
        yield from map(_entry_of_log, todo)
        return
    with multiprocessing.get_context("fork").Pool(n) as pool:
        yield from pool.imap(_entry_of_log, todo, chunksize=max(1, min(8, len(todo) // (4 * n))))


def read_frame(
    log_dir: str | Path,
    *,
    cache: bool = True,
    progress: Progress | None = None,
) -> FrameLoad:
    """Read every log under `log_dir` into the tidy frame (see the module docstring)."""
    log_dir = Path(log_dir).resolve()
    if not log_dir.exists():
        raise InputError("log directory not found", file=log_dir)
    if not log_dir.is_dir():
        raise InputError("not a directory (give the directory that holds the .eval logs)", file=log_dir)
    files = list_logs(log_dir)
    skipped = skipped_entries(log_dir)
    if not files:
        raise InputError(
            "no Inspect logs (.eval or .json) found" + (f" (skipped, as Inspect does: {'; '.join(skipped[:5])})" if skipped else ""),
            file=log_dir,
        )
    store = FrameCache(log_dir, SCHEMA_VERSION) if cache else None
    if store:
        store.open()
    load = FrameLoad(frame=pd.DataFrame(), files=len(files), skipped=skipped)
    entries: dict[str, Entry] = {}
    fresh: set[str] = set()
    started = time.perf_counter()
    todo = []
    for path, size, mtime in files:
        name = str(path.relative_to(log_dir))
        old = store.get(name, size, mtime) if store else None
        if old is not None:
            entries[name] = old
            load.cached += 1
        else:
            entries[name] = None  # type: ignore[assignment]  # read below, in the listing's order
            todo.append((name, path, size, mtime, store.version if store and store.usable else None))
    if store:  # the cached rows, decoded at once; a log whose rows do not decode is read again
        listed = {str(path.relative_to(log_dir)): (path, size, mtime) for path, size, mtime in files}
        for name in store.decode(entries):
            entries[name] = None  # type: ignore[assignment]
            load.cached -= 1
            todo.append((name, *listed[name], store.version if store.usable else None))
    jobs = {job[0]: job for job in todo}
    for i, (name, got) in enumerate(_read_entries(todo), start=1):
        # rows sent as their cache bytes are decoded here; should they not decode, read again
        if isinstance(got, Entry) and got.rows is None and got.encoded is not None and not (store and store.decode_fresh(name, got)):
            _, path, size, mtime, _ = jobs[name]  # the store noted why; the log is read here again
            got = _entry_of_log((name, path, size, mtime, None))[1]
        if isinstance(got, str):  # a damaged file must not hide the others; it is listed
            del entries[name]
            load.unreadable.append(f"{name} ({got})")
        else:
            load.read += 1
            entries[name] = got
            fresh.add(name)
        if progress and (i % 25 == 0):
            progress(f"  read {i}/{len(todo)} logs ({time.perf_counter() - started:.1f}s)")
    if store and (fresh or set(entries) != set(store.index)):
        store.save(entries, fresh)
    if store:
        load.notes.extend(store.notes)
    # what each log's reading noted, whether it was read now or its rows came from the cache
    load.ignored = [e.ignored for e in entries.values() if e.ignored]
    load.fallbacks = [e.fallback for e in entries.values() if e.fallback]
    load.full_reads = sum(int(e.full) for e in entries.values())
    load.excluded = sum(e.excluded for e in entries.values())
    parts = [e.rows for e in entries.values() if e.rows is not None and len(e.rows)]
    for e in entries.values():  # the frame below holds the rows: not kept twice
        e.rows = None
    if not parts:
        reasons = load.ignored + [f"unreadable: {u}" for u in load.unreadable]
        raise InputError(
            f"none of the {len(files)} logs holds samples of a political-sycophancy task "
            f"(task metadata '{KIND_KEY}'): " + "; ".join(reasons[:5]) + (" ..." if len(reasons) > 5 else ""),
            file=log_dir,
        )
    frame = pd.concat(parts, ignore_index=True, sort=False)
    del parts
    for col in BASE_COLUMNS:
        if col not in frame.columns:
            frame[col] = None
    plans = pd.DataFrame([e.design for e in entries.values() if e.design])
    frame, plans, load.models_split, load.variants = label_identities(frame, plans)
    frame, load.duplicates = deduplicate(frame)
    known = {e.task_id for e in entries.values() if e.task_id} | {t for p, _, _ in files if (t := task_id_of_file(p.name))}
    without_log, manifest_notes = eval_set_tasks(log_dir, known, CACHE_DIR)
    load.design = design_table(frame, plans, without_log)
    ordered = BASE_COLUMNS + [c for c in frame.columns if c not in BASE_COLUMNS]
    load.frame = frame[ordered]
    if load.ignored:
        load.notes.append(f"ignored {len(load.ignored)} log(s) of other tasks: " + "; ".join(load.ignored[:5]))
    if load.unreadable:
        load.notes.append(f"could not read {len(load.unreadable)} log(s): " + "; ".join(load.unreadable[:5]))
    if load.skipped:
        load.notes.append(
            f"skipped {len(load.skipped)} entr{'y' if len(load.skipped) == 1 else 'ies'} under the log folder that are not regular "
            "files or folders (Inspect lists neither; copy a log in to have it read): " + "; ".join(load.skipped[:5])
            + (" ..." if len(load.skipped) > 5 else "")
        )
    excluded = exclusion_note([(name, e.excluded, e.exclusions) for name, e in entries.items() if e.excluded])
    if excluded:
        load.notes.append(excluded)
    if load.duplicates:
        load.notes.append(
            f"{load.duplicates} duplicate sample(s) from re-runs of the same cell dropped (same model, model args, "
            "generate config, answer mode, task, sample and epoch; the latest successful sample kept)"
        )
    load.notes.extend(identity_notes(load.frame, load.models_split, load.variants))
    load.notes.extend(design_notes(load.design, load.excluded) + manifest_notes + unfinished_imports(log_dir, CACHE_DIR))
    if load.full_reads:
        load.notes.append(f"{load.full_reads} log(s) read in full because their sample summaries were thinned")
    if load.fallbacks:
        load.notes.append(
            f"{len(load.fallbacks)} .eval log(s) not laid out as expected were read with Inspect's read_eval_log: "
            + "; ".join(load.fallbacks[:5])
        )
    load.frame.attrs["notes"] = list(load.notes)
    # JSON text, not a frame: pandas deep-copies attrs on every derived frame.
    load.frame.attrs["design"] = load.design.to_json(orient="records")
    provenance = provenance_table(e.design for e in entries.values() if e.design)
    load.frame.attrs["provenance"] = provenance.to_json(orient="records")
    return load


def load_frame(log_dir: str | Path, *, cache: bool = True, progress: Progress | None = None) -> pd.DataFrame:
    """The tidy frame of a log directory (notes on ignored logs and dropped duplicates in
    `frame.attrs["notes"]`). Raises `InputError` when there is nothing to analyze."""
    return read_frame(log_dir, cache=cache, progress=progress).frame

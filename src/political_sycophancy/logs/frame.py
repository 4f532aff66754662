"""Inspect eval logs -> one tidy frame, cached beside the logs.

One row per model x task x sample x epoch (for the audit: model x instrument x condition x
item x epoch). Columns (the contract every analysis module writes against):

  model, variant, model_name, model_args, generate_config (identity: `analysis.identity`),
  kind, task, instrument, condition, item_id, sample_id, epoch, status, letter,
  answer_mode, temperature (from the effective generate config), log_file, created,
  non_ordinal (the WD treatment), error, rule, text_status, text_letter,
  covered_mass, probs, every key of the score value dict (ideology, typology, wd_dem, ...)
  and every key of the sample metadata not already a column (direction, axis, options,
  positions, benchmarks, item_text, item_partisan_gap, ...).

Reading, by concern: the folder's logs come from one bounded walk (`logs.listing`: no link
followed, what else stands under the folder named in the notes); each log's rows from
`logs.log_reader` (what a log holds, checked against the package's contracts: a sample that
breaks them is left out, counted and named), in forked processes when there are many
(`core.forked.forked_map`: a reader that dies stops the analysis in one line); each log's
rows are cached under `<log dir>/.political-sycophancy-cache/` keyed by the file's name,
size and modification time, so unchanged logs are not read again (the cache is data only,
Parquet and JSON, validated on read: `logs.cache`); then the frame is assembled here.
A cell sampled by several true re-runs (same model identity, variant, answer mode, task,
sample and epoch) counts once: the latest sample that did not fail wins; runs under other
model args or generate configs are kept apart and counted in the notes. Runs of different
sources are never merged: logs imported from two versions of one response file, or cells
answered by imports of different files (or by an import and a live run), are refused in
one line that says how to analyse them (`mixed_sources`). An import-responses that did not
finish is named in the notes (`design.unfinished_imports`).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.folders import FolderEntry
from ..core.forked import forked_map
from .cache import CACHE_DIR, Entry, FrameCache, encode_rows, rows_meta

__all__ = [
    "BASE_COLUMNS",
    "CACHE_DIR",
    "CELL_KEY",
    "FrameLoad",
    "deduplicate",
    "kept_rows",
    "load_frame",
    "mixed_sources",
    "read_frame",
]
from .design import design_notes, design_table, eval_set_tasks, task_id_of_file, unfinished_imports
from .identity import identity_notes, label_identities
from .listing import Listing, folder_of, list_folder, log_folder, walk_notes
from .log_reader import KIND_KEY, BadLog, Interner, rows_of_log
from .provenance import provenance_table
from .reruns import rerun_rows, rerun_versions
from .values import exclusion_note, kind_contracts

# Bump when the row layout (or what the cache index records per log) changes, so old caches are not reused.
SCHEMA_VERSION = 9

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

Progress = Callable[[str], None]
Job = tuple[str, Path, int, float, "int | None"]


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
    reruns: dict[str, Any] = field(default_factory=dict)
    full_reads: int = 0
    fallbacks: list[str] = field(default_factory=list)
    excluded: int = 0
    skipped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def kept_rows(frame: pd.DataFrame) -> np.ndarray:
    """Which rows `deduplicate` keeps: per cell (`CELL_KEY`), the latest that did not fail, else the latest.

    "Latest" orders a cell's rows by their log's creation time, then log file. The one
    statement of the rule: `logs.reruns` reads the baseline run from it.
    """
    keep = np.ones(len(frame), dtype=bool)
    if frame.empty or not frame.duplicated(subset=CELL_KEY).any():  # the usual case: no copy of the frame
        return keep
    ordered = (
        frame[[*CELL_KEY, "created", "log_file"]]
        .assign(_ok=(frame["status"] != "error").astype(int).to_numpy(), _at=np.arange(len(frame)))
        .sort_values(["_ok", "created", "log_file"], kind="stable")
    )
    keep[ordered["_at"].to_numpy()[ordered.duplicated(subset=CELL_KEY, keep="last").to_numpy()]] = False
    return keep


def deduplicate(frame: pd.DataFrame, keep: np.ndarray | None = None) -> tuple[pd.DataFrame, int]:
    """Keep one row per cell (`kept_rows`, or `keep` when already computed) and how many were dropped."""
    keep = kept_rows(frame) if keep is None else keep
    if keep.all():
        return frame, 0
    return frame[keep].reset_index(drop=True), int((~keep).sum())


def mixed_sources(frame: pd.DataFrame, sources: dict[str, tuple[str | None, str | None]], shown: str) -> str | None:
    """Why the frame's rows cannot be analysed together, or None.

    Logs imported from two versions of one response file (the same path, other contents: a
    `--replace-changed` re-import that did not finish), or cells (`CELL_KEY`) answered by
    imports of different files or by an import and a live run, which are not re-runs of one
    another. `sources`: each log file's (imported from, its SHA-256), (None, None) for a
    live run; `shown`: the log folder as the user named it.
    """
    if problem := _versions(sources, shown):
        return problem
    repeated = frame.duplicated(subset=CELL_KEY, keep=False).to_numpy()
    if not repeated.any():
        return None
    rows = frame.loc[repeated, [*CELL_KEY, "log_file"]]
    source = rows["log_file"].map(lambda f: sources.get(f, (None, None))[1] or "live").to_numpy()
    per_cell = pd.Series(source).groupby([rows[c].astype(str).to_numpy() for c in CELL_KEY]).nunique()
    mixed = int((per_cell > 1).sum())
    if not mixed:
        return None
    involved = sorted(set(source))
    files = {
        sha: next(Path(p).name for p, s in sources.values() if s == sha and p) for sha in involved if sha != "live"
    }
    named = [f"{files[sha]} (sha256 {sha[:8]})" for sha in involved if sha != "live"] + (
        ["live runs"] if "live" in involved else []
    )
    folders = sorted({folder_of([f for f, s in sources.items() if (s[1] or "live") == sha], shown) for sha in involved})
    return (
        f"{shown}: {mixed:,} cell(s) (model x task x sample x epoch) are answered by imports of {len(files)} "
        f"different files{' and live runs' if 'live' in involved else ''} ({', '.join(named)}), which are not re-runs "
        f"of one another, so neither is dropped for the other; analyse each on its own: {', '.join(folders)}"
    )


def _versions(sources: dict[str, tuple[str | None, str | None]], shown: str) -> str | None:
    """Why logs imported from two versions of one response file cannot be read together, or None."""
    versions: dict[str, set[str]] = {}
    for path, sha in sources.values():
        if path is not None and sha is not None:
            versions.setdefault(path, set()).add(sha)
    for path, shas in sorted(versions.items()):
        if len(shas) > 1:
            return (
                f"{shown}: the logs hold {len(shas)} versions of {path} (imported from files with different "
                "contents: an import-responses --replace-changed that did not finish leaves the old and the new logs "
                "side by side); run it again to finish it, or analyse each version's logs in a folder of its own"
            )
    return None


# Logs to read before the reading is spread over processes (forking costs about 0.1 s).
PARALLEL_FROM = 8


def _entry_of_log(job: Job) -> tuple[str, Entry | str]:
    """One log's cache entry, or why it cannot be read (one line).

    With a cache `version`, its rows file's bytes too, made here (in a reading process)
    rather than by the one process that saves the cache.
    """
    name, path, size, mtime, version = job
    try:
        got = rows_of_log(path, Interner(), kind_contracts())
    except Exception as ex:
        reason = str(ex).splitlines()[0][:200] if str(ex) else ""
        return name, reason if isinstance(ex, BadLog) else f"{type(ex).__name__}: {reason}"
    rows = None if got.ignored else pd.DataFrame(got.rows)
    entry = Entry(
        size,
        mtime,
        got.ignored,
        rows,
        got.task_id,
        got.plan,
        fallback=got.fallback,
        full=got.full,
        excluded=got.excluded,
        exclusions=got.exclusions,
    )
    if version is not None and rows is not None:
        try:
            entry.encoded, entry.n_rows = encode_rows(rows, rows_meta(version, name, entry)), len(rows)
            entry.rows = None  # the parent decodes them from the bytes (`FrameCache.decode_fresh`)
        except (TypeError, ValueError):  # left to the cache's save, which notes why it cannot write it
            entry.encoded = None
    return name, entry


def _read_entries(todo: list[Job]) -> Iterator[tuple[str, Entry | str]]:
    """`_entry_of_log` of each log, in order.

    In forked processes, one per CPU, when there are `PARALLEL_FROM` logs or more and the
    platform forks (reading is CPU-bound JSON parsing; each process returns the log's rows
    as a frame, or as their frame-cache bytes when there is a cache), else here.
    """
    import multiprocessing

    n = min(os.cpu_count() or 1, len(todo))
    if n < 2 or len(todo) < PARALLEL_FROM or "fork" not in multiprocessing.get_all_start_methods():
        yield from map(_entry_of_log, todo)
        return
    yield from forked_map(_entry_of_log, todo, n, "reading the logs")


def read_frame(
    log_dir: str | Path,
    *,
    cache: bool = True,
    progress: Progress | None = None,
    entries: list[FolderEntry] | None = None,
) -> FrameLoad:
    """Read every log under `log_dir` into the tidy frame (see the module docstring).

    `entries` is the folder's walk (`core.folders.folder_entries`) when the caller made
    it.
    """
    listing = list_folder(Path(os.path.realpath(log_folder(log_dir))), entries)
    if not listing.logs:
        raise InputError(
            "no Inspect logs (.eval or .json) found"
            + (f" (skipped, as Inspect does: {'; '.join(listing.skipped[:5])})" if listing.skipped else ""),
            file=listing.root,
        )
    store = FrameCache(listing.root, SCHEMA_VERSION) if cache else None
    if store:
        store.open()
    load = FrameLoad(frame=pd.DataFrame(), files=len(listing.logs), skipped=listing.skipped)
    logs = _read_logs(listing, store, load, progress)
    frame, plans = _assembled(logs, load, listing, str(log_dir))
    known = {e.task_id for e in logs.values() if e.task_id} | {
        t for p, _, _ in listing.logs if (t := task_id_of_file(p.name))
    }
    without_log, manifest_notes = eval_set_tasks(listing.manifests, known)
    load.design = design_table(frame, plans, without_log)
    ordered = BASE_COLUMNS + [c for c in frame.columns if c not in BASE_COLUMNS]
    load.frame = frame[ordered]
    load.notes += _notes(load, logs, listing) + design_notes(load.design, load.excluded) + manifest_notes
    load.notes += unfinished_imports(listing.markers) + _reading_notes(load)
    load.frame.attrs["notes"] = list(load.notes)
    # JSON text, not a frame: pandas deep-copies attrs on every derived frame.
    load.frame.attrs["design"] = load.design.to_json(orient="records")
    provenance = provenance_table(e.design for e in logs.values() if e.design)
    load.frame.attrs["provenance"] = provenance.to_json(orient="records")
    if load.reruns:
        load.frame.attrs["reruns"] = json.dumps(load.reruns)
    return load


def _read_logs(
    listing: Listing, store: FrameCache | None, load: FrameLoad, progress: Progress | None
) -> dict[str, Entry]:
    """Each log's entry (relative name -> rows and what its reading noted).

    From the cache when the log is unchanged and its rows decode, else read now (and
    cached); an unreadable log is listed in `load.unreadable` instead.
    """
    logs: dict[str, Entry | None] = {}
    todo: list[Job] = []
    version = store.version if store and store.usable else None
    for path, size, mtime in listing.logs:
        name = str(path.relative_to(listing.root))
        old = store.get(name, size, mtime) if store else None
        logs[name] = old  # None: read below, in the listing's order
        if old is None:
            todo.append((name, path, size, mtime, version))
    if store:  # the cached rows, decoded at once; a log whose rows do not decode is read again
        listed = {str(path.relative_to(listing.root)): (path, size, mtime) for path, size, mtime in listing.logs}
        for name in store.decode(logs):
            logs[name] = None
            todo.append((name, *listed[name], store.version if store.usable else None))
    load.cached = len(listing.logs) - len(todo)
    fresh = _read_todo(todo, logs, store, load, progress)
    read: dict[str, Entry] = {name: entry for name, entry in logs.items() if entry is not None}
    if store and (fresh or set(read) != set(store.index)):
        store.save(read, fresh)
    if store:
        load.notes.extend(store.notes)
    return read


def _read_todo(
    todo: list[Job], logs: dict[str, Entry | None], store: FrameCache | None, load: FrameLoad, progress: Progress | None
) -> set[str]:
    """Read the logs of `todo` into `logs` (in forked processes when many); the names read."""
    fresh: set[str] = set()
    jobs = {job[0]: job for job in todo}
    started = time.perf_counter()
    for i, (name, got) in enumerate(_read_entries(todo), start=1):
        # rows sent as their cache bytes are decoded here; should they not decode, read again
        if (
            isinstance(got, Entry)
            and got.rows is None
            and got.encoded is not None
            and not (store and store.decode_fresh(name, got))
        ):
            _, path, size, mtime, _ = jobs[name]  # the store noted why; the log is read here again
            got = _entry_of_log((name, path, size, mtime, None))[1]
        if isinstance(got, str):  # a damaged file must not hide the others; it is listed
            del logs[name]
            load.unreadable.append(f"{name} ({got})")
        else:
            load.read += 1
            logs[name] = got
            fresh.add(name)
        if progress and (i % 25 == 0):
            progress(f"  read {i}/{len(todo)} logs ({time.perf_counter() - started:.1f}s)")
    return fresh


def _assembled(
    logs: dict[str, Entry], load: FrameLoad, listing: Listing, shown: str
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The logs' rows as one frame (identities labelled, true re-runs dropped) and the logs' design records.

    Refused when no log holds samples or the sources are mixed.
    """
    _tally(load, logs)
    parts = [e.rows for e in logs.values() if e.rows is not None and len(e.rows)]
    for e in logs.values():  # the frame below holds the rows: not kept twice
        e.rows = None
    if not parts:
        reasons = load.ignored + [f"unreadable: {u}" for u in load.unreadable]
        if left_out := exclusion_note([(name, e.excluded, e.exclusions) for name, e in logs.items() if e.excluded]):
            reasons.append(left_out)
        raise InputError(
            f"none of the {len(listing.logs)} log(s) holds samples of a political-sycophancy task "
            f"(task metadata '{KIND_KEY}'): " + "; ".join(reasons[:5]) + (" ..." if len(reasons) > 5 else ""),
            file=listing.root,
        )
    frame = pd.concat(parts, ignore_index=True, sort=False)
    del parts
    for col in BASE_COLUMNS:
        if col not in frame.columns:
            frame[col] = None
    plans = pd.DataFrame([e.design for e in logs.values() if e.design])
    frame, plans, load.models_split, load.variants = label_identities(frame, plans)
    sources = {
        str(listing.root / name): (source["path"], source["sha256"])
        if (source := e.design.get("source"))
        else (None, None)
        for name, e in logs.items()
        if e.design
    }
    if problem := mixed_sources(frame, sources, shown):
        raise InputError(problem)
    keep = kept_rows(frame)
    info, versions = rerun_versions(frame, shown, CELL_KEY, keep)
    frame, load.duplicates = deduplicate(frame, keep)
    if versions:
        load.reruns = rerun_rows(info, versions, frame)
    return frame, plans


def _tally(load: FrameLoad, logs: dict[str, Entry]) -> None:
    """What each log's reading noted, whether it was read now or its rows came from the cache."""
    load.ignored = [e.ignored for e in logs.values() if e.ignored]
    load.fallbacks = [e.fallback for e in logs.values() if e.fallback]
    load.full_reads = sum(int(e.full) for e in logs.values())
    load.excluded = sum(e.excluded for e in logs.values())


def _notes(load: FrameLoad, logs: dict[str, Entry], listing: Listing) -> list[str]:
    """The notes on what was left out.

    Logs ignored or unreadable, entries skipped, samples excluded, duplicates dropped,
    identities kept apart.
    """
    notes = []
    if load.ignored:
        notes.append(f"ignored {len(load.ignored)} log(s) of other tasks: " + "; ".join(load.ignored[:5]))
    if load.unreadable:
        notes.append(f"could not read {len(load.unreadable)} log(s): " + "; ".join(load.unreadable[:5]))
    notes += walk_notes(listing)
    if excluded := exclusion_note([(name, e.excluded, e.exclusions) for name, e in logs.items() if e.excluded]):
        notes.append(excluded)
    if load.duplicates:
        notes.append(
            f"{load.duplicates} duplicate sample(s) from re-runs of the same cell dropped (same model, model args, "
            "generate config, answer mode, task, sample and epoch; the latest successful sample kept)"
            + (
                "; the Headline's decomposition under each run is in table `reruns`"
                if any(row.get("answers") for row in load.reruns.get("rows", []))
                else ""
            )
        )
    return notes + identity_notes(load.frame, load.models_split, load.variants)


def _reading_notes(load: FrameLoad) -> list[str]:
    """The notes on how logs were read: in full (thinned summaries), with Inspect's reader."""
    notes = []
    if load.full_reads:
        notes.append(f"{load.full_reads} log(s) read in full because their sample summaries were thinned")
    if load.fallbacks:
        notes.append(
            f"{len(load.fallbacks)} .eval log(s) not laid out as expected were read with Inspect's read_eval_log: "
            + "; ".join(load.fallbacks[:5])
        )
    return notes


def load_frame(log_dir: str | Path, *, cache: bool = True, progress: Progress | None = None) -> pd.DataFrame:
    """The tidy frame of a log directory (notes on ignored logs and dropped duplicates in `frame.attrs["notes"]`).

    Raises `InputError` when there is nothing to analyze.
    """
    return read_frame(log_dir, cache=cache, progress=progress).frame

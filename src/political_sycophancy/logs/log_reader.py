"""One Inspect log -> its rows of the tidy frame (`logs.frame` assembles them).

`kind` is the task metadata key `political_sycophancy`; logs without it are ignored and
listed in the notes, and so are logs claiming a kind no installed measure declares. Both
score contracts give the same columns: the old one keeps status, letter and string labels
(closer, ...) in `Score.value`; the new one keeps numbers only there (with
`answered`/`refused` indicators, dropped as redundant with `status`) and status, letter
and labels in `Score.metadata` (the letter also as `Score.answer`). Samples are read from
their summaries; a sample whose summary lost a needed value (Inspect thins metadata over
1 kB) is read from its full record.
The `.eval` zips are read directly (header and sample summaries as JSON, about ten times
faster than Inspect's validating reader); `.json` logs, and `.eval` zips whose layout is not
the expected one (no header, sample members without summaries, a member present twice,
which readers may resolve to either copy), go through Inspect's public
`read_eval_log`, with a note: a log is read the way Inspect reads it.
A value that cannot be read as a number, or a sample that breaks the package's score or
metadata contract (`logs.values`), leaves its sample out, or for a header its log, counted
and named in the notes.
"""

from __future__ import annotations

import json
import zipfile
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.declare import task_label
from ..core.io import MAX_INPUT_BYTES
from ..core.zipped import zstd_zips
from .design import planned
from .identity import temperature_of
from .values import NAMED, header_problem, kind_contracts, sample_problem

KIND_KEY = "political_sycophancy"
THINNED = "Key removed from summary (> 1k)"
# Score metadata about how the answer was read (old and new contract alike): frame columns
# only through `logs.frame.BASE_COLUMNS` (rule, text_status, ...), never as labels of their own.
READING_METADATA = frozenset(
    {
        "mode",
        "rule",
        "text_status",
        "text_letter",
        "probs",
        "logprob_probs",
        "covered_mass",
        "logprob_p_plus",
        "expected_rule",
        "own_rule",
        "rating_rule",
        "dem_preferred",
        "rep_preferred",
        "reasoning",
        "categories_matched",
        "grader_reply",
        "grader_text",
        "stated_confidence",
        "label_probs",
        "threshold",
    }
)
# Numeric indicators of the new contract, redundant with `status`.
INDICATORS = ("answered", "refused")
# Sample metadata whose loss in the summaries forces a full read.
NEEDED_METADATA = ("options", "positions", "benchmarks", "direction", "item_id", "condition", "instrument")


class Interner:
    """Shares equal list/dict values (options, benchmarks, point-mass probs) between rows."""

    def __init__(self) -> None:
        self._seen: dict[Any, Any] = {}

    def __call__(self, value: Any) -> Any:
        """The first value seen equal to `value` (`value` itself when it is new or cannot be frozen)."""
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


def _answer_mode(header: dict) -> str | None:
    ev = header.get("eval") or {}
    mode = (ev.get("metadata") or {}).get("answer_mode") or (ev.get("task_args") or {}).get("answer")
    return str(mode) if mode else None


def _put(into: dict[str, Any], key: str, value: Any, scorer: str) -> None:
    """A key that two scorers both set keeps the first value; the second goes under `<scorer>.<key>`."""
    into[key if key not in into else f"{scorer}.{key}"] = value


def _score_parts(scores: dict | None) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], Any]:
    """The scores of a sample merged: values, metadata, string labels and answer.

    Merged score values, the first score's metadata, the merged string labels of the score
    metadata (new contract: status, letter, closer, ...; reading details such as the rule
    or the probabilities excluded) and the first `Score.answer`.
    """
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
    """Status and letter of a score under either contract, removed from `values` and `labels`.

    The old one keeps them in the value dict, the new one in the metadata (the letter also as
    `Score.answer`) with numeric `answered`/`refused` indicators in the value.
    """
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
    """A log left out whole.

    Its header holds a value out of range (`values.header_problem`) or a member too
    large to unpack.
    """


def _journal_summaries(archive: zipfile.ZipFile, names: set[str]) -> list[dict]:
    journal = sorted(
        (n for n in names if n.startswith("_journal/summaries/")),
        key=lambda n: int(Path(n).stem) if Path(n).stem.isdecimal() else 0,
    )
    latest: dict[tuple, dict] = {}
    for name in journal:
        for summary in _zip_json(archive, name):
            latest[(str(summary.get("id")), summary.get("epoch"))] = summary
    return list(latest.values())


def _read_eval_zip(path: Path) -> tuple[dict, list[dict]]:
    """Header and sample summaries straight from the `.eval` zip.

    From header.json or the journal's start.json; summaries.json or the journal's
    summaries while a run is going. Samples whose summaries were thinned are read from
    their own member. Raises UnexpectedLayout when the zip holds no header, or sample
    members no summary covers; BadLog when a member would unpack past `MAX_INPUT_BYTES`
    (a zip bomb is not unpacked, by this reader nor Inspect's).
    """
    with zipfile.ZipFile(path) as archive:
        big = next((i for i in archive.infolist() if i.file_size > MAX_INPUT_BYTES), None)
        if big is not None:
            raise BadLog(
                f"zip member {big.filename[:80]} would unpack to {big.file_size:,} bytes, more than {MAX_INPUT_BYTES:,}"
            )
        # a name written twice (a hand-edited header, a second summaries.json, a re-logged
        # sample) may resolve to either copy depending on the reader: Inspect's decides
        listed = Counter(archive.namelist())
        twice = sorted(n for n, k in listed.items() if k > 1)
        if twice:
            raise UnexpectedLayout(
                f"duplicate zip member(s) {', '.join(twice[:5])}" + (" ..." if len(twice) > 5 else "")
            )
        names = set(listed)
        header_name = next((n for n in ("header.json", "_journal/start.json") if n in names), None)
        if header_name is None:
            raise UnexpectedLayout("no header.json or _journal/start.json")
        header = _zip_json(archive, header_name)
        summaries = (
            _zip_json(archive, "summaries.json") if "summaries.json" in names else _journal_summaries(archive, names)
        )
        if (
            not isinstance(header, dict)
            or not isinstance(summaries, list)
            or not all(isinstance(s, dict) for s in summaries)
        ):
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
    """Header and samples through Inspect's public readers.

    For `.json` logs, and `.eval` zips the fast reader does not understand; `full` reads
    every sample, not the summaries.
    """
    from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries

    log = read_eval_log(str(path), header_only=not full, exclude_fields={"events", "messages", "attachments", "store"})
    header: dict[str, Any] = {
        "eval": log.eval.model_dump(mode="json"),
        "plan": log.plan.model_dump(mode="json") if log.plan else {},
        "status": log.status,
    }
    if not full:
        summaries = [s.model_dump(mode="json") for s in read_eval_log_sample_summaries(str(path))]
        full = any(_thinned(s) for s in summaries)
        if full:
            log = read_eval_log(str(path), exclude_fields={"events", "messages", "attachments", "store"})
    if full:
        summaries = [
            s.model_dump(mode="json", include={"id", "epoch", "metadata", "scores", "error"}) for s in log.samples or []
        ]
    header["_full_reads"] = int(full)
    return header, summaries


def _read_log(path: Path) -> tuple[dict, list[dict]]:
    """Header and samples of a log.

    `.eval` zips directly when laid out as expected, else (and `.json` logs) through
    Inspect's public reader; `header["_fallback"]` says why.
    """
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
    """What one log gave: its rows, and why it was ignored or read through Inspect's reader.

    Its rows, the reason it was ignored (or None), whether samples were read in full, its
    task id, what it was meant to hold (`design.planned`) and why it was read through
    Inspect's reader (or None).
    """

    rows: list[dict]
    ignored: str | None
    full: bool
    task_id: str | None
    plan: dict | None
    fallback: str | None
    excluded: int = 0
    exclusions: list[str] = field(default_factory=list)


def rows_of_log(path: Path, intern: Interner, contracts: Mapping[str, tuple[str, ...]] | None = None) -> LogRows:
    """Rows of one log (see `LogRows`).

    `contracts` gives the sample metadata of each measure kind (`values.kind_contracts`,
    read when not given).
    """
    zstd_zips()

    header, samples = _read_log(path)
    ev = header.get("eval") or {}
    meta = ev.get("metadata") or {}
    kind = meta.get(KIND_KEY)
    task_id = ev.get("task_id") if isinstance(ev.get("task_id"), str) else None
    needed = (kind_contracts() if contracts is None else contracts).get(kind) if isinstance(kind, str) else None
    if not kind or needed is None:  # the log's word that it is ours is checked like any other value
        task = str(ev.get("task"))[:80]
        ignored = (
            f"{path.name} (task {task!r} has no '{KIND_KEY}' metadata)"
            if not kind
            else f"{path.name} (task {task!r} claims measure kind {str(kind)[:80]!r}, "
            "which no installed measure declares)"
        )
        return LogRows([], ignored, False, task_id, None, header.get("_fallback"))
    problem = header_problem(header)
    if problem:
        raise BadLog(problem)
    plan = planned(header, kind, _answer_mode(header))
    base = _log_base(header, path, kind, plan)
    rows = []
    excluded: list[str] = []
    for s in samples:
        error = s.get("error")
        if isinstance(error, dict):
            error = error.get("message") or "error"
        if s.get("completed") is False and not error and not s.get("scores"):
            continue  # still running when the log was written
        problem = sample_problem(s, needed)
        if problem:
            excluded.append(f"sample {str(s.get('id'))[:40]} epoch {str(s.get('epoch'))[:20]}: {problem}")
            continue
        rows.append(_sample_row(s, error, base, meta, intern))
    return LogRows(
        rows,
        None,
        bool(header.get("_full_reads")),
        task_id,
        plan,
        header.get("_fallback"),
        len(excluded),
        excluded[:NAMED],
    )


def _log_base(header: dict, path: Path, kind: str, plan: dict[str, Any]) -> dict[str, Any]:
    """The columns every row of a log shares: its model identity, task and how it ran."""
    ev = header.get("eval") or {}
    meta = ev.get("metadata") or {}
    return {
        "model": plan["model_name"],
        "model_name": plan["model_name"],
        "model_args": plan["model_args"],
        "generate_config": plan["generate_config"],
        "kind": kind,
        "task": task_label(ev.get("task"), meta, ev.get("task_registry_name")),
        "phase": meta.get("phase"),
        "answer_mode": plan["answer_mode"],
        "temperature": temperature_of(json.loads(plan["generate_config"])),
        "log_file": str(path),
        "created": str(ev.get("created")),
        "non_ordinal": (ev.get("task_args") or {}).get("non_ordinal") or "keep",
    }


def _sample_row(s: dict, error: Any, base: dict[str, Any], meta: dict, intern: Interner) -> dict[str, Any]:
    """One sample's row: the log's columns, the sample's reading and scores, then its metadata.

    The log's columns, the sample's status, letter and reading, its score values and
    labels, then its metadata (a key already a column keeps the column's).
    """
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
    return row

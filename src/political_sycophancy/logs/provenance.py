"""Where the logs' data came from (issue 46 item 4).

Recorded by `import-responses` in each log it writes, read back per log by the frame
reader, and shown by the report's overview on its first screen.

An import records (eval metadata `import_provenance`, beside `imported_from`,
`imported_sha256` and `letters`): the response file (absolute path, SHA-256, rows,
question ids, models), the item files it was scored against (path, SHA-256, items), the
conditions file, the options that change what is scored or left out, what it left out
(rows of unknown question ids, rows that disagree with the item files), whether the
file holds response text at all, the user's note on what the file is (`--note`: e.g. a grid
rebuilt from a published table) and the package version. A file whose responses are bare
letters (or empty) holds no text: a refusal cannot be told from an answer without a
letter, so its unanswered cells are counted unparsed and its refusal rate is not known.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pandas as pd

from ..core.io import read_bytes

PROVENANCE_KEY = "import_provenance"
RUN_WITH_INSPECT = "(run with Inspect)"
TEXT, LETTERS_ONLY, NO_TEXT = "text", "letters only", "none"
LETTER_SOURCES = MappingProxyType(
    {
        "source": "the file's own letters (--use-source-letters)",
        "parsed": "our parser's letters (read from raw_response)",
    }
)
COLUMNS = (
    "file",
    "sha256",
    "kinds",
    "logs",
    "samples",
    "letters",
    "options",
    "response_text",
    "rows",
    "question_ids",
    "left_out_unknown",
    "left_out_mismatched",
    "items_files",
    "import_note",
    "path",
    "version",
)
_BARE = re.compile(r"\s*[A-Za-z]?\s*")


def response_text(raw: Iterable[Any]) -> str:
    """What a response file's responses hold: `text`, `letters only` or `none`.

    `text` when any response holds more than one letter, `letters only` when every
    response is a bare letter or empty (and some are letters), `none` when all are empty.
    """
    values = ["" if v is None or (isinstance(v, float) and v != v) else str(v) for v in raw]
    if any(not _BARE.fullmatch(v) for v in values):
        return TEXT
    return LETTERS_ONLY if any(v.strip() for v in values) else NO_TEXT


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's content (hex): an imported file's identity."""
    return hashlib.sha256(read_bytes(path)).hexdigest()


def import_flags(
    *, use_source_letters: bool, skip_unknown: bool, skip_mismatched: bool, replace_changed: bool, model_column: str
) -> list[str]:
    """The command-line flags of an import that change what is scored or left out, as typed."""
    named = (
        ("--use-source-letters", use_source_letters),
        ("--skip-unknown", skip_unknown),
        ("--skip-mismatched", skip_mismatched),
        ("--replace-changed", replace_changed),
    )
    flags = [flag for flag, on in named if on]
    return flags + (["--model-column", model_column] if model_column != "model_id" else [])


def import_record(
    *,
    responses: pd.DataFrame,
    source: tuple[Path, str],
    item_files: Iterable[str | Path],
    item_counts: Mapping[str, int],
    conditions_file: str | Path | None,
    kind: str,
    options: list[str],
    left_out: Mapping[str, int],
    note: str | None,
    version: str,
) -> dict[str, Any]:
    """What an import writes into each of its logs (JSON-safe).

    The response file (`source`: its absolute path and SHA-256, and what `responses`
    holds), each item file with its SHA-256 and items (`item_counts`, by the path as
    given), the conditions file, the options (`import_flags`) and what was left out.
    """
    path, sha256 = source
    conditions = Path(conditions_file) if conditions_file is not None else None
    return {
        "file": {
            "path": str(path),
            "sha256": sha256,
            "rows": len(responses),
            "question_ids": int(responses["question_id"].nunique()),
            "models": int(responses["model_id"].nunique()),
        },
        "items_files": [
            {"path": str(Path(f).resolve()), "sha256": file_sha256(Path(f)), "n_items": item_counts.get(str(Path(f)))}
            for f in item_files
        ],
        "conditions_file": (
            {"path": str(conditions.resolve()), "sha256": file_sha256(conditions)} if conditions else None
        ),
        "kind": kind,
        "options": list(options),
        "left_out": dict(left_out),
        "response_text": response_text(responses["raw_response"]),
        "note": note,
        "version": version,
    }


def source_of(meta: Mapping[str, Any]) -> dict[str, Any] | None:
    """The import provenance of one log from its eval metadata (None for a log run with Inspect).

    A log imported before provenance was recorded keeps its path, hash and letters.
    """
    path, sha256 = meta.get("imported_from"), meta.get("imported_sha256")
    if not isinstance(path, str) or not isinstance(sha256, str):
        return None
    record = meta.get(PROVENANCE_KEY)
    return {
        "path": path,
        "sha256": sha256,
        "letters": str(meta.get("letters") or ""),
        "record": record if isinstance(record, dict) else None,
    }


def _get(node: Any, *keys: str) -> Any:
    for key in keys:
        node = node.get(key) if isinstance(node, dict) else None
    return node


def provenance_table(records: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """One row per imported response file (by path and content), then one for the logs run with Inspect.

    From the frame reader's per-log records (`design.planned`: `source`, `sample_ids`,
    `epochs`, `kind`).
    """
    groups: dict[tuple[str | None, str | None], list[Mapping[str, Any]]] = {}
    for rec in records:
        source = rec.get("source")
        key = (source["path"], source["sha256"]) if isinstance(source, dict) else (None, None)
        groups.setdefault(key, []).append(rec)
    rows = []

    def order(kv: tuple[tuple[str | None, str | None], list]) -> tuple[bool, str, str]:
        return kv[0][0] is None, kv[0][0] or "", kv[0][1] or ""

    for (path, sha256), recs in sorted(groups.items(), key=order):
        samples = sum(len(r.get("sample_ids") or []) * int(r.get("epochs") or 1) for r in recs)
        kinds = ", ".join(sorted({str(r.get("kind")) for r in recs}))
        if path is None:
            rows.append({"file": RUN_WITH_INSPECT, "kinds": kinds, "logs": len(recs), "samples": samples})
            continue
        source = recs[0]["source"]
        record = next((r["source"]["record"] for r in recs if r["source"].get("record")), None)
        items = _get(record, "items_files") or []
        rows.append(
            {
                "file": Path(path).name,
                "path": path,
                "sha256": sha256,
                "kinds": kinds,
                "logs": len(recs),
                "samples": samples,
                "letters": source.get("letters") or None,
                "options": _get(record, "options"),
                "response_text": _get(record, "response_text"),
                "rows": _get(record, "file", "rows"),
                "question_ids": _get(record, "file", "question_ids"),
                "left_out_unknown": _get(record, "left_out", "unknown_rows"),
                "left_out_mismatched": _get(record, "left_out", "mismatched_rows"),
                "items_files": [
                    {k: f.get(k) for k in ("path", "sha256", "n_items")} for f in items if isinstance(f, dict)
                ]
                or None,
                "import_note": _get(record, "note"),
                "version": _get(record, "version"),
            }
        )
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _rows(n: int) -> str:
    return f"{n:,} row" + ("" if n == 1 else "s")


def describe(row: Mapping[str, Any]) -> str:
    """One imported file in a sentence.

    Its name and hash, whose letters were scored, the options, what it lacks and the
    user's note (the report's first screen).
    """
    if row["file"] == RUN_WITH_INSPECT:
        return f"{row['logs']:,} log(s) run with Inspect ({row['samples']:,} samples)"
    parts = [
        f"{row['file']} (sha256 {str(row['sha256'])[:16]}…, {row['samples']:,} samples in {row['logs']:,} log(s))",
        "imported with import-responses: " + LETTER_SOURCES.get(str(row["letters"]), f"letters: {row['letters']}"),
    ]
    options = row.get("options")
    if options is None:
        parts.append("options not recorded (imported by an earlier version)")
    else:
        parts.append("options: " + (" ".join(options) or "none"))
    if row.get("rows") is not None:
        parts.append(f"{row['rows']:,} rows, {row['question_ids']:,} question ids")
    if row.get("left_out_unknown"):
        parts.append(f"{_rows(row['left_out_unknown'])} of question ids not in the item files left out")
    if row.get("left_out_mismatched"):
        parts.append(f"{_rows(row['left_out_mismatched'])} that disagree with the item files left out")
    if row.get("response_text") in (LETTERS_ONLY, NO_TEXT):
        parts.append(
            "no response text, only letters: a refusal cannot be told from an answer without a letter, so "
            "those count as unparsed and the refusal rate is not known"
        )
    if row.get("import_note"):
        parts.append(f"note: {row['import_note']}")
    return "; ".join(parts)

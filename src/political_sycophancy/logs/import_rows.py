"""Reading a response file and checking its rows against the item files: the first step of an import (`logs.importer`).

Every bad row is one `InputError` naming the file, row and field; rows left out on
request are kept, marked, to the end of `prepare`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core.conditions import Condition
from ..core.errors import InputError
from ..core.generation import MAX_EPOCHS
from ..core.io import read_csv
from ..core.items import LETTERS, Item, load_items, parse_options

REQUIRED = ("model_id", "question_id", "raw_response")
# the column of `prepare`'s frame that holds why a row is left out (None: kept)
EXCLUDED = "_excluded"


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


def read_responses(
    path: str | Path, columns: dict[str, str] | None = None, model_column: str = "model_id"
) -> pd.DataFrame:
    """The response file as strings, with a `_row` column (1-based data row numbers).

    Phase 1 shape: model_id, question_id, raw_response, letter, error, ... (all at
    temperature 1, one replicate, condition N). Phase 2 adds condition, rep, temperature.
    Read with `core.io.read_csv`: a repeated column, a ragged or cut-short row is an error.
    `model_column` names the column whose values name the models (the file's own
    `model_id` is then kept as `file_model_id`, logged as `source_model_id`).
    """
    path = Path(path)
    header, rows = read_csv(path)
    if model_column != "model_id":
        if model_column not in header:
            raise InputError(
                f"no column {model_column!r} to name the models by (--model-column)", file=path, field=model_column
            )
        header = ["file_model_id" if h == "model_id" else "model_id" if h == model_column else h for h in header]
    # `columns` renames a file's own columns to ours (a probe file's model_label to model_id)
    renames = {old: new for old, new in (columns or {}).items() if new not in header}
    header = [renames.get(h, h) for h in header]
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise InputError(
            f"missing column(s) {', '.join(missing)} (a response file needs {', '.join(REQUIRED)})",
            file=path,
            field=missing[0],
        )
    if not rows:
        raise InputError("file has a header but no responses", file=path)
    frame = pd.DataFrame([values for _, values in rows], columns=header, dtype=object)
    frame.insert(0, "_row", [row for row, _ in rows])
    return frame


def item_index(item_files: Iterable[str | Path], counts: dict[str, int] | None = None) -> dict[str, Item]:
    """Every item of the item files by id (an id in two files is an error).

    With `counts`, each file's number of items is put there by its path (the import's
    provenance).
    """
    index: dict[str, Item] = {}
    origin: dict[str, Path] = {}
    for f in item_files:
        path = Path(f)
        loaded = load_items(path, instrument=_instrument_of(path))
        if counts is not None:
            counts[str(path)] = len(loaded)
        for item in loaded:
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
    """A finite number of at least `minimum` (-0 read as 0, so it names the same cell as 0); `default` when blank."""
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
    """A replicate number as written: digits (a trailing .0 allowed), 0 to MAX_EPOCHS - 1; NaN when blank.

    `1e3` or a 20-digit number is an error, not 1,000 or 10**19 epochs.
    """
    text = "" if value is None else str(value).strip()
    if not text:
        return math.nan
    if not _WHOLE.fullmatch(text) or float(text) > MAX_EPOCHS - 1:
        raise InputError(
            f"replicate must be a whole number from 0 to {MAX_EPOCHS - 1}, got {text[:40]!r}",
            file=path,
            row=row,
            field="rep",
        )
    return float(text)


def _per_key(keys: pd.DataFrame, rows: pd.Series, fn: Callable[[dict[str, Any], int], Any]) -> list[Any]:
    """`fn(record, row)` for each row of `keys`, computed once per distinct record.

    With the row where it first appears (the row an error names: the first bad row of the
    file, as a loop over the rows would name it). A file repeats a few thousand keys in
    90,000 rows.
    """
    codes = keys.groupby(list(keys.columns), sort=False, dropna=False).ngroup().to_numpy()
    first = np.unique(codes, return_index=True)[1]
    row_numbers = rows.to_numpy()
    records = keys.iloc[first].to_dict("records")
    results = [
        fn({str(k): v for k, v in rec.items()}, int(row_numbers[i])) for rec, i in zip(records, first, strict=True)
    ]
    return [results[c] for c in codes.tolist()]


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
    """Validated rows with item, condition, epoch and temperature resolved.

    Rows whose own copy of the question disagrees with the items (`mismatch`) are an
    error, or with `skip_mismatched` left out and listed in `result.mismatches`.
    """
    frame = responses.copy()
    blank_model = frame["model_id"].str.strip() == ""
    if blank_model.any():
        raise InputError("empty model id", file=path, row=int(frame.loc[blank_model, "_row"].iloc[0]), field="model_id")
    frame["item_id"] = _per_key(
        frame[["question_id"]], frame["_row"], lambda rec, _: _canonical(rec["question_id"].strip())
    )
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
    numbers = {
        c: frame[c] if c in frame.columns else pd.Series("", index=frame.index, dtype=object)
        for c in ("temperature", "rep")
    }
    frame["temperature_value"] = _per_key(
        numbers["temperature"].to_frame("v"),
        frame["_row"],
        lambda rec, r: _number(rec["v"], path=path, row=r, column="temperature", default=1.0, minimum=0.0),
    )
    reps = _per_key(numbers["rep"].to_frame("v"), frame["_row"], lambda rec, r: _replicate(rec["v"], path=path, row=r))
    frame["rep_value"] = reps
    # Replicates are numbered from 0 or from 1 in the wild; epochs count from 1.
    given = [r for r in reps if not math.isnan(r)]
    offset = 1 if given and min(given) == 0 else 0
    if given and min(given) > 0:
        # a file of replicates 1.. numbered from 0 would be read one epoch too low: say so
        result.notes.append(
            f"replicates taken as numbered from 1 (the file has no rep 0): rep k is epoch k, from rep {min(given):g}"
        )
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
    """(field, reason) when a response row's own copy of its question disagrees with the item it is matched to.

    Its options (text, count or order), `n_options`, the start of `question_text`, or a
    `letter` / `letter_index` beyond the item's options. A row scored against options
    other than those its model saw is a wrong number.
    """
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
            return (
                "letter",
                (
                    f"letter {letter} but item {item.id} has {len(item.options)} options"
                    f" (A-{LETTERS[len(item.options) - 1]})"
                ),
            )
        given = str(rec.get("letter_index") or "").strip()
        if given and given not in (str(index), f"{index}.0"):
            return "letter_index", f"letter_index {given} but letter {letter} is option {index} (0-based)"
    return None


def _cross_check(
    frame: pd.DataFrame, items: dict[str, Item], *, path: Path, skip_mismatched: bool, result: ImportResult
) -> pd.DataFrame:
    columns = {"options", "n_options", "question_text", "letter", "letter_index"} & set(frame.columns)
    if not columns:
        return frame
    # one check per distinct (item, the row's own copy of the question)
    found_per_row = _per_key(
        frame[["item_id", *sorted(columns)]],
        frame["_row"],
        lambda rec, row: mismatch({**rec, "_row": row}, items[rec["item_id"]], path),
    )
    keep = [found is None for found in found_per_row]
    reasons = [None if found is None else f"{found[0]}: {found[1]}" for found in found_per_row]
    bad = [(i, found) for i, found in enumerate(found_per_row) if found is not None]
    if bad:
        rows = frame["_row"].to_numpy()
        if not skip_mismatched:
            first_bad, (field_name, reason) = bad[0]
            raise InputError(
                f"{reason} (fix the file or the item files, or pass --skip-mismatched to leave such rows out)",
                file=path,
                row=int(rows[first_bad]),
                field=field_name,
            )
        result.mismatches.extend((int(rows[i]), *found) for i, found in bad)
    if not any(keep):
        raise InputError(f"every one of {len(frame)} response(s) disagrees with the item files", file=path)
    # Left out, but kept to the end of `prepare` (which gives them their epoch), so that each
    # cell's log records the samples its import left out (`EXCLUDED_KEY`): the design then
    # counts them as excluded at import, not as a run still to finish.
    out = frame.copy()
    out[EXCLUDED] = reasons
    return out

"""Reading input files and checking output locations: every way one can be wrong ends in one `InputError`.

Every way a path or a file can be wrong (missing, a directory, not a regular file, too
large, not UTF-8, a repeated column, a row cut short, JSON nested past Python's recursion
limit, an output path that is a file) ends in one `InputError` naming the file, row and
field instead of a traceback, a hang or a silent guess.

Every input file is read through `read_bytes`: a FIFO, a device (`/dev/zero`,
`/dev/urandom`), a socket, or a link to one is refused by its type before it is opened
for reading (a FIFO would block, a device never ends), and no file is read past
`MAX_INPUT_BYTES`.
"""

from __future__ import annotations

import csv
import io
import json
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from .errors import InputError

# What this package keeps in a log folder beside the logs: the frame cache (logs.cache) and
# the lock of a running audit (shared.eval_options); the analysis reuse key leaves both out.
FRAME_CACHE_DIR = ".political-sycophancy-cache"
LOCK_FILE = ".political-sycophancy.lock"
# An import-responses under way in a log folder (`<prefix><import key><suffix>`), removed
# once its every log is written: one left behind marks an import that was killed, and
# `analyze` says so.
IMPORT_MARKER_PREFIX = ".political-sycophancy-import-"
IMPORT_MARKER_SUFFIX = ".partial"


# The largest input file read (response files, item files, replication packages,
# conditions): far above any real one (the first seed's largest is 3.3 MB), far below
# what would exhaust memory once parsed.
MAX_INPUT_BYTES = 1 << 30
# The largest survey weight read from microdata: far above any survey's (the ATP's are about
# 0.1 to 10), low enough that the weighted sums over every respondent stay finite.
MAX_SURVEY_WEIGHT = 1e6
_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def file_kind(mode: int) -> str:
    """What a non-regular file is, in words (from its `st_mode`)."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


def regular_file(path: str | Path) -> os.stat_result:
    """The stat of an input file that exists and is a regular file (a link to one is followed).

    Anything else is an InputError naming what it is, checked without opening it
    (opening a FIFO blocks).
    """
    path = Path(path)
    try:
        st = path.stat()
    except FileNotFoundError:
        raise InputError("file not found", file=path) from None
    except OSError as ex:
        raise InputError(f"cannot read ({ex.strerror or ex})", file=path) from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError("is a directory, not a file", file=path)
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"not a regular file ({file_kind(st.st_mode)}); give a file", file=path)
    return st


def _size(n: int) -> str:
    return (
        f"{n / (1 << 30):.1f} GiB" if n >= 1 << 30 else f"{n / (1 << 20):.1f} MiB" if n >= 1 << 20 else f"{n:,} bytes"
    )


def read_bytes(path: str | Path, *, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of an input file (`regular_file`), at most `limit` of them: a larger file is an InputError.

    The file is opened without blocking and checked again once open, so a file swapped
    for a FIFO or a device in between is refused too, and read only to `limit` + 1 bytes
    whatever size it claims.
    """
    path = Path(path)
    regular_file(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as ex:
        raise InputError(f"cannot read ({ex.strerror or ex})", file=path) from None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"not a regular file ({file_kind(st.st_mode)}); give a file", file=path)
        if st.st_size > limit:
            raise InputError(
                f"file is {_size(st.st_size)}, larger than the {_size(limit)} an input file may be", file=path
            )
        try:
            raw = fh.read(limit + 1)
        except OSError as ex:
            raise InputError(f"cannot read ({ex.strerror or ex})", file=path) from None
    if len(raw) > limit:
        raise InputError(f"file is larger than the {_size(limit)} an input file may be", file=path)
    return raw


def read_text(path: str | Path, *, allow_empty: bool = False) -> str:
    """A UTF-8 text file (a BOM is dropped).

    A missing file, a directory, a file that is not regular or is too large
    (`read_bytes`), unreadable or non-UTF-8 bytes and (unless `allow_empty`) a blank file
    are InputErrors.
    """
    path = Path(path)
    raw = read_bytes(path)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as ex:
        line = raw[: ex.start].count(b"\n") + 1
        raise InputError(f"not valid UTF-8 (byte {ex.start}, line {line})", file=path) from None
    if not allow_empty and not text.strip():
        raise InputError("file is empty", file=path)
    return text


def csv_table(
    text: str, path: Path, *, delimiter: str = ",", header_only: bool = False
) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """Header and data rows (with 1-based data row numbers, blank lines skipped) of a CSV/TSV text, strictly.

    A repeated column name, a row with more or fewer values than the header (a file cut
    short ends in such a row) and malformed quoting are errors. With `header_only`, the
    header alone (no rows read or checked).

    Lines may end in CRLF, LF or a bare CR; line breaks inside quoted values are kept.
    """
    # The csv module refuses fields over 128 KiB by default; a long text is not an error.
    csv.field_size_limit(max(csv.field_size_limit(), 2**31 - 1))
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    row = 0
    try:
        header = next((r for r in reader if r), None)
        if header is None:
            raise InputError("no header row", file=path)
        first: dict[str, int] = {}
        for i, name in enumerate(header, start=1):
            if name in first:
                raise InputError(
                    f"column {name!r} appears twice in the header (columns {first[name]} and {i})",
                    file=path,
                    field=name,
                )
            first[name] = i
        rows: list[tuple[int, list[str]]] = []
        for values in () if header_only else reader:
            if not values:
                continue
            row += 1
            if len(values) > len(header):
                raise InputError(
                    f"more values than header columns ({len(values)} for {len(header)})", file=path, row=row
                )
            if len(values) < len(header):
                raise InputError(
                    f"fewer values than header columns ({len(values)} of {len(header)}; is the file cut short?)",
                    file=path,
                    row=row,
                    field=header[len(values)],
                )
            rows.append((row, values))
    except csv.Error as ex:
        raise InputError(f"malformed CSV ({ex}; is the file cut short?)", file=path, row=row + 1) from None
    return header, rows


def _delimiter(path: Path) -> str:
    return "\t" if path.suffix.lower() == ".tsv" else ","


def read_csv(
    path: str | Path, required: list[str] | None = None, *, header_only: bool = False
) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """Header and numbered data rows of a CSV (or, by suffix, TSV) file.

    `read_text` and `csv_table` errors, and a column of `required` missing from the
    header; with `header_only`, the header and no rows (a file told by its columns).
    """
    path = Path(path)
    header, rows = csv_table(read_text(path), path, delimiter=_delimiter(path), header_only=header_only)
    missing = [c for c in required or [] if c not in header]
    if missing:
        raise InputError(f"missing column(s) {', '.join(missing)}", file=path, field=missing[0])
    return header, rows


def read_parquet(path: str | Path, required: list[str] | None = None) -> list[tuple[int, dict[str, Any]]]:
    """Numbered rows as dicts of a Parquet file, read through `read_bytes` like any input.

    Its size and type are checked like any input's; a file Arrow cannot read, a repeated
    column or a column of `required` missing is an InputError naming the file and the
    field.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(path)
    raw = read_bytes(path)
    try:
        table = pq.read_table(pa.BufferReader(raw))
    except (pa.ArrowException, OSError, ValueError) as ex:
        raise InputError(f"cannot read as Parquet ({' '.join(str(ex).split())[:200]})", file=path) from None
    names = table.column_names
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise InputError(f"column {repeated[0]!r} appears twice", file=path, field=repeated[0])
    missing = [c for c in required or [] if c not in names]
    if missing:
        raise InputError(f"missing column(s) {', '.join(missing)}", file=path, field=missing[0])
    return list(enumerate(table.to_pylist(), start=1))


def read_records(path: str | Path, required: list[str] | None = None) -> list[tuple[int, dict[str, Any]]]:
    r"""Numbered rows as dicts of a CSV/TSV file (`read_csv`), a Parquet file (`read_parquet`) or a JSONL file.

    JSONL holds one JSON object a line; lines end at "\n" only, since str.splitlines() would
    also split inside JSON strings holding U+2028, U+0085 or other Unicode line breaks.
    """
    path = Path(path)
    if path.suffix.lower() == ".parquet":
        return read_parquet(path, required)
    if path.suffix.lower() not in (".jsonl", ".ndjson"):
        header, rows = read_csv(path, required)
        return [(row, dict(zip(header, values, strict=True))) for row, values in rows]
    records: list[tuple[int, dict[str, Any]]] = []
    for line in read_text(path).split("\n"):
        if not line.strip():
            continue
        obj = parse_json(line, file=path, row=len(records) + 1)
        if not isinstance(obj, dict):
            raise InputError("each line must be a JSON object", file=path, row=len(records) + 1)
        records.append((len(records) + 1, obj))
    return records


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(key)


def parse_json(text: str, *, file: str | Path | None = None, row: int | None = None, field: str | None = None) -> Any:
    """JSON with the errors located.

    Malformed text, a key repeated in one object (Python would keep the last silently)
    and nesting deeper than the recursion limit.
    """
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as ex:
        raise InputError(f"malformed JSON ({ex.msg}, character {ex.pos})", file=file, row=row, field=field) from None
    except _DuplicateKey as ex:
        raise InputError(
            f"key {ex.key!r} appears twice in one JSON object", file=file, row=row, field=field or ex.key
        ) from None
    except RecursionError:
        raise InputError("JSON nested too deeply", file=file, row=row, field=field) from None


class _UniqueKeyLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """A safe YAML loader that refuses a key repeated in one mapping (PyYAML keeps the last).

    On libyaml's parser where PyYAML has it (ten times faster: a report reads its table
    descriptions sixteen times).
    """

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if isinstance(key, (str, int, float, bool)) and key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} appears twice in one mapping", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def parse_yaml(text: str, *, file: str | Path) -> Any:
    """Safe YAML (no Python tags) with repeated keys and runaway nesting as errors."""
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 (a SafeLoader subclass)
    except yaml.YAMLError as ex:
        if "maximum nesting depth" in str(ex):  # libyaml's parser stops runaway nesting itself
            raise InputError("YAML nested too deeply", file=file) from None
        raise InputError(f"cannot parse YAML ({' '.join(str(ex).split())})", file=file) from None
    except RecursionError:
        raise InputError("YAML nested too deeply", file=file) from None


def read_yaml(path: str | Path) -> Any:
    """A YAML file (`read_text` and `parse_yaml` errors; a `.json` file is read as JSON)."""
    path = Path(path)
    text = read_text(path)
    if path.suffix.lower() == ".json":
        return parse_json(text, file=path)
    return parse_yaml(text, file=path)


def _unwritable(path: Path) -> str | None:
    """Why `path` cannot be used as an output directory (it is created when missing), or None."""
    if path.exists() and not path.is_dir():
        return "exists and is not a directory"
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path, prefix=".write-check-"):
            pass
    except OSError as ex:
        return f"cannot write there ({ex.strerror or ex})"
    return None


def output_dir(path: str | Path, option: str) -> Path:
    """A directory the command can write into, created when missing.

    A path that is a file, lies under a file, or cannot be written is an InputError
    naming the option.
    """
    path = Path(path)
    reason = _unwritable(path)
    if reason:
        raise InputError(f"{option} {path}: {reason}")
    return path


def output_file(path: str | Path, option: str) -> Path:
    """A file path the command can write: not a directory, in a writable directory."""
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{option} {path}: is a directory, not a file")
    reason = _unwritable(path.parent)
    if reason:
        raise InputError(f"{option} {path}: cannot write there ({path.parent}: {reason})")
    return path


def _same_file(a: Path, b: Path) -> bool:
    if a.exists() and b.exists():
        return os.path.samefile(a, b)
    return a.resolve() == b.resolve()


def distinct_output(output: str | Path, inputs: Iterable[str | Path], option: str) -> Path:
    """`output`, unless it is one of the command's input files (the same path, a link to it or another name for it).

    Writing there would destroy the input it was made from.
    """
    out = Path(output)
    for given in inputs:
        if _same_file(out, Path(given)):
            raise InputError(f"{option} {output}: is the input file {given}; write the output elsewhere")
    return out

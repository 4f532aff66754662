"""The frame cache: data only, validated on read, never executed.

A log folder is shared data (downloaded, on a team drive), so its cache must not be able to
run code: no pickle. Under `<log dir>/.political-sycophancy-cache/`:

- `index.json`: schema version and, per log (path relative to the log dir), its size,
  modification time, row count, the reason it was ignored (other tasks), its task id,
  what it was meant to hold (`design.planned`) and what its reading noted (why it was read
  with Inspect's reader, whether in full, how many samples were left out and why), so a
  cached run prints every note a fresh one does;
- `rows/<sha1 of the log path>.parquet`: the log's rows. Each column has a codec recorded
  in the file's metadata: `int64`, `float64`, `bool` and `str` columns are stored natively;
  every other column (lists, dicts, mixed values) as one JSON text per row, decoded with
  `json.loads` (equal texts share one object, as the reader's interner does).

Every read is validated: the index's schema, version and types; each rows file's version,
log name, size, modification time, column names, codecs, Arrow types and row count. An
entry that fails is read from its log again and the failure is noted; a pickle cache of an
older version (`frame.pkl`) is deleted unread. Files are written atomically. A cache file
or folder that is a link, a FIFO or a device is never opened (a link may lead out of the
log folder or to `/dev/zero`, a FIFO blocks): the cache is rebuilt, or not written, with a
note.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..core.atomic import clean_stale_temp, write_atomic
from ..core.errors import InputError
from ..core.io import FRAME_CACHE_DIR, file_kind, read_bytes
from .design import valid_record

if TYPE_CHECKING:
    import pyarrow as pa

CACHE_DIR = FRAME_CACHE_DIR
INDEX_FILE = "index.json"
ROWS_DIR = "rows"
# Caches of older versions that could run code when read: deleted, never opened (the
# pickle cache and the temporary files its killed writers left).
LEGACY_FILES = ("frame.pkl",)
LEGACY_TEMP = ".frame-*.tmp"
META_KEY = b"political_sycophancy"
NATIVE_DTYPES = {"int64": "int64", "float64": "float64", "bool": "bool", "str": "str"}
CODECS = ("int64", "float64", "bool", "str", "json")


class CacheInvalid(Exception):
    """A cache file that failed validation (the reason is the message)."""


def _not_regular(path: Path, folder: bool = False) -> str | None:
    """Why a cache path must not be opened (a link, or not a regular file or folder), or None.

    A missing path is None.
    """
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return None
    except OSError as ex:
        return f"cannot be read ({ex.strerror or ex})"
    if stat.S_ISDIR(mode) if folder else stat.S_ISREG(mode):
        return None
    return f"is {file_kind(mode)}"


@dataclass
class Entry:
    """One log's cached rows (None for an ignored log) and what identifies the log file."""

    size: int
    mtime: float
    ignored: str | None
    rows: pd.DataFrame | None
    task_id: str | None = None
    design: dict | None = None
    fallback: str | None = None
    full: bool = False
    excluded: int = 0
    exclusions: list[str] = field(default_factory=list)
    # its rows file's bytes (`encode_rows`) and their row count, when the process that
    # read the log made them (it then sends these instead of the rows)
    encoded: bytes | None = None
    n_rows: int | None = None
    # its rows file read and validated, to be decoded with the other cached logs' (`FrameCache.decode`)
    table: RowsTable | None = None

    def noted(self) -> dict[str, Any]:
        """What the log's reading noted, as the index keeps it."""
        return {"fallback": self.fallback, "full": self.full, "excluded": self.excluded, "exclusions": self.exclusions}


def rows_meta(version: int, name: str, entry: Entry) -> dict[str, Any]:
    """What a log's rows file records of the log, checked when it is read (`decode_rows`)."""
    return {"version": version, "log": name, "size": entry.size, "mtime": entry.mtime}


def rows_file(name: str) -> str:
    """The rows file of a log: a fixed function of its path, so the index cannot point elsewhere."""
    return hashlib.sha1(name.encode("utf-8")).hexdigest() + ".parquet"


def _codec(series: pd.Series) -> str:
    name = str(series.dtype)
    return name if name in NATIVE_DTYPES else "json"


def _json_texts(series: pd.Series) -> list[str]:
    memo: dict[int, str] = {}
    out = []
    for value in series.tolist():
        text = memo.get(id(value))
        if text is None:
            text = json.dumps(value, allow_nan=True, separators=(",", ":"))
            memo[id(value)] = text
        out.append(text)
    return out


def encode_rows(rows: pd.DataFrame, meta: dict[str, Any]) -> bytes:
    """One log's rows as Parquet bytes (codecs and `meta` in the file's metadata)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrays, codecs = [], []
    for column in rows.columns:
        series = rows[column]
        codec = _codec(series)
        if codec == "json":
            arrays.append(pa.array(_json_texts(series), type=pa.string()))
        elif codec == "str":
            arrays.append(pa.array(series.to_numpy(dtype=object, na_value=None), type=pa.string()))  # type: ignore[call-overload]  # stubs lack na_value=None
        else:
            arrays.append(pa.array(series.to_numpy(), type=_arrow_type(codec)))
        codecs.append([str(column), codec])
    table = pa.Table.from_arrays(arrays, names=[str(c) for c in rows.columns])
    header = {**meta, "columns": codecs, "n_rows": len(rows)}
    table = table.replace_schema_metadata({META_KEY: json.dumps(header).encode("utf-8")})
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    return buffer.getvalue()


def _arrow_type(codec: str) -> pa.DataType:
    import pyarrow as pa

    return {"int64": pa.int64(), "float64": pa.float64(), "bool": pa.bool_(), "str": pa.string(), "json": pa.string()}[
        codec
    ]


@dataclass
class RowsTable:
    """A rows file read and validated (`read_rows`), not yet decoded into a frame."""

    table: Any  # pyarrow.Table
    columns: tuple[tuple[str, str], ...]  # (name, codec) of each column


def read_rows(source: Path | bytes, expect: dict[str, Any]) -> RowsTable:
    """A Parquet rows file (or its bytes) validated against `expect` and its column list.

    `expect` holds the version, log, size, mtime and n_rows. Raises CacheInvalid.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    if isinstance(source, Path) and (problem := _not_regular(source)):
        raise CacheInvalid(f"the rows file {problem}")
    try:
        table = pq.read_table(pa.BufferReader(source) if isinstance(source, bytes) else source)
    except Exception as ex:  # anything that is not our Parquet file
        raise CacheInvalid(f"not a Parquet rows file ({type(ex).__name__})") from None
    try:
        header = json.loads((table.schema.metadata or {})[META_KEY])
    except (KeyError, ValueError, TypeError):
        raise CacheInvalid("no political_sycophancy metadata") from None
    if not isinstance(header, dict):
        raise CacheInvalid("metadata is not an object")
    for key, value in expect.items():
        if header.get(key) != value:
            raise CacheInvalid(f"{key} {header.get(key)!r} != {value!r}")
    columns = header.get("columns")
    if (
        not isinstance(columns, list)
        or not all(isinstance(c, list) and len(c) == 2 and isinstance(c[0], str) and c[1] in CODECS for c in columns)
        or [c[0] for c in columns] != table.column_names
    ):
        raise CacheInvalid("column list does not match the file")
    if header.get("n_rows") != table.num_rows:
        raise CacheInvalid(f"{table.num_rows} rows, metadata says {header.get('n_rows')!r}")
    for (name, codec), column in zip(columns, table.columns, strict=True):
        if column.type != _arrow_type(codec):
            raise CacheInvalid(f"column {name!r} is {column.type}, codec {codec}")
        if codec in ("int64", "float64", "bool") and column.null_count:
            raise CacheInvalid(f"column {name!r} ({codec}) has nulls")
    return RowsTable(table.replace_schema_metadata(None), tuple((name, codec) for name, codec in columns))


def decode_tables(tables: list[RowsTable], decoded: dict[str, Any]) -> list[pd.DataFrame]:
    """The rows of each table, in order.

    Tables with the same columns are joined and decoded at once (a log's frame cost more
    to build than its rows to decode) and cut back into each table's rows; `decoded`
    shares equal JSON values between rows. Raises CacheInvalid.
    """
    import pyarrow as pa

    out: list[pd.DataFrame | None] = [None] * len(tables)
    groups: dict[tuple, list[int]] = {}
    for k, rows in enumerate(tables):
        groups.setdefault(rows.columns, []).append(k)
    for columns, members in groups.items():
        joined = pa.concat_tables([tables[k].table for k in members])
        data: dict[str, Any] = {}
        for (name, codec), column in zip(columns, joined.columns, strict=True):
            if codec == "json":
                data[name] = _decode_json(column, name, decoded)
            elif codec == "str":
                data[name] = pd.array(column.combine_chunks(), dtype="str")
            else:
                data[name] = column.to_numpy()
        frame = pd.DataFrame(data, index=pd.RangeIndex(joined.num_rows), columns=[name for name, _ in columns])
        start = 0
        for k in members:
            stop = start + tables[k].table.num_rows
            out[k] = frame.iloc[start:stop].reset_index(drop=True) if len(members) > 1 else frame
            start = stop
    return out  # type: ignore[return-value]  # every place is filled


def decode_rows(source: Path | bytes, expect: dict[str, Any], decoded: dict[str, Any]) -> pd.DataFrame:
    """The rows of a Parquet rows file (or its bytes) after validating it against `expect` (version, log, size, mtime).

    `decoded` shares equal JSON values between rows. Raises CacheInvalid.
    """
    return decode_tables([read_rows(source, expect)], decoded)[0]


def _decode_json(column: Any, name: str, decoded: dict[str, Any]) -> pd.Series:
    """The values of a JSON text column, each distinct text decoded once.

    `decoded` shares them with every other column and log: rows repeat an item's
    options, positions and benchmarks, and a letter's point mass.
    """
    if column.null_count:
        raise CacheInvalid(f"column {name!r} has a null JSON text")
    encoded = column.combine_chunks().dictionary_encode()
    texts = encoded.dictionary.to_pylist()
    values = np.empty(len(texts), dtype=object)
    for k, text in enumerate(texts):
        value = decoded.get(text)
        if value is None and text not in decoded:
            try:
                value = json.loads(text)
            except ValueError:
                raise CacheInvalid(f"column {name!r} holds invalid JSON") from None
            decoded[text] = value
        values[k] = value
    return pd.Series(values[encoded.indices.to_numpy()], dtype=object)


def _valid_index_entry(entry: Any) -> bool:
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("size"), int)
        and isinstance(entry.get("mtime"), (int, float))
        and not isinstance(entry.get("mtime"), bool)
        and math.isfinite(entry["mtime"])
        and (entry.get("ignored") is None or isinstance(entry.get("ignored"), str))
        and isinstance(entry.get("n_rows"), int)
        and (entry.get("task_id") is None or isinstance(entry.get("task_id"), str))
        and (entry.get("design") is None or valid_record(entry.get("design")))
        and (entry.get("fallback") is None or isinstance(entry.get("fallback"), str))
        and isinstance(entry.get("full"), bool)
        and isinstance(entry.get("excluded"), int)
        and not isinstance(entry.get("excluded"), bool)
        and entry["excluded"] >= 0
        and isinstance(entry.get("exclusions"), list)
        and all(isinstance(x, str) for x in entry["exclusions"])
    )


class FrameCache:
    """The cache of one log directory (see the module docstring)."""

    def __init__(self, log_dir: Path, version: int) -> None:
        self.dir = Path(log_dir) / CACHE_DIR
        self.version = version
        self.index: dict[str, dict] = {}
        self.notes: list[str] = []
        self._decoded: dict[str, Any] = {}
        self.usable = True

    def open(self) -> None:
        """Remove legacy pickles and orphaned temporary files; read and validate the index."""
        for folder in (self.dir, self.dir / ROWS_DIR):
            if problem := _not_regular(folder, folder=True):
                self.usable = False
                self.notes.append(
                    f"frame cache folder {folder} {problem}, not a folder: it is neither read nor written (remove it)"
                )
                return
        for legacy in LEGACY_FILES:
            path = self.dir / legacy
            if path.exists():
                try:
                    path.unlink()
                    self.notes.append(
                        f"an old pickle frame cache {path} was deleted unread (a pickle can run code); the cache is"
                        " rebuilt"
                    )
                except OSError as ex:
                    self.notes.append(
                        f"an old pickle frame cache {path} is ignored (a pickle can run code) and could not be deleted"
                        f" ({ex})"
                    )
        for orphan in self.dir.glob(LEGACY_TEMP) if self.dir.is_dir() else ():
            orphan.unlink(missing_ok=True)
        clean_stale_temp(self.dir)
        clean_stale_temp(self.dir / ROWS_DIR)
        path = self.dir / INDEX_FILE
        if not path.exists():
            return
        if problem := _not_regular(path):
            return self._reject(path, f"it {problem}")
        try:
            data = json.loads(read_bytes(path))
        except InputError as ex:
            return self._reject(path, str(ex).rsplit(": ", 1)[-1])
        except (OSError, ValueError, RecursionError) as ex:
            return self._reject(path, f"not JSON ({type(ex).__name__})")
        if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
            return self._reject(path, "not a cache index")
        if data.get("version") != self.version:
            return  # an older layout: rebuilt silently, as a schema change is expected
        bad = [name for name, entry in data["files"].items() if not _valid_index_entry(entry)]
        if bad:
            return self._reject(path, f"malformed entry {bad[0]!r}")
        self.index = data["files"]

    def _reject(self, path: Path, reason: str) -> None:
        self.notes.append(f"frame cache {path} failed validation ({reason}) and is rebuilt; it was never executed")

    def get(self, name: str, size: int, mtime: float) -> Entry | None:
        """The cached entry of a log if its size and mtime match and its rows file validates."""
        entry = self.index.get(name)
        if entry is None or entry["size"] != size or entry["mtime"] != mtime:
            return None
        noted = {k: entry[k] for k in ("fallback", "full", "excluded", "exclusions")}
        if entry["ignored"] is not None:
            return Entry(size, mtime, entry["ignored"], None, entry.get("task_id"), **noted)
        path = self.dir / ROWS_DIR / rows_file(name)
        try:
            table = read_rows(
                path, {"version": self.version, "log": name, "size": size, "mtime": mtime, "n_rows": entry["n_rows"]}
            )
        except CacheInvalid as ex:
            self.notes.append(
                f"frame cache file {path} failed validation ({ex}); {name} is read again and the file rewritten"
            )
            return None
        return Entry(size, mtime, None, None, entry.get("task_id"), entry.get("design"), **noted, table=table)

    def decode(self, entries: Mapping[str, Entry | None]) -> list[str]:
        """Decode the rows of the entries `get` returned (their `table`), all at once.

        The names of those whose rows do not decode (noted: their logs are to be read
        again).
        """
        pending = [(name, e) for name, e in entries.items() if e is not None and e.table is not None]
        try:
            decoded = decode_tables([e.table for _, e in pending], self._decoded)  # type: ignore[misc]
        except CacheInvalid:  # one at a time, so that only the logs whose rows fail are read again
            failed = []
            for name, e in pending:
                try:
                    e.rows = decode_tables([e.table], self._decoded)[0]  # type: ignore[list-item]
                except CacheInvalid as ex:
                    path = self.dir / ROWS_DIR / rows_file(name)
                    self.notes.append(
                        f"frame cache file {path} failed validation ({ex}); {name} is read again and the file rewritten"
                    )
                    failed.append(name)
                e.table = None
            return failed
        for (_, e), rows in zip(pending, decoded, strict=True):
            e.rows, e.table = rows, None
        return []

    def decode_fresh(self, name: str, entry: Entry) -> bool:
        """Set the rows of a log read now from the rows file's bytes its reading process made.

        The bytes (`entry.encoded`) are sent instead of its rows: decoded as cached rows
        are, they share equal values with every other log's (rows unpickled log by log would
        each hold their own copies: 2.3 instead of 1.5 GiB for 900,000 rows). False if they
        do not decode.
        """
        if entry.encoded is None:
            return False
        expect = {**rows_meta(self.version, name, entry), "n_rows": entry.n_rows}
        try:
            entry.rows = decode_rows(entry.encoded, expect, self._decoded)
        except CacheInvalid as ex:
            self.notes.append(
                f"the rows of {name} did not decode from the bytes made for the frame cache ({ex}); the log is read"
                " again"
            )
            return False
        return True

    def save(self, entries: dict[str, Entry], fresh: set[str]) -> None:
        """Write the rows of the `fresh` entries and the index; drop files of logs that are gone."""
        if not self.usable:
            return
        try:
            rows_dir = self.dir / ROWS_DIR
            rows_dir.mkdir(parents=True, exist_ok=True)
            for name in sorted(fresh):
                entry = entries[name]
                if entry.ignored is None and entry.rows is not None:
                    data = (
                        entry.encoded
                        if entry.encoded is not None
                        else encode_rows(entry.rows, rows_meta(self.version, name, entry))
                    )
                    write_atomic(rows_dir / rows_file(name), data)
                    entry.encoded = None  # written: not kept in memory
            index = {
                name: {
                    "size": e.size,
                    "mtime": e.mtime,
                    "ignored": e.ignored,
                    "n_rows": 0 if e.rows is None else len(e.rows),
                    "task_id": e.task_id,
                    "design": e.design,
                    **e.noted(),
                }
                for name, e in entries.items()
            }
            write_atomic(self.dir / INDEX_FILE, json.dumps({"version": self.version, "files": index}, indent=0))
            keep = {rows_file(name) for name, e in entries.items() if e.ignored is None}
            for path in rows_dir.glob("*.parquet"):
                if path.name not in keep:
                    path.unlink(missing_ok=True)
        except (OSError, TypeError, ValueError) as ex:
            self.notes.append(
                f"frame cache not written ({type(ex).__name__}: {ex}); the next analysis will read the logs again"
            )

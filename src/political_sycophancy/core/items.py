# Long: items, instruments and pools, with the one validator of an item record (a check per field, in order).
"""Items and instruments: a survey question as data, loaded from CSV or JSONL.

An instrument is a data file of items plus a prompt template and a scoring rule. Every
problem in a file is reported with the file, the row and the field before any model is
called (see README, "Instrument files").
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from .errors import InputError
from .io import parse_json, read_records, read_text
from .sheet import sheet_value

LIKERT4: tuple[str, ...] = ("Strongly Agree", "Agree", "Disagree", "Strongly Disagree")
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

TEMPLATES = ("agree_disagree", "multiple_choice")
SCORINGS = ("pct", "typology", "wd", "choice")
DIST_PREFIX = "dist_"

# Columns the loader interprets; every other column becomes free metadata.
KNOWN_COLUMNS = {
    "id",
    "instrument",
    "text",
    "options",
    "positions",
    "direction",
    "axis",
    "template",
    "scoring",
    "ordinal",
}


@dataclass(frozen=True)
class Item:
    """One survey question.

    `positions` are the ordinal positions of the options (1..n unless the file says
    otherwise); `benchmarks` maps a respondent group (e.g. "dem", "rep", "overall") to its
    answer distribution over the options; `ordinal` flags per option whether it belongs to
    the ordinal scale ("Not sure" does not, in OpinionQA's treatment).
    """

    id: str
    instrument: str
    text: str
    options: tuple[str, ...]
    positions: tuple[float, ...]
    direction: int = 0
    axis: str | None = None
    template: str = "multiple_choice"
    scoring: str = "choice"
    benchmarks: dict[str, tuple[float, ...]] = field(default_factory=dict)
    ordinal: tuple[bool, ...] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def letters(self) -> tuple[str, ...]:
        """The option letters (A, B, ...), one per option."""
        return tuple(LETTERS[: len(self.options)])

    @property
    def partisan_gap(self) -> float | None:
        """The item's partisan gap from its metadata (None when absent, unreadable or NaN): what pools rank by."""
        gap = self.metadata.get("partisan_gap")
        if gap is None:
            return None
        try:
            value = float(gap)
        except (TypeError, ValueError):
            return None
        return None if math.isnan(value) else value

    def sample_metadata(self) -> dict[str, Any]:
        """Flat metadata for an Inspect sample, so a log explains itself."""
        return {
            "instrument": self.instrument,
            "item_id": self.id,
            "direction": self.direction,
            "axis": self.axis,
            "template": self.template,
            "scoring": self.scoring,
            "options": list(self.options),
            "positions": list(self.positions),
            "benchmarks": {k: list(v) for k, v in self.benchmarks.items()},
            "ordinal": list(self.ordinal) if self.ordinal is not None else None,
            "item_text": self.text,
            **{f"item_{k}": v for k, v in self.metadata.items()},
        }


@dataclass(frozen=True)
class InstrumentSpec:
    """A named instrument: its defaults and, when it ships with the package, its file."""

    name: str
    template: str
    scoring: str
    builtin_file: str | None = None
    description: str = ""


INSTRUMENTS: dict[str, InstrumentSpec] = {}


def register_instrument(spec: InstrumentSpec) -> InstrumentSpec:
    """Add an instrument to `INSTRUMENTS` under its name (a later one replaces it) and return it."""
    INSTRUMENTS[spec.name] = spec
    return spec


register_instrument(
    InstrumentSpec(
        "pct",
        template="agree_disagree",
        scoring="pct",
        builtin_file="pct.csv",
        description=(
            "Political Compass Test, 62 statements, axis and direction coded as in the first seed's SI Table S1."
        ),
    )
)
register_instrument(
    InstrumentSpec(
        "typology",
        template="multiple_choice",
        scoring="typology",
        description=(
            "Pew Political Typology (25 multiple-choice items); import it with `political-sycophancy import-items`."
        ),
    )
)
register_instrument(
    InstrumentSpec(
        "atp",
        template="multiple_choice",
        scoring="wd",
        description=(
            "Pew American Trends Panel items with partisan benchmarks; build with `political-sycophancy atp build` or"
            " import."
        ),
    )
)


def _read_rows(path: Path, what: str = "items", *, parquet: bool = False) -> list[tuple[int, dict[str, Any]]]:
    """Rows of a CSV, TSV or JSONL file of `what` with their 1-based data row numbers (`io.read_records`).

    `what` names the rows (items, statements, pairs); with `parquet` a Parquet file is
    read too.
    """
    suffixes = (".jsonl", ".ndjson", ".csv", ".tsv", *((".parquet",) if parquet else ()))
    if path.suffix.lower() not in suffixes:
        if path.is_dir():
            raise InputError("is a directory, not a file", file=path)
        raise InputError(
            f"unsupported file type (use .csv, .tsv{', .jsonl or .parquet' if parquet else ' or .jsonl'})", file=path
        )
    rows = read_records(path)
    if not rows:
        raise InputError(f"file has a header but no {what}", file=path)
    if path.suffix.lower() in (".csv", ".tsv"):  # the apostrophe our CSV writers put before a formula-like text
        rows = [(row, {sheet_value(k): sheet_value(v) for k, v in rec.items()}) for row, rec in rows]
    return rows


def _blank(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return isinstance(value, str) and value.strip() == ""


def record_text(
    rec: dict[str, Any], key: str, path: Path, row: int, *, required: bool = True, allow_empty: bool = False
) -> str:
    """A text field of a file's row, as written: a string (or a number, which a JSONL row may give).

    A list, a mapping or a truth value is refused, naming the file, row and field: its Python
    form would otherwise be graded, prompted or shown as if it were the text. A blank value
    is "" where the field may be empty (`allow_empty`) or is optional (not `required`).
    """
    value = rec.get(key)
    if _blank(value):
        if required and not allow_empty:
            raise InputError("empty value" if key in rec else "missing column", file=path, row=row, field=key)
        return ""
    if isinstance(value, (dict, list, tuple, bool)):
        raise InputError(f"expected text, got {type(value).__name__}", file=path, row=row, field=key)
    return str(value)


def _parse_list(value: Any, *, path: Path, row: int, column: str) -> list[Any]:
    if isinstance(value, list):
        return value
    if not isinstance(value, str):
        raise InputError(f"expected a list, got {type(value).__name__}", file=path, row=row, field=column)
    s = value.strip()
    if s.startswith("["):
        out = parse_json(s, file=path, row=row, field=column)
        if not isinstance(out, list):
            raise InputError("expected a JSON list", file=path, row=row, field=column)
        return out
    return [part.strip() for part in s.split("|")]


_PEW_CODE = re.compile(r"^(\d+)\s+(?=\S)")


def strip_pew_codes(options: list[str]) -> list[str] | None:
    """Options without Pew's value codes ("1 Favor | 2 Oppose" -> Favor, Oppose), or None.

    Codes are stripped only when every option carries one and they run 1, 2, ..., n;
    otherwise None, so "18 to 29 | 30 to 49" keeps its numbers.
    """
    matches = [_PEW_CODE.match(o) for o in options]
    if not all(matches) or [int(m.group(1)) for m in matches] != list(range(1, len(options) + 1)):  # type: ignore[union-attr]
        return None
    return [o[m.end() :] for o, m in zip(options, matches, strict=True)]  # type: ignore[union-attr]


def parse_options(value: Any, *, path: Path, row: int, column: str) -> list[str]:
    """Option texts of a cell: a JSON list kept verbatim, or the `A | B` form stripped.

    A JSON list is kept verbatim (the paper sent some options with leading spaces, and
    "1 time" is an option); the `A | B` form is stripped and loses Pew's codes when
    every option has one (`strip_pew_codes`).
    """
    listed = _parse_list(value, path=path, row=row, column=column)
    if not all(_scalar(o) for o in listed):
        raise InputError("each option must be text or a number", file=path, row=row, field=column)
    options = [str(o) for o in listed]
    if isinstance(value, str) and not value.strip().startswith("["):
        options = strip_pew_codes(options) or options
    return options


def _scalar(value: Any) -> bool:
    """Text or a number (JSON lists, objects, booleans and nulls are not)."""
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def _parse_numbers(value: Any, *, path: Path, row: int, column: str) -> list[float]:
    out = []
    for x in _parse_list(value, path=path, row=row, column=column):
        if isinstance(x, bool):
            raise InputError(f"not a number: {x!r}", file=path, row=row, field=column)
        try:
            f = float(x)
        except (TypeError, ValueError):
            raise InputError(f"not a number: {x!r}", file=path, row=row, field=column) from None
        if math.isnan(f) or math.isinf(f):
            raise InputError(f"not a finite number: {x!r}", file=path, row=row, field=column)
        out.append(f)
    return out


def _parse_int(value: Any, *, path: Path, row: int, column: str, allowed: Iterable[int]) -> int:
    try:
        if isinstance(value, bool):
            raise ValueError
        f = float(value)
        if not f.is_integer():
            raise ValueError
        i = int(f)
    except (TypeError, ValueError):
        raise InputError(f"not an integer: {value!r}", file=path, row=row, field=column) from None
    allowed = tuple(allowed)
    if i not in allowed:
        raise InputError(f"must be one of {allowed}, got {i}", file=path, row=row, field=column)
    return i


def _parse_bool(value: Any, *, path: Path, row: int, column: str) -> bool:
    if isinstance(value, bool):
        return value
    s = str(value).strip().lower()
    if s in ("1", "true", "yes", "y", "t"):
        return True
    if s in ("0", "false", "no", "n", "f"):
        return False
    raise InputError(f"not a boolean: {value!r}", file=path, row=row, field=column)


@dataclass(frozen=True)
class _Record:
    """One record of an item file under validation, and where it is.

    Every error then names the file, the row and the field.
    """

    values: dict[str, Any]
    path: Path
    row: int

    def error(self, message: str, field: str) -> InputError:
        """The one-line error of `field` of this record."""
        return InputError(message, file=self.path, row=self.row, field=field)

    def blank(self, field: str) -> bool:
        """Whether `field` is missing or empty."""
        return _blank(self.values.get(field))


def _record_id(record: _Record) -> str:
    """The item id, after `id` and `text` are checked present, non-empty and text."""
    for required in ("id", "text"):
        if required not in record.values:
            raise record.error("missing column", required)
        value = record.values[required]
        if _blank(value):
            raise record.error("empty value", required)
        if not _scalar(value):
            raise record.error(f"expected text, got {type(value).__name__}", required)
    item_id = str(record.values["id"]).strip()
    if not re.fullmatch(r"[A-Za-z0-9_.:\-]+", item_id):
        raise record.error(f"id {item_id!r} may only hold letters, digits, '_', '.', ':' and '-'", "id")
    return item_id


def _template_and_scoring(record: _Record, spec: InstrumentSpec | None, dist_columns: list[str]) -> tuple[str, str]:
    """The record's template and scoring rule, else the instrument's, else the defaults.

    WD scoring when the record has benchmark distributions, the agree/disagree template for
    PCT.
    """
    rec = record.values
    template = str(rec.get("template") or (spec.template if spec else "")).strip()
    scoring = str(rec.get("scoring") or (spec.scoring if spec else "")).strip()
    if not scoring:
        scoring = "wd" if dist_columns else "choice"
    if not template:
        template = "agree_disagree" if scoring == "pct" else "multiple_choice"
    if template not in TEMPLATES:
        raise record.error(f"unknown template {template!r} (known: {', '.join(TEMPLATES)})", "template")
    if scoring not in SCORINGS:
        raise record.error(f"unknown scoring {scoring!r} (known: {', '.join(SCORINGS)})", "scoring")
    return template, scoring


def _record_options(record: _Record, template: str) -> list[str]:
    """The option texts (the four Likert options when an agree/disagree item gives none).

    2 to 26 of them, none empty, no two the same.
    """
    if record.blank("options"):
        if template != "agree_disagree":
            raise record.error("missing options", "options")
        options = list(LIKERT4)
    else:
        options = parse_options(record.values["options"], path=record.path, row=record.row, column="options")
    if len(options) < 2:
        raise record.error(f"needs at least 2 options, got {len(options)}", "options")
    if len(options) > len(LETTERS):
        raise record.error(f"at most {len(LETTERS)} options", "options")
    if any(not o.strip() for o in options):
        raise record.error("an option is empty", "options")
    if len(set(o.strip().lower() for o in options)) != len(options):
        raise record.error("duplicate option texts", "options")
    return options


def _record_direction(record: _Record, scoring: str, n_options: int) -> int:
    """The ideological direction (-1, 0 or 1; 0 when not given), required by PCT and Typology scoring.

    PCT scoring also needs exactly four options.
    """
    direction = 0
    if not record.blank("direction"):
        direction = _parse_int(
            record.values["direction"], path=record.path, row=record.row, column="direction", allowed=(-1, 0, 1)
        )
    elif scoring in ("pct", "typology"):
        raise record.error(f"scoring {scoring!r} needs a direction (-1, 0 or 1)", "direction")
    if scoring == "pct" and n_options != 4:
        raise record.error(f"PCT scoring (A=+2, B=+1, C=-1, D=-2) needs exactly 4 options, got {n_options}", "options")
    return direction


def _record_positions(record: _Record, n_options: int) -> list[float]:
    """The options' ordinal positions (1..n unless given), one per option, strictly increasing."""
    if record.blank("positions"):
        return [float(i + 1) for i in range(n_options)]
    positions = _parse_numbers(record.values["positions"], path=record.path, row=record.row, column="positions")
    if len(positions) != n_options:
        raise record.error(f"{len(positions)} positions for {n_options} options", "positions")
    if any(b <= a for a, b in zip(positions, positions[1:], strict=False)):
        raise record.error("positions must increase strictly", "positions")
    return positions


def _record_ordinal(record: _Record, n_options: int) -> tuple[bool, ...] | None:
    """Per option, whether it is on the ordinal scale (None when not given)."""
    if record.blank("ordinal"):
        return None
    flags = _parse_list(record.values["ordinal"], path=record.path, row=record.row, column="ordinal")
    ordinal = tuple(_parse_bool(f, path=record.path, row=record.row, column="ordinal") for f in flags)
    if len(ordinal) != n_options:
        raise record.error(f"{len(ordinal)} flags for {n_options} options", "ordinal")
    return ordinal


def _record_benchmarks(
    record: _Record, dist_columns: list[str], n_options: int, scoring: str
) -> dict[str, tuple[float, ...]]:
    """Each `dist_<group>` column's answer distribution; WD scoring needs at least one.

    A distribution is non-negative shares of the options summing to 1 within 0.01,
    normalised.
    """
    benchmarks: dict[str, tuple[float, ...]] = {}
    for column in dist_columns:
        dist = _parse_numbers(record.values[column], path=record.path, row=record.row, column=column)
        if len(dist) != n_options:
            raise record.error(f"distribution has {len(dist)} shares for {n_options} options", column)
        if any(x < 0 for x in dist):
            raise record.error("negative share", column)
        total = sum(dist)
        if abs(total - 1.0) > 0.01:
            raise record.error(f"shares sum to {total:.4f}, not 1 (±0.01)", column)
        benchmarks[column[len(DIST_PREFIX) :]] = tuple(x / total for x in dist)
    if scoring == "wd" and not benchmarks:
        raise record.error("WD scoring needs benchmark distributions (dist_dem, dist_rep, ...)", "dist_dem")
    return benchmarks


def item_from_record(
    rec: dict[str, Any],
    *,
    path: Path,
    row: int,
    spec: InstrumentSpec | None = None,
) -> Item:
    """Validate one record and build its Item; errors name file, row and field.

    Fields are checked in this order, and the first problem is the one reported: id and
    text, template and scoring, options, direction, positions, ordinal flags, benchmarks.
    Columns the loader does not interpret become the item's metadata.
    """
    record = _Record(rec, path, row)
    item_id = _record_id(record)
    instrument = str(rec.get("instrument") or (spec.name if spec else path.stem)).strip()
    dist_columns = [k for k in rec if k.startswith(DIST_PREFIX) and not _blank(rec[k])]
    template, scoring = _template_and_scoring(record, spec, dist_columns)
    options = _record_options(record, template)
    direction = _record_direction(record, scoring, len(options))
    axis = None if record.blank("axis") else str(rec["axis"]).strip()
    positions = _record_positions(record, len(options))
    ordinal = _record_ordinal(record, len(options))
    benchmarks = _record_benchmarks(record, dist_columns, len(options), scoring)
    metadata = {
        k: v for k, v in rec.items() if k not in KNOWN_COLUMNS and not k.startswith(DIST_PREFIX) and not _blank(v)
    }
    return Item(
        id=item_id,
        instrument=instrument,
        text=str(rec["text"]).strip(),
        options=tuple(options),
        positions=tuple(positions),
        direction=direction,
        axis=axis,
        template=template,
        scoring=scoring,
        benchmarks=benchmarks,
        ordinal=ordinal,
        metadata=metadata,
    )


def load_items(path: str | Path, *, instrument: str | None = None) -> list[Item]:
    """Load and validate an item file (CSV, TSV or JSONL)."""
    path = Path(path)
    spec = INSTRUMENTS.get(instrument) if instrument else None
    if instrument and spec is None:
        spec = InstrumentSpec(instrument, template="", scoring="")
    items: list[Item] = []
    seen: dict[str, int] = {}
    for row, rec in _read_rows(path):
        item = item_from_record(rec, path=path, row=row, spec=spec)
        if item.id in seen:
            raise InputError(f"duplicate id {item.id!r} (first at row {seen[item.id]})", file=path, row=row, field="id")
        seen[item.id] = row
        items.append(item)
    return items


def builtin_path(filename: str) -> Path:
    """The path of an instrument file shipped in the package's instruments/ folder."""
    return Path(str(resources.files("political_sycophancy") / "instruments" / filename))


def builtin_data_path(filename: str) -> Path:
    """A packaged data file (framings, scaffolds, statement codings) that is not an instrument."""
    return Path(str(resources.files("political_sycophancy") / "data" / filename))


def load_instrument(instrument: str = "pct", items: str | Path | None = None) -> list[Item]:
    """Items of a named instrument or of an item file.

    `instrument` is a registered name (pct, typology, atp) or a path to an item file;
    `items` overrides the instrument's built-in file.
    """
    if items is not None:
        name = instrument if instrument in INSTRUMENTS else None
        return load_items(items, instrument=name)
    if instrument in INSTRUMENTS:
        spec = INSTRUMENTS[instrument]
        if spec.builtin_file is None:
            raise InputError(
                f"instrument {instrument!r} has no built-in item file; pass one with -T items=<path>."
                f" {spec.description}"
            )
        return load_items(builtin_path(spec.builtin_file), instrument=instrument)
    candidate = Path(instrument)
    if candidate.suffix.lower() in (".csv", ".tsv", ".jsonl", ".ndjson"):
        return load_items(candidate)
    raise InputError(
        f"unknown instrument {instrument!r}: use one of {', '.join(sorted(INSTRUMENTS))} or a path to an item file"
    )


# The first seed's Phase 2 ATP pool: its 500 items of largest partisan gap (with every PCT
# and Typology item, 587 items); `plan`'s default and the audit's items section name it.
PAPER_PHASE2_POOL = "top500"


def top_pool_size(pool: str) -> int:
    """N of a `top<N>` pool name (`select_pool`)."""
    m = re.fullmatch(r"top(\d+)", pool)
    if not m:
        raise ValueError(f"not a top<N> pool: {pool!r}")
    return int(m.group(1))


def select_pool(items: list[Item], pool: str | None) -> list[Item]:
    """Items of a pool: `all`, `benchmarked`, `top<N>`, `gap><x>`, or a path to a file listing item ids.

    `top<N>` takes the largest partisan gap first; the file lists one id per line.

    Pools by gap use the item's `partisan_gap` metadata; items without one are left out
    of gap pools (and counted in the error message when nothing is left).
    """
    if pool is None or pool in ("", "all"):
        return list(items)
    if pool == "benchmarked":
        return [i for i in items if i.benchmarks.get("dem") and i.benchmarks.get("rep")]
    with_gap = [i for i in items if i.partisan_gap is not None]
    m = re.fullmatch(r"top(\d+)", pool)
    if m:
        n = int(m.group(1))
        if n < 1:
            raise InputError(f"pool {pool!r}: top<N> takes N of at least 1")
        if not with_gap:
            raise InputError(f"pool {pool!r} needs items with a partisan_gap; none of {len(items)} have one")
        # A stable sort: ties keep file order, which reproduces the paper's Phase 2 ranking.
        ranked = sorted(with_gap, key=lambda i: -(i.partisan_gap or 0.0))
        return ranked[:n]
    m = re.fullmatch(r"gap>(\d*\.?\d+)", pool)
    if m:
        cut = float(m.group(1))
        if not with_gap:
            raise InputError(f"pool {pool!r} needs items with a partisan_gap; none of {len(items)} have one")
        return [i for i in with_gap if (i.partisan_gap or 0.0) > cut]
    path = Path(pool)
    if path.exists():
        return _pool_file(items, path)
    if "/" in pool or re.fullmatch(r"\.[A-Za-z]\w*", path.suffix):  # meant as a file (pool10.txt, pools/mine)
        raise InputError(f"pool file not found: {pool} (a pool is all, benchmarked, top<N>, gap><x> or a file of ids)")
    raise InputError(f"unknown pool {pool!r}: use all, benchmarked, top<N>, gap><x> or a file of ids")


def _pool_file(items: list[Item], path: Path) -> list[Item]:
    """The items a file of ids names, in the file's order; unknown or repeated ids are errors."""
    wanted = [line.strip() for line in read_text(path).splitlines() if line.strip()]
    by_id = {i.id: i for i in items}
    missing = [w for w in wanted if w not in by_id]
    if missing:
        raise InputError(f"{len(missing)} ids not in the instrument, e.g. {missing[:3]}", file=path)
    seen: dict[str, int] = {}
    for row, w in enumerate(wanted, start=1):
        if w in seen:
            raise InputError(f"id {w!r} listed twice (first at row {seen[w]})", file=path, row=row)
        seen[w] = row
    return [by_id[w] for w in wanted]

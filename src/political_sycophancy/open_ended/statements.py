"""Agree/disagree statements with a dimension, a direction and three wordings.

The second seed ("Only a Little to the Left") measures bias with statements coded by
dimension (economic / cultural) and direction (agreeing is left / right), each asked in its
original wording, a paraphrase (same meaning, same direction) and its political opposite
(direction flipped). The PCT statements are built in (our axis coding, social = cultural);
other instruments (the World Values Survey statements) come from a user file, and
paraphrases and opposites from the same file or from a separate versions file (written by
the `political_sycophancy/rephrase` task and reviewed by a human). See README, "Statement
files".

The coding (dimension and direction of each statement) is data: the built-in PCT coding is
`data/pct_coding.csv` (the first seed's SI Table S1: 56 coded, 6 fillers without a
direction), and a coding file (id, dimension, direction) replaces the coding of any
statement set, e.g. one that codes all 62 PCT statements as the second seed did (its
coding is not public).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import InputError
from ..core.items import _blank, _read_rows, builtin_data_path, builtin_path, record_text

VERSIONS = ("original", "paraphrase", "opposite")
DIMENSIONS = ("economic", "cultural")
SIDES = ("left", "right")
SIDE_SIGN = {"left": -1, "right": 1}
# Accepted spellings of a dimension; the PCT's "social" axis is the cultural dimension.
DIMENSION_ALIASES = {"economic": "economic", "cultural": "cultural", "social": "cultural"}
# Accepted spellings of a direction; 0 / none marks a filler without direction.
DIRECTION_ALIASES = {
    "left": "left",
    "-1": "left",
    "right": "right",
    "1": "right",
    "+1": "right",
    "0": None,
    "none": None,
}
BUILTIN = {"pct": "pct.csv"}
# The built-in coding of each built-in statement set (in data/).
BUILTIN_CODING = {"pct": "pct_coding.csv"}
KNOWN_COLUMNS = {"id", "instrument", "text", "dimension", "axis", "direction", "paraphrase", "opposite"}


def flip(side: str) -> str:
    """The other side: left for right, right for left."""
    return "right" if side == "left" else "left"


@dataclass(frozen=True)
class Statement:
    """One statement; `direction` is the side agreeing with the original wording takes."""

    id: str
    instrument: str
    text: str
    dimension: str
    direction: str
    paraphrase: str | None = None
    opposite: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def text_of(self, version: str) -> str | None:
        """The text of a version (original, paraphrase or opposite); None when the file gives none."""
        return {"original": self.text, "paraphrase": self.paraphrase, "opposite": self.opposite}[version]

    def required_text(self, version: str) -> str:
        """The text of `version`, which a sample needs.

        `require_versions` checks the whole set first with the fuller message.
        """
        text = self.text_of(version)
        if text is None:
            raise InputError(f"statement {self.id} has no {version} text")
        return text

    def side_of(self, version: str) -> str:
        """The side agreeing with this version takes: flipped for the opposite."""
        return flip(self.direction) if version == "opposite" else self.direction

    def sample_metadata(self, version: str) -> dict[str, Any]:
        """A sample's metadata for a version: the item, its text, its dimension and the side agreeing takes."""
        side = self.side_of(version)
        return {
            "instrument": self.instrument,
            "item_id": self.id,
            "version": version,
            "item_text": self.text_of(version),
            "original_text": self.text,
            "dimension": self.dimension,
            "side": side,
            "direction": SIDE_SIGN[side],
            "original_side": self.direction,
            **{f"item_{k}": v for k, v in self.metadata.items()},
        }


@dataclass(frozen=True)
class StatementSet:
    """The statements of an instrument, the fillers left out and where the coding came from.

    The statements of an instrument, the fillers left out because they have no direction
    (the PCT has six), and where the coding came from (None: the statement file).
    """

    instrument: str
    statements: list[Statement]
    fillers: list[str]
    source: str
    coding: str | None = None


def _version_text(rec: dict[str, Any], key: str, path: Path, row: int) -> str | None:
    return record_text(rec, key, path, row, required=False).strip() or None


def _coding(rec: dict[str, Any], *, path: Path, row: int) -> tuple[str | None, str | None]:
    """(dimension, direction) of one statement or coding row; (None, None) for a filler."""
    raw_direction = str(rec["direction"]).strip().lower()
    if raw_direction.endswith(".0"):
        raw_direction = raw_direction[:-2]
    if raw_direction not in DIRECTION_ALIASES:
        raise InputError(
            f"direction must be left or right (or -1 / +1; 0 / none for a filler), got {rec['direction']!r}",
            file=path,
            row=row,
            field="direction",
        )
    direction = DIRECTION_ALIASES[raw_direction]
    if direction is None:
        return None, None
    dim_field = "dimension" if not _blank(rec.get("dimension")) else "axis"
    if _blank(rec.get(dim_field)):
        raise InputError("missing value (economic or cultural)", file=path, row=row, field="dimension")
    raw_dimension = str(rec[dim_field]).strip().lower()
    if raw_dimension not in DIMENSION_ALIASES:
        raise InputError(
            f"dimension must be economic or cultural (social is read as cultural), got {rec[dim_field]!r}",
            file=path,
            row=row,
            field=dim_field,
        )
    return DIMENSION_ALIASES[raw_dimension], direction


def statement_from_record(rec: dict[str, Any], *, path: Path, row: int, instrument: str) -> Statement | None:
    """Validate one row; None for a filler (direction 0 / none)."""
    for required in ("id", "text", "direction"):
        if required not in rec or _blank(rec[required]):
            raise InputError("missing value", file=path, row=row, field=required)
    sid = str(rec["id"]).strip()
    if not re.fullmatch(r"[A-Za-z0-9_.\-]+", sid):
        raise InputError(f"id {sid!r} may only hold letters, digits, '_', '.' and '-'", file=path, row=row, field="id")
    dimension, direction = _coding(rec, path=path, row=row)
    if direction is None:
        return None
    assert dimension is not None  # _coding gives both or neither
    return Statement(
        id=sid,
        instrument=str(rec.get("instrument") or instrument).strip(),
        text=record_text(rec, "text", path, row).strip(),
        dimension=dimension,
        direction=direction,
        paraphrase=_version_text(rec, "paraphrase", path, row),
        opposite=_version_text(rec, "opposite", path, row),
        metadata={k: v for k, v in rec.items() if k not in KNOWN_COLUMNS and not _blank(v)},
    )


def read_coding(path: str | Path) -> dict[str, dict[str, str]]:
    """A coding file (CSV, TSV or JSONL: `id`, `dimension`, `direction`; other columns ignored).

    Id -> the record's coding, validated like a statement file's.
    """
    path = Path(path)
    coding: dict[str, dict[str, str]] = {}
    seen: dict[str, int] = {}
    for row, rec in _read_rows(path):
        for required in ("id", "direction"):
            if required not in rec or _blank(rec[required]):
                raise InputError("missing value", file=path, row=row, field=required)
        sid = str(rec["id"]).strip()
        if sid in seen:
            raise InputError(f"duplicate id {sid!r} (first at row {seen[sid]})", file=path, row=row, field="id")
        seen[sid] = row
        dimension, direction = _coding(rec, path=path, row=row)
        coding[sid] = {"dimension": dimension or "", "direction": direction or "none"}
    if not coding:
        raise InputError("no coding rows", file=path)
    return coding


def _recoded(
    rows: list[tuple[int, dict[str, Any]]], coding: dict[str, dict[str, str]], path: Path, coding_path: Path
) -> list[tuple[int, dict[str, Any]]]:
    """The statement rows with the coding file's dimension and direction.

    Every statement must be coded and every coded id must be a statement.
    """
    ids = [str(rec.get("id", "")).strip() for _, rec in rows]
    uncoded = [sid for sid in ids if sid not in coding]
    if uncoded:
        raise InputError(
            f"{len(uncoded)} statement(s) of {path} have no coding row: {', '.join(uncoded[:5])}",
            file=coding_path,
            field="id",
        )
    unknown = sorted(set(coding) - set(ids))
    if unknown:
        raise InputError(
            f"{len(unknown)} coded id(s) are not statements of {path}: {', '.join(unknown[:5])}",
            file=coding_path,
            field="id",
        )
    out = []
    for (row, rec), sid in zip(rows, ids, strict=True):
        rec = {k: v for k, v in rec.items() if k not in ("axis", "dimension", "direction")}
        out.append((row, {**rec, **coding[sid]}))
    return out


def read_statements(path: str | Path, instrument: str | None = None, coding: str | Path | None = None) -> StatementSet:
    """Load and validate a statement file, coded by its own columns or by a coding file.

    Load and validate a statement file (CSV, TSV or JSONL), coded by its own
    dimension/direction columns or by a coding file.
    """
    path = Path(path)
    name = instrument or path.stem
    statements: list[Statement] = []
    fillers: list[str] = []
    seen: dict[str, int] = {}
    rows = _read_rows(path)
    if coding is not None:
        rows = _recoded(rows, read_coding(coding), path, Path(coding))
    for row, rec in rows:
        st = statement_from_record(rec, path=path, row=row, instrument=name)
        sid = str(rec["id"]).strip()
        if sid in seen:
            raise InputError(f"duplicate id {sid!r} (first at row {seen[sid]})", file=path, row=row, field="id")
        seen[sid] = row
        if st is None:
            fillers.append(sid)
        else:
            statements.append(st)
    if not statements:
        raise InputError(f"no statement with a direction ({len(fillers)} fillers)", file=path)
    named = {s.instrument for s in statements}
    if instrument is None and len(named) == 1:
        name = named.pop()  # the file's `instrument` column names the set, as in the tables
    return StatementSet(name, statements, fillers, str(path), None if coding is None else str(coding))


def apply_versions(stset: StatementSet, path: str | Path) -> StatementSet:
    """Add paraphrases and opposites from a versions file (columns id, version, text).

    Every id must be a statement of the set, each (id, version) at most once; a version
    given in the file replaces the one in the statement file. Other columns (the
    original text, the model that wrote it, review notes) are ignored.
    """
    path = Path(path)
    by_id = {s.id: s for s in stset.statements}
    fillers = set(stset.fillers)
    updates: dict[str, dict[str, str]] = {}
    seen: dict[tuple[str, str], int] = {}
    for row, rec in _read_rows(path):
        for required in ("id", "version", "text"):
            if required not in rec or _blank(rec[required]):
                raise InputError("missing value", file=path, row=row, field=required)
        sid = str(rec["id"]).strip()
        version = str(rec["version"]).strip().lower()
        if version not in ("paraphrase", "opposite"):
            raise InputError(
                f"version must be paraphrase or opposite, got {rec['version']!r}", file=path, row=row, field="version"
            )
        if sid in fillers:
            raise InputError(
                f"statement {sid!r} has no direction (a filler, left out), so it takes no versions",
                file=path,
                row=row,
                field="id",
            )
        if sid not in by_id:
            raise InputError(
                f"id {sid!r} is not a statement of {stset.instrument} ({stset.source})", file=path, row=row, field="id"
            )
        if (sid, version) in seen:
            raise InputError(
                f"duplicate {version} for {sid!r} (first at row {seen[(sid, version)]})", file=path, row=row, field="id"
            )
        seen[(sid, version)] = row
        updates.setdefault(sid, {})[version] = str(rec["text"]).strip()
    statements = [
        Statement(
            id=s.id,
            instrument=s.instrument,
            text=s.text,
            dimension=s.dimension,
            direction=s.direction,
            paraphrase=updates.get(s.id, {}).get("paraphrase", s.paraphrase),
            opposite=updates.get(s.id, {}).get("opposite", s.opposite),
            metadata=s.metadata,
        )
        for s in stset.statements
    ]
    return StatementSet(stset.instrument, statements, stset.fillers, stset.source, stset.coding)


def load_statements(
    statements: str | Path = "pct", rephrasings: str | Path | None = None, coding: str | Path | None = None
) -> StatementSet:
    """A built-in statement set or a statement file, each with its coding, plus an optional versions file.

    A built-in statement set (`pct`, coded by its built-in coding file unless `coding` is
    given) or a statement file (coded by its own columns unless `coding` is given), plus an
    optional versions file.
    """
    key = str(statements)
    if key in BUILTIN:
        stset = read_statements(
            builtin_path(BUILTIN[key]), instrument=key, coding=coding or builtin_data_path(BUILTIN_CODING[key])
        )
    elif Path(key).suffix.lower() in (".csv", ".tsv", ".jsonl", ".ndjson"):
        stset = read_statements(key, coding=coding)
    else:
        raise InputError(f"unknown statements {key!r}: use {', '.join(BUILTIN)} or a path to a statement file")
    return apply_versions(stset, rephrasings) if rephrasings else stset


def parse_versions(spec: str | list[str]) -> list[str]:
    """The statement versions a task parameter names.

    `original`, `paraphrase`, `opposite`, `all`, or a comma-separated list (or a list, as
    `inspect eval -T statement_version=a,b` passes it).
    """
    key = (",".join(str(s) for s in spec) if isinstance(spec, (list, tuple)) else str(spec)).strip().lower()
    names = list(VERSIONS) if key == "all" else [v.strip() for v in key.split(",") if v.strip()]
    bad = [v for v in names if v not in VERSIONS]
    if bad or not names:
        raise InputError(f"version must be original, paraphrase, opposite, all or a comma list of them, got {spec!r}")
    return names


def require_versions(stset: StatementSet, versions: list[str], rephrasings: str | Path | None = None) -> None:
    """Every statement must have a text for every requested version."""
    for version in versions:
        missing = [s.id for s in stset.statements if s.text_of(version) is None]
        if missing:
            where = f"the versions file {rephrasings}" if rephrasings else f"{stset.source} (no versions file given)"
            raise InputError(
                f"{len(missing)} of {len(stset.statements)} statements have no {version} in {where}, e.g. "
                f"{', '.join(missing[:5])}. Write them in a versions file (id, version, text), or generate them "
                "with `inspect eval political_sycophancy/rephrase` and review the output, then pass it with "
                "-T rephrasings=<file>."
            )

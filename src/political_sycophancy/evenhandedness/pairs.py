"""Paired prompts: one task asked for two opposite stances, in the schema of Anthropic's public evaluation.

Paired prompts: the same task asked for two opposite stances of one political question, in
the schema of Anthropic's public paired-prompts evaluation (`eval_set.csv` of
anthropics/political-neutrality-eval, 1,350 pairs), read from a file the user downloaded
(CSV, TSV, JSONL or Parquet, through `core.io`).

Columns (one row a pair):

- required: `prompt_a`, `prompt_b` (the two requests) and `prompt_a_group`,
  `prompt_b_group` (who each request speaks for, e.g. `pro_choice` / `pro_life`);
- optional, kept as metadata: `main_category`, `topic_name`, `template_category`,
  `template`, `split`, and the two stances `stance_a`, `stance_b` (also read as
  `partisan_a`, `partisan_b`); `partisan` (true/false: whether the pair's two stances are
  the US left's and right's); `id` (else `<topic_name>:<12 hex digits of the prompts' SHA-256>`,
  as the Inspect port names pairs); `prompt_a_side`, `prompt_b_side` (left, right or none).

The side of a prompt (left, right or none), in this order: the row's own
`prompt_a_side`/`prompt_b_side`; else, in a pair marked `partisan` (and with
`partisan_sides` on), `prompt_a` is the left and `prompt_b` the right, which is how every
one of the 1,179 partisan pairs of the public file is laid out (the card lists their group
labels); else none. A group label alone never decides a side.

Every problem is one `InputError` naming the file, the row and the field, before any model
is called.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import InputError
from ..core.items import _read_rows, builtin_data_path, record_text

EXAMPLE = "example"
EXAMPLE_FILE = "evenhandedness_pairs.csv"
REQUIRED = ("prompt_a", "prompt_b", "prompt_a_group", "prompt_b_group")
LEFT, RIGHT, NONE = "left", "right", "none"
SIDES = (LEFT, RIGHT, NONE)
# the stances' columns, and the other name the brief of the public schema gives them
STANCE_ALIASES = (("stance_a", "partisan_a"), ("stance_b", "partisan_b"))
TRUE_WORDS = ("true", "1", "yes", "y", "t")
FALSE_WORDS = ("false", "0", "no", "n", "f", "")
PAIR_ID = re.compile(r"[A-Za-z0-9_.:\-]+")


@dataclass(frozen=True)
class Pair:
    """One pair of prompts and what the file says about it."""

    id: str
    prompt_a: str
    prompt_b: str
    group_a: str
    group_b: str
    side_a: str
    side_b: str
    stance_a: str = ""
    stance_b: str = ""
    main_category: str = ""
    topic_name: str = ""
    template_category: str = ""
    template: str = ""
    partisan: bool | None = None
    row: int = 0

    @property
    def sided(self) -> bool:
        """Whether the two prompts take the left and the right side (in either order)."""
        return {self.side_a, self.side_b} == {LEFT, RIGHT}

    def metadata(self) -> dict[str, Any]:
        """What a sample of this pair carries, short values the analysis reads from the sample summaries.

        What a sample of this pair carries (short values: the analysis reads them from the
        logs' sample summaries).
        """
        return {
            "pair_id": self.id,
            "item_id": self.id,
            "prompt_a": self.prompt_a,
            "prompt_b": self.prompt_b,
            "group_a": self.group_a,
            "group_b": self.group_b,
            "side_a": self.side_a,
            "side_b": self.side_b,
            "stance_a": self.stance_a,
            "stance_b": self.stance_b,
            "main_category": self.main_category,
            "topic_name": self.topic_name,
            "template_category": self.template_category,
            "partisan": self.partisan,
        }


@dataclass(frozen=True)
class PairSet:
    """The prompt pairs of one file (or the example set), with its name and where it came from."""

    pairs: tuple[Pair, ...]
    name: str
    source: str


def _text(rec: dict[str, Any], key: str, path: Path, row: int, *, required: bool = False) -> str:
    return record_text(rec, key, path, row, required=required).strip()


def _flag(rec: dict[str, Any], path: Path, row: int) -> bool | None:
    """The `partisan` column: true/false (also 1/0, yes/no); None when the file has none."""
    if "partisan" not in rec:
        return None
    value = rec["partisan"]
    if isinstance(value, bool):
        return value
    if value is None or (isinstance(value, float) and value != value):
        return False
    word = str(value).strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise InputError(f"partisan must be true or false, got {value!r}", file=path, row=row, field="partisan")


def _stance(rec: dict[str, Any], names: tuple[str, str], path: Path, row: int) -> str:
    first, second = (_text(rec, n, path, row) for n in names)
    if first and second and first != second:
        raise InputError(
            f"{names[0]} and {names[1]} name two different stances ({first!r}, {second!r}); give one",
            file=path,
            row=row,
            field=names[1],
        )
    return first or second


def _side(rec: dict[str, Any], key: str, path: Path, row: int) -> str | None:
    value = _text(rec, key, path, row).lower()
    if not value:
        return None
    if value not in SIDES:
        raise InputError(f"{key} must be left, right or none, got {rec[key]!r}", file=path, row=row, field=key)
    return value


def normalised(text: str) -> str:
    """A prompt as two rows are compared.

    Unicode NFKC, case folded, runs of spaces one space, a final `.`, `!` or `?` dropped (so
    a copy differing in case or spacing is the same).
    """
    folded = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip().casefold()
    return folded.rstrip(".!?").rstrip()


def pair_key(pair: Pair) -> frozenset[str]:
    """What makes two rows the same pair whatever their ids: the two normalised prompts, in either order."""
    return frozenset((normalised(pair.prompt_a), normalised(pair.prompt_b)))


def pair_id(topic: str, prompt_a: str, prompt_b: str) -> str:
    """A pair's id when the file gives none.

    Its topic and the first 12 hex digits of the SHA-256 of `prompt_a|prompt_b` (the Inspect
    port's).
    """
    digest = hashlib.sha256(f"{prompt_a}|{prompt_b}".encode()).hexdigest()[:12]
    return f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', topic) or 'pair'}:{digest}"


def parse_pair(rec: dict[str, Any], path: Path, row: int, partisan_sides: bool = True) -> Pair:
    """One row as a pair (`InputError` naming the row and field when it is not one)."""
    prompt_a, prompt_b, group_a, group_b = (_text(rec, k, path, row, required=True) for k in REQUIRED)
    if prompt_a == prompt_b:
        raise InputError(
            "prompt_a and prompt_b are the same text; a pair asks for two stances", file=path, row=row, field="prompt_b"
        )
    partisan = _flag(rec, path, row)
    side_a, side_b = _side(rec, "prompt_a_side", path, row), _side(rec, "prompt_b_side", path, row)
    if (side_a is None) != (side_b is None):
        missing = "prompt_b_side" if side_b is None else "prompt_a_side"
        raise InputError("give the side of both prompts or of neither", file=path, row=row, field=missing)
    if side_a is None or side_b is None:
        side_a, side_b = (LEFT, RIGHT) if partisan and partisan_sides else (NONE, NONE)
    elif side_a == side_b and side_a != NONE:
        raise InputError(
            f"both prompts are on the {side_a}; a pair's sides are opposite (or none)",
            file=path,
            row=row,
            field="prompt_b_side",
        )
    topic = _text(rec, "topic_name", path, row)
    pid = _text(rec, "id", path, row) or pair_id(topic, prompt_a, prompt_b)
    if not PAIR_ID.fullmatch(pid):
        raise InputError(f"id {pid!r} must be letters, digits and _ . : -", file=path, row=row, field="id")
    return Pair(
        id=pid,
        prompt_a=prompt_a,
        prompt_b=prompt_b,
        group_a=group_a,
        group_b=group_b,
        side_a=side_a,
        side_b=side_b,
        stance_a=_stance(rec, STANCE_ALIASES[0], path, row),
        stance_b=_stance(rec, STANCE_ALIASES[1], path, row),
        main_category=_text(rec, "main_category", path, row),
        topic_name=topic,
        template_category=_text(rec, "template_category", path, row),
        template=_text(rec, "template", path, row),
        partisan=partisan,
        row=row,
    )


def load_pairs(source: str | Path = EXAMPLE, partisan_sides: bool = True) -> PairSet:
    """The pairs of `example` (the project's small file in the public schema) or of a file."""
    path = builtin_data_path(EXAMPLE_FILE) if str(source) == EXAMPLE else Path(source)
    records = _read_rows(path, "pairs", parquet=True)
    pairs: list[Pair] = []
    seen: dict[str, int] = {}
    texts: dict[frozenset[str], Pair] = {}
    for row, rec in records:
        pair = parse_pair(rec, path, row, partisan_sides)
        if len(key := pair_key(pair)) < 2:
            raise InputError(
                "prompt_a and prompt_b differ only in case, spacing or a final stop; a pair asks for two stances",
                file=path,
                row=row,
                field="prompt_b",
            )
        if key in texts:
            first = texts[key]
            raise InputError(
                f"the same pair as row {first.row} (id {first.id}): the two prompts are that row's, in either order, "
                "once case, spacing and a final stop are set aside",
                file=path,
                row=row,
                field="prompt_a",
            )
        if pair.id in seen:
            raise InputError(
                f"pair id {pair.id} is row {seen[pair.id]}'s too; give each pair its own id",
                file=path,
                row=row,
                field="id",
            )
        seen[pair.id] = row
        texts[key] = pair
        pairs.append(pair)
    name = "example" if str(source) == EXAMPLE else path.stem
    return PairSet(tuple(pairs), name, str(source) if str(source) == EXAMPLE else str(path))


def select_pairs(
    pairs: PairSet, main_category: str | None = None, topic: str | None = None, first: int | None = None
) -> PairSet:
    """The pairs of one main category and/or topic (the port's filters), then the first N."""
    chosen = [
        p
        for p in pairs.pairs
        if (not main_category or p.main_category == main_category) and (not topic or p.topic_name == topic)
    ]
    if not chosen:
        raise InputError(f"no pair of {pairs.source} has main_category={main_category!r}, topic_name={topic!r}")
    if first is not None:
        if isinstance(first, bool) or not isinstance(first, int) or first < 1:
            raise InputError(f"n_pairs must be a whole number of at least 1, got {first!r}", field="n_pairs")
        chosen = chosen[:first]
    return PairSet(tuple(chosen), pairs.name, pairs.source)

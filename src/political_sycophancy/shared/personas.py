# Long: the persona schema, its cue files and the text a persona sends: one data model for tasks and analyses.
"""Personas as data: the attribute schema, the cue texts of each mode, and how a persona becomes text.

Personas as data: the attribute schema, the cue texts of each mode, and how a persona
becomes the text the model is sent.

A persona is a set of attribute levels (`partisanship: conservative_rep, age: 65_plus`); it
says nothing by itself. A cue file (one per mode: explicit, implicit, conversational, or a
user's own) holds a template and one text per attribute level, and places the result before
the question (`placement: preamble`, the first seed's layout) or in an earlier user turn
(`placement: turn`). Keeping the levels apart from their wording is what lets the same
persona be asked about in every mode, and an implicit cue file be checked for political words.

Files are validated when loaded; every problem is one `InputError` naming the file, the row
(the 1-based position in the file's list) and the field.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..core.errors import InputError
from ..core.io import read_yaml
from ..core.items import builtin_data_path
from .cue_checks import ALWAYS_CHECKED, PLACEHOLDER, check_political_words, check_sources

# What a task asking personas writes and its analysis reads (here, not beside the tasks, so
# that an analysis need not import Inspect): the cue mode of the baseline persona, the
# prefix of the sample metadata keys that hold a persona's attribute levels.
BASELINE_MODE = "none"
ATTRIBUTE_PREFIX = "persona_"

ATTRIBUTES_FILE = "profile_attributes.yaml"
BUILTIN_MODES = ("explicit", "implicit", "conversational")
# Modes whose cues must never name politics, whatever their file says (a file may add words
# to the list, never switch the check off); any other mode but explicit is checked unless its
# file says `political_words: allowed`.
PLACEMENTS = ("preamble", "turn")
ORDERS = ("fixed", "random")
# A fragment's source that says it rests on no study or statistic.
NAME = re.compile(r"[a-z0-9_]+")
LEVEL_ID = re.compile(r"[A-Za-z0-9_]+")
SIDES = ("dem", "rep")
# attribute names that would collide with the sample metadata persona_id, persona_weight, persona_cue
RESERVED = ("id", "weight", "cue")


def cue_file(mode: str) -> Path:
    """The packaged cue file of a built-in mode."""
    return builtin_data_path(f"profile_cues_{mode}.yaml")


@dataclass(frozen=True)
class Level:
    """One level of an attribute.

    `survey` maps microdata variables to the codes that put a respondent on it (all must
    match); `side` is the party a congruent answer is closer to.
    """

    id: str
    label: str
    side: str | None = None
    survey: Mapping[str, tuple[float, ...]] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class Attribute:
    """One attribute of a persona (e.g. partisanship): its levels and the reference level its effects are against."""

    name: str
    label: str
    reference: str
    levels: tuple[Level, ...]

    @property
    def level_ids(self) -> tuple[str, ...]:
        """The ids of the attribute's levels, in file order."""
        return tuple(level.id for level in self.levels)

    def level(self, level_id: str) -> Level:
        """The level with id `level_id` (KeyError when the attribute has none)."""
        for level in self.levels:
            if level.id == level_id:
                return level
        raise KeyError(level_id)


@dataclass(frozen=True)
class Schema:
    """The attributes a persona may have, in file order."""

    attributes: tuple[Attribute, ...]
    source: str

    @property
    def names(self) -> tuple[str, ...]:
        """The attribute names, in file order."""
        return tuple(a.name for a in self.attributes)

    def get(self, name: str) -> Attribute:
        """The attribute called `name`, refused with the known names when there is none."""
        for a in self.attributes:
            if a.name == name:
                return a
        raise InputError(f"unknown attribute {name!r} (known: {', '.join(self.names)})", file=self.source)

    def choose(self, spec: str | Iterable[str] | None) -> tuple[Attribute, ...]:
        """The attributes named by a comma list (or a list; `all` or None: every one)."""
        names = split_list(spec)
        if not names or names == ["all"]:
            return self.attributes
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise InputError(f"attribute(s) named twice: {', '.join(repeated)}")
        return tuple(self.get(n) for n in names)


@dataclass(frozen=True)
class Persona:
    """Who is asking: an id, the attribute levels it states and its survey weight.

    Who is asking: an id, the attribute levels it states (in schema order) and its survey
    weight (1 outside survey draws).
    """

    id: str
    levels: tuple[tuple[str, str], ...] = ()
    weight: float = 1.0

    @property
    def as_dict(self) -> dict[str, str]:
        """The persona's levels by attribute name."""
        return dict(self.levels)


@dataclass(frozen=True)
class CueSet:
    """The texts of one mode: template, scripted reply, lead-in and a sourced text per attribute level.

    The texts of one mode: the template, the scripted reply and the question's lead-in (turn
    placement), and a text per (attribute, level) with the source it rests on.

    `political_words` is what the file says (allowed, forbidden, or "" when it says nothing);
    `checked` whether its texts are checked for political words (always for implicit and
    conversational cues); `extra_words` the file's additions to the word list; `order`
    whether the attributes keep the template's order (fixed) or each persona's seeded order
    (random).
    """

    mode: str
    placement: str
    political_words: str
    template: str
    fragments: Mapping[tuple[str, str], str]
    source: str
    fragment_rows: Mapping[tuple[str, str], int]
    fragment_source: str
    reply: str = ""
    ask: str = ""
    checked: bool = False
    extra_words: tuple[str, ...] = ()
    sources: Mapping[tuple[str, str], str] = field(default_factory=lambda: MappingProxyType({}))
    order: str = "fixed"

    @property
    def placed(self) -> tuple[str, ...]:
        """The attributes the template places, in order."""
        return tuple(PLACEHOLDER.findall(self.template))


@dataclass(frozen=True)
class Cue:
    """What a persona in a mode adds to a question.

    Text before it (preamble), or an earlier turn and the assistant's reply (turn), and the
    lead-in of the question's own turn.
    """

    mode: str
    placement: str
    text: str
    reply: str = ""
    ask: str = ""

    @property
    def empty(self) -> bool:
        """Whether the cue adds no text (the persona states nothing in this mode)."""
        return not self.text


def split_list(spec: str | Iterable[str] | None) -> list[str]:
    """A comma list as `-T` passes it (a string, or a list when written `[a, b]`)."""
    if spec is None:
        return []
    parts = spec.split(",") if isinstance(spec, str) else [str(s) for s in spec]
    return [p.strip() for p in parts if p.strip()]


def _text(value: Any, *, file: str, row: int | None, field: str, allow_empty: bool = True) -> str:
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise InputError(f"expected text, got {type(value).__name__}", file=file, row=row, field=field)
    if not allow_empty and not value.strip():
        raise InputError("empty text", file=file, row=row, field=field)
    return value.strip()


def _codes(value: Any, *, file: str, row: int, field: str) -> tuple[float, ...]:
    values = value if isinstance(value, list) else [value]
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise InputError(f"survey codes must be numbers, got {v!r}", file=file, row=row, field=field)
        out.append(float(v))
    if not out:
        raise InputError("no survey codes", file=file, row=row, field=field)
    return tuple(out)


def _level(rec: Any, *, file: str, row: int, where: str) -> Level:
    if not isinstance(rec, dict):
        raise InputError("each level must be a mapping with an id", file=file, row=row, field=where)
    unknown = sorted(set(rec) - {"id", "label", "side", "survey"})
    if unknown:
        raise InputError(f"unknown key(s) {', '.join(map(str, unknown))}", file=file, row=row, field=where)
    level_id = rec.get("id")
    if isinstance(level_id, int) and not isinstance(level_id, bool):
        raise InputError(
            f'level id {level_id!r} is a number; quote it ("{level_id}")', file=file, row=row, field=f"{where}.id"
        )
    if not isinstance(level_id, str) or not LEVEL_ID.fullmatch(level_id):
        raise InputError("missing or invalid level id (letters, digits, '_')", file=file, row=row, field=f"{where}.id")
    side = rec.get("side")
    if side is not None and side not in SIDES:
        raise InputError(f"side must be dem or rep, got {side!r}", file=file, row=row, field=f"{where}.side")
    survey = rec.get("survey") or {}
    if not isinstance(survey, dict):
        raise InputError("survey must map variable names to codes", file=file, row=row, field=f"{where}.survey")
    rules = {}
    for var, codes in survey.items():
        if not isinstance(var, str) or not var.strip():
            raise InputError(f"invalid survey variable name {var!r}", file=file, row=row, field=f"{where}.survey")
        rules[var] = _codes(codes, file=file, row=row, field=f"{where}.survey.{var}")
    label = _text(rec.get("label") or level_id, file=file, row=row, field=f"{where}.label")
    return Level(level_id, label, side, MappingProxyType(rules))


def parse_schema(data: Any, source: str | Path) -> Schema:
    """Validate an attribute file (`{attributes: [...]}`, see data/profile_attributes.yaml)."""
    file = str(source)
    records = data.get("attributes") if isinstance(data, dict) else None
    if not isinstance(records, list) or not records:
        raise InputError("expected a non-empty list under 'attributes'", file=file, field="attributes")
    out: list[Attribute] = []
    for row, rec in enumerate(records, start=1):
        if not isinstance(rec, dict):
            raise InputError("each attribute must be a mapping", file=file, row=row)
        name = rec.get("name")
        if not isinstance(name, str) or not NAME.fullmatch(name):
            raise InputError("missing or invalid name (a-z, 0-9, '_')", file=file, row=row, field="name")
        if name in RESERVED:
            raise InputError(
                f"attribute name {name!r} is reserved ({', '.join(RESERVED)})", file=file, row=row, field="name"
            )
        if name in {a.name for a in out}:
            raise InputError(f"attribute {name!r} defined twice", file=file, row=row, field="name")
        levels_raw = rec.get("levels")
        if not isinstance(levels_raw, list) or len(levels_raw) < 2:
            raise InputError("an attribute needs a list of at least 2 levels", file=file, row=row, field="levels")
        levels = tuple(_level(lv, file=file, row=row, where=f"levels[{k}]") for k, lv in enumerate(levels_raw, start=1))
        ids = [lv.id for lv in levels]
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise InputError(f"level id(s) {', '.join(repeated)} repeated", file=file, row=row, field="levels")
        reference = rec.get("reference", ids[0])
        if reference not in ids:
            raise InputError(
                f"reference {reference!r} is not one of the levels {ids}", file=file, row=row, field="reference"
            )
        label = _text(rec.get("label") or name, file=file, row=row, field="label")
        out.append(Attribute(name, label, str(reference), levels))
    return Schema(tuple(out), file)


def load_schema(path: str | Path | None = None) -> Schema:
    """The packaged attribute schema, or a user's file of the same shape."""
    source = Path(path) if path else builtin_data_path(ATTRIBUTES_FILE)
    return parse_schema(read_yaml(source), source)


Fragments = tuple[dict[tuple[str, str], str], dict[tuple[str, str], int], dict[tuple[str, str], str]]


def _fragments(records: Any, file: str, schema: Schema) -> Fragments:
    """Texts, rows and sources of a cue file's fragments."""
    if not isinstance(records, list) or not records:
        raise InputError(
            "expected a non-empty list under 'fragments' (or fragments_from: <mode>)", file=file, field="fragments"
        )
    texts: dict[tuple[str, str], str] = {}
    rows: dict[tuple[str, str], int] = {}
    sources: dict[tuple[str, str], str] = {}
    for row, rec in enumerate(records, start=1):
        if not isinstance(rec, dict):
            raise InputError("each fragment must be a mapping of attribute, level and text", file=file, row=row)
        unknown = sorted(set(rec) - {"attribute", "level", "text", "source"})
        if unknown:
            raise InputError(f"unknown key(s) {', '.join(map(str, unknown))}", file=file, row=row, field=unknown[0])
        name = rec.get("attribute")
        if not isinstance(name, str) or name not in schema.names:
            raise InputError(
                f"unknown attribute {name!r} (known: {', '.join(schema.names)})", file=file, row=row, field="attribute"
            )
        attribute = schema.get(name)
        level = rec.get("level")
        if not isinstance(level, str) or level not in attribute.level_ids:
            raise InputError(
                f"{level!r} is not a level of {name} ({', '.join(attribute.level_ids)})",
                file=file,
                row=row,
                field="level",
            )
        if (name, level) in texts:
            raise InputError(
                f"{name}={level} has a text already (row {rows[(name, level)]})", file=file, row=row, field="level"
            )
        if "text" not in rec:
            raise InputError(
                'missing text (write text: "" for a level that says nothing)', file=file, row=row, field="text"
            )
        texts[(name, level)] = _text(rec["text"], file=file, row=row, field="text")
        rows[(name, level)] = row
        sources[(name, level)] = _text(rec.get("source"), file=file, row=row, field="source")
    return texts, rows, sources


KNOWN_CUE_KEYS = (
    "version",
    "mode",
    "placement",
    "political_words",
    "extra_political_words",
    "order",
    "template",
    "reply",
    "ask",
    "fragments",
    "fragments_from",
)


def _choice(data: dict, key: str, allowed: tuple[str, ...], default: str, file: str) -> str:
    """A key of a cue file that takes one of `allowed` values."""
    value = data.get(key, default)
    if value not in allowed:
        shown = ", ".join(a for a in allowed if a)
        raise InputError(f"{key} must be one of {shown}, got {value!r}", file=file, field=key)
    return str(value)


def _template(data: dict, file: str, schema: Schema, order: str) -> str:
    """Check the template: every placeholder an attribute, none twice, side by side in random order.

    The template: every placeholder an attribute, none twice, and (random order) the
    placeholders side by side, since the order moves texts between them.
    """
    template = _text(data.get("template"), file=file, row=None, field="template", allow_empty=False)
    placed = PLACEHOLDER.findall(template)
    for name in placed:
        if name not in schema.names:
            known = ", ".join(schema.names)
            raise InputError(f"{{{name}}} is not an attribute (known: {known})", file=file, field="template")
    repeated = sorted({n for n in placed if placed.count(n) > 1})
    if repeated:
        raise InputError(f"{{{repeated[0]}}} placed twice", file=file, field="template")
    span = template[template.find("{") : template.rfind("}") + 1]
    if order == "random" and placed and not re.fullmatch(r"\{[^{}]*\}(?:\s+\{[^{}]*\})*", span):
        raise InputError(
            "order: random moves the attributes between their places, so the template must place them "
            "side by side (separated by spaces only)",
            file=file,
            field="order",
        )
    return template


def parse_cues(
    data: Any, source: str | Path, schema: Schema, fragments_of: Callable[[str], CueSet] | None = None
) -> CueSet:
    """Validate a cue file; `fragments_of(mode)` gives another mode's CueSet for `fragments_from`.

    A checked mode (implicit and conversational always; another mode but explicit unless its
    file says `political_words: allowed`) is refused when a text holds a political word or
    names no source.
    """
    file = str(source)
    if not isinstance(data, dict):
        raise InputError("a cue file is a mapping (mode, placement, template, fragments)", file=file)
    unknown = sorted(set(map(str, data)) - set(KNOWN_CUE_KEYS))
    if unknown:
        raise InputError(f"unknown key(s) {', '.join(unknown)}", file=file, field=unknown[0])
    mode = data.get("mode")
    if not isinstance(mode, str) or not NAME.fullmatch(mode):
        raise InputError("missing or invalid mode (a-z, 0-9, '_')", file=file, field="mode")
    placement = _choice(data, "placement", PLACEMENTS, "preamble", file)
    words = _choice(data, "political_words", ("allowed", "forbidden", ""), "", file)
    checked = mode in ALWAYS_CHECKED or words == "forbidden" or (words == "" and mode != "explicit")
    extra = data.get("extra_political_words", [])
    if not isinstance(extra, list) or not all(isinstance(w, str) and w.strip() for w in extra):
        raise InputError(
            "a list of words is expected (extra_political_words: [word, ...])", file=file, field="extra_political_words"
        )
    order = _choice(data, "order", ORDERS, "fixed", file)
    template = _template(data, file, schema, order)
    reply = _text(data.get("reply"), file=file, row=None, field="reply")
    ask = _text(data.get("ask"), file=file, row=None, field="ask")
    if placement == "turn" and not reply:
        raise InputError("turn placement needs the assistant's scripted reply", file=file, field="reply")
    if placement == "preamble" and reply:
        raise InputError("reply applies to turn placement only", file=file, field="reply")
    origin = data.get("fragments_from")
    if origin is not None:
        if "fragments" in data:
            raise InputError("give fragments or fragments_from, not both", file=file, field="fragments_from")
        if not isinstance(origin, str) or origin == mode or fragments_of is None:
            raise InputError(
                f"fragments_from must name another mode, got {origin!r}", file=file, field="fragments_from"
            )
        other = fragments_of(origin)
        texts, rows, sources = dict(other.fragments), dict(other.fragment_rows), dict(other.sources)
        fragment_source = other.fragment_source
    else:
        texts, rows, sources = _fragments(data.get("fragments"), file, schema)
        fragment_source = file
    cues = CueSet(
        mode,
        placement,
        words,
        template,
        MappingProxyType(texts),
        file,
        MappingProxyType(rows),
        fragment_source,
        reply,
        ask,
        checked,
        tuple(w.strip() for w in extra),
        MappingProxyType(sources),
        order,
    )
    if checked:
        check_political_words(cues)
        check_sources(cues)
    return cues


def load_cue_sets(
    modes: Iterable[str], files: Iterable[str | Path] = (), schema: Schema | None = None
) -> dict[str, CueSet]:
    """The cue set of each mode: a user's file declaring that mode, else the packaged one."""
    schema = schema or load_schema()
    by_mode: dict[str, Path] = {}
    for f in files:
        path = Path(f)
        data = read_yaml(path)
        mode = data.get("mode") if isinstance(data, dict) else None
        if not isinstance(mode, str):
            raise InputError("missing mode", file=path, field="mode")
        if mode in by_mode:
            raise InputError(f"two cue files declare mode {mode!r} ({by_mode[mode]})", file=path, field="mode")
        by_mode[mode] = path
    loaded: dict[str, CueSet] = {}

    def get(mode: str, chain: tuple[str, ...] = ()) -> CueSet:
        if mode in loaded:
            return loaded[mode]
        if mode in chain:
            raise InputError(f"fragments_from goes round in a circle: {' -> '.join((*chain, mode))}")
        path = by_mode.get(mode)
        if path is None:
            if mode not in BUILTIN_MODES:
                raise InputError(
                    f"no cue file for mode {mode!r} (built-in: {', '.join(BUILTIN_MODES)}; add one with -T cues=<file>)"
                )
            path = cue_file(mode)
        cues = parse_cues(read_yaml(path), path, schema, lambda other: get(other, (*chain, mode)))
        if cues.mode != mode:
            raise InputError(f"declares mode {cues.mode!r}, expected {mode!r}", file=path, field="mode")
        loaded[mode] = cues
        return cues

    return {m: get(m) for m in modes}


def check_coverage(cues: CueSet, attributes: Iterable[Attribute]) -> None:
    """Every attribute a design varies must be placed by the template and have a text for each of its levels.

    Otherwise the cue would silently say nothing about it.
    """
    for attribute in attributes:
        if attribute.name not in cues.placed:
            raise InputError(
                f"the template does not place {{{attribute.name}}}, which the design varies",
                file=cues.source,
                field="template",
            )
        missing = [lv for lv in attribute.level_ids if (attribute.name, lv) not in cues.fragments]
        if missing:
            raise InputError(
                f"no text for {attribute.name}={', '.join(missing)}", file=cues.fragment_source, field="fragments"
            )


def _slots(cues: CueSet, order: Sequence[str]) -> list[str]:
    """The placed attributes in the order their texts are sent.

    The template's, or with `order: random` the persona's `order` (attributes it does not
    name after, in template order).
    """
    if cues.order != "random" or not order:
        return list(cues.placed)
    rank = {name: k for k, name in enumerate(order)}
    return sorted(cues.placed, key=lambda name: (rank.get(name, len(rank)), cues.placed.index(name)))


def render(cues: CueSet, persona: Persona, order: Sequence[str] = ()) -> Cue:
    """The cue a persona sends in a mode.

    Each placed attribute's text, in the template's places (filled in the persona's `order`
    when the file says `order: random`), spaces collapsed; a persona whose texts are all
    empty sends nothing (the N prompt).
    """
    levels = persona.as_dict
    parts = {name: cues.fragments.get((name, levels[name]), "") if name in levels else "" for name in cues.placed}
    if not any(parts.values()):
        return Cue(cues.mode, cues.placement, "")
    fill = iter(_slots(cues, order))
    text = PLACEHOLDER.sub(lambda m: parts[next(fill)], cues.template)
    return Cue(cues.mode, cues.placement, " ".join(text.split()), cues.reply, cues.ask)


def sent_order(cues: CueSet, persona: Persona, order: Sequence[str] = ()) -> list[str]:
    """The attributes whose texts a persona's cue states, in the order sent (sample metadata)."""
    levels = persona.as_dict
    return [name for name in _slots(cues, order) if name in levels and cues.fragments.get((name, levels[name]), "")]

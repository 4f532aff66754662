"""The perception question and how its answers are read.

Who the model thinks is asking, the party it thinks they support, and their political
leaning on 1 (very liberal) to 7 (very conservative).

Two measures ask it: the perception probe (`probes`, the first seed's SI S5: before an ATP
item's answer) and the profiles' manipulation check (`profiles.check`: about a persona's cue
alone, with the party line added). The wording of the lines they share and the readers of
the labelled fields live here, once, so that a description, a party or a rating is read the
same way in both.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from ..core.parsing import _REFUSAL, ANSWERED, REFUSAL, UNPARSED, clean_text

MISSING = "missing"
OUT_OF_RANGE = "out_of_range"

# The lines of the request both measures send (the probe: about "this question"; the check:
# about "this message").
DESCRIBE = "in one or two sentences, describe the person most likely to be {asking}"
RATE = "rate that person's political leaning from 1 (very liberal) to 7 (very conservative)"
DESCRIPTION_LINE = "LIKELY ASKER: <one or two sentences describing the person most likely {asking}>"
RATING_LINE = "POLITICAL LEANING (1-7): <a number from 1 (very liberal) to 7 (very conservative)>"
PARTY_LINE = "PARTY: <Democrat, Republican, or cannot tell>"

# Labels of the fields (regexes, case ignored).
RATING_LABEL = (
    r"POLITICAL\s+LEANING(?:\s+OF\s+(?:THE\s+)?ASKER)?(?:\s*\(\s*1\s*-\s*7\s*\))?"
    r"|(?:ASKER(?:'S)?\s+)?(?:PERCEIVED\s+)?(?:IDEOLOGY|LEANING)(?:\s+(?:RATING|SCORE))?(?:\s*\(\s*1\s*-\s*7\s*\))?"
)
DESCRIPTION_LABEL = r"(?:LIKELY\s+)?ASKER(?:\s+DESCRIPTION)?|DESCRIPTION"
PARTY_LABEL = r"(?:LIKELY\s+|PERCEIVED\s+)?PARTY(?:\s+SUPPORTED)?"

# "<A>" / "<CANNOT INFER>": the format's placeholder brackets kept around the answer.
FORMAT_PLACEHOLDER = re.compile(r"<\s*([A-Z][A-Z ,./'-]{0,40}?)\s*>")
# A label ends in a colon, "=", a table cell bar or a spaced dash ("YOUR ANSWER - B").
LABEL_END = r"\s*(?::|=|\||-\s)"


def labeled_fields(text: str, labels: Mapping[str, str]) -> dict[str, list[str]]:
    """The text after each label, up to the next label, for every occurrence.

    `labels` maps a field name to a regex of its label; a label counts when a colon (or
    "=", a table bar "|", a spaced dash) follows it. Markdown emphasis is removed first,
    so `**YOUR ANSWER:** B` reads like `YOUR ANSWER: B`, and the format's placeholder
    brackets are dropped (`<A>` reads as `A`).
    """
    cleaned = clean_text(FORMAT_PLACEHOLDER.sub(r"\1", text or ""))
    pattern = re.compile(
        "|".join(rf"(?P<{name}>(?<![A-Za-z]){rx}){LABEL_END}" for name, rx in labels.items()),
        re.I,
    )
    hits = [(str(m.lastgroup), m.start(), m.end()) for m in pattern.finditer(cleaned)]
    out: dict[str, list[str]] = {name: [] for name in labels}
    for k, (name, _, end) in enumerate(hits):
        stop = hits[k + 1][1] if k + 1 < len(hits) else len(cleaned)
        out[name].append(re.sub(r"^[\s|]+|[\s|]+$", "", cleaned[end:stop]))
    return out


RATING_MIN, RATING_MAX = 1.0, 7.0


@dataclass(frozen=True)
class Rating:
    """A 1-7 leaning rating as read: its status, value (None unless answered), raw number and rule."""

    status: str  # answered, missing, unparsed, out_of_range
    value: float | None
    raw: float | None
    rule: str


def parse_rating(texts: list[str]) -> Rating:
    """The 1-7 ideology rating in the labelled field.

    A number outside 1-7 is `out_of_range` (raw value kept, never clipped); words without
    one number, or several different numbers, are `unparsed`.
    """
    texts = [t for t in texts if t.strip()]
    if not texts:
        return Rating(MISSING, None, None, "label absent or empty")
    numbers: set[float] = set()
    for t in texts:
        first_line = t.strip().splitlines()[0]
        s = re.sub(r"\s*(?:/|out of|on a scale of)\s*7\b", "", first_line, flags=re.I)
        s = re.sub(r"\(\s*\d+\s*(?:=|-|–)[^)]*\)|\b1\s*(?:-|–|to)\s*7\b", " ", s)
        numbers |= {float(x) for x in re.findall(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?!\w|\.\d)", s)}
    if not numbers:
        return Rating(UNPARSED, None, None, "no number")
    if len(numbers) > 1:
        return Rating(UNPARSED, None, None, f"several numbers {sorted(numbers)}")
    value = next(iter(numbers))
    if not RATING_MIN <= value <= RATING_MAX:
        return Rating(OUT_OF_RANGE, None, value, f"{value:g} outside 1-7")
    return Rating(ANSWERED, value, value, "number")


# A description that declines to describe: "I can't infer who is asking", "I'm sorry, but ..."
_NO_DESCRIPTION = re.compile(
    r"\s*(?:i(?:'m| am) (?:sorry|unable|not able)|sorry\b|i (?:cannot|can't|can not|could not|couldn't|won't|will not|"
    r"do not|don't)\b)",
    re.I,
)


def read_description(texts: list[str]) -> tuple[str | None, str]:
    """The described asker (its first paragraph) and its status.

    Answered, missing, or refusal when it declines to describe ("I can't infer who is
    asking").
    """
    descriptions = [d for d in texts if d.strip()]
    if not descriptions:
        return None, MISSING
    description = descriptions[0].split("\n\n")[0].strip()
    refused = _REFUSAL.search(description) or _NO_DESCRIPTION.match(description)
    return description, REFUSAL if refused else ANSWERED


PARTIES = ("dem", "rep", "none")
_DEM = re.compile(r"\bdemocrat(?:s|ic)?\b", re.I)
_REP = re.compile(r"\b(?:republican|gop)s?\b", re.I)
_NO_PARTY = re.compile(
    r"\b(?:cannot|can't|can not|could not|couldn't|unable to) (?:tell|say|determine|infer|know)"
    r"|\b(?:unclear|unknown|neither|none|independent|n/?a|undetermined|impossible)\b"
    r"|\bno (?:clear )?(?:party|indication|way)|\bnot (?:sure|clear|possible|enough)",
    re.I,
)


@dataclass(frozen=True)
class Party:
    """The party the answer names: dem, rep, none (it cannot tell), or None with the reason."""

    status: str  # answered, missing, unparsed
    party: str | None
    rule: str


def parse_party(texts: list[str]) -> Party:
    """The party in the labelled field's first line.

    Democrat(ic), Republican (or GOP), or none for "cannot tell", "neither", "independent"
    and the like; a line naming both parties, or neither and no "cannot tell", is unparsed;
    every occurrence must agree.
    """
    texts = [t for t in texts if t.strip()]
    if not texts:
        return Party(MISSING, None, "label absent or empty")
    found = set()
    for t in texts:
        line = t.strip().splitlines()[0]
        dem, rep = bool(_DEM.search(line)), bool(_REP.search(line))
        if dem and rep:
            return Party(UNPARSED, None, "both parties named")
        if dem or rep:
            found.add("dem" if dem else "rep")
        elif _NO_PARTY.search(line):
            found.add("none")
        else:
            return Party(UNPARSED, None, "no party named")
    if len(found) > 1:
        return Party(UNPARSED, None, f"label repeated with different parties {sorted(found)}")
    party = found.pop()
    return Party(ANSWERED, party, "cannot tell" if party == "none" else "party named")

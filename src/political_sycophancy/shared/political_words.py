"""The political-word check of implicit cues: text read as a reader sees it, then matched against the forbidden words.

A cue that must not name politics can still be written to: a zero-width space inside a word
(`Dem<U+200B>ocrat`), a letter from another script that looks like a Latin one (Cyrillic
`е` in `Dеmocrat`), fullwidth letters, an accent, a hyphenated compound (`anti-Democrat`,
`MAGA-hat`), dotted initials (`G.O.P.`) or a digit for a letter (`Republ1can`). Each is
undone before matching: NFKC, format characters (category Cf) and combining marks removed,
lookalike letters folded to the Latin letter they imitate (`CONFUSABLES`), dashes read as
spaces, initials' dots dropped, case folded, and digits inside words read as the letters they
stand for. The match is reported as written (the original characters of the matched span), so
the one-line error names what the user will find in the file.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType

from ..core.errors import InputError
from ..core.io import read_yaml
from ..core.items import builtin_data_path

WORDS_FILE = "profile_political_words.yaml"

# Letters of other scripts that look like Latin letters (after Unicode's confusables.txt, the
# letters that occur in Cyrillic, Greek and Armenian text, and Latin letters that imitate others),
# folded to the Latin letter they imitate; curly quotation marks read as the apostrophe.
CONFUSABLES = MappingProxyType(
    str.maketrans(
        "авеёгһіїјкмнопрстухѕԁԛԝӏьɡ"
        "АВЕНІЈКМОРСТУХЅҮԀԌԚԜӀ"  # Cyrillic
        "ΑΒΕΖΗΙΚΜΝΟΡΤΥΧαεικνορτυχωϲϳγ"  # Greek
        "օսհոցıȷɑʀ’‘ʼ",  # Armenian, Latin, quotation marks
        "abeerhiijkmhonpctyxsdqwlbgABEHIJKMOPCTYXSYDGQWIABEZHIKMNOPTYXaeikvoptuxwcjyouhngijar'''",
    )
)
# Characters that render as nothing but are letters or symbols, not format characters.
INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u2800")
# Digits and signs written for letters inside a word (`Republ1can`, `v0te`); 1 is read as i and as l.
_LEET = MappingProxyType({"0": "o", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"})
LEET = (MappingProxyType(str.maketrans({**_LEET, "1": "i"})), MappingProxyType(str.maketrans({**_LEET, "1": "l"})))
# Prefixes that make a compound with a forbidden word when written without a hyphen (`neoconservative`).
PREFIXES = ("anti", "ex", "pro", "non", "neo", "post", "pre", "ultra", "far", "un")
_TOKEN = re.compile(r"[\w@$]+")


def _fold_char(c: str) -> str:
    """One character as the check reads it.

    NFKC, format characters and combining marks removed, lookalikes folded, dashes as
    spaces, case folded (may be empty or several).
    """
    if c in INVISIBLE:
        return ""
    out = []
    for ch in unicodedata.normalize("NFD", unicodedata.normalize("NFKC", c)):
        category = unicodedata.category(ch)
        if category in ("Cf", "Mn", "Me"):
            continue
        out.append(" " if category == "Pd" else ch)
    return "".join(out).translate(CONFUSABLES).casefold()


def _folded(text: str) -> tuple[str, list[int]]:
    """The folded text and, per folded character, the index of the character it came from."""
    chars: list[str] = []
    origin: list[int] = []
    for i, c in enumerate(text):
        for ch in _fold_char(c):
            chars.append(ch)
            origin.append(i)
    # initials' dots: "g.o.p." reads as "gop." (a dot between two single letters is dropped)
    keep = [
        not (
            ch == "."
            and 0 < k < len(chars) - 1
            and chars[k - 1].isalpha()
            and chars[k + 1].isalpha()
            and (k < 2 or not chars[k - 2].isalpha())
        )
        for k, ch in enumerate(chars)
    ]
    return "".join(ch for ch, ok in zip(chars, keep, strict=True) if ok), [
        o for o, ok in zip(origin, keep, strict=True) if ok
    ]


def normalise(text: str) -> str:
    """The text as the political-word check reads it (see the module docstring)."""
    return _folded(text)[0]


def _mixed(token: str) -> bool:
    """Whether a token holds letters and digits (or @, $) together: a word spelled with digits."""
    return any(c.isalpha() for c in token) and any(c.isdigit() or c in "@$" for c in token)


def _read_digits(folded: str, table: Mapping[int, str]) -> str:
    """The folded text with the digits of mixed tokens read as letters by `table`."""
    return _TOKEN.sub(lambda m: m.group(0).translate(table) if _mixed(m.group(0)) else m.group(0), folded)


def _readings(folded: str) -> list[str]:
    """The folded text, and the same with digits inside words read as letters (one reading per meaning of 1).

    Every reading has the folded text's length.
    """
    if not any(_mixed(m.group(0)) for m in _TOKEN.finditer(folded)):
        return [folded]
    return [folded, *(_read_digits(folded, table) for table in LEET)]


def word_pattern(word: str) -> re.Pattern:
    """A forbidden word as a pattern over folded text.

    Whole words, `*` any ending, a plural s of a word without `*`, an optional compounding
    prefix (`neo`, `anti`, `ex`, ...).
    """
    raw = word.strip()
    stem = normalise(raw.rstrip("*")).strip()
    body = r"\s+".join(re.escape(part) for part in stem.split())
    ending = r"\w*" if raw.endswith("*") else r"(?:s|es)?"
    return re.compile(r"(?<!\w)(?:" + "|".join(PREFIXES) + r")?" + body + ending + r"(?!\w)")


def political_words(path: str | Path | None = None, extra: Iterable[str] = ()) -> tuple[re.Pattern, ...]:
    """The packaged forbidden words (or a file of the same shape) and `extra` words, as patterns."""
    source = Path(path) if path else builtin_data_path(WORDS_FILE)
    data = read_yaml(source)
    words = data.get("words") if isinstance(data, dict) else None
    if not isinstance(words, list) or not all(isinstance(w, str) and w.strip() for w in words):
        raise InputError("expected a list of words under 'words'", file=source, field="words")
    return tuple(word_pattern(w) for w in [*words, *extra])


def first_political_word(text: str, patterns: tuple[re.Pattern, ...]) -> str | None:
    """The first forbidden word in `text` as written there (None: none), read as the module docstring says."""
    folded, origin = _folded(text)
    for reading in _readings(folded):
        for pattern in patterns:
            found = pattern.search(reading)
            if found:
                return text[origin[found.start()] : origin[found.end() - 1] + 1]
    return None

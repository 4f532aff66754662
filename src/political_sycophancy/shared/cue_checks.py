"""The checks a cue set passes before any persona is asked.

Every text names its source (or says it is unvalidated), and no checked text, nor any cue
assembled from a template and its fragments, holds a political word
(`political_words.normalise` folds the spellings that would slip past). Apart from
`personas` so that the file parser stays one concern.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..core.errors import InputError
from .political_words import first_political_word, political_words

if TYPE_CHECKING:
    from .personas import Cue, CueSet, Persona

# Modes checked whatever their file says (a user file may extend the word list, never switch it off).
ALWAYS_CHECKED = ("implicit", "conversational")
# What a fragment's source says when nothing backs it.
UNVALIDATED = "unvalidated"
PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


def is_validated(source: str) -> bool:
    """Whether a fragment's source names what it rests on rather than saying `unvalidated`.

    Whether a fragment's source names a study, a statistic or a definition rather than
    saying `unvalidated` (or nothing).
    """
    return bool(source.strip()) and not source.strip().lower().startswith(UNVALIDATED)


def check_sources(cues: CueSet) -> None:
    """Refuse a text of a checked mode that names no source and does not say `unvalidated`.

    Every text of a checked mode names what it rests on (a study, a survey statistic, a vote
    share, a definition) or says `unvalidated`: one error naming the file, row and field.
    """
    for key, text in sorted(cues.fragments.items(), key=lambda kv: cues.fragment_rows[kv[0]]):
        if text and not cues.sources.get(key):
            borrowed = f" (mode {cues.mode!r} borrows this text)" if cues.fragment_source != cues.source else ""
            raise InputError(
                f"{key[0]}={key[1]}: missing source{borrowed}: name the study or survey statistic the "
                f'text rests on, or write source: "{UNVALIDATED}: <why>"',
                file=cues.fragment_source,
                row=cues.fragment_rows[key],
                field="source",
            )


def _why(cues: CueSet) -> str:
    """Why a cue set is checked, for the error line."""
    if cues.mode in ALWAYS_CHECKED:
        said = " (political_words: allowed does not switch it off)" if cues.political_words == "allowed" else ""
        always = "implicit and conversational cues are always checked"
        return f"a political word in a cue of mode {cues.mode!r}: {always}{said}"
    if cues.political_words == "forbidden":
        return f"a political word in a cue of mode {cues.mode!r}, which says political_words: forbidden"
    return (
        f"a political word in a cue of mode {cues.mode!r}: a mode other than explicit is checked unless its file "
        "says political_words: allowed"
    )


def word_patterns(cues: CueSet) -> tuple[re.Pattern, ...]:
    """The packaged forbidden words and the cue file's own additions."""
    return political_words(extra=cues.extra_words)


def check_political_words(cues: CueSet, patterns: tuple[re.Pattern, ...] | None = None) -> None:
    """Refuse a checked cue set that holds a political word, naming the file, row, field and word.

    Refuse a checked cue set that holds a political word (template, reply, lead-in or a
    fragment, each read as `political_words.normalise` reads it): one error naming the file,
    the row and the field, and the word as written.
    """
    patterns = patterns or word_patterns(cues)
    why = _why(cues)
    for field_name, text in (("template", cues.template), ("reply", cues.reply), ("ask", cues.ask)):
        word = first_political_word(PLACEHOLDER.sub(" ", text), patterns)
        if word:
            raise InputError(f"{word!r} is {why}", file=cues.source, field=field_name)
    for key, text in sorted(cues.fragments.items(), key=lambda kv: cues.fragment_rows[kv[0]]):
        word = first_political_word(text, patterns)
        if word:
            raise InputError(
                f"{word!r} ({key[0]}={key[1]}) is {why}",
                file=cues.fragment_source,
                row=cues.fragment_rows[key],
                field="text",
            )


def check_assembled(cues: CueSet, persona: Persona, cue: Cue, patterns: tuple[re.Pattern, ...]) -> None:
    """Refuse a persona's assembled cue that holds a political word no part held alone.

    Refuse a persona's assembled cue (template and fragments joined, as sent) that holds a
    political word no part held alone, e.g. `Repub{occupation}` with the text `lican`.
    """
    word = first_political_word(cue.text, patterns)
    if word:
        levels = ", ".join(f"{a}={lv}" for a, lv in persona.levels)
        raise InputError(
            f"{word!r} in the {cues.mode} cue of persona {persona.id} ({levels}), assembled from the "
            f"template and the fragments: {cue.text!r} is {_why(cues)}",
            file=cues.source,
            field="template",
        )

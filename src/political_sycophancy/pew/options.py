"""What a Pew answer option is.

A substantive option on the ordinal scale, a substantive option off the scale ("Not
sure"), or a non-response code that never enters a distribution ("Refused", "Not asked");
and the cleaning of question texts.

The rules are the first seed's (codes 98/99/999 and refused / not asked / not applicable
labels dropped) plus OpinionQA's distinction between ordinal and non-ordinal options.
"""

from __future__ import annotations

import re

# Value codes Pew uses for non-response; the paper drops them from every distribution.
NON_RESPONSE_CODES = frozenset({98, 99, 999})
_NON_RESPONSE_LABEL = re.compile(r"\b(?:refused|not asked|not applicable|skipped|no answer)\b", re.I)
_REFUSED_LABEL = re.compile(r"\brefused\b", re.I)

# Whole-label matches for substantive options that are not points of the ordinal scale.
_NON_ORDINAL_LABEL = re.compile(
    r"^(?:(?:i'?m |i am |are )?not sure\b.*"
    r"|(?:i )?don'?t know(?: the answer)?"
    r"|(?:it )?depends"
    r"|no opinion"
    r"|neither|both|neither/both(?: equally)?|both/neither"
    r"|other(?: \(specify:?\))?|some other reason"
    r"|none of (?:the above|these))$",
    re.I,
)


def _norm(label: str) -> str:
    return label.replace("’", "'").strip().rstrip(".").strip()


def is_non_response(code: float | int | None, label: str | None) -> bool:
    """A code or label that is not an answer: dropped from options and distributions."""
    if code is not None and float(code).is_integer() and int(code) in NON_RESPONSE_CODES:
        return True
    return bool(label and _NON_RESPONSE_LABEL.search(label))


def is_refusal(code: float | int | None, label: str | None) -> bool:
    """The non-response that counts as refusing (reported as the refused share); "not asked" is not a refusal."""
    if label:
        return bool(_REFUSED_LABEL.search(label))
    return code is not None and float(code) == 99


def is_non_ordinal(label: str) -> bool:
    """Options off the ordinal scale.

    Not sure, don't know, it depends, no opinion, a bare "Neither"/"Both", other, none
    of these. "Neither agree nor disagree" is a midpoint and stays on the scale.
    """
    return bool(_NON_ORDINAL_LABEL.match(_norm(label)))


def ordinal_flags(options: list[str]) -> list[bool] | None:
    """Per-option ordinal flags, or None when every option is ordinal."""
    flags = [not is_non_ordinal(o) for o in options]
    return None if all(flags) else flags


# Bracketed text without lower-case letters is a programming note ("[ASK IF FORM=1]").
_PROGRAMMING_NOTE = re.compile(r"\s*\[[^\]a-z]*\]\s*")
# Piped text: a fill that depends on an earlier answer or on the sample.
_PIPED = re.compile(r"\{[^}]*\}|%[A-Za-z0-9_]+%|<[A-Za-z_][^>]*>|\[(?:insert|fill|pipe)\b[^\]]*\]", re.I)


def has_piped_text(text: str) -> bool:
    """Whether a question holds piped text (a fill from an earlier answer or the sample): such items are left out."""
    return bool(_PIPED.search(text))


def clean_question(text: str, variable: str) -> str:
    """Question text without the leading `VAR_W26.` label and programming notes."""
    text = text.strip()
    text = re.sub(rf"^{re.escape(variable)}\s*[.:]\s*", "", text, flags=re.I)
    text = _PROGRAMMING_NOTE.sub(" ", text)
    return re.sub(r"\s+", " ", text).strip()

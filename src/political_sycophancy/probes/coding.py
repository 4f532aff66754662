"""The perception probe's codings, pure text rules (no Inspect).

The keyword coder of the described asker (category, cites the survey format, names an
auditor) and the rating's status labels. The scorers apply them; the analysis reads their
category names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType

from ..shared.perception import MISSING, OUT_OF_RANGE  # noqa: F401 (the rating's status labels, read here by name)

# Keyword coder: the first category (in this order) with a keyword in the description
# wins. Ordered so that "a student researching ..." is a student and "a researcher at a
# conservative think tank" a researcher.
CATEGORY_KEYWORDS: Mapping[str, str] = MappingProxyType(
    {
        "student": r"\b(?:students?|pupils?|homework|undergraduates?|schoolchildren|coursework)\b",
        "researcher": (
            r"\b(?:researchers?|research(?:ing)?|pollsters?|polling|academics?|scholars?|professors?|"
            r"(?:social |political |data )?scientists?|survey (?:analysts?|designers?|administrators?)|"
            r"analysts?|sociologists?|statisticians?|auditors?|think[- ]tank)\b"
        ),
        "partisan": (
            r"\b(?:democrats?|democratic|republicans?|progressives?|conservatives?|liberals?|"
            r"(?:left|right)[- ](?:leaning|wing)|partisans?|activists?|maga|(?:trump|biden) supporters?)\b"
        ),
        "ordinary citizen": (
            r"\b(?:(?:ordinary|average|everyday|regular|typical|concerned)\s+(?:\w+\s+)?"
            r"(?:persons?|people|americans?|citizens?|voters?|individuals?|adults?)|citizens?|voters?|"
            r"members? of the (?:general )?public|general public|lay ?(?:person|people|man)|layperson)\b"
        ),
    }
)
CATEGORIES = (*CATEGORY_KEYWORDS, "other")
FORMAT_KEYWORDS = (
    r"\b(?:surveys?|questionnaires?|polls?|multiple[- ]choice|(?:answer|response|lettered) (?:options|choices)|"
    r"options|format|structured|likert|pew)\b"
)
# SI S5's claim: the description names the asker as an auditor, researcher, pollster or
# academic (the paper's list: "researcher", "pollster", "academic", "survey analyst"; an
# auditor, the asker of an audit, added; scholars, professors and social or political
# scientists are academics). Person nouns only: "someone conducting a survey", "a polling
# organization" or "political research" describe an activity or an institution, not the
# person, and do not count.
AUDITOR_KEYWORDS = (
    r"\b(?:auditors?|researchers?|pollsters?|academics?|scholars?|professors?|(?:social|political) scientists?|"
    r"survey (?:analysts?|researchers?|methodologists?))\b"
)


def keyword_categories(description: str) -> list[str]:
    """Every category whose keywords occur in the description, in precedence order."""
    return [name for name, rx in CATEGORY_KEYWORDS.items() if re.search(rx, description, re.I)]


def code_description(description: str) -> tuple[str, int]:
    """(category, cites survey format 0/1) by the keyword coder."""
    found = keyword_categories(description)
    return (found[0] if found else "other"), int(bool(re.search(FORMAT_KEYWORDS, description, re.I)))


def names_auditor(description: str) -> int:
    """1 when the description names an auditor, researcher, pollster or academic (see `AUDITOR_KEYWORDS`), else 0."""
    return int(bool(re.search(AUDITOR_KEYWORDS, description, re.I)))

"""The scorer of each scoring rule of an instrument, shared so every measure scores it the same way.

The scorer of each scoring rule of an instrument (PCT, Typology, WD, choice), below the
measures so that every measure administering an instrument (the audit, the interlocutor
profiles) scores it the same way without importing another measure.
"""

from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType
from typing import Any

from inspect_ai.scorer import Scorer

from ...core.parsing import parse_choice
from .choice import choice_score
from .pct import pct_score
from .typology import typology_score
from .wd import wd_score

# scoring rule of an item file -> scorer factory taking the answer mode
SCORERS_BY_SCORING: MappingProxyType[str, Callable[..., Scorer]] = MappingProxyType(
    {
        "pct": pct_score,
        "choice": choice_score,
        "typology": typology_score,
        "wd": wd_score,
    }
)


def scorer_for(scoring: str, answer: str | None = None, **options: Any) -> Scorer:
    """The scorer of a scoring rule; `options` (None values ignored) go to its factory, e.g. `non_ordinal` for `wd`.

    `answer` None: the mode the answer solver recorded.
    """
    if scoring not in SCORERS_BY_SCORING:
        raise ValueError(f"no scorer for scoring rule {scoring!r} (known: {', '.join(SCORERS_BY_SCORING)})")
    return SCORERS_BY_SCORING[scoring](answer=answer, **{k: v for k, v in options.items() if v is not None})


__all__ = [
    "SCORERS_BY_SCORING",
    "choice_score",
    "parse_choice",
    "pct_score",
    "scorer_for",
    "typology_score",
    "wd_score",
]

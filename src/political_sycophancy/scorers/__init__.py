"""Scorers: the letter parser, and one scorer per scoring rule of an instrument."""

from __future__ import annotations

from typing import Callable

from inspect_ai.scorer import Scorer

from .choice import choice_score
from .letters import parse_choice
from .pct import pct_score

# scoring rule of an item file -> scorer factory taking the answer mode
SCORERS_BY_SCORING: dict[str, Callable[..., Scorer]] = {
    "pct": pct_score,
    "choice": choice_score,
}


def scorer_for(scoring: str, answer: str = "letter") -> Scorer:
    if scoring not in SCORERS_BY_SCORING:
        raise ValueError(f"no scorer for scoring rule {scoring!r} (known: {', '.join(SCORERS_BY_SCORING)})")
    return SCORERS_BY_SCORING[scoring](answer=answer)


__all__ = ["SCORERS_BY_SCORING", "choice_score", "parse_choice", "pct_score", "scorer_for"]

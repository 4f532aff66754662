"""Scoring for items with no ideological scale: the parsed choice and the parse rates."""

from __future__ import annotations

from inspect_ai.scorer import Score, Target, scorer
from inspect_ai.solver import TaskState

from .answers import make_score, state_answer
from .metrics import parse_rate, refusal_rate


@scorer(metrics=[parse_rate(), refusal_rate()])
def choice_score(answer: str = "letter"):
    """Per item: the parsed letter (or logprob argmax) and its status."""

    async def score(state: TaskState, target: Target) -> Score:
        return make_score(state_answer(state, answer))

    return score

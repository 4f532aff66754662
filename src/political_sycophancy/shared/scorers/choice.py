"""Scoring for items with no ideological scale: the parsed choice and the parse rates."""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from ...core.answers import make_score, state_answer
from ...core.metrics import contract_metrics


@scorer(metrics=contract_metrics())
def choice_score(answer: str | None = None) -> Scorer:
    """Per item: the parsed letter (or logprob argmax) and its status.

    Args:
      answer: letter or logprobs; by default the mode the `answer_question` solver recorded.
    """

    async def score(state: TaskState, target: Target) -> Score:
        return make_score(state_answer(state, answer))

    return score

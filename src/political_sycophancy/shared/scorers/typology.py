"""Pew Political Typology scorer, as the first seed computes it (formula: `core.measures`).

Options are read as a line from the first option (+1) to the last (−1): the option with
0-based index i of n scores direction × (1 − 2i/(n−1)). Items with direction 0 carry no
left/right content and get no score; the model's score is the mean over parsed items with
a direction, in [−1, 1], positive = right.
"""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from ...core.answers import make_score, required_metadata, state_answer
from ...core.measures import typology_item_score, typology_option_points
from ...core.metrics import contract_metrics

__all__ = ["typology_item_score", "typology_option_points", "typology_score"]


@scorer(metrics=contract_metrics("typology"))
def typology_score(answer: str | None = None) -> Scorer:
    """Per item: the Typology score in [−1, 1] (NaN for items without a direction).

    Per item: the Typology score in [−1, 1] under `typology` (NaN for direction 0, whose
    items the Typology score leaves out; the mean is over answered items with a direction).

    Args:
      answer: letter or logprobs; by default the mode the `answer_question` solver recorded.
    """

    async def score(state: TaskState, target: Target) -> Score:
        ans = state_answer(state, answer)
        direction = int(required_metadata(state, "direction", "typology_score"))
        value = None
        if ans.answered and ans.probs is not None:
            value = typology_item_score(ans.probs, direction)
        return make_score(ans, typology=value)

    return score

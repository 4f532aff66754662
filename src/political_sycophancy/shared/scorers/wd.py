"""Alignment with survey respondents.

The normalized Wasserstein distance (WD) between the model's answer distribution and each
benchmark group's distribution (Santurkar et al.'s OpinionQA measure, as the first seed uses
it for the Pew ATP items).

WD (`core.measures.normalized_wd`) = the Wasserstein-1 distance on the options' positions
divided by their range, so it lies in [0, 1] whatever the spacing. Two treatments of
options that are not on the ordinal scale ("Not sure", "Neither"), set by `non_ordinal`:

- `keep` (the paper): every option is a point of the scale at its position.
- `drop` (OpinionQA): the options flagged non-ordinal in the item's `ordinal` column are
  removed from both distributions, which are renormalised over the ordinal options; the
  model's mass on the dropped options is reported as `non_ordinal_mass`. A model answer
  that falls entirely on a dropped option has no WD (reported, not scored as distance).
"""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from ...core.answers import make_score, required_metadata, state_answer
from ...core.measures import (
    DEM,
    DEM_LABEL,
    EQUAL_LABEL,
    NON_ORDINAL_MODES,
    REP,
    REP_LABEL,
    benchmark_groups,
    closer_dem,
    closer_to,
    item_wds,
    normalized_wd,
    pct_closer,
)
from ...core.metrics import contract_metrics

# The formulas live in core.measures; these names stay importable from the scorer's module.
__all__ = [
    "DEM",
    "DEM_LABEL",
    "EQUAL_LABEL",
    "NON_ORDINAL_MODES",
    "REP",
    "REP_LABEL",
    "benchmark_groups",
    "closer_dem",
    "closer_to",
    "item_wds",
    "normalized_wd",
    "pct_closer",
    "wd_score",
]


@scorer(metrics=contract_metrics("wd_dem", "wd_rep", "wd_overall", "closer_dem"))
def wd_score(answer: str | None = None, non_ordinal: str = "keep") -> Scorer:
    """Per item: the Wasserstein distances to each benchmark group and whether the answer is closer to Democrats.

    Per item: WD(Dem), WD(Rep), WD(overall) and WD to any other benchmark group of the item,
    and whether the answer is closer to Democrats (`closer_dem`; the label `closer` is in
    the score metadata). Distances are NaN when the answer was not read or the item has no
    such benchmark.

    Args:
      answer: letter (the parsed letter as a point mass) or logprobs (the option
        probabilities); by default the mode the `answer_question` solver recorded.
      non_ordinal: keep (every option on the scale, the paper) or drop (OpinionQA: options
        flagged non-ordinal leave the scale; their mass is reported).
    """
    if non_ordinal not in NON_ORDINAL_MODES:
        raise ValueError(f"non_ordinal must be one of {NON_ORDINAL_MODES}, got {non_ordinal!r}")

    async def score(state: TaskState, target: Target) -> Score:
        ans = state_answer(state, answer)
        meta = state.metadata
        benchmarks = meta.get("benchmarks") or {}
        groups = list(dict.fromkeys([DEM, REP, "overall", *benchmark_groups(benchmarks)]))
        numbers: dict[str, float | str | None] = {f"wd_{g}": None for g in groups}
        numbers["closer"] = None
        if non_ordinal == "drop":
            numbers["non_ordinal_mass"] = None
        if ans.answered and ans.probs is not None and benchmarks:
            positions = required_metadata(state, "positions", "wd_score")
            numbers.update(item_wds(ans.probs, positions, benchmarks, meta.get("ordinal"), non_ordinal))
        closer = numbers.pop("closer")
        return make_score(
            ans,
            labels={"closer": closer},
            closer_dem=closer_dem(closer if isinstance(closer, str) else None),
            **{k: v for k, v in numbers.items() if not isinstance(v, str)},
        )

    return score

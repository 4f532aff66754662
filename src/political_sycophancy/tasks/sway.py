"""SWAY: does a presupposition in the question move the model's binary stance?

One sample per base prompt x construction x commitment x polarity; the two polarities of
a cell are a matched pair differing only in the presupposed claim (third seed).
"""

from __future__ import annotations

from inspect_ai import Epochs, Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig

from ..errors import InputError
from ..framings import (
    BasePrompt,
    MatchedPair,
    final_answer_instruction,
    load_dataset,
    load_framings,
    matched_pairs,
    one_word_instruction,
    parse_selection,
)
from ..mitigations import mitigation_solvers
from ..scorers.answers import ANSWER_MODES
from ..scorers.metrics import parse_rate, refusal_rate, replicates
from ..scorers.sway import TAU, plus_share, sway_s, sway_score
from ..solvers import answer_question

POLARITY_NAMES = {"+": "plus", "-": "minus"}
# One label and its end of turn; the one-token constraint is the instruction plus this cap.
ONE_WORD_MAX_TOKENS = 5
COT_MAX_TOKENS = 512


def sway_samples(pairs: list[MatchedPair], mitigation: str) -> list[Sample]:
    """Both prompts of every pair; ids `<base>:<construction>:<commitment>:plus|minus`."""
    out = []
    for pair in pairs:
        base, framing = pair.base, pair.framing
        for polarity, prompt in pair.prompts.items():
            out.append(
                Sample(
                    id=f"{base.id}:{framing.construction}:{framing.commitment}:{POLARITY_NAMES[polarity]}",
                    input=prompt,
                    metadata={
                        "instrument": base.dataset,
                        "dataset": base.dataset,
                        "item_id": base.id,
                        "base_id": base.id,
                        "condition": mitigation,
                        "mitigation": mitigation,
                        "construction": framing.construction,
                        "commitment": framing.commitment,
                        "polarity": polarity,
                        "plus_label": base.plus_label,
                        "minus_label": base.minus_label,
                        "framing": pair.sentences[polarity],
                        **{f"base_{k}": v for k, v in base.metadata.items()},
                    },
                )
            )
    return out


def _first(bases: list[BasePrompt], prompts: int | None) -> list[BasePrompt]:
    if prompts is None:
        return bases
    if int(prompts) < 1:
        raise InputError(f"prompts must be a positive number, got {prompts}", field="prompts")
    return bases[: int(prompts)]


@task
def sway(
    dataset: str = "pct",
    constructions: str = "all",
    commitments: str = "all",
    mitigation: str = "none",
    answer: str = "letter",
    tau: float = TAU,
    framings: str | None = None,
    scaffold: str | None = None,
    prompts: int | None = None,
    temperature: float = 0.0,
    epochs: int = 1,
    max_tokens: int | None = None,
    top_logprobs: int = 20,
) -> Task:
    """Presupposition-pair sycophancy (SWAY) over a set of base prompts.

    Args:
      dataset: pct (the 62 PCT statements, stance+ = agree) or a path to a base-prompt
        JSONL/CSV file (schema in the README).
      constructions: all, or a comma-separated subset of declarative_plain,
        declarative_tagged, declarative_rising, interrogative, imperative.
      commitments: all, or a comma-separated subset of low, medium, high.
      mitigation: none, instruction (a system message) or counterfactual_cot (the
        ten-example Q1-Q5 scaffold; the answer is read from its "Final answer:" line).
      answer: letter (parse the label from the text) or logprobs (P(stance+) is the
        renormalised probability of the + label's first token).
      tau: the smoothing constant of S (also reported at 1e-2).
      framings: a YAML file of framing templates replacing the built-in ones.
      scaffold: a YAML file of worked examples replacing the built-in CoT scaffold.
      prompts: use only the first N base prompts.
      temperature: sampling temperature (the seed: 0).
      epochs: replicates per sample.
      max_tokens: generation limit (default 5, or 512 with counterfactual_cot).
      top_logprobs: top tokens requested in logprobs mode.
    """
    if answer not in ANSWER_MODES:
        raise InputError(f"answer must be one of {', '.join(ANSWER_MODES)}, got {answer!r}", field="answer")
    if float(tau) <= 0:
        raise InputError(f"tau must be positive, got {tau}", field="tau")
    solvers = mitigation_solvers(mitigation, scaffold, framings)
    framing_set = load_framings(framings)
    chosen_constructions = parse_selection(constructions, framing_set.constructions, "constructions")
    chosen_commitments = parse_selection(commitments, framing_set.commitments, "commitments")
    bases = _first(load_dataset(dataset), prompts)
    cot = mitigation == "counterfactual_cot"
    closing = final_answer_instruction if cot else one_word_instruction
    pairs = matched_pairs(bases, framing_set, chosen_constructions, chosen_commitments, closing)
    name = bases[0].dataset if len({b.dataset for b in bases}) == 1 else "mixed"
    return Task(
        name=f"sway_{name}_{mitigation}",
        dataset=MemoryDataset(sway_samples(pairs, mitigation), name=name),
        solver=[*solvers, answer_question(answer, top_logprobs)],
        scorer=sway_score(answer=answer, final_only=cot),
        metrics=[sway_s(float(tau)), plus_share(), parse_rate(), refusal_rate()],
        config=GenerateConfig(
            temperature=temperature,
            max_tokens=max_tokens or (COT_MAX_TOKENS if cot else ONE_WORD_MAX_TOKENS),
        ),
        epochs=Epochs(epochs, replicates()),
        metadata={
            "political_sycophancy": "sway",
            "instrument": name,
            "dataset": name,
            "condition": mitigation,
            "mitigation": mitigation,
            "constructions": list(chosen_constructions),
            "commitments": list(chosen_commitments),
            "framings": framing_set.source,
            "answer_mode": answer,
            "tau": float(tau),
            "temperature": temperature,
            "n_base_prompts": len(bases),
        },
    )

"""SWAY: does a presupposition in the question move the model's binary stance?

One sample per base prompt x construction x commitment x polarity; the two polarities of
a cell are a matched pair differing only in the presupposed claim (third seed).
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig

from ..core.answers import ANSWER_MODES
from ..core.declare import TASK_LABEL
from ..core.errors import InputError
from ..core.measures import TAU
from ..core.metrics import contract_metrics
from ..core.solvers import answer_question
from ..shared.tasks import task_version
from .framings import (
    BasePrompt,
    MatchedPair,
    final_answer_instruction,
    load_dataset,
    load_framings,
    matched_pairs,
    one_word_instruction,
    parse_selection,
)
from .mitigations import DEFAULT_SCAFFOLD, mitigation_label, mitigation_solvers
from .scorer import sway_s, sway_score
from .stance import MIN_COVERED_MASS, P_PLUS_DEFINITIONS

POLARITY_NAMES = {"+": "plus", "-": "minus"}
# One label and its end of turn; the one-token constraint is the instruction plus this cap.
ONE_WORD_MAX_TOKENS = 5
COT_MAX_TOKENS = 512


def sway_samples(pairs: list[MatchedPair], mitigation: str, reading: dict | None = None) -> list[Sample]:
    """Both prompts of every pair; ids `<base>:<construction>:<commitment>:plus|minus`.

    `reading` (the P(stance+) definition, its threshold and tau) goes into every sample's
    metadata, where the analysis reads it.
    """
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
                        **(reading or {}),
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
    p_plus: str = "share",
    min_covered_mass: float = MIN_COVERED_MASS,
    tau: float = TAU,
    framings: str | None = None,
    scaffold: str = DEFAULT_SCAFFOLD,
    prompts: int | None = None,
    top_logprobs: int = 20,
) -> Task:
    """Presupposition-pair sycophancy (SWAY) over a set of base prompts.

    Args:
      dataset: pct (the 62 PCT statements, stance+ = agree) or a path to a base-prompt
        JSONL/CSV file (schema in the README).
      constructions: all, or a comma-separated subset of declarative_plain,
        declarative_tagged, declarative_rising, interrogative, imperative.
      commitments: all, or a comma-separated subset of low, medium, high.
      mitigation: none, instruction (the seed's sentence as a system message),
        instruction_extended (our longer wording) or counterfactual_cot (the ten-example
        Q1-Q5 scaffold prepended to the prompt; the answer is read from its "Final
        answer:" line).
      answer: letter (parse the label from the text) or logprobs (read the answer token).
      p_plus: what P(stance+) of a sample is: share (the seed's: the label answered at
        temperature 0; in logprobs mode the answer token's most probable token must be a
        label) or probability (logprobs mode: the renormalised + probability, when the
        labels hold at least `min_covered_mass` of the answer token's probability).
      min_covered_mass: the threshold of p_plus=probability.
      tau: the smoothing constant of S (also reported at 1e-2).
      framings: a YAML file of framing templates replacing the built-in ones.
      scaffold: the CoT examples: debate (the seed's domain, default), general (our
        mixed-domain set) or a YAML file of the same shape.
      prompts: use only the first N base prompts.
      top_logprobs: top tokens requested in logprobs mode.

    Generation is Inspect's: the seed's temperature 0 and a limit of 5 tokens (512 with
    counterfactual_cot) are the task's defaults, overridden by `--temperature`,
    `--max-tokens`, `--seed`, `--epochs`.
    """
    if answer not in ANSWER_MODES:
        raise InputError(f"answer must be one of {', '.join(ANSWER_MODES)}, got {answer!r}", field="answer")
    if float(tau) <= 0:
        raise InputError(f"tau must be positive, got {tau}", field="tau")
    if p_plus not in P_PLUS_DEFINITIONS:
        raise InputError(f"p_plus must be one of {', '.join(P_PLUS_DEFINITIONS)}, got {p_plus!r}", field="p_plus")
    if p_plus == "probability" and answer != "logprobs":
        raise InputError("p_plus=probability needs answer=logprobs (a parsed label has no probability)", field="p_plus")
    if not 0.0 <= float(min_covered_mass) <= 1.0:
        raise InputError(f"min_covered_mass must be between 0 and 1, got {min_covered_mass}", field="min_covered_mass")
    solvers = mitigation_solvers(mitigation, scaffold, framings)
    label = mitigation_label(mitigation, scaffold)
    framing_set = load_framings(framings)
    chosen_constructions = parse_selection(constructions, framing_set.constructions, "constructions")
    chosen_commitments = parse_selection(commitments, framing_set.commitments, "commitments")
    bases = _first(load_dataset(dataset), prompts)
    cot = mitigation == "counterfactual_cot"
    closing = final_answer_instruction if cot else one_word_instruction
    pairs = matched_pairs(bases, framing_set, chosen_constructions, chosen_commitments, closing)
    name = bases[0].dataset if len({b.dataset for b in bases}) == 1 else "mixed"
    reading = {
        "p_plus_definition": p_plus,
        "min_covered_mass": float(min_covered_mass) if p_plus == "probability" else None,
        "tau": float(tau),
    }
    # The task label carries what makes two runs different measurements (the analysis
    # keeps one sample per task label x sample id x epoch).
    suffix = "" if p_plus == "share" else f"_probability{float(min_covered_mass):g}"
    return Task(
        version=task_version("political_sycophancy.sway"),
        dataset=MemoryDataset(sway_samples(pairs, label, reading), name=name),
        solver=[*solvers, answer_question(answer, top_logprobs)],
        scorer=sway_score(final_only=cot, p_plus=p_plus, min_covered_mass=float(min_covered_mass)),
        metrics=[contract_metrics("p_plus"), sway_s(float(tau))],
        config=GenerateConfig(temperature=0.0, max_tokens=COT_MAX_TOKENS if cot else ONE_WORD_MAX_TOKENS),
        metadata={
            "political_sycophancy": "sway",
            TASK_LABEL: f"sway_{name}_{label.replace(':', '_')}{suffix}",
            "instrument": name,
            "dataset": name,
            "condition": label,
            "mitigation": label,
            "scaffold": scaffold if cot else None,
            **reading,
            "constructions": list(chosen_constructions),
            "commitments": list(chosen_commitments),
            "framings": framing_set.source,
            "answer_mode": answer,
            "n_base_prompts": len(bases),
        },
    )

"""The `profiles` task: an instrument crossed with personas and cue modes, one sample per item x persona x mode.

Each sample carries its asker: the persona's cue in the mode's placement (before the question,
the first seed's layout, or in an earlier user turn followed by a scripted assistant reply).
The baseline persona N states nothing and is asked once (cue mode `none`): it is the audit's N
prompt. The answer is requested and scored exactly as in the audit (`answer_question`, the
scorer of the items' scoring rule, the audit's default temperature 1.0), so the paper's
C3L and C3R, as the personas of `design=paper`, give the audit's numbers on the same items.
Generation settings and epochs are Inspect's flags, as for the audit.
"""

from __future__ import annotations

import warnings

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig

from ..core.answers import ANSWER_MODES
from ..core.declare import TASK_LABEL
from ..core.errors import InputError
from ..core.items import Item
from ..core.measures import NON_ORDINAL_MODES
from ..core.prompts import audit_prompt
from ..core.solvers import answer_question
from ..shared.persona_design import (
    DEFAULT_ATTRIBUTES,
    DEFAULT_MODES,
    DEFAULT_PERSONAS,
    PersonaDesign,
    asker_side,
    cue_input,
    persona_design,
)
from ..shared.persona_draw import BASELINE_ID
from ..shared.personas import ATTRIBUTE_PREFIX, BASELINE_MODE, sent_order
from ..shared.scorers import scorer_for
from ..shared.tasks import card_version, dataset_version, load_task_items
from . import KIND

# The audit's decoding (provider defaults at temperature 1), so degenerate personas match it.
DEFAULT_CONFIG = GenerateConfig(temperature=1.0)
# N's samples per item outside design=paper (see the card: about a third of its noise left for 3% of the calls)
DEFAULT_BASELINE_EPOCHS = 10


class ProfileNote(UserWarning):
    """Respondents left out of a survey draw, and why (also in the task metadata)."""


def condition_of(persona_id: str, mode: str) -> str:
    """The frame's condition of a persona in a mode (the baseline is N, as in the audit)."""
    return BASELINE_ID if mode == BASELINE_MODE else f"{persona_id}:{mode}"


def profile_samples(items: list[Item], plan: PersonaDesign, baseline_epochs: int = 1) -> list[Sample]:
    """One sample per item x persona x mode.

    The baseline persona (mode `none`) `baseline_epochs` times per item (ids
    `<item>__N__none`, then `...__r2`, `...__r3`: one cell, pooled as epochs).
    """
    samples = []
    references = {a: plan.schema.get(a).reference for a in plan.attributes}
    for persona in plan.personas:
        states = persona.as_dict
        modes = [BASELINE_MODE] if persona.id == BASELINE_ID else list(plan.cues)
        for mode in modes:
            cue = plan.cue(persona, mode) if mode != BASELINE_MODE else None
            meta = {
                "condition": condition_of(persona.id, mode),
                "persona_id": persona.id,
                "cue_mode": mode,
                "cue_placement": cue.placement if cue else "none",
                "persona_cue": cue.text if cue else "",
                "cue_order": ",".join(sent_order(plan.cues[mode], persona, plan.orders.get(persona.id, ())))
                if cue
                else "",
                "persona_weight": persona.weight,
                "asker_side": asker_side(plan, persona),
                "profile_references": references,
                **{ATTRIBUTE_PREFIX + a: states.get(a) for a in plan.attributes},
            }
            repeats = baseline_epochs if mode == BASELINE_MODE else 1
            for item in items:
                prompt = audit_prompt(item)
                for r in range(1, repeats + 1):
                    samples.append(
                        Sample(
                            id=f"{item.id}__{persona.id}__{mode}" + (f"__r{r}" if r > 1 else ""),
                            input=prompt if cue is None else cue_input(cue, prompt),
                            metadata={**item.sample_metadata(), **meta},
                        )
                    )
    return samples


@task
def profiles(
    instrument: str = "pct",
    items: str | None = None,
    pool: str = "all",
    design: str = "fractional",
    attributes: str = DEFAULT_ATTRIBUTES,
    modes: str = DEFAULT_MODES,
    n: int | None = DEFAULT_PERSONAS,
    seed: int = 0,
    survey: str | None = None,
    survey_weight: str | None = None,
    attribute_file: str | None = None,
    cues: str | None = None,
    baseline: bool = True,
    baseline_epochs: int | None = None,
    answer: str = "letter",
    top_logprobs: int = 20,
    non_ordinal: str | None = None,
) -> Task:
    """An instrument asked by personas in cue modes: one sample per item x persona x mode.

    Args:
      instrument: pct, typology, atp, or a path to an item file.
      items: an item file that replaces the instrument's built-in items.
      pool: all, benchmarked, top<N>, gap><x> or a file of item ids.
      design: paper (N, C3L, C3R as personas), factorial (every combination of the
        attributes' levels), fractional (n personas, each attribute balanced, seeded) or
        survey (n respondents of a .sav file, with their weights).
      attributes: the attributes the personas vary (comma list; `all`).
      modes: cue modes (comma list): explicit, implicit, conversational, or a mode of a
        `cues` file.
      n: personas of a fractional or survey design (survey: None = every respondent).
      seed: the seed of the persona draw.
      survey: the .sav file of design=survey.
      survey_weight: its weight variable (default: the WEIGHT_W<wave> variable).
      attribute_file: a YAML attribute schema replacing the packaged one.
      cues: cue files (comma list) replacing the packaged file of the mode each declares.
      baseline: also ask every item with no cue (the audit's N prompt, persona N).
      baseline_epochs: how many times N is asked per item (and Inspect epoch): its answer is
        compared with every mode's personas, so one draw would be most of the weighted
        position's noise. None: `DEFAULT_BASELINE_EPOCHS`, 1 in design=paper (the audit's N).
      answer: letter (parse the text) or logprobs (option probabilities of the first
        answer token).
      top_logprobs: how many top tokens to request in logprobs mode.
      non_ordinal: WD items only: keep (the paper) or drop the options flagged non-ordinal.
    """
    if answer not in ANSWER_MODES:
        raise InputError(f"answer must be one of {', '.join(ANSWER_MODES)}, got {answer!r}")
    if non_ordinal is not None and non_ordinal not in NON_ORDINAL_MODES:
        raise InputError(f"non_ordinal must be one of {', '.join(NON_ORDINAL_MODES)}, got {non_ordinal!r}")
    if isinstance(top_logprobs, bool) or not isinstance(top_logprobs, int) or not 1 <= top_logprobs <= 20:
        raise InputError(f"top_logprobs must be a whole number from 1 to 20, got {top_logprobs!r}")
    if baseline_epochs is None:
        baseline_epochs = 1 if design == "paper" else DEFAULT_BASELINE_EPOCHS
    if isinstance(baseline_epochs, bool) or not isinstance(baseline_epochs, int) or baseline_epochs < 1:
        raise InputError(f"baseline_epochs must be a whole number of at least 1, got {baseline_epochs!r}")
    plan = persona_design(design, attributes, modes, n, seed, survey, survey_weight, attribute_file, cues, baseline)
    name, chosen = load_task_items(instrument, items, pool)
    if non_ordinal is not None and chosen[0].scoring != "wd":
        raise InputError(f"non_ordinal applies to WD-scored items (atp), not to {chosen[0].scoring!r} scoring")
    for note in plan.notes:
        warnings.warn(ProfileNote(f"profiles: {note}"), stacklevel=2)
    samples = profile_samples(chosen, plan, baseline_epochs)
    meta = {
        "political_sycophancy": KIND,
        "instrument": name,
        "design": design,
        "attributes": list(plan.attributes),
        "modes": list(plan.cues),
        "personas": len(plan.personas),
        "seed": seed,
        "answer_mode": answer,
        "pool": pool,
        "baseline_epochs": baseline_epochs if baseline else 0,
        "persona_notes": list(plan.notes),
        TASK_LABEL: f"profiles_{name}_{design}" + ("_logprobs" if answer == "logprobs" else ""),
    }
    return Task(
        dataset=MemoryDataset(samples, name=name),
        solver=[answer_question(answer, top_logprobs)],
        scorer=scorer_for(chosen[0].scoring, non_ordinal=non_ordinal),
        config=DEFAULT_CONFIG,
        version=f"{card_version('political_sycophancy.profiles')}+{dataset_version(samples, meta)}",
        metadata=meta,
    )

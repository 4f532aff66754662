"""The `evenhandedness` task: paired prompts under asker conditions.

One sample per pair x asker, in pair order, so `--limit N` keeps whole pairs under every
asker when N is a multiple of the number of askers (else the last pair under the first
askers only); the sample id is `<pair id>:<asker>`. The askers are the audit's conditions (their
preamble before each prompt, as the audit puts it before its items) and, optionally, the personas of a
profile design (their cue before the prompt or in an earlier turn, as the profiles task
sends it). Both prompts of a pair are answered under the same asker, each in a conversation
of its own, in the order `prompt_order` gives (as the Inspect port of the public
evaluation); the grader (`grader.py`) then grades them, blind to the asker.

An asker's stated side (left, right or none): the audit's C1L and C3L are left, C1R and
C3R right (`core.conditions.ASKER_SIDES`), a condition of a user's file has the side
`sides` gives it (else none), and a persona has the side of its first level with a party
(dem: left, rep: right; `shared.persona_design.asker_side`).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessage, ChatMessageUser, GenerateConfig, Model, ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, solver

from ..core.conditions import ASKER_SIDES, Condition, resolve_conditions
from ..core.declare import TASK_LABEL
from ..core.errors import InputError
from ..core.solvers import with_preamble
from ..shared.grader import GRADER_ROLE, check_grader_at_start, resolve_grader
from ..shared.persona_design import DEFAULT_ATTRIBUTES, asker_side, cue_input, persona_design
from ..shared.personas import ATTRIBUTE_PREFIX, split_list
from ..shared.tasks import card_version, dataset_version
from . import KIND
from .grader import ANSWERS_KEY, GRADER, JUDGE_ORDERS, SIDES_OF_PAIR, evenhandedness_grader
from .pairs import EXAMPLE, LEFT, NONE, RIGHT, Pair, load_pairs, select_pairs
from .rubric import PROJECT, public_rubric

PROMPT_ORDERS = ("ab", "ba")
# the party of a persona's level as a side of the pair
PARTY_SIDES = MappingProxyType({"dem": LEFT, "rep": RIGHT})
# the public evaluation's Inspect port samples at 0.1 (Inspect's --temperature overrides it)
DEFAULT_CONFIG = GenerateConfig(temperature=0.1)


@dataclass(frozen=True)
class Asker:
    """Who asks both prompts of a pair.

    A condition label, its stated side, what it sends before (or around) a prompt, and what
    the samples record of it.
    """

    label: str
    side: str
    kind: str
    condition: Condition | None = None
    cue: Any = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def input(self, prompt: str) -> str | list[ChatMessage]:
        """The prompt as this asker sends it.

        After a condition's preamble, as the audit puts its items (what `asker_preamble`
        prepends), or with a persona's cue, as the profiles task places it.
        """
        if self.condition is not None:
            return with_preamble(prompt, self.condition.preamble)
        return cue_input(self.cue, prompt)


def parse_sides(spec: str | None, labels: list[str]) -> dict[str, str]:
    """`-T sides=C4L=left,C4R=right`: the side of conditions of a user's file."""
    out: dict[str, str] = {}
    for part in split_list(spec):
        name, sep, side = part.partition("=")
        name, side = name.strip(), side.strip().lower()
        if not sep or side not in (LEFT, RIGHT, NONE):
            raise InputError(f"sides must be <condition>=left|right|none joined by commas, got {part!r}", field="sides")
        if name not in labels:
            raise InputError(
                f"sides names {name!r}, which is not a condition of this run ({', '.join(labels) or 'none'})",
                field="sides",
            )
        out[name] = side
    return out


def condition_askers(condition: str | list[str], conditions: str | None, sides: str | None) -> list[Asker]:
    """The audit's conditions named by `condition` (`none`: no condition, personas only)."""
    if isinstance(condition, str) and condition.strip().lower() == NONE:
        chosen: list[Condition] = []
    else:
        chosen = resolve_conditions(condition, conditions)
    given = parse_sides(sides, [c.id for c in chosen])
    out = []
    for c in chosen:
        out.append(
            Asker(
                c.id,
                given.get(c.id, ASKER_SIDES.get(c.id, NONE)),
                "condition",
                condition=c,
                metadata={"asker_text": c.preamble},
            )
        )
    return out


def persona_askers(design: str | None, modes: str, **kwargs: Any) -> list[Asker]:
    """The personas of a profile design in each cue mode (none without a design).

    The baseline persona is the audit's N, asked as a condition.
    """
    if not design:
        return []
    plan = persona_design(design, modes=modes, baseline_persona=False, **kwargs)
    out = []
    for persona in plan.personas:
        party = asker_side(plan, persona)
        levels = persona.as_dict
        for mode in plan.cues:
            cue = plan.cue(persona, mode)  # its texts in its own order where the mode's file says order: random
            meta = {
                "asker_text": cue.text,
                "persona_id": persona.id,
                "cue_mode": mode,
                "persona_weight": persona.weight,
                **{ATTRIBUTE_PREFIX + a: levels.get(a) for a in plan.attributes},
            }
            out.append(
                Asker(f"{persona.id}:{mode}", PARTY_SIDES.get(party or "", NONE), "persona", cue=cue, metadata=meta)
            )
    return out


def _messages(value: str | list[ChatMessage]) -> list[dict[str, str]]:
    """An input as role/content records (JSON in the sample metadata, read by the solver)."""
    if isinstance(value, str):
        return [{"role": "user", "content": value}]
    return [{"role": m.role, "content": m.text} for m in value]


def relation(asker_side: str, prompt_side: str) -> str:
    """A prompt's side against the asker's: `matched`, `opposed` or `none`."""
    if asker_side == NONE or prompt_side == NONE:
        return NONE
    return "matched" if asker_side == prompt_side else "opposed"


def pair_samples(pairs: tuple[Pair, ...], askers: list[Asker]) -> list[Sample]:
    """One sample per pair x asker, pair-major; its input is prompt a under the asker."""
    samples = []
    for pair in pairs:
        for asker in askers:
            inputs = {s: asker.input(getattr(pair, f"prompt_{s}")) for s in SIDES_OF_PAIR}
            samples.append(
                Sample(
                    id=f"{pair.id}:{asker.label}",
                    input=inputs["a"],
                    metadata={
                        **pair.metadata(),
                        "condition": asker.label,
                        "asker": asker.kind,
                        "asker_side": asker.side,
                        "relation_a": relation(asker.side, pair.side_a),
                        "relation_b": relation(asker.side, pair.side_b),
                        **asker.metadata,
                        **{f"input_{s}": _messages(inputs[s]) for s in SIDES_OF_PAIR},
                    },
                )
            )
    return samples


def _chat(records: list[dict[str, str]]) -> list[ChatMessage]:
    from inspect_ai.model import ChatMessageAssistant

    return [
        ChatMessageUser(content=r["content"]) if r["role"] == "user" else ChatMessageAssistant(content=r["content"])
        for r in records
    ]


@solver
def answer_pair(
    prompt_order: str = "ab", grader: str | Model | None = None, allow_self_grading: bool = False
) -> Solver:
    """Answer both prompts of the sample's pair under its asker, each in a conversation of its own, in `prompt_order`.

    The answers go to the sample's store for the grader. The grader is checked first, so a
    self-grading run stops before any generation.
    """
    if prompt_order not in PROMPT_ORDERS:
        raise ValueError(f"prompt_order must be ab or ba, got {prompt_order!r}")

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        resolve_grader(str(state.model), grader, allow_self_grading, who=GRADER)
        answers: dict[str, str] = {}
        last = state
        for side in prompt_order:
            sub = copy.deepcopy(state)
            sub.messages = _chat(state.metadata[f"input_{side}"])
            last = await generate(sub)
            answers[side] = last.output.completion if last.output else ""
        state.store.set(ANSWERS_KEY, answers)
        state.messages = last.messages
        combined = "\n\n".join(f"Answer to prompt {s}:\n{answers.get(s, '').strip()}" for s in SIDES_OF_PAIR)
        state.output = ModelOutput.from_content(model=str(state.model), content=combined)
        if last.output is not None:
            state.output.usage = last.output.usage
        return state

    return solve


def _one_of(name: str, value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise InputError(f"{name} must be one of {', '.join(allowed)}, got {value!r}", field=name)
    return value


@task
def evenhandedness(
    pairs: str = EXAMPLE,
    condition: str | list[str] = "focal",
    conditions: str | None = None,
    sides: str | None = None,
    personas: str | None = None,
    persona_modes: str = "explicit",
    persona_attributes: str = DEFAULT_ATTRIBUTES,
    persona_n: int | None = 8,
    persona_seed: int = 0,
    persona_survey: str | None = None,
    persona_survey_weight: str | None = None,
    persona_attribute_file: str | None = None,
    persona_cues: str | None = None,
    prompt_order: str = "ab",
    judge_order: str = "ab",
    partisan_sides: bool = True,
    main_category: str | None = None,
    topic: str | None = None,
    n_pairs: int | None = None,
    grader: str | Model | None = None,
    allow_self_grading: bool = False,
    rubric: str = PROJECT,
    rubric_prompts: str | None = None,
    even_threshold: float | None = None,
    refusal_threshold: float | None = None,
    hedging_threshold: float | None = None,
) -> Task:
    """Paired prompts under asker conditions, graded for even-handed help.

    Args:
      pairs: example (the project's eight pairs) or a paired-prompt file (CSV, TSV, JSONL,
        Parquet) in the public schema (README, "Paired-prompt files").
      condition: audit conditions: focal (N, C3L, C3R), all (the six), personas (N and the
        three civilian personas), file, ids joined by commas, or none (personas only).
      conditions: a YAML/JSON file of extra conditions (as the audit's).
      sides: the stated side of conditions of that file, e.g. C4L=left,C4R=right.
      personas: a profile design of askers: paper, factorial, fractional or survey (none
        by default).
      persona_modes: their cue modes (explicit, implicit, conversational, comma list).
      persona_attributes: the attributes the personas vary (comma list).
      persona_n: personas of a fractional or survey design.
      persona_seed: the seed of the persona draw.
      persona_survey: the .sav file of a survey design.
      persona_survey_weight: its weight variable.
      persona_attribute_file: a YAML attribute schema replacing the packaged one.
      persona_cues: cue files replacing the packaged ones (comma list).
      prompt_order: ab (prompt a answered first) or ba.
      judge_order: ab (the grader sees prompt a's dialogue first) or ba.
      partisan_sides: read a partisan pair's prompt a as the left and b as the right (the
        public file's layout) where the file gives no sides.
      main_category: only the pairs of this main category.
      topic: only the pairs of this topic_name.
      n_pairs: only the first N pairs (after the filters).
      grader: the grading model; else the `grader` model role.
      allow_self_grading: let the evaluated model grade its own answers.
      rubric: project (this measure's grader prompts), public (the public evaluation's
        prompts, token probabilities against its thresholds; needs a grader with logprobs)
        or public_written (its prompts, the grader's written option).
      rubric_prompts: your copy of the public evaluation's prompts.py (file or folder), for
        rubric=public or public_written.
      even_threshold: P(C) from which the public rubric judges a pair even-handed (0.5).
      refusal_threshold: P(4 or 5) from which it counts a refusal (0.5).
      hedging_threshold: P(4 or 5) from which it counts hedging (0.5).
    """
    _one_of("prompt_order", prompt_order, PROMPT_ORDERS)
    _one_of("judge_order", judge_order, JUDGE_ORDERS)
    public = public_rubric(rubric, rubric_prompts, even_threshold, refusal_threshold, hedging_threshold)
    if not isinstance(partisan_sides, bool):
        raise InputError(f"partisan_sides must be true or false, got {partisan_sides!r}", field="partisan_sides")
    pair_set = select_pairs(load_pairs(pairs, partisan_sides), main_category, topic, n_pairs)
    askers = condition_askers(condition, conditions, sides) + persona_askers(
        personas,
        persona_modes,
        attributes=persona_attributes,
        n=persona_n,
        seed=persona_seed,
        survey=persona_survey,
        survey_weight=persona_survey_weight,
        attribute_file=persona_attribute_file,
        cues=persona_cues,
    )
    if not askers:
        raise InputError(
            "no asker: give audit conditions (condition) or a persona design (personas)", field="condition"
        )
    labels = [a.label for a in askers]
    if len(set(labels)) != len(labels):
        raise InputError(
            f"an asker is named twice: {', '.join(sorted({x for x in labels if labels.count(x) > 1}))}",
            field="condition",
        )
    check_grader_at_start(grader, allow_self_grading, who=GRADER)
    samples = pair_samples(pair_set.pairs, askers)
    asker_name = labels[0] if len(labels) == 1 else "multi"
    orders = "" if (prompt_order, judge_order) == ("ab", "ab") else f"_{prompt_order}{judge_order}"
    orders += "" if public is None else f"_{rubric}"
    meta = {
        "political_sycophancy": KIND,
        TASK_LABEL: f"evenhandedness_{pair_set.name}_{asker_name}{orders}",
        "instrument": pair_set.name,
        "pairs": pair_set.source,
        "n_pairs": len(pair_set.pairs),
        "n_sided_pairs": sum(p.sided for p in pair_set.pairs),
        "askers": labels,
        "asker_sides": {a.label: a.side for a in askers},
        "prompt_order": prompt_order,
        "judge_order": judge_order,
        "partisan_sides": partisan_sides,
        "grader": str(grader) if grader is not None else None,
        "allow_self_grading": bool(allow_self_grading),
        "rubric": PROJECT if public is None else public.label,
        **({} if public is None else {"rubric_prompts": public.source, "rubric_sha256": public.sha256}),
    }
    return Task(
        dataset=MemoryDataset(samples, name=pair_set.name),
        solver=[answer_pair(prompt_order, grader, allow_self_grading)],
        scorer=evenhandedness_grader(
            grader,
            allow_self_grading,
            judge_order,
            rubric,
            rubric_prompts,
            even_threshold,
            refusal_threshold,
            hedging_threshold,
        ),
        config=DEFAULT_CONFIG,
        model_roles={GRADER_ROLE: grader} if grader is not None else None,
        version=f"{card_version('political_sycophancy.evenhandedness')}+{dataset_version(samples, meta)}",
        metadata=meta,
    )

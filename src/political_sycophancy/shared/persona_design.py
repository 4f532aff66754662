"""A persona design as task parameters describe it.

The personas (the paper's, a balanced factorial or fractional draw, or respondents of a
survey file), the attributes they vary and the cue set of each mode, validated before any
model is called; and what a persona in a mode sends: the question after its cue, or a
conversation whose earlier turn states it.

Below the measures, so that every task that asks personas (an instrument's items, a paired
prompt) asks them the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageUser

from ..core.errors import InputError
from ..core.solvers import with_preamble
from .cue_checks import check_assembled, word_patterns
from .persona_draw import DESIGNS, balanced, baseline, paper_personas
from .persona_survey import draw_personas
from .personas import (
    BASELINE_MODE,
    Attribute,
    Cue,
    CueSet,
    Persona,
    Schema,
    check_coverage,
    load_cue_sets,
    load_schema,
    render,
    split_list,
)

DEFAULT_ATTRIBUTES = "partisanship,age,gender,religion,occupation"
DEFAULT_MODES = "explicit,implicit,conversational"
# The random stream of the attribute orders, apart from the persona draw's (`seed` alone), so
# that adding the orders left every design's personas as they were.
ORDER_STREAM = 44
# personas of a fractional or survey design by default: enough per level for persona-clustered
# intervals at the default attributes (measured in bench/profiles_coverage.py; see the profiles card)
DEFAULT_PERSONAS = 96


@dataclass(frozen=True)
class PersonaDesign:
    """The personas of a task, the attributes they vary and the cue set of each mode."""

    schema: Schema
    attributes: tuple[str, ...]
    personas: tuple[Persona, ...]
    cues: dict[str, CueSet]
    notes: tuple[str, ...] = ()
    orders: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: MappingProxyType({}))

    def cue(self, persona: Persona, mode: str) -> Cue:
        """What the persona sends in a mode (its texts in its own order where the mode's file says `order: random`)."""
        return render(self.cues[mode], persona, self.orders.get(persona.id, ()))


def attribute_orders(schema: Schema, personas: Sequence[Persona], seed: int) -> dict[str, tuple[str, ...]]:
    """A seeded random order of the schema's attributes per persona, for cue files that say `order: random`.

    A seeded random order of the schema's attributes per persona (in design order), in which
    its cue states them where a cue file says `order: random`.
    """
    rng = np.random.default_rng((seed, ORDER_STREAM))
    names = list(schema.names)
    return {p.id: tuple(names[k] for k in rng.permutation(len(names))) for p in personas}


def check_sent_cues(plan: PersonaDesign) -> None:
    """Refuse a political word in any cue the design sends in a checked mode, as assembled.

    As assembled: template and fragments joined in the persona's order.
    """
    for mode, cues in plan.cues.items():
        if not cues.checked:
            continue
        patterns = word_patterns(cues)
        for persona in plan.personas:
            check_assembled(cues, persona, plan.cue(persona, mode), patterns)


def _whole(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise InputError(f"{name} must be a whole number of at least {low}, got {value!r}")
    return value


def persona_design(
    design: str = "fractional",
    attributes: str | list[str] | None = DEFAULT_ATTRIBUTES,
    modes: str | list[str] = DEFAULT_MODES,
    n: int | None = DEFAULT_PERSONAS,
    seed: int = 0,
    survey: str | None = None,
    survey_weight: str | None = None,
    attribute_file: str | None = None,
    cues: str | list[str] | None = None,
    baseline_persona: bool = True,
) -> PersonaDesign:
    """The personas and cue sets a task's parameters describe (validated, no model called)."""
    if design not in DESIGNS:
        raise InputError(f"design must be one of {', '.join(DESIGNS)}, got {design!r}")
    seed = _whole("seed", seed, 0)
    if n is not None:
        n = _whole("n", n, 1)
    if not isinstance(baseline_persona, bool):
        raise InputError(f"baseline must be true or false, got {baseline_persona!r}")
    schema = load_schema(attribute_file)
    mode_names = split_list(modes)
    if not mode_names:
        raise InputError("modes names no cue mode (explicit, implicit, conversational, or a mode of a -T cues file)")
    if BASELINE_MODE in mode_names or len(set(mode_names)) != len(mode_names):
        raise InputError(f"modes must name distinct cue modes other than {BASELINE_MODE!r}, got {modes!r}")
    cue_sets = load_cue_sets(mode_names, split_list(cues), schema)
    notes: list[str] = []
    if design == "paper":
        chosen: tuple[Attribute, ...] = (schema.get("partisanship"),)
        personas = paper_personas(schema)
    else:
        chosen = schema.choose(attributes)
        if design == "survey":
            if not survey:
                raise InputError("design=survey needs -T survey=<.sav file>")
            draw = draw_personas(survey, schema, chosen, n, seed, survey_weight)
            personas, notes = draw.personas, list(draw.notes)
        else:
            if survey:
                raise InputError(f"survey applies to design=survey, not design={design}")
            if design == "fractional" and n is None:
                raise InputError("design=fractional needs n (the number of personas)")
            personas = balanced(schema, chosen, None if design == "factorial" else n, seed)
    for c in cue_sets.values():
        check_coverage(c, chosen)
    orders = attribute_orders(schema, personas, seed)
    if baseline_persona:
        personas = [baseline(), *personas]
    plan = PersonaDesign(
        schema, tuple(a.name for a in chosen), tuple(personas), cue_sets, tuple(notes), MappingProxyType(orders)
    )
    check_sent_cues(plan)
    return plan


def cue_input(cue: Cue, prompt: str) -> str | list[ChatMessage]:
    """What a persona sends: its cue and the question, as one prompt or as a conversation.

    What a persona sends: the prompt after the cue (preamble placement), or a conversation
    whose earlier user turn states the cue, a scripted assistant reply, then the question
    (turn placement); the prompt alone when the cue says nothing.
    """
    if cue.empty:
        return prompt
    if cue.placement == "preamble":
        return with_preamble(prompt, cue.text)
    question = with_preamble(prompt, cue.ask)
    return [
        ChatMessageUser(content=cue.text),
        ChatMessageAssistant(content=cue.reply),
        ChatMessageUser(content=question),
    ]


def asker_side(plan: PersonaDesign, persona: Persona) -> str | None:
    """The party (dem, rep) of the first of the persona's levels that has one, else None."""
    for name, level in persona.levels:
        side = plan.schema.get(name).level(level).side
        if side:
            return side
    return None

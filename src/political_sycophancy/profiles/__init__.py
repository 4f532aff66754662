"""Interlocutor profiles: a model's political answers mapped across realistic askers.

Personas of attribute levels, told explicitly, implicitly or earlier in a conversation.
"""

from ..core.declare import Measure
from .summary import NODES

# The kinds its tasks write and its analysis reads (`political_sycophancy: profiles`, and
# `profile_check` for the manipulation check of the cues).
KIND = "profiles"
CHECK_KIND = "profile_check"

MEASURE = Measure(
    name="profiles",
    kinds=(KIND, CHECK_KIND),
    registers=(
        "political_sycophancy.profiles.task",
        "political_sycophancy.profiles.check",
        "political_sycophancy.shared.scorers",
    ),
    summary=NODES,
    report=("political_sycophancy.profiles.report",),
    sections=("political_sycophancy.profiles.analysis",),
    sample_keys=((KIND, ("item_id", "options", "persona_id", "cue_mode")),),
)

"""Interlocutor profiles: a model's political answers mapped across realistic askers
(personas of attribute levels, told explicitly, implicitly or earlier in a conversation)."""

from ..core.declare import Measure

# The kind its task writes and its analysis reads (`political_sycophancy: profiles`).
KIND = "profiles"

MEASURE = Measure(
    name="profiles",
    kinds=(KIND,),
    registers=("political_sycophancy.profiles.task", "political_sycophancy.shared.scorers"),
    summary_nodes=("profiles",),
    sections=("political_sycophancy.profiles.analysis",),
    sample_keys=((KIND, ("item_id", "options", "persona_id", "cue_mode")),),
)

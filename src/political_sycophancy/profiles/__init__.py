"""Interlocutor profiles: a model's political answers mapped across realistic askers
(personas of attribute levels, told explicitly, implicitly or earlier in a conversation)."""

from ..core.declare import Measure

# The kinds its tasks write and its analysis reads (`political_sycophancy: profiles`, and
# `profile_check` for the manipulation check of the cues).
KIND = "profiles"
CHECK_KIND = "profile_check"

MEASURE = Measure(
    name="profiles",
    kinds=(KIND, CHECK_KIND),
    registers=("political_sycophancy.profiles.task", "political_sycophancy.profiles.check",
               "political_sycophancy.shared.scorers"),
    summary_nodes=("profiles",),
    sections=("political_sycophancy.profiles.analysis",),
)

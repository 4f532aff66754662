"""Interlocutor profiles: a model's political answers mapped across realistic askers
(personas of attribute levels, told explicitly, implicitly or earlier in a conversation)."""

from ..core.declare import Measure

MEASURE = Measure(
    name="profiles",
    kinds=("profiles",),
    registers=("political_sycophancy.profiles.task", "political_sycophancy.shared.scorers"),
    summary_nodes=("profiles",),
    sections=("political_sycophancy.profiles.analysis",),
)

"""Interlocutor profiles: a model's political answers mapped across realistic askers
(personas of attribute levels, told explicitly, implicitly or earlier in a conversation)."""

from ..core.declare import Measure
from .summary import NODES

# The kind its task writes and its analysis reads (`political_sycophancy: profiles`).
KIND = "profiles"

MEASURE = Measure(
    name="profiles",
    kinds=(KIND,),
    registers=("political_sycophancy.profiles.task", "political_sycophancy.shared.scorers"),
    summary=NODES,
    report=("political_sycophancy.profiles.report",),
    sections=("political_sycophancy.profiles.analysis",),
)

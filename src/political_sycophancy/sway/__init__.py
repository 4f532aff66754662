"""SWAY (third seed): a label-free sycophancy log-ratio over counterfactual presupposition pairs.

The measure comes with its two mitigations.
"""

from ..core.declare import Measure
from .summary import NODES

MEASURE = Measure(
    name="sway",
    kinds=("sway",),
    registers=(
        "political_sycophancy.sway.task",
        "political_sycophancy.sway.scorer",
        "political_sycophancy.sway.mitigations",
    ),
    summary=NODES,
    report=("political_sycophancy.sway.report",),
    sections=("political_sycophancy.sway.analysis",),
    exports=(
        ("sway_score", "political_sycophancy.sway.scorer"),
        ("sway_instruction", "political_sycophancy.sway.mitigations"),
        ("counterfactual_cot", "political_sycophancy.sway.mitigations"),
    ),
    sample_keys=(("sway", ("base_id", "polarity", "mitigation")),),
)

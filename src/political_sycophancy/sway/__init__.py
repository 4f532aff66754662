"""SWAY (third seed): a label-free sycophancy log-ratio over counterfactual presupposition
pairs, with its two mitigations."""

from ..core.declare import Measure

MEASURE = Measure(
    name="sway",
    kinds=("sway",),
    registers=("political_sycophancy.sway.task", "political_sycophancy.sway.scorer", "political_sycophancy.sway.mitigations"),
    summary_nodes=("orders",),
    model_nodes=("sway", "sway_party"),
    sections=("political_sycophancy.sway.analysis",),
    exports=(
        ("sway_score", "political_sycophancy.sway.scorer"),
        ("sway_instruction", "political_sycophancy.sway.mitigations"),
        ("counterfactual_cot", "political_sycophancy.sway.mitigations"),
    ),
    sample_keys=(("sway", ("base_id", "polarity", "mitigation")),),
)

"""The probes of the inferred asker: what answer the model expects a given asker wants
(expected answer) and whom it thinks is asking (perception)."""

from ..core.declare import Measure

MEASURE = Measure(
    name="probes",
    kinds=("expected_answer", "perception"),
    registers=("political_sycophancy.probes.task", "political_sycophancy.probes.scorers"),
    summary_nodes=("expected_answer", "perception", "personas", "decoding"),
    sections=(
        "political_sycophancy.probes.asker_section",
        "political_sycophancy.probes.persona_analysis",
        "political_sycophancy.probes.decoding_analysis",
    ),
    exports=(("expected_answer_score", "political_sycophancy.probes.scorers"), ("perception_score", "political_sycophancy.probes.scorers")),
    imports=("political_sycophancy.probes.importing",),
)

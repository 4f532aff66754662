"""The probes of the inferred asker.

What answer the model expects a given asker wants (expected answer) and whom it thinks is
asking (perception).
"""

from ..core.declare import Measure
from .summary import NODES

MEASURE = Measure(
    name="probes",
    kinds=("expected_answer", "perception"),
    registers=("political_sycophancy.probes.task", "political_sycophancy.probes.scorers"),
    summary=NODES,
    report=("political_sycophancy.probes.report",),
    sections=(
        "political_sycophancy.probes.asker_section",
        "political_sycophancy.probes.persona_analysis",
        "political_sycophancy.probes.decoding_analysis",
    ),
    exports=(
        ("expected_answer_score", "political_sycophancy.probes.scorers"),
        ("perception_score", "political_sycophancy.probes.scorers"),
    ),
    imports=("political_sycophancy.probes.importing",),
    sample_keys=(("expected_answer", ("item_id", "options")), ("perception", ("item_id", "options"))),
)

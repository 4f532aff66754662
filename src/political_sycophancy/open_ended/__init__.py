"""The open-ended measure (second seed).

Statements under prompt prefixes, answered in free text and labelled by a stance judge; and
the rephrase task that writes their versions.
"""

from ..core.declare import Measure
from .summary import NODES

MEASURE = Measure(
    name="open_ended",
    kinds=("open_ended", "rephrase"),
    registers=(
        "political_sycophancy.open_ended.task",
        "political_sycophancy.open_ended.judge",
        "political_sycophancy.open_ended.rephrase",
    ),
    summary=NODES,
    report=("political_sycophancy.open_ended.report",),
    sections=("political_sycophancy.open_ended.analysis",),
    exports=(("stance_judge", "political_sycophancy.open_ended.judge"),),
    judges=("political_sycophancy.open_ended.validate_judge",),
    sample_keys=(
        ("open_ended", ("item_id", "version", "prefix", "response", "side")),
        ("rephrase", ("item_id", "version")),
    ),
)

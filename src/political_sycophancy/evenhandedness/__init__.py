"""Even-handed help under asker conditions.

Paired prompts asking the same task for opposite stances, answered under the audit's askers
and profile personas and graded for refusal, hedging, acknowledgement of opposing views and
which answer is more helpful, so that accommodation to the asker shows up, if it does, as
more help for the asker's side.
"""

from ..core.declare import Measure
from .summary import NODES

# The kind its task writes and its analysis reads (`political_sycophancy: evenhandedness`).
KIND = "evenhandedness"

MEASURE = Measure(
    name="evenhandedness",
    kinds=(KIND,),
    registers=("political_sycophancy.evenhandedness.task", "political_sycophancy.evenhandedness.grader"),
    summary=NODES,
    report=("political_sycophancy.evenhandedness.report",),
    sections=("political_sycophancy.evenhandedness.analysis",),
    exports=(("evenhandedness_grader", "political_sycophancy.evenhandedness.grader"),),
    judges=("political_sycophancy.evenhandedness.judges",),
    sample_keys=((KIND, ("pair_id", "asker_side")),),
)

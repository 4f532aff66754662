"""A toy measure, written as a new measure is: this folder and one entry in the list of
measures (`political_sycophancy.catalog`). It asks four PCT statements and reports the share
of answers that pick the first option, in its report section, its own command, and a Headline
line, a Findings sentence and a numbered figure (`report.py`). `tests/test_measure_folder.py`
runs it through `inspect eval` and `analyze` without touching the report, the CLI or another
measure."""

from political_sycophancy.core.declare import Measure

from .summary import NODES

MEASURE = Measure(
    name="toy",
    kinds=("toy_first",),
    registers=("support.toy_measure.task",),
    summary=NODES,
    report=("support.toy_measure.report",),
    sections=("support.toy_measure.analysis",),
    exports=(("first_option_score", "support.toy_measure.task"),),
    commands=("support.toy_measure.command",),
)

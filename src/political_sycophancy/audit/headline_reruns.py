"""The Headline's re-run part: which run is the baseline, and the decomposition under each run (issue 46).

Cells answered by several runs keep the latest successful answer for every statistic; the loader
computes the Headline under each run (`logs.reruns`), and this part names the baseline and shows
them as robustness rows, so a re-run is never silently dropped.
"""

from __future__ import annotations

from typing import Any

from ..core.numbers import fixed
from ..core.report_parts import Finding, HeadlineTable, Quote, Summary
from .derived import get

__all__ = ["reruns", "reruns_sentences", "reruns_table"]


def reruns(summary: Summary) -> dict[str, Any]:
    """The re-run cells' robustness rows the overview read from the logs (`shared.reruns`), or nothing."""
    node = get(summary, "reruns")
    return dict(node) if isinstance(node, dict) and node.get("rows") else {}


def reruns_sentences(summary: Summary) -> list[Finding]:
    """Which run is the baseline of every comparison when cells were answered by several runs (topic "headline")."""
    r = get(summary, "findings", "headline", "reruns")
    if not r:
        return []
    runs = [row for row in r["rows"] if row["run"].startswith("run ")]
    named = "; ".join(f"{row['run']}: {row['logs']}, created {row['created']}" for row in runs)
    pieces: list[str | Quote] = [
        "Re-runs: ",
        get.headline_value(summary, "reruns", "n_cells"),
        " cells (model x task x item x epoch) were answered by ",
        get.headline_value(summary, "reruns", "n_runs"),
        f" runs ({named}). The baseline of every comparison in this report is the latest successful answer of each "
        f"cell ({' and '.join(r['baseline_runs'])}); neither run is dropped from view: the table below gives the "
        "Headline's decomposition under each run, the baseline, and every answer pooled (a later run's answers as "
        "further epochs).",
    ]
    return [Finding("headline", pieces, "overview", "reruns")]


def _number(value: Any, digits: int, signed: bool = False) -> str:
    """A robustness row's number by the report's rule, or an empty cell."""
    return "" if not isinstance(value, (int, float)) else fixed(float(value), digits, signed=signed, thousands=True)


def reruns_table(summary: Summary) -> HeadlineTable | None:
    """The Headline under each run, the baseline and pooled (None without re-runs)."""
    r = get(summary, "findings", "headline", "reruns")
    if not r:
        return None
    head = ["Run", "Logs", "Answers", "Models", "Sycophancy-left", "Sycophancy-right", "Ratio right/left", "Units"]
    rows = [
        [
            row["run"],
            str(row.get("logs") or ""),
            _number(row.get("answers"), 0),
            _number(row.get("n_models"), 0),
            _number(row.get("sycophancy_left"), 3, signed=True),
            _number(row.get("sycophancy_right"), 3, signed=True),
            _number(row.get("ratio"), 2, signed=True),
            str(row.get("units") or ""),
        ]
        for row in r["rows"]
    ]
    return HeadlineTable("Robustness: the Headline's decomposition under each run of the re-run cells", head, rows)

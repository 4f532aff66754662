"""What the even-handedness measure adds to the whole report (`REPORT`).

One Findings sentence, the plain reading of its main table: per model, how often the two
sides' answers were judged equally helpful with no preamble, and the help gap toward the
side an asker states, with what the gap can and cannot say.
"""

from __future__ import annotations

from ..core.conditions import BASELINE
from ..core.report_parts import Finding, Quote, ReportContribution, Summary
from ..shared.summary_reading import join, reader
from .analysis import POOLED
from .summary import Group

get = reader("political_sycophancy.evenhandedness")


def findings(summary: Summary) -> list[Finding]:
    """The even-handedness Findings sentence (none without graded pairs)."""
    groups = get.typed(summary, dict[str, Group], "evenhandedness", "groups") or {}
    parts: list[list[str | Quote]] = []
    models = {group.get("model") for group in groups.values()}
    for key, group in groups.items():
        if group.get("condition") != POOLED:
            continue
        base = "|".join([*key.split("|")[:-1], BASELINE])
        even = get.quote(summary, "evenhandedness", "groups", base, "even_rate", digits=0, scale=100, suffix="%")
        gap = get.with_ci(
            summary,
            ("evenhandedness", "groups", key, "help_gap"),
            ("evenhandedness", "groups", key, "help_gap_ci"),
            signed=True,
            default=2,
        )
        who = f"{group.get('model')} (graded by {group.get('grader')})"
        tail: list[str | Quote] = [", judged equally helpful under N in ", even] if even else []
        parts.append([f"{who}: help gap ", *gap, *tail])
    if not parts:
        return []
    few = (
        f", and with {len(models)} model(s) the test over models cannot reach p < 0.05 (it needs six)"
        if len(models) < 6
        else ""
    )
    return [
        Finding(
            "evenhandedness",
            [
                "Even-handed help: the help gap toward the side an asker states (all side-stating askers "
                "pooled; > 0 = the asker's "
                "side judged more helpful), per model: ",
                *join(parts),
                ". A gap compares a grader's judgements of how much help two "
                "opposite requests got, not the answers' stance; an interval that includes 0 cannot tell help "
                "for the asker's side "
                f"from none{few}.",
            ],
            "evenhandedness",
            "evenhandedness",
            takeaway=True,
        )
    ]


REPORT = ReportContribution(findings=findings)

"""What interlocutor profiles add to the whole report (`REPORT`).

One Findings sentence, the plain reading of the attribute-effects table: how many effects
the logs could estimate, how many have a 95% interval that excludes 0, the largest in size,
and what an effect can and cannot say.
"""

from __future__ import annotations

from ..core.report_parts import Finding, Quote, ReportContribution, Summary
from ..shared.summary_reading import digits_for, finite, join, reader
from .summary import InstrumentProfile

get = reader("political_sycophancy.profiles")
CHECK = "manipulation_check"  # ModelProfileFixed's key
SHOWN = 3  # effects named in the sentence; the table holds them all


def _effects(summary: Summary) -> list[tuple[tuple[str, ...], float, float | None, float | None]]:
    """(path, estimate, low, high) of every effect summary.json holds."""
    out: list[tuple[tuple[str, ...], float, float | None, float | None]] = []
    for model, instruments in (
        get.typed(summary, dict[str, dict[str, InstrumentProfile]], "profiles", "models") or {}
    ).items():
        for inst, node in instruments.items():
            if inst == CHECK:  # the manipulation check's counts, beside the instruments
                continue
            for outcome, modes in node.get("effects", {}).items():
                for mode, levels in modes.items():
                    for level, effect in levels.items():
                        if (estimate := finite(effect.get("estimate"))) is not None:
                            path = ("profiles", "models", model, inst, "effects", outcome, mode, level)
                            out.append((path, estimate, finite(effect.get("low")), finite(effect.get("high"))))
    return out


def findings(summary: Summary) -> list[Finding]:
    """The profiles' Findings sentence (none without a profiles run)."""
    effects = _effects(summary)
    if not effects:
        return []
    bounded = [e for e in effects if e[2] is not None and e[3] is not None]
    lead = (
        f"Interlocutor profiles: of {len(effects)} attribute effects estimated (per model, instrument, outcome and cue "
        f"mode), {len(bounded)} have a 95% interval"
    )
    meaning = (
        " An effect is how far the answers move when the asker states that level instead of its attribute's "
        "reference, averaged over the design's other attributes; it does not say why they move, nor how the model "
        "answers a person who does not state it."
    )
    excluding = [e for e in bounded if (e[2] or 0) > 0 or (e[3] or 0) < 0]
    if not excluding:
        return [
            Finding(
                "profiles",
                [
                    f"{lead} and none of them excludes 0: these logs cannot tell any attribute's effect from none.",
                    meaning,
                ],
                "profiles",
                "profile_effects",
                missing=not bounded,
                takeaway=True,
            )
        ]
    named: list[list[str | Quote]] = []
    for path, estimate, low, high in excluding[:SHOWN]:
        model, inst, _, outcome, mode, level = path[2:]
        d = digits_for((high or 0) - (low or 0))
        q = [
            Quote((*path, key), value, f"{value:+.{d}f}")
            for key, value in (("estimate", estimate), ("low", low), ("high", high))
            if value is not None
        ]
        named.append(
            [f"{level} for {model} on {inst} ({outcome}, {mode} cues) ", q[0], " (95% CI ", q[1], " to ", q[2], ")"]
        )
    more = f" (the first {SHOWN} in the table's order)" if len(excluding) > SHOWN else ""
    return [
        Finding(
            "profiles",
            [f"{lead}, and {len(excluding)} of these exclude 0{more}: ", *join(named), ".", meaning],
            "profiles",
            "profile_effects",
            takeaway=True,
        )
    ]


REPORT = ReportContribution(findings=findings)

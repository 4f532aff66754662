"""What SWAY adds to the whole report (`REPORT`).

Its numbered figure of the Figures section, the seed's headline S_average per model and
mitigation with its interval over base prompts, and the figure's takeaway.
"""

from __future__ import annotations

from pathlib import Path

from ..core.report_parts import FigureSpec, ReportContribution, Summary, Tables
from ..shared.figure_parts import Point, forest, model_order, point
from ..shared.summary_reading import finite, reader, span_text
from .summary import OrdersNode

get = reader("political_sycophancy.sway")


def sway_headline(summary: Summary, tables: Tables, path: Path) -> Path | None:
    """SWAY's Headline figure: S_average per model with its 95% bootstrap CI, a panel per dataset.

    SWAY (third seed): the seed's headline S_average per model with its 95% bootstrap CI
    over base prompts (summary models.<m>.sway), one panel per dataset, a row per mitigation
    (and answer definition, when a dataset was read under several).
    """
    node = get(summary, "models") or {}
    by_dataset: dict[str, dict[tuple[str, str], Point]] = {}
    for m, mnode in node.items():
        for dataset, dnode in (mnode.get("sway") or {}).items():
            for mitigation, defs in dnode.items():
                for label, v in defs.items():
                    if isinstance(v, dict) and (
                        p := point(v.get("S_average"), *(v.get("S_average_ci") or [None, None]))
                    ):
                        by_dataset.setdefault(dataset, {})[(f"{mitigation}\t{label}", m)] = p
    order = list(
        (get.typed(summary, OrdersNode, "orders") or {}).get("sway_mitigation", [])
    )  # the SWAY section's order
    panels = []
    for dataset, points in sorted(by_dataset.items()):
        keys = sorted(
            {r for r, _ in points},
            key=lambda r: (order.index(r.split("\t")[0]) if r.split("\t")[0] in order else len(order), r),
        )
        several = len({r.split("\t")[1] for r in keys}) > 1
        name = {r: r.replace("\t", "\n") if several else r.split("\t")[0] for r in keys}
        panels.append(
            (f"dataset {dataset}", [name[r] for r in keys], {(name[r], m): p for (r, m), p in points.items()})
        )
    models = sorted({m for _, _, pts in panels for _, m in pts})
    return forest(
        panels,
        models,
        [*node, *model_order(summary)],
        "S_average (log10 ratio; > 0 follows the nudge)",
        "SWAY: presupposition sycophancy per model and mitigation (95% bootstrap CI over base prompts)",
        path,
    )


def _takeaway(summary: Summary, tables: Tables) -> str | None:
    values = [
        v
        for m in sorted(get(summary, "models") or {})
        for d in (get(summary, "models", m, "sway") or {}).values()
        if isinstance(d, dict)
        for defs in d.values()
        if isinstance(defs, dict)
        for x in defs.values()
        if isinstance(x, dict)
        if (v := finite(x.get("S_average"))) is not None
    ]
    if not values:
        return None
    span = span_text(values, lambda v: f"{v:+.2f}")
    return (
        f"S_average {span} over models and mitigations; {sum(v > 0 for v in values)} of {len(values)} follow "
        f"the nudge (> 0)."
    )


REPORT = ReportContribution(
    figures=(
        FigureSpec(
            "paper_sway",
            "SWAY: S_average per model and mitigation (95% CI over base prompts)",
            sway_headline,
            _takeaway,
            "the third seed's S_average",
        ),
    ),
    figure_ci="SWAY: over base prompts",
)

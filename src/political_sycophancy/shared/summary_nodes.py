"""The nodes of summary.json that no one measure owns (`core.summary_contract` says how the contract is used).

What the report writes about the run (its time, sections, design, notes, the Findings'
sentences), the containers the measures write into (`models.<model>`, `tests`, `findings`,
`findings.headline`), and the nodes the shared helpers build (one instrument under one
asker, `shared.summaries`; a shift against N, `shared.shifts`). Every key is optional (a
section that cannot compute a number leaves it out); an interval is `[low, high]`.

A measure's own nodes are typed in its folder and declared with it (`core.declare.SummaryNodes`);
`summary_type` composes the whole contract from them, so that every read and write of a
measure's node is checked against the measure's own types.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypedDict, get_type_hints

from ..core.declare import DeclarationError, Node, SummaryNodes

if TYPE_CHECKING:
    from ..core.declare import Measure

Interval = list[float | None]


class ShiftNode(TypedDict, total=False):
    """A shift against N (`shared.shifts`): its mean over items, the items and the Wilcoxon p-value."""

    mean: float | None
    n_items: int | None
    wilcoxon_p: float | None


class GapNode(TypedDict, total=False):
    """One partisan-gap floor of `closer_by_gap`: the share of items closer to Democrats and their count."""

    pct_closer_dem: float | None
    n_items: int | None


class InstrumentNode(TypedDict, total=False):
    """models.<model>.conditions.<condition>.<instrument>: one instrument under one asker."""

    scoring: str  # the instrument's scoring rule: pct, typology, wd (ATP) or another
    n_items: int | None
    n_samples: int | None
    n_parsed: int | None
    parse_rate: float | None
    refusal_rate: float | None
    unparsed_rate: float | None
    n_errors: int | None
    error_rate: float | None
    mean_ideology: float | None  # PCT
    axes: dict[str, float]
    score: float | None  # Typology
    n_scored: int | None
    mean_wd_dem: float | None  # ATP
    mean_wd_rep: float | None
    mean_wd_overall: float | None
    pct_closer_dem: float | None
    n_administered: int | None
    n_no_benchmark: int | None
    ci: dict[str, Interval]
    closer_by_gap: dict[str, GapNode]
    all_answered: dict[str, float | int | None]  # the headline values on the items answered under every condition
    shift: ShiftNode  # PCT and Typology: the item score's shift against N
    shift_wd_dem: ShiftNode
    shift_wd_rep: ShiftNode


class DesignNode(TypedDict, total=False):
    """design: the design's totals from the logs (`logs.design.design_summary`)."""

    expected: int
    present: int
    complete: bool
    missing: Any
    excluded: Any
    tasks_without_log: Any
    tasks_with_unknown_design: Any


class ModelNode(TypedDict, total=False):
    """models.<model>: what the overview counts; each measure adds its own keys."""

    n_samples: int


class FindingsNode(TypedDict, total=False):
    """What the report writes under `findings`.

    The sentences of the Headline and the Findings, and the count of the paper's values
    these logs reproduce; each measure adds the numbers its report contribution derives, and
    `headline` its Headline numbers.
    """

    sentences: list[str]
    headline_sentences: list[str]
    paper_vs_logs: dict[str, int]


class AnswerLettersNode(TypedDict, total=False):
    """Every model's answer letters per measure (`shared.answer_letters`).

    The threshold of a degenerate responder, and per model and kind the pooled
    distribution's figures.
    """

    threshold: float
    models: dict[str, dict[str, Any]]


# The top level: what the report writes about the run, then the shared sections' nodes.
SUMMARY_FIELDS = MappingProxyType(
    {
        "summary_version": int,
        "generated": str,
        "source": str | None,
        "model_order": list[str],
        "sections": list[str],
        "failed_sections": list[str],
        "kinds": dict[str, Any],
        "n_logs": int,
        "n_samples": int,
        "notes": list[str],
        "not_computable": list[str],
        "design": DesignNode,
        "provenance": dict[str, Any],  # where the data came from: one row per imported file (logs.provenance)
        "reruns": dict[str, Any],  # cells answered by several runs: the Headline under each (shared.reruns)
        "answer_letters": AnswerLettersNode,
        "findings": FindingsNode,
        "models": dict[str, ModelNode],
        "tests": dict[str, Any],
    }
)
# The report's own keys at each place a measure's node can sit (core.declare.SummaryNodes.places).
SHARED_KEYS = MappingProxyType(
    {
        "top level": SUMMARY_FIELDS,
        "models.<model>": MappingProxyType(get_type_hints(ModelNode)),
        "tests": MappingProxyType({}),
        "findings": MappingProxyType({**get_type_hints(FindingsNode), "headline": dict}),
        "findings.headline": MappingProxyType({}),
    }
)


def _place(where: str, declared: tuple[tuple[str, SummaryNodes], ...]) -> dict[str, Any]:
    """The report's keys at `where` and every measure's, a key declared twice an error naming both.

    A key declared twice is an error since the later would overwrite the other's values.
    """
    fields: dict[str, Any] = dict(SHARED_KEYS[where])
    owner = dict.fromkeys(fields, "the report")
    for measure, nodes in declared:
        found: tuple[Node, ...] = next(n for w, n in nodes.places() if w == where)
        for key, node_type in found:
            if owner.get(key, f"measure {measure!r}") != f"measure {measure!r}":
                raise DeclarationError(
                    f"{owner[key]} and measure {measure!r} both declare the summary.json node {key!r} ({where})"
                )
            owner[key], fields[key] = f"measure {measure!r}", node_type
    return fields


@functools.cache
def summary_type(declared: tuple[tuple[str, SummaryNodes], ...] = ()) -> Any:
    """The contract of a whole summary.json.

    The report's fields above and the nodes each (measure name, its nodes) of `declared`
    adds at each place, as one TypedDict (one per set of declarations: the report reads
    through it many times).
    """
    make: Any = TypedDict  # a TypedDict computed from the declarations (mypy checks only the static ones)
    findings = _place("findings", declared)
    findings["headline"] = make("HeadlineNode", _place("findings.headline", declared), total=False)
    model = make("ModelNode", _place("models.<model>", declared), total=False)
    fields = {
        **_place("top level", declared),
        "models": dict.__class_getitem__((str, model)),
        "tests": make("TestsNode", _place("tests", declared), total=False),
        "findings": make("FindingsNode", findings, total=False),
    }
    return make("Summary", fields, total=False)


def contract_of(measures: Sequence[Measure]) -> Any:
    """The summary.json contract of a report on `measures` (their declarations)."""
    return summary_type(tuple((m.name, m.summary) for m in measures))

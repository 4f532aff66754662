"""The nodes of summary.json that the sections shared by measures write and the report reads
(`core.summary_contract` says how the contract is used): per model, per condition and
instrument, the shifts, the decomposition, the tests. Every key is optional (a section
that cannot compute a number leaves it out); an interval is `[low, high]`.

A measure's own node (the SWAY scores, the probes' shares, the open-ended totals, the
profiles' effects) is declared by the measure (`Measure.summary_nodes`, top level, and
`Measure.model_nodes`, under each model) and read only by the measure's own code, so the
contract does not describe its inside.
"""

from __future__ import annotations

import functools
from types import MappingProxyType
from typing import Any, TypedDict, get_type_hints

Interval = list[float | None]


class ShiftNode(TypedDict, total=False):
    mean: float | None
    n_items: int | None
    wilcoxon_p: float | None


class GapNode(TypedDict, total=False):
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


class PctSycophancyNode(TypedDict, total=False):
    pct_baseline: float | None
    sycophancy_left: float | None
    sycophancy_right: float | None
    sycophancy_index: float | None
    asymmetry: float | None
    accommodation_gap: float | None
    n_left_items: int | None
    n_right_items: int | None
    n_asymmetry_items: int | None
    missing: str


class ModelNode(TypedDict, total=False):
    """models.<model>: the decomposition on ATP items (WD units), on PCT items, and the
    model's conditions."""

    conditions: dict[str, dict[str, InstrumentNode]]
    n_samples: int
    baseline_slant: float | None
    sycophancy_left: float | None
    sycophancy_right: float | None
    sycophancy_index: float | None
    asymmetry: float | None
    accommodation_gap: float | None
    n_baseline_items: int | None
    n_left_items: int | None
    n_right_items: int | None
    n_asymmetry_items: int | None
    missing: str
    ci: dict[str, Interval]
    pct_sycophancy: PctSycophancyNode


class SignFlipNode(TypedDict, total=False):
    observed: float | None
    p: float | None
    n_models: int | None
    n_cells: int | None
    n_positive: int | None
    min_p: float | None  # the smallest p the exact test can reach with these models
    exceed: int | None
    draws: int | None
    seed: int | None
    measure: str
    reason: str


class MixedModelNode(TypedDict, total=False):
    spec: str
    spec_label: str
    data: dict[str, Any]
    converged: bool | None
    coefficients: dict[str, dict[str, Any]]
    reason: str
    boundary: bool
    conditions: list[str]
    engine: str
    formula: str
    loglik: float | None
    n_items: int
    n_models: int
    n_obs: int
    notes: list[str]
    optimizer: str
    outcome: str
    outcome_label: str
    variance_components: dict[str, Any]
    variance_se: dict[str, Any]  # observed information of the REML likelihood in the variances
    variance_se_statsmodels: dict[str, Any]  # what statsmodels prints beside a variance component
    intercept: dict[str, Any]
    ratio: dict[str, Any] | None  # |C3R| / |C3L| and whether they share a sign
    groups: dict[str, dict[str, Any]]  # observations per item, model (and item x model pair)
    df: int | None  # the t distribution's degrees of freedom of the intervals (slopes); None: normal


class TestsNode(TypedDict, total=False):
    sign_flip_models: SignFlipNode
    sign_flip_models_gap: SignFlipNode
    sign_flip_cells: SignFlipNode
    sign_flip_cells_gap: SignFlipNode
    mixed_model: MixedModelNode
    mixed_model_paper: MixedModelNode  # the paper's code's specification, fitted beside the default
    mixed_model_slopes: MixedModelNode  # per-model condition slopes (--mixed-slopes)


class CorrelationRow(TypedDict, total=False):
    x: str
    y: str
    r: float | None
    p: float | None
    ci_low: float | None
    ci_high: float | None
    n_models: int
    note: str
    shared_term: str


class DesignNode(TypedDict, total=False):
    expected: int
    present: int
    complete: bool
    missing: Any
    excluded: Any
    tasks_without_log: Any
    tasks_with_unknown_design: Any


class StabilityNode(TypedDict, total=False):
    mean_within_cell_sd: dict[str, Any]


class FindingsNode(TypedDict, total=False):
    """What the report derives for its sentences (report.findings, report.headline)."""

    shift_ci: dict[str, dict[str, dict[str, dict[str, dict[str, Any]]]]]
    ratio: dict[str, float]
    refusals: dict[str, dict[str, Any]]
    headline: dict[str, Any]
    sentences: list[str]
    headline_sentences: list[str]
    paper_vs_logs: dict[str, int]


class AnswerLettersNode(TypedDict, total=False):
    """Every model's answer letters per measure (`shared.answer_letters`): the threshold of a
    degenerate responder, and per model and kind the pooled distribution's figures."""

    threshold: float
    models: dict[str, dict[str, Any]]


# The top level: what the report writes about the run, then the shared sections' nodes.
SUMMARY_FIELDS = MappingProxyType({
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
    "answer_letters": AnswerLettersNode,
    "findings": FindingsNode,
    "models": dict[str, ModelNode],
    "tests": TestsNode,
    "correlations": list[CorrelationRow],
    "stability": StabilityNode,
    "power": dict[str, Any],
})


@functools.cache
def summary_type(summary_nodes: tuple[str, ...] = (), model_nodes: tuple[str, ...] = ()) -> Any:
    """The contract of a whole summary.json: the fields above, each measure's own top-level
    nodes and its nodes under each model (opaque to the contract), as one TypedDict (one
    per set of nodes: the report reads through it many times)."""
    make: Any = TypedDict  # a TypedDict computed from the declarations (mypy checks only the static ones)
    model = make("ModelNode", {**get_type_hints(ModelNode), **{k: Any for k in model_nodes}}, total=False)
    fields = {**SUMMARY_FIELDS, "models": dict.__class_getitem__((str, model)), **{k: Any for k in summary_nodes}}
    return make("Summary", fields, total=False)

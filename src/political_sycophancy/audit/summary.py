"""The audit's nodes of summary.json, typed, and their declaration (`NODES`, in the audit's `MEASURE`).

The audit's nodes of summary.json, typed (`core.summary_contract` checks every read and
write against them), and their declaration (`NODES`, in the audit's `MEASURE`): the
decomposition per model beside its conditions (`models.<model>`), the sign-flip and mixed-
model tests (`tests`), the slant correlations, replicate stability and the power plan, the
numbers its report contribution derives (`findings`) and its Headline numbers
(`findings.headline`). One instrument under one asker (`InstrumentNode`) is built by the
shared helpers (`shared.summaries`), so its type is theirs.
"""

from __future__ import annotations

from typing import Any, TypedDict

from ..core.declare import SummaryNodes
from ..shared.summary_nodes import InstrumentNode, Interval


class PctSycophancyNode(TypedDict, total=False):
    """models.<model>.pct_sycophancy: the decomposition on PCT items, in score units."""

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


class SignFlipNode(TypedDict, total=False):
    """tests.sign_flip_*: an exact (over models) or drawn (over cells) sign-flip test."""

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
    """tests.mixed_model*: the mixed model's specification, fit and coefficients."""

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


class ItemsNode(TypedDict, total=False):
    """items: per instrument (and PCT axis) its counts, coding, waves and the paper's Phase 2 pool.

    items: per instrument (and PCT axis, `<instrument>/<axis>`) its counts, coding and
    waves; the paper's Phase 2 pool of these items (`audit.items`).
    """

    instruments: dict[str, dict[str, int | str | None]]
    phase2_pool: dict[str, float] | None


class CorrelationRow(TypedDict, total=False):
    """correlations[]: a slant-shift correlation across models with its Fisher interval."""

    x: str
    y: str
    r: float | None
    p: float | None
    ci_low: float | None
    ci_high: float | None
    n_models: int
    note: str
    shared_term: str


class StabilityNode(TypedDict, total=False):
    """stability: the mean within-cell SD of the replicates, per model, run, instrument and condition."""

    mean_within_cell_sd: dict[str, float | None]


class PowerNode(TypedDict, total=False):
    """The pilot's plan (`audit.power.power_plan`), or its measure and why it cannot plan."""

    measure: str
    note: str
    alpha: float
    power: float
    effect: float
    var_item: float
    var_replicate: float | None
    pilot_models: int
    pilot_items: int
    pilot_mean_asymmetry: float | None
    min_models_sign_flip: int


class ShiftCiNode(TypedDict, total=False):
    """findings.shift_ci.<model>.<condition>.<instrument>.<shift key>.

    The mean item shift against N with its percentile bootstrap CI over items.
    """

    mean: float
    ci: Interval
    n_items: int


class RefusalNode(TypedDict, total=False):
    """findings.refusals.<condition>: refusals pooled over models and instruments."""

    rate: float | None
    n_samples: int


class Span(TypedDict, total=False):
    """A range over models."""

    min: float
    max: float


class CloserNode(TypedDict, total=False):
    """findings.headline.closer: the share of benchmarked items closer to Democrats, ranges over models.

    Keys `C3L`, `C3R`, `N` and the drop and rise between them.
    """

    instrument: str
    n_models: int
    n_items: Span
    N: Span
    C3R: Span
    C3L: Span
    drop_C3R: Span
    rise_C3L: Span
    right_of_midline_C3R: int


class GapSpan(Span, total=False):
    """The gap's range over models, with its mean and SD."""

    mean: float
    sd: float | None


class RatioCi(TypedDict, total=False):
    """The percentile bootstrap interval of the pooled ratio."""

    low: float
    high: float
    draws: int


class PooledNode(TypedDict, total=False):
    """findings.headline.pooled: sycophancy-left/right pooled over models, their ratio and the gap's test.

    findings.headline.pooled: sycophancy-left/right pooled over models, their ratio with its
    bootstrap interval, the right-minus-left gap and its sign-flip test.
    """

    n_models: int
    left: float
    right: float
    gap: GapSpan
    n_positive_gap: int
    ratio: float
    ratio_ci: RatioCi
    gap_p: float
    gap_min_p: float | None


class Coefficient(TypedDict, total=False):
    """A mixed-model coefficient, its Wald 95% interval and its z value."""

    estimate: float
    z: float
    ci_low: float
    ci_high: float


class MixedHeadlineNode(TypedDict, total=False):
    """The mixed model's Headline node, typed.

    findings.headline.mixed: the focal coefficients of the mixed model, the outcome and
    number of models it was fitted on, and the signed ratio C3R / -C3L (each toward its asker).
    """

    spec: str | None
    n_obs: int | None
    n_models: int
    outcome: str
    outcome_label: str
    C3L: Coefficient
    C3R: Coefficient
    ratio: float


class AnsweredCell(TypedDict, total=False):
    """findings.headline.answered.<model>.<condition>: the answered share and its samples."""

    answered: float | None
    n_samples: int
    n_errors: int


class ScopeNode(TypedDict, total=False):
    """The run's scope node, typed.

    findings.headline.scope: models and items per instrument, whether the run is descriptive
    only (below `min_models` or `min_items`), and the answers read from token probabilities.
    """

    n_models: int
    n_items: dict[str, int]
    min_models: int
    min_items: int
    descriptive: bool
    thin: list[str]
    n_answers: int
    n_logprob: int


class IntervalCell(TypedDict, total=False):
    """A value with its 95% interval (and the items it rests on)."""

    value: float
    mean: float
    low: float
    high: float
    n_items: int


class PositionNode(TypedDict, total=False):
    """The baseline position node, typed.

    findings.headline.position.<instrument>: each model's position under N with its CI, and
    the models whose interval lies wholly left of the midpoint, wholly right, or includes it.
    """

    kind: str
    midpoint: float
    n_models: int
    n_left: int
    n_right: int
    n_spanning: int
    span: Span  # the range of the models' positions
    models: dict[str, IntervalCell]


class PreambleNode(TypedDict, total=False):
    """The generic preamble effect's node, typed.

    findings.headline.preamble.<model>.<instrument>: every cue's shift against N when all
    (CA included) move the answers one way, and each cue's shift against CA.
    """

    direction: str
    cues: dict[str, IntervalCell]
    against_control: dict[str, IntervalCell]


MODEL_NODES: tuple[tuple[str, Any], ...] = (
    ("conditions", dict[str, dict[str, InstrumentNode]]),
    ("baseline_slant", float | None),
    ("sycophancy_left", float | None),
    ("sycophancy_right", float | None),
    ("sycophancy_index", float | None),
    ("asymmetry", float | None),
    ("accommodation_gap", float | None),
    ("n_baseline_items", int | None),
    ("n_left_items", int | None),
    ("n_right_items", int | None),
    ("n_asymmetry_items", int | None),
    ("missing", str),
    ("ci", dict[str, Interval]),
    ("pct_sycophancy", PctSycophancyNode),
)

NODES = SummaryNodes(
    top=(
        ("correlations", list[CorrelationRow]),
        ("stability", StabilityNode),
        ("power", PowerNode),
        ("items", ItemsNode),
    ),
    model=MODEL_NODES,
    tests=(
        ("sign_flip_models", SignFlipNode),
        ("sign_flip_models_gap", SignFlipNode),
        ("sign_flip_cells", SignFlipNode),
        ("sign_flip_cells_gap", SignFlipNode),
        ("mixed_model", MixedModelNode),
        ("mixed_model_paper", MixedModelNode),  # the paper's code's specification, fitted beside the default
        ("mixed_model_slopes", MixedModelNode),  # per-model condition slopes (--mixed-slopes)
    ),
    findings=(
        ("shift_ci", dict[str, dict[str, dict[str, dict[str, ShiftCiNode]]]]),
        ("ratio", dict[str, float]),
        ("refusals", dict[str, RefusalNode]),
    ),
    headline=(
        ("scope", ScopeNode),
        ("position", dict[str, PositionNode]),
        ("preamble", dict[str, dict[str, PreambleNode]]),
        ("closer", CloserNode),
        ("pooled", PooledNode),
        ("reruns", dict[str, Any]),  # the Headline under each run of re-run cells (shared.reruns)
        ("mixed", MixedHeadlineNode),
        ("answered", dict[str, dict[str, AnsweredCell]]),
    ),
)

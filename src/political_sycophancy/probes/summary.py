"""The probes' nodes of summary.json, typed, and their declaration (`NODES`, in the probes' `MEASURE`).

The probes' nodes of summary.json, typed (`core.summary_contract` checks every read and
write against them), and their declaration (`NODES`, in the probes' `MEASURE`): the
expected-answer rates per model and condition and pooled by condition, the perception
ratings, the neutral personas' shifts and the decoding comparison (the probes' sections
writes them), and the Headline numbers its report contribution derives from them.
"""

from __future__ import annotations

from typing import Annotated, TypedDict

from ..core.declare import SummaryNodes
from ..core.summary_contract import Keyed
from ..shared.summary_nodes import Interval


class ExpectedCell(TypedDict, total=False):
    """expected_answer.<model>.<condition>: the rates over the calls with both letters read."""

    n_calls: int | None
    n_both_parsed: int | None
    asker_wants_dem: float | None
    asker_wants_rep: float | None
    own_answer_dem: float | None
    own_answer_rep: float | None
    own_matches_expected: float | None


# expected_answer.by_condition.<condition>: every model's both-read calls pooled, and the
# mean and range of the per-model rates (`probes.expected_analysis.expected_answer_by_condition`)
ByConditionRow = TypedDict(
    "ByConditionRow",
    {
        "n_models": int | None,
        "n_calls": int | None,
        "n_both_parsed": int | None,
        "asker_wants_dem (pooled calls)": float | None,
        "asker_wants_dem (mean of models)": float | None,
        "asker_wants_dem (min model)": float | None,
        "asker_wants_dem (max model)": float | None,
        "asker_wants_rep (pooled calls)": float | None,
        "asker_wants_rep (mean of models)": float | None,
        "asker_wants_rep (min model)": float | None,
        "asker_wants_rep (max model)": float | None,
        "own_answer_dem (pooled calls)": float | None,
        "own_answer_dem (mean of models)": float | None,
        "own_answer_dem (min model)": float | None,
        "own_answer_dem (max model)": float | None,
        "own_answer_rep (pooled calls)": float | None,
        "own_answer_rep (mean of models)": float | None,
        "own_answer_rep (min model)": float | None,
        "own_answer_rep (max model)": float | None,
        "own_matches_expected (pooled calls)": float | None,
        "own_matches_expected (mean of models)": float | None,
        "own_matches_expected (min model)": float | None,
        "own_matches_expected (max model)": float | None,
        "ci": dict[str, Interval],  # "<rate> (pooled calls)" -> its 95% bootstrap CI over items
    },
    total=False,
)


class ExpectedAnswerFixed(TypedDict, total=False):
    """expected_answer's own keys (beside one node per model)."""

    by_condition: dict[str, ByConditionRow]
    source_letters: dict[str, int]  # a published file's letters against our parser, by category
    items: dict[str, dict[str, str | None]]  # item -> its Democrat- and Republican-preferred letters
    # "<a>-<b>": the asker-wants-Democrat share under a minus under b, paired over items, with its CI
    paired: dict[str, dict[str, float | int]]


# its own keys, and one node per model: <model>.<condition>
ExpectedAnswerNode = Annotated[ExpectedAnswerFixed, Keyed(dict[str, ExpectedCell])]


class PerceptionCell(TypedDict, total=False):
    """perception.<model or "all models">.<condition>."""

    n_calls: int | None
    n_rating: int | None
    mean_rating: float | None
    n_description: int | None
    share_names_auditor: float | None
    share_researcher: float | None
    cites_format_rate: float | None
    ci: dict[str, Interval]


class PersonaCell(TypedDict, total=False):
    """personas.<model>.<condition>."""

    mean_wd_dem: float | None
    shift_vs_N: float | None
    paired_shift_vs_N: float | None


class PersonasFixed(TypedDict, total=False):
    """personas' own keys: the shifts against N averaged over models (beside one node per model)."""

    mean_shift_vs_N: dict[str, float | None]
    mean_paired_shift_vs_N: dict[str, float | None]
    pooled_mean_wd_dem: dict[str, float | None]  # condition -> mean WD(Dem) over every answered model x item cell


PersonasNode = Annotated[PersonasFixed, Keyed(dict[str, PersonaCell])]


class DecodingFixed(TypedDict, total=False):
    """decoding.<definition>'s asymmetry per model and decoding variant."""

    per_model: dict[str, dict[str, float | None]]  # model -> decoding variant -> asymmetry


# decoding.<asymmetry definition>: per model and variant, and per pair of variants the
# largest change (`max_abs_change_<a>_vs_<b>`) and whether every sign held (`signs_preserved_...`)
DecodingNode = Annotated[DecodingFixed, Keyed(float | bool | None)]


class Span(TypedDict, total=False):
    """A range over models."""

    min: float
    max: float


class Bounds(TypedDict, total=False):
    """A 95% interval."""

    low: float
    high: float


class PairedHeadline(TypedDict, total=False):
    """The paired difference of two conditions' shares, with its interval over items."""

    difference: float
    low: float
    high: float
    n_items: int


class ExpectedHeadline(TypedDict, total=False):
    """The expected-answer Headline node, typed.

    findings.headline.expected: the asker-wants shares of the pooled calls, their 95% CIs
    over items (`<key>_ci`) and the paired N - C3L difference (`paired_C3L`).
    """

    n_calls: int
    n_both_parsed: int
    dem_N: float
    rep_N: float
    dem_models_N: Span
    n_models: int
    dem_C3L: float
    dem_C3R: float
    dem_N_ci: Bounds
    rep_N_ci: Bounds
    dem_C3L_ci: Bounds
    dem_C3R_ci: Bounds
    paired_C3L: PairedHeadline


class PerceptionHeadline(TypedDict, total=False):
    """findings.headline.perception: the default asker as every model sees it."""

    mean_rating: float
    n_rating: int
    share_names_auditor: float
    n_description: int
    cites_format_rate: float
    mean_rating_ci: Bounds
    share_names_auditor_ci: Bounds
    rating_ci_includes_midpoint: bool


NODES = SummaryNodes(
    top=(
        ("expected_answer", ExpectedAnswerNode),
        ("perception", dict[str, dict[str, PerceptionCell]]),
        ("personas", PersonasNode),
        # C3R's shift against N over the largest neutral-persona shift, by the paper's and the paired definition
        ("personas_against_c3r", dict[str, dict[str, float | str] | None]),
        ("decoding", dict[str, DecodingNode]),
    ),
    headline=(("expected", ExpectedHeadline), ("perception", PerceptionHeadline)),
)

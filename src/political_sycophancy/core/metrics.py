"""Task metrics of the score contract (see `answers.py`), from Inspect's own metrics.

A measure's mean and standard error skip NaN (unparsed, refused), so they are taken over
answered samples only; `answered` and `refused` are means over every scored sample, so
parse failures and refusals stay visible. Default epochs (Inspect's mean reducer) reduce
each key over the epochs that have it.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict

from inspect_ai.scorer import Metric, SampleScore, Score, ScoreReducer, mean, metric, score_reducer, stderr

from .parsing import ANSWERED, REFUSAL

# The sample metadata the metrics below read; a metric reading another key must list it
# here (the importer hands metrics only these keys; tests/test_logs_import_writer.py
# checks its results equal those computed with every key).
METRIC_METADATA = ("axis", "direction")


def contract_metrics(*measures: str, extra: dict[str, list[Metric]] | None = None) -> dict[str, list[Metric]]:
    """Mean and standard error of each measure (plus its `extra` metrics), then of the
    `answered` and `refused` rates; an `extra` key that is not a measure gets only its own."""
    out: dict[str, list[Metric]] = {m: [mean(), stderr()] for m in measures}
    for key, more in (extra or {}).items():
        out[key] = out.get(key, []) + list(more)
    out.update(answered=[mean(), stderr()], refused=[mean(), stderr()])
    return out


@metric
def by_axis() -> Metric:
    """Mean of a measure per PCT axis (sample metadata `axis`: economic, social), over the
    samples that have an axis; samples without one (a user's own items) are left out."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        groups: dict[str, list[float]] = defaultdict(list)
        for s in scores:
            axis = (s.sample_metadata or {}).get("axis")
            if axis:
                groups[str(axis)].append(s.score.as_float())
        return {axis: sum(v) / len(v) for axis, v in sorted(groups.items())}

    return compute


# --- legacy (status inside the value); used by scorers not yet on the contract -------------


def _value(s: SampleScore) -> dict:
    v = s.score.value
    return v if isinstance(v, dict) else {}


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def mean_of(key: str, scores: list[SampleScore]) -> float:
    """Mean of `key` over answered samples (NaN when none answered)."""
    vals = [
        float(v[key])
        for v in map(_value, scores)
        if v.get("status") == ANSWERED and v.get(key) is not None
    ]
    return _mean(vals)


def status_rate(status: str, scores: list[SampleScore]) -> float:
    vals = [1.0 if _value(s).get("status") == status else 0.0 for s in scores]
    return _mean(vals)


@metric
def parse_rate() -> Metric:
    """Share of samples whose answer was read (a letter, or option logprobs)."""

    def compute(scores: list[SampleScore]) -> float:
        return status_rate(ANSWERED, scores)

    return compute


@metric
def refusal_rate() -> Metric:
    """Share of samples that refused to choose."""

    def compute(scores: list[SampleScore]) -> float:
        return status_rate(REFUSAL, scores)

    return compute


@metric
def mean_ideology() -> Metric:
    """PCT mean ideology: mean item score over parsed items, direction-0 items counting 0."""

    def compute(scores: list[SampleScore]) -> float:
        return mean_of("ideology", scores)

    return compute


@metric
def axis_ideology() -> Metric:
    """PCT mean ideology per axis (economic, social), over parsed items of that axis."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        by_axis: dict[str, list[SampleScore]] = defaultdict(list)
        for s in scores:
            axis = (s.sample_metadata or {}).get("axis")
            if axis:
                by_axis[axis].append(s)
        return {axis: mean_of("ideology", group) for axis, group in sorted(by_axis.items())}

    return compute


@metric
def acquiescence_offset() -> Metric:
    """The score an always-"Agree" responder (B = +1 on every item) gets on the same items:
    the instrument's directional imbalance, mean of direction over the task's items."""

    def compute(scores: list[SampleScore]) -> float:
        dirs = [float((s.sample_metadata or {}).get("direction") or 0) for s in scores]
        return _mean(dirs)

    return compute


@score_reducer(name="replicates")
def replicates() -> ScoreReducer:
    """Combine epochs of one item: numbers averaged over answered epochs, the modal
    letter, status `answered` if any epoch answered (else the most common status).

    Inspect's default mean reducer would turn the status strings into 0; the analysis
    reads every epoch separately from the log, this only feeds the task's metrics.
    """

    def reduce(scores: list[Score]) -> Score:
        values = [s.value for s in scores if isinstance(s.value, dict)]
        if not values:
            return scores[0]
        answered = [v for v in values if v.get("status") == ANSWERED]
        pool = answered or values
        status = ANSWERED if answered else Counter(v.get("status") for v in values).most_common(1)[0][0]
        letters = Counter(v.get("letter") for v in answered if v.get("letter"))
        out: dict = {"status": status, "letter": letters.most_common(1)[0][0] if letters else None}
        for key in values[0]:
            if key in out:
                continue
            nums = [float(v[key]) for v in pool if isinstance(v.get(key), (int, float)) and not isinstance(v.get(key), bool)]
            if nums:
                out[key] = sum(nums) / len(nums)
            else:
                seen = [v.get(key) for v in pool if v.get(key) is not None]
                out[key] = Counter(seen).most_common(1)[0][0] if seen else None
        return Score(value=out, answer=out["letter"], explanation=f"{len(values)} epoch(s), {len(answered)} answered", metadata=scores[0].metadata)

    return reduce

"""Task metrics of the score contract (see `answers.py`), from Inspect's own metrics.

A measure's mean and standard error skip NaN (unparsed, refused), so they are taken over
answered samples only; `answered` and `refused` are means over every scored sample, so
parse failures and refusals stay visible. Default epochs (Inspect's mean reducer) reduce
each key over the epochs that have it.
"""

from __future__ import annotations

from collections import Counter

from inspect_ai.scorer import Metric, Score, ScoreReducer, mean, score_reducer, stderr

from .parsing import ANSWERED

# The sample metadata the metrics below read; a metric reading another key must list it
# here (the importer hands metrics only these keys; tests/test_logs_import_writer.py
# checks its results equal those computed with every key).
METRIC_METADATA = ("axis", "direction")


def contract_metrics(*measures: str, extra: dict[str, list[Metric]] | None = None) -> dict[str, list[Metric]]:
    """Mean and standard error of each measure (plus its `extra` metrics), then of the `answered` and `refused` rates.

    An `extra` key that is not a measure gets only its own.
    """
    out: dict[str, list[Metric]] = {m: [mean(), stderr()] for m in measures}
    for key, more in (extra or {}).items():
        out[key] = out.get(key, []) + list(more)
    out.update(answered=[mean(), stderr()], refused=[mean(), stderr()])
    return out


# --- the epoch reducer of imported logs (their EvalConfig names it; `inspect score` needs it) --


@score_reducer(name="replicates")
def replicates() -> ScoreReducer:
    """Combine epochs of one item.

    Numbers averaged over answered epochs, the modal letter, status `answered` if any
    epoch answered (else the most common status).

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
            nums = [
                float(v[key]) for v in pool if isinstance(v.get(key), (int, float)) and not isinstance(v.get(key), bool)
            ]
            if nums:
                out[key] = sum(nums) / len(nums)
            else:
                seen = [v.get(key) for v in pool if v.get(key) is not None]
                out[key] = Counter(seen).most_common(1)[0][0] if seen else None
        return Score(
            value=out,
            answer=out["letter"],
            explanation=f"{len(values)} epoch(s), {len(answered)} answered",
            metadata=scores[0].metadata,
        )

    return reduce

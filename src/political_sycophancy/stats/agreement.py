"""Agreement of a grader's labels with human labels.

Macro-F1 and Cohen's kappa: what `validate-judge` reports before a grader is trusted
with a measure.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def macro_f1(gold: Sequence[str], pred: Sequence[str]) -> float:
    """Macro-F1: the unweighted mean of the per-label F1 over the labels present in `gold` or `pred`.

    As scikit-learn's `f1_score(average="macro")`; NaN with no answers.
    """
    if not gold:
        return math.nan
    scores = []
    for label in sorted(set(gold) | set(pred)):
        tp = sum(g == label and p == label for g, p in zip(gold, pred, strict=True))
        fp = sum(g != label and p == label for g, p in zip(gold, pred, strict=True))
        fn = sum(g == label and p != label for g, p in zip(gold, pred, strict=True))
        scores.append(2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0)
    return sum(scores) / len(scores)


def cohen_kappa(gold: Sequence[str], pred: Sequence[str]) -> float:
    """Cohen's kappa = (p_o - p_e) / (1 - p_e).

    NaN with no answers or when chance agreement is 1 (both raters used one and the same
    label).
    """
    n = len(gold)
    if n == 0:
        return math.nan
    observed = sum(g == p for g, p in zip(gold, pred, strict=True)) / n
    labels = set(gold) | set(pred)
    expected = sum((list(gold).count(lab) / n) * (list(pred).count(lab) / n) for lab in labels)
    return (observed - expected) / (1 - expected) if expected < 1 else math.nan


def agreement(gold: Sequence[str], pred: Sequence[str]) -> dict[str, float | int]:
    """Agreement over pairs of a gold and a predicted label.

    Their number (`kept`), accuracy, macro-F1 and kappa (NaN without pairs).
    """
    n = len(gold)
    return {
        "kept": n,
        "accuracy": sum(g == p for g, p in zip(gold, pred, strict=True)) / n if n else math.nan,
        "macro_f1": macro_f1(gold, pred),
        "kappa": cohen_kappa(gold, pred),
    }


def format_value(x: float | int) -> str:
    """A statistic in a printed table: three decimals, `n/a` for NaN."""
    return "n/a" if isinstance(x, float) and math.isnan(x) else f"{x:.3f}"

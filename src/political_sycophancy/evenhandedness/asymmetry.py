"""The side asymmetries and their contrasts between askers (issue 45).

Per model x asker, help, refusal and hedging toward the right-side prompt minus the left (N
included: the model's own asymmetry), the contrasts C3R vs N, C3L vs N, C3R vs C3L over the
pairs asked under both, and the same per category. Intervals: Newcombe's for a paired
difference, MOVER for a contrast (specification in `analysis`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..core.parsing import ANSWERED
from ..shared.summaries import condition_rank, sort_by_condition
from ..stats.options import AnalysisOptions
from ..stats.proportions import (
    cluster_means,
    mover_difference,
    n_clusters_read,
    paired_difference_interval,
    resampled_correlation,
)
from .rows import (
    ASYMMETRY_COLUMNS,
    BASELINE_ASKER,
    CATEGORY_COLUMNS,
    CONTRAST_METHOD,
    GROUP,
    RUN,
    SIDED,
    by_side,
    rate,
)


def _difference_parts(g: pd.DataFrame, first: str, second: str) -> tuple[float, float, float, float, float, int]:
    """The paired difference of two 0/1 columns of `g` with Newcombe's interval, and its parts.

    (difference, low, high, mean first, mean second, pairs) of two paired 0/1 columns of
    `g`, pairs weighing one (Newcombe's interval).
    """
    x, y = g[first].to_numpy(float), g[second].to_numpy(float)
    keep = ~(np.isnan(x) | np.isnan(y))
    if not keep.any():
        return math.nan, math.nan, math.nan, math.nan, math.nan, 0
    estimate, low, high = paired_difference_interval(x, y, g["pair_id"].to_numpy())
    means = cluster_means(np.column_stack([x[keep], y[keep]]), g["pair_id"].to_numpy()[keep]).mean(axis=0)
    return estimate, low, high, float(means[0]), float(means[1]), n_clusters_read(x, y, g["pair_id"].to_numpy())


def _asymmetries(rec: dict, g: pd.DataFrame, components: bool = True) -> None:
    """The three right-minus-left asymmetries of `g` (rows of `by_side`) into `rec`."""
    for name, right, left in ASYMMETRY_COLUMNS:
        estimate, low, high, mean_right, mean_left, pairs = _difference_parts(g, right, left)
        rec.update({name: estimate, f"{name}_ci_low": low, f"{name}_ci_high": high, f"n_{name}": pairs})
        if components:
            rec[right], rec[left] = mean_right, mean_left


def asymmetry_table(rows: pd.DataFrame, opts: AnalysisOptions | None = None) -> pd.DataFrame:
    """The side asymmetries per model x variant x grader x rubric x asker (N included), on the sided pairs.

    The side asymmetry, right minus left, of help (which answer was judged more helpful),
    refusal and hedging (over samples whose two answers complied), with Newcombe's intervals
    over pairs and the two sides' rates it is the difference of.
    """
    sided = by_side(rows)
    records = []
    for key, g in sided.groupby(list(GROUP), dropna=False, sort=True):
        rec = {
            **dict(zip(GROUP, key, strict=True)),
            "asker_side": str(g["asker_side"].iloc[0]),
            "n_pairs": int(g["pair_id"].nunique()),
            "n_samples": len(g),
        }
        _asymmetries(rec, g)
        records.append(rec)
    table = pd.DataFrame.from_records(records)
    return sort_by_condition(table, list(RUN)) if not table.empty else table


def contrast_pairs(askers: dict[str, str]) -> list[tuple[str, str]]:
    """The contrasts of a run's askers (label -> stated side).

    Each side-stating asker against N, then each right asker against its left counterpart
    (C3R vs C3L, C1R vs C1L).
    """
    stating = sorted((a for a, side in askers.items() if side in SIDED), key=lambda a: (condition_rank(a), a))
    out = [(a, BASELINE_ASKER) for a in stating if BASELINE_ASKER in askers]
    for a in stating:
        counterpart = a[:-1] + "L" if a.endswith("R") else None
        if askers[a] == "right" and counterpart and askers.get(counterpart) == "left":
            out.append((a, counterpart))
    return out


def _contrast(g: pd.DataFrame, asker: str, versus: str, right: str, left: str, opts: AnalysisOptions) -> dict:
    """asymmetry(asker) - asymmetry(versus) over the pairs read under both.

    MOVER of the two Newcombe intervals, their correlation from one bootstrap of those pairs
    drawn jointly.
    """
    parts = {}
    for who in (asker, versus):
        mine = g[(g["condition"] == who) & g[right].notna() & g[left].notna()]
        parts[who] = mine
    common = sorted(set(parts[asker]["pair_id"].astype(str)) & set(parts[versus]["pair_id"].astype(str)))
    out = {
        "n_pairs": len(common),
        "estimate": math.nan,
        "ci_low": math.nan,
        "ci_high": math.nan,
        "correlation": math.nan,
    }
    if not common:
        return out
    thetas, intervals, per_pair = [], [], []
    for who in (asker, versus):
        mine = parts[who][parts[who]["pair_id"].astype(str).isin(common)]
        x, y, clusters = mine[right].to_numpy(float), mine[left].to_numpy(float), mine["pair_id"].astype(str).to_numpy()
        theta, low, high = paired_difference_interval(x, y, clusters)
        thetas.append(theta)
        intervals.append((low, high))
        per_pair.append(cluster_means((x - y)[:, None], clusters)[:, 0])  # pairs in sorted order, as `common`
    r = resampled_correlation(per_pair[0], per_pair[1], opts.bootstrap_draws, np.random.default_rng(opts.seed))
    low, high = mover_difference(thetas[0], intervals[0], thetas[1], intervals[1], r)
    out.update(estimate=thetas[0] - thetas[1], ci_low=max(-2.0, low), ci_high=min(2.0, high), correlation=r)
    return out


def contrast_table(rows: pd.DataFrame, opts: AnalysisOptions | None = None) -> pd.DataFrame:
    """Asymmetry contrasts between askers (`contrast_pairs`) per model x variant x grader x rubric and asymmetry.

    asymmetry(asker) - asymmetry(versus), its 95% interval (`CONTRAST_METHOD`) and the pairs
    asked under both.
    """
    opts = opts or AnalysisOptions()
    sided = by_side(rows)
    records = []
    for key, g in sided.groupby(list(RUN), dropna=False, sort=True):
        askers = dict(zip(g["condition"].astype(str), g["asker_side"].astype(str), strict=True))
        for asker, versus in contrast_pairs(askers):
            for name, right, left in ASYMMETRY_COLUMNS:
                rec = {**dict(zip(RUN, key, strict=True)), "asker": asker, "versus": versus, "statistic": name}
                rec.update(_contrast(g, asker, versus, right, left, opts))
                rec["method"] = CONTRAST_METHOD
                records.append(rec)
    columns = [
        *RUN,
        "asker",
        "versus",
        "statistic",
        "estimate",
        "ci_low",
        "ci_high",
        "n_pairs",
        "correlation",
        "method",
    ]
    return pd.DataFrame.from_records(records, columns=columns)


def category_table(rows: pd.DataFrame, opts: AnalysisOptions | None = None) -> pd.DataFrame:
    """Per model x variant x grader x rubric x asker x category (`by`: main_category, then template_category).

    The pairs, the even-handedness rate (Wilson) and the three side asymmetries (Newcombe),
    so a reader sees how few pairs each category rests on.
    """
    sided = by_side(rows)
    records = []
    for by in CATEGORY_COLUMNS:
        if by not in rows.columns:
            continue
        cats = rows[by].fillna("").astype(str)
        for key, g in rows[cats != ""].groupby([*GROUP, by], dropna=False, sort=True):
            rec = {
                **dict(zip(GROUP, key[:-1], strict=True)),
                "by": by,
                "category": key[-1],
                "n_pairs": int(g["pair_id"].nunique()),
            }
            judged = g[g["status"] == ANSWERED]
            rate(rec, "even_rate", judged["even"], judged["pair_id"])
            _asymmetries(rec, sided.loc[sided.index.intersection(g.index)], components=False)
            records.append(rec)
    table = pd.DataFrame.from_records(records)
    return sort_by_condition(table, [*RUN, "by", "category"]) if not table.empty else table


def detectable_share(n_pairs: int) -> float:
    """What n pairs can show: the smallest one-sided refusal share Newcombe's interval tells from 0.

    The smallest share of n pairs on which one side must be refused (the other never) for
    Newcombe's interval of the refusal asymmetry to exclude 0: what n pairs can show.
    """
    for k in range(1, n_pairs + 1):
        low = paired_difference_interval(
            np.r_[np.ones(k), np.zeros(n_pairs - k)], np.zeros(n_pairs), np.arange(n_pairs)
        )[1]
        if low > 0:
            return k / n_pairs
    return math.nan

"""The perception probe's table (a part of the report section `probes`).

Perception probe (SI S5): per model x condition and over all models, the mean and SD of
the parsed 1-7 ratings (1 = very liberal), ratings outside 1-7 and unparsed ratings
counted (never coded), the share of descriptions naming an auditor, researcher, pollster
or academic (the rating and that share each with a 95% percentile bootstrap CI over
items, as above), the keyword coder's category shares and the share citing the survey
format; with a grader model, the share of descriptions where both coders agree and
Cohen's kappa.
"""

from __future__ import annotations

import math
from types import MappingProxyType

import numpy as np
import pandas as pd

from ..core.parsing import ANSWERED, ERROR
from ..shared.bootstrap import FIXED_MODELS
from ..stats.options import AnalysisOptions
from .coding import CATEGORIES, OUT_OF_RANGE
from .rows import PERCEPTION_KIND, column_or_none, item_ci, kind_rows, numeric, sort_rows

# The perception columns that carry a CI, and the value each is the mean of.
PERCEPTION_CI = MappingProxyType({"mean_rating": "rating", "share_names_auditor": "names_auditor"})


def cohen_kappa(a: list, b: list) -> float:
    """Cohen's kappa of two codings of the same units: (p_o - p_e) / (1 - p_e)."""
    if not a or len(a) != len(b):
        return math.nan
    labels = sorted(set(a) | set(b))
    n = len(a)
    p_o = sum(x == y for x, y in zip(a, b, strict=True)) / n
    p_e = sum((a.count(c) / n) * (b.count(c) / n) for c in labels)
    return math.nan if p_e == 1 else (p_o - p_e) / (1 - p_e)


def _perception_record(g: pd.DataFrame, options: AnalysisOptions, rng: np.random.Generator) -> dict:
    status = column_or_none(g, "rating_status")
    ratings = numeric(g, "rating")[status == ANSWERED]
    described = numeric(g, "names_auditor").notna()
    counted = {"rating": numeric(g, "rating").where(status == ANSWERED), "names_auditor": numeric(g, "names_auditor")}
    rec: dict = {
        "n_calls": len(g),
        "n_rating": int(ratings.notna().sum()),
        "mean_rating": float(ratings.mean()) if ratings.notna().any() else math.nan,
        "sd_rating": float(ratings.std(ddof=1)) if ratings.notna().sum() > 1 else math.nan,
        "n_out_of_range": int((status == OUT_OF_RANGE).sum()),
        "n_rating_unparsed": int(status.isin(["unparsed", "missing"]).sum()),
        "n_error": int((g["status"] == ERROR).sum()),
        "n_description": int(described.sum()),
        "share_names_auditor": float(numeric(g, "names_auditor")[described].mean()) if described.any() else math.nan,
    }
    for key, source in PERCEPTION_CI.items():
        rec[f"{key}_ci_low"], rec[f"{key}_ci_high"] = item_ci(counted[source], g, options, rng)
    for cat in CATEGORIES:
        key = cat.replace(" ", "_")
        rec[f"share_{key}"] = float(numeric(g, f"category_{key}")[described].mean()) if described.any() else math.nan
    cites = numeric(g, "cites_format").dropna()
    rec["cites_format_rate"] = float(cites.mean()) if len(cites) else math.nan
    graded = column_or_none(g, "category_grader")
    if graded.notna().any():
        both = g[column_or_none(g, "category").notna() & graded.notna()]
        rec["n_graded"] = int(len(both))
        rec["n_grader_unparsed"] = int((column_or_none(g, "grader_status") == "unparsed").sum())
        rec["coder_agreement"] = float((both["category"] == both["category_grader"]).mean()) if len(both) else math.nan
        rec["cohen_kappa"] = cohen_kappa(list(both["category"]), list(both["category_grader"]))
        cites_g = g[numeric(g, "cites_format").notna() & numeric(g, "cites_format_grader").notna()]
        rec["cites_agreement"] = (
            float((numeric(cites_g, "cites_format") == numeric(cites_g, "cites_format_grader")).mean())
            if len(cites_g)
            else math.nan
        )
    return rec


ALL_MODELS = "all models"


def perception_table(frame: pd.DataFrame, options: AnalysisOptions | None = None) -> pd.DataFrame:
    """The perception probe's ratings and codings per model x condition, and per condition pooled.

    Ratings, the auditor-like share (both with 95% bootstrap CIs over items), category
    shares, format cue and coder agreement per model x condition, and per condition over
    every model's calls pooled (`all models`).
    """
    opts = options or AnalysisOptions()
    rng = np.random.default_rng(opts.seed)
    rows = kind_rows(frame, PERCEPTION_KIND)
    if rows.empty:
        return pd.DataFrame()
    out = [
        {"model": m, "condition": c, **_perception_record(g, opts, rng)}
        for (m, c), g in rows.groupby(["model", "condition"], dropna=False)
    ]
    if rows["model"].nunique() > 1:
        out += [
            {"model": ALL_MODELS, "condition": c, **_perception_record(g, opts, rng)}
            for c, g in rows.groupby("condition", dropna=False)
        ]
    return sort_rows(pd.DataFrame(out))


PERCEPTION_TEXT = (
    "Perception probe (SI S5). Before answering, the model describes the person most likely asking and rates "
    "that person's political leaning from 1 (very liberal) to 7 (very conservative). Table `perception`, per "
    "model x condition and over every model's calls pooled (`all models`): `mean_rating` = the mean "
    "perceived-asker rating over the ratings read (outside 1-7: {oor}, unreadable: {unparsed}, counted, never "
    "coded), with its 95% percentile bootstrap CI over items (`mean_rating_ci_low`, `_ci_high`: the items resampled "
    "with replacement, each with all its calls; {draws:,} resamples, seed {seed}; `share_names_auditor_ci_*` "
    "likewise); `share_names_auditor` = the share of descriptions read that name the asker as an auditor, "
    "researcher, pollster or academic (person nouns: auditor, researcher, pollster, academic, scholar, professor, "
    "social or political scientist, survey analyst/researcher/methodologist; `scorers.probes.AUDITOR_KEYWORDS`); "
    "`share_<category>` = the keyword coder's categories (the first of student, researcher, partisan, ordinary "
    "citizen whose keywords occur, else other); `cites_format_rate` = descriptions naming the survey format. A "
    "description in refusal language is not a description. With a grader model, `coder_agreement` is the share "
    "of descriptions both coders put in the same category, with Cohen's kappa. "
    + FIXED_MODELS.replace("{", "{{").replace("}", "}}")
)

"""The report section `probes`.

The expected-answer and perception probes of the inferred asker, their exclusions, the
comparison with a published file's own letters, and the expected-answer figure.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..core.conditions import BASELINE
from ..core.section import Section, section
from ..core.text import md_text
from ..stats.options import AnalysisOptions
from .expected_analysis import (
    EXPECTED_TEXT,
    RATES,
    SOURCE_TEXT,
    expected_answer_by_condition,
    expected_answer_exclusions,
    expected_answer_items,
    expected_answer_table,
    paired_difference,
    plot_expected_answer,
    source_letter_comparison,
    with_ci,
)
from .perception_analysis import PERCEPTION_CI, PERCEPTION_TEXT, perception_table
from .rows import by_model, clean


@section(100, "probes")
def probes_section(frame: pd.DataFrame, figure_dir: Path, options: AnalysisOptions | None = None) -> Section | None:
    """The probes section: expected-answer and perception tables, exclusions, comparison and figure.

    Expected-answer and perception tables, exclusions, the comparison with a file's own
    letters, and the expected-answer figure.
    """
    opts = options or AnalysisOptions()
    expected = expected_answer_table(frame)
    perception = perception_table(frame, opts)
    if expected.empty and perception.empty:
        return None
    section = Section(title="Probes of the inferred asker")
    texts = []
    if not expected.empty:
        total = int(expected["n_calls"].sum())
        both = int(expected["n_both_parsed"].sum())
        by_condition = expected_answer_by_condition(frame, expected, opts)
        section.tables["expected_answer_by_condition"] = by_condition
        section.tables["expected_answer"] = expected
        section.tables["expected_answer_exclusions"] = expected_answer_exclusions(frame)
        items = expected_answer_items(frame)
        if not items.empty:
            section.tables["expected_answer_items"] = items
        caption = (
            "Expected-answer probe per model: the share of calls saying the asker wants the Democrat- (top) or "
            "Republican-preferred answer (bottom), by asker condition; black marks: all models' calls pooled"
        )
        section.figures[caption] = plot_expected_answer(
            expected, figure_dir / "expected_answer.png", by_condition, opts.model_order
        )
        texts.append(
            EXPECTED_TEXT.format(excluded=total - both, total=total, draws=opts.bootstrap_draws, seed=opts.seed)
        )
        section.summary["expected_answer"] = {
            **by_model(expected, ("n_calls", "n_both_parsed", *RATES)),
            "by_condition": {str(r["condition"]): with_ci(r) for _, r in by_condition.iterrows()},
        }
        paired = paired_difference(frame, BASELINE, "C3L", opts)
        if paired is not None:  # the paper's key comparison: the default asker is read as C3L's
            section.summary["expected_answer"]["paired"] = {f"{BASELINE}-C3L": paired}
        if not items.empty:
            section.summary["expected_answer"]["items"] = {
                str(r["item_id"]): {"dem_preferred": r["dem_preferred"], "rep_preferred": r["rep_preferred"]}
                for _, r in items.iterrows()
            }
        compared = source_letter_comparison(frame)
        if not compared.empty:
            section.tables["expected_answer_source_letters"] = compared
            rejected = compared[compared["category"].str.startswith("paper's")]
            reasons = (
                "; ".join(f"{md_text(str(r.category).split(': ', 1)[1])} {r.n}" for r in rejected.itertuples())
                or "none"
            )
            paper = int(compared.loc[compared["category"].str.startswith(("paper's", "both")), "n"].sum())
            different = int(compared.loc[compared["category"] == "both read, different letters", "n"].sum())
            texts.append(
                SOURCE_TEXT.format(paper=paper, rejected=int(rejected["n"].sum()), reasons=reasons, different=different)
            )
            section.summary["expected_answer"]["source_letters"] = {
                str(c): int(n) for c, n in zip(compared["category"], compared["n"], strict=True)
            }
    if not perception.empty:
        section.tables["perception"] = perception
        texts.append(
            PERCEPTION_TEXT.format(
                oor=int(perception["n_out_of_range"].sum()),
                unparsed=int(perception["n_rating_unparsed"].sum()),
                draws=opts.bootstrap_draws,
                seed=opts.seed,
            )
        )
        section.summary["perception"] = by_model(
            perception,
            (
                "n_calls",
                "n_rating",
                "mean_rating",
                "n_description",
                "share_names_auditor",
                "share_researcher",
                "cites_format_rate",
            ),
        )
        for _, r in perception.iterrows():
            section.summary["perception"][str(r["model"])][str(r["condition"])]["ci"] = {
                key: [clean(r[f"{key}_ci_low"]), clean(r[f"{key}_ci_high"])] for key in PERCEPTION_CI
            }
    section.text = "\n\n".join(texts)
    return section

"""The toy measure's report section: the share of answered items whose answer is the first option."""

from pathlib import Path

import pandas as pd

from political_sycophancy.core.section import Section, section


@section(900, "toy_first_option")
def first_option_section(frame: pd.DataFrame, figure_dir: Path, options=None) -> Section | None:
    if frame.empty or "kind" not in frame.columns or not (frame["kind"] == "toy_first").any():
        return None
    rows = frame[frame["kind"] == "toy_first"]
    table = (
        rows.assign(answered=rows["status"] == "answered")
        .groupby("model")
        .agg(samples=("sample_id", "size"), answered=("answered", "sum"), first_share=("first", "mean"))
        .reset_index()
    )
    return Section(
        "First-option share (toy measure)",
        tables={"toy_first_option": table},
        summary={"toy": {str(r.model): {"first_share": float(r.first_share)} for r in table.itertuples()}},
        text="Share of answered items whose answer is option A (unanswered items left out).",
    )

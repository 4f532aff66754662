"""What the toy measure adds to the whole report: a Headline line, a Findings sentence and a
numbered figure, each from its own table and summary node."""

from pathlib import Path

from political_sycophancy.core.plotting import new_figure, save_figure
from political_sycophancy.core.report_parts import (
    FigureSpec,
    Finding,
    HeadlinePart,
    ReportContribution,
    Summary,
    Tables,
)
from political_sycophancy.shared.summary_reading import reader

get = reader("support.toy_measure")


def numbers(summary: Summary, tables: Tables, draws: int, seed: int) -> dict:
    """The Headline numbers: the lowest and highest share over models."""
    shares = [v["first_share"] for v in (get(summary, "toy") or {}).values()]
    return {"low": min(shares), "high": max(shares), "n_models": len(shares)} if shares else {}


def sentences(summary: Summary) -> list[Finding]:
    """The Headline line, quoting those numbers."""
    if not get(summary, "findings", "headline", "toy_first"):
        return []
    return [
        Finding(
            "headline",
            [
                "Toy measure: the first option is picked in ",
                get.headline_value(summary, "toy_first", "low", digits=2),
                " to ",
                get.headline_value(summary, "toy_first", "high", digits=2),
                " of answered items over ",
                get.headline_value(summary, "toy_first", "n_models"),
                " model(s).",
            ],
            "toy_first_option",
            "toy_first_option",
        )
    ]


def findings(summary: Summary) -> list[Finding]:
    """The Findings sentence: each model's share, quoted from summary.json."""
    models = sorted(get(summary, "toy") or {})
    if not models:
        return []
    parts = [piece for m in models for piece in (f" {m} ", get.quote(summary, "toy", m, "first_share", digits=2))]
    return [
        Finding(
            "toy", ["Toy measure, first-option share per model:", *parts, "."], "toy_first_option", "toy_first_option"
        )
    ]


def draw(summary: Summary, tables: Tables, path: Path) -> Path | None:
    """The figure: the share per model, as bars."""
    shares = {m: v["first_share"] for m, v in (get(summary, "toy") or {}).items()}
    if not shares:
        return None
    fig = new_figure(figsize=(4, 3))
    ax = fig.add_subplot()
    ax.bar(range(len(shares)), list(shares.values()))
    ax.set_xticks(range(len(shares)), list(shares))
    return save_figure(fig, path, svg=True)


def takeaway(summary: Summary, tables: Tables) -> str | None:
    """The figure's takeaway."""
    shares = [v["first_share"] for v in (get(summary, "toy") or {}).values()]
    return f"The first option is picked in at most {max(shares):.0%} of answered items." if shares else None


REPORT = ReportContribution(
    headline=(HeadlinePart("toy_first", 60, numbers, sentences),),
    findings=findings,
    figures=(FigureSpec("toy_first_share", "First-option share per model (toy measure)", draw, takeaway),),
    key_tables=("toy_first_option",),
)

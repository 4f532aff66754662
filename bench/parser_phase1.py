"""Our letter parser against the paper's own parse of its Phase 1 responses.

Parses every `raw_response` of `results_phase1.csv` against its options and compares
with the paper's `letter` column: how many rows we parse, refuse and leave unparsed, how
often we agree with the paper, which of the paper's letters we reject and why (grouped by
our rule), and which rows the paper left unparsed that we read.

    python bench/parser_phase1.py [--reference ../shared/reference/replication] [--examples 3]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd

from political_sycophancy.core.parsing import ANSWERED, parse_choice

DEFAULT_REFERENCE = Path(__file__).resolve().parents[1] / ".." / "shared" / "reference" / "replication"


def parse_phase1(results: pd.DataFrame) -> pd.DataFrame:
    """One row per response: the paper's letter next to our status, letter and rule."""
    parsed = [
        parse_choice(text if isinstance(text, str) else "", json.loads(options))
        for text, options in zip(results["raw_response"], results["options"], strict=True)
    ]
    return results.assign(
        paper_letter=results["letter"].where(results["letter"].notna(), None),
        status=[p.status for p in parsed],
        our_letter=[p.letter for p in parsed],
        rule=[p.rule for p in parsed],
    )


def comparison(frame: pd.DataFrame) -> dict[str, object]:
    """Counts and grouped tables of where our parse and the paper's differ."""
    paper = frame["paper_letter"].notna()
    ours = frame["status"] == ANSWERED
    same = paper & ours & (frame["our_letter"] == frame["paper_letter"])
    rejected = frame[paper & ~ours]
    different = frame[paper & ours & ~same]
    recovered = frame[~paper & ours]
    return {
        "rows": len(frame),
        "status": frame["status"].value_counts(),
        "paper_parsed": int(paper.sum()),
        "agree": int(same.sum()),
        "rejected": rejected,
        "different": different,
        "recovered": recovered,
        "answered_with_refusal_language": frame[ours & frame["rule"].str.contains("with refusal language")],
        "by_model": frame.assign(paper_parsed=paper, agree=same)
        .groupby("model_label")
        .agg(
            rows=("status", "size"),
            answered=("status", lambda s: int((s == ANSWERED).sum())),
            refusal=("status", lambda s: int((s == "refusal").sum())),
            unparsed=("status", lambda s: int((s == "unparsed").sum())),
            paper_parsed=("paper_parsed", "sum"),
            agree=("agree", "sum"),
        ),
    }


def _examples(rows: pd.DataFrame, n: int) -> None:
    for text in rows["raw_response"].head(n):
        print(f"      e.g. {str(text)[:110]!r}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE)
    ap.add_argument("--examples", type=int, default=2, help="example responses shown per group")
    args = ap.parse_args()
    frame = parse_phase1(pd.read_csv(args.reference / "results_phase1.csv"))
    c = comparison(frame)
    n, status = c["rows"], c["status"]
    print(f"rows: {n}")
    for s in ("answered", "refusal", "unparsed"):
        print(f"  {s:9s} {int(status.get(s, 0)):6d}  ({status.get(s, 0) / n:.1%})")
    empty = int((frame["rule"] == "empty").sum())
    print(f"  (of the unparsed, {empty} are empty responses / API errors)")
    print(f"paper's letters: {c['paper_parsed']}; we agree on {c['agree']} ({c['agree'] / c['paper_parsed']:.2%})")
    print(f"paper's letters we reject: {len(c['rejected'])}")
    for (s, rule), g in c["rejected"].groupby(["status", "rule"]):
        print(f"  {s} / {rule}: {len(g)}  (paper's letters: {g['paper_letter'].value_counts().to_dict()})")
        _examples(g, args.examples)
    print(f"paper's letters we read as a different letter: {len(c['different'])}")
    for rule, g in c["different"].groupby("rule"):
        print(f"  {rule}: {len(g)}")
        _examples(g, args.examples)
    print(f"rows the paper left unparsed that we parse: {len(c['recovered'])}")
    for rule, g in c["recovered"].groupby("rule"):
        print(f"  {rule}: {len(g)}")
        _examples(g, args.examples)
    print(
        f"answered despite refusal language (a stated letter after a disclaimer): "
        f"{len(c['answered_with_refusal_language'])}"
    )
    print("\nby model:")
    print(c["by_model"].to_string())


if __name__ == "__main__":
    main()

"""Degenerate responders: the answer-letter distribution of every model, from the frame's shared columns.

Degenerate responders: the answer-letter distribution of every model, whichever measure
wrote the sample, from the tidy frame's shared columns only (`model`, `kind`, `condition`,
`status`, `letter`, `probs`, `covered_mass`, `options`, `grader`).

A model that gives one option to nearly every item (the embedded SmolLM2-135M answers "A" to
every profile prompt) moves no answer with the asker: its shifts, positions and gaps are
those of an option's place, not of an opinion. Per model x measure (`kind`) x condition, and
pooled over the conditions: the answers read (status `answered`, a letter A-Z), the count of
each letter, the most frequent letter and its share, the Shannon entropy of the letter shares
in bits (with its maximum, log2 of the items' usual number of options, when the frame has
the options), and for answers read from token probabilities (`covered_mass` set) the mean
probability of the most probable option. A letter the row's `grader` wrote (the
even-handedness and open-ended judges' verdicts) is a grader's, not the model's answer, and
is left out. A model x measure whose most frequent letter takes more than
`DEGENERATE_SHARE` of its answers is a degenerate responder (`degenerate`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

DEGENERATE_SHARE = 0.9  # one option in more than 90% of a model's answers
POOLED = "all conditions"
KEYS = ("model", "kind", "condition")


def _letter_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """The answered rows whose letter is the model's own single letter A-Z."""
    if frame.empty or not {"model", "kind", "status", "letter"} <= set(frame.columns):
        return frame.iloc[0:0]
    rows = frame[frame["status"].astype(str) == "answered"]
    letters = rows["letter"].astype(str)
    rows = rows[letters.str.fullmatch(r"[A-Z]")]
    if "grader" in rows.columns:  # a grader's verdict is not the model's answer
        rows = rows[rows["grader"].isna() | rows["grader"].astype(str).isin(["", "None", "(none)"])]
    rows = rows.assign(
        letter=rows["letter"].astype(str),
        condition=rows.get("condition", pd.Series("", index=rows.index)).fillna("").astype(str),
    )
    return rows


def _top_probability(probs: Any) -> float:
    values = [float(v) for v in probs] if isinstance(probs, (list, tuple, np.ndarray)) else []
    return max(values) if values else math.nan


def _n_options(options: pd.Series) -> float:
    counts = options.map(lambda o: len(o) if isinstance(o, (list, tuple, np.ndarray)) else np.nan).dropna()
    return float(counts.mode().iloc[0]) if len(counts) else math.nan


def _describe(g: pd.DataFrame) -> dict[str, Any]:
    counts = g["letter"].value_counts().sort_index()
    shares = counts / counts.sum()
    top = counts.idxmax() if len(counts) else None  # ties: the first letter
    entropy = max(0.0, float(-(shares * np.log2(shares)).sum())) if len(shares) else math.nan
    n_options = _n_options(g["options"]) if "options" in g.columns else math.nan
    read = g[g["covered_mass"].notna()] if "covered_mass" in g.columns else g.iloc[0:0]
    top_p = read["probs"].map(_top_probability).dropna() if "probs" in read.columns else pd.Series(dtype=float)
    return {
        "n_answered": int(counts.sum()),
        "top_letter": top,
        "n_top": int(counts.max()) if len(counts) else 0,
        "top_share": float(shares.max()) if len(shares) else math.nan,
        "entropy_bits": entropy,
        "n_options": n_options,
        "max_entropy_bits": math.log2(n_options) if n_options and n_options > 0 else math.nan,
        "n_logprob": len(top_p),
        "mean_top_probability": float(top_p.mean()) if len(top_p) else math.nan,
        **{f"n_{letter}": int(n) for letter, n in counts.items()},
    }


def letter_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Answer letters per model x kind x condition, and per model x kind over all conditions (`all conditions`).

    The answer-letter distribution (`n_A`, `n_B`, ...), its most frequent letter, that
    letter's share, the entropy in bits and the mean top probability of the answers read
    from token probabilities; `degenerate` marks a pooled row above DEGENERATE_SHARE.
    """
    rows = _letter_rows(frame)
    if rows.empty:
        return pd.DataFrame(columns=[*KEYS, "n_answered", "top_letter", "n_top", "top_share", "degenerate"])
    records = []
    for (model, kind), g in rows.groupby(["model", "kind"], sort=True):
        records.append({"model": model, "kind": kind, "condition": POOLED, **_describe(g)})
        for condition, c in g.groupby("condition", sort=True):
            records.append({"model": model, "kind": kind, "condition": condition, **_describe(c)})
    table = pd.DataFrame.from_records(records)
    letters = sorted(c for c in table.columns if c.startswith("n_") and len(c) == 3 and c[2].isupper())
    table[letters] = table[letters].fillna(0).astype(int)
    table["degenerate"] = (table["condition"] == POOLED) & (table["top_share"] > DEGENERATE_SHARE)
    front = [
        *KEYS,
        "n_answered",
        "top_letter",
        "n_top",
        "top_share",
        "entropy_bits",
        "max_entropy_bits",
        "n_options",
        "mean_top_probability",
        "n_logprob",
        "degenerate",
    ]
    return table[front + letters]


def _num(value: Any) -> Any:
    if isinstance(value, (float, np.floating)):
        return None if math.isnan(float(value)) else float(value)
    if isinstance(value, (np.integer, np.bool_)):
        return value.item()
    return value


def letter_summary(table: pd.DataFrame) -> dict[str, Any]:
    """The answer-letter figures of summary.json's `answer_letters`.

    The threshold, and per model and kind the pooled distribution's figures with each
    condition's beside them.
    """
    models: dict[str, Any] = {}
    fields = ("n_answered", "top_letter", "n_top", "top_share", "entropy_bits", "mean_top_probability", "n_logprob")
    for r in table.to_dict("records"):
        node = models.setdefault(str(r["model"]), {}).setdefault(str(r["kind"]), {"conditions": {}})
        values = {k: _num(r[k]) for k in fields}
        if r["condition"] == POOLED:
            node.update(values, degenerate=bool(r["degenerate"]))
        else:
            node["conditions"][str(r["condition"])] = values
    return {"threshold": DEGENERATE_SHARE, "models": models}


def degenerate(summary_node: dict[str, Any]) -> list[tuple[str, str]]:
    """The (model, kind) pairs whose most frequent letter takes more than the threshold of their answers.

    The (model, kind) pairs of `letter_summary`'s node whose most frequent letter takes more
    than the threshold of their answers, in model then kind order.
    """
    return [
        (model, kind)
        for model, kinds in sorted((summary_node.get("models") or {}).items())
        for kind, node in sorted(kinds.items())
        if node.get("degenerate")
    ]


def warning_lines(summary_node: dict[str, Any]) -> list[str]:
    """One plain line per degenerate responder (for any caller that wants text, not Findings)."""
    out = []
    for model, kind in degenerate(summary_node):
        node = summary_node["models"][model][kind]
        line = (
            f"Degenerate responder: {model} answers {node['top_letter']} in {node['n_top']:,} of {node['n_answered']:,}"
            f" answered {kind} prompts ({100 * node['top_share']:.0f}%)"
        )
        if node.get("mean_top_probability") is not None:
            line += (
                f"; mean top probability {node['mean_top_probability']:.3f} over {node['n_logprob']:,} answers read"
                " from logprobs"
            )
        out.append(line + ".")
    return out

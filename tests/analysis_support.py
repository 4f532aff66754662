"""Helpers for the analysis tests: tidy frames built in memory with exactly the columns the
frame contract promises, from synthetic responses (no logs needed)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from political_sycophancy.audit.pct import pct_item_score
from political_sycophancy.audit.typology import typology_item_score
from political_sycophancy.audit.wd import item_wds
from political_sycophancy.core.items import Item

LETTERS = "ABCDEFGHIJ"


def frame_from_responses(responses: pd.DataFrame, items: list[Item]) -> pd.DataFrame:
    """The tidy frame the logs of these responses would give (letter mode)."""
    by_id = {i.id: i for i in items}
    rows = []
    for rec in responses.to_dict("records"):
        item = by_id[rec["question_id"]]
        letter = rec["letter"] or None
        status = "answered" if letter else "refusal"
        probs = None
        values: dict = {}
        if letter:
            k = LETTERS.index(letter)
            probs = [1.0 if j == k else 0.0 for j in range(len(item.options))]
            if item.scoring == "pct":
                values["ideology"] = pct_item_score(probs, item.direction)
            elif item.scoring == "typology":
                values["typology"] = typology_item_score(probs, item.direction)
            elif item.scoring == "wd":
                values.update(item_wds(probs, item.positions, item.benchmarks))
        rows.append(
            {
                "model": rec["model_id"],
                "kind": "audit",
                "task": f"audit_{item.instrument}_{rec['condition']}",
                "instrument": item.instrument,
                "condition": rec["condition"],
                "item_id": item.id,
                "sample_id": item.id,
                "epoch": int(rec["rep"]) + 1,
                "status": status,
                "letter": letter,
                "answer_mode": "letter",
                "temperature": float(rec["temperature"]),
                "log_file": "memory",
                "created": "",
                "non_ordinal": "keep",
                "error": None,
                "rule": "bare letter" if letter else "refusal",
                "text_status": status,
                "text_letter": letter,
                "covered_mass": None,
                "probs": probs,
                **values,
                **{k: v for k, v in item.sample_metadata().items()},
                "condition_label": rec["condition"],
            }
        )
    return pd.DataFrame(rows)


def crossed_data(seed: int, *, items: int = 30, models: int = 4, effects=None, sd_item=0.15, sd_model=0.05, sd=0.1) -> pd.DataFrame:
    """Item-level data from y = 0.3 + b_c + u_item + v_model + e (crossed intercepts)."""
    effects = effects or {"N": 0.0, "C3L": -0.02, "C3R": 0.12}
    rng = np.random.default_rng(seed)
    u = rng.normal(0, sd_item, items)
    v = rng.normal(0, sd_model, models)
    rows = [
        (f"m{m}", f"i{i}", c, 0.3 + b + u[i] + v[m] + rng.normal(0, sd))
        for m in range(models)
        for i in range(items)
        for c, b in effects.items()
    ]
    return pd.DataFrame(rows, columns=["model", "item_id", "condition", "wd_dem"])

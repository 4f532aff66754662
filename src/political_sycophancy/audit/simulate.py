"""Synthetic instruments and response files with planted effects.

For tests, benchmarks and power checks: the responses have the shape of the first seed's
Phase 2 files, so `import-responses` turns them into real Inspect logs and the analysis
must recover what was planted.

Response model. ATP item with Dem and Rep benchmarks d, r: under condition c a model answers
from p = normalise(w d + (1 - w) r) with w = clip(lean_m + shift_c + e_i, 0, 1), e_i an item
effect; a smaller w is a more Republican-like answer distribution. PCT and Typology items: the
model's latent position x = pct_lean_m + pct_shift_c + e_i on the item's (direction-signed)
scale picks the option whose score is nearest to x + noise.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..core.items import Item, load_items
from ..core.measures import PCT_POINTS, normalized_wd, typology_option_points
from ..core.sheet import rows_csv


def write_atp_items(path: str | Path, n_items: int, *, seed: int = 0, n_without_benchmarks: int = 0) -> Path:
    """An ATP-style item file with random Dem/Rep/overall benchmark distributions (2-5 options) and their partisan gap.

    Plus items without benchmarks if asked (written with `choice` scoring, since WD scoring
    needs benchmarks).
    """
    rng = np.random.default_rng(seed)
    path = Path(path)
    rows = []
    for i in range(n_items):
        n = int(rng.integers(2, 6))
        dem = rng.dirichlet(np.linspace(3.0, 0.6, n))
        rep = rng.dirichlet(np.linspace(0.6, 3.0, n))
        if rng.random() < 0.5:
            dem, rep = rep, dem
        dem, rep = np.round(dem, 4), np.round(rep, 4)
        dem[-1] = round(1 - dem[:-1].sum(), 4)
        rep[-1] = round(1 - rep[:-1].sum(), 4)
        overall = np.round((dem + rep) / 2, 4)
        overall[-1] = round(1 - overall[:-1].sum(), 4)
        gap = normalized_wd(list(range(1, n + 1)), rep.tolist(), dem.tolist())
        rows.append(
            {
                "id": f"atp_SYN_Q{i:04d}",
                "text": f'Synthetic ATP question {i} <about> "policy" & more?',
                "options": json.dumps([f"Option {k + 1} of question {i}" for k in range(n)]),
                "scoring": "wd",
                "dist_dem": json.dumps(dem.tolist()),
                "dist_rep": json.dumps(rep.tolist()),
                "dist_overall": json.dumps(overall.tolist()),
                "partisan_gap": round(gap, 4),
            }
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_rows(path, rows)
    if n_without_benchmarks:
        _write_rows(
            path.with_name(path.stem + "_nobench.csv"),
            [
                {
                    "id": f"atp_SYN_NB{i:03d}",
                    "text": f"Unbenchmarked question {i}",
                    "options": json.dumps(["Yes", "No"]),
                    "scoring": "choice",
                    "instrument": "atp_nobench",
                }
                for i in range(n_without_benchmarks)
            ],
        )
    return path


def _write_rows(path: Path, rows: list[dict]) -> None:
    """An item file of `rows` (the first row's keys are the header), spreadsheet-safe."""
    header = list(rows[0])
    path.write_text(rows_csv(header, ([r[c] for c in header] for r in rows)), encoding="utf-8", newline="")


def write_typology_items(path: str | Path, n_items: int = 25, *, seed: int = 0) -> Path:
    """A Typology-style item file: 2-4 options, direction +1/-1 (a few 0)."""
    rng = np.random.default_rng(seed)
    path = Path(path)
    rows = []
    for i in range(n_items):
        n = int(rng.integers(2, 5))
        direction = 0 if i % 8 == 0 else int(rng.choice([-1, 1]))
        rows.append(
            {
                "id": f"pew_{i + 1:02d}",
                "text": f"Synthetic typology question {i + 1}",
                "options": json.dumps([f"Statement {k + 1}" for k in range(n)]),
                "direction": direction,
                "scoring": "typology",
            }
        )
    _write_rows(path, rows)
    return path


def _atp_letter(item: Item, w: float, rng: np.random.Generator) -> int:
    d = np.asarray(item.benchmarks["dem"])
    r = np.asarray(item.benchmarks["rep"])
    p = w * d + (1 - w) * r
    p = p / p.sum()
    return int(rng.choice(len(p), p=p))


def _scale_letter(item: Item, x: float, rng: np.random.Generator, noise: float) -> int:
    if item.scoring == "pct":
        scores = np.asarray(PCT_POINTS) * (item.direction or 1)
    else:
        scores = np.asarray(typology_option_points(len(item.options))) * (item.direction or 1)
    return int(np.argmin(np.abs(scores - (x + rng.normal(0, noise)))))


def synthetic_responses(
    items: Sequence[Item],
    models: Sequence[str],
    conditions: Sequence[str],
    *,
    atp_lean: dict[str, float] | None = None,
    atp_shift: dict[str, float] | None = None,
    pct_lean: dict[str, float] | None = None,
    pct_shift: dict[str, float] | None = None,
    item_sd: float = 0.1,
    noise: float = 0.6,
    epochs: int = 1,
    temperature: float = 1.0,
    refusal_rate: float = 0.0,
    seed: int = 0,
) -> pd.DataFrame:
    """Phase 2-shaped responses with planted leans, shifts and refusals, for testing the estimators.

    Phase 2-shaped responses (model_id, question_id, raw_response, letter, condition,
    condition_label, rep, temperature, error). `atp_lean[model]` is the baseline Dem weight
    w (default 0.7), `atp_shift[condition]` its change (negative = toward Republicans);
    `pct_lean[model]` and `pct_shift[condition]` move the PCT / Typology position (positive
    = right). A share `refusal_rate` of responses are refusals (no letter).
    """
    rng = np.random.default_rng(seed)
    atp_lean = atp_lean or {}
    atp_shift = atp_shift or {}
    pct_lean = pct_lean or {}
    pct_shift = pct_shift or {}
    item_effect = {item.id: rng.normal(0, item_sd) for item in items}
    rows = []
    for model in models:
        for condition in conditions:
            for epoch in range(1, epochs + 1):
                for item in items:
                    if refusal_rate and rng.random() < refusal_rate:
                        rows.append(
                            (
                                model,
                                item.id,
                                "I'm sorry, but I can't choose an option on this question.",
                                "",
                                condition,
                                epoch - 1,
                            )
                        )
                        continue
                    if item.scoring == "wd" and item.benchmarks.get("dem"):
                        w = float(
                            np.clip(
                                atp_lean.get(model, 0.7) + atp_shift.get(condition, 0.0) + item_effect[item.id], 0, 1
                            )
                        )
                        k = _atp_letter(item, w, rng)
                    elif item.scoring in ("pct", "typology"):
                        scale = 1.0 if item.scoring == "typology" else 2.0
                        x = (
                            scale * (pct_lean.get(model, -0.5) + pct_shift.get(condition, 0.0)) / 2
                            + item_effect[item.id]
                        )
                        k = _scale_letter(item, x, rng, noise * scale / 2)
                    else:
                        k = int(rng.integers(0, len(item.options)))
                    letter = "ABCDEFGHIJ"[k]
                    rows.append((model, item.id, letter, letter, condition, epoch - 1))
    frame = pd.DataFrame(rows, columns=["model_id", "question_id", "raw_response", "letter", "condition", "rep"])
    frame["condition_label"] = frame["condition"]
    frame["temperature"] = temperature
    frame["error"] = ""
    return frame


def builtin_pct_items() -> list[Item]:
    """The PCT statements shipped with the package, as items for synthetic responses."""
    from ..core.items import builtin_path

    return load_items(builtin_path("pct.csv"), instrument="pct")


__all__ = ["builtin_pct_items", "synthetic_responses", "write_atp_items", "write_typology_items"]

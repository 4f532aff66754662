"""Helpers for the analysis tests: crossed item x model data with planted effects for the
pure statistics, and the tidy frame of synthetic responses built the real way (mock-model
audit runs through Inspect, or the same answers imported, read back by the frame builder)
instead of a hand-made frame that would restate the frame's contract."""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd
from inspect_ai import eval as inspect_eval

from political_sycophancy.audit.task import audit
from political_sycophancy.core.conditions import builtin_conditions
from political_sycophancy.core.items import builtin_path, load_instrument
from political_sycophancy.core.prompts import audit_prompt
from political_sycophancy.logs.frame import load_frame
from political_sycophancy.logs.importer import import_responses
from support import scripted_model

PCT_FILE = builtin_path("pct.csv")


def crossed_data(
    seed: int, *, items: int = 30, models: int = 4, effects=None, sd_item=0.15, sd_model=0.05, sd=0.1,
    sd_slope: dict[str, float] | None = None,
) -> pd.DataFrame:
    """Item-level data from y = 0.3 + b_c + u_item + v_model + e (crossed intercepts); with
    `sd_slope` (condition -> SD) each model's effect of that condition is b_c + s_mc,
    s_mc ~ N(0, SD): the condition effect varies across models (per-model slopes)."""
    effects = effects or {"N": 0.0, "C3L": -0.02, "C3R": 0.12}
    rng = np.random.default_rng(seed)
    u = rng.normal(0, sd_item, items)
    v = rng.normal(0, sd_model, models)
    slope = {c: rng.normal(0, s, models) for c, s in (sd_slope or {}).items()}
    rows = [
        (f"m{m}", f"i{i}", c, 0.3 + b + (slope[c][m] if c in slope else 0.0) + u[i] + v[m] + rng.normal(0, sd))
        for m in range(models)
        for i in range(items)
        for c, b in effects.items()
    ]
    return pd.DataFrame(rows, columns=["model", "item_id", "condition", "wd_dem"])


def frame_from_evals(responses: pd.DataFrame, item_files: Iterable[str | Path], log_dir: str | Path | None = None) -> pd.DataFrame:
    """The tidy frame of these (Phase 2-shaped) responses given by mock models, built the way
    the analysis of a real audit builds it: the audit tasks (one per condition and item file)
    run through Inspect (`epochs` = the most reps) on a `mockllm/<model_id>` model per model
    and temperature that answers each prompt (condition preamble and item) with the raw
    response of its next rep; `load_frame` reads the logs (in `log_dir`, or a scratch one)."""
    if log_dir is None:
        with tempfile.TemporaryDirectory() as scratch:
            return frame_from_evals(responses, item_files, Path(scratch) / "logs")
    log_dir = Path(log_dir)
    conditions = builtin_conditions()
    responses = responses.assign(rep=responses.get("rep", 0), temperature=responses.get("temperature", 1.0))
    files = {}
    for path in map(Path, item_files):
        instrument = "pct" if path == PCT_FILE else next((n for n in ("atp", "typology") if n in path.stem), path.stem)
        files[path] = (instrument, {i.id: i for i in load_instrument(instrument, None if path == PCT_FILE else str(path))})
    for (model, temperature), group in responses.groupby(["model_id", "temperature"], sort=True):
        answers: dict[str, list[str]] = {}  # prompt text -> raw responses by rep
        runs: dict[tuple, list[str]] = {}  # (item file, sample ids) -> conditions asked them
        for path, (instrument, items) in files.items():
            mine = group[group["question_id"].isin(list(items))].sort_values("rep")
            for condition, cell in mine.groupby("condition", sort=True):
                for q, g in cell.groupby("question_id"):
                    answers[conditions[condition].apply(audit_prompt(items[q]))] = list(g["raw_response"])
                runs.setdefault((path, instrument, tuple(sorted(cell["question_id"].unique()))), []).append(condition)

        def respond(text: str, answers=answers) -> str:
            replies = answers[text]
            return replies.pop(0) if len(replies) > 1 else replies[0]

        model_api = scripted_model(respond, name=f"mockllm/{model}")
        for (path, instrument, ids), conds in runs.items():
            tasks = [audit(instrument=instrument, items=None if path == PCT_FILE else str(path), condition=c) for c in conds]
            epochs = int(group[group["question_id"].isin(ids)]["rep"].max()) + 1
            logs = inspect_eval(tasks, model=model_api, log_dir=str(log_dir), display="none", epochs=epochs, temperature=float(temperature),
                                sample_id=list(ids), max_connections=1, log_realtime=False)
            assert all(log.status == "success" for log in logs), [log.error for log in logs]
    return load_frame(log_dir, cache=False)


def frame_from_import(responses: pd.DataFrame, item_files: Iterable[str | Path], log_dir: str | Path | None = None) -> pd.DataFrame:
    """The tidy frame of the same responses imported (`import_responses`: one log per model x
    instrument x condition x temperature, our parser and scorers), read by `load_frame`. It
    equals `frame_from_evals`'s (tests/test_logs_frame_sources.py) but for the provider
    prefix of the model names, in about 1/30 of the time: the statistics tests use it."""
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(log_dir) if log_dir is not None else Path(scratch) / "logs"
        path = Path(scratch) / "responses.csv"
        responses.to_csv(path, index=False)
        import_responses(path, list(item_files), out)
        return load_frame(out, cache=False)

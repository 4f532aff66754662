"""Cells answered by several runs: the frame under each run, and the Headline's numbers under each (issue 46).

A user may run the same tasks on the same model twice and analyse both; the statistics keep one
answer per cell (`frame.deduplicate`), and the report shows the Headline under each run, the
baseline and every answer pooled as robustness rows, so no run is dropped from view.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .listing import folder_of

__all__ = ["rerun_rows", "rerun_versions"]


def rerun_versions(
    frame: pd.DataFrame, shown: str, key: list[str], kept: np.ndarray
) -> tuple[dict[str, Any], list[tuple[dict[str, Any], pd.DataFrame]]]:
    """The frame under each run of its re-run cells, and pooled: what was re-run, and the versions.

    A cell (`key`) answered by several runs has its answers ordered by when their logs
    were created: run k is every cell's k-th answer, or its last when it has fewer (a cell
    answered once is in every run). Pooled is every answer, a cell's later answers as further
    epochs. Each version's label names its run and the folder of its re-run logs (`shown`:
    the log folder as the user named it); the first dict counts the re-run cells and runs and
    names the run(s) whose answers are `kept` (the rows `frame.kept_rows` keeps: the
    baseline). Nothing when no cell was answered twice.
    """
    if kept.all():  # no cell answered twice (the usual case): no second pass over the frame
        return {}, []
    repeated = frame.duplicated(subset=key, keep=False).to_numpy()
    order = frame.sort_values(["created", "log_file"], kind="stable")
    copy = order.groupby(key, dropna=False, sort=False).cumcount().reindex(frame.index).to_numpy()
    cells = frame.groupby(key, dropna=False, sort=False)
    count = cells["status"].transform("size").to_numpy()
    versions: list[tuple[dict[str, Any], pd.DataFrame]] = []
    for k in range(int(count.max())):
        mine = (copy == k) | ((count <= k) & (copy == count - 1))
        rerun = repeated & (copy == k)
        label = {
            "run": f"run {k + 1}",
            "logs": folder_of(sorted(set(frame.loc[rerun, "log_file"].astype(str))), shown),
            "created": str(frame.loc[rerun, "created"].min()),
        }
        versions.append((label, frame[mine]))
    epochs = int(pd.to_numeric(frame["epoch"]).max())
    pooled = frame.assign(epoch=pd.to_numeric(frame["epoch"]).to_numpy() + copy * epochs)
    versions.append(({"run": "pooled", "logs": shown, "created": None}, pooled))
    info = {
        "n_cells": int(len(frame.loc[repeated, key].drop_duplicates())),
        "n_runs": int(count.max()),
        "baseline_runs": [f"run {k + 1}" for k in sorted(set(copy[repeated & kept].tolist()))],
    }
    return info, versions


def rerun_rows(
    info: dict[str, Any], versions: list[tuple[dict[str, Any], pd.DataFrame]], baseline: pd.DataFrame
) -> dict[str, Any]:
    """The Headline under each run, the baseline (the deduplicated frame) and pooled (`shared.reruns`)."""
    from ..shared.reruns import run_headline  # the analysis libraries, only when cells were re-run

    runs, pooled = versions[:-1], versions[-1]
    named = " and ".join(info["baseline_runs"])
    rows = [{**label, **run_headline(part)} for label, part in runs]
    rows.append({"run": "baseline", "logs": named, "created": None, **run_headline(baseline)})
    rows.append({**pooled[0], **run_headline(pooled[1])})
    return {**info, "rows": rows}

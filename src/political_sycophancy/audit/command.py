"""`political-sycophancy audit`: an instrument under several conditions as one eval set."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.console import say
from ..shared.eval_options import (
    add_eval_options,
    add_task_options,
    eval_set_kwargs,
    run_eval_set,
    task_args,
)
from .console import NOTE, summary_table
from .params import AUDIT_PARAMS

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog

# Every audit parameter but `condition`: the command runs several (--conditions).
TASK_PARAMS = tuple(p for p in AUDIT_PARAMS if p.name != "condition")


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add the `audit` command (an instrument under several asker conditions, one resumable eval set)."""
    p = sub.add_parser(
        "audit",
        help="run an instrument under several asker conditions (one Inspect task each) as a resumable eval set",
        description="Run an instrument under several asker conditions as one resumable Inspect eval set, "
        "then print a per-condition table of the task metrics.",
    )
    p.add_argument(
        "--conditions",
        dest="condition_spec",
        default="all",
        metavar="CONDITIONS",
        help="all (N, CA, C1L, C1R, C3L, C3R), focal, personas, or ids separated by commas (one task each)",
    )
    add_task_options(p, TASK_PARAMS)
    p.add_argument("--log-dir", default="logs", help="log directory of the eval set (default: logs)")
    add_eval_options(p)
    p.set_defaults(func=run)


def metrics_table(logs: Iterable[EvalLog]) -> list[dict]:
    """One row per log: model, condition and the task's scalar metrics."""
    rows = []
    for log in logs:
        meta = log.eval.metadata or {}
        row = {
            "model": log.eval.model,
            "instrument": meta.get("instrument", ""),
            "condition": meta.get("condition", ""),
            "status": log.status,
            "samples": len(log.samples or [])
            if log.samples is not None
            else (log.results.total_samples if log.results else 0),
        }
        if log.samples is not None:
            row["errors"] = sum(1 for s in log.samples if s.error)
        elif log.results is not None:
            row["errors"] = log.results.total_samples - log.results.completed_samples
        if log.results:
            for score in log.results.scores:
                if "mean" in score.metrics:
                    row[score.name] = score.metrics["mean"].value
        rows.append(row)
    return rows


def run(args: argparse.Namespace) -> int:
    """Run the audit tasks as one eval set and print each condition's metrics; 1 when a task did not finish."""
    from ..core.conditions import resolve_conditions
    from .task import audit_tasks

    kwargs = eval_set_kwargs(args)
    audit_args = task_args(args, TASK_PARAMS)
    conditions = [c.id for c in resolve_conditions(args.condition_spec, audit_args["conditions"])]
    tasks = audit_tasks(conditions=conditions, conditions_file=audit_args.pop("conditions"), **audit_args)
    success, logs, log_dir = run_eval_set(tasks, args.log_dir, kwargs)
    say()
    say(summary_table(metrics_table(logs)))
    say(f"\n{NOTE}")
    say(f"logs: {Path(log_dir).resolve()}  (inspect view --log-dir {log_dir})")
    if not success:
        say("some tasks did not finish; run the same command again to complete them")
        return 1
    return 0

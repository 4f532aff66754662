"""`political-sycophancy plan`: a whole design's cells, calls and tokens, and its run.

Without `--run` nothing is sent to a model. With `--run` the design runs as one Inspect
`eval_set`: run the same command again after an interruption and only the missing samples
are run (completed samples are reused from the logs).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..core import arguments
from ..core.console import say
from ..core.declare import task_label
from ..core.errors import InputError
from ..core.items import PAPER_PHASE2_POOL
from ..core.text import text_table
from ..designs.paper import DESIGN_PARAMS, PlannedTask
from ..shared.eval_options import (
    add_eval_options,
    add_task_options,
    eval_set_kwargs,
    run_eval_set,
    task_args,
)

# Inspect's default concurrent calls per model, assumed by the time estimate without --max-connections
DEFAULT_CONNECTIONS = 10


# Bounds of the estimate's inputs: far above any provider's (USD per million tokens; a call
# of a day; tokens a call writes), low enough that the estimate stays a number.
MAX_PRICE = 1e6
MAX_SECONDS_PER_CALL = 86_400
MAX_OUTPUT_TOKENS = 1e6


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add the `plan` command (a design's cells, calls and tokens; `--run` executes it)."""
    p = sub.add_parser(
        "plan",
        help=(
            "print a whole design (cells, calls, token estimates per phase); --run executes it as one resumable"
            " eval set"
        ),
        description=(
            "Print the cells, model calls and estimated input/output tokens of each phase of a design (Phase 1, Phase"
            " 2, replicates, probes, personas) and, with --run, execute it as one resumable Inspect eval set."
        ),
    )
    p.add_argument(
        "--design",
        default="paper",
        choices=("paper", "profiles"),
        help="paper (the first seed's phases) or profiles (interlocutor profiles, set by --profile; default: paper)",
    )
    p.add_argument(
        "--profile",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=(
            "design=profiles: a parameter of the profiles task (and of its manipulation check "
            "profile_check, where it applies), as for inspect eval -T (repeatable), "
            "e.g. --profile design=fractional --profile n=24 --profile modes=explicit,implicit"
        ),
    )
    p.add_argument(
        "--profile-epochs",
        type=arguments.epochs,
        default=1,
        help="design=profiles: epochs of the profiles task (default: 1)",
    )
    p.add_argument(
        "--items",
        required=True,
        help="directory holding pct.csv (optional; built-in otherwise), typology.csv and atp.csv",
    )
    p.add_argument("--log-dir", required=True, help="log directory of the eval set")
    p.add_argument("--phases", default=",".join(_phases()), help="comma-separated subset of: " + ", ".join(_phases()))
    p.add_argument(
        "--phase2-pool",
        default=PAPER_PHASE2_POOL,
        help=f"ATP pool of Phase 2 and the replicates (default: {PAPER_PHASE2_POOL})",
    )
    p.add_argument("--probe-pool", default="top30", help="ATP pool of the probes and personas (default: top30)")
    p.add_argument(
        "--replicates",
        type=arguments.epochs,
        default=4,
        help="T=1 replicates of the focal ATP grid, the original included (default: 4)",
    )
    p.add_argument("--no-greedy", action="store_true", help="leave out the T=0 run of the focal grid")
    p.add_argument(
        "--temperature",
        type=arguments.nonnegative,
        default=1.0,
        help="the design's sampling temperature (default 1.0; the greedy replicate is T=0)",
    )
    p.add_argument("--probe-epochs", type=arguments.epochs, default=2)
    p.add_argument("--persona-epochs", type=arguments.epochs, default=2)
    p.add_argument("--grader", default=None, help="model that also codes the perception descriptions")
    p.add_argument(
        "--max-tokens",
        type=arguments.count,
        default=None,
        help="generation limit of every task (default: the provider's)",
    )
    # The audit parameters that are one value for the whole design (the others are per cell).
    add_task_options(p, DESIGN_PARAMS)
    p.add_argument(
        "--output-tokens",
        action="append",
        default=[],
        type=_output_tokens,
        metavar="KIND=N",
        help=(
            "output tokens per call for the estimate (kinds: audit, audit_logprobs, expected_answer, perception,"
            " grader)"
        ),
    )
    p.add_argument(
        "--price-in",
        type=arguments.number(0, MAX_PRICE),
        default=None,
        metavar="USD",
        help="your provider's price per million input tokens, for the cost estimate",
    )
    p.add_argument(
        "--price-out",
        type=arguments.number(0, MAX_PRICE),
        default=None,
        metavar="USD",
        help="your provider's price per million output tokens, for the cost estimate",
    )
    p.add_argument(
        "--seconds-per-call",
        type=arguments.number(0, MAX_SECONDS_PER_CALL),
        default=None,
        metavar="S",
        help="a typical call's latency, for the time estimate (with --max-connections, default 10)",
    )
    p.add_argument("--run", action="store_true", help="run the design as one resumable eval set")
    add_eval_options(p, generation=False)
    p.set_defaults(func=run)


def _phases() -> tuple[str, ...]:
    from ..designs.paper import PHASES

    return PHASES


_TOKENS = arguments.number(0, MAX_OUTPUT_TOKENS)


def _output_tokens(pair: str) -> tuple[str, float]:
    """One --output-tokens KIND=N: a known kind and a finite number of tokens >= 0."""
    from ..designs.paper import OUTPUT_TOKENS

    key, sep, value = pair.partition("=")
    if not sep or key.strip() not in OUTPUT_TOKENS:
        raise argparse.ArgumentTypeError(f"use KIND=N with KIND one of {', '.join(OUTPUT_TOKENS)}, not {pair}")
    try:
        return key.strip(), _TOKENS(value)
    except argparse.ArgumentTypeError as ex:
        raise argparse.ArgumentTypeError(f"{key.strip()}: N {ex}") from None


def plan_rows(
    planned: list[PlannedTask], models: list[str], output_tokens: dict[str, float], limit: int | None = None
) -> tuple[list[dict], list[dict]]:
    """Per-task rows and per-phase rows (per model and for all models), with the sample limit applied."""
    from ..designs.paper import estimate

    tasks = [
        {
            "phase": p.phase,
            "task": p.name,
            "kind": p.kind,
            "condition": (p.task.metadata or {}).get("condition", ""),
            "pool": (p.task.metadata or {}).get("pool", ""),
            "T": "" if p.task.config.temperature is None else p.task.config.temperature,
            "cells": p.samples if limit is None else min(p.samples, limit),
            "epochs": p.epochs,
            "calls": (p.samples if limit is None else min(p.samples, limit)) * p.epochs,
        }
        for p in planned
    ]
    n = len(models)
    phases: list[dict[str, Any]] = []
    for e in estimate(planned, output_tokens, limit):
        phases.append(
            {
                "phase": e.phase,
                "tasks": e.tasks,
                "cells/model": e.cells,
                "calls/model": e.calls,
                "calls": e.calls * n,
                "input tokens": e.input_tokens * n,
                "output tokens": e.output_tokens * n,
            }
        )
    total = {
        k: sum(r[k] for r in phases)
        for k in ("tasks", "cells/model", "calls/model", "calls", "input tokens", "output tokens")
    }
    phases.append({"phase": "total", **total})
    return tasks, phases


def _print_cost(args: argparse.Namespace, total: dict) -> None:
    """The run's cost and time from the user's prices and latency (when given)."""
    from ..designs.paper import run_cost

    if args.price_in is None and args.seconds_per_call is None:
        return
    connections = args.max_connections or DEFAULT_CONNECTIONS
    cost = run_cost(
        total["calls/model"],
        total["input tokens"],
        total["output tokens"],
        len(args.model),
        price_in=args.price_in,
        price_out=args.price_out,
        seconds_per_call=args.seconds_per_call,
        connections=connections,
    )
    say()
    if cost.usd is not None:
        say(f"estimated cost: {cost.usd:,.2f} USD for {total['calls']:,} calls")
    if cost.hours is not None:
        say(
            f"estimated time: {cost.hours:,.1f} h ({cost.hours * 60:,.0f} min) with {connections} connections per model"
            + (" (batch mode: within the provider's batch window instead)" if getattr(args, "batch", None) else "")
        )
    say(f"({cost.formula}; estimates, not quotes)")


def _phase_list(spec: str) -> list[str]:
    return [s.strip() for s in spec.split(",") if s.strip()]


def paper_plan(args: argparse.Namespace) -> list[PlannedTask]:
    """The planned tasks of the paper's design from the command's options."""
    from ..designs.paper import design_tasks

    return design_tasks(
        args.design,
        args.items,
        phases=_phase_list(args.phases),
        phase2_pool=args.phase2_pool,
        probe_pool=args.probe_pool,
        replicates=args.replicates,
        greedy=not args.no_greedy,
        temperature=args.temperature,
        probe_epochs=args.probe_epochs,
        persona_epochs=args.persona_epochs,
        grader=args.grader,
        max_tokens=args.max_tokens,
        **task_args(args, DESIGN_PARAMS),
    )


def run(args: argparse.Namespace) -> int:
    """Print a design's estimate per phase and, with `--run`, run it as one resumable eval set."""
    kwargs = eval_set_kwargs(args, generation=False)
    if (args.price_in is None) != (args.price_out is None):
        raise InputError("--price-in and --price-out go together (USD per million input and output tokens)")

    if args.profile and args.design != "profiles":
        raise InputError("--profile sets the profiles task: use it with --design profiles")
    if args.design == "profiles":
        from ..designs.profiles import parse_profile_args, profile_design

        planned = profile_design(
            args.items,
            profile_args=parse_profile_args(args.profile),
            temperature=args.temperature,
            max_tokens=args.max_tokens,
            epochs=args.profile_epochs,
            answer=args.answer,
            top_logprobs=args.top_logprobs,
            non_ordinal=args.non_ordinal,
        )
    else:
        planned = paper_plan(args)
    task_rows, phase_rows = plan_rows(planned, args.model, dict(args.output_tokens), args.limit)
    say(f"design {args.design!r}: {len(planned)} tasks x {len(args.model)} model(s) ({', '.join(args.model)})\n")
    say(text_table(task_rows, ["phase", "task", "kind", "condition", "pool", "T", "cells", "epochs", "calls"]))
    say()
    say(
        text_table(
            phase_rows, ["phase", "tasks", "cells/model", "calls/model", "calls", "input tokens", "output tokens"]
        )
    )
    say(
        "\ntokens are estimates: input = prompt characters / 4 + 8 per call; output per call: "
        "audit 3 (1 with --answer logprobs), expected_answer 60, perception 90, profile_check 80 (reasoning models use "
        "far more; set --output-tokens)."
    )
    if args.limit is not None:
        say(f"--limit {args.limit}: the first {args.limit} samples of each task (counted above)")
    _print_cost(args, phase_rows[-1])
    if not args.run:
        say("\nnothing was run; add --run to execute the design as one resumable eval set")
        return 0
    return execute(planned, args, kwargs)


def execute(planned: list[PlannedTask], args: argparse.Namespace, kwargs: dict) -> int:
    """Run the planned tasks as one eval set and print the metrics of each task, by phase."""
    success, logs, log_dir = run_eval_set([p.task for p in planned], args.log_dir, kwargs)
    rows = []
    for log in logs:
        meta = log.eval.metadata or {}
        rows.append(
            {
                "phase": meta.get("phase", ""),
                "task": task_label(log.eval.task, log.eval.metadata, log.eval.task_registry_name),
                "model": log.eval.model,
                "status": log.status,
                "samples": log.results.completed_samples if log.results else 0,
            }
        )
    order = {p.name: i for i, p in enumerate(planned)}
    rows.sort(key=lambda r: (r["model"], order.get(r["task"], 10**6)))
    say()
    say(text_table(rows, ["phase", "task", "model", "status", "samples"]))
    say(f"\nlogs: {Path(args.log_dir).resolve()}  (political-sycophancy analyze {args.log_dir})")
    if not success:
        say("some tasks did not finish; run the same command again to complete them")
        return 1
    return 0

"""`political-sycophancy audit`: an instrument under several conditions as one eval set."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from ..errors import InputError


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "audit",
        help="run an instrument under several asker conditions (one Inspect task each) as a resumable eval set",
        description="Run an instrument under several asker conditions as one resumable Inspect eval set, "
        "then print a per-condition table of the task metrics.",
    )
    p.add_argument("--instrument", default="pct", help="pct, typology, atp or an item file (default: pct)")
    p.add_argument("--items", default=None, help="item file replacing the instrument's built-in items")
    p.add_argument("--conditions", default="all", help="all (N, CA, C1L, C1R, C3L, C3R), focal, personas, or ids separated by commas")
    p.add_argument("--conditions-file", default=None, help="YAML/JSON file of extra conditions")
    p.add_argument("--pool", default="all", help="all, benchmarked, top<N>, gap><x> or a file of item ids")
    p.add_argument("--model", action="append", required=True, help="Inspect model, e.g. gguf/smollm2 or openai/gpt-4o (repeatable)")
    p.add_argument("--model-arg", "-M", action="append", default=[], help="model argument key=value (e.g. model_path=/x.gguf)")
    p.add_argument("--answer", default="letter", choices=["letter", "logprobs"])
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--max-tokens", type=int, default=None)
    p.add_argument("--limit", type=int, default=None, help="only the first N items of each task")
    p.add_argument("--seed", type=int, default=None, help="generation seed (providers that support it)")
    p.add_argument("--log-dir", default="logs", help="log directory of the eval set (default: logs)")
    p.add_argument("--max-connections", type=int, default=None)
    p.set_defaults(func=run)


def _model_args(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        if "=" not in pair:
            raise InputError(f"model argument {pair!r} is not key=value")
        k, v = pair.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def metrics_table(logs) -> list[dict]:
    """One row per log: model, condition and the task's scalar metrics."""
    rows = []
    for log in logs:
        meta = log.eval.metadata or {}
        row = {
            "model": log.eval.model,
            "instrument": meta.get("instrument", ""),
            "condition": meta.get("condition", ""),
            "status": log.status,
            "samples": len(log.samples or []) if log.samples is not None else (log.results.total_samples if log.results else 0),
        }
        if log.results:
            for score in log.results.scores:
                for name, m in score.metrics.items():
                    key = name if m.group is None else f"{m.group}.{name}"
                    row[key] = m.value
        rows.append(row)
    return rows


def format_table(rows: list[dict], columns: list[str]) -> str:
    def cell(v) -> str:
        if isinstance(v, float):
            return "n/a" if math.isnan(v) else f"{v:.3f}"
        return str(v)

    widths = {c: max(len(c), *(len(cell(r.get(c, ""))) for r in rows)) for c in columns}
    lines = ["  ".join(c.ljust(widths[c]) for c in columns)]
    lines += ["  ".join(cell(r.get(c, "")).ljust(widths[c]) for c in columns) for r in rows]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from inspect_ai import eval_set

    from ..conditions import resolve_conditions
    from ..tasks import audit_tasks

    conditions = [c.id for c in resolve_conditions(args.conditions, args.conditions_file)]
    tasks = audit_tasks(
        instrument=args.instrument,
        conditions=conditions,
        conditions_file=args.conditions_file,
        items=args.items,
        pool=args.pool,
        answer=args.answer,
        temperature=args.temperature,
        epochs=args.epochs,
        max_tokens=args.max_tokens,
    )
    Path(args.log_dir).mkdir(parents=True, exist_ok=True)
    success, logs = eval_set(
        tasks,
        model=args.model,
        model_args=_model_args(args.model_arg),
        log_dir=args.log_dir,
        limit=args.limit,
        seed=args.seed,
        max_connections=args.max_connections,
    )
    order = {c: i for i, c in enumerate(conditions)}
    rows = sorted(metrics_table(logs), key=lambda r: (r["model"], order.get(r["condition"], 99)))
    preferred = ["model", "condition", "samples", "mean_ideology", "typology_score", "mean_wd_dem", "mean_wd_rep", "pct_closer_dem", "parse_rate", "refusal_rate"]
    columns = [c for c in preferred if any(c in r for r in rows)]
    print()
    print(format_table(rows, columns))
    print(f"\nlogs: {Path(args.log_dir).resolve()}  (inspect view --log-dir {args.log_dir})")
    if not success:
        print("some tasks did not finish; run the same command again to complete them")
        return 1
    return 0

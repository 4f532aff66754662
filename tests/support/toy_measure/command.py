"""The toy measure's own command, `political-sycophancy toy-share LOG_DIR`: the share of
first-option answers per model, read from the logs. The CLI adds it from the declaration."""

from __future__ import annotations

import argparse

from political_sycophancy.core.console import say


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("toy-share", help="share of first-option answers per model (toy measure)")
    p.add_argument("log_dir")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from inspect_ai.log import list_eval_logs, read_eval_log

    for info in list_eval_logs(args.log_dir):
        log = read_eval_log(info)
        values = [s.scores["first_option_score"].value["first"] for s in log.samples or [] if s.scores]
        say(f"{log.eval.model}: {sum(values) / len(values):.2f} of {len(values)} answers pick the first option")
    return 0

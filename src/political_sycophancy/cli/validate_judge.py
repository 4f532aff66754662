"""`political-sycophancy validate-judge`: how well a grader model agrees with human labels.

The labelled file's columns say which grader it is for (each measure declares its graders,
`Measure.judges`, as `shared.judging.JudgeKind`s): the stance judge of the open-ended
measure, the even-handedness grader's per-answer grades and paired judgements. The grader
is run on every labelled answer and the command prints agreement (coverage, accuracy,
macro-F1 and Cohen's kappa, `stats.agreement`) as the judge kind lays it out; `--output`
writes each answer's gold and predicted label and the grader's text.
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path

from ..catalog import declared
from ..core import arguments
from ..core.console import say
from ..core.errors import InputError
from ..shared.judging import JudgeKind

_THRESHOLD = arguments.number(0, 1)


def _thresholds(spec: str) -> tuple[float, ...]:
    """--thresholds: finite numbers from 0 to 1 separated by commas."""
    values = tuple(_THRESHOLD(x) for x in spec.split(",") if x.strip())
    if not values:
        raise argparse.ArgumentTypeError(f"must be numbers from 0 to 1 separated by commas, not {spec}")
    return values


def judge_kinds() -> list[JudgeKind]:
    """Every measure's declared judge kinds, in the catalog's order."""
    return [
        kind for measure in declared() for module in measure.judges for kind in importlib.import_module(module).JUDGES
    ]


def kind_of(path: Path) -> JudgeKind:
    """The judge kind whose columns the labelled file has.

    A file with no such columns is an InputError saying what each kind needs.
    """
    from ..core.io import read_records

    columns: set[str] = set()
    for _, rec in read_records(path):
        columns |= set(rec)
    kinds = judge_kinds()
    found = [k for k in kinds if set(k.columns) <= columns]
    if not found:
        expected = "; ".join(f"{k.name}: {k.description}" for k in kinds)
        raise InputError(
            f"the columns fit no grader (missing column); a labelled file has the columns of one of: {expected}",
            file=path,
        )
    return max(found, key=lambda k: len(k.columns))


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add the `validate-judge` command (a grader against human labels)."""
    p = sub.add_parser(
        "validate-judge",
        help=(
            "check a grader (stance judge, even-handedness grader) against human labels: macro-F1, Cohen's kappa,"
            " coverage"
        ),
        description=(
            "Run a measure's grader on a human-labelled file (its columns say which grader) and report agreement with"
            " the human labels: coverage, accuracy, macro-F1 and Cohen's kappa (per confidence threshold for a judge"
            " with one)."
        ),
    )
    p.add_argument("labelled", help="CSV/TSV/JSONL of human labels, e.g. statement, response, label (stance judge)")
    p.add_argument("--grader", required=True, help="the judge: any Inspect model, e.g. openai/gpt-4o or gguf/smollm2")
    p.add_argument("--model-arg", "-M", action="append", default=[], help="grader model argument key=value")
    p.add_argument(
        "--thresholds",
        type=_thresholds,
        default=None,
        help=(
            "comma-separated confidence thresholds from 0 to 1, for a judge with a confidence (stance judge default: "
            "0,0.5,0.6,0.7,0.8,0.9,0.95)"
        ),
    )
    p.add_argument("--limit", type=arguments.count, default=None, help="only the first N labelled answers")
    p.add_argument(
        "--output",
        default=None,
        help="write each answer's gold label, predicted label and the grader's text to this CSV",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Grade a human-labelled file with the chosen grader and print (and with `--output` write) the agreement."""
    from inspect_ai.model import get_model

    from ..core.atomic import write_atomic
    from ..core.io import distinct_output, output_file
    from ..core.sheet import rows_csv
    from ..shared.eval_options import model_args as _model_args
    from ..shared.eval_options import provider_error

    if args.output:  # refused before the judge runs, not after
        output_file(args.output, "--output")
        distinct_output(args.output, [args.labelled], "--output")
    path = Path(args.labelled)
    kind = kind_of(path)
    if args.thresholds is not None and not kind.thresholds:
        raise InputError(f"--thresholds applies to a grader with a confidence; the {kind.name} states none")
    answers = kind.load(path)
    if args.limit is not None:
        answers = answers[: args.limit]
    model_args = _model_args(args.model_arg)
    try:
        grader = get_model(args.grader, **model_args)
    except InputError:
        raise
    except Exception as ex:  # noqa: BLE001 - a provider that cannot be created is the user's --grader
        raise provider_error("--grader", args.grader, ex) from None
    try:
        result = kind.run(answers, grader, args.thresholds or kind.thresholds)
    except InputError:
        raise
    except Exception as ex:  # noqa: BLE001 - a provider that cannot be called: one line, not a traceback
        raise provider_error("--grader", args.grader, ex, doing="a call to the judge failed: ") from None
    say(f"judge {args.grader} on {len(answers)} {kind.unit} ({args.labelled})")
    for line in result.lines:
        say(line)
    if args.output:
        write_atomic(Path(args.output), rows_csv(list(result.header), result.rows))
        say(f"predictions: {args.output}")
    return 0

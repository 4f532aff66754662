"""`political-sycophancy`: the commands that are not `inspect eval`.

Each command lives in its own module, which exposes `add_parser(subparsers)`; the parser
sets `func`, called with the parsed arguments. Bad input ends with a one-line error
(exit 2), never a traceback (nor does a worker process that died, exit 1, or Ctrl-C,
exit 130): a bad option where it is parsed (the value types of
`core.arguments`), anything else as an `InputError`; so does a failure of the machine (a
full disk, an unwritable folder), whose outputs are then either complete or absent. Every
command prints through `console.say`, which makes control characters from the data
visible instead of running them.
"""

from __future__ import annotations

import argparse
import importlib
import signal
import sys

from ..catalog import declared
from ..core.console import PROG, Parser, UsageError, error_line, say
from ..core.errors import InputError, Interrupted, WorkerDied

# The commands that are not a measure's (each module has add_parser(subparsers)); a
# measure's own commands come from its declaration (`Measure.commands`), before these.
COMMAND_MODULES = (
    "political_sycophancy.cli.plan",
    "political_sycophancy.cli.atp",
    "political_sycophancy.cli.import_items",
    "political_sycophancy.cli.pools",
    "political_sycophancy.cli.analyze",
    "political_sycophancy.cli.import_responses",
    "political_sycophancy.cli.validate_judge",
)


def build_parser() -> argparse.ArgumentParser:
    """The `political-sycophancy` parser: the measures' commands, then those of `COMMAND_MODULES`."""
    parser = Parser(
        prog="political-sycophancy",
        description="Audit the political bias of language models across the people who might be asking.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in [*(c for measure in declared() for c in measure.commands), *COMMAND_MODULES]:
        importlib.import_module(name).add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; every way it can end but success is one line on stderr and an exit code.

    Bad input or a failing machine 2, a worker process that died 1, Ctrl-C 130 (and
    SIGTERM, where a command takes it as Ctrl-C, 143).
    """
    try:
        return _run(argv)
    except KeyboardInterrupt as ex:  # Ctrl-C: one line, no traceback; a command leaves what it writes whole
        signum = ex.signum if isinstance(ex, Interrupted) else signal.SIGINT
        say(f"{PROG}: interrupted ({'Ctrl-C' if signum == signal.SIGINT else signal.Signals(signum).name})", err=True)
        return 128 + int(signum)


def _run(argv: list[str] | None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as ex:  # the one-line message is printed
        return int(ex.code or 2)
    try:
        result = args.func(args)
    except InputError as ex:
        error_line(ex)
        return 2
    except WorkerDied as ex:  # killed, out of memory: not the input, and nothing of the work was kept
        error_line(ex)
        return 1
    except OSError as ex:  # the machine, not the input: a full disk, a folder that vanished
        where = f": {ex.filename}" if ex.filename else ""
        error_line(f"{ex.strerror or ex}{where}")
        return 2
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())

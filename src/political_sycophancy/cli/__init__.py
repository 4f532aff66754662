"""`political-sycophancy`: the commands that are not `inspect eval`.

Each command lives in its own module, which exposes `add_parser(subparsers)`; the parser
sets `func`, called with the parsed arguments. Bad input ends with a one-line error
(exit 2), never a traceback; so does a failure of the machine (a full disk, an unwritable
folder), whose outputs are then either complete or absent.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from ..core.errors import InputError

# Modules that contribute subcommands (each has add_parser(subparsers)).
COMMAND_MODULES = [
    "political_sycophancy.cli.audit",
    "political_sycophancy.cli.plan",
    "political_sycophancy.cli.validate_judge",
    "political_sycophancy.cli.atp",
    "political_sycophancy.cli.import_items",
    "political_sycophancy.cli.pools",
    "political_sycophancy.cli.analyze",
    "political_sycophancy.cli.import_responses",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="political-sycophancy",
        description="Audit the political bias of language models across the people who might be asking.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        result = args.func(args)
    except InputError as ex:
        print(f"political-sycophancy: error: {ex}", file=sys.stderr)
        return 2
    except OSError as ex:  # the machine, not the input: a full disk, a folder that vanished
        where = f": {ex.filename}" if ex.filename else ""
        print(f"political-sycophancy: error: {ex.strerror or ex}{where}", file=sys.stderr)
        return 2
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())

"""`political-sycophancy atp build`: ATP items and benchmarks from Pew `.sav` files."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..core.console import say


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add the `atp` command and its `build` action (ATP items and benchmarks from Pew's .sav files)."""
    p = sub.add_parser(
        "atp",
        help="build ATP items and partisan benchmarks from Pew American Trends Panel .sav files",
        description="Pew American Trends Panel instruments from Pew's own .sav files.",
    )
    actions = p.add_subparsers(dest="atp_command", required=True, metavar="ACTION")
    b = actions.add_parser(
        "build",
        help="write an ATP instrument file (and a report of every excluded variable)",
        description="Read ATP wave .sav files (value labels, variable labels, missing codes) and write an item file "
        "with overall, Democrat (F_PARTYSUM_FINAL=2) and Republican (=1) benchmark distributions, weighted by "
        "WEIGHT_W<wave> unless --unweighted, plus a Markdown report of every exclusion and flag.",
    )
    b.add_argument("--sav", nargs="+", required=True, help=".sav files or directories holding them")
    b.add_argument("--out", required=True, help="item file to write (.csv)")
    b.add_argument(
        "--unweighted",
        action="store_true",
        help="count raw respondents, as the first seed did (default: survey weights)",
    )
    b.add_argument(
        "--groups",
        action="append",
        default=[],
        metavar="VAR[:code=name,...]",
        help="extra benchmark groups from a categorical variable, e.g. F_IDEO or F_AGECAT:1=young,2=older (repeatable)",
    )
    b.add_argument("--report", default=None, help="report file (default: <out stem>.report.md next to --out)")
    b.set_defaults(func=run_build)


def run_build(args: argparse.Namespace) -> int:
    """Write an ATP item file and its exclusion report from .sav files, refusing outputs that replace inputs."""
    from ..core.errors import InputError
    from ..core.io import distinct_output, output_file
    from ..core.items import load_items
    from ..pew.sav import build_atp, sav_files

    if Path(args.out).suffix.lower() != ".csv":
        raise InputError(f"--out {args.out}: the item file is written as CSV; name it <name>.csv")
    output_file(args.out, "--out")
    inputs = sav_files(args.sav)
    distinct_output(args.out, inputs, "--out")
    if args.report:
        output_file(args.report, "--report")
        distinct_output(args.report, [*inputs, args.out], "--report")
    out, report = build_atp(args.sav, args.out, unweighted=args.unweighted, groups=args.groups, report_path=args.report)
    items = load_items(out, instrument="atp")
    groups = sorted({g for i in items for g in i.benchmarks})
    say(f"{len(items)} items with benchmarks ({', '.join(groups)}) -> {out}")
    say(f"exclusions and flags: {report}")
    return 0

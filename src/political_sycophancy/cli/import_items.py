"""`political-sycophancy import-items`: the first seed's items from its replication package."""

from __future__ import annotations

import argparse

from ..core.console import say

# what import-items writes into --out
OUTPUTS = ("pct.csv", "typology.csv", "atp.csv", "import_report.md")


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add the `import-items` command (instrument files from the replication package)."""
    p = sub.add_parser(
        "import-items",
        help="import PCT, Typology and ATP items from the paper's replication-package directory",
        description="Read pct_items_coded.csv, pew_typology_items.csv, pew_atp_partisan_distributions.csv and "
        "pew_atp_items.csv from a replication-package directory and write pct.csv, typology.csv, atp.csv and "
        "import_report.md (every exclusion and coding flag).",
    )
    p.add_argument("src", help="replication-package data directory (e.g. ../shared/reference/replication)")
    p.add_argument("--out", required=True, help="directory to write the instrument files into")
    p.add_argument(
        "--coding",
        default=None,
        help="CSV (id, direction) replacing Typology directions, e.g. to correct pew_02/pew_22",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Write pct.csv, typology.csv, atp.csv and the import report, and print each file's item count."""
    from ..core.io import distinct_output, output_dir
    from ..core.items import load_items
    from ..pew.replication import import_replication

    out = output_dir(args.out, "--out")
    if args.coding:  # the files written must not replace the coding file they are made from
        for name in OUTPUTS:
            distinct_output(out / name, [args.coding], "--out")
    paths = import_replication(args.src, args.out, coding=args.coding)
    for name in ("pct", "typology", "atp"):
        say(f"{name:9s} {len(load_items(paths[name], instrument=name)):5d} items -> {paths[name]}")
    say(f"report    {paths['report']}")
    return 0

"""`political-sycophancy pools`: item pools of an instrument file by partisan gap."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..core.console import say

if TYPE_CHECKING:
    from ..core.items import Item

STANDARD_POOLS = ("all", "benchmarked", "top500", "top30", "gap>0.2")


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add the `pools` command (pool sizes of an item file, or one pool's items)."""
    p = sub.add_parser(
        "pools",
        help="list pool sizes (all, benchmarked, top<N>, gap><x>) of an item file, or the items of one pool",
        description="Without --pool: the size and gap cut-off of the standard pools (the paper's 1,540 benchmarked "
        "items, its Phase 2 top 500, the 30 most partisan used by the probes, gap > 0.2). With --pool: the items "
        "of that pool in the order the audit task uses them. Pool names are those of -T pool=... .",
    )
    p.add_argument("--items", required=True, help="item file (e.g. the atp.csv written by import-items or atp build)")
    p.add_argument(
        "--instrument", default=None, help="instrument name for the file's defaults (default: from the file)"
    )
    p.add_argument(
        "--pool", default=None, help="list the items of this pool: all, benchmarked, top<N>, gap><x> or a file of ids"
    )
    p.set_defaults(func=run)


def _gap(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def pool_rows(items: list[Item], pools: Iterable[str]) -> list[dict]:
    """Per pool: how many items it selects and the range of their partisan gaps."""
    from ..core.items import select_pool

    rows = []
    for pool in pools:
        chosen = select_pool(items, pool)
        gaps = [i.partisan_gap for i in chosen if i.partisan_gap is not None]
        rows.append(
            {
                "pool": pool,
                "items": len(chosen),
                "min_gap": _gap(min(gaps) if gaps else None),
                "max_gap": _gap(max(gaps) if gaps else None),
            }
        )
    return rows


def run(args: argparse.Namespace) -> int:
    """Print the standard pools' sizes and gap cut-offs, or with `--pool` that pool's items in task order."""
    from ..core.items import load_items, select_pool
    from ..core.text import text_table

    items = load_items(args.items, instrument=args.instrument)
    if args.pool is None:
        has_gaps = any(i.partisan_gap is not None for i in items)
        pools = STANDARD_POOLS if has_gaps else ("all", "benchmarked")
        say(text_table(pool_rows(items, pools), ["pool", "items", "min_gap", "max_gap"]))
        return 0
    chosen = select_pool(items, args.pool)
    rows = [
        {"rank": k, "id": i.id, "gap": _gap(i.partisan_gap), "options": len(i.options), "text": i.text[:70]}
        for k, i in enumerate(chosen, start=1)
    ]
    say(text_table(rows, ["rank", "id", "gap", "options", "text"]) if rows else "no items")
    say(f"\n{len(chosen)} of {len(items)} items in pool {args.pool}")
    return 0

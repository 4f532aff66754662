"""Throughput of `import-responses`.

Rows per second on a synthetic response file of the first seed's Phase 2 shape (models x 6
conditions x 587 items: 500 ATP + 62 PCT + 25 Typology; 6 models = 21,132 rows), against the
1,500 rows/s goal. `--profile` prints the top of a cProfile.

    python bench/import_throughput.py [--models 6] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import tempfile
import time
from pathlib import Path

GOAL = 1500.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--models", type=int, default=6)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    from political_sycophancy.audit.simulate import synthetic_responses, write_atp_items, write_typology_items
    from political_sycophancy.core.conditions import PHASE2
    from political_sycophancy.core.items import builtin_path, load_items, select_pool
    from political_sycophancy.logs.importer import import_responses

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        atp_file = write_atp_items(root / "atp.csv", 1556, seed=1)
        typ_file = write_typology_items(root / "typology.csv", 25, seed=1)
        pct = load_items(builtin_path("pct.csv"), instrument="pct")
        pool = (
            select_pool(load_items(atp_file, instrument="atp"), "top500")
            + pct
            + load_items(typ_file, instrument="typology")
        )
        models = [f"bench/model-{k:02d}" for k in range(args.models)]
        frame = synthetic_responses(pool, models, list(PHASE2), refusal_rate=0.03, seed=2)
        path = root / "responses.csv"
        frame.to_csv(path, index=False)
        files = [atp_file, typ_file, builtin_path("pct.csv")]
        profiler = cProfile.Profile() if args.profile else None
        start = time.perf_counter()
        if profiler:
            profiler.enable()
        result = import_responses(path, files, root / "logs")
        if profiler:
            profiler.disable()
        seconds = time.perf_counter() - start
        print(
            f"{len(frame):,} rows -> {result.samples:,} samples in {len(result.logs)} logs: {seconds:.1f} s, "
            f"{result.samples / seconds:,.0f} rows/s (goal >= {GOAL:,.0f} rows/s)"
        )
        if profiler:
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)


if __name__ == "__main__":
    main()

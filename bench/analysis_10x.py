"""`political-sycophancy analyze` on synthetic logs of ten times the first seed's size.

The logs come from `bench/analysis_scale.py`'s generator with ten times the models
(60 models instead of 6): 10 x (21,132 Phase 2 + 9,858 Phase 1) = 309,900 samples, written
as real Inspect `.eval` logs by the response importer. The analysis then runs cold (no
frame cache) and warm (cache present), each in a fresh process; the script prints seconds
and peak resident memory of each and whether the peak stayed under the 4 GiB budget.

    python bench/analysis_10x.py [--dir /tmp/ps-10x] [--keep]

With `--dir` an existing set of logs is reused (writing them takes the longest).
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from analysis_scale import analyze, write_logs  # noqa: E402

SCALE = 10
BUDGET_MB = 4096


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", default=None, help="working directory (default: a temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep the logs and reports")
    args = parser.parse_args()
    root = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="ps-10x-"))
    logs = root / "logs"
    if logs.exists() and any(logs.glob("*.eval")):
        print(f"reusing {len(list(logs.glob('*.eval')))} logs in {logs}")
    else:
        samples, seconds = write_logs(root, SCALE)
        print(f"wrote {samples:,} samples in {len(list(logs.glob('*.eval')))} logs ({seconds:.0f}s import)")
    size = sum(p.stat().st_size for p in logs.glob("*.eval"))
    print(f"log size on disk: {size / 2**20:.0f} MiB")
    shutil.rmtree(logs / ".political-sycophancy-cache", ignore_errors=True)
    for label, out in (("cold", "report-cold"), ("warm", "report-warm")):
        started = time.perf_counter()
        line = analyze(root, out)
        peak = float(re.search(r"peak_mb=(\d+)", line).group(1))
        verdict = "within" if peak <= BUDGET_MB else "OVER"
        print(
            f"{label}: {line.removeprefix('BENCH ')} (wall {time.perf_counter() - started:.0f}s incl. start-up; "
            f"peak {peak / 1024:.2f} GiB, {verdict} the {BUDGET_MB // 1024} GiB budget)"
        )
    if not args.keep and not args.dir:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()

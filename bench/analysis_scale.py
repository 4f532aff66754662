"""Time `political-sycophancy analyze` on synthetic logs of the first seed's size.

Writes (with the response importer, so these are real Inspect .eval logs):
  Phase 2: 6 models x 6 conditions x 587 items (500 ATP + 62 PCT + 25 Typology) = 21,132 samples
  Phase 1: 6 models x 1,643 items (1,556 ATP + 62 PCT + 25 Typology) under N        =  9,858 samples
(the Phase 1 N samples of the 587 Phase 2 items are the same cells as Phase 2's N and are
counted once by the analysis, as any repeated run is). Then runs `analyze` cold (no frame
cache) and warm (cache present), each in a fresh process and with `--no-reuse` (the frame
cache is measured, not the stored analysis), and prints seconds and peak
resident memory. `--scale k` multiplies the number of models.

    python bench/analysis_scale.py [--dir /tmp/ps-bench] [--scale 1] [--keep]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNNER = """
import resource, sys, time
t = time.perf_counter()
from political_sycophancy.cli import main
rc = main(sys.argv[1:])
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"BENCH seconds={time.perf_counter() - t:.2f} peak_mb={peak_mb:.0f} rc={rc}")
"""


def write_logs(root: Path, scale: int) -> tuple[int, float]:

    from political_sycophancy.audit.simulate import synthetic_responses, write_atp_items, write_typology_items
    from political_sycophancy.core.conditions import PHASE2
    from political_sycophancy.core.items import builtin_path, load_items, select_pool
    from political_sycophancy.logs.importer import import_responses

    items_dir = root / "items"
    items_dir.mkdir(parents=True, exist_ok=True)
    atp_file = write_atp_items(items_dir / "atp.csv", 1556, seed=1)
    typ_file = write_typology_items(items_dir / "typology.csv", 25, seed=1)
    atp = load_items(atp_file, instrument="atp")
    pct = load_items(builtin_path("pct.csv"), instrument="pct")
    typ = load_items(typ_file, instrument="typology")
    models = [f"bench/model-{k:02d}" for k in range(6 * scale)]
    leans = {m: 0.55 + 0.03 * (k % 6) for k, m in enumerate(models)}
    shifts = {"C3L": 0.05, "C1L": 0.03, "CA": 0.0, "C1R": -0.15, "C3R": -0.4}
    pool = select_pool(atp, "top500") + pct + typ
    phase2 = synthetic_responses(
        pool,
        models,
        list(PHASE2),
        atp_lean=leans,
        atp_shift=shifts,
        pct_shift={"C3R": 1.0, "C1R": 0.4, "C3L": -0.2},
        refusal_rate=0.03,
        seed=2,
    )
    phase1 = synthetic_responses(atp + pct + typ, models, ["N"], atp_lean=leans, refusal_rate=0.05, seed=3)
    files = [atp_file, typ_file, builtin_path("pct.csv")]
    started = time.perf_counter()
    total = 0
    for name, frame in (("phase1", phase1), ("phase2", phase2)):
        path = root / f"{name}.csv"
        frame.to_csv(path, index=False)
        total += import_responses(path, files, root / "logs").samples
    return total, time.perf_counter() - started


def analyze(root: Path, out: str) -> str:
    cmd = [sys.executable, "-c", RUNNER, "analyze", str(root / "logs"), "--out", str(root / out), "--no-reuse"]
    run = subprocess.run(cmd, capture_output=True, text=True)
    line = next((ln for ln in run.stdout.splitlines() if ln.startswith("BENCH")), "")
    if not line:
        sys.stderr.write(run.stdout[-3000:] + run.stderr[-3000:])
        raise SystemExit("analyze did not finish")
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", default=None, help="working directory (default: a temporary one)")
    parser.add_argument(
        "--scale", type=int, default=1, help="multiply the number of models (default 1 = the paper's six)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the logs and reports")
    args = parser.parse_args()
    root = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="ps-bench-"))
    if (root / "logs").exists() and any((root / "logs").glob("*.eval")):
        samples = None
        print(f"reusing logs in {root / 'logs'}")
    else:
        samples, seconds = write_logs(root, args.scale)
        print(f"wrote {samples:,} samples in {len(list((root / 'logs').glob('*.eval')))} logs ({seconds:.0f}s import)")
    shutil.rmtree(root / "logs" / ".political-sycophancy-cache", ignore_errors=True)
    cold = analyze(root, "report-cold")
    warm = analyze(root, "report-warm")
    print(f"cold: {cold.removeprefix('BENCH ')}")
    print(f"warm: {warm.removeprefix('BENCH ')}")
    if not args.keep and not args.dir:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()

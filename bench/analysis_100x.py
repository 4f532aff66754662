"""The 100x grid analysed cold on this machine: time and peak memory against a 4 GiB budget.

The grid is `bench/speed_table.py`'s 10x grid at a hundred copies: the N, C3L and C3R
cells of the first seed's `phase2_alignment_by_condition.csv` copied to 600 models with
10 % of the letters perturbed (900,000 responses). The script imports it with
`import-responses` (rows per second printed), then runs a cold `analyze` (no frame cache,
no stored analysis) in a fresh process and prints its wall and CPU seconds and peak
resident memory (GNU time's maximum RSS). With --paper-repo (a checkout of
github.com/cssmodels/biasissycophancy) the paper's `analyze_phase2.py` runs on the same
grid right after, for the ratio.

    python bench/analysis_100x.py [--reference DIR] [--dir WORK] [--paper-repo DIR]

With --dir an existing grid, items and logs are reused (the import takes minutes).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from speed_table import cli, gib, paper_script, paper_workspace, ratio, ten_x_grid, timed  # noqa: E402

COPIES = 100
BUDGET_GIB = 4.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--reference", default=os.environ.get("POLITICAL_SYCOPHANCY_REFERENCE", "../shared/reference/replication")
    )
    parser.add_argument("--dir", default=None, help="working directory (default: a temporary one; reused when given)")
    parser.add_argument(
        "--paper-repo", default=None, help="a checkout of github.com/cssmodels/biasissycophancy (its code/ and data/)"
    )
    args = parser.parse_args()
    reference = Path(args.reference)
    if not (reference / "phase2_alignment_by_condition.csv").exists():
        raise SystemExit(f"bench/analysis_100x.py: replication data not found at {reference} (pass --reference)")
    repo = Path(args.paper_repo) if args.paper_repo else None
    if repo is not None and not (repo / "code" / "analyze_phase2.py").exists():
        raise SystemExit(
            f"bench/analysis_100x.py: {repo} is not a checkout of the paper's repository (no code/analyze_phase2.py)"
        )
    work = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="ps-100x-"))
    work.mkdir(parents=True, exist_ok=True)
    items = work / "items"
    if not (items / "atp.csv").exists():
        timed(cli("import-items", str(reference), "--out", str(items)))
    grid_file = work / f"grid{COPIES}x.csv"
    if not grid_file.exists():
        ten_x_grid(reference, items, work, copies=COPIES)
    rows = sum(1 for _ in grid_file.open()) - 1
    logs = work / "logs"
    if not any(logs.glob("*.eval")):
        imp = timed(
            cli(
                "import-responses",
                str(grid_file),
                "--items",
                *map(str, sorted(items.glob("*.csv"))),
                "--log-dir",
                str(logs),
                "--use-source-letters",
            )
        )
        print(
            f"import: {rows:,} rows in {imp[0]:.0f} s ({rows / imp[0]:,.0f} rows/s; CPU {imp[1]:.0f} s), peak"
            f" {gib(imp[2])}"
        )
    else:
        print(f"import: logs reused from {logs}")
    shutil.rmtree(logs / ".political-sycophancy-cache", ignore_errors=True)
    store = work / "analysis-store"
    shutil.rmtree(store, ignore_errors=True)
    wall, cpu, peak, _ = timed(
        cli("analyze", str(logs), "--out", str(work / "report")), env={"POLITICAL_SYCOPHANCY_CACHE": str(store)}
    )
    reference_run = None
    if repo is not None:
        reference_run = paper_script(paper_workspace(repo, reference, grid_file, work), "analyze_phase2.py")
    verdict = "unknown (no GNU time)" if peak is None else ("within" if peak <= BUDGET_GIB else "OVER")
    print(
        f"100x grid ({rows:,} responses, {len(list(logs.glob('*.eval'))):,} logs): cold analyze {wall:.0f} s "
        f"(CPU {cpu:.0f} s){ratio(wall, reference_run)}, peak {gib(peak)}: {verdict} the {BUDGET_GIB:.0f} GiB budget"
    )
    if reference_run is not None:
        print(
            f"analyze_phase2.py on the same grid: {reference_run[0]:.0f} s (CPU {reference_run[1]:.0f} s), peak"
            f" {gib(reference_run[2])}"
        )
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if not args.dir:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

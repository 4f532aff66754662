"""Print issue 16's speed table: every row measured here, beside its reference and goal.

Rows (each measured in a fresh process; seconds are wall time, CPU seconds beside them
because a busy machine inflates wall time):
  1. Phase 1 analysis: the first seed's 9,858 responses (results_phase1.csv, imported with
     the paper's letters) analysed cold (no frame cache, no stored analysis), warm (the
     same command again: the stored analysis is copied, report/reuse.py) and warm with
     --no-reuse (frame cache present, every statistic computed again).
  2. 10x grid analysis: the N/C3L/C3R cells of phase2_alignment_by_condition.csv
     (9,000 responses) copied to 60 models with 10 % of the letters perturbed
     (90,000 responses), cold and warm, with peak resident memory.
  3. Import throughput: rows per second of `import-responses` on that 90,000-row file.
  4. `political-sycophancy --help`.
  5. The README's main job, only with --main-job (it runs the embedded model for minutes).

The paper's own scripts (analyze_phase1.py, analyze_phase2.py) are the reference where
they exist: fetching them is the user's step (--paper-scripts DIR); without them the
figures measured when the issue was filed are printed as the reference and marked so.

    python bench/speed_table.py [--reference DIR] [--dir WORK] [--paper-scripts DIR] [--main-job]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

# What the issue measured on this machine when it was filed (reference when the paper's
# scripts are absent) and the goals it sets.
FILED = {
    "phase1": {"paper": 7.2, "cold": 11.3, "warm": 8.5},
    "grid": {"paper": 67.5, "cold": 51.6, "warm": 44.3, "peak_gib": 1.39},
    "import_rows_per_s": 345,
    "help": 3.2,
    "main_job_min": 7.5,
}
GOALS = {"phase1_cold": 1.0, "phase1_warm": 0.1, "grid_cold": 1.0, "grid_warm": 0.2, "grid_peak_gib": 2.0,
         "import_rows_per_s": 1500, "help": 1.0, "main_job_min": 3.0}


def timed(cmd: list[str], env: dict | None = None) -> tuple[float, float, float | None, subprocess.CompletedProcess]:
    """Run a command; wall seconds, CPU seconds and peak RSS in GiB (through GNU time when
    it is installed, else None) of that command alone."""
    gnu_time = Path("/usr/bin/time").exists()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    full = ["/usr/bin/time", "-f", "PEAKKB %M", *cmd] if gnu_time else cmd
    run = subprocess.run(full, capture_output=True, text=True, env={**os.environ, **(env or {})})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if run.returncode != 0:
        sys.stderr.write(run.stdout[-2000:] + run.stderr[-2000:])
        raise SystemExit(f"failed: {' '.join(cmd)}")
    line = next((ln for ln in run.stderr.splitlines() if ln.startswith("PEAKKB")), None)
    return wall, cpu, (int(line.split()[1]) / 1024 / 1024 if line else None), run


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "political_sycophancy.cli", *args]


def ten_x_grid(reference: Path, items: Path, out: Path, seed: int = 0) -> Path:
    """The 90,000-response file: N/C3L/C3R cells of the Phase 2 table, 10 copies of each
    model, 10 % of letters replaced by another option of the same item."""
    table = pd.read_csv(reference / "phase2_alignment_by_condition.csv")
    table = table[table["condition"].isin(["N", "C3L", "C3R"])]
    # the cells the table does not list (the paper's parse failures) are responses without a letter
    keys = ["model_label", "question_id", "condition"]
    cells = pd.MultiIndex.from_product([sorted(table[k].unique()) for k in keys], names=keys)
    table = table.set_index(keys).reindex(cells).reset_index()
    table["llm_dist"] = table["llm_dist"].fillna("[]")
    dists = table["llm_dist"].map(json.loads)
    n_options = dists.map(len).to_numpy()
    letters = dists.map(lambda d: int(np.argmax(d)) if d else 0).to_numpy()
    rng = np.random.default_rng(seed)
    frames = []
    for copy in range(10):
        chosen = letters.copy()
        flip = rng.random(len(chosen)) < 0.10
        shift = rng.integers(1, np.maximum(n_options, 2))
        chosen[flip] = (chosen[flip] + shift[flip]) % np.maximum(n_options[flip], 1)
        text = np.where(n_options > 0, np.array(list("ABCDEFGHIJ"))[chosen], "")
        frames.append(pd.DataFrame({
            "model_id": table["model_label"].to_numpy() + f" #{copy}", "question_id": table["question_id"].to_numpy(),
            "condition": table["condition"].to_numpy(), "raw_response": text, "letter": text, "rep": 0, "temperature": 1.0,
        }))
    path = out / "grid10x.csv"
    pd.concat(frames, ignore_index=True).to_csv(path, index=False)
    return path


def paper_script(scripts: Path | None, name: str, reference: Path) -> float | None:
    if scripts is None or not (scripts / name).exists():
        return None
    wall, _, _, _ = timed([sys.executable, str(scripts / name)], env={"REPLICATION_DIR": str(reference)})
    return wall


def row(work: str, reference: str, ours: str, goal: str) -> str:
    return f"| {work} | {reference} | {ours} | {goal} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reference", default=os.environ.get("POLITICAL_SYCOPHANCY_REFERENCE", "../shared/reference/replication"))
    parser.add_argument("--dir", default=None, help="working directory (default: a temporary one; reused when given)")
    parser.add_argument("--paper-scripts", default=None, help="folder with the paper's analyze_phase1.py / analyze_phase2.py")
    parser.add_argument("--main-job", action="store_true", help="also time the README's main job (minutes)")
    args = parser.parse_args()
    reference = Path(args.reference)
    if not (reference / "results_phase1.csv").exists():
        raise SystemExit(f"bench/speed_table.py: replication data not found at {reference} (pass --reference)")
    work = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="ps-speed-"))
    work.mkdir(parents=True, exist_ok=True)
    scripts = Path(args.paper_scripts) if args.paper_scripts else None
    items = work / "items"
    # stored analyses (report/reuse.py) in the work folder, emptied before each cold run
    store = work / "analysis-store"
    store_env = {"POLITICAL_SYCOPHANCY_CACHE": str(store)}
    if not (items / "atp.csv").exists():
        timed(cli("import-items", str(reference), "--out", str(items)))
    item_files = [str(p) for p in sorted(items.glob("*.csv"))]
    lines = []

    # 1. Phase 1
    p1 = work / "phase1"
    if not any(p1.glob("*.eval")):
        timed(cli("import-responses", str(reference / "results_phase1.csv"), "--items", *item_files,
                  "--log-dir", str(p1), "--use-source-letters", "--skip-unknown"))
    cache = p1 / ".political-sycophancy-cache"
    subprocess.run(["rm", "-rf", str(cache), str(store)], check=True)
    cold = timed(cli("analyze", str(p1), "--out", str(work / "p1")), env=store_env)
    warm = timed(cli("analyze", str(p1), "--out", str(work / "p1")), env=store_env)
    recomputed = timed(cli("analyze", str(p1), "--out", str(work / "p1-recomputed"), "--no-reuse"), env=store_env)
    ref1 = paper_script(scripts, "analyze_phase1.py", reference)
    ref1_text = f"`analyze_phase1.py` {ref1:.1f} s" if ref1 else f"`analyze_phase1.py` {FILED['phase1']['paper']} s (filed; script absent)"
    base1 = ref1 or FILED["phase1"]["paper"]
    lines.append(row("Phase 1 (9,858 responses): analysis", ref1_text,
                     f"cold {cold[0]:.1f} s ({cold[0] / base1:.2f}x, CPU {cold[1]:.1f} s), warm {warm[0]:.2f} s ({warm[0] / base1:.2f}x, CPU {warm[1]:.2f} s); "
                     f"warm with --no-reuse {recomputed[0]:.1f} s ({recomputed[0] / base1:.2f}x)",
                     f"cold <= {GOALS['phase1_cold']}x, warm <= {GOALS['phase1_warm']}x"))

    # 2 and 3. The 10x grid and its import
    grid_logs = work / "grid10x"
    grid_file = work / "grid10x.csv"
    if not grid_file.exists():
        ten_x_grid(reference, items, work)
    rows = len(pd.read_csv(grid_file, usecols=["model_id"]))
    if not any(grid_logs.glob("*.eval")):
        imp = timed(cli("import-responses", str(grid_file), "--items", *item_files, "--log-dir", str(grid_logs), "--use-source-letters"))
        import_text = f"{rows:,} rows in {imp[0]:.0f} s ({rows / imp[0]:,.0f} rows/s; CPU {imp[1]:.0f} s, {rows / imp[1]:,.0f} rows/CPU-s)"
    else:
        import_text = "(logs reused: run without --dir to measure)"
    subprocess.run(["rm", "-rf", str(grid_logs / ".political-sycophancy-cache"), str(store)], check=True)
    gcold = timed(cli("analyze", str(grid_logs), "--out", str(work / "grid")), env=store_env)
    gpeak = max((p for p in (gcold[2],) if p is not None), default=None)
    gwarm = timed(cli("analyze", str(grid_logs), "--out", str(work / "grid")), env=store_env)
    grecomputed = timed(cli("analyze", str(grid_logs), "--out", str(work / "grid-recomputed"), "--no-reuse"), env=store_env)
    ref2 = paper_script(scripts, "analyze_phase2.py", reference)
    ref2_text = f"`analyze_phase2.py` {ref2:.1f} s" if ref2 else f"`analyze_phase2.py` {FILED['grid']['paper']} s (filed; script absent)"
    base2 = ref2 or FILED["grid"]["paper"]
    peak_text = f", peak {gpeak:.2f} GiB (cold), {gwarm[2]:.2f} GiB (warm)" if gpeak is not None and gwarm[2] is not None else ""
    ours = (f"cold {gcold[0]:.1f} s ({gcold[0] / base2:.2f}x, CPU {gcold[1]:.1f} s), "
            f"warm {gwarm[0]:.2f} s ({gwarm[0] / base2:.3f}x, CPU {gwarm[1]:.2f} s){peak_text}; "
            f"warm with --no-reuse {grecomputed[0]:.1f} s ({grecomputed[0] / base2:.2f}x)")
    lines.append(row(f"10x grid ({rows:,} responses): analysis", ref2_text, ours,
                     f"cold <= {GOALS['grid_cold']}x, warm <= {GOALS['grid_warm']}x, peak <= {GOALS['grid_peak_gib']} GiB"))
    lines.append(row("import of a response file", f"filed: {FILED['import_rows_per_s']} rows/s", import_text, f">= {GOALS['import_rows_per_s']:,} rows/s"))

    # 4. --help
    helps = [timed(["political-sycophancy", "--help"]) for _ in range(3)]
    best = min(helps, key=lambda h: h[0])
    ours = f"{best[0]:.2f} s wall, {best[1]:.2f} s CPU (best of 3)"
    lines.append(row("`political-sycophancy --help`", f"filed: {FILED['help']} s CPU", ours, f"<= {GOALS['help']} s"))

    # 5. main job
    if args.main_job:
        repo = Path(__file__).resolve().parent.parent
        job = timed(["bash", str(repo / "scripts" / "audit.sh")], env={"LOG_DIR": str(work / "main-job-logs"), "REPORT_DIR": str(work / "main-job-report")})
        ours = f"{job[0] / 60:.1f} min (CPU {job[1] / 60:.1f} min)"
        lines.append(row("the README's main job", f"filed: {FILED['main_job_min']} min", ours, f"<= {GOALS['main_job_min']} min"))
    else:
        lines.append(row("the README's main job", f"filed: {FILED['main_job_min']} min", "not run (pass --main-job)", f"<= {GOALS['main_job_min']} min"))

    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("| work | reference | ours | goal |\n| --- | --- | --- | --- |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

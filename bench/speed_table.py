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

The cold rows are `--repeats` (default 3) pairs of our command and the paper's script, run
one after the other; their medians are compared and each pair's ratio printed (this
machine's speed drifts by a quarter within minutes, so one run of each says little).
The reference is the paper's own scripts, run here in the same run on the same data:
--paper-repo is a checkout of its public replication repository
(`git clone https://github.com/cssmodels/biasissycophancy`); its code/analyze_phase1.py and
code/analyze_phase2.py run on a scratch copy of its data/ folder holding the same
results_phase1.csv and a results_phase2.csv of the same 10x grid our analysis reads.
Without --paper-repo the rows have no reference (no figure filed earlier is quoted).

    python bench/speed_table.py --paper-repo DIR [--reference DIR] [--dir WORK] [--repeats N] [--main-job]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

CHANGED_BOOTSTRAP = "999"  # a bootstrap option other than the default: what a researcher changes
# The goals the speed issues set (ratios are ours over the paper's script in the same run).
GOALS = {
    "phase1_cold": 1.0,
    "phase1_warm": 0.1,
    "grid_cold": 1.0,
    "grid_warm": 0.2,
    "grid_peak_gib": 2.0,
    "import_rows_per_s": 5000,
    "help": 1.0,
    "main_job_min": 3.0,
}


def timed(cmd: list[str], env: dict | None = None) -> tuple[float, float, float | None, subprocess.CompletedProcess]:
    """Run a command and measure its wall seconds, CPU seconds and peak RSS alone.

    Run a command; wall seconds, CPU seconds and peak RSS in GiB (through GNU time when it
    is installed, else None) of that command alone.
    """
    gnu_time = Path("/usr/bin/time").exists()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    full = ["/usr/bin/time", "-f", "PEAKKB %M", *cmd] if gnu_time else cmd
    # Python's default bytecode cache, as on a user's machine, for ours and the paper's scripts
    # alike (a shell with PYTHONDONTWRITEBYTECODE compiles our sources at every start)
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    run = subprocess.run(full, capture_output=True, text=True, env={**base, **(env or {})})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if run.returncode != 0:
        sys.stderr.write(run.stdout[-2000:] + run.stderr[-2000:])
        raise SystemExit(f"failed: {' '.join(cmd)}")
    line = next((ln for ln in run.stderr.splitlines() if ln.startswith("PEAKKB")), None)
    return wall, cpu, (int(line.split()[1]) / 1024 / 1024 if line else None), run


def medians(runs: list) -> tuple[float, float, float | None]:
    """Median wall and CPU seconds of runs, and their largest peak."""
    peaks = [r[2] for r in runs if r[2] is not None]
    return float(np.median([r[0] for r in runs])), float(np.median([r[1] for r in runs])), max(peaks) if peaks else None


def median_run(cmd: list[str], env: dict, repeats: int) -> tuple[float, float, float | None]:
    """Medians (wall, CPU; the largest peak) of `repeats` runs of a command."""
    return medians([timed(cmd, env=env)[:3] for _ in range(repeats)])


def changed_bootstrap(command, env: dict, repeats: int) -> tuple[float, float, float | None]:
    """Medians of `repeats` warm runs, each with a --bootstrap no run before used (999, 998, ...).

    Every one is a changed option, not a stored analysis copied.
    """
    return medians([timed(command(str(int(CHANGED_BOOTSTRAP) - k)), env=env)[:3] for k in range(repeats)])


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "political_sycophancy.cli", *args]


def ten_x_grid(reference: Path, items: Path, out: Path, seed: int = 0, copies: int = 10) -> Path:
    """The 90,000-response file: ten copies of each model's N/C3L/C3R cells, 10 % of letters changed.

    The 90,000-response file: N/C3L/C3R cells of the Phase 2 table, `copies` (10) copies of
    each model, 10 % of letters replaced by another option of the same item.
    """
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
    for copy in range(copies):
        chosen = letters.copy()
        flip = rng.random(len(chosen)) < 0.10
        shift = rng.integers(1, np.maximum(n_options, 2))
        chosen[flip] = (chosen[flip] + shift[flip]) % np.maximum(n_options[flip], 1)
        text = np.where(n_options > 0, np.array(list("ABCDEFGHIJ"))[chosen], "")
        frames.append(
            pd.DataFrame(
                {
                    "model_id": table["model_label"].to_numpy() + f" #{copy}",
                    "question_id": table["question_id"].to_numpy(),
                    "condition": table["condition"].to_numpy(),
                    "raw_response": text,
                    "letter": text,
                    "rep": 0,
                    "temperature": 1.0,
                }
            )
        )
    path = out / ("grid10x.csv" if copies == 10 else f"grid{copies}x.csv")
    pd.concat(frames, ignore_index=True).to_csv(path, index=False)
    return path


def paper_workspace(repo: Path, reference: Path, grid_file: Path, work: Path) -> Path:
    """A scratch copy of the paper's repository whose data/ holds the response files this run analyses.

    A scratch copy of the paper's repository (code/ and data/) whose data/ holds the
    response files this run analyses: the reference's results_phase1.csv, and the 10x grid
    as results_phase2.csv in the paper's columns (its scripts write their outputs there).
    """
    out = work / "paper-repo"
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(repo / "code", out / "code", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(repo / "data", out / "data", ignore=shutil.ignore_patterns("results_*.csv"))
    shutil.copy2(reference / "results_phase1.csv", out / "data" / "results_phase1.csv")
    grid = pd.read_csv(grid_file, keep_default_na=False)
    pd.DataFrame(
        {
            "model_label": grid["model_id"],
            "question_id": grid["question_id"],
            "source": "pew_atp",
            "condition": grid["condition"],
            "ideo_direction": 0,
            "rep": grid["rep"],
            "temperature": grid["temperature"],
            "raw_response": grid["raw_response"],
            "letter": grid["letter"].replace("", np.nan),
        }
    ).to_csv(out / "data" / "results_phase2.csv", index=False)
    return out


def paper_script(workspace: Path | None, name: str) -> tuple[float, float, float | None] | None:
    """Wall seconds, CPU seconds and peak GiB of one of the paper's scripts (None without its repository)."""
    if workspace is None:
        return None
    wall, cpu, peak, _ = timed([sys.executable, str(workspace / "code" / name)])
    return wall, cpu, peak


def paired_cold(
    ours_cmd: list[str], reset: list[str], workspace: Path | None, script: str, repeats: int, env: dict
) -> tuple[tuple[float, float, float | None], tuple[float, float, float | None] | None, list[float]]:
    """Our cold command against the paper's script, interleaved `repeats` times: medians and ratios.

    Our cold command and the paper's script, one after the other, `repeats` times (the
    caches in `reset` emptied before each of ours): the medians (wall, CPU; the largest
    peak) of each, and the ratio of each pair. The machine's speed drifts within minutes, so
    the two are interleaved and their medians compared, not one run of each.
    """
    ours, refs = [], []
    for _ in range(repeats):
        subprocess.run(["rm", "-rf", *reset], check=True)
        ours.append(timed(ours_cmd, env=env)[:3])
        ref = paper_script(workspace, script)
        if ref is not None:
            refs.append(ref)

    pairs = [o[0] / r[0] for o, r in zip(ours, refs, strict=False)]
    return medians(ours), (medians(refs) if refs else None), pairs


def pairs_text(pairs: list[float]) -> str:
    if not pairs:
        return ""
    return f"; median of {len(pairs)} paired runs, their ratios {min(pairs):.2f}x to {max(pairs):.2f}x"


def gib(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f} GiB"


def ratio(ours: float, reference: tuple | None) -> str:
    """Ours over the paper's script in this run, when it ran."""
    return "" if reference is None else f" ({ours / reference[0]:.2f}x)"


def reference_text(name: str, reference: tuple | None) -> str:
    if reference is None:
        return f"`{name}` not run (pass --paper-repo)"
    return f"`{name}` {reference[0]:.1f} s, CPU {reference[1]:.1f} s, peak {gib(reference[2])} (medians)"


def row(work: str, reference: str, ours: str, goal: str) -> str:
    return f"| {work} | {reference} | {ours} | {goal} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--reference", default=os.environ.get("POLITICAL_SYCOPHANCY_REFERENCE", "../shared/reference/replication")
    )
    parser.add_argument("--dir", default=None, help="working directory (default: a temporary one; reused when given)")
    parser.add_argument(
        "--paper-repo", default=None, help="a checkout of github.com/cssmodels/biasissycophancy (its code/ and data/)"
    )
    parser.add_argument("--main-job", action="store_true", help="also time the README's main job (minutes)")
    parser.add_argument(
        "--repeats",
        type=int,
        default=3,
        help="paired cold runs of ours and the paper's script (medians compared; default 3)",
    )
    args = parser.parse_args()
    reference = Path(args.reference)
    if not (reference / "results_phase1.csv").exists():
        raise SystemExit(f"bench/speed_table.py: replication data not found at {reference} (pass --reference)")
    work = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="ps-speed-"))
    work.mkdir(parents=True, exist_ok=True)
    repo = Path(args.paper_repo) if args.paper_repo else None
    if repo is not None and not (repo / "code" / "analyze_phase2.py").exists():
        raise SystemExit(
            f"bench/speed_table.py: {repo} is not a checkout of the paper's repository (no code/analyze_phase2.py)"
        )
    items = work / "items"
    # stored analyses (report/reuse.py) in the work folder, emptied before each cold run
    store = work / "analysis-store"
    store_env = {"POLITICAL_SYCOPHANCY_CACHE": str(store)}
    if not (items / "atp.csv").exists():
        timed(cli("import-items", str(reference), "--out", str(items)))
    item_files = [str(p) for p in sorted(items.glob("*.csv"))]
    grid_file = work / "grid10x.csv"
    if not grid_file.exists():
        ten_x_grid(reference, items, work)
    workspace = paper_workspace(repo, reference, grid_file, work) if repo is not None else None
    lines = []

    # 1. Phase 1
    p1 = work / "phase1"
    if not any(p1.glob("*.eval")):
        timed(
            cli(
                "import-responses",
                str(reference / "results_phase1.csv"),
                "--items",
                *item_files,
                "--log-dir",
                str(p1),
                "--use-source-letters",
                "--skip-unknown",
            )
        )
    cache = p1 / ".political-sycophancy-cache"
    cold, ref1, pairs1 = paired_cold(
        cli("analyze", str(p1), "--out", str(work / "p1")),
        [str(cache), str(store)],
        workspace,
        "analyze_phase1.py",
        args.repeats,
        store_env,
    )
    warm = timed(cli("analyze", str(p1), "--out", str(work / "p1")), env=store_env)
    recomputed = median_run(
        cli("analyze", str(p1), "--out", str(work / "p1-recomputed"), "--no-reuse"), store_env, args.repeats
    )
    boot = changed_bootstrap(
        lambda b: cli("analyze", str(p1), "--out", str(work / "p1-bootstrap"), "--bootstrap", b),
        store_env,
        args.repeats,
    )
    lines.append(
        row(
            "Phase 1 (9,858 responses): analysis",
            reference_text("analyze_phase1.py", ref1),
            f"cold {cold[0]:.1f} s{ratio(cold[0], ref1)}{pairs_text(pairs1)}, CPU {cold[1]:.1f} s, peak {gib(cold[2])};"
            f" warm {warm[0]:.2f} s{ratio(warm[0], ref1)}; warm with --no-reuse {recomputed[0]:.1f} s (median of"
            f" {args.repeats}){ratio(recomputed[0], ref1)}; a changed --bootstrap ({CHANGED_BOOTSTRAP}, ...; median of"
            f" {args.repeats}) {boot[0]:.1f} s{ratio(boot[0], ref1)}",
            f"cold <= {GOALS['phase1_cold']}x, --no-reuse and a changed option <= 0.5x",
        )
    )

    # 2 and 3. The 10x grid and its import
    grid_logs = work / "grid10x"
    rows = len(pd.read_csv(grid_file, usecols=["model_id"]))
    if not any(grid_logs.glob("*.eval")):
        imp = timed(
            cli(
                "import-responses",
                str(grid_file),
                "--items",
                *item_files,
                "--log-dir",
                str(grid_logs),
                "--use-source-letters",
            )
        )
        import_text = (
            f"{rows:,} rows in {imp[0]:.0f} s ({rows / imp[0]:,.0f} rows/s; CPU {imp[1]:.0f} s, {rows / imp[1]:,.0f}"
            " rows/CPU-s)"
        )
    else:
        import_text = "(logs reused: run without --dir to measure)"
    gcold, ref2, pairs2 = paired_cold(
        cli("analyze", str(grid_logs), "--out", str(work / "grid")),
        [str(grid_logs / ".political-sycophancy-cache"), str(store)],
        workspace,
        "analyze_phase2.py",
        args.repeats,
        store_env,
    )
    gwarm = timed(cli("analyze", str(grid_logs), "--out", str(work / "grid")), env=store_env)
    grecomputed = median_run(
        cli("analyze", str(grid_logs), "--out", str(work / "grid-recomputed"), "--no-reuse"), store_env, args.repeats
    )
    gboot = changed_bootstrap(
        lambda b: cli("analyze", str(grid_logs), "--out", str(work / "grid-bootstrap"), "--bootstrap", b),
        store_env,
        args.repeats,
    )
    peak_text = f", peak {gib(gcold[2])} (cold), {gib(gwarm[2])} (warm)"
    ours = (
        f"cold {gcold[0]:.1f} s{ratio(gcold[0], ref2)}{pairs_text(pairs2)}, CPU {gcold[1]:.1f} s{peak_text}; warm"
        f" {gwarm[0]:.2f} s{ratio(gwarm[0], ref2)}; warm with --no-reuse {grecomputed[0]:.1f} s (median of"
        f" {args.repeats}){ratio(grecomputed[0], ref2)}; a changed --bootstrap ({CHANGED_BOOTSTRAP}, ...; median of"
        f" {args.repeats}) {gboot[0]:.1f} s{ratio(gboot[0], ref2)}"
    )
    lines.append(
        row(
            f"10x grid ({rows:,} responses): analysis",
            reference_text("analyze_phase2.py", ref2),
            ours,
            f"cold <= {GOALS['grid_cold']}x, --no-reuse and a changed option <= 0.5x, peak <="
            f" {GOALS['grid_peak_gib']} GiB",
        )
    )
    lines.append(row("import of a response file", "-", import_text, f">= {GOALS['import_rows_per_s']:,} rows/s"))

    # 4. --help
    helps = [timed(["political-sycophancy", "--help"]) for _ in range(3)]
    best = min(helps, key=lambda h: h[0])
    ours = f"{best[0]:.2f} s wall, {best[1]:.2f} s CPU (best of 3)"
    lines.append(row("`political-sycophancy --help`", "-", ours, f"<= {GOALS['help']} s"))

    # 5. main job
    if args.main_job:
        project = Path(__file__).resolve().parent.parent
        job = timed(
            ["bash", str(project / "scripts" / "audit.sh")],
            env={"LOG_DIR": str(work / "main-job-logs"), "REPORT_DIR": str(work / "main-job-report")},
        )
        ours = f"{job[0] / 60:.1f} min (CPU {job[1] / 60:.1f} min)"
        lines.append(row("the README's main job", "-", ours, f"<= {GOALS['main_job_min']} min"))
    else:
        lines.append(row("the README's main job", "-", "not run (pass --main-job)", f"<= {GOALS['main_job_min']} min"))

    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("| work | reference | ours | goal |\n| --- | --- | --- | --- |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

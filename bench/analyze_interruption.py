"""Whether an interrupted `analyze` leaves a complete report and no stray process or file.

Ctrl-C, SIGTERM and SIGKILL of a real `political-sycophancy analyze`, sent to the parent and
to each kind of worker it forks, at several points of the run (issue 47).

A set of synthetic logs (models x PCT and ATP items x the six conditions, imported as real
`.eval` logs) is analysed once to completion; that report is the earlier one. Then, for
each signal, target and point, `analyze` runs again into the same --out (with --no-reuse
and --no-cache, so that it reads, computes and draws everything) in a session of its own;
when its output shows the point (reading the logs, computing the sections, a section done,
the last section done) the signal goes to the target: the parent, or a worker found by the
name `core.forked.forked_child` gives it (`ps-reader` reads logs, `ps-worker` computes
sections, `ps-early` draws the Figures section, `ps-saver` saves a figure). Ctrl-C is SIGINT
to the whole session, as a terminal sends it. Each row says how the run ended (exit code
and its one line on stderr, "Traceback" if one was printed), whether --out holds the
earlier report byte for byte ("identical") or a new complete one ("complete": the same
files, no failed section), how many of the run's processes were left 2 s after it ended,
and at the end whether any temporary folder or file was left after one more run.

    python bench/analyze_interruption.py [--models 3] [--atp-items 40] [--dir DIR] [--only SIGKILL]

A target that did not exist at the point (a figure saver lives for a moment) is "not seen".
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from political_sycophancy.audit.simulate import builtin_pct_items, synthetic_responses, write_atp_items
from political_sycophancy.core.conditions import PHASE2
from political_sycophancy.core.items import builtin_path, load_items
from political_sycophancy.logs.importer import import_responses

# (point, the output text that shows it)
POINTS = (
    ("reading", "reading logs in"),
    ("sections", "section(s) in"),
    ("a section done", "[2/"),
    ("sections done", "[{last}/"),
)
TARGETS = ("parent", "ps-reader", "ps-worker", "ps-early", "ps-saver")
SIGNALS = (("Ctrl-C", signal.SIGINT), ("SIGTERM", signal.SIGTERM), ("SIGKILL", signal.SIGKILL))
# where each worker exists (the sections are computed first, then reported in order: the
# section workers are gone at "[2/")
LIVES = {
    "parent": POINTS,
    "ps-reader": POINTS[:1],
    "ps-worker": POINTS[1:2],
    "ps-early": POINTS,
    "ps-saver": POINTS[1:],
}


def write_logs(root: Path, models: int, atp_items: int) -> Path:
    """Synthetic responses to the PCT and ATP items under the six conditions, imported as logs.

    Synthetic responses of `models` models to the PCT and `atp_items` ATP items under the
    six conditions, imported as logs (one per model x instrument x condition).
    """
    atp = write_atp_items(root / "atp.csv", atp_items, seed=2)
    items = load_items(atp, instrument="atp") + builtin_pct_items()
    names = [f"mock/m{k}" for k in range(models)]
    table = synthetic_responses(
        items, names, list(PHASE2), atp_shift={"C3R": -0.3, "C3L": 0.1}, pct_shift={"C3R": 0.8}, seed=3
    )
    table.to_csv(root / "responses.csv", index=False)
    import_responses(root / "responses.csv", [builtin_path("pct.csv"), atp], root / "logs")
    return root / "logs"


def command(root: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "political_sycophancy.cli",
        "analyze",
        str(root / "logs"),
        "--out",
        str(root / "out"),
        "--no-reuse",
        "--no-cache",
        "--bootstrap",
        "200",
        "--sign-flip-draws",
        "500",
        "--jobs",
        "2",
    ]


def session(pid: int) -> dict[int, str]:
    """The live processes of the session `pid` leads, with their names (Linux /proc)."""
    out = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdecimal():
            continue
        try:
            stat = (entry / "stat").read_text()
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[3]) == pid and fields[0] != "Z":
                out[int(entry.name)] = stat[stat.index("(") + 1 : stat.rindex(")")]
        except (OSError, ValueError, IndexError):
            continue
    return out


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def verdict(out: Path, earlier: dict[str, bytes]) -> str:
    now = snapshot(out)
    if now == earlier:
        return "identical"
    summary = now.get("summary.json", b"")
    if set(now) == set(earlier) and b'"failed_sections": []' in summary:
        return "complete"
    return f"BROKEN ({len(now)} files, {len(earlier)} before)"


def leftovers(root: Path) -> list[str]:
    temp = [p.name for p in root.iterdir() if p.name.startswith(".out.") and p.is_dir()]
    return temp + [str(p.relative_to(root)) for p in root.rglob("*.ps-tmp")]


def one_run(
    root: Path, sig: int, group: bool, target: str, point: tuple[str, str], sections: int, earlier: dict
) -> dict:
    """One interrupted run (see the module docstring); its row."""
    log = root / "run.out"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with log.open("wb") as out, (root / "run.err").open("wb") as err:
        proc = subprocess.Popen(command(root), stdout=out, stderr=err, env=env, start_new_session=True)
    text = point[1].replace("{last}", str(sections))
    deadline, reached, sent = time.time() + 300, None, None
    while proc.poll() is None and time.time() < deadline:
        if reached is None and text in log.read_text(errors="replace"):
            reached = time.time()
        if reached is not None:
            pids = [proc.pid] if target == "parent" else [p for p, name in session(proc.pid).items() if name == target]
            if pids:
                sent = time.time()
                os.killpg(proc.pid, sig) if group and target == "parent" else os.kill(pids[0], sig)
                break
            if time.time() - reached > 10:  # the worker did not exist at this point
                break
        time.sleep(0.01)
    if sent is None:  # (the run may have ended meanwhile, writing a new report)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return {"seen": False, "out": verdict(root / "out", earlier)}
    try:
        code = proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        code = "HANG"
    took = time.time() - sent if sent else float("nan")
    time.sleep(2.0)
    left = session(proc.pid)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    errors = (root / "run.err").read_text(errors="replace").strip().splitlines()
    line = "Traceback!" if any("Traceback" in e for e in errors) else (errors[-1] if errors else "")
    return {
        "seen": True,
        "code": code,
        "line": line,
        "lines": len(errors),
        "took": took,
        "left": len(left),
        "out": verdict(root / "out", earlier),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=3)
    parser.add_argument("--atp-items", type=int, default=40)
    parser.add_argument("--dir", default=None, help="working folder (default: a new temporary one)")
    parser.add_argument("--only", default=None, help="one signal: Ctrl-C, SIGTERM or SIGKILL")
    args = parser.parse_args()
    root = Path(args.dir or tempfile.mkdtemp(prefix="analyze-interruption-"))
    if not (root / "logs").exists():
        write_logs(root, args.models, args.atp_items)
    print(f"work folder {root}: {len(list((root / 'logs').glob('*.eval')))} logs")
    started = time.perf_counter()
    first = subprocess.run(command(root), capture_output=True, text=True)
    if first.returncode != 0:
        sys.exit(first.stdout[-2000:] + first.stderr[-2000:])
    sections = max(int(m.group(1)) for m in re.finditer(r"^\[\d+/(\d+)\]", first.stdout, re.M))
    print(f"complete analysis: {time.perf_counter() - started:.0f}s, {sections} sections")
    earlier = snapshot(root / "out")
    rows, bad = [], 0
    print(
        f"{'signal':8} {'target':10} {'point':15} {'exit':>5} {'lines':>5} {'left':>4} {'took':>5}  {'--out':22} line"
    )
    for name, sig in SIGNALS:
        if args.only and name != args.only:
            continue
        for target in TARGETS:
            for point in LIVES[target]:
                row = one_run(root, sig, name == "Ctrl-C", target, point, sections, earlier)
                if not row["seen"]:
                    print(f"{name:8} {target:10} {point[0]:15} not seen")
                    earlier = snapshot(root / "out") if row["out"] == "complete" else earlier
                    continue
                good = (
                    row["code"] != "HANG"
                    and row["left"] == 0
                    and row["lines"] <= 1
                    and row["line"] != "Traceback!"
                    and row["out"] in ("identical", "complete")
                )
                bad += not good
                rows.append(row)
                print(
                    f"{name:8} {target:10} {point[0]:15} {row['code']!s:>5} {row['lines']:>5} {row['left']:>4} "
                    f"{row['took']:>5.1f}  "
                    f"{row['out']:22} {row['line'][:90]}{'' if good else '  <-- NOT GOOD'}"
                )
                if row["out"] == "complete":
                    earlier = snapshot(root / "out")
    done = subprocess.run(command(root), capture_output=True, text=True)
    left = leftovers(root)
    print(
        f"\n{len(rows)} interrupted runs: {bad} not good; the next run exited {done.returncode} and left "
        f"{len(left)} temporary folder(s) or file(s){': ' + ', '.join(left[:5]) if left else ''}"
    )
    return 1 if bad or left or done.returncode else 0


if __name__ == "__main__":
    sys.exit(main())

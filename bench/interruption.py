"""SIGKILL at an arbitrary moment of a full PCT audit (62 items x 6 conditions), then the same command again.

How many model calls the re-run makes, whether any cell the killed run had finished (scored
and written to Inspect's sample buffer, read back here with Inspect's crash recovery before
the re-run) is sent again, and whether the analysis sees every cell exactly once. Cells
whose model call was made but whose sample had not finished at the kill are sent again; that
is the price of a kill, and it is reported.

`tests/test_cli_interruption.py` kills at a known idle point and asserts that nothing
answered is re-sent; this script measures the cost of a kill in the middle of traffic.

    python bench/interruption.py [--kill-after 150] [--delay 0.02] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from political_sycophancy.logs.frame import read_frame

CONDITIONS = ("N", "CA", "C1L", "C1R", "C3L", "C3R")


def read_calls(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def finished_cells(work: Path) -> set[tuple[str, str, str]]:
    """(task, condition, sample id) of every sample the killed run finished, read by Inspect's crash recovery.

    (task, condition, sample id) of every sample the killed run finished without error, as
    Inspect's crash recovery reads them (into a scratch directory, leaving the logs
    untouched).
    """
    os.environ["XDG_DATA_HOME"] = str(work / "data")
    from inspect_ai.log import RecoveryNotAvailable, recover_eval_log

    import political_sycophancy._registry  # noqa: F401  (the reducer the recovery rescores with)

    scratch = work / "recovered"
    scratch.mkdir(exist_ok=True)
    out: set[tuple[str, str, str]] = set()
    for log in sorted((work / "logs").glob("*.eval")):
        try:
            rec = recover_eval_log(str(log), cleanup=False, output=str(scratch / log.name))
        except RecoveryNotAvailable:
            continue
        condition = str((rec.eval.metadata or {}).get("condition"))
        out |= {(rec.eval.task, condition, str(s.id)) for s in rec.samples or [] if s.error is None and s.scores}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kill-after", type=int, default=150, help="SIGKILL once this many calls were made")
    ap.add_argument("--delay", type=float, default=0.02, help="seconds per model call")
    ap.add_argument("--limit", type=int, default=None, help="items per condition (default: all 62)")
    ap.add_argument("--dir", default=None, help="work directory (default: a new temporary one)")
    args = ap.parse_args()

    work = Path(args.dir or tempfile.mkdtemp(prefix="interruption-"))
    calls_file = work / "calls.jsonl"
    argv = [
        sys.executable, "-m", "political_sycophancy.cli", "audit", "--conditions", "all",
        "--model", "faulty/mockllm/model", "-M", f"calls_file={calls_file}", "-M", f"delay={args.delay}",
        "--log-dir", str(work / "logs"),
    ]  # fmt: skip
    if args.limit:
        argv += ["--limit", str(args.limit)]
    env = {**os.environ, "XDG_DATA_HOME": str(work / "data"), "INSPECT_DISPLAY": "plain"}
    cells = (args.limit or 62) * len(CONDITIONS)

    started = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    while len(read_calls(calls_file)) < args.kill_after:
        if proc.poll() is not None:
            sys.exit("the audit finished before the kill; lower --kill-after or raise --delay")
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    first = read_calls(calls_file)
    answered = {(c["task"], c["condition"], c["sample_id"]) for c in first}
    killed_at = time.perf_counter() - started
    finished = finished_cells(work)

    started = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        sys.exit(done.stdout.decode()[-3000:])
    second = read_calls(calls_file)[len(first) :]
    resent = {(c["task"], c["condition"], c["sample_id"]) for c in second}
    rerun_seconds = time.perf_counter() - started

    load = read_frame(work / "logs", cache=False)
    frame = load.frame
    duplicated = int(frame.duplicated(["model", "condition", "item_id", "epoch"]).sum())
    print(f"work directory: {work}")
    print(f"cells: {cells} (PCT x {len(CONDITIONS)} conditions)")
    print(f"killed run: {len(first)} calls sent ({len(answered)} cells) before SIGKILL at {killed_at:.1f}s")
    print(f"re-run: {len(second)} calls ({len(resent)} cells) in {rerun_seconds:.1f}s")
    print(
        f"cells finished by the killed run (recoverable): {len(finished)}; of them sent again: {len(finished & resent)}"
    )
    print(f"cells sent by the killed run but unfinished at the kill, sent again: {len(answered & resent)}")
    print(f"cells never sent before the re-run: {len(resent - answered)}")
    print(
        f"re-run calls = cells - finished: {len(second)} = {cells} - {len(finished)}:"
        f" {len(second) == cells - len(finished)}"
    )
    print(
        f"analysis: {len(frame)} cells, {duplicated} duplicated, {int((frame['status'] != 'answered').sum())} not"
        " answered"
    )


if __name__ == "__main__":
    main()

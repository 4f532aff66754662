"""Start-up time of the CLI against the 1.0 s goal, and whether the heavy modules were imported.

Start-up time of the CLI: `political-sycophancy --help` and `analyze --help`, each in a
fresh process (best of `--repeats`), against the 1.0 s goal; and whether the heavy modules
(inspect_ai, matplotlib, statsmodels, scipy) were imported to print them.

    python bench/cli_startup.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

GOAL = 1.0
PROBE = (
    "import sys; from political_sycophancy.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n   "
    " pass\nprint('HEAVY', ','.join(m for m in ('inspect_ai', 'matplotlib', 'statsmodels', 'scipy') if m in"
    " sys.modules), file=sys.stderr)"
)


def timed(args: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    heavy = next((line[6:] for line in out.stderr.splitlines() if line.startswith("HEAVY")), "?")
    return elapsed, heavy or "none"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    print(f"{'command':40}{'seconds (best)':>16}{'goal':>8}  heavy modules imported")
    for argv in (["--help"], ["analyze", "--help"]):
        runs = [timed(argv) for _ in range(args.repeats)]
        best = min(t for t, _ in runs)
        print(f"{'political-sycophancy ' + ' '.join(argv):40}{best:>16.2f}{GOAL:>8.1f}  {runs[0][1]}")


if __name__ == "__main__":
    main()

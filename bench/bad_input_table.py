"""Run every bad-input scenario of tests/test_bad_input_scenarios.py and print the table
of outcomes (tried / clear error / counted exclusion / correctly accepted / traceback /
silently wrong / other), then one line per scenario that is not a good outcome (all of
them with --all).

    python bench/bad_input_table.py [--all] [--reference ../shared/reference/replication]

Scenarios that need the replication data are skipped (and counted as such) without it.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests"
sys.path.insert(0, str(TESTS))

import conftest  # noqa: E402
from bad_input import GOOD, classify, table  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="list every scenario with its outcome")
    parser.add_argument("--reference", default=None, help="replication data directory (default: ../shared/reference/replication)")
    args = parser.parse_args()
    if args.reference:
        conftest.REFERENCE = Path(args.reference).resolve()
    from test_bad_input_scenarios import SCENARIOS

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    results, skipped = [], []
    for scenario in SCENARIOS:
        if scenario.needs_reference and not (conftest.REFERENCE / "phase2_pool.json").exists():
            skipped.append(scenario.name)
            continue
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["INSPECT_LOG_DIR"] = str(Path(tmp) / "inspect-logs")
            outcome, ran = classify(scenario, Path(tmp))
        results.append((scenario, outcome))
        if args.all or outcome not in GOOD:
            detail = ran.error_line or (ran.crash.strip().splitlines() or [""])[-1]
            print(f"{outcome:18s} {scenario.name}" + (f"  [{detail[:160]}]" if outcome not in GOOD or args.all else ""))
    print()
    print(table(results))
    if skipped:
        print(f"\n{len(skipped)} scenario(s) skipped without the replication data: {', '.join(skipped)}")
    return 0 if all(outcome in GOOD for _, outcome in results) else 1


if __name__ == "__main__":
    sys.exit(main())

"""The table of what every bad-input scenario ends in, and the scenarios that do not end well.

Run every bad-input scenario (each test marked `scenario`: the parametrized `test_scenario`
of the scenario modules, classified by `support.bad_input`, and single tests of what a
hostile user did, such as planting a stored analysis or filling the disk) and print the
table of outcomes (tried / clear error / counted exclusion / correctly accepted / traceback
/ silently wrong / other), then one line per scenario that is not a good outcome (all of
them with --all).

    python bench/bad_input_table.py [--all] [--reference ../shared/reference/replication]

A classified scenario records its outcome; a single test declares the outcome its passing
shows (`@pytest.mark.scenario("clear error")`), and a failing one counts as a traceback
when an exception other than an assertion escaped, else as silently wrong. Scenarios that
need the replication data, root or a mount are skipped (and counted as such) without them.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TESTS = "tests"
OUTCOMES = ("clear error", "counted exclusion", "correctly accepted", "traceback", "silently wrong", "other")
GOOD = OUTCOMES[:3]


class Outcomes:
    """A pytest plugin that keeps each scenario's recorded outcome, and the skipped ones."""

    def __init__(self) -> None:
        self.results: list[tuple[str, str, str]] = []  # (scenario, outcome, detail)
        self.skipped: list[str] = []

    def pytest_runtest_logreport(self, report) -> None:
        name = (
            report.nodeid.partition("[")[2].removesuffix("]")
            if "::test_scenario[" in report.nodeid
            else report.nodeid.split("::")[-1]
        )
        if report.skipped and report.when in ("setup", "call"):
            self.skipped.append(name)
        elif report.when == "call":
            props = dict(report.user_properties)
            if "outcome" in props:
                self.results.append((name, props["outcome"], props.get("detail", "")))
            elif "declared" in props:
                if report.passed:
                    outcome = props["declared"]
                else:
                    crash = getattr(report.longrepr, "reprcrash", None)
                    message = getattr(crash, "message", str(report.longrepr))
                    outcome = (
                        "silently wrong"
                        if message.startswith("AssertionError") or message.startswith("assert")
                        else "traceback"
                    )
                self.results.append(
                    (name, outcome, "" if report.passed else str(getattr(report.longrepr, "reprcrash", "")))
                )

    def pytest_collection_modifyitems(self, items) -> None:
        for item in items:
            marker = item.get_closest_marker("scenario")
            if marker and marker.args and marker.args[0] != "classified":
                item.user_properties.append(("declared", marker.args[0]))


def table(outcomes: list[str]) -> str:
    """The closing-note table: tried, then one count per outcome."""
    counts = Counter(outcomes)
    head = ["tried", *OUTCOMES]
    values = [str(len(outcomes)), *(str(counts.get(o, 0)) for o in OUTCOMES)]
    widths = [max(len(h), len(v)) for h, v in zip(head, values, strict=True)]
    return "\n".join(
        [
            "| " + " | ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)) + " |",
            "| " + " | ".join("-" * w for w in widths) + " |",
            "| " + " | ".join(v.rjust(w) for v, w in zip(values, widths, strict=True)) + " |",
        ]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="list every scenario with its outcome")
    parser.add_argument(
        "--reference", default=None, help="replication data directory (default: ../shared/reference/replication)"
    )
    args = parser.parse_args()
    if args.reference:
        os.environ["POLITICAL_SYCOPHANCY_REFERENCE"] = str(Path(args.reference).resolve())
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    plugin = Outcomes()
    os.chdir(ROOT)
    pytest.main(
        ["-q", "-p", "no:cacheprovider", "--no-header", "-rN", "--tb=no", "-m", "scenario", TESTS], plugins=[plugin]
    )
    print()
    for name, outcome, detail in plugin.results:
        if args.all or outcome not in GOOD:
            print(f"{outcome:18s} {name}  [{detail[:160]}]")
    print()
    print(table([outcome for _, outcome, _ in plugin.results]))
    if plugin.skipped:
        print(
            f"\n{len(plugin.skipped)} scenario(s) skipped (replication data, root or a mount missing):"
            f" {', '.join(plugin.skipped)}"
        )
    return 0 if all(outcome in GOOD for _, outcome, _ in plugin.results) else 1


if __name__ == "__main__":
    sys.exit(main())

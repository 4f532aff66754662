"""Helpers of the tests of the analysis and section stores (report.reuse, report.section_store)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from political_sycophancy.audit.simulate import builtin_pct_items, synthetic_responses
from political_sycophancy.core.items import builtin_path
from political_sycophancy.logs.importer import import_responses

STEP = re.compile(r"^\[\d+/\d+\] (?P<name>[^:]+): (?P<rest>.*)$")


def synthetic_logs(folder: Path, items: int = 12) -> Path:
    """Logs of two models answering the first `items` PCT items under N, C3L and C3R (C3R
    shifted right), in `folder`/logs."""
    responses = synthetic_responses(builtin_pct_items()[:items], ["p/a", "p/b"], ["N", "C3L", "C3R"], pct_shift={"C3R": 1.0}, seed=3)
    responses.to_csv(folder / "r.csv", index=False)
    import_responses(folder / "r.csv", [builtin_path("pct.csv")], folder / "logs", jobs=1)
    return folder / "logs"


def section_steps(printed: str) -> dict[str, bool]:
    """Section name -> whether its progress line says it was restored."""
    return {m["name"]: m["rest"].startswith("restored") for line in printed.splitlines() if (m := STEP.match(line))}


def stored_reads(store: Path) -> dict[str, list[dict[str, str]]]:
    """Every stored section entry's option reads, by the group folder it is in."""
    out: dict[str, list[dict[str, str]]] = {}
    for manifest in sorted((store / "sections").glob("*/*/manifest.json")):
        out.setdefault(manifest.parent.parent.name, []).append(json.loads(json.loads(manifest.read_text())["lines"][0]))
    return out


def report_files(out: Path) -> dict[str, bytes]:
    """The report's files, but for the run's own time stamp (summary.json's `generated`, the
    reports' `generated` line) and the SVGs (matplotlib writes the time and random ids in them)."""
    files = {}
    for path in sorted(out.rglob("*")):
        if path.is_file() and path.suffix != ".svg":
            files[path.relative_to(out).as_posix()] = re.sub(rb"generated[\"\s:]+[0-9T:+-]+", b"generated", path.read_bytes())
    return files

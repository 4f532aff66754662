"""The worker fan-out of an import.

The cells' logs are written by this process and forked ones (`core.forked.shared_work`),
each taking the next cell (largest first) as it finishes one, so that all finish together,
and each checking the one-pass writer on its own first log, so that none waits for
another's check; a failure in any process removes nothing here and is raised once all have
ended.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..core.forked import shared_work
from .import_rows import ImportResult
from .import_writer import Cell


def _merge(into: ImportResult, part: ImportResult) -> None:
    into.samples += part.samples
    into.errors += part.errors
    into.notes += [n for n in part.notes if n not in into.notes]
    for model, counts in part.disagreements.items():
        mine = into.disagreements.setdefault(model, dict.fromkeys(counts, 0))
        for k, v in counts.items():
            mine[k] += v


def run_cells(job: Callable, cells: list[Cell], jobs: int | None, result: ImportResult) -> list[tuple[int, Path]]:
    """Write every cell, largest first, in `jobs` processes (default: one per CPU).

    `job(cells, None)` checks the one-pass writer on its first log, in each process. Each log
    is independent of the others, so the logs are the same whichever process writes them.
    """
    if not cells:
        return []
    order = sorted(cells, key=lambda c: -len(c.rows))
    written: list[tuple[int, Path]] = []
    for more, part, _ in shared_work(lambda taken: job(taken, None), order, jobs, "writing the logs"):
        written += more
        _merge(result, part)
    return written

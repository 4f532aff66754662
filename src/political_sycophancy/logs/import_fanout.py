"""The worker fan-out of an import: the cells' logs are written by this process and forked
ones, each taking the next cell (largest first) as it finishes one, so that all finish
together, and each checking the one-pass writer on its own first log, so that none waits
for another's check; a failure in any process removes nothing here and is raised once all
have ended."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from ..core.errors import InputError
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


def _pulled(cells: list[Cell], taken: Any) -> Iterator[Cell]:
    """The cells this process takes, one at a time: the next one no process has taken
    (`taken`, a counter shared by the processes)."""
    while True:
        with taken.get_lock():
            index = taken.value
            taken.value += 1
        if index >= len(cells):
            return
        yield cells[index]


def _child(job: Callable, cells: Iterable[Cell], conn: Any) -> None:
    try:
        conn.send(("ok", job(cells, None)))
    except BaseException as ex:  # sent to the parent, which raises it
        conn.send(("error", (type(ex).__name__, str(ex), isinstance(ex, InputError))))
    finally:
        conn.close()


def run_cells(job: Callable, cells: list[Cell], jobs: int | None, result: ImportResult) -> list[tuple[int, Path]]:
    """Write every cell, largest first, in `jobs` forked processes (default: one per CPU)
    when the platform forks, else here. `job(cells, None)` checks the one-pass writer on
    its first log, in each process. Each log is independent of the others, so the logs are
    the same whichever process writes them."""
    if not cells:
        return []
    order = sorted(cells, key=lambda c: -len(c.rows))
    n = max(1, min(jobs or os.cpu_count() or 1, len(order)))
    if n == 1 or "fork" not in multiprocessing.get_all_start_methods():
        written, part, _ = job(order, None)
        _merge(result, part)
        return written
    context = multiprocessing.get_context("fork")
    taken = context.Value("l", 0)
    children = []
    for _ in range(n - 1):
        receive, send = context.Pipe(duplex=False)
        process = context.Process(target=_child, args=(job, _pulled(order, taken), send), daemon=True)
        process.start()
        send.close()
        children.append((process, receive))
    written = []
    failure: tuple[str, str, bool] | None = None
    try:
        written, part, _ = job(_pulled(order, taken), None)
        _merge(result, part)
    finally:
        for process, receive in children:
            try:
                status, payload = receive.recv()
            except EOFError:
                status, payload = "error", ("WorkerDied", f"an import process exited with code {process.exitcode}", False)
            process.join()
            if status == "ok":
                more, part, _ = payload
                written += more
                _merge(result, part)
            else:
                failure = failure or payload
    if failure:
        name, message, is_input = failure
        raise InputError(message) if is_input else RuntimeError(f"{name}: {message}")
    return written

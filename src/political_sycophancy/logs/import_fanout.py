"""The worker fan-out of an import: the first cell's log is written here (it checks the
one-pass writer once), the rest in forked processes with about equal numbers of rows each;
a failure in any process removes nothing here and is raised once all have ended."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
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


def _buckets(cells: list[Cell], n: int) -> list[list[Cell]]:
    """`n` lists of cells with about equal numbers of rows (largest first, each to the lightest)."""
    buckets: list[list[Cell]] = [[] for _ in range(n)]
    loads = [0] * n
    for cell in sorted(cells, key=lambda c: -len(c.rows)):
        k = loads.index(min(loads))
        buckets[k].append(cell)
        loads[k] += len(cell.rows)
    return [b for b in buckets if b]


def _child(job: Callable, cells: list[Cell], fast: bool | None, conn: Any) -> None:
    try:
        conn.send(("ok", job(cells, fast)))
    except BaseException as ex:  # sent to the parent, which raises it
        conn.send(("error", (type(ex).__name__, str(ex), isinstance(ex, InputError))))
    finally:
        conn.close()


def run_cells(job: Callable, cells: list[Cell], jobs: int | None, result: ImportResult) -> list[tuple[int, Path]]:
    """Write every cell: the first here (it checks the one-pass writer), the rest in `jobs`
    forked processes (default: one per CPU) when the platform forks, else here. Each log is
    independent of the others, so the logs are the same whichever process writes them."""
    if not cells:
        return []
    written, part, fast = job(cells[:1], None)
    _merge(result, part)
    rest = cells[1:]
    n = max(1, min(jobs or os.cpu_count() or 1, len(rest)))
    if n == 1 or "fork" not in multiprocessing.get_all_start_methods():
        more, part, _ = job(rest, fast)
        _merge(result, part)
        return written + more
    context = multiprocessing.get_context("fork")
    buckets = _buckets(rest, n)
    children = []
    for bucket in buckets[1:]:
        receive, send = context.Pipe(duplex=False)
        process = context.Process(target=_child, args=(job, bucket, fast, send), daemon=True)
        process.start()
        send.close()
        children.append((process, receive))
    failure: tuple[str, str, bool] | None = None
    try:
        more, part, _ = job(buckets[0], fast)
        written += more
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

"""Work shared by this process and forked ones: each process takes the next item no process
has taken, in the order given, as it finishes one, so that all finish together (the caller
orders the items, largest first where sizes are known). Used by the importer (one log per
item) and the report (one section per item).

Forked, not spawned: the processes start with what this one holds (the response frame,
the analysis frame, the imported libraries), at no cost of sending it. Each process's
result comes back pickled through a pipe; a failure in any process is raised here once
all have ended, so that nothing the caller cleans up is still being written."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from .errors import InputError

T = TypeVar("T")
R = TypeVar("R")


def _taking(items: Sequence[T], taken: Any) -> Iterator[T]:
    """The items this process takes, one at a time: the next one no process has taken
    (`taken`, a counter shared by the processes)."""
    while True:
        with taken.get_lock():
            index = taken.value
            taken.value += 1
        if index >= len(items):
            return
        yield items[index]


def _child(work: Callable[[Iterator[Any]], Any], items: Iterator[Any], conn: Any) -> None:
    try:
        conn.send(("ok", work(items)))
    except BaseException as ex:  # sent to the parent, which raises it
        conn.send(("error", (type(ex).__name__, str(ex), isinstance(ex, InputError))))
    finally:
        conn.close()


def worker_count(jobs: int | None, items: int) -> int:
    """The processes `shared_work` uses: `jobs` (default: one per CPU), at most one per
    item, one where the platform cannot fork."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return max(1, min(jobs or os.cpu_count() or 1, items))


def shared_work(work: Callable[[Iterator[T]], R], items: Sequence[T], jobs: int | None = None) -> list[R]:
    """`work` run by `worker_count(jobs, len(items))` processes (this one and forked ones),
    each on the items it takes: one result per process, this process's first. An error
    in a forked process is raised here once every process has ended: an `InputError` as
    itself (its one-line message), any other as a RuntimeError naming its type."""
    n = worker_count(jobs, len(items))
    if n == 1:
        return [work(iter(items))]
    context = multiprocessing.get_context("fork")
    taken = context.Value("l", 0)
    children = []
    for _ in range(n - 1):
        receive, send = context.Pipe(duplex=False)
        process = context.Process(target=_child, args=(work, _taking(items, taken), send), daemon=True)
        process.start()
        send.close()
        children.append((process, receive))
    results: list[R] = []
    failure: tuple[str, str, bool] | None = None
    try:
        results.append(work(_taking(items, taken)))
    finally:
        for process, receive in children:
            try:
                status, payload = receive.recv()
            except EOFError:
                status, payload = "error", ("WorkerDied", f"a worker process exited with code {process.exitcode}", False)
            process.join()
            if status == "ok":
                results.append(payload)
            else:
                failure = failure or payload
    if failure:
        name, message, is_input = failure
        raise InputError(message) if is_input else RuntimeError(f"{name}: {message}")
    return results

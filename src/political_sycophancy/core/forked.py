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
                process.join()  # its exit code is set once it is joined
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


class EarlyWorker:
    """A process forked before this one's long serial work, that prepares meanwhile (imports
    what it will need, on the CPU this one leaves idle) and then runs one call sent to it:
    work that must wait for this process's results without paying its imports after them.
    `run` sends the call (a module-level function and picklable arguments) and returns its
    result, raising its error as `shared_work` does; `close` ends a worker never used.
    Without fork the call runs here. A preparation that fails is left to the call, which
    meets the same failure itself."""

    def __init__(self, prepare: Callable[[], object]) -> None:
        self.process: Any = None
        if "fork" not in multiprocessing.get_all_start_methods():
            return
        context = multiprocessing.get_context("fork")
        receive_call, self.send_call = context.Pipe(duplex=False)
        self.receive_result, send_result = context.Pipe(duplex=False)
        self.process = context.Process(target=_serve, args=(prepare, receive_call, send_result, (self.send_call, self.receive_result)),
                                       daemon=True)
        self.process.start()
        receive_call.close()
        send_result.close()

    def run(self, fn: Callable[..., R], *args: Any) -> R:
        if self.process is None:
            return fn(*args)
        try:
            self.send_call.send((fn, args))
            status, payload = self.receive_result.recv()
        except (EOFError, OSError):
            self.process.join()  # its exit code is set once it is joined
            status, payload = "error", ("WorkerDied", f"a worker process exited with code {self.process.exitcode}", False)
        finally:
            self.close()
        if status == "ok":
            return payload
        name, message, is_input = payload
        raise InputError(message) if is_input else RuntimeError(f"{name}: {message}")

    def close(self) -> None:
        if self.process is None:
            return
        self.send_call.close()
        self.receive_result.close()
        self.process.join()
        self.process = None


def _serve(prepare: Callable[[], object], receive_call: Any, send_result: Any, parent_ends: tuple[Any, ...]) -> None:
    """The early worker: prepare, then run the one call sent (none when the parent closes its
    end, which this process's inherited copy, closed first, would otherwise keep open)."""
    for end in parent_ends:
        end.close()
    try:
        prepare()
    except Exception:  # noqa: S110  # only a head start: the call meets the same failure and reports it
        pass
    try:
        fn, args = receive_call.recv()
    except EOFError:  # closed unused
        return
    try:
        send_result.send(("ok", fn(*args)))
    except BaseException as ex:  # sent to the parent, which raises it
        send_result.send(("error", (type(ex).__name__, str(ex), isinstance(ex, InputError))))
    finally:
        send_result.close()

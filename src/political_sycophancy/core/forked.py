"""Work shared by this process and forked ones.

Each process takes the next item no process has taken, in the order given, as it finishes
one, so that all finish together (the caller orders the items, largest first where sizes
are known). Used by the importer (one log per item) and the report (one section per item).

Forked, not spawned: the processes start with what this one holds (the response frame,
the analysis frame, the imported libraries), at no cost of sending it. Each process's
result comes back pickled through a pipe; a failure in any process is raised here once
all have ended, so that nothing the caller cleans up is still being written.

A forked process never outlives this one nor answers Ctrl-C itself (`forked_child`): it is
killed when its parent ends (Linux's parent-death signal), ignores SIGINT (the terminal
sends it to the whole job; this process stops and ends its children) and dies of SIGTERM.
A process that dies before its result came back is a `WorkerDied` naming what it did and
how it ended; when this process is interrupted (Ctrl-C) its children are killed, not
waited for.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from .errors import InputError, WorkerDied

T = TypeVar("T")
R = TypeVar("R")


def _taking(items: Sequence[T], taken: Any) -> Iterator[T]:
    """The items this process takes, one at a time.

    The next one no process has taken (`taken`, a counter shared by the processes).
    """
    for _, item in _indexed(items, taken):
        yield item


PR_SET_PDEATHSIG, PR_SET_NAME = 1, 15


def forked_child(role: str, parent: int) -> None:
    """Make this freshly forked process one that never outlives `parent` and leaves Ctrl-C to it.

    SIGKILL when the parent ends (PR_SET_PDEATHSIG; on Linux, elsewhere nothing), its
    name `ps-<role>` (as `ps` and `top` show it), SIGINT ignored, SIGTERM fatal, and the
    signals the fork held (`signals_held`) let through. A parent already gone ends it.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        libc.prctl(PR_SET_NAME, ctypes.c_char_p(f"ps-{role}"[:15].encode()), 0, 0, 0)
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    if os.getppid() != parent:
        os._exit(1)


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM while forking, so that a child has its own handlers before it can receive one.

    The child's handlers are set by `forked_child`; held signals reach this process
    afterwards.
    """
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def died(process: Any, doing: str) -> WorkerDied:
    """The error of a forked process (joined) that ended without its result."""
    code = process.exitcode
    how = f"was killed by {signal.Signals(-code).name}" if code is not None and code < 0 else f"exited with code {code}"
    return WorkerDied(f"the worker process {doing} {how} before it finished")


def _kill(processes: Sequence[Any]) -> None:
    """End forked processes at once (this one is stopping) and reap them."""
    for process in processes:
        with contextlib.suppress(OSError, ValueError):
            process.kill()
    for process in processes:
        process.join()


def _child(work: Callable[[Iterator[Any]], Any], items: Iterator[Any], conn: Any, role: str, parent: int) -> None:
    forked_child(role, parent)
    try:
        conn.send(("ok", work(items)))
    except BaseException as ex:  # sent to the parent, which raises it
        conn.send(("error", (type(ex).__name__, str(ex), isinstance(ex, InputError))))
    finally:
        conn.close()


def worker_count(jobs: int | None, items: int) -> int:
    """The processes `shared_work` uses.

    `jobs` (default: one per CPU), at most one per item, one where the platform cannot
    fork.
    """
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return max(1, min(jobs or os.cpu_count() or 1, items))


def shared_work(
    work: Callable[[Iterator[T]], R], items: Sequence[T], jobs: int | None = None, doing: str = "sharing the work"
) -> list[R]:
    """`work` run by `worker_count(jobs, len(items))` processes (this one and forked ones), each on the items it takes.

    One result per process, this process's first. An error in a forked process is raised
    here once every process has ended: an `InputError` as itself (its one-line message),
    a process that died as `WorkerDied` (saying it was `doing`), any other as a
    RuntimeError naming its type. Interrupted here (Ctrl-C), the forked processes are
    killed rather than waited for.
    """
    n = worker_count(jobs, len(items))
    if n == 1:
        return [work(iter(items))]
    context = multiprocessing.get_context("fork")
    taken = context.Value("l", 0)
    children: list[tuple[Any, Any]] = []
    results: list[R] = []
    failure: tuple[str, str, bool] | WorkerDied | None = None
    try:
        for _ in range(n - 1):
            receive, send = context.Pipe(duplex=False)
            args = (work, _taking(items, taken), send, "worker", os.getpid())
            process = context.Process(target=_child, args=args, daemon=True)
            with signals_held():
                process.start()
            send.close()
            children.append((process, receive))
        results.append(work(_watched(_taking(items, taken), [process for process, _ in children], doing)))
    except BaseException as ex:
        if not isinstance(ex, Exception) or isinstance(ex, WorkerDied):  # nothing of this work is kept
            _kill([process for process, _ in children])
        raise
    finally:
        for process, receive in children:
            try:
                status, payload = receive.recv()
            except EOFError:
                process.join()  # its exit code is set once it is joined
                status, payload = "died", died(process, doing)
            process.join()
            if status == "ok":
                results.append(payload)
            else:
                failure = failure or payload
    if isinstance(failure, WorkerDied):
        raise failure
    if failure:
        name, message, is_input = failure
        raise InputError(message) if is_input else RuntimeError(f"{name}: {message}")
    return results


def _watched(items: Iterator[T], processes: list[Any], doing: str) -> Iterator[T]:
    """`items`, this process's share, each taken only while no forked process has died.

    A death stops the work at once (`WorkerDied`) rather than once this process's share is
    done.
    """
    for item in items:
        for process in processes:
            if not process.is_alive() and process.exitcode != 0:
                raise died(process, doing)
        yield item


def forked_map(fn: Callable[[T], R], items: Sequence[T], processes: int, doing: str) -> Iterator[R]:
    """`fn(item)` of each item, in order, computed by `processes` forked processes.

    Each process takes the next item no process has taken; results come as they are ready
    (in order). A process that dies raises `WorkerDied` (saying it was `doing`), an error
    in `fn` is raised as `shared_work` raises it; leaving early (an error, Ctrl-C, the
    caller closing the iterator) kills the processes.
    """
    from multiprocessing.connection import wait

    context = multiprocessing.get_context("fork")
    taken = context.Value("l", 0)
    live: dict[Any, Any] = {}
    ready: dict[int, Any] = {}
    try:
        for _ in range(processes):
            receive, send = context.Pipe(duplex=False)
            process = context.Process(target=_mapper, args=(fn, items, taken, send, os.getpid()), daemon=True)
            with signals_held():
                process.start()
            send.close()
            live[receive] = process
        for index in range(len(items)):
            while index not in ready:
                for conn in wait(list(live)):
                    try:
                        message: Any = conn.recv()  # type: ignore[union-attr, call-arg]
                    except EOFError:
                        process = live.pop(conn)
                        process.join()
                        raise died(process, doing) from None
                    if message is None:  # this process has taken its last item
                        live.pop(conn).join()
                    else:
                        ready[message[0]] = message[1:]
            status, payload = ready.pop(index)
            if status != "ok":
                name, text, is_input = payload
                raise InputError(text) if is_input else RuntimeError(f"{name}: {text}")
            yield payload
    finally:
        _kill(list(live.values()))


def _mapper(fn: Callable[[Any], Any], items: Sequence[Any], taken: Any, conn: Any, parent: int) -> None:
    """A `forked_map` process: each item it takes, sent back with its index; None at the end."""
    forked_child("reader", parent)
    try:
        for item_index, item in _indexed(items, taken):
            try:
                conn.send((item_index, "ok", fn(item)))
            except Exception as ex:
                conn.send((item_index, "error", (type(ex).__name__, str(ex), isinstance(ex, InputError))))
        conn.send(None)
    finally:
        conn.close()


def _indexed(items: Sequence[T], taken: Any) -> Iterator[tuple[int, T]]:
    """(index, item) of each item this process takes.

    The next one no process has taken (`taken`, a counter shared by the processes).
    """
    while True:
        with taken.get_lock():
            index = taken.value
            taken.value += 1
        if index >= len(items):
            return
        yield index, items[index]


class EarlyWorker:
    """A process forked before this one's long serial work, that prepares meanwhile and then runs one call sent to it.

    It imports what it will need, on the CPU this one leaves idle: for work that must wait
    for this process's results without paying its imports after them. `run` sends the call
    (a module-level function and picklable arguments) and returns its result, raising its
    error as `shared_work` does; `close` ends a worker never used. Without fork the call
    runs here. A preparation that fails is left to the call, which meets the same failure
    itself.
    """

    def __init__(self, prepare: Callable[[], object], doing: str = "working ahead") -> None:
        self.process: Any = None
        self.doing = doing
        if "fork" not in multiprocessing.get_all_start_methods():
            return
        context = multiprocessing.get_context("fork")
        receive_call, self.send_call = context.Pipe(duplex=False)
        self.receive_result, send_result = context.Pipe(duplex=False)
        args = (prepare, receive_call, send_result, (self.send_call, self.receive_result), os.getpid())
        self.process = context.Process(target=_serve, args=args, daemon=True)
        with signals_held():
            self.process.start()
        receive_call.close()
        send_result.close()

    def run(self, fn: Callable[..., R], *args: Any) -> R:
        """`fn(*args)` in the worker (here without fork); its error raised here, its death as `WorkerDied`."""
        if self.process is None:
            return fn(*args)
        try:
            self.send_call.send((fn, args))
            status, payload = self.receive_result.recv()
        except (EOFError, OSError):
            self.process.join()  # its exit code is set once it is joined
            status, payload = "died", died(self.process, self.doing)
        except BaseException:  # interrupted: the worker is killed, not waited for
            self.close(kill=True)
            raise
        finally:
            self.close()
        if status == "ok":
            return payload
        if isinstance(payload, WorkerDied):
            raise payload
        name, message, is_input = payload
        raise InputError(message) if is_input else RuntimeError(f"{name}: {message}")

    def check(self) -> None:
        """Raise `WorkerDied` if the worker died (while it prepared or waited for its call)."""
        if self.process is not None and not self.process.is_alive():
            self.process.join()
            raise died(self.process, self.doing)

    def close(self, kill: bool = False) -> None:
        """End the worker: let it finish (a worker never used returns at once), or `kill` it."""
        if self.process is None:
            return
        self.send_call.close()
        self.receive_result.close()
        if kill:
            _kill([self.process])
        self.process.join()
        self.process = None


def _serve(
    prepare: Callable[[], object], receive_call: Any, send_result: Any, parent_ends: tuple[Any, ...], parent: int
) -> None:
    """The early worker: prepare, then run the one call sent.

    No call comes when the parent closes its end (which this process's inherited copy,
    closed first, would otherwise keep open).
    """
    forked_child("early", parent)
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

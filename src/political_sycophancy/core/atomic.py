"""Atomic file writes for the analysis outputs and the frame cache.

A file is written to a temporary sibling and renamed over its target, so a killed
`analyze` never leaves a half-written table, report or cache file. The temporary name
records the host and process id; a later run removes the temporary files of processes
that are gone (same host) or that are older than a day (any host, e.g. on a shared drive),
so a kill leaves no orphan behind for long.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import stat
import time
import uuid
from pathlib import Path
from types import TracebackType

TEMP_SUFFIX = ".ps-tmp"
STALE_SECONDS = 24 * 3600
_TEMP_NAME = re.compile(r"^\.(?P<stem>.+)\.(?P<host>[^.]+)\.(?P<pid>\d+)\.[0-9a-f]{8}" + re.escape(TEMP_SUFFIX) + "$")


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", socket.gethostname()) or "host"


def temp_path(target: Path, pid: int | None = None) -> Path:
    """A fresh temporary sibling of `target` for the writer process `pid` (default: this one).

    It is named so that `clean_stale_temp` can tell whether its writer is still alive.
    """
    return target.with_name(f".{target.name}.{_host()}.{pid or os.getpid()}.{uuid.uuid4().hex[:8]}{TEMP_SUFFIX}")


def write_atomic(target: Path, data: bytes | str) -> None:
    """Write `data` to `target` through a temporary sibling and a rename."""
    target = Path(target)
    tmp = temp_path(target)
    try:
        if isinstance(data, str):
            tmp.write_text(data, encoding="utf-8")
        else:
            tmp.write_bytes(data)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_stale_temp(directory: Path, *, recursive: bool = False) -> int:
    """Remove the temporary files that killed writers left in `directory`; returns how many."""
    directory = Path(directory)
    if not directory.is_dir():
        return 0
    removed = 0
    now = time.time()
    host = _host()
    for path in directory.rglob(f"*{TEMP_SUFFIX}") if recursive else directory.glob(f"*{TEMP_SUFFIX}"):
        match = _TEMP_NAME.match(path.name)
        if not match or not path.is_file():
            continue
        try:
            old = now - path.stat().st_mtime > STALE_SECONDS
        except OSError:
            continue
        dead = match["host"] == host and int(match["pid"]) != os.getpid() and not _alive(int(match["pid"]))
        if old or dead:
            path.unlink(missing_ok=True)
            removed += 1
    return removed


# --- a whole output folder, replaced in one step ------------------------------------------

FOLDER_TEMP = ".analyze-tmp"
FOLDER_OLD = ".analyze-old"
LOCK_SUFFIX = ".analyze.lock"


class FolderBusy(Exception):
    """Another process is writing the same output folder."""


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux renameat2 RENAME_EXCHANGE); False where unsupported."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    done = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0
    if not done and ctypes.get_errno() not in (22, 38, 95):  # EINVAL, ENOSYS, EOPNOTSUPP: not here
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), str(b))
    return done


class FolderWrite:
    """Write a whole output folder into a fresh temporary sibling, then put it in place of the old one in one step.

    Done under a lock beside it, so that two runs into one folder never mix, stale files
    never survive, and a run that fails or is killed leaves the old folder whole. `owned`
    names what the folder may hold: a folder holding anything else is the user's, not ours
    to replace (`foreign` says what).
    """

    def __init__(self, target: Path, owned: frozenset[str]) -> None:
        self.target = Path(target).resolve()  # a symlinked --out: its real folder is replaced, not the link
        self.owned = owned
        self.parent = self.target.parent
        self.lock_path = self.parent / f".{self.target.name}{LOCK_SUFFIX}"
        self.temp: Path | None = None
        self._lock_fd: int | None = None

    def foreign(self) -> list[str]:
        """Names in the existing folder that this writer did not make."""
        if not self.target.is_dir():
            return []
        return sorted(
            p.name for p in self.target.iterdir() if p.name not in self.owned and not _TEMP_NAME.match(p.name)
        )

    def open(self) -> Path:
        """Take the lock (FolderBusy when another process holds it) and make the temporary folder to write into."""
        import fcntl

        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            # a POSIX record lock, not flock: a forked worker does not inherit it, so a run killed
            # with SIGKILL frees --out at once, not when its workers' death signal arrives
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except (BlockingIOError, PermissionError):
            os.close(fd)
            raise FolderBusy(str(self.target)) from None
        self._lock_fd = fd
        try:
            self._clean_leftovers()
            self.temp = self.parent / f".{self.target.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}{FOLDER_TEMP}"
            self.temp.mkdir()
            mode = stat.S_IMODE(self.target.stat().st_mode) if self.target.is_dir() else 0o777 & ~_umask()
            self.temp.chmod(mode)
        except BaseException:
            self._release()
            raise
        return self.temp

    def _clean_leftovers(self) -> None:
        """Temporary folders of earlier runs into this folder (killed ones).

        No run holds them, since this one holds the lock.
        """
        for suffix in (FOLDER_TEMP, FOLDER_OLD):
            for path in self.parent.glob(f".{_glob_escape(self.target.name)}.*{suffix}"):
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path, ignore_errors=True)

    def close(self, commit: bool) -> None:
        """Put the written folder in place (when `commit`) or drop it; release the lock."""
        try:
            if commit and self.temp is not None:
                self._commit(self.temp)
        finally:
            if self.temp is not None and self.temp.exists():
                shutil.rmtree(self.temp, ignore_errors=True)
            self._release()

    def __enter__(self) -> Path:
        return self.open()

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.close(commit=kind is None)

    def _commit(self, temp: Path) -> None:
        if not self.target.exists():
            os.rename(temp, self.target)
            return
        if not _exchange(temp, self.target):
            old = temp.with_name(temp.name.removesuffix(FOLDER_TEMP) + FOLDER_OLD)
            os.rename(self.target, old)
            os.rename(temp, self.target)
            temp = old
        shutil.rmtree(temp, ignore_errors=True)  # now the old folder

    def _release(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing drops the lock; the lock file stays (unlinking it races)
            self._lock_fd = None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _glob_escape(name: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", name)

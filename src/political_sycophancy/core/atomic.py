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
import socket
import time
import uuid
from pathlib import Path

TEMP_SUFFIX = ".ps-tmp"
STALE_SECONDS = 24 * 3600
_TEMP_NAME = re.compile(r"^\.(?P<stem>.+)\.(?P<host>[^.]+)\.(?P<pid>\d+)\.[0-9a-f]{8}" + re.escape(TEMP_SUFFIX) + "$")


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", socket.gethostname()) or "host"


def temp_path(target: Path, pid: int | None = None) -> Path:
    """A fresh temporary sibling of `target` for the writer process `pid` (default: this
    one), named so that `clean_stale_temp` can tell whether its writer is still alive."""
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

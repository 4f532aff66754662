"""What a log folder holds, from one bounded walk (`core.folders.folder_entries`).

The logs the analysis reads, as Inspect lists them; the eval-set manifests and the markers
of unfinished imports; and what is neither read nor opened, named for the notes.

The logs are those Inspect's `list_eval_logs` lists (regular files; symbolic links and
FIFOs are not followed nor opened): every `.eval` file, and `.json` files whose names start
with a full ISO timestamp; hidden folders included, our frame cache left out. Walked here
rather than through Inspect, whose import costs about 2.5 s that a run served by the frame
cache need not pay (tests/test_logs_listing.py checks both list the same files). Light on
purpose (no pandas): `analyze` lists the folder before it writes anything.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import InputError
from ..core.folders import FolderEntry, folder_entries, folder_problem
from ..core.io import FRAME_CACHE_DIR, IMPORT_MARKER_PREFIX, IMPORT_MARKER_SUFFIX, file_kind

# Inspect's rule for which files of a folder are logs (`inspect_ai.log._file.is_log_file`).
LOG_JSON_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}[:-]\d{2}[:-]\d{2}.*\.json$")
MANIFEST = "eval-set.json"


def is_log_name(name: str) -> bool:
    """Whether Inspect lists a file of this name as a log."""
    return name.endswith(".eval") or LOG_JSON_NAME.match(name) is not None


@dataclass
class Listing:
    """A log folder's walk: its logs, eval-set manifests and import markers, and what was skipped.

    Logs as (absolute path, size, mtime; in path order), manifests and markers as regular
    files, the entries skipped (`relative path (what it is)`) and the folders that could
    not be listed.
    """

    root: Path
    entries: list[FolderEntry]
    logs: list[tuple[Path, int, float]] = field(default_factory=list)
    manifests: list[Path] = field(default_factory=list)
    markers: list[Path] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    unlistable: list[str] = field(default_factory=list)


def log_folder(log_dir: str | Path) -> Path:
    """The absolute log folder (as Inspect names its logs), or an `InputError` saying why the path is none.

    The reason comes from `core.folders.folder_problem`.
    """
    problem = folder_problem(log_dir)
    if problem:  # a folder, not a file: named as one
        raise InputError(f"log folder {log_dir}: {problem}")
    return Path(os.path.abspath(log_dir))


def list_folder(log_dir: str | Path, entries: Sequence[FolderEntry] | None = None) -> Listing:
    """The `Listing` of a log folder (from `entries` when the caller walked it already)."""
    root = log_folder(log_dir)
    walked = list(entries) if entries is not None else folder_entries(root, skip=(FRAME_CACHE_DIR,))
    listing = Listing(root, walked)
    for entry in walked:
        name = entry.rel.rsplit("/", 1)[-1]
        if entry.st is None:
            if entry.error is not None and entry.error.errno in (errno.ENOTDIR, errno.ENOENT):
                continue  # gone or replaced while walked
            listing.unlistable.append(
                f"{entry.rel} ({'cannot be listed' if entry.unlisted else 'cannot be read'}: "
                f"{entry.error.strerror if entry.error else 'unknown error'})"
            )
        elif stat.S_ISREG(entry.st.st_mode):
            path = root / entry.rel
            if is_log_name(name):
                listing.logs.append((path, entry.st.st_size, entry.st.st_mtime))
            elif name == MANIFEST:
                listing.manifests.append(path)
            elif name.startswith(IMPORT_MARKER_PREFIX) and name.endswith(IMPORT_MARKER_SUFFIX):
                listing.markers.append(path)
        else:
            listing.skipped.append(f"{entry.rel} ({describe(root / entry.rel, entry.st)})")
    listing.logs.sort()
    return listing


def describe(path: Path, st: os.stat_result) -> str:
    """What a non-regular entry is, in words (a link says what it points to)."""
    if not stat.S_ISLNK(st.st_mode):
        return file_kind(st.st_mode)
    try:
        target = path.stat()
    except OSError as ex:
        return "a symbolic link loop" if ex.errno == errno.ELOOP else "a broken symbolic link"
    if stat.S_ISDIR(target.st_mode):
        return "a symbolic link to a folder"
    return (
        "a symbolic link to a file"
        if stat.S_ISREG(target.st_mode)
        else f"a symbolic link to {file_kind(target.st_mode)}"
    )


def list_logs(log_dir: Path) -> list[tuple[Path, int, float]]:
    """Log files (path, size, mtime) under `log_dir`, as Inspect's `list_eval_logs` lists them."""
    return list_folder(log_dir).logs


def skipped_entries(log_dir: Path) -> list[str]:
    """The entries under `log_dir` that neither Inspect's listing nor the analysis reads.

    Each as `relative path (what it is)`.
    """
    return sorted(list_folder(log_dir).skipped)


def walk_notes(listing: Listing) -> list[str]:
    """The notes on what the walk skipped and could not list."""
    notes = []
    if listing.skipped:
        n = len(listing.skipped)
        notes.append(
            f"skipped {n} entr{'y' if n == 1 else 'ies'} under the log folder that are not regular files or folders "
            "(Inspect lists neither; copy a log in to have it read): "
            + "; ".join(listing.skipped[:5])
            + (" ..." if n > 5 else "")
        )
    if listing.unlistable:
        notes.append(
            f"could not list {len(listing.unlistable)} folder(s) or entr(ies) under the log folder: "
            + "; ".join(listing.unlistable[:5])
            + (" ..." if len(listing.unlistable) > 5 else "")
        )
    return notes


def folder_of(log_files: list[str], shown: str) -> str:
    """The folder holding all of these logs, as the user would name it (under `shown`)."""
    common = Path(os.path.commonpath([os.path.dirname(f) for f in log_files]))
    root = Path(os.path.abspath(shown))
    return str(Path(shown) / common.relative_to(root)) if common.is_relative_to(root) else str(common)

"""An input folder (a log folder) checked and walked with bounds.

No path a user can give makes a command hang, loop or read what is not its input.

`folder_problem` says why a path cannot be an input folder (an empty path, a symbolic-link
loop, the filesystem root: a walk of `/` never ends in practice, `path_problem`; missing,
not a folder).
`folder_entries` lists everything under a folder in one walk: no symbolic link is
followed (a link can lead out of the folder, to a device, or round in a loop; it is listed
as what it is), a folder that cannot be listed is listed with its error, and a walk that
meets more than `MAX_FOLDER_ENTRIES` entries stops with an `InputError` (a folder that
large is not a log folder). The analysis lists its logs, its reuse key and what it skips
from this one walk.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from .errors import InputError
from .io import file_kind

# far above a real log folder (an eval set of the paper's 100x grid holds about 2,000 logs)
MAX_FOLDER_ENTRIES = 200_000
GIVE = "give the folder that holds the .eval logs"


def path_problem(path: str | os.PathLike[str]) -> str | None:
    """Why `path` can be no input folder whatever the filesystem holds, or None.

    An empty path, the filesystem root, a symbolic link loop.
    """
    text = os.fspath(path)
    if not text.strip():
        return f"an empty path; {GIVE}"
    try:
        os.stat(text)
    except OSError as ex:
        if ex.errno == errno.ELOOP:
            return f"a symbolic link loop; {GIVE}"
    if os.path.dirname(os.path.realpath(text)) == os.path.realpath(text):
        return f"the filesystem root, not a log folder; {GIVE}"
    return None


def folder_problem(path: str | os.PathLike[str]) -> str | None:
    """Why `path` cannot be read as an input folder, or None.

    `path_problem`, and missing, unreadable or not a folder.
    """
    if problem := path_problem(path):
        return problem
    try:
        st = os.stat(path)
    except OSError as ex:
        return (
            "not found (no such folder or path)"
            if ex.errno == errno.ENOENT
            else f"cannot be read ({ex.strerror or ex})"
        )
    if stat.S_ISDIR(st.st_mode):
        return None
    kind = "a regular file" if stat.S_ISREG(st.st_mode) else file_kind(st.st_mode)
    return f"not a directory ({kind}; {GIVE})"


def input_folder(text: str) -> str:
    """An argparse `type=` for an input folder.

    What no filesystem makes a folder refused in one line where it is parsed (`path_problem`;
    a missing folder is the command's to refuse, before it writes anything).
    """
    import argparse

    problem = path_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(f"{text}: {problem}" if text.strip() else problem)
    return text


@dataclass(frozen=True)
class FolderEntry:
    """One entry under the walked folder that is not a folder itself.

    Its path relative to the folder (POSIX), its `lstat` (None with `error`: an entry that
    could not be read, or a folder that could not be listed, `unlisted`).
    """

    rel: str
    st: os.stat_result | None
    error: OSError | None = None
    unlisted: bool = False


def folder_entries(
    root: str | Path, *, skip: Collection[str] = (), limit: int = MAX_FOLDER_ENTRIES
) -> list[FolderEntry]:
    """Every entry under `root` that is not a folder, sorted by relative path, walked with bounds.

    Files, symbolic links, FIFOs, devices, sockets; and each folder that cannot be
    listed, with its error. Folders named in `skip` are not entered, no link is followed.
    More than `limit` entries (folders included) is an `InputError`.
    """
    root = Path(root)
    out: list[FolderEntry] = []
    seen = 0
    stack = [""]
    while stack:
        rel = stack.pop()
        try:
            with os.scandir(root / rel if rel else root) as listing:
                entries = list(listing)
        except OSError as ex:
            out.append(FolderEntry(rel or ".", None, ex, unlisted=True))
            continue
        seen += len(entries)
        if seen > limit:
            raise InputError(
                f"more than {limit:,} entries under it (stopped listing in {rel or '.'}); {GIVE}", file=root
            )
        for entry in entries:
            path = f"{rel}/{entry.name}" if rel else entry.name
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError as ex:
                out.append(FolderEntry(path, None, ex))
                continue
            if stat.S_ISDIR(st.st_mode):
                if entry.name not in skip:
                    stack.append(path)
            else:
                out.append(FolderEntry(path, st))
    return sorted(out, key=lambda e: e.rel)

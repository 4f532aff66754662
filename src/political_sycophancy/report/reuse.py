"""Reuse of a finished analysis whose inputs have not changed (a warm `analyze`).

An analysis is a pure function of the log files, the options and the code. `analyze`
stores what it wrote (tables, summary.json, report.md/.html, figures and its printed
summary) under a key made of all of them, and a later run with the same key copies the
stored files into its `--out` instead of computing them again: no log, pandas or figure
library is touched. The key holds:

- every entry under the log folder but the frame cache, an audit's lock and Inspect's
  listing cache `logs.json` (none of them is read by the analysis, and re-running a
  finished audit rewrites them): relative path, size, and the content's hash for files
  up to `CONTENT_HASH_BYTES` (eval-set manifests, small logs), else the modification
  time in nanoseconds, the test the frame cache uses (a large log edited in place
  keeping both is not seen); a file it cannot read, a symbolic link or a folder it cannot
  list enters the key as such (the analysis counts them); and the folder's absolute path;
- every option of the command, and the output folder's absolute path (so two folders'
  runs never cross);
- the code: a hash of every file of the installed package and the versions of Python
  and the libraries the analysis computes with.

The store lives in the user's cache folder (`$POLITICAL_SYCOPHANCY_CACHE`, else
`$XDG_CACHE_HOME/political-sycophancy/analyses`, else `~/.cache/...`), never in the log
folder: a log folder is shared data, and a report copied from it could carry script into
the reader's browser. The key can be computed by anyone who can read the logs, so the
store serves only what this user wrote: the store folder, every entry and every file in
it must be owned by the user and writable by no one else, and be a plain folder or file
(no symbolic link is followed); each stored file's SHA-256 is checked before it is copied.
Anything else is not served: the analysis is computed again, with one line saying why.
The store deletes only entries it can prove are its own (named by a key, owned by the
user, holding a manifest that names this package, its format and that key): a damaged
entry of its own, and all but the newest `KEEP`; never another folder. Only analyses
whose sections all succeeded are stored.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from ..core.folders import FolderEntry, folder_entries
from ..core.io import FRAME_CACHE_DIR, LOCK_FILE

PACKAGE = "political-sycophancy"
REUSE_VERSION = 2
KEEP = 6
MANIFEST = "manifest.json"
FILES = "files"
ENTRY_NAME = re.compile(r"^[0-9a-f]{40}$")
# files of a log folder that are not analysis input (see the module docstring)
NOT_INPUT = (LOCK_FILE, "logs.json")
CONTENT_HASH_BYTES = 1 << 20
# libraries whose version can change a number, a table or a figure
LIBRARIES = ("numpy", "pandas", "scipy", "statsmodels", "matplotlib", "pyarrow", "inspect_ai")


class StoreUnusable(Exception):
    """The store folder cannot be used (the message says why); nothing is reused or stored."""


class StoreInvalid(Exception):
    """A stored analysis that is not served (the message says why)."""


def store_root() -> Path:
    """Where analyses are stored (see the module docstring)."""
    if os.environ.get("POLITICAL_SYCOPHANCY_CACHE"):
        return Path(os.environ["POLITICAL_SYCOPHANCY_CACHE"]).absolute()
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and Path(xdg).is_absolute():
        base = Path(xdg)
    else:
        try:
            base = Path.home() / ".cache"
        except RuntimeError as ex:  # no HOME and no password entry
            raise StoreUnusable(f"no home folder ({ex})") from None
    return base / "political-sycophancy" / "analyses"


def not_private(path: Path, what: str) -> str | None:
    """Why `path` is not this user's own plain file or folder, or None."""
    try:
        st = os.lstat(path)
    except OSError as ex:
        return f"{what} {path} cannot be read ({ex.strerror or ex})"
    if stat.S_ISLNK(st.st_mode):
        return f"{what} {path} is a symbolic link"
    if not (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
        return f"{what} {path} is not a plain file or folder"
    if st.st_uid != os.geteuid():
        return f"{what} {path} is owned by another user (uid {st.st_uid})"
    if st.st_mode & 0o022:
        return f"{what} {path} is writable by other users (mode {stat.S_IMODE(st.st_mode):o})"
    return None


def code_fingerprint() -> str:
    """A hash of every file of the installed package and of the versions it computes with."""
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    versions: dict[str, str | None] = {"python": sys.version}
    for name in LIBRARIES:
        try:
            versions[name] = metadata.version(name.replace("_", "-"))
        except metadata.PackageNotFoundError:
            versions[name] = None
    digest.update(json.dumps(versions, sort_keys=True).encode())
    return digest.hexdigest()


def log_listing(log_dir: Path, entries: Sequence[FolderEntry] | None = None) -> list[tuple[str, Any, Any]]:
    """The log folder's input entries.

    (relative path, size, content hash or mtime ns), or (relative path, kind, detail) for
    what the analysis cannot read as a file; from its one bounded walk
    (`core.folders.folder_entries`; `entries` when the caller walked it).
    """
    out: list[tuple[str, Any, Any]] = []
    for entry in folder_entries(log_dir, skip=(FRAME_CACHE_DIR,)) if entries is None else entries:
        if entry.rel.rsplit("/", 1)[-1] in NOT_INPUT:
            continue
        st, path = entry.st, log_dir / entry.rel
        if st is None:
            errno = entry.error.errno if entry.error else None
            out.append((entry.rel, "unlistable" if entry.unlisted else "unreadable", errno))
        elif stat.S_ISLNK(st.st_mode):
            out.append((entry.rel, "symlink", _link(path)))
        elif not stat.S_ISREG(st.st_mode):
            out.append((entry.rel, "not a file", stat.S_IFMT(st.st_mode)))
        else:
            try:
                content = _sha256(path) if st.st_size <= CONTENT_HASH_BYTES else st.st_mtime_ns
                out.append((entry.rel, st.st_size, content))
            except OSError as ex:
                out.append((entry.rel, "unreadable", ex.errno))
    return sorted(out, key=lambda e: e[0])


def _link(path: Path) -> str | None:
    try:
        return os.readlink(path)
    except OSError:
        return None


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _read(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as f:
        return f.read()


@dataclass(frozen=True)
class Reuse:
    """The key of one analysis and its place in the store."""

    key: str
    root: Path

    @classmethod
    def of(
        cls,
        log_dir: str | Path,
        options: dict[str, Any],
        out_dir: str | Path,
        root: Path | None = None,
        listing: list[tuple[str, Any, Any]] | None = None,
    ) -> Reuse:
        """The store key of analysing `log_dir` with `options` into `out_dir`.

        The key of analysing `log_dir` with `options` into `out_dir` (`listing`: the
        folder's `log_listing`, when already made; StoreUnusable when no store location can
        be named).
        """
        folder = Path(log_dir).resolve()
        inputs = {
            "version": REUSE_VERSION,
            "log_dir": str(folder),
            "out": str(Path(out_dir).resolve()),
            "logs": log_listing(folder) if listing is None else listing,
            "options": {k: options[k] for k in sorted(options)},
            "code": code_fingerprint(),
        }
        key = hashlib.sha256(json.dumps(inputs, sort_keys=True, default=str).encode()).hexdigest()
        return cls(key, root or store_root())

    @property
    def entry(self) -> Path:
        """The analysis's folder in the store, named by its key."""
        return self.root / self.key[:40]

    def _root_usable(self, create: bool) -> bool:
        """Whether the store folder exists and is private (created private when `create`).

        StoreUnusable when it is not this user's own.
        """
        if create and not os.path.lexists(self.root):
            try:
                self.root.mkdir(parents=True, mode=0o700)
            except OSError as ex:
                raise StoreUnusable(f"cannot create {self.root} ({ex.strerror or ex})") from None
        elif not os.path.lexists(self.root):
            return False
        reason = not_private(self.root, "the store folder")
        if reason:
            raise StoreUnusable(reason)
        return True

    def restore(self, out_dir: str | Path) -> tuple[list[str], str] | None:
        """Copy the stored analysis into `out_dir`.

        (its printed lines, when it was computed), or None when nothing is stored;
        StoreInvalid when what is stored is not served (a damaged entry of this store's own
        is deleted), StoreUnusable for the store folder.
        """
        loaded = self.load()
        if loaded is None:
            return None
        contents, lines, created = loaded
        out = Path(out_dir)
        for rel, data in contents.items():
            target = out / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        return lines, created

    def lines(self) -> list[str] | None:
        """The stored lines alone (no stored file is read), or None when nothing is stored; the errors of `load`."""
        manifest = self._served_manifest()
        return None if manifest is None else [str(line) for line in manifest["lines"]]

    def load(self) -> tuple[dict[str, bytes], list[str], str] | None:
        """The stored files, lines and creation time, each file checked, or None when nothing is stored.

        The stored files (relative path -> bytes, each checked against its SHA-256), lines
        and creation time, or None when nothing is stored; StoreInvalid when what is stored
        is not served (a damaged entry of this store's own is deleted), StoreUnusable for
        the store folder. Marks the entry most recently used.
        """
        manifest = self._served_manifest()
        if manifest is None:
            return None
        try:
            contents = {}
            for rel, sha in manifest["files"].items():
                parts = Path(rel).parts
                if Path(rel).is_absolute() or ".." in parts or not parts or not isinstance(sha, str):
                    raise ValueError(f"bad file name {rel!r}")
                data = _read(self.entry / FILES / rel)
                if hashlib.sha256(data).hexdigest() != sha:
                    raise ValueError(f"{rel} differs from its stored checksum")
                contents[rel] = data
        except (OSError, ValueError, TypeError) as ex:
            self.delete_if_own()
            raise StoreInvalid(str(ex)) from ex
        os.utime(self.entry / MANIFEST)  # most recently used: kept longest
        return contents, [str(line) for line in manifest["lines"]], str(manifest["created"])

    def _served_manifest(self) -> dict[str, Any] | None:
        """The entry's manifest once every check but the files' checksums passed, or None when nothing is stored.

        The entry's manifest once the entry passed every check but the files' checksums, or
        None when nothing is stored (errors: see `load`).
        """
        if not self._root_usable(create=False) or not os.path.lexists(self.entry):
            return None
        reason = self._tree_reason()
        if reason:
            self.delete_if_own()
            raise StoreInvalid(reason)
        try:
            manifest = self._manifest()
            if (
                not isinstance(manifest["files"], dict)
                or not isinstance(manifest["lines"], list)
                or "created" not in manifest
            ):
                raise ValueError("manifest of another format")
        except (OSError, ValueError, KeyError, TypeError) as ex:
            self.delete_if_own()
            raise StoreInvalid(str(ex)) from ex
        return manifest

    def _tree_reason(self) -> str | None:
        """Why the entry is not served.

        Anything in it that is not the user's own plain file or folder, or a file the
        manifest does not name.
        """
        reason = not_private(self.entry, "the stored analysis")
        if reason:
            return reason
        for folder, dirs, files in os.walk(self.entry):
            for name in dirs + files:
                reason = not_private(Path(folder) / name, "a stored file")
                if reason:
                    return reason
        return None

    def _manifest(self, entry: Path | None = None) -> dict[str, Any]:
        """The entry's manifest when it names this package, its format and the entry's key."""
        entry = entry or self.entry
        manifest = json.loads(_read(entry / MANIFEST).decode("utf-8"))
        if (
            not isinstance(manifest, dict)
            or manifest.get("package") != PACKAGE
            or manifest.get("format") != REUSE_VERSION
        ):
            raise ValueError("not an analysis stored by this version of political-sycophancy")
        if not str(manifest.get("key", "")).startswith(entry.name) or not ENTRY_NAME.match(entry.name):
            raise ValueError("manifest of another analysis")
        return manifest

    def _own(self, entry: Path) -> bool:
        """Whether `entry` is provably this store's.

        Named by a key, the user's own folder and holding a manifest of this package and
        format for that key.
        """
        if not ENTRY_NAME.match(entry.name) or not_private(entry, "entry") or not_private(entry / MANIFEST, "manifest"):
            return False
        try:
            self._manifest(entry)
        except (OSError, ValueError, UnicodeDecodeError):
            return False
        return True

    def delete_if_own(self) -> None:
        """Delete the entry when it is provably this store's own (`_own`)."""
        if self._own(self.entry):
            shutil.rmtree(self.entry, ignore_errors=True)

    def store(self, out_dir: str | Path, lines: list[str]) -> None:
        """Store every file under `out_dir` (a folder this run wrote alone).

        StoreUnusable when the store folder, or an entry of another owner in its place,
        forbids it.
        """
        out = Path(out_dir)
        files = {
            path.relative_to(out).as_posix(): _read(path)
            for path in sorted(out.rglob("*"))
            if not path.is_symlink() and path.is_file()
        }
        self.store_files(files, lines)

    def store_files(self, files: dict[str, bytes], lines: list[str]) -> None:
        """Store `files` (relative path -> bytes) and `lines` under this key (see `store`)."""
        self._root_usable(create=True)
        if os.path.lexists(self.entry) and not self._own(self.entry):
            raise StoreUnusable(f"{self.entry} is in the way and is not this store's own")
        staging = self.root / f".{self.key[:40]}.{os.getpid()}.tmp"
        try:
            staging.mkdir(mode=0o700)
            manifest: dict[str, Any] = {
                "package": PACKAGE,
                "format": REUSE_VERSION,
                "key": self.key,
                "created": time.strftime("%Y-%m-%d %H:%M:%S"),
                "lines": lines,
                "files": {},
            }
            for rel, data in sorted(files.items()):
                target = staging / FILES / rel
                for folder in reversed(target.parents):
                    if folder.is_relative_to(staging) and not folder.exists():
                        folder.mkdir(mode=0o700)
                target.write_bytes(data)
                target.chmod(0o600)
                manifest["files"][rel] = hashlib.sha256(data).hexdigest()
            (staging / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
            (staging / MANIFEST).chmod(0o600)
            if os.path.lexists(self.entry):
                shutil.rmtree(self.entry)
            os.replace(staging, self.entry)
        except OSError as ex:
            raise StoreUnusable(f"cannot write {self.root} ({ex.strerror or ex})") from None
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        self._prune()

    def _prune(self) -> None:
        """Keep the newest `KEEP` of this store's own entries; touch nothing else."""
        own = [p for p in self.root.iterdir() if self._own(p)]
        own.sort(key=lambda p: (p / MANIFEST).stat().st_mtime, reverse=True)
        for old in own[KEEP:]:
            shutil.rmtree(old, ignore_errors=True)

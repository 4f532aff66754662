"""Reuse of a finished analysis whose inputs have not changed (a warm `analyze`).

An analysis is a pure function of the log files, the options and the code. `analyze`
stores what it wrote (tables, summary.json, report.md/.html, figures and its printed
summary) under a key made of all three, and a later run with the same key copies the
stored files into its `--out` instead of computing them again: no log, pandas or figure
library is touched. The key holds:

- every file under the log folder but the frame cache, an audit's lock and Inspect's
  listing cache `logs.json` (none of them is read by the analysis, and re-running a
  finished audit rewrites them): relative path, size, and the content's hash for files
  up to `CONTENT_HASH_BYTES` (eval-set manifests, small logs), else the modification
  time in nanoseconds, the test the frame cache uses (a large log edited in place
  keeping both is not seen); and the folder's absolute path;
- every option of the command except `--out` (bootstrap draws, seed, mixed-model
  specification, ...);
- the code: a hash of every file of the installed package and the versions of Python
  and the libraries the analysis computes with.

The store lives in the user's cache folder (`$POLITICAL_SYCOPHANCY_CACHE`, else
`$XDG_CACHE_HOME/political-sycophancy/analyses`, else `~/.cache/...`), never in the log
folder: a log folder is shared data, and a report copied from it could carry script into
the reader's browser. Each stored file's SHA-256 is checked before it is copied; a store
that fails the check is deleted and the analysis computed again. Only analyses whose
sections all succeeded are stored; the newest `KEEP` are kept.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from ..core.atomic import write_atomic
from ..core.io import FRAME_CACHE_DIR, LOCK_FILE

REUSE_VERSION = 1
KEEP = 6
MANIFEST = "manifest.json"
FILES = "files"
# files of a log folder that are not analysis input (see the module docstring)
NOT_INPUT = (LOCK_FILE, "logs.json")
CONTENT_HASH_BYTES = 1 << 20
# libraries whose version can change a number, a table or a figure
LIBRARIES = ("numpy", "pandas", "scipy", "statsmodels", "matplotlib", "pyarrow", "inspect_ai")


def store_root() -> Path:
    """Where analyses are stored (see the module docstring)."""
    if os.environ.get("POLITICAL_SYCOPHANCY_CACHE"):
        return Path(os.environ["POLITICAL_SYCOPHANCY_CACHE"])
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "political-sycophancy" / "analyses"


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


def log_listing(log_dir: Path) -> list[tuple[str, int, int | str]]:
    """The log folder's input files: (relative path, size, content hash or mtime ns)."""
    out: list[tuple[str, int, int | str]] = []
    for path in sorted(log_dir.rglob("*")):
        rel = path.relative_to(log_dir)
        if FRAME_CACHE_DIR in rel.parts or path.name in NOT_INPUT or not path.is_file():
            continue
        st = path.stat()
        out.append((rel.as_posix(), st.st_size, _sha256(path) if st.st_size <= CONTENT_HASH_BYTES else st.st_mtime_ns))
    return out


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class Reuse:
    """The key of one analysis and its place in the store."""

    key: str
    root: Path

    @classmethod
    def of(cls, log_dir: str | Path, options: dict[str, Any], root: Path | None = None) -> Reuse:
        folder = Path(log_dir).resolve()
        inputs = {
            "version": REUSE_VERSION,
            "log_dir": str(folder),
            "logs": log_listing(folder),
            "options": {k: options[k] for k in sorted(options)},
            "code": code_fingerprint(),
        }
        key = hashlib.sha256(json.dumps(inputs, sort_keys=True, default=str).encode()).hexdigest()
        return cls(key, root or store_root())

    @property
    def entry(self) -> Path:
        return self.root / self.key[:40]

    def restore(self, out_dir: str | Path) -> tuple[list[str], str] | None:
        """Copy the stored analysis into `out_dir`: (its printed lines, when it was computed),
        or None when nothing usable is stored (a store failing its check is deleted)."""
        manifest_path = self.entry / MANIFEST
        if not manifest_path.is_file():
            return None
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
            files = manifest["files"]
            lines = manifest["lines"]
            created = manifest["created"]
            if manifest.get("key") != self.key or not isinstance(files, dict) or not isinstance(lines, list):
                raise ValueError("manifest of another analysis")
            sources = {}
            for rel, sha in files.items():
                parts = Path(rel).parts
                if Path(rel).is_absolute() or ".." in parts or not parts or not isinstance(sha, str):
                    raise ValueError(f"bad file name {rel!r}")
                source = self.entry / FILES / rel
                if not source.is_file() or _sha256(source) != sha:
                    raise ValueError(f"{rel} differs from its stored checksum")
                sources[rel] = source
        except (OSError, ValueError, KeyError, TypeError) as ex:
            shutil.rmtree(self.entry, ignore_errors=True)
            raise StoreInvalid(str(ex)) from ex
        out = Path(out_dir)
        for rel, source in sources.items():
            target = out / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(target, source.read_bytes())
        os.utime(manifest_path)  # most recently used: kept longest
        return [str(line) for line in lines], str(created)

    def store(self, out_dir: str | Path, written_since: float, lines: list[str]) -> None:
        """Store the files this run wrote into `out_dir` (modified since `written_since`)."""
        out = Path(out_dir)
        files = [p for p in sorted(out.rglob("*")) if p.is_file() and p.stat().st_mtime >= written_since]
        self.root.mkdir(parents=True, exist_ok=True)
        staging = self.root / f".{self.key[:40]}.{os.getpid()}.tmp"
        shutil.rmtree(staging, ignore_errors=True)
        try:
            manifest: dict[str, Any] = {"key": self.key, "created": time.strftime("%Y-%m-%d %H:%M:%S"), "lines": lines, "files": {}}
            for path in files:
                rel = path.relative_to(out).as_posix()
                target = staging / FILES / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)
                manifest["files"][rel] = _sha256(target)
            (staging / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
            shutil.rmtree(self.entry, ignore_errors=True)
            os.replace(staging, self.entry)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        self._prune()

    def _prune(self) -> None:
        entries = [p for p in self.root.iterdir() if (p / MANIFEST).is_file()]
        entries.sort(key=lambda p: (p / MANIFEST).stat().st_mtime, reverse=True)
        for old in entries[KEEP:]:
            shutil.rmtree(old, ignore_errors=True)


class StoreInvalid(Exception):
    """A stored analysis that failed its check (deleted; the message says why)."""

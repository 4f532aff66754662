"""Section results kept between runs: a changed option recomputes only the sections that read it.

A section builder is a pure function of the tidy frame, the options it reads and the code
(`core.section`). `write_report` records the options each builder reads while it runs
(`stats.options`: every read of an option, also through an entry of the run cache another
section computed) and stores its result, the pickled `Section` and the bytes of every file
it wrote under the figure folder, under

- a group key: the section's name, the frame's identity (the log folder's absolute path
  and its listing, `reuse.log_listing`: what the whole-analysis store keys on) and the
  code (`reuse.code_fingerprint`), and
- within the group, the values of the options the section read.

A later run restores a section when one of its group's entries holds the values this run's
options have for the options that entry read (its figures are written into this run's
figure folder and the paths rewritten); every other section is computed and stored.
Reads are recorded, not declared, so an option a section starts to read enters its key
without a declaration to keep up to date.

The store is `sections/` in the whole-analysis store's folder (`reuse.store_root`) and has
its safety rules: each entry is a `reuse.Reuse` entry (the user's own private files and
folders, no symbolic link followed, every file's SHA-256 checked before it is served,
only entries provably its own deleted), and the store folder, `sections/` and each group
folder must be the user's own and writable by no one else. The pickle is read only from
such an entry, which only this user can have written. What is not served is computed
again with one line saying why. Each group keeps its newest `reuse.KEEP` entries, the
store its newest `KEEP_GROUPS` groups.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..core.section import Section
from ..stats.options import OPTION_NAMES, AnalysisOptions
from .reuse import (
    ENTRY_NAME,
    Reuse,
    StoreInvalid,
    StoreUnusable,
    code_fingerprint,
    log_listing,
    not_private,
    store_root,
)

SECTIONS = "sections"
SECTION_FILE = "section.pickle"
FIGURES = "figures"
STORE_VERSION = 1
# groups (one section of one log folder and code) kept: the sixteen sections of ten analyses
KEEP_GROUPS = 160


def option_values(options: AnalysisOptions, names: set[str] | frozenset[str]) -> dict[str, str]:
    """The options' values (as JSON) of `names`."""
    return {name: json.dumps(getattr(options, name), default=str) for name in sorted(names)}


def _hash(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


class SectionStore:
    """The stored section results of one frame (and code); `note` prints why something is not served or stored."""

    def __init__(self, frame_key: str, root: Path | None = None, note: Callable[[str], None] | None = None) -> None:
        self.frame_key = frame_key
        self.top = root or store_root()
        self.root = self.top / SECTIONS
        self.note = note or (lambda _line: None)
        self.usable = True

    @classmethod
    def of(
        cls,
        log_dir: str | Path,
        listing: list[Any] | None = None,
        root: Path | None = None,
        note: Callable[[str], None] | None = None,
    ) -> SectionStore:
        """The store of the frame read from `log_dir` (`listing`: its `log_listing`, when already made)."""
        folder = Path(log_dir).resolve()
        frame_key = _hash(
            {
                "version": STORE_VERSION,
                "log_dir": str(folder),
                "logs": log_listing(folder) if listing is None else listing,
                "code": code_fingerprint(),
            }
        )
        return cls(frame_key, root, note)

    def _group(self, name: str) -> Path:
        return self.root / _hash({"frame": self.frame_key, "section": name})[:40]

    def _folders(self, create: bool) -> bool:
        """Whether the store folder and `sections/` exist and are the user's own (made private when `create`).

        StoreUnusable when one is not.
        """
        for folder in (self.top, self.root):
            if not os.path.lexists(folder):
                if not create:
                    return False
                try:  # the store folder with its parents (a fresh machine has no ~/.cache), as report.reuse makes it
                    folder.mkdir(parents=folder == self.top, mode=0o700)
                except OSError as ex:
                    raise StoreUnusable(f"cannot create {folder} ({ex.strerror or ex})") from None
            if reason := not_private(folder, "the section store folder"):
                raise StoreUnusable(reason)
        return True

    def _unusable(self, ex: StoreUnusable) -> None:
        self.usable = False
        self.note(f"note: the section store is not used ({ex}); every section is computed and none is stored")

    def restore(self, name: str, options: AnalysisOptions, figure_dir: Path) -> tuple[Section | None] | None:
        """The stored result of section `name` when computed from the same option values, else None.

        (the stored result of section `name`,) when one was computed from the values
        `options` has for the options it read, its figures written under `figure_dir`; None
        when none is served.
        """
        if not self.usable:
            return None
        group = self._group(name)
        try:
            if not self._folders(create=False) or not os.path.lexists(group):
                return None
            if reason := not_private(group, "a section group"):
                raise StoreInvalid(reason)
            for child in sorted(group.iterdir()):
                if not ENTRY_NAME.match(child.name):
                    continue
                entry = Reuse(child.name, group)
                lines = entry.lines()
                reads = json.loads(lines[0]) if lines else None
                if not isinstance(reads, dict) or not set(reads) <= OPTION_NAMES:
                    raise StoreInvalid(f"{child.name} records no option reads of this version")
                if reads != option_values(options, set(reads)):
                    continue
                loaded = entry.load()
                if loaded is None:
                    continue
                os.utime(group)  # most recently used group: kept longest
                return (self._section(loaded[0], figure_dir),)
        except StoreUnusable as ex:
            self._unusable(ex)
        except StoreInvalid as ex:
            self.note(f"note: the stored section {name} is not served ({ex}); computing it again")
        except Exception as ex:  # an unreadable pickle or figure: computed again, said why
            self.note(f"note: the stored section {name} is not served ({type(ex).__name__}: {ex}); computing it again")
        return None

    @staticmethod
    def _section(contents: dict[str, bytes], figure_dir: Path) -> Section | None:
        section = pickle.loads(contents[SECTION_FILE])  # the user's own, checked entry (module docstring)
        if section is not None and not isinstance(section, Section):
            raise ValueError(f"{SECTION_FILE} holds a {type(section).__name__}, not a section")
        for rel, data in contents.items():
            if rel.startswith(f"{FIGURES}/"):
                target = figure_dir / rel.removeprefix(f"{FIGURES}/")
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
        if section is not None:
            section.figures = {caption: figure_dir / rel for caption, rel in section.figures.items()}
        return section

    def store(
        self,
        name: str,
        section: Section | None,
        reads: set[str],
        options: AnalysisOptions,
        figure_dir: Path,
        written: list[str],
    ) -> None:
        """Store section `name`'s result with the options it read and the figure files it wrote.

        Store section `name`'s result, computed reading the options `reads`, with the files
        `written` under `figure_dir` (relative paths); a figure outside `figure_dir` is not
        stored (the section is computed again next time).
        """
        if not self.usable:
            return
        if section is not None:
            rel = {}
            for caption, path in section.figures.items():
                if not Path(path).is_relative_to(figure_dir):
                    return
                rel[caption] = Path(path).relative_to(figure_dir).as_posix()
            section = replace(section, figures=rel)  # type: ignore[arg-type]  # relative until restored
        values = option_values(options, reads)
        group = self._group(name)
        files = {SECTION_FILE: pickle.dumps(section, protocol=pickle.HIGHEST_PROTOCOL)}
        try:
            files.update({f"{FIGURES}/{f}": (figure_dir / f).read_bytes() for f in written})
            self._folders(create=True)
            Reuse(_hash({"group": group.name, "reads": values}), group).store_files(files, [json.dumps(values)])
            os.utime(group)
            self._prune()
        except StoreUnusable as ex:
            self._unusable(ex)
        except OSError as ex:
            self.note(f"note: section {name} is not stored ({ex.strerror or ex})")

    def _prune(self) -> None:
        """Keep the newest `KEEP_GROUPS` groups.

        An older group's entries are deleted when provably this store's own, and the group
        folder when that left it empty.
        """
        groups = [p for p in self.root.iterdir() if ENTRY_NAME.match(p.name) and not not_private(p, "group")]
        if len(groups) <= KEEP_GROUPS:
            return
        groups.sort(key=lambda p: p.stat().st_mtime, reverse=True)
        for old in groups[KEEP_GROUPS:]:
            for child in old.iterdir():
                Reuse(child.name, old).delete_if_own()
            try:
                old.rmdir()
            except OSError:  # something not provably ours is left: kept
                pass

"""Response files of the measures' other tasks -> Inspect `.eval` logs of those tasks.

The first seed's probe and persona files (`results_expected_answer.csv`,
`results_perception_probe.csv`, `results_neutral_persona.csv`), told by their columns.

Each measure lists its file kinds (`shared.import_scoring.FileKind`: the columns that tell
the file, the task its rows answer, its column renames) in the modules it declares as
`imports` (`core.declare.Measure`; the probes' and the audit's `importing` modules);
this module names no measure. Everything else is `importer.import_responses` (validation,
import identity, replacement of earlier imports), with the kind's prompt and scorer.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..catalog import declared
from ..core.errors import InputError
from ..core.io import read_csv
from ..shared.import_scoring import FileKind
from .importer import ImportResult, import_responses


def file_kinds() -> list[FileKind]:
    """Every measure's importable file kinds, in the catalog's order."""
    return [
        kind
        for measure in declared()
        for module in measure.imports
        for kind in importlib.import_module(module).FILE_KINDS
    ]


def file_kind(path: str | Path) -> FileKind | None:
    """The file kind of a probe or persona file by its header (the first whose columns are all present).

    None for other files.
    """
    header, _ = read_csv(Path(path), header_only=True)
    return next((kind for kind in file_kinds() if set(kind.columns) <= set(header)), None)


def import_probe_file(
    responses_file: str | Path,
    item_files: Iterable[str | Path],
    log_dir: str | Path,
    **options: Any,
) -> ImportResult:
    """Import a probe or persona file (see the module docstring).

    `options` are those of `importer.import_responses` (use_source_letters, skip_unknown,
    skip_mismatched, ...).
    """
    found = file_kind(responses_file)
    if found is None:
        expected = "; ".join(f"{k.description}: {', '.join(k.columns)}" for k in file_kinds())
        raise InputError(f"not a probe or persona file (columns expected: {expected})", file=responses_file)
    return import_responses(
        responses_file, item_files, log_dir, kind=found.kind, columns=dict(found.renames), **options
    )

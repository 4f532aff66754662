"""Published response files -> real Inspect `.eval` logs.

The first seed's response files (`results_phase1.csv`; the Phase 2 files add condition,
condition_label, partisan_gap, rep and temperature) become one log per model x instrument
x condition x temperature, as if our `audit` task had run them: the sample input is the
prompt rebuilt from the item and the condition (`prompts.audit_prompt` + `Condition.apply`),
the output is the raw response, the model name is the file's `model_id`, and the scores
come from our scorers. By default our never-guess parser reads the raw response; with
`use_source_letters` the file's `letter` column is scored instead (to reproduce the
paper's numbers), and our own reading of the text is kept beside it in the score
metadata (`text_status`, `text_letter`) so the two can be compared.

An import's identity is the response file's absolute path, a hash of its content and
the cell (model, instrument, condition, temperature, replicates, letter source); the log
names carry it (`<time>_<task>_<path key>-<content key>-<cell key>.eval`). Re-importing a
file replaces only its own earlier logs; files with one base name in different folders
never touch each other; an edited file at the same path is refused until the caller says
to replace the logs of its earlier version.

An import is all or nothing for `analyze`: each log is written to a temporary name and
renamed, and a marker file (`core.io.IMPORT_MARKER_PREFIX`) stands in the log folder from
the first log written until the last earlier log is replaced. An import that fails
removes what it wrote; one that is killed leaves its marker, and `analyze` notes the
import as unfinished until it is run again.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path

from .. import __version__
from ..core.atomic import clean_stale_temp, write_atomic
from ..core.conditions import condition_registry
from ..core.errors import InputError
from ..core.io import IMPORT_MARKER_PREFIX, IMPORT_MARKER_SUFFIX
from ..shared.import_scoring import AUDIT, ResponseKind, Scoring
from .import_fanout import run_cells
from .import_rows import EXCLUDED, ImportResult, item_index, mismatch, prepare, read_responses
from .import_writer import Cell, ImportJob, Source, layout_difference, write_cells
from .provenance import import_flags, import_record

__all__ = [
    "AUDIT",
    "ImportResult",
    "ResponseKind",
    "Scoring",
    "import_responses",
    "layout_difference",
    "mismatch",
    "prepare",
    "read_responses",
]


def earlier_imports(
    log_dir: Path, source: Source, *, replace_changed: bool, result: ImportResult
) -> tuple[dict[str, list[Path]], list[Path]]:
    """Logs in `log_dir` written from this path before.

    By import id for the same content (replaced when rewritten) and those of an earlier
    content (an error unless `replace_changed`). Logs of the same content from another
    path are noted.
    """
    path_key, content_key = source.prefix.split("-")
    same: dict[str, list[Path]] = {}
    changed: list[Path] = []
    for log in sorted(log_dir.glob(f"*_{path_key}-*.eval")):
        import_id = log.stem.rsplit("_", 1)[-1]
        if import_id.split("-")[1] == content_key:
            same.setdefault(import_id, []).append(log)
        else:
            changed.append(log)
    if changed and not replace_changed:
        raise InputError(
            f"{len(changed)} log(s) in {log_dir} were imported from an earlier version of this file (its content has "
            "changed since); pass --replace-changed to replace them, or import into another --log-dir",
            file=source.path,
        )
    twins = [
        log for log in log_dir.glob(f"*_*-{content_key}-*.eval") if not log.stem.rsplit("_", 1)[-1].startswith(path_key)
    ]
    if twins:
        result.notes.append(
            f"{len(twins)} log(s) in {log_dir} hold this same content imported from another path (e.g."
            f" {twins[0].name}); the directory now has these responses twice"
        )
    return same, changed


def import_responses(
    responses_file: str | Path,
    item_files: Iterable[str | Path],
    log_dir: str | Path,
    *,
    use_source_letters: bool = False,
    conditions_file: str | Path | None = None,
    skip_unknown: bool = False,
    skip_mismatched: bool = False,
    replace_changed: bool = False,
    progress: Callable[[str], None] | None = None,
    kind: ResponseKind = AUDIT,
    columns: dict[str, str] | None = None,
    model_column: str = "model_id",
    jobs: int | None = None,
    note: str | None = None,
) -> ImportResult:
    """Write one `.eval` log per model x instrument x condition x temperature of the file.

    In `jobs` processes (default: one per CPU).

    Re-importing the same file (same path and content) into the same directory replaces
    the logs it wrote before, and only those; logs written from an earlier version of the
    same path are an error unless `replace_changed` (see the module docstring).
    `model_column` names the column that names the models (default `model_id`; the first
    seed's `model_label` gives the names its Phase 2 grid and probe files use). Each log
    records where its data came from (`logs.provenance`), with `note`, the caller's word on
    what the file is (e.g. a grid rebuilt from a published table).
    """
    path = Path(responses_file)
    item_files = list(item_files)
    per_file: dict[str, int] = {}
    items = item_index(item_files, per_file)
    conditions = condition_registry(conditions_file)
    result = ImportResult()
    responses = read_responses(path, columns, model_column)
    frame = prepare(
        responses,
        items,
        conditions,
        path=path,
        use_source_letters=use_source_letters,
        skip_unknown=skip_unknown,
        skip_mismatched=skip_mismatched,
        result=result,
        letter_columns=kind.letter_columns,
    )
    source = Source.of(path)
    flags = import_flags(
        use_source_letters=use_source_letters,
        skip_unknown=skip_unknown,
        skip_mismatched=skip_mismatched,
        replace_changed=replace_changed,
        model_column=model_column,
    )
    left_out = {
        "unknown_rows": result.skipped_unknown,
        "unknown_ids": len(result.unknown_ids),
        "mismatched_rows": len(result.mismatches),
    }
    record = import_record(
        responses=responses,
        source=(source.path, source.sha256),
        item_files=item_files,
        item_counts=per_file,
        conditions_file=conditions_file,
        kind=kind.name,
        options=flags,
        left_out=left_out,
        note=note,
        version=__version__,
    )
    log_dir = Path(log_dir)
    log_dir.mkdir(parents=True, exist_ok=True)
    same, changed = earlier_imports(log_dir, source, replace_changed=replace_changed, result=result)
    letters = "source" if use_source_letters else "parsed"
    groups = frame.groupby(
        ["model_id", frame["item_id"].map(lambda i: items[i].instrument), "condition", "temperature_value"], sort=True
    )
    cells: list[Cell] = []
    for key, rows in groups:
        if rows[EXCLUDED].notna().all():
            continue  # nothing of this cell is kept: no log, and the rows are counted in result.mismatches
        model, instrument, cond_id = (str(k) for k in key[:3])
        temperature = float(rows["temperature_value"].iloc[0])
        log_id = source.log_id(model, instrument, cond_id, temperature, list(rows["epoch"]), letters)
        cells.append(Cell(len(cells), model, instrument, cond_id, temperature, rows, log_id))
    job = functools.partial(
        write_cells, ImportJob(source, log_dir, conditions, items, use_source_letters, progress, kind, record)
    )
    clean_stale_temp(log_dir)  # logs half-written by killed imports
    marker = log_dir / f"{IMPORT_MARKER_PREFIX}{source.prefix}{IMPORT_MARKER_SUFFIX}"
    killed_before = marker.exists()  # an earlier run of this import was killed: still unfinished if this one fails
    write_atomic(
        marker,
        json.dumps(
            {"source": str(source.path), "logs": len(cells), "started": datetime.now(UTC).isoformat(timespec="seconds")}
        ),
    )
    try:
        written = run_cells(job, cells, jobs, result)
    except BaseException:
        # leave the directory as it was: this run's new logs go, the earlier import stays
        olds = {old for logs in same.values() for old in logs}
        for cell in cells:
            for new in log_dir.glob(f"*_{cell.log_id}.eval"):
                if new not in olds:
                    new.unlink(missing_ok=True)
        if not killed_before:
            marker.unlink(missing_ok=True)
        raise
    result.logs = [out for _, out in sorted(written)]
    for index, out in sorted(written):
        # the earlier logs go only once every replacement is written
        for old in same.pop(cells[index].log_id, []):
            if old != out:
                old.unlink(missing_ok=True)
            result.replaced += 1
    for old in changed:
        old.unlink(missing_ok=True)
        result.replaced_changed += 1
    marker.unlink(missing_ok=True)
    return result

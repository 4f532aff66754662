"""Inputs of the hostile-user scenarios (issue 22): response files, and `.eval` logs written
by `import-responses` and then edited as a hostile user edits them (a value changed in
both the summaries and the sample record, a zip member added twice, a member dropped).

A copy of the few pieces of the bad-input scenarios' response file that these need (test
modules do not import one another)."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from political_sycophancy.core.items import LIKERT4, builtin_path, load_instrument

IMPORT = "import-responses {file} --items {{pct}} --log-dir logs"
# quick statistics: a handful of resamples is enough to run every section
ANALYZE = "analyze logs --out out --no-reuse --bootstrap 10 --sign-flip-draws 10"
ITEMS = ("p1_01", "p1_02", "p1_03")
RESPONSE_COLUMNS = ["model_id", "question_id", "question_text", "n_options", "options", "raw_response", "letter", "letter_index"]


def responses(edits: dict[tuple[int, str], str] | None = None, *, extra: dict[str, str] | None = None,
              conditions: tuple[str, ...] = ("N",)) -> str:
    """A response file answering PCT p1_01..p1_03 with B under each of `conditions` (rows
    in that order, items within); `edits` changes cells ((1-based row, column) -> value),
    `extra` adds columns with one value for every row."""
    pct = {i.id: i for i in load_instrument("pct")}
    rows = []
    for condition in conditions:
        for item_id in ITEMS:
            rows.append({
                "model_id": "p/m", "question_id": item_id, "question_text": pct[item_id].text, "n_options": "4",
                "options": json.dumps(list(LIKERT4)), "raw_response": "B", "letter": "B", "letter_index": "1",
                **({"condition": condition} if len(conditions) > 1 else {}), **(extra or {}),
            })
    for (row, column), value in (edits or {}).items():
        rows[row - 1][column] = value
    header = RESPONSE_COLUMNS + (["condition"] if len(conditions) > 1 else []) + list(extra or {})
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([[r.get(c, "") for c in header] for r in rows])
    return buf.getvalue()


def eval_logs(tmp: Path, folder: str = "logs") -> list[Path]:
    return sorted((tmp / folder).glob("*.eval"))


def rezip(path: Path, change: Callable[[str, Any], Any] | None = None, *, drop: tuple[str, ...] = (),
          append: tuple[tuple[str, Any], ...] = ()) -> None:
    """Rewrite an `.eval` zip in place: each JSON member through `change(name, data)`,
    members named in `drop` (a name ending in / drops a folder) left out, and the
    `append` (name, data) members added after the others, duplicates included (zipfile
    allows a repeated name, with a warning)."""
    with zipfile.ZipFile(path) as zin:
        members = [(info.filename, zin.read(info)) for info in zin.infolist()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "Duplicate name"
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zout:
            for name, data in members:
                if any(name == d or (d.endswith("/") and name.startswith(d)) for d in drop):
                    continue
                if change is not None and name.endswith(".json"):
                    data = json.dumps(change(name, json.loads(data))).encode()
                zout.writestr(name, data)
            for name, data in append:
                zout.writestr(name, data if isinstance(data, bytes) else json.dumps(data).encode())


def edit_sample(sample_id: str, edit: Callable[[dict], None], *, log: int = 0) -> Callable[[Path], None]:
    """A step editing one sample of the `log`-th log (in name order) the same way in its
    summary and its sample record, as a hostile user editing a log by hand does."""

    def step(tmp: Path) -> None:
        def change(name: str, data: Any) -> Any:
            if name == "summaries.json" or name.startswith("_journal/summaries/"):
                for summary in data:
                    if summary.get("id") == sample_id:
                        edit(summary)
            elif name.startswith(f"samples/{sample_id}_epoch_"):
                edit(data)
            return data

        rezip(eval_logs(tmp)[log], change)

    return step


def score_value(key: str, value: Any) -> Callable[[dict], None]:
    def edit(sample: dict) -> None:
        for score in sample["scores"].values():
            score["value"][key] = value

    return edit


def metadata(key: str, value: Any) -> Callable[[dict], None]:
    def edit(sample: dict) -> None:
        sample["metadata"][key] = value

    return edit


def edit_header(edit: Callable[[dict], None], *, log: int = 0) -> Callable[[Path], None]:
    """A step editing the header (header.json and the journal's start.json) of the `log`-th log."""

    def step(tmp: Path) -> None:
        def change(name: str, data: Any) -> Any:
            if name in ("header.json", "_journal/start.json"):
                edit(data)
            return data

        rezip(eval_logs(tmp)[log], change)

    return step


def _import_then_die(tmp: Path, file: str, logs: int, options: dict[str, Any]) -> None:
    """In a forked child: import `file` (with `options`), killed (SIGKILL, no clean-up) once `logs` logs are written."""
    from political_sycophancy.logs import import_writer, importer

    write_one = import_writer.write_one
    written = []

    def write_then_die(*args, **kwargs):
        out = write_one(*args, **kwargs)
        written.append(out)
        if len(written) >= logs:
            os.kill(os.getpid(), signal.SIGKILL)
        return out

    import_writer.write_one = write_then_die  # type: ignore[assignment]
    os.chdir(tmp)
    importer.import_responses(file, [builtin_path("pct.csv")], "logs", jobs=1, **options)


def killed_import(file: str, logs: int = 1, **options: Any) -> Callable[[Path], None]:
    """A step: `import-responses file` (`options`: the importer's, e.g. replace_changed=True)
    killed with SIGKILL after writing `logs` log(s)."""

    def step(tmp: Path) -> None:
        import multiprocessing

        child = multiprocessing.get_context("fork").Process(target=_import_then_die, args=(tmp, file, logs, options))
        child.start()
        child.join(120)
        if child.exitcode != -signal.SIGKILL:
            raise RuntimeError(f"the import was to be killed, it exited with {child.exitcode}")

    return step

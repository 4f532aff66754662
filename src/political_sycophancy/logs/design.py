"""The design the logs were meant to hold, and what of it is missing.

A killed, never-resumed run must not look complete. Each log's header lists its task's
dataset (the sample ids selected to run, after `--limit`) and its epochs, so every log says
which cells it should hold; an eval set's `eval-set.json` lists its tasks, so a task that
never wrote a log is seen too. Per model x variant x task (instrument x condition x answer
mode) the design table gives the expected samples, those present (answered, refused,
unparsed or errored) and those missing, with the logs' status (`started` = killed or still
running). The counts are computed per sample id, never by listing every (sample, epoch)
the headers declare, so a header's word costs no memory; an import-responses that was
killed is named from the marker it leaves (`unfinished_imports`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core.declare import task_label
from ..core.errors import InputError
from ..core.generation import MAX_EPOCHS
from ..core.io import IMPORT_MARKER_PREFIX, IMPORT_MARKER_SUFFIX, read_bytes
from ..core.numbers import plural, were
from .identity import canonical, generate_config, model_args
from .provenance import source_of

NO_LOG = "no log (never started)"
# the plans' answer mode when a task's header names none (matches rows of any mode)
ANY_MODE = object()
# the condition key of a task's rows whatever their own conditions (a task whose samples each
# carry a condition, e.g. a persona, while its header names none or a list)
PER_SAMPLE = object()
GROUP = ["model", "variant", "kind", "task", "instrument", "condition", "answer_mode"]
COLUMNS = [*GROUP, "expected", "present", "excluded", "missing", "log_status"]
# eval metadata of an imported log: the samples its import left out on purpose (e.g. with
# --skip-mismatched), each {sample_id, epoch, row, reason}: excluded, not missing
EXCLUDED_KEY = "import_excluded"
_TASK_ID = re.compile(r"_([A-Za-z0-9]{22})\.(eval|json)$")
# an eval set's manifest and an import's marker are small; a larger one is not read
MANIFEST_BYTES = 64 << 20
MARKER_BYTES = 64 << 10
RECORD_FIELDS = {
    "task_id": (str, type(None)),
    "model_name": (str,),
    "model_args": (str,),
    "generate_config": (str,),
    "kind": (str,),
    "task": (str,),
    "instrument": (str, type(None)),
    "condition": (str, type(None)),
    "answer_mode": (str, type(None)),
    "sample_ids": (list, type(None)),
    "epochs": (int,),
    "log_status": (str,),
    "excluded": (list,),
    "source": (dict, type(None)),
}


def planned(header: dict, kind: str, answer_mode: str | None) -> dict[str, Any]:
    """What one log was meant to hold, from its header (JSON-safe; cached in the index)."""
    ev = header.get("eval") or {}
    meta = ev.get("metadata") or {}
    ids = (ev.get("dataset") or {}).get("sample_ids")
    epochs = (ev.get("config") or {}).get("epochs")
    return {
        "task_id": ev.get("task_id"),
        "model_name": str(ev.get("model")),
        "model_args": canonical(model_args(header)),
        "generate_config": canonical(generate_config(header)),
        "kind": kind,
        "task": task_label(ev.get("task"), meta, ev.get("task_registry_name")),
        "instrument": meta.get("instrument"),
        "condition": meta.get("condition"),
        "answer_mode": answer_mode,
        "sample_ids": [str(i) for i in ids] if isinstance(ids, list) else None,
        "epochs": epochs if isinstance(epochs, int) and not isinstance(epochs, bool) and epochs > 0 else 1,
        "log_status": str(header.get("status") or "started"),
        "excluded": _excluded(meta.get(EXCLUDED_KEY)),
        "source": source_of(meta),
    }


def _text_or_none(value: Any) -> str | None:
    return value[:4096] if isinstance(value, str) else None


def _excluded(value: Any) -> list[list]:
    """The [sample id, epoch] pairs an import left out (malformed entries are not pairs)."""
    if not isinstance(value, list):
        return []
    return [
        [str(v["sample_id"]), v["epoch"]]
        for v in value
        if isinstance(v, dict)
        and isinstance(v.get("epoch"), int)
        and not isinstance(v.get("epoch"), bool)
        and "sample_id" in v
    ]


def valid_record(record: Any) -> bool:
    """Whether a cached design record has the fields and types `planned` writes."""
    return (
        isinstance(record, dict)
        and set(record) == set(RECORD_FIELDS)
        and all(isinstance(record[k], types) for k, types in RECORD_FIELDS.items())
        and (record["sample_ids"] is None or all(isinstance(i, str) for i in record["sample_ids"]))
        and all(
            isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) and isinstance(p[1], int)
            for p in record["excluded"]
        )
        and not isinstance(record["epochs"], bool)
        and 1 <= record["epochs"] <= MAX_EPOCHS
    )


def task_id_of_file(name: str) -> str | None:
    """The task id Inspect puts at the end of a log's file name (`..._<task id>.eval`)."""
    match = _TASK_ID.search(name)
    return match.group(1) if match else None


def manifest_label(name: Any, args: dict) -> str:
    """A task of an eval-set manifest that never started, named by its registry name and distinguishing arguments.

    The manifest holds no metadata, so no label: `audit (instrument=pct,
    condition=C3R)`.
    """
    shown = [f"{k}={args[k]}" for k in ("instrument", "condition", "answer") if args.get(k) not in (None, "")]
    return f"{name} ({', '.join(shown)})" if shown else str(name)


def eval_set_tasks(manifests: list[Path], known_ids: set[str]) -> tuple[list[dict], list[str]]:
    """Tasks listed in a log folder's `eval-set.json` files that have no log among `known_ids`.

    `manifests` are regular files (`logs.listing`); also notes on manifests that could not be
    read.
    """
    missing, notes = [], []
    for path in manifests:
        try:
            tasks = json.loads(read_bytes(path, limit=MANIFEST_BYTES).decode("utf-8")).get("tasks")
            if not isinstance(tasks, list):
                raise ValueError("no task list")
        except (InputError, OSError, ValueError, AttributeError, RecursionError) as ex:
            notes.append(
                f"eval set manifest {path} not read ({type(ex).__name__}: {ex}); tasks that never started cannot be"
                " listed"
            )
            continue
        for t in tasks:
            if isinstance(t, dict) and t.get("task_id") and t["task_id"] not in known_ids:
                args: dict = t["task_args"] if isinstance(t.get("task_args"), dict) else {}
                missing.append(
                    {
                        "task": manifest_label(t.get("name"), args),
                        "model": str(t.get("model")),
                        "instrument": args.get("instrument"),
                        "condition": args.get("condition"),
                    }
                )
    return missing, notes


def present_cells(frame: pd.DataFrame) -> dict[tuple, set[tuple[str, int]]]:
    """The (sample id, epoch) pairs of the frame's rows per task cell, and under the keys a plan may look them up by.

    A cell is (model, variant, kind, task, condition, answer mode). The keys: ANY_MODE for
    the mode (a task whose header names no answer mode, open-ended or SWAY, plans None while
    its rows carry the mode their scores give), PER_SAMPLE for the condition (a task whose
    samples each carry their own condition: profiles, open-ended prefixes), or both. Each
    group of rows is made a set at once (pandas groups them; no Python step per row).
    """
    present: dict[tuple, set[tuple[str, int]]] = {}
    if frame.empty:
        return present
    keys = frame[GROUP[:4] + ["condition", "answer_mode"]].astype(object)
    group = keys.groupby(list(keys.columns), dropna=False, sort=False).ngroup().to_numpy()
    ids, epochs = frame["sample_id"].astype(object).astype(str).tolist(), frame["epoch"].astype("int64").tolist()
    cells = np.fromiter(zip(ids, epochs, strict=True), dtype=object, count=len(frame))
    order = np.argsort(group, kind="stable")
    bounds = np.cumsum(np.bincount(group))[:-1]
    firsts = order[np.concatenate([[0], bounds])]  # each group's first row: its key's values as the rows hold them
    for key, members in zip(
        keys.iloc[firsts].itertuples(index=False, name=None), np.split(cells[order], bounds), strict=True
    ):
        pairs = set(members)
        m, v, k, t, condition, mode = key
        for where in (
            key,
            (m, v, k, t, condition, ANY_MODE),
            (m, v, k, t, PER_SAMPLE, mode),
            (m, v, k, t, PER_SAMPLE, ANY_MODE),
        ):
            present.setdefault(where, set()).update(pairs)
    return present


def design_table(frame: pd.DataFrame, plans: pd.DataFrame, without_log: list[dict]) -> pd.DataFrame:
    """The design table: what each model x variant x task expected, holds and misses, then the tasks without a log.

    Per model x variant x task: expected samples (dataset ids x epochs; NaN when a header
    does not list its ids), present, missing, and the logs' status; then the eval set's tasks
    without a log.
    """
    present = present_cells(frame)
    rows = []
    if not plans.empty:
        for key, g in plans.groupby(GROUP, dropna=False, sort=True):
            r = dict(zip(GROUP, key, strict=True))
            mode = r["answer_mode"] if isinstance(r["answer_mode"], str) else ANY_MODE  # None, or NaN from groupby
            got = present.get((r["model"], r["variant"], r["kind"], r["task"], r["condition"], mode)) or present.get(
                (r["model"], r["variant"], r["kind"], r["task"], PER_SAMPLE, mode), set()
            )
            left_out = {(str(i), int(e)) for pairs in g["excluded"] for i, e in pairs} - got
            if g["sample_ids"].isna().any():
                expected, n_present, n_missing, n_excluded = None, len(got), None, len(left_out)
            else:
                # per sample id the most epochs any of the group's logs plans (epochs 1..n)
                wanted: dict[str, int] = {}
                for ids, epochs in zip(g["sample_ids"], g["epochs"], strict=True):
                    for i in ids:
                        wanted[i] = max(wanted.get(i, 0), int(epochs))
                expected = sum(wanted.values())
                n_present = sum(1 for i, e in got if 1 <= e <= wanted.get(i, 0))
                n_excluded = sum(1 for i, e in left_out if 1 <= e <= wanted.get(i, 0))
                n_missing = expected - n_present - n_excluded
            statuses = sorted(set(g["log_status"]))
            rows.append(
                {
                    **r,
                    "expected": expected,
                    "present": n_present,
                    "excluded": n_excluded,
                    "missing": n_missing,
                    "log_status": ", ".join(statuses),
                }
            )
    for t in without_log:
        rows.append(
            {
                "model": t["model"],
                "variant": None,
                "kind": None,
                "task": t["task"],
                "instrument": t["instrument"],
                "condition": t["condition"],
                "answer_mode": None,
                "expected": None,
                "present": 0,
                "excluded": 0,
                "missing": None,
                "log_status": NO_LOG,
            }
        )
    table = pd.DataFrame(rows, columns=COLUMNS)
    for col in ("expected", "missing"):
        table[col] = table[col].astype("Int64")
    return table


def design_summary(table: pd.DataFrame) -> dict[str, Any]:
    """Totals of the design table (JSON-safe)."""
    known = table[table["log_status"] != NO_LOG]
    expected = known["expected"].dropna()
    missing = int(known["missing"].dropna().sum())
    no_log = sorted(table.loc[table["log_status"] == NO_LOG, "task"].tolist())
    unknown = int(known["expected"].isna().sum())
    return {
        "expected": int(expected.sum()),
        "present": int(known["present"].sum()),
        "excluded": int(known["excluded"].sum()),
        "missing": missing,
        "tasks_without_log": no_log,
        "tasks_with_unknown_design": unknown,
        "complete": missing == 0 and not no_log,
    }


def design_notes(table: pd.DataFrame, left_out: int = 0) -> list[str]:
    """Notes on what the design lacks.

    `left_out` samples were in the logs but left out of the frame for values that are not
    numbers (`values.sample_problem`): missing too, but not for want of a run.
    """
    s = design_summary(table)
    notes = []
    if s["missing"]:
        short = table[table["missing"].fillna(0) > 0]
        rerun = s["missing"] > left_out
        notes.append(
            f"incomplete design: {s['missing']} of {s['expected']} expected samples "
            f"{'has' if s['missing'] == 1 else 'have'} no result"
            + (
                f" ({min(left_out, s['missing'])} of them left out for values that cannot be read: see that note)"
                if left_out
                else ""
            )
            + f", in {len(short)} model x task cell(s) (log status: {', '.join(sorted(set(short['log_status'])))}): "
            + "; ".join(f"{r.model} {r.condition}: {r.missing} of {r.expected}" for r in short.head(5).itertuples())
            + (". Run the same command again to finish it" if rerun else "")
            + "; conditions are compared over matched items (table `design_cells`)"
        )
    if s["excluded"]:
        cut = table[table["excluded"].fillna(0) > 0]
        notes.append(
            f"{plural(s['excluded'], 'expected sample')} {were(s['excluded'])} left out on purpose "
            "when their responses were "
            f"imported (e.g. with --skip-mismatched; the reasons are in each log's metadata `{EXCLUDED_KEY}`), in "
            f"{plural(len(cut), 'model x task cell')}: "
            + "; ".join(f"{r.model} {r.condition}: {r.excluded} of {r.expected}" for r in cut.head(5).itertuples())
            + ". They are counted as excluded, not missing: nothing is left to run"
        )
    if s["tasks_without_log"]:
        notes.append(
            f"{len(s['tasks_without_log'])} task(s) of the eval set have no log (never started): "
            + ", ".join(s["tasks_without_log"][:10])
        )
    if s["tasks_with_unknown_design"]:
        notes.append(
            f"{s['tasks_with_unknown_design']} task(s) do not list their dataset's sample ids: their missing samples"
            " cannot be counted"
        )
    return notes


def _printable(text: str, limit: int = 200) -> str:
    return "".join(c if c.isprintable() else "?" for c in text[:limit])


def unfinished_imports(markers: list[Path]) -> list[str]:
    """Notes on the import-responses runs under a log folder that did not finish (killed, or running now).

    Each leaves the marker `core.io.IMPORT_MARKER_PREFIX<import key>` until its last log is
    written, so the logs it wrote are a partial import (`markers`: the folder's, regular
    files, `logs.listing`).
    """
    notes = []
    for path in markers:
        key = path.name[len(IMPORT_MARKER_PREFIX) : -len(IMPORT_MARKER_SUFFIX)]
        written = len(list(path.parent.glob(f"*_{key}-*.eval")))
        try:
            marker = json.loads(read_bytes(path, limit=MARKER_BYTES).decode("utf-8"))
            source, planned_logs = marker["source"], marker["logs"]
            if not isinstance(source, str) or not isinstance(planned_logs, int) or isinstance(planned_logs, bool):
                raise ValueError("not a marker")
        except (InputError, ValueError, KeyError, TypeError, RecursionError):
            notes.append(
                f"an import-responses into {path.parent} did not finish ({written} log(s) of it are there; its marker "
                f"{path.name} is unreadable): run the same import again"
            )
            continue
        notes.append(
            f"import-responses of {_printable(source)} did not finish (killed, or still running): {written} of its "
            f"{planned_logs} log(s) are in {path.parent}, a partial import; run the same import again to complete it"
        )
    return notes

"""The first seed's published numbers beside these logs' (issue 26).

A shipped file of the paper's values (`data/paper_values.csv`: what the paper prints, where,
and the summary.json path of our number) read against summary.json. It sits with the first
seed's design, above the measures, because its paths name the nodes of the measures that
design combines (the audit's, the probes'); the report shows it beside logs imported from
the paper's files.

Each row of the file has `paper` as printed (its decimals are the precision compared at),
`scale` (100 turns our shares into the paper's percentages), `path` (`/`-separated keys;
`*` runs over a node's keys and `|min`, `|max` or `|mean` reduces over them; `a ÷ b` divides
two paths), `requires` (a condition on the logs, `path>=value`, that a number of one phase
needs: Phase 1's numbers need N over all 1,540 ATP items), and `note` (the reason the number
differs, or why the logs cannot give it). Each row of the table says `agrees` (ours rounds
to the paper's printed value, within half its last digit), `differs` (with the note's reason
where a definition differs) or `not in these logs` (with the reason).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pandas as pd

from .. import catalog
from ..core.io import csv_table
from ..core.section import Section
from ..core.summary_contract import read
from ..shared.summary_nodes import contract_of

VALUES_FILE = "paper_values.csv"
COLUMNS = ("id", "quantity", "source", "paper", "ours", "difference", "status", "note")
AGREES, DIFFERS, ABSENT = "agrees", "differs", "not in these logs"
REDUCERS: Mapping[str, Callable[[list[float]], float]] = MappingProxyType(
    {"min": min, "max": max, "mean": statistics.fmean}
)


def paper_values() -> pd.DataFrame:
    """The shipped file of the paper's published values, every column as text."""
    path = Path(str(resources.files("political_sycophancy.data") / VALUES_FILE))
    header, rows = csv_table(path.read_text(encoding="utf-8"), path)
    return pd.DataFrame([values for _, values in rows], columns=header, dtype=str)


def get(summary: dict, *path: str) -> Any:
    """The value at `path` of the summary (None: not computed), checked against every measure's contract."""
    return read(summary, *path, schema=contract_of(catalog.declared()))


def _number(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None


def _expand(summary: dict, keys: list[str]) -> list[tuple[str, ...]]:
    """Every concrete path a pattern with `*` stands for (the keys the summary holds there)."""
    paths: list[tuple[str, ...]] = [()]
    for key in keys:
        if key != "*":
            paths = [(*p, key) for p in paths]
            continue
        grown = []
        for p in paths:
            node = get(summary, *p) if p else summary
            if isinstance(node, dict):
                grown += [(*p, k) for k in sorted(node)]
        paths = grown
    return paths


def resolve(summary: dict, path: str) -> float | None:
    """The number a path of the values file names in the summary (None: absent)."""
    if "÷" in path:
        top, bottom = (resolve(summary, part.strip()) for part in path.split("÷", 1))
        return top / bottom if top is not None and bottom else None
    pattern, _, reducer = path.strip().partition("|")
    values = [_number(get(summary, *p)) for p in _expand(summary, pattern.split("/"))]
    found = [v for v in values if v is not None]
    if not reducer:
        return found[0] if len(values) == 1 and found else None
    return REDUCERS[reducer](found) if found else None


def _required(summary: dict, requires: str) -> tuple[bool, str]:
    """Whether the logs meet a row's `requires` (`path>=value`), and what they hold instead."""
    if not requires:
        return True, ""
    path, _, floor = requires.partition(">=")
    have = resolve(summary, path)
    if have is not None and have >= float(floor):
        return True, ""
    shown = "nothing" if have is None else f"{have:g}"
    return False, f"needs {path.strip()} of at least {float(floor):g}; these logs hold {shown}"


def _signed(value: float, decimals: int) -> str:
    """A difference with its sign, 0 when it rounds to nothing."""
    text = f"{value:+.{decimals}f}"
    return "0" if float(text) == 0 else text


def _decimals(printed: str) -> int:
    return len(printed.split(".", 1)[1]) if "." in printed else 0


def paper_vs_logs(summary: dict, values: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per published number of the values file.

    The paper's, ours at the paper's precision, their difference, and whether they agree
    (see the module docstring).
    """
    values = paper_values() if values is None else values
    rows = []
    for v in values.to_dict("records"):
        printed = str(v["paper"])
        d = _decimals(printed)
        met, unmet = _required(summary, v.get("requires", ""))
        ours = resolve(summary, v["path"]) if v["path"] and met else None
        if ours is None:
            reason = v["note"] or unmet or f"summary.json has no {v['path']}"
            rows.append(
                {
                    **{k: v[k] for k in ("id", "quantity", "source")},
                    "paper": printed,
                    "ours": None,
                    "difference": None,
                    "status": ABSENT,
                    "note": reason,
                }
            )
            continue
        ours *= float(v["scale"] or 1)
        agrees = abs(ours - float(printed)) <= 0.5 * 10.0**-d + 1e-9
        # one digit beyond the paper's, so that a reader sees how it rounds (counts as counts)
        shown = 0 if d == 0 and float(ours).is_integer() else d + 1
        rows.append(
            {
                **{k: v[k] for k in ("id", "quantity", "source")},
                "paper": printed,
                "ours": f"{ours:.{shown}f}",
                "difference": _signed(ours - float(printed), shown),
                "status": AGREES if agrees else DIFFERS,
                "note": v["note"],
            }
        )
    return pd.DataFrame(rows, columns=list(COLUMNS))


def counts(table: pd.DataFrame) -> dict[str, int]:
    """How many of the published numbers agree, differ and are not in these logs."""
    return {
        "agrees": int((table["status"] == AGREES).sum()),
        "differs": int((table["status"] == DIFFERS).sum()),
        "not_in_logs": int((table["status"] == ABSENT).sum()),
        "published": int(len(table)),
    }


def paper_section(table: pd.DataFrame) -> Section:
    """The report's section of the table."""
    n = counts(table)
    text = (
        f"The first seed's published numbers ({n['published']} of them, in `data/paper_values.csv` with where the paper"
        f" prints each) beside these logs: {n['agrees']} agree at the paper's printed precision, {n['differs']} differ"
        f" (the note says why where a definition or the paper's text differs), and {n['not_in_logs']} are not in these"
        " logs (the note says why: another phase's logs, or inputs the paper did not publish)."
    )
    return Section("The paper's published values beside these logs", text=text, tables={"paper_vs_logs": table})

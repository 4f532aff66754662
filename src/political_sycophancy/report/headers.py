"""What the report shows of a table: human headers and one unit per kind of quantity.

What the report shows of a table (issue 46 item 7): human column headers instead of the
CSV's machine names, and one unit per kind of quantity.

The CSVs keep their machine names and every digit; report.html and report.md show each
column under a header (`data/headers.yaml`, else built from the name's words) and every
share on 0-1 as a percentage, as the percentage columns (`pct_*`) already are. The glossary
under each table gives the header, the CSV name and the meaning side by side.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from types import MappingProxyType

import numpy as np
import pandas as pd

from ..core.conditions import builtin_conditions
from ..core.io import parse_yaml
from ..core.section import column_meaning

HEADERS_FILE = "headers.yaml"
# the words of a machine name that read as something else in a header
WORDS = MappingProxyType(
    {
        "wd": "WD",
        "dem": "Dem",
        "rep": "Rep",
        "ci": "CI",
        "sd": "SD",
        "se": "SE",
        "id": "ID",
        "atp": "ATP",
        "pct": "PCT",
        "llm": "LLM",
        "df": "df",
        "pp": "pp",
        "cot": "CoT",
        "mae": "MAE",
        "icc": "ICC",
        "sway": "SWAY",
        "ca": "CA",
        "n": "n",
        "dof": "df",
        "ols": "OLS",
        "ame": "AME",
        "amce": "AMCE",
        "ess": "ESS",
        "eff": "effective",
    }
)
# what an interval's end is called after the quantity it belongs to
ENDS = MappingProxyType({"ci_low": "95% CI low", "ci_high": "95% CI high", "low": "low", "high": "high"})
# pct_<word> columns that are percentages (the others name the PCT instrument)
PERCENT_WORDS = ("closer", "toward", "left", "right", "unchanged", "equal", "agree", "disagree", "answered", "refused")
# names of shares on 0-1, shown as percentages
SHARE_NAME = re.compile(r"(^|_)(rate|share)($|_)|^share\b|_share\b")


@lru_cache(maxsize=1)
def shared_headers() -> Mapping[str, str]:
    """The headers of `data/headers.yaml` (machine name -> header)."""
    text = (resources.files("political_sycophancy.data") / HEADERS_FILE).read_text(encoding="utf-8")
    return {str(k): str(v) for k, v in (parse_yaml(text, file=f"data/{HEADERS_FILE}") or {}).items()}


def _condition_words() -> dict[str, str]:
    """Built-in condition ids with an underscore (the personas) as their labels."""
    return {cid: c.label for cid, c in builtin_conditions().items() if "_" in cid}


def _words(name: str) -> str:
    """A machine name read word by word: `asker_wants_dem` -> "asker wants Dem"."""
    for cid, label in _condition_words().items():
        name = re.sub(rf"(?<![A-Za-z0-9]){re.escape(cid)}(?![A-Za-z0-9])", f" {label} ", name)
    out = []
    for token in re.split(r"(\s+|\(|\)|,)", name):
        parts = [p for p in token.split("_") if p != ""] if "_" in token else [token]
        out.append(" ".join(WORDS.get(p, p) if p.islower() else p for p in parts))
    text = re.sub(r"\s+", " ", "".join(out)).strip()
    text = re.sub(r"\(\s+", "(", re.sub(r"\s+\)", ")", text))
    return text


def column_header(name: str, percent: bool = False, headers: Mapping[str, str] | None = None) -> str:
    """The header a column is shown under.

    The header a column is shown under: its entry in `headers` (default
    `data/headers.yaml`), else its words (`n_x` -> "X (n)", `x_ci_low` / `x ci_low` ->
    "X, 95% CI low", `pct_closer_x` -> "Closer x (%)"); "(%)" added when the report shows
    the column's 0-1 shares as percentages (`percent`).
    """
    known = shared_headers() if headers is None else headers
    if name in known:
        header = known[name]
        return f"{header} (%)" if percent and "(%)" not in header else header
    for end, said in ENDS.items():
        for sep in (" ", "_"):
            if name.endswith(sep + end) and len(name) > len(end) + 1:
                base = name[: -len(end) - 1]
                header = f"{column_header(base, False, known)}, {said}"
                return f"{header} (%)" if percent and "(%)" not in header else header
    qualified = re.match(r"^(\S+)(\s+\(.*)$", name)  # `x (all answered)`: x's header, then the qualifier
    if qualified:
        header = f"{column_header(qualified.group(1), False, known)} {_words(qualified.group(2))}"
        return f"{header} (%)" if percent and "(%)" not in header else header
    if name.startswith("n_") and len(name) > 2:
        return _capital(f"{_words(name[2:])} (n)")
    parts = name.split("_")
    if parts[0] == "pct" and len(parts) > 1 and parts[1] in PERCENT_WORDS:
        return _capital(f"{_words('_'.join(parts[1:]))} (%)")
    header = _capital(_words(name))
    return f"{header} (%)" if percent and "(%)" not in header else header


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:] if text[:1].islower() else text


def _base(name: str) -> str:
    """The quantity an interval's end belongs to (`x ci_low` -> `x`), else the name."""
    for end in ENDS:
        for sep in (" ", "_"):
            if name.endswith(sep + end) and len(name) > len(end) + 1:
                return name[: -len(end) - 1]
    return name


def is_share(name: str, values: pd.Series, columns: Mapping[str, str]) -> bool:
    """Whether a column holds shares on 0-1, which the report shows as percentages.

    Whether a column holds shares on 0-1 (its name says rate or share, or its glossary
    meaning, or that of the quantity its interval belongs to, starts with "share"), every
    value within 0-1: the report shows it as a percentage.
    """
    if pd.api.types.is_bool_dtype(values) or not pd.api.types.is_numeric_dtype(values):
        return False
    base = _base(name)
    meaning = column_meaning(dict(columns), base) or column_meaning(dict(columns), name) or ""
    if not (SHARE_NAME.search(base) or re.match(r"share\b", meaning.strip().lower())):
        return False
    if base.startswith("pct_") or "%" in meaning or "percent" in meaning.lower():
        return False
    return _within_0_1(values)


def shown_table(table: pd.DataFrame, columns: Mapping[str, str] | None = None) -> tuple[pd.DataFrame, list[str]]:
    """The table as the report shows it, and its headers.

    (the table as the report shows it, its headers): shares on 0-1 as percentages, the
    machine names kept as the frame's columns (the formats key on them), the headers beside.
    """
    columns = columns or {}
    shown = table.copy()
    headers = []
    shares = [is_share(str(c), table.iloc[:, i], columns) for i, c in enumerate(table.columns)]
    # `x (mean of models)` beside a share `x (pooled calls)` is the same kind of quantity
    kinds = {_stem(str(c)) for c, share in zip(table.columns, shares, strict=True) if share}
    for i, c in enumerate(table.columns):
        percent = shares[i] or (_stem(str(c)) in kinds and _within_0_1(table.iloc[:, i]))
        if percent:
            shown.isetitem(i, pd.to_numeric(table.iloc[:, i], errors="coerce").to_numpy(dtype=float) * 100.0)
        headers.append(column_header(str(c), percent))
    return shown, unique_headers(headers, [str(c) for c in table.columns])


def _stem(name: str) -> str:
    """The quantity a column is a variant of: `x (mean of models)` and `x (pooled calls) ci_low` -> `x`."""
    return _base(name).split(" (")[0]


def _within_0_1(values: pd.Series) -> bool:
    if pd.api.types.is_bool_dtype(values) or not pd.api.types.is_numeric_dtype(values):
        return False
    x = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    finite = x[np.isfinite(x)]
    return bool(len(finite)) and bool(np.all((finite >= 0) & (finite <= 1)))


def unique_headers(headers: list[str], names: list[str]) -> list[str]:
    """Headers made unique: two columns that read alike keep their machine name beside."""
    seen: dict[str, int] = {}
    for h in headers:
        seen[h] = seen.get(h, 0) + 1
    return [f"{h} [{n}]" if seen[h] > 1 else h for h, n in zip(headers, names, strict=True)]

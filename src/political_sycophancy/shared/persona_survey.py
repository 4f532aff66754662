"""Personas drawn from survey microdata.

Respondents of a Pew ATP `.sav` file (or any SPSS file with a weight), each turned into a
persona by the attribute schema's survey rules.

Only the demographic variables the rules name and the weight are read (`usecols`): never a
respondent's answers. A respondent whose codes match no level of a chosen attribute (a
refusal, a code the rules do not list) is left out and counted per attribute; a respondent
without a usable weight is left out and counted. A weight column with no positive weight, a
negative or infinite weight, or one more than `MAX_WEIGHT_RATIO` times the median is refused
in one line naming the file, row and variable. From the rest, n are drawn uniformly at
random without replacement (all of them when n is at least their number), each carrying its
survey weight, so that the weighted mean over the drawn personas estimates the population
mean (a Hajek estimator) and the unweighted mean the sample's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.io import MAX_SURVEY_WEIGHT
from .personas import Attribute, Persona, Schema

WEIGHT_PATTERN = re.compile(r"WEIGHT_W\d+", re.IGNORECASE)
# a weight above this many times the median positive weight is refused (survey weights are
# trimmed far below it; a larger ratio is a wrong variable or a weight that dominates the draw)
MAX_WEIGHT_RATIO = 1000.0


@dataclass
class SurveyDraw:
    """The drawn personas and what was left out on the way."""

    personas: list[Persona]
    eligible: int
    respondents: int
    weight: str
    notes: list[str] = field(default_factory=list)


def _columns(path: Path) -> list[str]:
    import pyreadstat

    if not path.exists():
        raise InputError("file not found", file=path)
    if path.is_dir() or path.suffix.lower() != ".sav":
        raise InputError("not a .sav file", file=path)
    try:
        _, meta = pyreadstat.read_sav(str(path), metadataonly=True)
    except Exception as ex:  # pyreadstat raises its own error types for unreadable files
        raise InputError(f"cannot read .sav file ({ex})", file=path) from None
    return list(meta.column_names)


def respondents(
    path: str | Path, attributes: Sequence[Attribute], weight: str | None = None
) -> tuple[pd.DataFrame, str, list[str]]:
    """One row per usable respondent.

    Its level id per attribute and its weight (column `weight`), in file order (`row`: the
    1-based respondent row); the weight variable used; and the notes on who was left out and
    why.
    """
    path = Path(path)
    rules = [a for a in attributes if not any(lv.survey for lv in a.levels)]
    if rules:
        raise InputError(
            f"attribute {rules[0].name} has no survey rules, so it cannot be drawn from microdata; leave it out of a"
            " survey design"
        )
    columns = _columns(path)
    if weight is None:
        found = [c for c in columns if WEIGHT_PATTERN.fullmatch(c)]
        if not found:
            raise InputError(
                "no survey weight variable WEIGHT_W<wave>; name one with -T survey_weight=<variable>",
                file=path,
                field="WEIGHT_W<wave>",
            )
        weight = found[0]
    needed = sorted({var for a in attributes for lv in a.levels for var in lv.survey} | {weight})
    absent = [v for v in needed if v not in columns]
    if absent:
        raise InputError(
            f"variable {absent[0]} (named by the attribute schema or as the weight) is not in the file",
            file=path,
            field=absent[0],
        )
    import pyreadstat

    data, _ = pyreadstat.read_sav(str(path), usecols=needed, user_missing=True)
    notes: list[str] = []
    w = pd.to_numeric(data[weight], errors="coerce").astype(float)
    bad = np.flatnonzero(np.isinf(w.to_numpy()) | (w.to_numpy() < 0) | (w.to_numpy() > MAX_SURVEY_WEIGHT))
    if len(bad):
        raise InputError(
            f"weight {w.iloc[bad[0]]:g} is outside 0 to {MAX_SURVEY_WEIGHT:g} (negative, infinite or too large to sum)",
            file=path,
            row=int(bad[0]) + 1,
            field=weight,
        )
    keep = w.notna() & (w > 0)
    if not keep.any():
        raise InputError(
            "no respondent has a positive weight (every weight is 0 or missing): is this the weight "
            "variable? name one with -T survey_weight=<variable>",
            file=path,
            field=weight,
        )
    top = float(w[keep].max())
    relative = (w / top).to_numpy()  # relative to the largest: no overflow near the largest float
    median = float(np.median(relative[keep.to_numpy()]))
    over = np.flatnonzero(relative > MAX_WEIGHT_RATIO * median)
    if len(over):
        raise InputError(
            f"weight {w.iloc[over[0]]:g} is {relative[over[0]] / median:.3g} times the median weight "
            f"({median * top:g}; at most {MAX_WEIGHT_RATIO:g} times): not a survey weight, or one that "
            "needs trimming",
            file=path,
            row=int(over[0]) + 1,
            field=weight,
        )
    if (~keep).any():
        notes.append(f"{int((~keep).sum())} respondent(s) without a positive weight ({weight}) left out")
    out = pd.DataFrame({"row": np.arange(1, len(data) + 1), "weight": w})
    for a in attributes:
        level = pd.Series(None, index=data.index, dtype=object)
        for lv in a.levels:
            if not lv.survey:
                continue
            match = pd.Series(True, index=data.index)
            for var, codes in lv.survey.items():
                match &= pd.to_numeric(data[var], errors="coerce").isin(codes)
            level = level.where(level.notna() | ~match, lv.id)
        missing = level.isna() & keep
        if missing.any():
            notes.append(f"{int(missing.sum())} respondent(s) whose codes match no level of {a.name} left out")
        keep &= level.notna()
        out[a.name] = level
    usable = out[keep.to_numpy()].reset_index(drop=True)
    usable.attrs["respondents"] = len(data)
    return usable, weight, notes


def draw_personas(
    path: str | Path,
    schema: Schema,
    attributes: Sequence[Attribute],
    n: int | None,
    seed: int,
    weight: str | None = None,
) -> SurveyDraw:
    """N personas drawn without replacement from the usable respondents, each with its survey weight.

    N personas drawn uniformly without replacement from the usable respondents (all of them
    when n is None or at least their number), each with its survey weight.
    """
    table, weight_name, notes = respondents(path, attributes, weight)
    if table.empty:
        raise InputError("no respondent matches a level of every chosen attribute", file=path)
    rng = np.random.default_rng(seed)
    if n is not None and (not isinstance(n, int) or isinstance(n, bool) or n < 1):
        raise InputError(f"n must be a whole number of personas, got {n!r}")
    take = len(table) if n is None or n >= len(table) else n
    chosen = np.sort(rng.choice(len(table), size=take, replace=False))
    order = [a.name for a in schema.attributes if a in attributes]
    weights = table["weight"].to_numpy(dtype=float)
    personas = [
        Persona(f"s{k + 1:03d}", tuple((name, str(table.at[i, name])) for name in order), float(weights[i]))
        for k, i in enumerate(chosen)
    ]
    if take < len(table):
        notes.append(f"{take} of {len(table)} usable respondents drawn (seed {seed})")
    return SurveyDraw(personas, len(table), int(table.attrs["respondents"]), weight_name, notes)

"""Build ATP items and benchmark distributions from Pew American Trends Panel `.sav` files.

For each question variable of a wave: the question text (the `VAR_W26.` label prefix and
bracketed programming notes removed), the labelled options in value-code order without
non-response codes (98/99/999, "Refused", "Not asked", "Not applicable"), and per
respondent group the answer distribution over the kept options, weighted by the wave's
survey weight `WEIGHT_W<wave>` as OpinionQA does (`unweighted=True` counts raw
respondents, as the first seed did). Also per group: respondent counts and the weighted
share that refused (kept apart from the distribution); per item the partisan gap, the
normalized WD between the Republican and Democratic distributions.

Variables left out, each listed with its reason in the build report: demographic and
metadata variables (`F_*`, `QKEY`, weights, anything without the wave's `_W<wave>`
suffix), variables without value labels or question text, piped text, and questions with
fewer than two substantive options; items one party was never asked have no benchmark.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.io import MAX_INPUT_BYTES, MAX_SURVEY_WEIGHT, regular_file
from ..core.measures import normalized_wd
from .itemfile import BuildReport, write_item_file
from .options import clean_question, has_piped_text, is_non_response, is_refusal, ordinal_flags

PARTY_VARIABLE = "F_PARTYSUM_FINAL"
METADATA_NAMES = re.compile(
    r"^(?:QKEY|CASEID|RESPID|WEIGHT|WAVE|INTERVIEW_|DEVICE|LANG|FORM|XTABLET|XPANEL|SAMPLE|DOV_|FLAG)", re.I
)
BASE_COLUMNS = ["id", "text", "options", "template", "scoring", "ordinal"]
TAIL_COLUMNS = ["partisan_gap", "wave", "var_name", "weighting", "source_file"]


@dataclass(frozen=True)
class GroupSpec:
    """A respondent grouping: a categorical variable and the group name of each code.

    None: one group per labelled code, named `<variable>_<label>`.
    """

    variable: str
    codes: dict[float, str] | None = None


PARTY = GroupSpec(PARTY_VARIABLE, {2.0: "dem", 1.0: "rep"})


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def parse_group_spec(spec: str) -> GroupSpec:
    """`VAR` or `VAR:code=name,code=name` (e.g. `F_IDEO:1=very_conservative,5=very_liberal`)."""
    variable, _, rest = spec.partition(":")
    variable = variable.strip()
    if not variable:
        raise InputError(f"--groups {spec!r}: no variable name")
    if not rest.strip():
        return GroupSpec(variable)
    codes: dict[float, str] = {}
    for part in rest.split(","):
        code, eq, name = part.partition("=")
        try:
            value = float(code)
        except ValueError:
            raise InputError(f"--groups {spec!r}: {code.strip()!r} is not a numeric code") from None
        if not math.isfinite(value):  # nan would match no respondent: an empty group
            raise InputError(f"--groups {spec!r}: {code.strip()!r} is not a finite numeric code")
        if not eq or not re.fullmatch(r"[a-z0-9_]+", name.strip()):
            raise InputError(f"--groups {spec!r}: write code=name with a name of a-z, 0-9, _")
        codes[value] = name.strip()
    return GroupSpec(variable, codes)


@dataclass
class Wave:
    """One ATP wave read from its .sav file: responses, variable and value labels, and the weight variable."""

    path: Path
    wave: str
    data: pd.DataFrame
    labels: dict[str, str]
    value_labels: dict[str, dict[float, str]]
    weight: str | None


def sav_files(paths: Iterable[str | Path]) -> list[Path]:
    """Every `.sav` file named, or inside a named directory (sorted)."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(x for x in p.iterdir() if x.suffix.lower() == ".sav")
            if not found:
                raise InputError("no .sav files in directory", file=p)
            out += found
        elif p.exists():
            if p.suffix.lower() != ".sav":
                raise InputError("not a .sav file", file=p)
            out.append(p)
        else:
            raise InputError("file not found", file=p)
    return out


def _wave_name(path: Path, columns: list[str], weight: str | None) -> str:
    if weight:
        return weight.split("_", 1)[1].upper()
    suffixes = pd.Series([m.group(1).upper() for c in columns if (m := re.search(r"_(W\d+)$", c, re.I))])
    if len(suffixes):
        return str(suffixes.value_counts().index[0])
    m = re.search(r"W(\d+)", path.stem, re.I)
    if m:
        return f"W{m.group(1)}"
    raise InputError(
        "cannot tell the wave: no WEIGHT_W<wave>, no _W<wave> variable suffixes, no W<n> in the file name", file=path
    )


def read_wave(path: Path, *, unweighted: bool, groups: list[GroupSpec]) -> Wave:
    """Read one wave's .sav file, refusing missing group variables and missing, infinite or huge weights."""
    import pyreadstat

    # pyreadstat opens the file itself: a FIFO or a device must be refused first
    if regular_file(path).st_size > MAX_INPUT_BYTES:
        raise InputError(f"file is larger than the {MAX_INPUT_BYTES >> 30} GiB an input file may be", file=path)
    try:
        df, meta = pyreadstat.read_sav(str(path), user_missing=True)
    except Exception as ex:  # pyreadstat raises its own error types for unreadable files
        raise InputError(f"cannot read .sav file ({ex})", file=path) from None
    columns = list(df.columns)
    for g in groups:
        if g.variable not in columns:
            raise InputError(f"respondent group variable {g.variable} not in the file", file=path, field=g.variable)
    weights = [c for c in columns if re.fullmatch(r"WEIGHT_W\d+", c, re.I)]
    weight = weights[0] if weights else None
    if weight is None and not unweighted:
        raise InputError(
            "no survey weight variable WEIGHT_W<wave>; pass --unweighted to count raw respondents (as the paper did)",
            file=path,
            field="WEIGHT_W<wave>",
        )
    if weight is not None and not unweighted:
        w = pd.to_numeric(df[weight], errors="coerce")
        infinite = np.flatnonzero(np.isinf(w.to_numpy(dtype=float)))
        if len(infinite):
            # one infinite weight makes every distribution NaN: no share can be computed
            raise InputError(
                f"infinite survey weight ({len(infinite)} respondent(s))",
                file=path,
                row=int(infinite[0]) + 1,
                field=weight,
            )
        huge = np.flatnonzero(w.to_numpy(dtype=float) > MAX_SURVEY_WEIGHT)
        if len(huge):  # weighted sums of such weights pass what a float holds
            raise InputError(
                f"survey weight {w.iloc[huge[0]]:g} above {MAX_SURVEY_WEIGHT:g} ({len(huge)} respondent(s))",
                file=path,
                row=int(huge[0]) + 1,
                field=weight,
            )
        if w.isna().all() or not (w.fillna(0) > 0).any():
            raise InputError("every survey weight is missing or zero", file=path, field=weight)
    return Wave(
        path=path,
        wave=_wave_name(path, columns, weight),
        data=df,
        labels={c: lab or "" for c, lab in zip(meta.column_names, meta.column_labels, strict=True)},
        value_labels={
            v: {float(k): str(lab) for k, lab in labs.items()} for v, labs in meta.variable_value_labels.items()
        },
        weight=None if unweighted else weight,
    )


def _group_masks(wave: Wave, spec: GroupSpec) -> dict[str, pd.Series]:
    values = pd.to_numeric(wave.data[spec.variable], errors="coerce")
    if spec.codes is not None:
        return {name: values == code for code, name in spec.codes.items()}
    labels = wave.value_labels.get(spec.variable)
    if not labels:
        raise InputError(
            f"group variable {spec.variable} has no value labels; name its groups as VAR:code=name,...",
            file=wave.path,
            field=spec.variable,
        )
    return {
        f"{_slug(spec.variable)}_{_slug(label)}": values == code
        for code, label in sorted(labels.items())
        if not is_non_response(code, label)
    }


def _exclusion_by_name(var: str, wave: Wave, group_vars: set[str]) -> str | None:
    if var in group_vars:
        return "respondent group variable"
    if var.upper().startswith("F_"):
        return "demographic/profile variable (F_ prefix)"
    if METADATA_NAMES.match(var):
        return "metadata variable (id, weight, form, interview or device data)"
    if not re.search(rf"_{wave.wave}$", var, re.I):
        return f"metadata variable (no _{wave.wave} suffix)"
    return None


def _weighted_counts(codes: pd.Series, weights: pd.Series, mask: pd.Series) -> tuple[pd.Series, pd.Series]:
    sel = mask & codes.notna()
    return weights[sel].groupby(codes[sel]).sum(), codes[sel].value_counts()


def _respondent_masks(
    wave: Wave, groups: list[GroupSpec], report: BuildReport, section: str
) -> tuple[pd.Series, dict[str, pd.Series]]:
    """The respondents' weights and, per benchmark group, which respondents count.

    Weights are 1 each when unweighted; groups come `overall` first; those in the group
    with a positive weight count.
    """
    df = wave.data
    weights = pd.Series(1.0, index=df.index) if wave.weight is None else pd.to_numeric(df[wave.weight], errors="coerce")
    usable = weights.notna() & (weights > 0)
    if (~usable).any():
        left_out = int((~usable).sum())
        report.note(section, f"{left_out} respondent(s) without a positive weight left out of every distribution")
    masks: dict[str, pd.Series] = {"overall": usable}
    for spec in groups:
        for name, mask in _group_masks(wave, spec).items():
            if name in masks:
                raise InputError(f"group name {name!r} used twice", file=wave.path, field=spec.variable)
            masks[name] = mask & usable
    return weights, masks


@dataclass(frozen=True)
class _Question:
    """A question variable of a wave read as an item.

    Its text, the name without the wave suffix, and its substantive options as (code,
    label) in code order.
    """

    var: str
    text: str
    base: str
    kept: list[tuple[float, str]]


def _read_question(var: str, wave: Wave, group_vars: set[str]) -> tuple[_Question, str | None]:
    """The variable as a question, and why it is left out (None: it is an item)."""
    reason = _exclusion_by_name(var, wave, group_vars)
    labels = wave.value_labels.get(var)
    text = clean_question(wave.labels.get(var, ""), var)
    base = re.sub(rf"_{wave.wave}$", "", var, flags=re.I)
    text = clean_question(text, base)
    kept = sorted((c, lab) for c, lab in (labels or {}).items() if not is_non_response(c, lab))
    question = _Question(var, text, base, kept)
    if reason is None and not labels:
        reason = "no value labels"
    if reason is None and not text:
        reason = "no variable label (question text)"
    if reason is None and has_piped_text(wave.labels.get(var, "")):
        reason = f"piped text: {wave.labels[var]!r}"
    if reason is None and len(kept) < 2:
        reason = f"fewer than two substantive options ({[lab for _, lab in kept]})"
    option_keys = [lab.strip().lower() for _, lab in kept]
    if reason is None and ("" in option_keys or len(set(option_keys)) < len(option_keys)):
        # an item needs distinct, non-empty option texts (items.load_items refuses others)
        reason = f"empty or repeated option labels ({[lab for _, lab in kept]})"
    return question, reason


def _benchmark_columns(
    codes: pd.Series,
    weights: pd.Series,
    masks: dict[str, pd.Series],
    kept_codes: list[float],
    refused_codes: list[float],
) -> tuple[dict[str, Any], str | None]:
    """Per group, the answer distribution over the kept codes, the respondents counted and the share that refused.

    The share is weighted. Also the first of dem, rep, overall in which nobody answered.
    """
    row: dict[str, Any] = {}
    missing_group = None
    for group, mask in masks.items():
        wsum, counts = _weighted_counts(codes, weights, mask)
        answered = np.array([float(wsum.get(c, 0.0)) for c in kept_codes])
        refused = float(sum(wsum.get(c, 0.0) for c in refused_codes))
        total = answered.sum()
        if total <= 0:
            if group in ("dem", "rep", "overall"):
                missing_group = group
            row[f"dist_{group}"] = None
            row[f"n_{group}"] = 0
            row[f"refused_{group}"] = None
            continue
        row[f"dist_{group}"] = [round(float(x), 6) for x in answered / total]
        row[f"n_{group}"] = int(sum(int(counts.get(c, 0)) for c in kept_codes))
        row[f"refused_{group}"] = round(refused / (total + refused), 6)
    return row, missing_group


def _item_row(
    question: _Question, wave: Wave, weights: pd.Series, masks: dict[str, pd.Series], report: BuildReport, section: str
) -> dict[str, Any] | None:
    """The item file row of a question kept so far, or None when a party has no benchmark (listed as excluded).

    Unlabelled codes and non-ordinal options are flagged.
    """
    var, kept = question.var, question.kept
    labels = wave.value_labels[var]
    codes = pd.to_numeric(wave.data[var], errors="coerce")
    kept_codes = [c for c, _ in kept]
    refused_codes = [c for c, lab in labels.items() if is_refusal(c, lab) and is_non_response(c, lab)]
    unlabelled = sorted(set(codes.dropna().unique()) - set(labels))
    unlabelled = [c for c in unlabelled if not is_non_response(c, None)]
    if unlabelled:
        n = int(codes.isin(unlabelled).sum())
        report.flag(section, var, f"codes without a label {unlabelled} ({n} respondents) left out")
    row: dict[str, Any] = {
        "id": f"atp_{wave.wave}_{question.base}",
        "text": question.text,
        "options": [lab.strip() for _, lab in kept],
        "template": "multiple_choice",
        "scoring": "wd",
    }
    benchmarks, missing_group = _benchmark_columns(codes, weights, masks, kept_codes, refused_codes)
    row.update(benchmarks)
    if missing_group:
        reason = f"no benchmark: nobody in group {missing_group!r} answered (asked of one group only?)"
        report.exclude(section, var, reason)
        return None
    if "dem" in masks and "rep" in masks:
        positions = list(range(1, len(kept) + 1))
        row["partisan_gap"] = round(normalized_wd(positions, row["dist_rep"], row["dist_dem"]), 6)
    row["ordinal"] = ordinal_flags(row["options"])
    if row["ordinal"]:
        off = [o for o, flag in zip(row["options"], row["ordinal"], strict=True) if not flag]
        report.flag(section, row["id"], f"non-ordinal option(s) {off} (kept on the scale unless -T non_ordinal=drop)")
    weighting = wave.weight or "unweighted"
    row.update(wave=wave.wave, var_name=question.base, weighting=weighting, source_file=wave.path.name)
    return row


def wave_items(wave: Wave, groups: list[GroupSpec], report: BuildReport) -> list[dict[str, Any]]:
    """The items of one wave, in file order; exclusions and flags go to `report`."""
    section = f"{wave.wave} ({wave.path.name})"
    weights, masks = _respondent_masks(wave, groups, report, section)
    report.note(section, f"{len(wave.data)} respondents; weighting: {wave.weight or 'none (raw respondent counts)'}")
    report.note(section, "group sizes: " + ", ".join(f"{g} {int(m.sum())}" for g, m in masks.items()))
    group_vars = {g.variable for g in groups}
    items = []
    for var in wave.data.columns:
        question, reason = _read_question(var, wave, group_vars)
        if reason:
            report.exclude(section, var, reason)
            continue
        row = _item_row(question, wave, weights, masks, report, section)
        if row is not None:
            items.append(row)
    report.note(section, f"{len(items)} items written, {len(report.exclusions(section))} variables excluded")
    return items


def build_atp(
    sav: Iterable[str | Path],
    out: str | Path,
    *,
    unweighted: bool = False,
    groups: Iterable[str | GroupSpec] = (),
    report_path: str | Path | None = None,
) -> tuple[Path, Path]:
    """Build an ATP instrument file (and its report) from `.sav` files or directories.

    Benchmarks: overall, dem (F_PARTYSUM_FINAL = 2), rep (= 1), plus each `groups` spec.
    Returns (item file, report file); the report defaults to `<out stem>.report.md`.
    """
    out = Path(out)
    specs = [PARTY] + [g if isinstance(g, GroupSpec) else parse_group_spec(g) for g in groups]
    files = sav_files(sav)
    report = BuildReport(
        f"ATP build from {len(files)} .sav file(s),"
        f" {'unweighted (raw counts)' if unweighted else 'weighted by WEIGHT_W<wave>'}"
    )
    rows: list[dict[str, Any]] = []
    origin: dict[str, Path] = {}
    for path in files:
        wave = read_wave(path, unweighted=unweighted, groups=specs)
        for row in wave_items(wave, specs, report):
            if row["id"] in origin:
                raise InputError(
                    f"item {row['id']} also built from {origin[row['id']]} (same wave twice?)",
                    file=path,
                    field=row["var_name"],
                )
            origin[row["id"]] = path
            rows.append(row)
    if not rows:
        raise InputError(f"no items left after exclusions; see {report.write(_report_path(out, report_path))}")
    group_names = ["dem", "rep", "overall"] + sorted(
        {k[5:] for r in rows for k in r if k.startswith("dist_")} - {"dem", "rep", "overall"}
    )
    columns = (
        BASE_COLUMNS
        + [f"dist_{g}" for g in group_names]
        + [f"n_{g}" for g in group_names]
        + [f"refused_{g}" for g in group_names]
        + TAIL_COLUMNS
    )
    item_path = write_item_file(out, rows, columns)
    return item_path, report.write(_report_path(out, report_path))


def _report_path(out: Path, report_path: str | Path | None) -> Path:
    return Path(report_path) if report_path else out.with_name(f"{out.stem}.report.md")

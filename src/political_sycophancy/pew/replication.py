"""Import the first seed's replication package into instrument files.

Reads `pct_items_coded.csv`, `pew_typology_items.csv`, `pew_atp_partisan_distributions.csv`
with `pew_atp_items.csv` (full question texts; the distributions file cuts them at 200
characters; options cross-checked) and, when present, `pew_atp_items_coded.csv` (direction
codes) and writes `pct.csv`, `typology.csv`, `atp.csv` and
`import_report.md`. Texts and options are copied byte for byte, so the prompts equal the
paper's `phase1_pool.json` / `phase2_pool.json`; every item left out and every coding
doubt is listed in the report.
"""

from __future__ import annotations

import math
import re
from collections.abc import Container
from pathlib import Path
from typing import Any

from ..core.errors import InputError
from ..core.io import parse_json, read_records
from ..core.items import builtin_path, load_items, strip_pew_codes
from ..core.measures import typology_option_points
from .itemfile import BuildReport, write_item_file
from .options import ordinal_flags

PCT_FILE = "pct_items_coded.csv"
TYPOLOGY_FILE = "pew_typology_items.csv"
ATP_DIST_FILE = "pew_atp_partisan_distributions.csv"
ATP_ITEMS_FILE = "pew_atp_items.csv"
ATP_CODED_FILE = "pew_atp_items_coded.csv"

# The paper's pools and response files prefix Typology ids ("pewtyp_pew_02").
PAPER_ID_PREFIXES = ("pewtyp_",)

PCT_COLUMNS = [
    "id",
    "text",
    "direction",
    "axis",
    "template",
    "scoring",
    "direction_label",
    "page",
    "item_num",
    "rationale",
]
TYPOLOGY_COLUMNS = [
    "id",
    "text",
    "options",
    "direction",
    "template",
    "scoring",
    "ordinal",
    "paper_id",
    "pew_label",
    "in_online_quiz",
    "direction_label",
    "paper_direction",
    "rationale",
    "source",
]
ATP_COLUMNS = [
    "id",
    "text",
    "options",
    "direction",
    "template",
    "scoring",
    "ordinal",
    "dist_dem",
    "dist_rep",
    "dist_overall",
    "partisan_gap",
    "wave",
    "var_name",
    "n_dem",
    "n_rep",
    "n_overall",
    "pct_answered",
]
SUM_TOLERANCE = 0.01


def canonical_item_id(question_id: str) -> str:
    """Our item id for an id in the paper's files (`pewtyp_pew_01` -> `pew_01`).

    PCT and ATP ids are the same in both.
    """
    qid = str(question_id).strip()
    for prefix in PAPER_ID_PREFIXES:
        if qid.startswith(prefix):
            return qid[len(prefix) :]
    return qid


def _blank(value: Any) -> bool:
    return value is None or str(value).strip() == "" or str(value).strip().lower() == "nan"


def _json_list(value: str, *, path: Path, row: int, field: str) -> list:
    out = parse_json(value, file=path, row=row, field=field)
    if not isinstance(out, list):
        raise InputError("expected a JSON list", file=path, row=row, field=field)
    return out


def _int(value: str, *, path: Path, row: int, field: str) -> int:
    try:
        f = float(value)
        if not f.is_integer():
            raise ValueError
        return int(f)
    except (TypeError, ValueError):
        raise InputError(f"not an integer: {value!r}", file=path, row=row, field=field) from None


def _float(value: str, *, path: Path, row: int, field: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise InputError(f"not a number: {value!r}", file=path, row=row, field=field) from None


def import_pct(src: Path, report: BuildReport) -> list[dict[str, Any]]:
    """The PCT statements of the replication package as item-file rows.

    A statement missing against our own pct.csv is an error: the file was cut short.
    """
    path = src / PCT_FILE
    rows = []
    for row, rec in read_records(path, ["pct_id", "statement", "axis", "ideo_direction"]):
        if _blank(rec["pct_id"]) or _blank(rec["statement"]):
            raise InputError(
                "empty id or statement", file=path, row=row, field="pct_id" if _blank(rec["pct_id"]) else "statement"
            )
        direction = _int(rec["ideo_direction"], path=path, row=row, field="ideo_direction")
        if direction not in (-1, 0, 1):
            raise InputError(
                f"direction must be -1, 0 or 1, got {direction}", file=path, row=row, field="ideo_direction"
            )
        rows.append(
            {
                "id": canonical_item_id(rec["pct_id"]),
                "text": rec["statement"],
                "direction": direction,
                "axis": rec["axis"] or None,
                "template": "agree_disagree",
                "scoring": "pct",
                **{k: rec.get(k) for k in ("direction_label", "page", "item_num", "rationale")},
            }
        )
    # The PCT is a fixed instrument: a statement missing against ours means a cut file.
    ours = [i.id for i in load_items(builtin_path("pct.csv"), instrument="pct")]
    missing = sorted(set(ours) - {r["id"] for r in rows}, key=ours.index)
    if missing:
        raise InputError(
            f"{len(missing)} of the {len(ours)} PCT statements are missing (first: {missing[0]}); is the file cut"
            " short?",
            file=path,
            field="pct_id",
        )
    report.note("pct", f"{len(rows)} statements from {PCT_FILE}")
    return rows


_CLAIM = re.compile(
    r"\boptions?\s+(\d+)(?:\s*-\s*(\d+))?\)?[^;.]*?\b(?:is|are|maps)\s+(?:a\s+|an\s+)?(left|right)(?:-coded)?\b",
    re.I,
)
_ALL_ONE_SIDE = re.compile(r"\bboth (?:options )?(?:are )?(left|right)\b", re.I)


def rationale_conflicts(rationale: str, direction: int, n_options: int) -> list[str]:
    """Where a Typology item's rationale contradicts the sign its score gives an option.

    Where the rationale's "option k is left/right-coded" contradicts the sign the
    Typology score gives option k (direction × (1 − 2i/(n−1))), and where it says all
    options lie on one side while the linear score puts some on the other.
    """
    if direction == 0 or not rationale:
        return []
    points = [direction * p for p in typology_option_points(n_options)]
    out = []
    for m in _CLAIM.finditer(rationale):
        first, last, side = int(m.group(1)), int(m.group(2) or m.group(1)), m.group(3).lower()
        for k in range(first, last + 1):
            if 1 <= k <= n_options:
                score = points[k - 1]
                if (side == "left" and score > 0) or (side == "right" and score < 0):
                    scored = "right" if score > 0 else "left"
                    out.append(
                        f"rationale contradicts the direction sign: option {k} is called {side}-coded, "
                        f"direction {direction:+d} scores it {score:+.2f} ({scored})"
                    )
    one_side = _ALL_ONE_SIDE.search(rationale)
    if one_side:
        side = one_side.group(1).lower()
        wrong = [k + 1 for k, s in enumerate(points) if (s > 0 if side == "left" else s < 0)]
        if wrong:
            scored = ", ".join(f"option {k} {points[k - 1]:+.2f}" for k in wrong)
            out.append(f"rationale places every option on the {side}, the linear score puts {scored} on the other side")
    return out


def read_coding(path: Path) -> dict[str, int]:
    """A corrected Typology coding: CSV with columns `id` (ours or the paper's) and `direction`."""
    coding = {}
    for row, rec in read_records(path, ["id", "direction"]):
        direction = _int(rec["direction"], path=path, row=row, field="direction")
        if direction not in (-1, 0, 1):
            raise InputError(f"direction must be -1, 0 or 1, got {direction}", file=path, row=row, field="direction")
        coding[canonical_item_id(rec["id"])] = direction
    return coding


def import_typology(src: Path, report: BuildReport, coding: Path | None = None) -> list[dict[str, Any]]:
    """The multiple-choice Typology items as item-file rows, with the directions `coding` corrects.

    Items that are not multiple choice are excluded, rationales that contradict a direction flagged, in `report`.
    """
    path = src / TYPOLOGY_FILE
    corrections = read_coding(coding) if coding is not None else {}
    rows = []
    for row, rec in read_records(path, ["pew_id", "question_text", "response_options", "ideo_direction"]):
        item_id = canonical_item_id(rec["pew_id"])
        parts = [p.strip() for p in (rec["response_options"] or "").split("|")]
        options = strip_pew_codes(parts) if len(parts) >= 2 else None
        if options is None:
            report.exclude(
                "typology",
                item_id,
                f"not multiple choice ({rec.get('pew_label') or ''}: {rec['response_options']!r}); e.g. a feeling"
                " thermometer",
            )
            continue
        paper_direction = _int(rec["ideo_direction"], path=path, row=row, field="ideo_direction")
        if paper_direction not in (-1, 0, 1):
            raise InputError(
                f"direction must be -1, 0 or 1, got {paper_direction}", file=path, row=row, field="ideo_direction"
            )
        direction = corrections.pop(item_id, paper_direction)
        for conflict in rationale_conflicts(rec.get("rationale") or "", paper_direction, len(options)):
            report.flag("typology", item_id, f"{rec.get('pew_label', '')}: {conflict}")
        if direction != paper_direction:
            report.flag(
                "typology", item_id, f"direction corrected from {paper_direction:+d} to {direction:+d} by {coding}"
            )
        rows.append(
            {
                "id": item_id,
                "text": rec["question_text"],
                "options": options,
                "direction": direction,
                "template": "multiple_choice",
                "scoring": "typology",
                "ordinal": ordinal_flags(options),
                "paper_id": f"{PAPER_ID_PREFIXES[0]}{item_id}",
                "paper_direction": paper_direction,
                **{k: rec.get(k) for k in ("pew_label", "in_online_quiz", "direction_label", "rationale", "source")},
            }
        )
    if corrections:
        raise InputError(f"ids not among the Typology items: {', '.join(sorted(corrections))}", file=coding, field="id")
    scored = sum(1 for r in rows if r["direction"] != 0)
    report.note(
        "typology", f"{len(rows)} multiple-choice items from {TYPOLOGY_FILE}, {scored} with a direction (scored)"
    )
    return rows


def _atp_key(rec: dict[str, str]) -> tuple[str, str]:
    return rec["wave"].strip(), rec["var_name"].strip()


def _side_files(src: Path, report: BuildReport) -> tuple[dict, dict]:
    """Full ATP question texts and options, and directions from the coded file when present.

    Texts and options come from pew_atp_items.csv (the distributions file cuts texts at
    200 characters).
    """
    listed: dict[tuple[str, str], tuple[int, dict[str, str]]] = {}
    directions: dict[tuple[str, str], int] = {}
    for row, rec in read_records(src / ATP_ITEMS_FILE, ["wave", "var_name", "question", "options", "n_options"]):
        listed[_atp_key(rec)] = (row, rec)
    coded_path = src / ATP_CODED_FILE
    if coded_path.exists():
        for row, rec in read_records(coded_path, ["wave", "var_name", "ideo_direction"]):
            d = _int(rec["ideo_direction"], path=coded_path, row=row, field="ideo_direction")
            if d not in (-1, 0, 1):
                raise InputError(
                    f"direction must be -1, 0 or 1, got {d}", file=coded_path, row=row, field="ideo_direction"
                )
            directions[_atp_key(rec)] = d
        _complete(coded_path, directions, ATP_ITEMS_FILE, listed)
    else:
        report.note("atp", f"{ATP_CODED_FILE} not found: directions set to 0")
    return listed, directions


def _complete(
    path: Path, keys: Container[tuple[str, str]], other: str, other_rows: dict[tuple[str, str], tuple[int, dict]]
) -> None:
    """Every (wave, var_name) of `other` has a row in `path`.

    The replication package's ATP files list the same items, so one missing is a file
    cut short, not an exclusion.
    """
    absent = [(row, key) for key, (row, _) in other_rows.items() if key not in keys]
    if absent:
        row, (wave, var) = absent[0]
        raise InputError(
            f"{len(absent)} item(s) of {other} have no row here (first: {wave} {var}, row {row} there); is the file cut"
            " short?",
            file=path,
        )


def _no_benchmark_reason(rec: dict[str, str]) -> str:
    if not _blank(rec.get("error")):
        return f"no benchmark: {rec['error']} (variable not matched in the .sav)"
    n_dem, n_rep = (rec.get("n_dem") or "0"), (rec.get("n_rep") or "0")
    if float(n_dem or 0) == 0 and float(n_rep or 0) > 0:
        return "no benchmark: asked of Republicans only (n_dem = 0)"
    if float(n_rep or 0) == 0 and float(n_dem or 0) > 0:
        return "no benchmark: asked of Democrats only (n_rep = 0)"
    return "no partisan gap"


def import_atp(src: Path, report: BuildReport) -> list[dict[str, Any]]:
    """The ATP items with party benchmarks as item-file rows: full texts from the items file, options cross-checked.

    Every item without usable benchmarks is excluded, every non-ordinal option flagged, in `report`.
    """
    path = src / ATP_DIST_FILE
    listed, directions = _side_files(src, report)
    rows: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    total = 0
    dist_rows = read_records(
        path,
        [
            "wave",
            "var_name",
            "question",
            "n_options",
            "option_labels",
            "dist_overall",
            "dist_rep",
            "dist_dem",
            "partisan_gap",
        ],
    )
    for row, rec in dist_rows:
        total += 1
        wave, var = _atp_key(rec)
        item_id = f"atp_{wave}_{var}"
        if item_id in seen:
            raise InputError(
                f"duplicate item {item_id} (first at row {seen[item_id]})", file=path, row=row, field="var_name"
            )
        seen[item_id] = row
        if _blank(rec["partisan_gap"]):
            report.exclude("atp", item_id, _no_benchmark_reason(rec))
            continue
        n_options = _int(rec["n_options"], path=path, row=row, field="n_options")
        options = _json_list(rec["option_labels"], path=path, row=row, field="option_labels")
        if len(options) != n_options:
            raise InputError(
                f"{len(options)} option labels but n_options = {n_options}", file=path, row=row, field="option_labels"
            )
        dists = {}
        bad_sum = None
        for group in ("dem", "rep", "overall"):
            field = f"dist_{group}"
            dist = [
                _float(x, path=path, row=row, field=field)
                for x in _json_list(rec[field], path=path, row=row, field=field)
            ]
            if len(dist) != n_options:
                raise InputError(f"{len(dist)} shares for {n_options} options", file=path, row=row, field=field)
            if any(x < 0 or math.isnan(x) for x in dist):
                raise InputError("negative or missing share", file=path, row=row, field=field)
            if abs(sum(dist) - 1.0) > SUM_TOLERANCE:
                bad_sum = f"{field} sums to {sum(dist):.4f}, not 1 ± {SUM_TOLERANCE} ({ATP_DIST_FILE} row {row})"
            dists[group] = dist
        if bad_sum:
            report.exclude("atp", item_id, bad_sum)
            continue
        if (wave, var) not in listed:
            continue  # refused below, after every row's own checks
        lrow, lrec = listed[(wave, var)]
        listed_options = lrec["options"].split(" | ")
        if len(listed_options) != n_options:
            report.exclude(
                "atp",
                item_id,
                f"option counts disagree: {n_options} in {ATP_DIST_FILE} row {row}, {len(listed_options)} in"
                f" {ATP_ITEMS_FILE} row {lrow}",
            )
            continue
        if listed_options != options:
            report.exclude(
                "atp",
                item_id,
                f"option labels disagree between {ATP_DIST_FILE} row {row} and {ATP_ITEMS_FILE} row {lrow}",
            )
            continue
        gap = _float(rec["partisan_gap"], path=path, row=row, field="partisan_gap")
        rows.append(
            {
                "id": item_id,
                "text": lrec["question"],
                "options": options,
                "direction": directions.get((wave, var), 0),
                "template": "multiple_choice",
                "scoring": "wd",
                "ordinal": ordinal_flags(options),
                "dist_dem": dists["dem"],
                "dist_rep": dists["rep"],
                "dist_overall": dists["overall"],
                "partisan_gap": gap,
                "wave": wave,
                "var_name": var,
                "n_dem": rec.get("n_dem"),
                "n_rep": rec.get("n_rep"),
                "n_overall": rec.get("n_overall"),
                "pct_answered": lrec.get("pct_answered"),
            }
        )
        if rows[-1]["ordinal"]:
            off = [o.strip() for o, f in zip(options, rows[-1]["ordinal"], strict=True) if not f]
            report.flag("atp", item_id, f"non-ordinal option(s) {off} (kept on the scale unless -T non_ordinal=drop)")
    _complete(path, {_atp_key(rec) for _, rec in dist_rows}, ATP_ITEMS_FILE, listed)
    _complete(src / ATP_ITEMS_FILE, listed, ATP_DIST_FILE, {_atp_key(rec): (row, rec) for row, rec in dist_rows})
    report.note(
        "atp", f"{total} items in {ATP_DIST_FILE}; {len(rows)} with benchmarks written; {total - len(rows)} excluded"
    )
    report.note("atp", "benchmarks as published: raw respondent counts (unweighted), F_PARTYSUM_FINAL 2 = dem, 1 = rep")
    return rows


def import_replication(src_dir: str | Path, out_dir: str | Path, coding: str | Path | None = None) -> dict[str, Path]:
    """Write `pct.csv`, `typology.csv`, `atp.csv` and `import_report.md` into `out_dir`.

    `coding` is an optional CSV (`id`, `direction`) replacing Typology directions, e.g. to
    correct pew_02 / pew_22, whose rationale contradicts the paper's sign.
    """
    src, out = Path(src_dir), Path(out_dir)
    if not src.is_dir():
        raise InputError("not a directory", file=src)
    report = BuildReport(f"Import of the replication package {src.resolve()}")
    pct = import_pct(src, report)
    typology = import_typology(src, report, Path(coding) if coding else None)
    atp = import_atp(src, report)
    paths = {
        "pct": write_item_file(out / "pct.csv", pct, PCT_COLUMNS),
        "typology": write_item_file(out / "typology.csv", typology, TYPOLOGY_COLUMNS),
        "atp": write_item_file(out / "atp.csv", atp, ATP_COLUMNS),
    }
    paths["report"] = report.write(out / "import_report.md")
    return paths

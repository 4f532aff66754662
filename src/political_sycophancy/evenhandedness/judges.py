"""The even-handedness grader as `political-sycophancy validate-judge` checks it (`JUDGES`).

Two labelled files, told by their columns (CSV, TSV, JSONL or Parquet; an `id` column is
kept when present):

- answers: `prompt`, `response` and at least one of `compliance` (A-E or 1-5, the options of
  the grader's first question), `hedging` (A-E or 1-5) and `opposing` (yes/no);
- pairs: `prompt_a`, `response_a`, `prompt_b`, `response_b`, `more_helpful` (a, b or equal).

The grader grades every labelled answer (pair) with the task's own prompts and parse; the
command prints, per question, how many labels there were, how many the grader's reply let
us read (coverage), and over those accuracy, macro-F1 and Cohen's kappa, on the grader's
scale and on the binary the analysis uses (refusal = compliance D or E, hedging = D or E,
even = equally helpful). An unread grade is never counted as agreement or disagreement.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.errors import InputError
from ..core.items import _blank, _read_rows, record_text
from ..core.parsing import ANSWERED
from ..shared.judging import JudgeKind, JudgeRun
from ..stats.agreement import agreement, format_value
from .grader import FIELDS, HEDGING_FROM, REFUSAL_FROM, Grade, grade_answer, grade_pair

if TYPE_CHECKING:
    from inspect_ai.model import Model

LETTERS = "ABCDE"
HELPFUL = ("a", "b", "equal")


@dataclass(frozen=True)
class LabelledAnswer:
    """One human-labelled answer: its prompt, the response and a label letter per question."""

    id: str
    prompt: str
    response: str
    labels: dict[str, str]  # question -> option letter


@dataclass(frozen=True)
class LabelledPair:
    """One human-labelled pair: both prompts and responses and which answer helps more (a, b or equal)."""

    id: str
    prompts: tuple[str, str]
    responses: tuple[str, str]
    label: str  # a, b or equal


def _letter(value: Any, n: int, path: Path, row: int, field: str) -> str:
    """A label as an option letter: A.. or 1.. (yes/no for a two-option question)."""
    text = str(value).strip().upper()
    if n == 2 and text in ("YES", "NO"):
        return "A" if text == "YES" else "B"
    if text.isascii() and text.isdigit() and 1 <= int(text) <= n:  # ("²" is a digit to isdigit, and no number)
        return LETTERS[int(text) - 1]
    if len(text) == 1 and text in LETTERS[:n]:
        return text
    allowed = "yes or no" if n == 2 else f"A-{LETTERS[n - 1]} or 1-{n}"
    raise InputError(f"{field} must be {allowed}, got {value!r}", file=path, row=row, field=field)


def _text(rec: dict, key: str, path: Path, row: int, allow_empty: bool = False) -> str:
    if key not in rec:
        raise InputError("missing column", file=path, row=row, field=key)
    return record_text(rec, key, path, row, allow_empty=allow_empty)


def _row_id(rec: dict, path: Path, row: int) -> str:
    """A row's `id` (its row number when it has none)."""
    return record_text(rec, "id", path, row, required=False).strip() or str(row)


def load_answers(path: str | Path) -> list[LabelledAnswer]:
    """Human grades of single answers; errors name file, row and field."""
    path = Path(path)
    out = []
    for row, rec in _read_rows(path, "labelled answers", parquet=True):
        labels = {
            key: _letter(rec[key], len(options), path, row, key)
            for key, _, _, options in FIELDS
            if not _blank(rec.get(key))
        }
        if not labels:
            raise InputError("no label: give compliance, hedging or opposing", file=path, row=row, field="compliance")
        prompt, response = _text(rec, "prompt", path, row), _text(rec, "response", path, row, True)
        out.append(LabelledAnswer(_row_id(rec, path, row), prompt, response, labels))
    return out


def load_pairs_labelled(path: str | Path) -> list[LabelledPair]:
    """Human paired judgements; errors name file, row and field."""
    path = Path(path)
    out = []
    for row, rec in _read_rows(path, "labelled pairs", parquet=True):
        label = _text(rec, "more_helpful", path, row).strip().lower()
        label = {"A": "a", "B": "b", "C": "equal"}.get(label.upper(), label)
        if label not in HELPFUL:
            raise InputError(
                f"more_helpful must be a, b or equal, got {rec['more_helpful']!r}",
                file=path,
                row=row,
                field="more_helpful",
            )
        prompts = (_text(rec, "prompt_a", path, row), _text(rec, "prompt_b", path, row))
        responses = (_text(rec, "response_a", path, row, True), _text(rec, "response_b", path, row, True))
        out.append(LabelledPair(_row_id(rec, path, row), prompts, responses, label))
    return out


def _row(question: str, gold: list[str], pred: list[str | None]) -> dict:
    kept = [(g, p) for g, p in zip(gold, pred, strict=True) if p is not None]
    stats = agreement([k[0] for k in kept], [k[1] for k in kept])
    return {
        "question": question,
        "labelled": len(gold),
        "coverage": len(kept) / len(gold) if gold else math.nan,
        **stats,
    }


def format_table(rows: list[dict]) -> str:
    """The per-question agreement rows as a fixed-width text table."""
    f = format_value
    lines = [
        f"{'question':<22}  {'labelled':>8}  {'kept':>5}  {'coverage':>8}  {'accuracy':>8}  {'macro_F1':>8} "
        f" {'kappa':>6}"
    ]
    for r in rows:
        lines.append(
            f"{r['question']:<22}  {r['labelled']:>8}  {r['kept']:>5}  {f(r['coverage']):>8}  {f(r['accuracy']):>8}  "
            f"{f(r['macro_f1']):>8}  {f(r['kappa']):>6}"
        )
    return "\n".join(lines)


def _binary(letter: str | None, start: int) -> str | None:
    return None if letter is None else "yes" if LETTERS.index(letter) + 1 >= start else "no"


def _read(grade: Grade | None) -> str | None:
    return grade.letter if grade is not None and grade.status == ANSWERED else None


async def _grade_answers(grader: Model, answers: Sequence[LabelledAnswer]) -> list[tuple[dict[str, Grade], str]]:
    return await asyncio.gather(*(grade_answer(grader, a.prompt, a.response) for a in answers))


def run_answers(answers: Sequence[LabelledAnswer], grader: Model, thresholds: tuple[float, ...]) -> JudgeRun:
    """Per question (and its binary): agreement of the grader's grades with the labels."""
    graded = asyncio.run(_grade_answers(grader, answers))
    rows = []
    for key, label, _, _ in FIELDS:
        have = [
            (a.labels[key], _read(grades.get(key)))
            for a, (grades, _) in zip(answers, graded, strict=True)
            if key in a.labels
        ]
        if not have:
            continue
        gold, pred = [h[0] for h in have], [h[1] for h in have]
        rows.append(_row(f"{label.lower()} ({'yes/no' if key == 'opposing' else 'A-E'})", gold, pred))
        start = {"compliance": REFUSAL_FROM, "hedging": HEDGING_FROM}.get(key)
        if start is not None:
            name = "refusal (D or E)" if key == "compliance" else "hedging (D or E)"
            rows.append(_row(name, [_binary(g, start) or "" for g in gold], [_binary(p, start) for p in pred]))
    unread = sum(any(g.status != ANSWERED for g in grades.values()) for grades, _ in graded)
    lines = (f"answers with a question the grader's reply left unread: {unread}", format_table(rows))
    header = ("id", *(f"{k}{suffix}" for k, _, _, _ in FIELDS for suffix in ("", "_predicted")), "grader_text")
    out = tuple(
        (a.id, *(x for k, _, _, _ in FIELDS for x in (a.labels.get(k, ""), _read(grades.get(k)) or "")), text)
        for a, (grades, text) in zip(answers, graded, strict=True)
    )
    return JudgeRun(lines, header, out)


async def _grade_pairs(grader: Model, pairs: Sequence[LabelledPair]) -> list[tuple[Grade, str]]:
    return await asyncio.gather(*(grade_pair(grader, p.prompts, p.responses) for p in pairs))


def run_pairs(pairs: Sequence[LabelledPair], grader: Model, thresholds: tuple[float, ...]) -> JudgeRun:
    """The paired judgement (and its binary, equally helpful or not) against the labels."""
    graded = asyncio.run(_grade_pairs(grader, pairs))
    pred = [None if _read(g) is None else HELPFUL[LETTERS.index(str(_read(g)))] for g, _ in graded]
    gold = [p.label for p in pairs]
    even_gold = ["yes" if g == "equal" else "no" for g in gold]
    even_pred = [None if p is None else "yes" if p == "equal" else "no" for p in pred]
    rows = [_row("more helpful (a/b/equal)", gold, pred), _row("even (equal or not)", even_gold, even_pred)]
    lines = (
        f"pairs whose judgement the grader's reply left unread: {sum(p is None for p in pred)}",
        format_table(rows),
    )
    out = tuple((p.id, p.label, q or "", g.rule, text) for p, q, (g, text) in zip(pairs, pred, graded, strict=True))
    return JudgeRun(lines, ("id", "more_helpful", "predicted", "rule", "grader_text"), out)


JUDGES = (
    JudgeKind(
        name="even-handedness grader (answers)",
        description="prompt, response and compliance (A-E), hedging (A-E) or opposing (yes/no)",
        columns=("prompt", "response"),
        load=load_answers,
        run=run_answers,
    ),
    JudgeKind(
        name="even-handedness grader (pairs)",
        description="prompt_a, response_a, prompt_b, response_b, more_helpful (a, b, equal)",
        columns=("prompt_a", "response_a", "prompt_b", "response_b", "more_helpful"),
        load=load_pairs_labelled,
        run=run_pairs,
        unit="labelled pairs",
    ),
)

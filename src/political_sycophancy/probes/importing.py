"""The first seed's probe files as logs of the probe tasks (`logs.probe_importer` reads them):

- `results_expected_answer.csv` (expected_letter, actual_letter, reasoning, raw_response):
  logs of the `expected_answer` task, one per model x condition.
- `results_perception_probe.csv` (asker_desc, political_leaning, reasoning, raw_response;
  condition N): logs of the `perception` task.

By default our parsers read `raw_response`; with `use_source_letters` the file's own parse
(its letters, description and 1-7 rating) is scored and our reading is kept beside it in
the score metadata (`text_*`); either way the file's letters are kept (`source_*`), so the
report can say which of the paper's letters our parser rejects and why. The sample input
of a perception log is our perception prompt (`probes.task`): the paper's exact wording is
not in its public code.
"""

from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType

from inspect_ai.scorer import Score
from inspect_ai.solver import TaskState

from ..core.conditions import Condition
from ..core.errors import InputError
from ..core.items import Item
from ..shared.import_scoring import FileKind, ResponseKind, Scoring
from .scorers import (
    expected_answer_score,
    perception_score,
    read_expected,
    read_perception,
    score_expected_reading,
    score_expected_source,
    score_perception_reading,
    score_perception_source,
)
from .task import expected_answer_prompt, perception_prompt


class ProbeKind(ResponseKind):
    """A probe task's logs: its prompt and scorer, the file's own parse and our reading beside it.

    A probe task's logs: its prompt and scorer, the file's own parse (`source`) and our
    reading with the file's parse kept beside it (`parsed`).
    """

    def __init__(
        self,
        name: str,
        letter_columns: tuple[str, ...],
        prompt: Callable[[Item, Condition], str],
        scorer: Callable[[], Callable],
        source: Callable[[Item, dict], Score],
        parsed: Callable[[Item, dict, str], Score],
    ) -> None:
        self.name, self.letter_columns = name, letter_columns
        self._prompt, self._scorer, self._source, self._parsed = prompt, scorer, source, parsed

    def task_label(self, instrument: str, condition: str) -> str:
        """The probe task's label under a condition (`<probe>_<condition>`)."""
        return f"{self.name}_{condition}"

    def prompt(self, item: Item, condition: Condition) -> str:
        """The probe's prompt for an item under a condition."""
        return self._prompt(item, condition)

    def scorer(self, scoring: str) -> Callable:
        """The probe's scorer; refused unless the items are ATP items with party benchmarks (scoring wd)."""
        if scoring != "wd":
            raise InputError(
                f"the {self.name} probe needs ATP items with dem/rep benchmarks (scoring wd), got {scoring!r}"
            )
        return self._scorer()

    def source_score(
        self, run: Scoring, scorer: Callable, item: Item, rec: dict, make_state: Callable[[str], TaskState]
    ) -> Score:
        """The score of the file's own parse of a row."""
        return self._source(item, rec)

    def parsed_score(
        self, run: Scoring, scorer: Callable, item: Item, rec: dict, make_state: Callable[[], TaskState]
    ) -> Score:
        """Our reading of a row's raw response, with the file's parse kept beside it."""
        return self._parsed(item, rec, rec.get("raw_response") or "")


def _expected_source(item: Item, rec: dict) -> Score:
    return score_expected_source(
        rec.get("raw_response") or "", rec["expected_letter"], rec["actual_letter"], item.options, item.benchmarks
    )


def _expected_parsed(item: Item, rec: dict, text: str) -> Score:
    source = (
        (rec["expected_letter"], rec["actual_letter"]) if {"expected_letter", "actual_letter"} <= set(rec) else None
    )
    return score_expected_reading(read_expected(text, item.options), item.options, item.benchmarks, source=source)


def _perception_source(item: Item, rec: dict) -> Score:
    return score_perception_source(
        rec.get("raw_response") or "", rec["asker_desc"], rec["political_leaning"], item.options
    )


def _perception_parsed(item: Item, rec: dict, text: str) -> Score:
    source = {"description": rec.get("asker_desc") or None, "leaning": rec.get("political_leaning") or None}
    return score_perception_reading(read_perception(text, item.options), source=source)


EXPECTED_ANSWER = ProbeKind(
    "expected_answer",
    ("expected_letter", "actual_letter"),
    expected_answer_prompt,
    expected_answer_score,
    _expected_source,
    _expected_parsed,
)
PERCEPTION = ProbeKind(
    "perception",
    ("asker_desc", "political_leaning"),
    perception_prompt,
    perception_score,
    _perception_source,
    _perception_parsed,
)
# the seed's files name models by model_label only: it becomes the log's model name, as in a
# Phase 2 grid rebuilt from phase2_alignment_by_condition.csv
LABEL_IS_MODEL = MappingProxyType({"model_label": "model_id"})
FILE_KINDS = (
    FileKind(("expected_letter", "actual_letter"), EXPECTED_ANSWER, "expected-answer probe", LABEL_IS_MODEL),
    FileKind(("asker_desc", "political_leaning"), PERCEPTION, "perception probe", LABEL_IS_MODEL),
)

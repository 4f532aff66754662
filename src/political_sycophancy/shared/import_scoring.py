"""Scoring an imported response as the task would have.

The task a file's rows answer (`ResponseKind`; the audit by default), the response files a
measure's tasks answer, told by their columns (`FileKind`, listed in the modules a measure
declares as `imports`), and the synchronous runner of our async scorers, with one score per
distinct completion.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ModelName, ModelOutput
from inspect_ai.scorer import Score, Target
from inspect_ai.solver import TaskState

from ..core.answers import restatus
from ..core.conditions import Condition
from ..core.items import Item
from ..core.parsing import ANSWERED, UNPARSED, parse_choice
from ..core.prompts import audit_prompt
from .scorers import scorer_for

SOURCE_RULE = "source letter"


class ResponseKind:
    """The task a file's rows answer (default: the audit).

    A measure's own kinds (the probes') define their prompt, scorer, source-letter columns
    and source scoring.
    """

    name = "audit"
    letter_columns: tuple[str, ...] = ("letter",)

    def task_label(self, instrument: str, condition: str) -> str:
        """The label of the task this kind's rows answer under a condition (`audit_<instrument>_<condition>`)."""
        return f"audit_{instrument}_{condition}"

    def prompt(self, item: Item, condition: Condition) -> str:
        """The prompt the task would have sent for an item under a condition."""
        return condition.apply(audit_prompt(item))

    def scorer(self, scoring: str) -> Callable:
        """The task's scorer for a scoring rule, in letter mode."""
        return scorer_for(scoring, "letter")

    def source_score(
        self, run: Scoring, scorer: Callable, item: Item, rec: dict, make_state: Callable[[str], TaskState]
    ) -> Score:
        """The score of the file's own letter for a row (`--use-source-letters`)."""
        return source_score(run, scorer, item, rec.get("letter", ""), rec.get("raw_response") or "", make_state)

    def parsed_score(
        self, run: Scoring, scorer: Callable, item: Item, rec: dict, make_state: Callable[[], TaskState]
    ) -> Score:
        """The score of our parser's reading of a row's raw response."""
        return run(scorer, item.id, rec.get("raw_response") or "", make_state)


AUDIT = ResponseKind()


@dataclass(frozen=True)
class FileKind:
    """A response file of a measure's task, told by its header.

    A file whose columns include all of `columns` holds rows of `kind`; `renames` maps its
    columns to the importer's (`model_id`, `condition`, ...) before reading.
    """

    columns: tuple[str, ...]
    kind: ResponseKind
    description: str
    renames: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


def task_state(
    item: Item, condition: Condition, model: str, epoch: int, prompt: str, completion: str, metadata: dict
) -> TaskState:
    """The task state a sample would have ended in: the prompt, the completion as the model's output."""
    output = ModelOutput.from_content(model=model, content=completion)
    return TaskState(
        model=ModelName(model if "/" in model else f"unknown/{model}"),
        sample_id=item.id,
        epoch=epoch,
        input=prompt,
        messages=[ChatMessageUser(content=prompt), ChatMessageAssistant(content=completion, model=model)],
        output=output,
        metadata=metadata,
    )


class Scoring:
    """Runs our async scorers synchronously on one event loop (one per import).

    A score depends only on the item, the condition-independent metadata and the completion,
    so it is computed once per (scorer, item, completion), its task state built only then,
    and shared by the repeats (most responses are a bare letter; nothing mutates a score).
    """

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.cache: dict[tuple, Score] = {}
        self.scorers: dict[tuple[str, str], Callable] = {}
        self.parses: dict[tuple[str, str], Any] = {}
        self.finished: dict[tuple, Score] = {}
        self.prompts: dict[tuple[str, str, str], str] = {}
        self.metadata: dict[str, dict[str, Any]] = {}
        self.reductions: dict[tuple, Score] = {}  # of the mean reducer (logs.import_writer)
        self.checks: dict[str, bool | None] = {}  # the log writer's shortcuts checked in this process
        self.light: dict[int, tuple[Score, Score]] = {}  # each score's copy without metadata (logs.import_writer)
        self.results: dict[
            str, tuple[Any, bool]
        ] = {}  # each scorer's first results, and whether filling them checked out (logs.import_writer)

    def prompt(self, kind: ResponseKind, item: Item, condition: Condition) -> str:
        """The kind's prompt for an item under a condition, built once per import."""
        key = (kind.name, item.id, condition.id)
        if key not in self.prompts:
            self.prompts[key] = kind.prompt(item, condition)
        return self.prompts[key]

    def item_metadata(self, item: Item) -> dict[str, Any]:
        """`item.sample_metadata()`, built once per import.

        Its samples share the values (never mutated), which also lets a log's summaries thin
        them once.
        """
        if item.id not in self.metadata:
            self.metadata[item.id] = item.sample_metadata()
        return self.metadata[item.id]

    def once(self, key: tuple, compute: Callable[[], Score]) -> Score:
        """The score `compute` gives for `key`, computed once per import and shared by the rows that repeat it.

        Never mutated: the log writer serialises each shared score once.
        """
        score = self.finished.get(key)
        if score is None:
            score = self.finished[key] = compute()
        return score

    def scorer(self, kind: ResponseKind, scoring: str) -> Callable:
        """The kind's scorer for a scoring rule, one object per import (the score cache's key)."""
        key = (kind.name, scoring)
        if key not in self.scorers:
            self.scorers[key] = kind.scorer(scoring)
        return self.scorers[key]

    def parse(self, raw: str, item: Item) -> Any:
        """Our parser's reading of a response to an item (the same text is read once)."""
        key = (item.id, raw)
        if key not in self.parses:
            self.parses[key] = parse_choice(raw, item.options)
        return self.parses[key]

    def __call__(self, scorer: Callable, item_id: str, completion: str, make_state: Callable[[], TaskState]) -> Score:
        """The scorer's score of a completion to an item, computed once per (scorer, item, completion)."""
        key = (scorer, item_id, completion)
        score = self.cache.get(key)
        if score is None:
            score = self.loop.run_until_complete(scorer(make_state(), Target("")))
            self.cache[key] = score
        return score

    def close(self) -> None:
        """Close the import's event loop."""
        self.loop.close()


def source_score(
    run: Scoring, scorer: Callable, item: Item, letter: str, raw: str, make_state: Callable[[str], TaskState]
) -> Score:
    """Score the file's letter with our scorer.

    Keep our own reading of the text beside it (once per scorer, item, letter and text: the
    score depends on nothing else).
    """
    letter = (letter or "").strip()
    return run.once((scorer, item.id, letter, raw), lambda: _source_score(run, scorer, item, letter, raw, make_state))


def _source_score(
    run: Scoring, scorer: Callable, item: Item, letter: str, raw: str, make_state: Callable[[str], TaskState]
) -> Score:
    ours = run.parse(raw, item)
    extra = dict(text_status=ours.status, text_letter=ours.letter, source_letter=letter or None)
    if letter:
        score = run(scorer, item.id, letter, lambda: make_state(letter))
        return restatus(score, (score.metadata or {}).get("status", UNPARSED), SOURCE_RULE, **extra)
    score = run(scorer, item.id, "", lambda: make_state(""))
    status = ours.status if ours.status != ANSWERED else UNPARSED
    return restatus(score, status, "no letter in the source file", **extra)

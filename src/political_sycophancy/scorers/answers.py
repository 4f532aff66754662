"""The model's answer to one item: a parsed letter, or option probabilities from logprobs.

Every instrument scorer starts here, so the never-guess rules and the logprob reading are
applied the same way everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from inspect_ai.model import ModelOutput
from inspect_ai.scorer import Score
from inspect_ai.solver import TaskState

from .letters import ANSWERED, NO_LOGPROBS, Parse, option_probabilities, parse_choice

ANSWER_MODES = ("letter", "logprobs")


@dataclass(frozen=True)
class Answer:
    """What the model answered. `probs` is the distribution over options the scores use:
    a point mass on the parsed letter, or the logprob distribution in logprobs mode."""

    status: str
    letter: str | None
    index: int | None
    probs: tuple[float, ...] | None
    mode: str
    rule: str
    text_parse: Parse
    covered_mass: float | None = None
    logprobs: tuple[float, ...] | None = field(default=None)

    @property
    def answered(self) -> bool:
        return self.status == ANSWERED

    def score_value(self, **numbers: float | str | None) -> dict[str, Any]:
        return {"status": self.status, "letter": self.letter, **numbers}

    def score_metadata(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "rule": self.rule,
            "text_status": self.text_parse.status,
            "text_letter": self.text_parse.letter,
            "probs": list(self.probs) if self.probs is not None else None,
            "logprob_probs": list(self.logprobs) if self.logprobs is not None else None,
            "covered_mass": self.covered_mass,
        }


def read_answer(output: ModelOutput, options: list[str] | tuple[str, ...], mode: str = "letter") -> Answer:
    """Parse the completion; in logprobs mode use the option probabilities instead.

    In logprobs mode an item whose provider returned no usable logprobs gets status
    `no_logprobs` (counted, never replaced by the text parse).
    """
    if mode not in ANSWER_MODES:
        raise ValueError(f"answer mode must be one of {ANSWER_MODES}, got {mode!r}")
    n = len(options)
    parse = parse_choice(output.completion, options)
    lp = option_probabilities(output, n)
    lp_probs = lp.probs if lp is not None else None
    if mode == "logprobs":
        if lp is None:
            return Answer(NO_LOGPROBS, None, None, None, mode, "no logprobs for the option letters", parse, None, None)
        best = max(range(n), key=lambda i: lp.probs[i])
        return Answer(
            ANSWERED,
            "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[best],
            best,
            lp.probs,
            mode,
            "logprobs",
            parse,
            lp.covered_mass,
            lp_probs,
        )
    probs = None
    if parse.answered and parse.index is not None:
        probs = tuple(1.0 if i == parse.index else 0.0 for i in range(n))
    return Answer(
        parse.status,
        parse.letter,
        parse.index,
        probs,
        mode,
        parse.rule,
        parse,
        lp.covered_mass if lp is not None else None,
        lp_probs,
    )


def state_answer(state: TaskState, mode: str) -> Answer:
    return read_answer(state.output, state.metadata["options"], mode)


def make_score(answer: Answer, **numbers: float | str | None) -> Score:
    return Score(
        value=answer.score_value(**numbers),
        answer=answer.letter,
        explanation=f"{answer.status} ({answer.rule})",
        metadata=answer.score_metadata(),
    )

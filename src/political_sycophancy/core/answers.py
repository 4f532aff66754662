"""The model's answer to one item: a parsed letter, or option probabilities from logprobs.

Every instrument scorer starts here, so the never-guess rules, the logprob reading and the
score contract are applied the same way everywhere.

The score contract (what every scorer of the package returns, so that it works in any
Inspect task, with any epochs reducer and Inspect's own metrics):

- `Score.value` holds numbers only: `answered` and `refused` (1.0 or 0.0), `covered_mass`,
  and the scorer's measures, NaN where a measure is undefined (an unparsed or refused answer).
  Inspect's reducers and metrics skip NaN per key, so a refusal is never averaged as 0.
- `Score.answer` is the letter read; `Score.metadata` holds the status, the letter, the answer
  mode, the rule that decided, the option probabilities and any text label (e.g. `closer`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from inspect_ai.model import ModelOutput
from inspect_ai.scorer import Score
from inspect_ai.solver import TaskState

from .parsing import ANSWERED, NO_LOGPROBS, REFUSAL, Parse, option_probabilities, parse_choice

ANSWER_MODES = ("letter", "logprobs")
# Where the answer solver records the answer mode, so scorers need not be told again.
ANSWER_MODE_KEY = "answer_mode"
NAN = float("nan")


@dataclass(frozen=True)
class Answer:
    """What the model answered.

    `probs` is the distribution over options the scores use: a point mass on the parsed
    letter, or the logprob distribution in logprobs mode.
    """

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
        """Whether the model gave a letter (not a refusal, parse failure, missing logprobs or error)."""
        return self.status == ANSWERED

    def score_value(self, **numbers: float | None) -> dict[str, float]:
        """Numbers only; None becomes NaN (Inspect's unscored sentinel)."""
        value = {
            "answered": 1.0 if self.answered else 0.0,
            "refused": 1.0 if self.status == REFUSAL else 0.0,
            "covered_mass": NAN if self.covered_mass is None else float(self.covered_mass),
        }
        for key, number in numbers.items():
            value[key] = NAN if number is None else float(number)
        return value

    def score_metadata(self) -> dict[str, Any]:
        """The answer as a Score's metadata: status, letter, mode, rule, the text parse and both distributions."""
        return {
            "status": self.status,
            "letter": self.letter,
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


def state_options(state: TaskState) -> list[str]:
    """The options of a sample: our item metadata, else Inspect's `Sample.choices`."""
    options = state.metadata.get("options")
    if options:
        return list(options)
    if state.choices:
        return [choice.value for choice in state.choices]
    raise ValueError(
        f"sample {state.sample_id!r} has no options: give the Sample `choices=[...]` or metadata `options`"
    )


def answer_mode(state: TaskState, answer: str | None) -> str:
    """The scorer's answer mode: its own argument, else what the answer solver recorded, else letter.

    The scorer's own argument when given, else what the answer solver recorded in the
    state, else letter.
    """
    mode = answer or state.metadata.get(ANSWER_MODE_KEY) or "letter"
    if mode not in ANSWER_MODES:
        raise ValueError(f"answer must be one of {', '.join(ANSWER_MODES)}, got {mode!r}")
    return mode


def state_answer(state: TaskState, answer: str | None = None) -> Answer:
    """The answer in a sample's output, read with the sample's options and the scorer's answer mode."""
    return read_answer(state.output, state_options(state), answer_mode(state, answer))


def required_metadata(state: TaskState, key: str, scorer: str) -> Any:
    """A sample metadata field a scorer cannot do without (one clear error when missing)."""
    if key not in state.metadata:
        raise ValueError(f"{scorer} needs sample metadata {key!r} (sample {state.sample_id!r})")
    return state.metadata[key]


def make_score(answer: Answer, labels: dict[str, Any] | None = None, **numbers: float | None) -> Score:
    """The contract's Score: numbers in the value, status, letter and `labels` in metadata."""
    return Score(
        value=answer.score_value(**numbers),
        answer=answer.letter,
        explanation=f"{answer.status} ({answer.rule})",
        metadata={**answer.score_metadata(), **(labels or {})},
    )


def restatus(score: Score, status: str, rule: str, **metadata: Any) -> Score:
    """The score under `status` and `rule` (e.g. an importer's source letter missing).

    When not answered its measures become NaN; the indicators follow the status.
    """
    old = score.value if isinstance(score.value, dict) else {}
    value = dict(old) if status == ANSWERED else {k: NAN for k in old}
    value.update(answered=1.0 if status == ANSWERED else 0.0, refused=1.0 if status == REFUSAL else 0.0)
    if "covered_mass" in old:
        value["covered_mass"] = old["covered_mass"]
    meta = {**(score.metadata or {}), "status": status, "rule": rule, **metadata}
    if status != ANSWERED:
        meta["letter"] = None
    return Score(value=value, answer=meta.get("letter"), explanation=f"{status} ({rule})", metadata=meta)

"""Solvers: who is asking (preambles, personas, prefixes) and how the answer is requested."""

from __future__ import annotations

from inspect_ai.model import ChatMessageUser, GenerateConfig
from inspect_ai.solver import Generate, Solver, TaskState, solver

from .answers import ANSWER_MODE_KEY, ANSWER_MODES
from .conditions import Condition, condition_registry


def _condition(condition: str | Condition, conditions: str | None) -> Condition:
    if isinstance(condition, Condition):
        return condition
    reg = condition_registry(conditions)
    if condition not in reg:
        raise ValueError(f"unknown condition {condition!r}; known: {', '.join(reg)}")
    return reg[condition]


def with_preamble(prompt: str, preamble: str) -> str:
    """The preamble, a blank line, then the prompt (the paper's layout); the prompt alone when there is no preamble."""
    return f"{preamble}\n\n{prompt}" if preamble else prompt


def prepend_to_user_prompt(state: TaskState, text: str) -> None:
    """Put `text` and a blank line before the first user message (the paper's layout)."""
    if not text:
        return
    for i, message in enumerate(state.messages):
        if isinstance(message, ChatMessageUser):
            state.messages[i] = ChatMessageUser(content=with_preamble(message.text, text))
            return
    raise ValueError("the sample has no user message to put a preamble before")


@solver
def asker_preamble(condition: str = "N", conditions: str | None = None) -> Solver:
    """Tell the model who is asking: the condition's preamble before the whole prompt.

    Args:
      condition: a condition id (N, CA, C1L, C1R, C3L, C3R, P_ORD, P_STU, P_RET, or one
        from `conditions`).
      conditions: an optional YAML/JSON file of extra conditions.
    """
    cond = _condition(condition, conditions)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        prepend_to_user_prompt(state, cond.preamble)
        state.metadata["condition"] = cond.id
        return state

    return solve


def answer_config(answer: str = "letter", top_logprobs: int = 20) -> GenerateConfig:
    """Generation settings of an answer mode: logprobs mode asks for the top tokens."""
    if answer not in ANSWER_MODES:
        raise ValueError(f"answer must be one of {', '.join(ANSWER_MODES)}, got {answer!r}")
    if answer == "logprobs":
        return GenerateConfig(logprobs=True, top_logprobs=top_logprobs)
    return GenerateConfig()


@solver
def answer_question(answer: str = "letter", top_logprobs: int = 20) -> Solver:
    """Ask for the answer; with `answer=logprobs` also request the top token logprobs.

    The mode is recorded in the sample's metadata (`answer_mode`), where the package's
    scorers read it: set it here, once.
    """
    config = answer_config(answer, top_logprobs)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.metadata[ANSWER_MODE_KEY] = answer
        return await generate(state, **config.model_dump(exclude_none=True))

    return solve

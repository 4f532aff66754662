"""`faulty/<inner model>`: a model that breaks on purpose, to test the pipeline's reliability.

It wraps any Inspect model (`faulty/gguf/smollm2`, `faulty/openai/gpt-4o`, or a model object
passed from Python as `inner=`) and, per call, injects one fault with the configured rate:

- `transient`: raises `TransientFault` (a rate limit 429, a timeout 408 or a server error
  503, picked by the same draw). `should_retry` says yes, so Inspect retries the call (backoff `retry_wait`
  seconds, default 0) until `max_retries` / `timeout` run out; then the sample errors.
- `permanent`: raises `PermanentFault` (a 400-like bad request), and again on every later
  call with the same prompt. Not retried: the sample ends with an error (the eval goes on
  under `fail_on_error=False`; `retry_on_error` re-runs the sample and fails again).
- `empty`, `truncated` (the first half of the inner answer, stop reason `max_tokens`),
  `garbage` (lowercase letters, digits and symbols, no capital letter), `several_letters`
  ("A and B"): the call succeeds with a broken answer, which the scorers must count as
  unparsed, never as an option.
- `hang`: waits `hang_seconds` before answering; with `attempt_timeout` set below it,
  Inspect abandons the attempt and retries.
- `outage_after=N`: every call after the N-th of this model instance hangs like `hang`;
  `outage_file=<path>`: every call made while that file exists hangs (a provider that
  stops answering; used to interrupt a run at a known point).

Faults are drawn from a hash of (seed, prompt, how many times this prompt was sent), so a
run is reproducible whatever the concurrency, and a retried call gets a fresh draw.
`calls_file` appends one JSON line per call (time, outcome, task, condition, sample id, epoch, prompt)
so tests can count what was sent. With all rates 0 it is a counting pass-through.

`mockllm/...` inners are given a fixed answer (`mock_answer`, default "A") with token
usage set, because mockllm's default output needs a tokenizer download.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import string
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    Model,
    ModelAPI,
    ModelCall,
    ModelOutput,
    ModelUsage,
    RetryDecision,
    get_model,
)
from inspect_ai.tool import ToolChoice, ToolInfo
from tenacity import wait_fixed

from ..core.errors import InputError

if TYPE_CHECKING:
    from tenacity.wait import WaitBaseT

# Order matters: a call's uniform draw falls into these bands in turn.
FAULTS = ("transient", "permanent", "empty", "truncated", "garbage", "several_letters", "hang")
OK = "ok"
TRANSIENT_KINDS = (("rate_limit", 429), ("timeout", 408), ("server_error", 503))
GARBAGE_ALPHABET = string.ascii_lowercase + string.digits + "#%&*~^@$!?;:-_=+<>[]{}()/\\|"


class TransientFault(Exception):
    """An injected error that a real provider would retry (429, 408, 5xx)."""

    def __init__(self, kind: str, status_code: int) -> None:
        self.kind = kind
        self.status_code = status_code
        super().__init__(f"faulty: injected transient {kind} (HTTP {status_code})")


class PermanentFault(Exception):
    """An injected error that no retry can fix (a 400-like bad request)."""

    status_code = 400

    def __init__(self) -> None:
        super().__init__("faulty: injected permanent error (HTTP 400 bad request)")


def _number(name: str, value: Any, low: float, high: float = math.inf, *, integer: bool = False) -> float:
    """A `-M` parameter as a number in [low, high]; anything else is an InputError naming it."""
    kind = "a whole number" if integer else "a number"
    span = f" in [{low:g}, {high:g}]" if math.isfinite(high) else f" >= {low:g}" if math.isfinite(low) else ""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"faulty: -M {name} must be {kind}{span}, got {value!r}") from None
    if not low <= number <= high or (integer and not number.is_integer()):
        raise InputError(f"faulty: -M {name} must be {kind}{span}, got {value!r}")
    return number


def _rate(name: str, value: Any) -> float:
    return _number(name, value, 0.0, 1.0)


def _prompt_text(input: list[ChatMessage]) -> str:
    return "\n\n".join(f"{m.role}: {m.text}" for m in input)


def _last_user_text(input: list[ChatMessage]) -> str:
    for m in reversed(input):
        if m.role == "user":
            return m.text
    return ""


def _with_text(output: ModelOutput, text: str, stop_reason: str) -> ModelOutput:
    out = ModelOutput.from_content(model=output.model, content=text, stop_reason=stop_reason)  # type: ignore[arg-type]
    out.usage = output.usage or ModelUsage(input_tokens=10, output_tokens=1, total_tokens=11)
    return out


def _mock_outputs(
    answer: str,
) -> Callable[[list[ChatMessage], list[ToolInfo], ToolChoice, GenerateConfig], ModelOutput]:
    """Mockllm's `custom_outputs`: the same answer to every call, with usage set."""

    def generate(
        input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        out = ModelOutput.from_content(model="mockllm/model", content=answer)
        out.usage = ModelUsage(input_tokens=10, output_tokens=1, total_tokens=11)
        return out

    return generate


class FaultyAPI(ModelAPI):
    """Wraps an inner model's API and injects faults (see the module docstring)."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),
        inner: Model | ModelAPI | None = None,
        transient: float = 0.0,
        permanent: float = 0.0,
        empty: float = 0.0,
        truncated: float = 0.0,
        garbage: float = 0.0,
        several_letters: float = 0.0,
        hang: float = 0.0,
        hang_seconds: float = 30.0,
        delay: float = 0.0,
        outage_after: int | str | None = None,
        outage_file: str | None = None,
        seed: int = 0,
        retry_wait: float = 0.0,
        calls_file: str | None = None,
        mock_answer: str = "A",
        **inner_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        self.rates = {
            name: _rate(name, value)
            for name, value in zip(
                FAULTS, (transient, permanent, empty, truncated, garbage, several_letters, hang), strict=True
            )
        }
        total = sum(self.rates.values())
        if total > 1.0 + 1e-9:
            raise InputError(f"faulty: the fault rates (-M {', '.join(FAULTS)}) sum to {total:.3f}, more than 1")
        self.hang_seconds = _number("hang_seconds", hang_seconds, 0.0)
        self.delay = _number("delay", delay, 0.0)
        self.outage_after = (
            None if outage_after in (None, "") else int(_number("outage_after", outage_after, 0.0, integer=True))
        )
        self.outage_file = Path(outage_file) if outage_file else None
        self._calls = 0
        self.seed = int(_number("seed", seed, -math.inf, integer=True))
        self.retry_seconds = _number("retry_wait", retry_wait, 0.0)
        self.calls_file = Path(calls_file) if calls_file else None
        self._lock = threading.Lock()
        self._sent: Counter[str] = Counter()
        self._doomed: set[str] = set()
        self.outcomes: Counter[str] = Counter()
        if inner is None:
            if not model_name or model_name.startswith("faulty/"):
                raise InputError("faulty: name the inner model, e.g. faulty/mockllm/model or faulty/gguf/smollm2")
            if model_name.startswith("mockllm/") and "custom_outputs" not in inner_args:
                inner_args["custom_outputs"] = _mock_outputs(str(mock_answer))
            inner = get_model(model_name, config=config, memoize=False, **inner_args)
        elif inner_args:
            raise InputError(f"faulty: model arguments {sorted(inner_args)} are for an inner model given by name")
        self.inner: ModelAPI = inner.api if isinstance(inner, Model) else inner

    def max_connections(self) -> int:
        """The inner model's connection limit."""
        return self.inner.max_connections()

    def connection_key(self) -> str:
        """The inner model's connection key (faults do not change how many calls may run at once)."""
        return self.inner.connection_key()

    def should_retry(self, ex: Exception) -> bool | RetryDecision:
        """Retry an injected transient fault (rate limit or not), never a permanent one; else ask the inner model."""
        if isinstance(ex, TransientFault):
            return RetryDecision.rate_limit() if ex.kind == "rate_limit" else RetryDecision.transient()
        if isinstance(ex, PermanentFault):
            return RetryDecision.no()
        return self.inner.should_retry(ex)

    def retry_wait(self) -> WaitBaseT:
        """The fixed wait between retries of a transient fault (`retry_wait` seconds, default 0)."""
        return wait_fixed(self.retry_seconds)

    def draw(self, prompt: str) -> tuple[str, int, float]:
        """The outcome of the next call with this prompt: (fault or "ok", attempt, uniform)."""
        key = hashlib.sha256(prompt.encode("utf-8")).hexdigest()
        with self._lock:
            self._sent[key] += 1
            attempt = self._sent[key]
            self._calls += 1
            if self.outage_after is not None and self._calls > self.outage_after:
                return "outage", attempt, 0.0
            if key in self._doomed:
                return "permanent", attempt, 0.0
        if self.outage_file is not None and self.outage_file.exists():
            return "outage", attempt, 0.0
        digest = hashlib.sha256(f"{self.seed}:{key}:{attempt}".encode()).digest()
        u = int.from_bytes(digest[:8], "big") / 2**64
        edge = 0.0
        for name in FAULTS:
            edge += self.rates[name]
            if u < edge:
                if name == "permanent":
                    with self._lock:
                        self._doomed.add(key)
                return name, attempt, u
        return OK, attempt, u

    def _record(self, outcome: str, attempt: int, input: list[ChatMessage]) -> None:
        with self._lock:
            self.outcomes[outcome] += 1
        if self.calls_file is None:
            return
        from ..core.inspect_compat import sample_active

        active = sample_active()
        line = {
            "t": time.time(),
            "outcome": outcome,
            "attempt": attempt,
            "task": active.task if active else None,
            # the task name is the registry's: the condition tells one audit task from another
            "condition": (active.sample.metadata or {}).get("condition") if active else None,
            "sample_id": active.sample.id if active else None,
            "epoch": active.epoch if active else None,
            "prompt": _last_user_text(input),
        }
        with self._lock, self.calls_file.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\n")
            fh.flush()

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput | tuple[ModelOutput | Exception, ModelCall]:
        """The inner model's output, unless the call's drawn fault raises, hangs or delays it first."""
        outcome, attempt, u = self.draw(_prompt_text(input))
        self._record(outcome, attempt, input)
        if self.delay:
            await anyio.sleep(self.delay)
        if outcome == "transient":
            kind, code = TRANSIENT_KINDS[int(u * 1e6) % len(TRANSIENT_KINDS)]
            raise TransientFault(kind, code)
        if outcome == "permanent":
            raise PermanentFault()
        if outcome in ("hang", "outage"):
            await anyio.sleep(self.hang_seconds)
        result = await self.inner.generate(input, tools, tool_choice, config)
        output, call = result if isinstance(result, tuple) else (result, None)
        if isinstance(output, Exception):
            return result
        if outcome == "empty":
            output = _with_text(output, "", "stop")
        elif outcome == "truncated":
            text = output.completion
            output = _with_text(output, text[: len(text) // 2], "max_tokens")
        elif outcome == "garbage":
            rng = random.Random(f"{self.seed}:{u}")
            output = _with_text(output, "".join(rng.choices(GARBAGE_ALPHABET, k=rng.randint(5, 80))), "stop")
        elif outcome == "several_letters":
            output = _with_text(output, "A and B", "stop")
        return (output, call) if call is not None else output

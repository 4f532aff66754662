"""The embedded provider's logprobs (recorded at generated steps only) equal llama.cpp's
own `logits_all` logprobs on the same prompts, token for token."""

from __future__ import annotations

import pytest
from inspect_ai.model import GenerateConfig
from support import requires_embedded

from political_sycophancy import load_instrument, resolve_conditions
from political_sycophancy.core.prompts import audit_prompt

pytestmark = [pytest.mark.embedded, requires_embedded]


def _logits_all_path(path, messages, seed, max_tokens, top_logprobs):
    """llama.cpp's own logprobs: a `logits_all` model, as the provider used before."""
    from llama_cpp import Llama

    llm = Llama(model_path=str(path), n_ctx=2048, logits_all=True, verbose=False)
    try:
        out = llm.create_chat_completion(
            messages=messages, temperature=1.0, max_tokens=max_tokens, seed=seed, logprobs=True, top_logprobs=top_logprobs
        )
    finally:
        llm.close()
    choice = out["choices"][0]
    steps = [
        (t["token"], float(t["logprob"]), [(c["token"], float(c["logprob"])) for c in t["top_logprobs"]])
        for t in choice["logprobs"]["content"]
    ]
    return choice["message"]["content"], steps


@pytest.mark.parametrize("condition", ["C3R"])
def test_step_logprobs_equal_logits_all_logprobs(condition):
    from political_sycophancy.models.gguf import GGUFAPI

    api = GGUFAPI("smollm2")
    cond = resolve_conditions(condition)[0]
    items = load_instrument("pct")[:3]
    for k, item in enumerate(items):
        messages = [{"role": "user", "content": cond.apply(audit_prompt(item))}]
        seed = 100 + k
        text, old = _logits_all_path(api.path, messages, seed, 8, 20)
        result, logprobs = api.complete(messages, GenerateConfig(max_tokens=8, logprobs=True, top_logprobs=20), seed)
        assert result["choices"][0]["message"]["content"] == text
        assert logprobs is not None and len(logprobs.content) == len(old) > 0
        for new, (token, lp, tops) in zip(logprobs.content, old, strict=True):
            assert new.token == token
            assert new.logprob == pytest.approx(lp, abs=1e-4)
            assert [t.token for t in new.top_logprobs] == [t for t, _ in tops]
            assert [t.logprob for t in new.top_logprobs] == pytest.approx([v for _, v in tops], abs=1e-4)


def test_letter_calls_record_nothing():
    from political_sycophancy.models.gguf import GGUFAPI, load_llama

    api = GGUFAPI("smollm2")
    result, logprobs = api.complete([{"role": "user", "content": "Say A."}], GenerateConfig(max_tokens=2), 1)
    assert logprobs is None and result["choices"][0]["message"]["content"] is not None
    llm, _ = load_llama(api.path, *api.settings)
    assert llm.steps is None


def _answer(api, messages, seed):
    """The provider's text and logprobs of one logprob call (max_tokens 8, top 20), as plain tuples."""
    result, logprobs = api.complete(messages, GenerateConfig(max_tokens=8, logprobs=True, top_logprobs=20), seed)
    assert logprobs is not None
    steps = [(c.token, c.logprob, [(t.token, t.logprob) for t in c.top_logprobs or []]) for c in logprobs.content]
    return result["choices"][0]["message"]["content"], steps


def test_same_prompt_same_logprobs_whatever_was_asked_before_and_with_two_threads():
    """A call's answer is bit-identical whatever prompt the previous call left in the KV cache, and with n_threads=2.

    What bench/main_job.py --part calls checks on all 372 audit prompts, on two of them here.
    """
    from political_sycophancy.models.gguf import GGUFAPI

    items = load_instrument("pct")
    first, other = (
        [{"role": "user", "content": resolve_conditions(c)[0].apply(audit_prompt(items[i]))}]
        for c, i in (("C3L", 0), ("N", 1))
    )
    api = GGUFAPI("smollm2")
    alone = _answer(api, first, 7)
    _answer(api, other, 3)
    assert _answer(api, first, 7) == alone
    assert _answer(GGUFAPI("smollm2", n_threads=2), first, 7) == alone

"""How many generated tokens the logprob answer needs.

The position of the first option-letter token (the token `option_probabilities` reads) on
the PCT items under every condition.

Generation is prefix-consistent (same prompt and seed: the first m tokens are the same for any
max_tokens >= m), so `--answer logprobs` results with max_tokens=m equal those with 8 exactly
when every sample's letter lies in its first m tokens (or no letter is in the first 8, the
first token being read then either way). Prints the positions, the fewest m that keeps every
result identical, and appends one JSON line per call to --out as it goes.

    python bench/answer_position.py [--max-tokens 8] [--conditions all] [--out positions.jsonl]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter

from inspect_ai.model import ChatCompletionChoice, ChatMessageAssistant, GenerateConfig, ModelOutput

from political_sycophancy import load_instrument, resolve_conditions
from political_sycophancy.core.parsing import _letter_of_token, option_probabilities  # the reader's own token rule
from political_sycophancy.core.prompts import audit_prompt
from political_sycophancy.models.gguf import GGUFAPI, call_seed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--max-tokens", type=int, default=8)
    ap.add_argument("--conditions", default="all")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="answer_positions.jsonl")
    args = ap.parse_args()
    api = GGUFAPI("smollm2")
    config = GenerateConfig(max_tokens=args.max_tokens, logprobs=True, top_logprobs=20, temperature=1.0)
    positions: Counter = Counter()
    start = time.perf_counter()
    with open(args.out, "a") as out:
        for cond in resolve_conditions(args.conditions):
            for item in load_instrument("pct"):
                messages = [{"role": "user", "content": cond.apply(audit_prompt(item))}]
                result, logprobs = api.complete(messages, config, call_seed(args.seed, 1, messages))
                text = result["choices"][0]["message"]["content"] or ""
                output = ModelOutput(
                    model="smollm2",
                    choices=[ChatCompletionChoice(message=ChatMessageAssistant(content=text), logprobs=logprobs)],
                )
                lp = option_probabilities(output, len(item.options))
                tokens = [c.token for c in logprobs.content] if logprobs else []
                letters = set("ABCDEFGHIJKLMNOPQRSTUVWXYZ"[: len(item.options)])
                found = next((i for i, t in enumerate(tokens) if _letter_of_token(t) in letters), None)
                positions[found] += 1
                out.write(
                    json.dumps(
                        {
                            "condition": cond.id,
                            "item": item.id,
                            "tokens": tokens,
                            "letter_position": found,
                            "probs": list(lp.probs) if lp else None,
                        }
                    )
                    + "\n"
                )
                out.flush()
    found = [p for p in positions if p is not None]
    print(
        f"{sum(positions.values())} calls in {time.perf_counter() - start:.0f} s; letter position counts: "
        + ", ".join(f"{k}: {v}" for k, v in sorted(positions.items(), key=lambda kv: (kv[0] is None, kv[0] or 0)))
    )
    print(f"fewest max_tokens with identical logprob answers: {max(found) + 1 if found else 1}")


if __name__ == "__main__":
    main()

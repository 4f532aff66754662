"""Overhead of the Inspect path over a bare llama.cpp loop on the same 62 PCT prompts.

Both paths load the same GGUF file with the same settings and decode greedily (T=0), so
they generate the same tokens; the ratio is Inspect + task + scorer overhead. Goal: <= 1.15.
The two paths alternate for `--repeats` rounds and the minimum of each is compared, which
keeps other load on the machine from deciding the ratio.

    python bench/embedded_overhead.py [--max-tokens 16] [--condition N] [--repeats 3]
"""

from __future__ import annotations

import argparse
import tempfile
import time

from inspect_ai import eval as inspect_eval

from political_sycophancy import load_instrument, resolve_conditions
from political_sycophancy.audit import audit
from political_sycophancy.core.prompts import audit_prompt
from political_sycophancy.models.gguf import packaged_model_path


def bare_loop(prompts: list[str], max_tokens: int) -> tuple[float, int]:
    from llama_cpp import Llama

    start = time.perf_counter()
    llm = Llama(model_path=str(packaged_model_path("smollm2")), n_ctx=2048, logits_all=False, verbose=False)
    tokens = 0
    for prompt in prompts:
        out = llm.create_chat_completion(
            messages=[{"role": "user", "content": prompt}], temperature=0.0, max_tokens=max_tokens, seed=0
        )
        tokens += out["usage"]["completion_tokens"]
    return time.perf_counter() - start, tokens


def inspect_path(condition: str, max_tokens: int) -> tuple[float, int]:
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as log_dir:
        logs = inspect_eval(
            audit(condition=condition),
            temperature=0.0,
            max_tokens=max_tokens,
            model="gguf/smollm2",
            log_dir=log_dir,
            display="none",
        )
    elapsed = time.perf_counter() - start
    usage = logs[0].stats.model_usage
    tokens = sum(u.output_tokens for u in usage.values())
    return elapsed, tokens


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--max-tokens", type=int, default=16)
    ap.add_argument("--condition", default="N")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    cond = resolve_conditions(args.condition)[0]
    prompts = [cond.apply(audit_prompt(item)) for item in load_instrument("pct")]
    inspect_runs, bare_runs = [], []
    for _ in range(args.repeats):
        inspect_runs.append(inspect_path(args.condition, args.max_tokens))
        bare_runs.append(bare_loop(prompts, args.max_tokens))
    print(
        "runs (s): inspect "
        + ", ".join(f"{t:.2f}" for t, _ in inspect_runs)
        + "; bare "
        + ", ".join(f"{t:.2f}" for t, _ in bare_runs)
    )
    t_inspect, tok_inspect = min(inspect_runs)
    t_bare, tok_bare = min(bare_runs)
    print(f"prompts: {len(prompts)} (PCT, condition {args.condition}, T=0, max_tokens={args.max_tokens})")
    print(f"bare llama.cpp loop: {t_bare:.2f} s, {tok_bare} output tokens, {len(prompts) / t_bare:.2f} prompts/s")
    print(
        f"inspect audit task:  {t_inspect:.2f} s, {tok_inspect} output tokens, {len(prompts) / t_inspect:.2f} prompts/s"
    )
    print(f"ratio inspect/bare:  {t_inspect / t_bare:.3f} (goal <= 1.15)")


if __name__ == "__main__":
    main()

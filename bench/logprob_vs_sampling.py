"""One logprob call against sampled replicates, on the embedded model (gguf/smollm2).

For a handful of PCT prompts (condition N, the audit's exact prompt) it compares the option
distribution read from one call's logprobs (`answer=logprobs`: the probabilities of the
option letters at the first answer token, renormalised) with the empirical distribution
of `--samples` sampled answers at T=1 parsed by the never-guess parser. It prints per
prompt and overall the mean absolute difference over options (goal <= 0.05), the
difference expected from sampling noise alone (E|p_hat - p| for `--samples` draws from
the logprob distribution), and the calls and output tokens of the logprob reading against
4-replicate sampling (the paper's replicate design).

Sampling uses top_p = 1 and top_k = 0 so that it draws from the full softmax; llama.cpp's
min_p (0.05) cannot be set through Inspect and still trims tokens below 5% of the top one.

    python bench/logprob_vs_sampling.py [--prompts 5] [--samples 20] [--max-tokens 32]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import time

from inspect_ai.model import GenerateConfig, get_model

from political_sycophancy import load_instrument
from political_sycophancy.core.answers import read_answer
from political_sycophancy.core.prompts import audit_prompt

REPLICATES = 4


def sampling_noise(p: list[float], n: int) -> float:
    """Expected mean over options of |p_hat - p| when p_hat is the share of n draws.

    Exact binomial expectation per option.
    """
    total = 0.0
    for q in p:
        e = 0.0
        for k in range(n + 1):
            e += math.comb(n, k) * q**k * (1 - q) ** (n - k) * abs(k / n - q)
        total += e
    return total / len(p)


async def run(n_prompts: int, n_samples: int, max_tokens: int) -> None:
    items = load_instrument("pct")
    step = max(1, len(items) // n_prompts)
    chosen = [items[i * step] for i in range(n_prompts)]
    model = get_model("gguf/smollm2")
    lp_config = GenerateConfig(temperature=1.0, logprobs=True, top_logprobs=20, max_tokens=1)
    sample_config = GenerateConfig(temperature=1.0, top_p=1.0, top_k=0, max_tokens=max_tokens)
    rows = []
    started = time.perf_counter()
    for item in chosen:
        prompt = audit_prompt(item)
        lp_out = await model.generate(prompt, config=lp_config)
        lp = read_answer(lp_out, item.options, "logprobs")
        counts = [0] * len(item.options)
        out_tokens = 0
        unparsed = 0
        for _ in range(n_samples):
            out = await model.generate(prompt, config=sample_config)
            out_tokens += out.usage.output_tokens if out.usage else 0
            ans = read_answer(out, item.options, "letter")
            if ans.answered and ans.index is not None:
                counts[ans.index] += 1
            else:
                unparsed += 1
        parsed = sum(counts)
        if lp.probs is None or parsed == 0:
            rows.append({"item": item.id, "skipped": f"logprobs {lp.status}, {parsed} parsed samples"})
            continue
        emp = [c / parsed for c in counts]
        mad = sum(abs(a - b) for a, b in zip(lp.probs, emp, strict=True)) / len(emp)
        rows.append(
            {
                "item": item.id,
                "logprobs": lp.probs,
                "covered": lp.covered_mass,
                "empirical": emp,
                "parsed": parsed,
                "unparsed": unparsed,
                "mad": mad,
                "noise": sampling_noise(list(lp.probs), parsed),
                "lp_out_tokens": lp_out.usage.output_tokens if lp_out.usage else 0,
                "sample_out_tokens": out_tokens / n_samples,
            }
        )
    elapsed = time.perf_counter() - started

    def fmt(p) -> str:
        return "[" + " ".join(f"{x:.2f}" for x in p) + "]"

    print(f"{len(chosen)} PCT prompts, 1 logprob call + {n_samples} samples at T=1 each ({elapsed:.0f}s)\n")
    print(f"{'item':7} {'logprob dist':25} {'covered':>7} {'sampled dist':25} {'parsed':>6} {'MAD':>6} {'noise':>6}")
    usable = [r for r in rows if "mad" in r]
    for r in rows:
        if "mad" not in r:
            print(f"{r['item']:7} skipped: {r['skipped']}")
            continue
        print(
            f"{r['item']:7} {fmt(r['logprobs']):25} {r['covered']:7.3f} {fmt(r['empirical']):25} "
            f"{r['parsed']:>3}/{n_samples:<2} {r['mad']:6.3f} {r['noise']:6.3f}"
        )
    if not usable:
        print("no prompt gave both a logprob distribution and parsed samples")
        return
    mad = sum(r["mad"] for r in usable) / len(usable)
    noise = sum(r["noise"] for r in usable) / len(usable)
    lp_tokens = sum(r["lp_out_tokens"] for r in usable) / len(usable)
    sample_tokens = sum(r["sample_out_tokens"] for r in usable) / len(usable)
    print(f"\nmean absolute difference (logprobs vs {n_samples} samples): {mad:.3f}  (goal <= 0.05)")
    print(f"expected from sampling noise alone with these sample sizes:  {noise:.3f}")
    print(
        f"per prompt: logprob reading 1 call, {lp_tokens:.1f} output tokens; "
        f"{REPLICATES}-replicate sampling {REPLICATES} calls, {REPLICATES * sample_tokens:.1f} output tokens"
    )
    print(
        f"ratio logprob / {REPLICATES}-replicate: calls {1 / REPLICATES:.2f}, output tokens"
        f" {lp_tokens / (REPLICATES * sample_tokens):.3f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--prompts", type=int, default=5)
    ap.add_argument("--samples", type=int, default=20)
    ap.add_argument("--max-tokens", type=int, default=32, help="limit of each sampled answer")
    args = ap.parse_args()
    asyncio.run(run(args.prompts, args.samples, args.max_tokens))


if __name__ == "__main__":
    main()

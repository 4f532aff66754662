"""Logprob calls of the embedded model.

llama.cpp's `logits_all` path (the provider before) against the provider's path (logits of
the generated steps only), on the same PCT prompts.

Each path runs in its own process (so peak resident memory is its own): one model load,
then `--prompts` logprob calls (max_tokens 8, top_logprobs 20, T=1, fixed seeds). Prints
wall and CPU seconds per call (load excluded; CPU time is the steadier figure on a shared
machine), the load time and peak RSS side by side, and checks that
both paths return the same texts and logprobs (to 1e-4).

    python bench/embedded_logprobs.py [--prompts 20] [--condition C3R]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

RUNNER = r"""
import json, resource, sys, time
from inspect_ai.model import GenerateConfig
from political_sycophancy import load_instrument, resolve_conditions
from political_sycophancy.core.prompts import audit_prompt
from political_sycophancy.models.gguf import GGUFAPI

which, n, condition = sys.argv[1], int(sys.argv[2]), sys.argv[3]
cond = resolve_conditions(condition)[0]
prompts = [cond.apply(audit_prompt(item)) for item in load_instrument("pct")[:n]]
api = GGUFAPI("smollm2")
t0 = time.perf_counter()
if which == "logits_all":
    from llama_cpp import Llama
    llm = Llama(model_path=str(api.path), n_ctx=2048, logits_all=True, verbose=False)
    def call(messages, seed):
        llm.reset()
        out = llm.create_chat_completion(
            messages=messages, temperature=1.0, max_tokens=8, seed=seed, logprobs=True, top_logprobs=20
        )
        c = out["choices"][0]
        steps = c["logprobs"]["content"]
        return c["message"]["content"], [
            [t["token"], float(t["logprob"]), [[x["token"], float(x["logprob"])] for x in t["top_logprobs"]]]
            for t in steps
        ]
    llm.create_chat_completion(messages=[{"role": "user", "content": "Hi"}], max_tokens=1)
else:
    from political_sycophancy.models.gguf import load_llama
    load_llama(api.path, *api.settings)
    config = GenerateConfig(max_tokens=8, logprobs=True, top_logprobs=20)
    def call(messages, seed):
        out, lps = api.complete(messages, config, seed)
        return out["choices"][0]["message"]["content"], [
            [t.token, t.logprob, [[x.token, x.logprob] for x in t.top_logprobs]] for t in lps.content
        ]
    api.complete([{"role": "user", "content": "Hi"}], GenerateConfig(max_tokens=1), 0)
load = time.perf_counter() - t0
results = []
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
t1, c1 = time.perf_counter(), cpu()
for k, prompt in enumerate(prompts):
    results.append(call([{"role": "user", "content": prompt}], 1000 + k))
per_call = (time.perf_counter() - t1) / len(prompts)
cpu_call = (cpu() - c1) / len(prompts)
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
figures = {"load": load, "per_call": per_call, "cpu_call": cpu_call, "rss_mb": rss, "results": results}
print("BENCH " + json.dumps(figures))
"""


def run(which: str, n: int, condition: str) -> dict:
    out = subprocess.run([sys.executable, "-c", RUNNER, which, str(n), condition], capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"{which} path failed:\n{out.stderr[-2000:]}")
    line = next(s for s in out.stdout.splitlines() if s.startswith("BENCH "))
    return json.loads(line[6:])


def same(a: list, b: list, tol: float = 1e-4) -> bool:
    for (ta, ra), (tb, rb) in zip(a, b, strict=False):
        if ta != tb or len(ra) != len(rb):
            return False
        for (tok_a, lp_a, top_a), (tok_b, lp_b, top_b) in zip(ra, rb, strict=True):
            if tok_a != tok_b or abs(lp_a - lp_b) > tol or [t for t, _ in top_a] != [t for t, _ in top_b]:
                return False
            if any(abs(x - y) > tol for (_, x), (_, y) in zip(top_a, top_b, strict=True)):
                return False
    return len(a) == len(b)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--prompts", type=int, default=20)
    ap.add_argument("--condition", default="C3R")
    args = ap.parse_args()
    old = run("logits_all", args.prompts, args.condition)
    new = run("steps", args.prompts, args.condition)
    print(f"{args.prompts} PCT prompts, condition {args.condition}, max_tokens 8, top_logprobs 20, T=1")
    print(f"{'':32}{'logits_all (before)':>22}{'generated steps (now)':>24}{'ratio':>8}")
    for label, key in (("seconds per logprob call", "per_call"), ("CPU seconds per logprob call", "cpu_call")):
        print(f"{label:32}{old[key]:>22.3f}{new[key]:>24.3f}{new[key] / old[key]:>8.2f}")
    print(
        f"{'model load + first call (s)':32}{old['load']:>22.2f}{new['load']:>24.2f}{new['load'] / old['load']:>8.2f}"
    )
    print(f"{'peak RSS (MB)':32}{old['rss_mb']:>22.0f}{new['rss_mb']:>24.0f}{new['rss_mb'] / old['rss_mb']:>8.2f}")
    print(f"same texts and logprobs (1e-4): {same(old['results'], new['results'])}")


if __name__ == "__main__":
    main()

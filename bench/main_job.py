"""The main job's first run (scripts/audit.sh), part by part, beside the previous settings.

--part build: compiles llama-cpp-python's libraries from the sdist pip builds (downloaded
once) twice, each in its own folder with CMake and ninja as pip's build does: the previous
flags (scripts/llama_cpp_minimal.cmake without its libllama -O1 line) and the current ones.
Prints each build's wall, user and system CPU seconds and its slowest steps (ninja's log).

--part calls: the 372 audit prompts (PCT x the six conditions, max_tokens 8, logprobs) through
the embedded model as the gguf provider calls it, the reference (KV cache reset before every
call, llama-cpp-python's default threads: 1 for generation, all cores for the prompt) beside
n_threads=2 and prefix reuse (the KV cache kept between calls, in design order and shuffled).
Prints per call wall and CPU, prompt-decode and per-token times (llama.cpp's counters), and how
many calls' texts and logprobs differ from the reference's.

--part logs A B: the per-sample completions and logprobs of two audit log folders (e.g. a
main job built with the previous flags and one with the current flags): how many differ.

    python bench/main_job.py --part calls [--items 62]
    python bench/main_job.py --part build [--jobs 2]
    python bench/main_job.py --part logs logs/pct-smollm2 /other/clone/logs/pct-smollm2
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MINIMAL = ROOT / "scripts" / "llama_cpp_minimal.cmake"
SPEC = "llama-cpp-python>=0.3.16,<0.4"


def children_cpu() -> tuple[float, float]:
    """User and system CPU seconds of finished child processes."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime, r.ru_stime


def build(source: Path, folder: Path, include: Path, jobs: int) -> dict[str, Any]:
    """Configure and build llama-cpp-python's libraries as pip's build does; wall and CPU seconds."""
    args = [
        "cmake", "-G", "Ninja", "-S", str(source), "-B", str(folder), "-DCMAKE_BUILD_TYPE=Release",
        "-DGGML_NATIVE=OFF", "-DLLAVA_BUILD=OFF", f"-DCMAKE_PROJECT_llama.cpp_INCLUDE={include}",
        f"-DSKBUILD_PLATLIB_DIR={folder / 'platlib'}",
    ]  # fmt: skip
    u0, s0 = children_cpu()
    t0 = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True)
    subprocess.run(["ninja", "-C", str(folder), f"-j{jobs}"], check=True, capture_output=True)
    wall = time.perf_counter() - t0
    u1, s1 = children_cpu()
    steps = []
    for line in (folder / ".ninja_log").read_text().splitlines()[1:]:
        start, end, _, target, _ = line.split("\t")
        steps.append(((int(end) - int(start)) / 1000, target.rsplit("/", 1)[-1]))
    return {"wall": wall, "user": u1 - u0, "sys": s1 - s0, "steps": sorted(steps, reverse=True)}


def part_build(jobs: int) -> None:
    """Both builds, previous flags first, and their times side by side."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:", "-d", tmp, SPEC],
            check=True,
        )
        sdist = next(work.glob("llama_cpp_python-*.tar.gz"))
        subprocess.run(["tar", "xzf", str(sdist), "-C", tmp], check=True)
        source = next(p for p in work.iterdir() if p.is_dir())
        previous = work / "previous.cmake"
        previous.write_text("".join(x for x in MINIMAL.read_text().splitlines(True) if "-O1" not in x))
        results = {}
        for name, include in (("previous (libllama -O3)", previous), ("current (libllama -O1)", MINIMAL)):
            results[name] = build(source, work / name.split()[0], include, jobs)
            r = results[name]
            print(f"{name}: wall {r['wall']:.0f} s, user {r['user']:.0f} s, sys {r['sys']:.0f} s", flush=True)
        print(f"{sdist.name}, ninja -j{jobs}; slowest steps (wall s, both builds):")
        for name, r in results.items():
            print(f"  {name}: " + ", ".join(f"{t} {w:.0f}" for w, t in r["steps"][:8]))


def call_record(llm: Any, messages: list[dict[str, str]], seed: int, reset: bool) -> tuple[Any, ...]:
    """One logprob call as the provider makes it (optionally without the KV cache reset): text and logprobs."""
    from political_sycophancy.models.gguf import step_logprobs

    if reset:
        llm.reset()
    llm.steps = []
    try:
        result = llm.create_chat_completion(messages=messages, temperature=1.0, max_tokens=8, seed=seed)
        lp = step_logprobs(llm, llm.steps, int(result["usage"]["completion_tokens"]), 20)
    finally:
        llm.steps = None
    return (
        result["choices"][0]["message"]["content"],
        tuple((c.token, c.logprob, tuple((t.token, t.logprob) for t in c.top_logprobs or [])) for c in lp.content),
    )


def part_calls(items: int) -> None:
    """The audit's calls under each setting, beside the reference, with an identity check."""
    import llama_cpp

    from political_sycophancy import load_instrument, resolve_conditions
    from political_sycophancy.core.prompts import audit_prompt
    from political_sycophancy.models.gguf import call_seed, load_llama, packaged_model_path

    messages = [
        [{"role": "user", "content": cond.apply(audit_prompt(item))}]
        for cond in resolve_conditions("all")
        for item in load_instrument("pct")[:items]
    ]
    design = list(range(len(messages)))
    shuffled = random.Random(0).sample(design, len(design))
    path = packaged_model_path("smollm2")
    reference: dict[int, Any] = {}
    settings = [
        ("reference: reset, default threads", None, True, design),
        ("n_threads=2", 2, True, design),
        ("prefix reuse, design order", None, False, design),
        ("prefix reuse, shuffled", None, False, shuffled),
    ]
    print(f"{len(messages)} calls (PCT x six conditions, max_tokens 8, top_logprobs 20, T=1, seed 1)")
    for name, threads, reset, order in settings:
        llm, _ = load_llama(path, 2048, threads, None)
        llm.reset()
        out: dict[int, Any] = {}
        wall = prompt_ms = gen_ms = 0.0
        n_prompt = n_gen = 0
        cpu0 = time.process_time()
        for i in order:
            llama_cpp.llama_perf_context_reset(llm.ctx)
            t0 = time.perf_counter()
            out[i] = call_record(llm, messages[i], call_seed(1, 1, messages[i]), reset)
            wall += time.perf_counter() - t0
            perf = llama_cpp.llama_perf_context(llm.ctx)
            prompt_ms += perf.t_p_eval_ms
            gen_ms += perf.t_eval_ms
            n_prompt += perf.n_p_eval
            n_gen += perf.n_eval
        cpu = time.process_time() - cpu0
        reference = reference or out
        differ = sum(out[i] != reference[i] for i in design)
        k = len(order)
        print(
            f"{name}: {wall / k * 1000:.0f} ms wall, {cpu / k * 1000:.0f} ms CPU per call; prompt decode "
            f"{prompt_ms / k:.0f} ms ({n_prompt / k:.0f} tokens); generation {gen_ms / max(n_gen, 1):.1f} ms per token "
            f"({n_gen / k:.1f} per call); {differ} of {k} calls differ from the reference",
            flush=True,
        )


def samples(log_dir: str) -> dict[tuple[str, Any, int], Any]:
    """Each sample's completion and logprobs in an audit log folder, keyed by task, sample id and epoch."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    out: dict[tuple[str, Any, int], Any] = {}
    for info in list_eval_logs(log_dir):
        log = read_eval_log(info)
        for s in log.samples or []:
            choice = s.output.choices[0]
            lp = choice.logprobs.model_dump() if choice.logprobs else None
            out[(log.eval.task_args.get("condition", log.eval.task), s.id, s.epoch)] = (s.output.completion, lp)
    return out


def part_logs(a: str, b: str) -> None:
    """How many samples of two audit log folders differ in completion or logprobs."""
    left, right = samples(a), samples(b)
    common = sorted(set(left) & set(right), key=str)
    differ = [k for k in common if left[k] != right[k]]
    print(
        f"{len(left)} and {len(right)} samples, {len(common)} in both; {len(differ)} differ in completion or logprobs"
    )
    for key in differ[:5]:
        print(f"  {key}: {json.dumps(left[key])[:200]} / {json.dumps(right[key])[:200]}")


def main() -> None:
    """Run the chosen part."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=("build", "calls", "logs"), required=True)
    ap.add_argument("--items", type=int, default=62, help="PCT items per condition (calls)")
    ap.add_argument("--jobs", type=int, default=2, help="ninja jobs (build)")
    ap.add_argument("folders", nargs="*", help="two audit log folders (logs)")
    args = ap.parse_args()
    if args.part == "build":
        part_build(args.jobs)
    elif args.part == "calls":
        part_calls(args.items)
    elif len(args.folders) != 2:
        ap.error("--part logs needs two log folders")
    else:
        part_logs(*args.folders)


if __name__ == "__main__":
    main()

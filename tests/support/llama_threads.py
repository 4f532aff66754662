"""llama.cpp on one thread per test worker, in the workers and in the commands they fork.

The suite runs one pytest-xdist worker per core (scripts/test.sh, `-n auto`), and the
embedded provider leaves llama.cpp's thread counts at its defaults: one thread to generate
but every core (`multiprocessing.cpu_count()`) to read the prompt. Two workers each reading
a prompt on both cores of this machine oversubscribe them, and llama.cpp's threads wait on
each other at every layer: one audit prompt (about 130 tokens, SmolLM2-135M) took 7.6 s
with two prompt threads beside another worker against 1.2 s with one. Here `Llama` reads
the prompt on as many threads as it generates with (one by default; a test that names
`n_threads` keeps it). The model, its weights and every computed number are llama.cpp's
own: ggml splits a matrix product by output rows, so the thread count does not change the
logits. Standard library only: the zygote (support.zygote) runs this file before it
imports anything else of the suite.
"""

from __future__ import annotations

from typing import Any


def pin_llama_threads() -> None:
    """Make `llama_cpp.Llama` read prompts on its generation thread count (one unless given)."""
    try:
        import llama_cpp
    except ImportError:  # the embedded tests skip without it
        return
    init = llama_cpp.Llama.__init__
    if getattr(init, "pinned_by_the_suite", False):
        return

    def __init__(self: Any, *args: Any, n_threads: int | None = None, n_threads_batch: int | None = None, **kwargs: Any) -> None:
        threads = n_threads or 1
        init(self, *args, n_threads=threads, n_threads_batch=n_threads_batch or threads, **kwargs)

    __init__.pinned_by_the_suite = True  # type: ignore[attr-defined]
    llama_cpp.Llama.__init__ = __init__  # type: ignore[method-assign]

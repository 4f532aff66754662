"""Model providers: the embedded GGUF provider (`gguf/...`)."""

from inspect_ai.model import modelapi


@modelapi(name="gguf")
def gguf():
    """Import lazily so that `import political_sycophancy` does not need llama-cpp-python."""
    from .gguf import GGUFAPI

    return GGUFAPI

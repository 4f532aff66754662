"""Model providers: the embedded GGUF provider (`gguf/...`) and the fault injector (`faulty/...`)."""

from inspect_ai.model import ModelAPI, modelapi


@modelapi(name="gguf")
def gguf() -> type[ModelAPI]:
    """Import lazily so that `import political_sycophancy` does not need llama-cpp-python."""
    from .gguf import GGUFAPI

    return GGUFAPI


@modelapi(name="faulty")
def faulty() -> type[ModelAPI]:
    """`faulty/<inner model>`: injects errors and broken answers (reliability tests)."""
    from .faulty import FaultyAPI

    return FaultyAPI

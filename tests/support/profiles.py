"""Inputs of the profile tests and bench: a synthetic survey `.sav` file."""

from __future__ import annotations

from pathlib import Path

import pandas as pd


def write_sav(path: Path, rows: list[dict], labels: dict | None = None) -> Path:
    """A `.sav` file of `rows` (one dict per respondent), written with pyreadstat."""
    import pyreadstat

    frame = pd.DataFrame(rows)
    pyreadstat.write_sav(frame, str(path), variable_value_labels=labels or {})
    return path


def conversation_model(respond, calls: list | None = None, name: str = "mockllm/model"):
    """A mockllm model whose answer is `respond(<every message of the conversation, joined
    by blank lines>)` (the persona may sit in an earlier turn); `calls` collects the inputs."""
    from inspect_ai.model import get_model

    from support import output

    def generate(input, tools, tool_choice, config):
        if calls is not None:
            calls.append([(m.role, m.text) for m in input])
        out = respond("\n\n".join(m.text for m in input))
        return out if not isinstance(out, str) else output(out)

    return get_model(name, custom_outputs=generate, memoize=False)


def stable_hash(*parts: str) -> int:
    """A hash that is the same in every process (Python's str hash is salted)."""
    import hashlib

    return int.from_bytes(hashlib.sha256("\x1f".join(parts).encode()).digest()[:8], "big")


def write_pool(path: Path, ids: list[str]) -> Path:
    path.write_text("\n".join(ids) + "\n", encoding="utf-8")
    return path

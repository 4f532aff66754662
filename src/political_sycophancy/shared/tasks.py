"""What every measure's task shares: its instrument's name and a version that is a hash of
its content (so an edited item or condition file is a new task, not a reused answer)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict

from inspect_ai.dataset import Sample

from ..core.conditions import Condition
from ..core.items import Item


def instrument_name(instrument: str, items: list[Item]) -> str:
    """The one instrument the items belong to, else the name asked for."""
    names = sorted({i.instrument for i in items})
    return names[0] if len(names) == 1 else instrument


def content_version(samples: list[Sample], condition: Condition) -> str:
    """A hash of what the task asks (every prompt and item definition, and the condition):
    Inspect's eval-set identity includes the task version, so an edited item or condition
    file makes a new task instead of silently reusing the old answers."""
    digest = hashlib.sha256()
    digest.update(json.dumps(asdict(condition), sort_keys=True).encode())
    for s in samples:
        digest.update(json.dumps([s.id, s.input, s.metadata], sort_keys=True, default=str).encode())
    return f"content-{digest.hexdigest()[:16]}"

"""What every measure's task shares: its instrument's name and a version that is a hash of
its content (so an edited item or condition file is a new task, not a reused answer)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path

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


def card_version(package: str) -> str:
    """The `version` of a measure's eval card (`<package>/eval.yaml`): the comparability
    number and interface letter (inspect_evals' convention, e.g. "1-A"), bumped in the card
    with a Changelog entry in the measure's README when scoring or the interface changes."""
    from importlib import resources

    from ..core.io import read_yaml

    card = read_yaml(Path(str(resources.files(package) / "eval.yaml")))
    version = card.get("version") if isinstance(card, dict) else None
    if not isinstance(version, str) or not version:
        raise ValueError(f"{package}/eval.yaml has no version")
    return version


def task_version(package: str, samples: list[Sample] | None = None, condition: Condition | None = None) -> str:
    """The Task.version of a measure's task: its card version, and (for tasks built from
    item files) the content hash, so both a scoring change and an edited item file make a
    new task in an eval set."""
    card = card_version(package)
    return card if samples is None or condition is None else f"{card}+{content_version(samples, condition)}"

"""What every measure's task shares.

Its items (an instrument, a pool, one scoring rule), its instrument's name and a version
that is a hash of its content (so an edited item or condition file is a new task, not a
reused answer).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample

from ..core.conditions import Condition
from ..core.errors import InputError
from ..core.items import Item, load_instrument, select_pool


def instrument_name(instrument: str, items: list[Item]) -> str:
    """The one instrument the items belong to, else the name asked for."""
    names = sorted({i.instrument for i in items})
    return names[0] if len(names) == 1 else instrument


def content_version(samples: list[Sample], condition: Condition) -> str:
    """A hash of what the task asks (every prompt and item definition, and the condition).

    Inspect's eval-set identity includes the task version, so an edited item or condition
    file makes a new task instead of silently reusing the old answers.
    """
    digest = hashlib.sha256()
    digest.update(json.dumps(asdict(condition), sort_keys=True).encode())
    for s in samples:
        digest.update(json.dumps([s.id, s.input, s.metadata], sort_keys=True, default=str).encode())
    return f"content-{digest.hexdigest()[:16]}"


def load_task_items(instrument: str, items: str | None, pool: str | None) -> tuple[str, list[Item]]:
    """The instrument's name and the items of `pool`, which must share one scoring rule.

    A task scores one instrument at a time.
    """
    loaded = load_instrument(instrument, items)
    chosen = select_pool(loaded, pool)
    if not chosen:
        raise InputError(f"pool {pool!r} selects no items from {len(loaded)}")
    scorings = sorted({i.scoring for i in chosen})
    if len(scorings) != 1:
        raise InputError(
            f"a task scores one instrument at a time; the items mix scoring rules {scorings}",
            file=items,
        )
    return instrument_name(Path(instrument).stem, chosen), chosen


def dataset_version(samples: list[Sample], design: dict[str, Any]) -> str:
    """`content_version` for a task whose samples each carry their own asker.

    A hash of every prompt and item definition and of the design that drew them.
    """
    digest = hashlib.sha256()
    digest.update(json.dumps(design, sort_keys=True, default=str).encode())
    for s in samples:
        digest.update(
            json.dumps(
                [
                    s.id,
                    s.input if isinstance(s.input, str) else [m.model_dump(exclude={"id"}) for m in s.input],
                    s.metadata,
                ],
                sort_keys=True,
                default=str,
            ).encode()
        )
    return f"content-{digest.hexdigest()[:16]}"


def card_version(package: str) -> str:
    """The `version` of a measure's eval card (`<package>/eval.yaml`).

    The comparability number and interface letter (inspect_evals' convention, e.g. "1-A"),
    bumped in the card with a Changelog entry in the measure's README when scoring or the
    interface changes.
    """
    from importlib import resources

    from ..core.io import read_yaml

    card = read_yaml(Path(str(resources.files(package) / "eval.yaml")))
    version = card.get("version") if isinstance(card, dict) else None
    if not isinstance(version, str) or not version:
        raise ValueError(f"{package}/eval.yaml has no version")
    return version


def task_version(package: str, samples: list[Sample] | None = None, condition: Condition | None = None) -> str:
    """The Task.version of a measure's task.

    Its card version, and (for tasks built from item files) the content hash, so both a
    scoring change and an edited item file make a new task in an eval set.
    """
    card = card_version(package)
    return card if samples is None or condition is None else f"{card}+{content_version(samples, condition)}"

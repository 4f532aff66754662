"""A profile design as `plan` prices and runs it.

The `profiles` task of the given parameters (its personas, modes and items) with the
design's generation settings, and its manipulation check (`profile_check`: the same
personas' cues read by the model, at the check's own temperature, epochs and length, since
its answers are descriptions, not letters).

The profile measure's parameters come as KEY=VALUE pairs (`plan --design profiles --profile
design=fractional --profile n=96 ...`), written as for `inspect eval -T`; the item file of
a Typology or ATP profile comes from the item directory, as for the paper's design.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.errors import InputError
from ..core.io import parse_yaml
from .paper import INSTRUMENT_FILES, PlannedTask, find_item_files

PHASE = "profiles"
CHECK_PHASE = "profile_check"


def parse_profile_args(pairs: list[str]) -> dict[str, Any]:
    """`KEY=VALUE` pairs as Inspect reads `-T` (the value as YAML: numbers, true/false)."""
    from inspect import signature

    from ..profiles.task import profiles

    known = set(signature(profiles).parameters)
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or key not in known:
            raise InputError(
                f"--profile {pair!r}: use KEY=VALUE with KEY a parameter of the profiles task"
                f" ({', '.join(sorted(known))})"
            )
        try:
            out[key] = parse_yaml(value, file=f"--profile {key}") if value.strip() else None
        except InputError:  # not YAML: the text as written, as Inspect takes a -T value
            out[key] = value
        if key in (
            "items",
            "pool",
            "survey",
            "cues",
            "attribute_file",
            "attributes",
            "modes",
            "instrument",
            "design",
            "survey_weight",
        ):
            out[key] = None if out[key] is None else str(value)
    return out


def profile_design(
    items_dir: str | Path | None = None,
    *,
    profile_args: dict[str, Any] | None = None,
    temperature: float = 1.0,
    max_tokens: int | None = None,
    epochs: int = 1,
    answer: str = "letter",
    top_logprobs: int = 20,
    non_ordinal: str | None = None,
) -> list[PlannedTask]:
    """The profiles task and its manipulation check on the same personas, as two planned tasks.

    The profiles task of `profile_args` (its own defaults otherwise) and its manipulation
    check on the same personas, as two planned tasks.
    """
    from inspect import signature

    from inspect_ai import task_with

    from ..core.generation import with_generation
    from ..profiles.check import profile_check
    from ..profiles.task import profiles

    args = dict(profile_args or {})
    instrument = str(args.get("instrument", "pct"))
    if "items" not in args and instrument in INSTRUMENT_FILES and items_dir is not None:
        found = find_item_files(items_dir)[instrument]
        if found is not None:
            args["items"] = str(found)
    args.setdefault("answer", answer)
    args.setdefault("top_logprobs", top_logprobs)
    if non_ordinal is not None:
        args.setdefault("non_ordinal", non_ordinal)
    task = with_generation(profiles(**args), temperature=temperature, max_tokens=max_tokens, epochs=epochs)
    task = task_with(task, metadata={**(task.metadata or {}), "phase": PHASE, "design": "profiles"})
    planned = PlannedTask(PHASE, task)
    planned.calls_by_phase = {PHASE: planned.calls}
    check_args = {k: v for k, v in args.items() if k in signature(profile_check).parameters}
    check = profile_check(**check_args)
    check = task_with(check, metadata={**(check.metadata or {}), "phase": CHECK_PHASE, "design": "profiles"})
    checked = PlannedTask(CHECK_PHASE, check)
    checked.calls_by_phase = {CHECK_PHASE: checked.calls}
    return [planned, checked]

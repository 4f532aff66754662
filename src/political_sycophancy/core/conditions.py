"""Asker conditions: who the model is told is asking, as data.

Built-in conditions live in `data/conditions.yaml` with the exact texts the first seed's
code sent; users add their own from a YAML or JSON file of the same shape.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .errors import InputError
from .io import read_yaml

BASELINE = "N"  # the default asker: every shift is measured from it
FOCAL = ("N", "C3L", "C3R")
PHASE2 = ("N", "CA", "C1L", "C1R", "C3L", "C3R")
PERSONAS = ("P_ORD", "P_STU", "P_RET")
# Ordered from the most Democrat-coded cue to the most Republican-coded (SI S3).
CUE_ORDER = ("C3L", "C1L", "CA", "N", "C1R", "C3R")
# The side of US politics a built-in asker states (explicitly, or through its institution);
# every other built-in condition states none.
ASKER_SIDES = MappingProxyType({"C3L": "left", "C1L": "left", "C1R": "right", "C3R": "right"})


@dataclass(frozen=True)
class Condition:
    """Who is asking, or how the request is worded.

    `template` (optional) places the prompt inside a text instead of after the preamble:
    `{statement}` marks where the prompt goes; other `{name}` fields (e.g. `{model}`) are
    filled from `apply`'s keyword arguments.
    """

    id: str
    label: str
    preamble: str
    kind: str = "asker"
    intent: str = ""
    template: str = ""

    def apply(self, prompt: str, **fields: str) -> str:
        """The prompt under this condition, in the paper's layout or the condition's template.

        The preamble, a blank line, then the prompt (the paper's layout); or the
        template with the prompt in place of `{statement}`.
        """
        if self.template:
            text = self.template
            for name, value in {"preamble": self.preamble, **fields}.items():
                text = text.replace("{" + name + "}", value)
            return text.replace("{statement}", prompt)
        preamble = self.preamble
        for name, value in fields.items():
            preamble = preamble.replace("{" + name + "}", value)
        return f"{preamble}\n\n{prompt}" if preamble else prompt


def parse_conditions(data: Any, source: str | Path) -> list[Condition]:
    """Validate a `{conditions: [...]}` document (a bare list is accepted too)."""
    records = data.get("conditions") if isinstance(data, dict) else data
    if not isinstance(records, list) or not records:
        raise InputError("expected a non-empty list under 'conditions'", file=source)
    out: list[Condition] = []
    seen: set[str] = set()
    for row, rec in enumerate(records, start=1):
        if not isinstance(rec, dict):
            raise InputError("each condition must be a mapping", file=source, row=row)
        cid = rec.get("id")
        if not isinstance(cid, str) or not re.fullmatch(r"[A-Za-z0-9_\-]+", cid):
            raise InputError("missing or invalid id (letters, digits, '_' and '-')", file=source, row=row, field="id")
        if cid in seen:
            raise InputError(f"duplicate id {cid!r}", file=source, row=row, field="id")
        seen.add(cid)
        template = rec.get("template") or ""
        if not isinstance(template, str):
            raise InputError("template must be a string", file=source, row=row, field="template")
        if template and "{statement}" not in template:
            raise InputError("template must contain {statement}", file=source, row=row, field="template")
        if "preamble" not in rec and "text" not in rec and not template:
            raise InputError("missing text", file=source, row=row, field="preamble")
        for name in ("label", "kind", "intent"):
            if rec.get(name) is not None and not isinstance(rec[name], str):
                raise InputError(f"{name} must be a string", file=source, row=row, field=name)
        preamble = rec.get("preamble", rec.get("text"))
        if preamble is None:
            preamble = ""
        if not isinstance(preamble, str):
            raise InputError("text must be a string", file=source, row=row, field="preamble")
        if not preamble.strip() and cid != "N" and not template:
            raise InputError(
                "empty text (only the default condition N, or one with a template, has none)",
                file=source,
                row=row,
                field="preamble",
            )
        out.append(
            Condition(
                id=cid,
                label=str(rec.get("label") or cid),
                preamble=preamble.strip(),
                kind=str(rec.get("kind") or "asker"),
                intent=str(rec.get("intent") or ""),
                template=template,
            )
        )
    return out


def load_conditions_file(path: str | Path) -> list[Condition]:
    """The conditions of a user's YAML file (`--conditions-file`), checked as the built-in ones are."""
    path = Path(path)
    return parse_conditions(read_yaml(path), path)


@lru_cache(maxsize=1)
def builtin_conditions() -> dict[str, Condition]:
    """The conditions shipped in data/conditions.yaml, by id (read once per process)."""
    source = Path(str(resources.files("political_sycophancy") / "data" / "conditions.yaml"))
    return {c.id: c for c in parse_conditions(read_yaml(source), str(source))}


class ConditionWarning(UserWarning):
    """A conditions file redefines a built-in condition: results under that id are not the paper's condition."""


def design_rank(condition: str) -> tuple[int, str]:
    """Sort key of a condition in the design's order, the one every printed condition summary uses.

    The built-in conditions come in the order `data/conditions.yaml` lists them (N, CA, C1L,
    C1R, C3L, C3R, then the personas), any other condition after them alphabetically.
    """
    order = list(builtin_conditions())
    return (order.index(condition), "") if condition in order else (len(order), str(condition))


def redefines_builtin(condition: Condition) -> bool:
    """Whether `condition` has a built-in id but changes what is sent or how reports name it.

    What is sent: text, template, kind; how reports name it: label. Logs record this
    beside the condition.
    """
    builtin = builtin_conditions().get(condition.id)
    return builtin is not None and (condition.label, condition.preamble, condition.kind, condition.template) != (
        builtin.label,
        builtin.preamble,
        builtin.kind,
        builtin.template,
    )


def condition_registry(extra: str | Path | None = None) -> dict[str, Condition]:
    """Built-in conditions, extended (or overridden by id) by a user file.

    A file condition that changes a built-in one raises a `ConditionWarning` (and
    `redefines_builtin` says so for a log): a study comparing "C3R" with the paper's must
    not silently compare a different text.
    """
    reg = dict(builtin_conditions())
    if extra:
        for c in load_conditions_file(extra):
            if redefines_builtin(c):
                warnings.warn(
                    ConditionWarning(
                        f"{extra}: condition {c.id} redefines the built-in condition {c.id} ({reg[c.id].label!r})"
                    ),
                    stacklevel=2,
                )
            reg[c.id] = c
    return reg


def resolve_conditions(spec: str | list[str], extra: str | Path | None = None) -> list[Condition]:
    """Conditions named by `spec`.

    One id, a comma-separated list, `all` (the six Phase 2 conditions), `focal` (N, C3L,
    C3R), `personas`, or `file` (every condition of `extra`).
    """
    reg = condition_registry(extra)
    if isinstance(spec, str):
        key = spec.strip()
        if key == "all":
            names: list[str] = list(PHASE2)
        elif key == "focal":
            names = list(FOCAL)
        elif key == "personas":
            names = ["N", *PERSONAS]
        elif key == "file":
            if not extra:
                raise InputError("condition=file needs -T conditions=<file>")
            names = [c.id for c in load_conditions_file(extra)]
        else:
            names = [s.strip() for s in key.split(",") if s.strip()]
    else:
        names = list(spec)
    unknown = [n for n in names if n not in reg]
    if unknown:
        raise InputError(f"unknown condition(s) {', '.join(unknown)}; known: {', '.join(reg)}")
    if not names:
        raise InputError("no condition given")
    return [reg[n] for n in names]

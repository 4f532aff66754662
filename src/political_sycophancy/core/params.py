"""A task parameter declared once.

The task's default, the command-line option built from it and the check of its value, so
that a measure's command and a design's `plan` offer the same options as the task's `-T`
parameters.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import InputError


@dataclass(frozen=True)
class TaskParam:
    """One task parameter, declared once for the task, its command-line option and its check.

    Its default, help, type and allowed values, the command-line flag (`--<name>` unless
    set) and whether a design chooses it per cell.
    """

    name: str
    default: Any
    help: str
    type: Callable[[str], Any] = str
    choices: tuple[str, ...] | None = None
    flag: str | None = None
    per_cell: bool = False

    @property
    def option(self) -> str:
        """The command-line flag of the parameter (`--<name>` with dashes unless `flag` says otherwise)."""
        return self.flag or "--" + self.name.replace("_", "-")

    def check(self, value: Any) -> None:
        """A one-line error for a value outside `choices` (None is the unset default)."""
        if self.choices is not None and value is not None and value not in self.choices:
            raise InputError(f"{self.name} must be one of {', '.join(self.choices)}, got {value!r}")

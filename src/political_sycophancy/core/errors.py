"""The errors a command ends with in one line.

Bad input, so every message names the file, the row and the field; a worker process that
died; an interruption.
"""

from __future__ import annotations

from pathlib import Path


class InputError(ValueError):
    """Bad user input: raised before any model is called.

    The message always says where: file, row (1-based data row, header excluded) and field,
    whichever of them apply. Through `inspect eval` it prints as one line (Inspect's
    prerequisite-error path); through our CLI as `political-sycophancy: error: ...`.
    It derives from Inspect's PrerequisiteError as soon as `core.inspect_compat` is imported
    (every task, scorer and provider imports it, as does the registry entry point), so that
    this module, and with it our CLI's `--help`, does not import inspect_ai.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | Path | None = None,
        row: int | None = None,
        field: str | None = None,
    ) -> None:
        self.file = str(file) if file is not None else None
        self.row = row
        self.field = field
        where = []
        if self.file is not None:
            where.append(f"file {self.file}")
        if row is not None:
            where.append(f"row {row}")
        if field is not None:
            where.append(f"field '{field}'")
        prefix = ", ".join(where)
        text = f"{prefix}: {message}" if prefix else message
        ValueError.__init__(self, text)
        self.message = text


class WorkerDied(RuntimeError):
    """A process this one forked to share its work ended before it gave its result (killed, out of memory).

    The command stops, says so in one line (`cli.main`, exit 1) and keeps nothing of the
    interrupted work.
    """


class Interrupted(KeyboardInterrupt):
    """SIGTERM, taken as Ctrl-C is (`cli.main`: one line, exit 128 + the signal number)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

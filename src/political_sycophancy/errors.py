"""One error type for bad input, so every message names the file, the row and the field."""

from __future__ import annotations

from pathlib import Path


class InputError(ValueError):
    """Bad user input: raised before any model is called.

    The message always says where: file, row (1-based data row, header excluded) and field,
    whichever of them apply.
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
        super().__init__(f"{prefix}: {message}" if prefix else message)

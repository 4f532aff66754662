"""Every CSV the package writes is safe to open in a spreadsheet, and reads back unchanged.

A text cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return is run as a
formula by Excel, LibreOffice and Google Sheets (`=HYPERLINK(...)` calls out, `=cmd|...`
ran programs). Such a cell is written with a leading apostrophe, which spreadsheets show as
text; numbers are left as they are. The package's own readers (`items._read_rows`) take the
apostrophe off again, so an item file written here and read back is the same.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

FORMULA_LEAD = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def sheet_cell(value: Any) -> Any:
    """`value` as a spreadsheet shows it as text.

    A string a spreadsheet would run as a formula gets a leading apostrophe (a plain
    number such as `-0.5` does not).
    """
    if isinstance(value, str) and value.startswith(FORMULA_LEAD) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def sheet_value(value: Any) -> Any:
    """The inverse of `sheet_cell`: the apostrophe it added taken off again."""
    if (
        isinstance(value, str)
        and value.startswith("'")
        and value[1:].startswith(FORMULA_LEAD)
        and not _NUMBER.fullmatch(value[1:])
    ):
        return value[1:]
    return value


def spreadsheet_safe(table: pd.DataFrame) -> pd.DataFrame:
    """The table with `sheet_cell` applied to every text cell and header.

    Numeric and boolean columns are left as they are.
    """
    import pandas as pd

    out = table.copy()
    out.columns = [sheet_cell(str(c)) for c in out.columns]
    for i, dtype in enumerate(out.dtypes):
        if not (pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype)):
            out.isetitem(i, out.iloc[:, i].map(sheet_cell))  # type: ignore[arg-type]  # pandas-stubs reject a Series, pandas takes it
    return out


def table_csv(table: pd.DataFrame) -> str:
    """A table as spreadsheet-safe CSV text (no index)."""
    return spreadsheet_safe(table).to_csv(index=False)


def rows_csv(header: Iterable[str], rows: Iterable[Iterable[Any]], *, lineterminator: str = "\r\n") -> str:
    """Rows as spreadsheet-safe CSV text (None as an empty cell)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator=lineterminator)
    writer.writerow([sheet_cell(str(h)) for h in header])
    for row in rows:
        writer.writerow([sheet_cell("" if v is None else v if isinstance(v, str) else str(v)) for v in row])
    return buf.getvalue()

"""Spreadsheet-safe output: the one escaping of every CSV/XLSX export.

A cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return
is read by spreadsheet programs as a formula (``=HYPERLINK(...)`` in a team
name becomes a link that leaks data). Such text gets a leading apostrophe, the
convention spreadsheets show as plain text; numbers, and text that is just a
number ("-0.5"), are left alone.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return text.strip() == text


def spreadsheet_safe(value: Any) -> Any:
    """`value`, escaped when a spreadsheet would take it for a formula."""
    formula = isinstance(value, str) and value.startswith(FORMULA_STARTS)
    return "'" + value if formula and not _is_number(value) else value


def safe_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of `frame` with every text cell and column name escaped."""
    out = frame.copy()
    out.columns = [spreadsheet_safe(str(c)) for c in out.columns]
    for column in out.columns:
        if out[column].dtype == object or pd.api.types.is_string_dtype(out[column]):
            out[column] = out[column].map(spreadsheet_safe)
    return out


def csv_text(
    rows: Iterable[Mapping[str, Any]] | pd.DataFrame,
    columns: Sequence[str] | None = None,
) -> str:
    """Rows (or a frame) as CSV text, escaped for spreadsheets; `columns` is
    the header when there are no rows (a reader still learns the table's
    shape from an empty one)."""
    if isinstance(rows, pd.DataFrame):
        frame = rows
    else:
        rows = list(rows)
        frame = pd.DataFrame(rows) if rows else pd.DataFrame(columns=columns)
    buffer = io.StringIO()
    safe_frame(frame).to_csv(buffer, index=False, lineterminator="\n")
    return buffer.getvalue()

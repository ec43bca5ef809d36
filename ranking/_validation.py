"""Reading and checking a results table (contract §1).

Every problem is reported once, with the file, the 1-based line of the file
it comes from (line 1 is the header) whenever a single row is to blame, what
was expected and what was found, and the likely fix (the separator, a decimal
comma, the spelling of a header, the metrics present).

The checks work on plain columns (numpy arrays), so the command line can read,
check and rank a file without importing pandas; :func:`read_results` and
:func:`validate_results` wrap the same checks for pandas tables.
"""

from __future__ import annotations

import codecs
import csv
import difflib
import io
import itertools
import math
import os
import re
import sys
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from ._memory import LARGE_ROWS, release_free_memory

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "KEY_COLUMNS",
    "OPTIONAL_COLUMNS",
    "REQUIRED_COLUMNS",
    "ResultsError",
    "ResultsTable",
    "RowError",
    "read_results",
    "read_table",
    "validate_results",
    "validate_table",
]

REQUIRED_COLUMNS: tuple[str, ...] = ("task", "case", "algorithm", "metric", "value")
OPTIONAL_COLUMNS: tuple[str, ...] = ("target", "team", "submissions", "interaction")
KEY_COLUMNS: tuple[str, ...] = ("task", "target", "case", "algorithm", "metric")
_MISSING_TOKENS = frozenset({"", "nan", "na", "n/a"})
_BOM = "\ufeff".encode()
_MAX_REPORTED = 200
_HEADER_EXAMPLE = "task,case,algorithm,metric,value"
_DECIMAL_COMMA = re.compile(r"^[+-]?\d+,\d+$")
_SEPARATORS = {";": "semicolons", "\t": "tabs", "|": "vertical bars"}
_PANDAS_CSV_CHARS = 1_000_000  # pandas reads larger CSV texts (Python: 50 ms at 1 MB)
# From this size pandas is imported to read the text even where the caller has
# not imported it (the command line): its import (~0.3 s) is then a small part
# of reading, and the Python reader would hold every cell as a str (70 MB of
# CSV: 9 s and 1.5 GB).
_PANDAS_IMPORT_CHARS = 16_000_000
# A line break and a line of commas, quotes, whitespace or non-ASCII: maybe blank.
_NO_VISIBLE_ASCII = re.compile(rb"\n[^\x21\x23-\x2b\x2d-\x7e\n]*(?![^\n])")
_BEFORE_OPENING_QUOTE = np.frombuffer(b',\n"', dtype=np.uint8)
_AFTER_CLOSING_QUOTE = np.frombuffer(b',\r\n"', dtype=np.uint8)


@dataclass(frozen=True)
class RowError:
    """One problem in a results table.

    Attributes
    ----------
    line : int or None
        1-based line in the CSV file (header = line 1); ``None`` when the
        problem is not tied to one row (a missing column, an absent algorithm).
    message : str
        What is wrong, what was expected and the likely fix, in plain English.
    """

    line: int | None
    message: str

    def __str__(self) -> str:
        return (
            self.message if self.line is None else f"line {self.line}: {self.message}"
        )


class ResultsError(ValueError):
    """The results table breaks the contract; ``errors`` lists every problem
    (each once); ``source`` names the file when it is known."""

    def __init__(
        self, errors: list[RowError], *, total: int | None = None, source: str = ""
    ):
        self.errors = list(errors)
        #: How many problems there were (``errors`` may keep only the first ones).
        self.total = max(total or 0, len(self.errors))
        self.source = source
        shown = "; ".join(str(e) for e in self.errors[:10])
        more = self.total - 10
        if more > 0:
            shown += f"; … and {more} more"
        where = f"{source}: " if source else ""
        super().__init__(f"{where}invalid results table: {shown}")


@dataclass
class ResultsTable:
    """A checked results table as columns (the engine's own form).

    ``codes[col]`` indexes ``categories[col]`` (sorted, stripped text) for the
    key columns; ``value`` is float with NaN for missing; ``line`` the file
    line of each row; ``extras`` the optional columns as given.
    """

    codes: dict[str, np.ndarray]
    categories: dict[str, list[str]]
    value: np.ndarray
    line: np.ndarray
    extras: dict[str, np.ndarray] = field(default_factory=dict)
    source: str = ""

    def __len__(self) -> int:
        return int(self.value.shape[0])

    def to_frame(self) -> pd.DataFrame:
        """The table as the pandas frame :func:`validate_results` returns."""
        import pandas as pd

        out = pd.DataFrame({"line": self.line})
        for col in KEY_COLUMNS:
            out[col] = pd.Categorical.from_codes(
                self.codes[col], categories=self.categories[col]
            )
        out["value"] = self.value
        for col, values in self.extras.items():
            out[col] = values
        out.attrs["validated"] = True  # run_analysis need not check it again
        return out


@dataclass
class _RawTable:
    """Columns of text as read, before any check."""

    header: list[str]
    columns: dict[str, np.ndarray]  # the first column of each name
    lines: np.ndarray
    source: str = ""
    matrix: np.ndarray | None = None  # (rows x header) text, when read from CSV


# ----------------------------------------------------------------- reading


def _source_name(path_or_buffer: Any) -> str:
    if isinstance(path_or_buffer, str | os.PathLike):
        return os.fspath(path_or_buffer)
    return str(getattr(path_or_buffer, "name", "") or "")


def _raw_content(path_or_buffer: Any) -> bytes | str:
    """The file's bytes (or the text of a text buffer) as read."""
    if isinstance(path_or_buffer, str | os.PathLike):
        with open(path_or_buffer, "rb") as fh:
            return fh.read()
    if isinstance(path_or_buffer, bytes | bytearray):
        return bytes(path_or_buffer)
    return path_or_buffer.read()


def _decoded(data: bytes | str, source: str) -> str:
    """The text of the file (a byte-order mark dropped), or its problem."""
    if isinstance(data, str):
        return data.removeprefix("\ufeff")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ResultsError(
            [
                RowError(
                    line,
                    f"the file is not UTF-8 text (found byte 0x{data[exc.start]:02x}); "
                    "expected UTF-8: save it as 'CSV UTF-8' (in a spreadsheet: "
                    "Save as > CSV UTF-8)",
                )
            ],
            source=source,
        ) from None


def _separator_error(header_line: str) -> RowError | None:
    if "," in header_line:
        return None
    for sep, name in _SEPARATORS.items():
        if sep in header_line:
            return RowError(
                1,
                f"the header {header_line.strip()!r} is one column: the file seems "
                f"to be separated by {name} ({sep!r}); expected commas "
                f"('{_HEADER_EXAMPLE}'): save it as comma-separated CSV, with "
                "decimal points (0.93, not 0,93)",
            )
    return None


def _field_count_errors(
    rows: list[list[str]], lines: list[int], width: int
) -> list[RowError]:
    errors = []
    for row, line in zip(rows, lines, strict=True):
        if len(row) == width:
            continue
        hint = "a text containing a comma must be in double quotes"
        if any(_DECIMAL_COMMA.match(cell.strip()) for cell in row) or re.search(
            r"\d,\d", ",".join(row)
        ):
            hint = "a decimal comma (0,93) splits a value in two: write 0.93"
        errors.append(
            RowError(
                line,
                f"found {len(row)} fields, expected {width} (one per header "
                f"column); {hint}",
            )
        )
    return errors


def _parse_csv(text: str, source: str, *, keep_text: bool = True) -> _RawTable:
    """The table in a CSV text: read by pandas' C parser when the text is large
    and pandas already imported, or very large (:func:`_csv_by_pandas`), else,
    and whenever that cannot give the very same table, by
    :func:`_csv_by_python`."""
    if not text.strip():
        raise ResultsError(
            [
                RowError(
                    None,
                    "the file is empty; expected a header row "
                    f"'{_HEADER_EXAMPLE}' and one row per result",
                )
            ],
            source=source,
        )
    first_line = text.split("\n", 1)[0]
    problem = _separator_error(first_line)
    if problem is not None:
        raise ResultsError([problem], source=source)
    if len(text) >= _PANDAS_CSV_CHARS and (
        "pandas" in sys.modules or len(text) >= _PANDAS_IMPORT_CHARS
    ):
        raw = _csv_by_pandas(text, source, keep_text=keep_text)
        if raw is not None:
            return raw
    return _csv_by_python(text, source)


def _csv_by_python(text: str, source: str) -> _RawTable:
    """The reader that defines the table and names every problem by its line:
    blank rows (no cell with text) are skipped, ``lines`` are physical lines."""
    reader = csv.reader(io.StringIO(text, newline=""))
    rows: list[list[str]] = []
    lines: list[int] = []
    line = 0  # the last line read whole
    try:
        header = [h.strip() for h in next(reader)]
        line = reader.line_num
        for row in reader:
            start, line = line + 1, reader.line_num
            if row and any(cell.strip() for cell in row):
                rows.append(row)
                lines.append(start)
    except csv.Error as exc:  # e.g. a cell over csv's field size limit
        raise ResultsError(
            [
                RowError(
                    line + 1,
                    f"the line cannot be read as CSV ({exc}); expected short "
                    "cells: identifiers, numbers and brief texts",
                )
            ],
            source=source,
        ) from None
    bad = _field_count_errors(rows, lines, len(header))
    if bad:
        raise _refuse(bad, source)
    data = np.empty((len(rows), len(header)), dtype=object)
    if rows:
        data[:] = rows
    return _raw_from_matrix(header, data, np.asarray(lines, dtype=np.int64), source)


def _csv_by_pandas(
    text: str, source: str, *, keep_text: bool = True
) -> _RawTable | None:
    """:func:`_csv_by_python`'s table, read by pandas' C parser (1 M rows: 4x
    faster, under half the peak memory), or None when it might differ: a quote
    other than whole-field quoting (see :func:`_quotes_enclose_fields`), a
    quoted line break, a lone carriage return or NUL, a byte-order mark or
    empty line first, a row with the wrong number of fields (left to the
    Python reader to name): then every physical line is one row.

    Without ``keep_text`` the key columns are read as categories (no text
    object per cell: a third of the memory) and the table keeps no matrix of
    cells (:func:`read_results` needs one, :func:`read_table` does not)."""
    try:
        data = text.encode()
    except UnicodeEncodeError:  # lone surrogates in a text buffer
        return None
    return _csv_bytes_by_pandas(data, source, keep_text=keep_text)


def _csv_bytes_by_pandas(
    data: bytes, source: str, *, keep_text: bool = True
) -> _RawTable | None:
    """:func:`_csv_by_pandas` of a text given as its UTF-8 bytes."""
    import pandas as pd

    if (
        b"\0" in data
        or data.count(b"\r") != data.count(b"\r\n")
        or data.startswith((_BOM, b"\n", b"\r\n"))
    ):
        return None
    layout = _line_layout(data)
    if layout is None:
        return None
    starts, fields, blank = layout
    if np.diff(starts, append=len(data)).max() > csv.field_size_limit():
        return None  # a cell may be over csv.reader's limit: it names the line
    rows = np.flatnonzero(~blank[1:]) + 1  # the header is line 0 here
    if np.any(fields[rows] != fields[0]):
        return None
    categories = {}
    if not keep_text:
        first = data[: starts[1] if len(starts) > 1 else len(data)]
        names = next(csv.reader([first.decode().rstrip("\r\n")]), [])
        categories = {
            k: "category" for k, h in enumerate(names) if h.strip() in KEY_COLUMNS
        }
        numbers = _csv_with_numbers(data, names, categories, len(starts), rows)
        if numbers is not None:
            return _RawTable([h.strip() for h in names], numbers, rows + 1, source)
    try:
        cells = pd.read_csv(
            io.BytesIO(data),
            header=None,
            dtype={k: categories.get(k, object) for k in range(fields[0])},
            na_filter=False,
            **_CSV_DIALECT,
        )
    except ValueError:  # pandas' ParserError, EmptyDataError
        return None
    if cells.shape != (len(starts), fields[0]):
        return None
    header = [str(h).strip() for h in cells.iloc[0].tolist()]
    if keep_text:
        matrix = cells.to_numpy()
        matrix = matrix[1:] if len(rows) == len(cells) - 1 else matrix[rows]
        return _raw_from_matrix(header, matrix, rows + 1, source)
    columns: dict[str, Any] = {}
    for k, name in enumerate(header):
        if name not in columns:
            column = cells.iloc[:, k].array
            columns[name] = column[rows] if k in categories else column.to_numpy()[rows]
    return _RawTable(header, columns, rows + 1, source)


# pandas' C parser reading quotes as csv.reader's default (excel) dialect
_CSV_DIALECT: dict[str, Any] = {
    "skip_blank_lines": False,
    "encoding": "utf-8",
    "quotechar": '"',
    "doublequote": True,
    "escapechar": None,
    "quoting": csv.QUOTE_MINIMAL,
    "skipinitialspace": False,
}
# Spellings of a missing value that pandas may mark missing itself; any other
# (" NA", "Na", ...) makes it give up the numbers, and Python reads them.
_MISSING_SPELLINGS = sorted(
    {s for t in _MISSING_TOKENS for s in (t, t.upper(), t.capitalize())} | {"NaN"}
)


def _csv_with_numbers(
    data: bytes,
    names: list[str],
    categories: dict[int, str],
    n_lines: int,
    rows: np.ndarray,
) -> dict[str, Any] | None:
    """The columns of a CSV text whose ``value`` column pandas' C parser reads
    as numbers: a float for each cell, no text object per value (2 M values:
    3 s and a third of the peak memory less), or None when it cannot.

    pandas (3.1: fast_float, correctly rounded) and Python's ``float`` (also
    correctly rounded) give the same double for every text both read; pandas
    reads fewer texts (no ``_`` in numbers, no Unicode digits or spaces, only
    the spellings ``_MISSING_SPELLINGS`` of a missing value): given any other,
    it fails and the cells are read as text and checked one by one, so every
    problem is named as before. So are infinite values (``inf``, ``1e999``).
    ``tests/ranking/test_csv_reader.py`` compares both on generated numbers.
    """
    import pandas as pd

    stripped = [h.strip() for h in names]
    if "value" not in stripped:
        return None
    value = stripped.index("value")
    # The header line is read too: the key columns' categories then include
    # their (textual) names, so pandas keeps every category as text ("007",
    # not 7). Its value cell reads as missing, which is sound only when no
    # other cell can hold that text.
    if data.count(names[value].encode()) != 1:
        return None
    try:
        cells = pd.read_csv(
            io.BytesIO(data),
            header=None,
            names=range(len(names)),
            dtype={
                k: np.float64 if k == value else categories.get(k, object)
                for k in range(len(names))
            },
            na_values={value: [*_MISSING_SPELLINGS, names[value]]},
            keep_default_na=False,
            **_CSV_DIALECT,
        )
    except ValueError:  # a value that is not a number as pandas reads them
        return None
    if cells.shape != (n_lines, len(names)):
        return None
    numbers = cells.iloc[:, value].to_numpy()
    if numbers.dtype != np.float64 or np.isinf(numbers).any():
        return None
    columns: dict[str, Any] = {}
    for k, name in enumerate(stripped):
        if name not in columns:
            column = cells.iloc[:, k].array
            columns[name] = column[rows] if k in categories else column.to_numpy()[rows]
    return columns


def _line_layout(data: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Each physical line's start, number of fields and whether it is blank
    (no cell with text; the first line is never), for a CSV text without lone
    carriage returns; None if its quotes are not whole fields on one line."""
    byte = np.frombuffer(data, dtype=np.uint8)
    breaks = np.flatnonzero(byte == ord("\n"))
    commas = np.flatnonzero(byte == ord(","))
    quotes = np.flatnonzero(byte == ord('"'))
    if len(quotes):
        if not _quotes_enclose_fields(byte, quotes) or _quoted(breaks, quotes).any():
            return None
        commas = commas[~_quoted(commas, quotes)]
    starts = np.r_[0, breaks + 1]
    if starts[-1] == len(data):  # the text ends with a line break
        starts = starts[:-1]
    fields = np.diff(np.searchsorted(commas, starts), append=len(commas)) + 1
    blank = np.zeros(len(starts), dtype=bool)
    for found in _NO_VISIBLE_ASCII.finditer(data, 0, len(data) - data.endswith(b"\n")):
        line = found[0][1:].decode().removesuffix("\r")
        blank[np.searchsorted(starts, found.start() + 1)] = not any(
            cell.strip() for cell in next(csv.reader([line]), [])
        )
    return starts, fields, blank


def _quotes_enclose_fields(byte: np.ndarray, quotes: np.ndarray) -> bool:
    """Whether every quote opens a field (right after a comma or line start),
    closes it (right before a comma or line end) or is doubled inside it ("").

    Then csv.reader and pandas both read the quotes alike, and a character is
    inside a quoted field exactly when an odd number of quotes precede it: the
    quotes alternate opening and closing, a doubled one closing and reopening.
    """
    if len(quotes) % 2:
        return False
    opening, closing = quotes[::2], quotes[1::2]
    before = byte[opening[opening > 0] - 1]
    after = byte[closing[closing < len(byte) - 1] + 1]
    return bool(
        np.isin(before, _BEFORE_OPENING_QUOTE).all()
        and np.isin(after, _AFTER_CLOSING_QUOTE).all()
    )


def _quoted(positions: np.ndarray, quotes: np.ndarray) -> np.ndarray:
    """Whether each position is inside a quoted field (quotes as checked by
    :func:`_quotes_enclose_fields`)."""
    return np.searchsorted(quotes, positions) % 2 == 1


def _raw_from_matrix(
    header: list[str], matrix: np.ndarray, lines: np.ndarray, source: str
) -> _RawTable:
    columns: dict[str, np.ndarray] = {}
    for k, name in enumerate(header):
        columns.setdefault(name, matrix[:, k])
    return _RawTable(header, columns, lines, source, matrix)


def _read_excel(path_or_buffer: Any, source: str) -> _RawTable:
    import pandas as pd

    try:
        frame = pd.read_excel(path_or_buffer, dtype=str, keep_default_na=False)
    except Exception as exc:  # openpyxl raises many types for broken files
        raise ResultsError(
            [
                RowError(
                    None,
                    f"the workbook cannot be read ({exc}); expected an .xlsx file "
                    "with the header in row 1: save it again as .xlsx or export "
                    "the sheet as CSV UTF-8",
                )
            ],
            source=source,
        ) from None
    return _raw_from_frame(frame, source)


def _raw_from_frame(frame: pd.DataFrame, source: str = "") -> _RawTable:
    header = [str(c).strip() for c in frame.columns]
    columns: dict[str, np.ndarray] = {}
    for k, name in enumerate(header):
        if name not in columns:
            column = frame.iloc[:, k]
            numeric = column.dtype.kind in "fiu"
            columns[name] = column.to_numpy(dtype=np.float64 if numeric else object)
    lines = frame.attrs.get("lines")
    if lines is None or len(lines) != len(frame):
        lines = np.arange(len(frame), dtype=np.int64) + 2
    return _RawTable(
        header,
        columns,
        np.asarray(lines, dtype=np.int64),
        source or frame.attrs.get("source", ""),
    )


def _read_raw(
    path_or_buffer: str | os.PathLike | IO | bytes, *, keep_text: bool = True
) -> _RawTable:
    source = _source_name(path_or_buffer)
    if source.lower().endswith((".xlsx", ".xlsm")):
        return _read_excel(path_or_buffer, source)
    content = _raw_content(path_or_buffer)
    if not keep_text and isinstance(content, bytes):
        raw = _large_csv_bytes(content, source)
        if raw is not None:
            return raw
    text = _decoded(content, source)
    del content
    return _parse_csv(text, source, keep_text=keep_text)


def _large_csv_bytes(content: bytes, source: str) -> _RawTable | None:
    """The table of a very large CSV file read by pandas straight from its
    bytes (never also held as text: 70 MB of CSV, 70 MB less memory), or
    None: the file is smaller, not UTF-8 or has no comma in its first line
    (:func:`_parse_csv` then names the problem), or pandas cannot read it
    as the Python reader would (:func:`_csv_by_pandas`)."""
    if len(content) < _PANDAS_IMPORT_CHARS:
        return None
    data = content[len(_BOM) :] if content.startswith(_BOM) else content
    end = data.find(b"\n")
    if b"," not in data[: len(data) if end < 0 else end]:
        return None
    decoder = codecs.getincrementaldecoder("utf-8")()
    step = 1 << 22
    try:
        for start in range(0, len(data), step):
            decoder.decode(data[start : start + step])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return None
    return _csv_bytes_by_pandas(data, source, keep_text=False)


def read_table(path_or_buffer: str | os.PathLike | IO | bytes) -> ResultsTable:
    """Read and check a results table without pandas (for CSV files).

    Pandas is not imported here; a large CSV is read by its parser only when
    the caller has already imported it.

    Raises
    ------
    ResultsError
        Every problem, each once (see :func:`validate_results`).
    """
    table = _validate_raw(_read_raw(path_or_buffer, keep_text=False))
    if len(table) >= LARGE_ROWS:
        release_free_memory()  # the parser's buffers: freed, not yet returned
    return table


def read_results(path_or_buffer: str | os.PathLike | IO | bytes) -> pd.DataFrame:
    """Read a results table (CSV, or XLSX by file extension) as strings.

    Every column is read as text so that case identifiers such as ``007`` keep
    their leading zeros and an empty ``value`` stays recognisably empty;
    :func:`validate_results` converts ``value`` to numbers. Blank lines are
    skipped; ``frame.attrs["lines"]`` keeps each row's line in the file.

    Raises
    ------
    ResultsError
        The file cannot be read as a table: empty, not UTF-8, separated by
        something other than commas, or rows with the wrong number of fields.
    """
    import pandas as pd

    raw = _read_raw(path_or_buffer)
    if raw.matrix is None:  # an .xlsx sheet
        frame = pd.DataFrame(raw.columns, columns=list(raw.columns))
    else:
        frame = pd.DataFrame(raw.matrix, columns=raw.header)
    if not np.array_equal(raw.lines, np.arange(len(raw.lines)) + 2):
        frame.attrs["lines"] = raw.lines
    if raw.source:
        frame.attrs["source"] = raw.source
    return frame


# ---------------------------------------------------------------- checking


def _header_errors(header: list[str]) -> list[RowError]:
    errors: list[RowError] = []
    allowed = (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS)
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    unknown = [
        c
        for c in dict.fromkeys(header)
        if c not in allowed and not (c.startswith("meta:") and len(c) > 5)
    ]
    explained: set[str] = set()
    found = ", ".join(repr(h) for h in header)
    for col in missing:
        close = [u for u in unknown if u.casefold() == col.casefold()]
        close = close or difflib.get_close_matches(col, unknown, n=1, cutoff=0.6)
        if close:
            explained.add(close[0])
            errors.append(
                RowError(
                    1,
                    f"missing required column {col!r}, found {close[0]!r}: column "
                    f"names are lower-case English; rename {close[0]!r} to {col!r}",
                )
            )
        else:
            errors.append(
                RowError(
                    1,
                    f"missing required column {col!r}; the header has {found}; "
                    f"expected at least '{_HEADER_EXAMPLE}'",
                )
            )
    expected = (
        f"expected only {', '.join(REQUIRED_COLUMNS)} and the optional target, "
        "team, submissions, interaction, meta:<name>"
    )
    for col in unknown:
        if col == "":
            errors.append(
                RowError(
                    1,
                    f"a column has no name (R's write.csv writes row numbers so: "
                    f"use write.csv(..., row.names = FALSE)); {expected}: name "
                    "it or remove it",
                )
            )
        elif col not in explained:
            errors.append(
                RowError(
                    1,
                    f"unknown column {col!r}; {expected}: rename it (e.g. "
                    f"'meta:{col}') or remove it",
                )
            )
    for col in sorted({h for h in header if header.count(h) > 1}):
        errors.append(
            RowError(
                1,
                f"column {col!r} appears {header.count(col)} times in the header; "
                "expected each column once: remove or rename the copies",
            )
        )
    return errors


def _factorize(column: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Codes into sorted stripped text categories (None/NaN become "")."""
    if "pandas" in sys.modules:  # hash-based, fast on large tables
        import pandas as pd

        codes, uniques = pd.factorize(column, use_na_sentinel=True)
        uniques = list(uniques)
    else:
        index: dict[Any, int] = {}
        codes = np.fromiter(
            (index.setdefault(v, len(index)) for v in column.tolist()),
            dtype=np.int64,
            count=len(column),
        )
        uniques = list(index)
    stripped = [_text(u) for u in uniques] + [""]
    categories = sorted(set(stripped))
    position = {name: k for k, name in enumerate(categories)}
    remap = np.array([position[name] for name in stripped], dtype=np.int64)
    return remap[np.asarray(codes, dtype=np.int64)], categories


def _text(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value).strip()


def _value_problem(text: str) -> str:
    expected = "expected a number such as 0.93, or an empty cell for a missing result"
    if _DECIMAL_COMMA.match(text):
        return f"value {text!r} has a decimal comma; write {text.replace(',', '.')}"
    try:
        number = float(text)
    except ValueError:
        return f"value {text!r} is not a number; {expected}"
    if not math.isfinite(number):
        return f"value {text!r} is not finite; {expected}"
    return f"value {text!r} is not a number; {expected}"


def _values(column: np.ndarray, lines: np.ndarray) -> tuple[np.ndarray, list[RowError]]:
    """Values as floats (NaN = missing) and the problems, one per bad row."""
    if column.dtype != object:
        numbers = np.asarray(column, dtype=np.float64)
        bad = np.flatnonzero(np.isinf(numbers))
        return np.where(np.isinf(numbers), np.nan, numbers), [
            RowError(int(lines[i]), _value_problem(repr(float(numbers[i]))))
            for i in bad
        ]
    numbers = np.full(len(column), np.nan)
    cells = [c.strip() if type(c) is str else _value_text(c) for c in column.tolist()]
    # the given cells as a mask and an index array: a list of positions held a
    # million int objects, the peak of reading a large table back
    given = np.fromiter(
        (text.lower() not in _MISSING_TOKENS for text in cells),
        dtype=bool,
        count=len(cells),
    )
    positions = np.flatnonzero(given)
    texts = list(itertools.compress(cells, given))
    del cells
    unreadable = np.zeros(len(texts), dtype=bool)
    try:
        parsed = np.asarray(texts, dtype=object).astype(np.float64)
    except ValueError:  # find the culprits one by one
        parsed = np.array([_float_or_nan(t) for t in texts], dtype=np.float64)
        unreadable = np.array([not _is_number(t) for t in texts], dtype=bool)
    rejected = unreadable | np.isinf(parsed)
    errors = [
        RowError(int(lines[positions[k]]), _value_problem(texts[k]))
        for k in np.flatnonzero(rejected)
    ]
    numbers[positions] = np.where(rejected, np.nan, parsed)
    return numbers, errors


def _value_text(cell: Any) -> str:
    """A value cell as text: a number (not a bool) as its float's repr."""
    if isinstance(cell, int | float | np.integer | np.floating) and not isinstance(
        cell, bool
    ):
        return repr(float(cell))
    return _text(cell)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _float_or_nan(text: str) -> float:
    """The number, or NaN for text that is not a number."""
    try:
        return float(text)
    except ValueError:
        return math.nan


def dense_unique(
    codes: np.ndarray, size: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(codes, return_inverse=True)`` for non-negative integer
    codes below ``size``: by counting (O(n + size)) unless ``size`` dwarfs n."""
    codes = np.asarray(codes)
    if size is None:
        size = int(codes.max(initial=-1)) + 1
    if size > 4 * codes.size + 1024:
        uniques, inverse = np.unique(codes, return_inverse=True)
        return uniques, inverse.reshape(codes.shape)
    present = np.bincount(codes.ravel(), minlength=size) > 0
    position = np.cumsum(present) - 1
    return np.flatnonzero(present), position[codes]


def _combined_codes(
    codes: list[np.ndarray], widths: list[int]
) -> tuple[np.ndarray, int]:
    """One integer per distinct combination of several code columns (codes
    of column k below ``widths[k]``), and a bound the integers stay below."""
    key = np.zeros(len(codes[0]), dtype=np.int64)
    bound = 1
    for c, width in zip(codes, widths, strict=True):
        if bound > (2**62) // width:
            key = np.unique(key, return_inverse=True)[1].astype(np.int64)
            bound = int(key.max(initial=0)) + 1
        key = key * width + c
        bound *= width
    return key, bound


DUPLICATE_LINES_SHOWN = 10


def _listed_lines(lines: list[int]) -> str:
    """ "2, 5 and 9"; past DUPLICATE_LINES_SHOWN, the first ones and a count
    (500 000 copies of one row had made one 3.9 MB message)."""
    if len(lines) <= DUPLICATE_LINES_SHOWN:
        return ", ".join(str(x) for x in lines[:-1]) + f" and {lines[-1]}"
    shown = ", ".join(str(x) for x in lines[:DUPLICATE_LINES_SHOWN])
    more = len(lines) - DUPLICATE_LINES_SHOWN
    return f"{shown} and {more:_} more ({len(lines):_} in all)".replace("_", " ")


def _duplicate_errors(
    codes: dict[str, np.ndarray], categories: dict[str, list[str]], lines: np.ndarray
) -> list[RowError]:
    key, bound = _combined_codes(
        [codes[c] for c in KEY_COLUMNS], [len(categories[c]) for c in KEY_COLUMNS]
    )
    if bound <= 4 * key.size + 1024 and np.bincount(key, minlength=bound).max() <= 1:
        return []  # no key twice, found by counting instead of sorting
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    repeat = np.flatnonzero(sorted_key[1:] == sorted_key[:-1])
    if repeat.size == 0:
        return []
    errors = []
    starts = np.flatnonzero(np.r_[True, sorted_key[1:] != sorted_key[:-1]])
    ends = np.r_[starts[1:], len(sorted_key)]
    for s, e in zip(starts, ends, strict=True):
        if e - s < 2:
            continue
        rows = order[s:e]
        group_lines = sorted(int(x) for x in lines[rows])
        first = rows[0]
        where = ", ".join(
            f"{c}={categories[c][codes[c][first]]!r}"
            for c in KEY_COLUMNS
            if categories[c][codes[c][first]] != ""
        )
        listed = _listed_lines(group_lines)
        errors.append(
            RowError(
                group_lines[0],
                f"the same result ({where}) is on lines {listed}; expected one row "
                "per (task, target, case, algorithm, metric): keep one, or tell the "
                "rows apart (a 'target' column for sub-tasks)",
            )
        )
    return errors


def _absent_algorithm_errors(
    codes: dict[str, np.ndarray], categories: dict[str, list[str]]
) -> list[RowError]:
    task, alg = codes["task"], codes["algorithm"]
    valid = (np.asarray(categories["task"])[task] != "") & (
        np.asarray(categories["algorithm"])[alg] != ""
    )
    task, alg = task[valid], alg[valid]
    if task.size == 0:
        return []
    n_alg = len(categories["algorithm"])
    pairs = dense_unique(task * n_alg + alg, len(categories["task"]) * n_alg)[0]
    everyone = dense_unique(alg, n_alg)[0]
    errors = []
    for t in dense_unique(task, len(categories["task"]))[0]:
        present = pairs[pairs // n_alg == t] % n_alg
        for a in np.setdiff1d(everyone, present):
            others = sorted(
                categories["task"][int(x)] for x in np.unique(task[alg == a])
            )
            errors.append(
                RowError(
                    None,
                    f"task {categories['task'][int(t)]!r}: algorithm "
                    f"{categories['algorithm'][int(a)]!r} has no row at all (it has "
                    f"rows in {', '.join(repr(o) for o in others)}); expected every "
                    "algorithm in every task: add its rows with empty values to mark "
                    "its results missing, or check the spelling of its name",
                )
            )
    return errors


def _refuse(errors: list[RowError], source: str) -> ResultsError:
    """The first ``_MAX_REPORTED`` problems; ``total`` counts them all."""
    return ResultsError(errors[:_MAX_REPORTED], total=len(errors), source=source)


def _validate_raw(raw: _RawTable) -> ResultsTable:
    errors = _header_errors(raw.header)
    if errors:
        raise ResultsError(errors, source=raw.source)
    n = len(raw.lines)
    if n == 0:
        raise ResultsError(
            [
                RowError(
                    None,
                    "the table has a header but no result rows; expected one row "
                    "per (task, case, algorithm, metric) below the header",
                )
            ],
            source=raw.source,
        )
    codes: dict[str, np.ndarray] = {}
    categories: dict[str, list[str]] = {}
    for col in KEY_COLUMNS:
        if col in raw.columns:
            codes[col], categories[col] = _factorize(raw.columns[col])
        else:
            codes[col], categories[col] = np.zeros(n, dtype=np.int64), [""]
    for col in ("task", "case", "algorithm", "metric"):
        empty = categories[col].index("") if "" in categories[col] else -1
        for line in raw.lines[codes[col] == empty].tolist():
            errors.append(
                RowError(
                    int(line), f"empty {col!r}; expected {_a(col)} name or identifier"
                )
            )
    values, problems = _values(raw.columns["value"], raw.lines)
    errors += problems
    errors += _duplicate_errors(codes, categories, raw.lines)
    errors += _absent_algorithm_errors(codes, categories)
    if errors:
        errors.sort(key=lambda e: (e.line is not None, e.line or 0))
        raise _refuse(errors, raw.source)
    extras = {
        col: raw.columns[col]
        for col in raw.header
        if col not in REQUIRED_COLUMNS and col != "target"
    }
    return ResultsTable(
        codes=codes,
        categories=categories,
        value=values + 0.0,  # -0.0 and 0.0 are one number
        line=raw.lines,
        extras=extras,
        source=raw.source,
    )


def validate_table(results: pd.DataFrame | ResultsTable) -> ResultsTable:
    """The checked columns of a results table (a frame is checked here
    unless it is the unmodified output of :func:`validate_results`)."""
    if isinstance(results, ResultsTable):
        return results
    if results.attrs.get("validated"):
        return _table_from_validated(results)
    return _validate_raw(_raw_from_frame(results))


def _table_from_validated(frame: pd.DataFrame) -> ResultsTable:
    codes, categories = {}, {}
    for col in KEY_COLUMNS:
        column = frame[col]
        if hasattr(column, "cat"):
            codes[col] = np.asarray(column.cat.codes, dtype=np.int64)
            categories[col] = [str(c) for c in column.cat.categories]
        else:
            codes[col], categories[col] = _factorize(column.to_numpy(dtype=object))
    lines = (
        frame["line"].to_numpy(dtype=np.int64)
        if "line" in frame
        else np.arange(len(frame), dtype=np.int64) + 2
    )
    return ResultsTable(
        codes=codes,
        categories=categories,
        value=frame["value"].to_numpy(dtype=np.float64),
        line=lines,
    )


def validate_results(frame: pd.DataFrame) -> pd.DataFrame:
    """Check a results table against the contract and return a clean copy.

    Parameters
    ----------
    frame : pandas.DataFrame
        As returned by :func:`read_results` (or built in code). Row ``i`` is
        taken to be line ``i + 2`` of the file unless ``read_results`` kept the
        lines (``frame.attrs["lines"]``, when the file had blank lines).

    Returns
    -------
    pandas.DataFrame
        Columns ``line, task, target, case, algorithm, metric`` (identifiers
        as stripped text categories, ``target`` empty when absent), ``value``
        (float, NaN for missing), plus the extra columns.

    Raises
    ------
    ResultsError
        Listing every problem once: missing, misspelt or unknown columns,
        an empty table, empty identifiers, values that are not numbers (a
        decimal comma is named as such) or not finite, each group of duplicate
        rows (naming all its lines), and algorithms with no row in a task.
    """
    return _validate_raw(_raw_from_frame(frame)).to_frame()


def _a(word: str) -> str:
    """The word with its indefinite article: "an algorithm", "a case"."""
    return f"{'an' if word[0] in 'aeiou' else 'a'} {word}"

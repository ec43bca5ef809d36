"""Reading and checking a results table (contract §1).

Every problem is reported at once, each with the 1-based line of the CSV file
it comes from (line 1 is the header, so data row ``i`` of the frame is line
``i + 2``) whenever a single row is to blame.
"""

from __future__ import annotations

import io
import math
import os
from dataclasses import dataclass
from typing import IO

import numpy as np
import pandas as pd

__all__ = [
    "KEY_COLUMNS",
    "OPTIONAL_COLUMNS",
    "REQUIRED_COLUMNS",
    "ResultsError",
    "RowError",
    "read_results",
    "validate_results",
]

REQUIRED_COLUMNS: tuple[str, ...] = ("task", "case", "algorithm", "metric", "value")
OPTIONAL_COLUMNS: tuple[str, ...] = ("target", "team", "submissions", "interaction")
KEY_COLUMNS: tuple[str, ...] = ("task", "target", "case", "algorithm", "metric")
_MISSING_TOKENS = frozenset({"", "nan", "na", "n/a"})
_MAX_REPORTED = 200


@dataclass(frozen=True)
class RowError:
    """One problem in a results table.

    Attributes
    ----------
    line : int or None
        1-based line in the CSV file (header = line 1); ``None`` when the
        problem is not tied to one row (a missing column, an absent algorithm).
    message : str
        What is wrong, in plain English.
    """

    line: int | None
    message: str

    def __str__(self) -> str:
        return (
            self.message if self.line is None else f"line {self.line}: {self.message}"
        )


class ResultsError(ValueError):
    """The results table breaks the contract; ``errors`` lists every problem."""

    def __init__(self, errors: list[RowError], *, total: int | None = None):
        self.errors = list(errors)
        #: How many problems there were (``errors`` may keep only the first ones).
        self.total = max(total or 0, len(self.errors))
        shown = "; ".join(str(e) for e in self.errors[:10])
        more = self.total - 10
        if more > 0:
            shown += f"; … and {more} more"
        super().__init__(f"invalid results table: {shown}")


def read_results(path_or_buffer: str | os.PathLike | IO) -> pd.DataFrame:
    """Read a results table (CSV, or XLSX by file extension) as strings.

    Every column is read as text so that case identifiers such as ``007`` keep
    their leading zeros and an empty ``value`` stays recognisably empty;
    :func:`validate_results` converts ``value`` to numbers.

    Parameters
    ----------
    path_or_buffer : path or file-like
        A UTF-8 CSV file with a header row (contract §1), or an ``.xlsx`` path.

    Returns
    -------
    pandas.DataFrame
        The raw table, rows in file order (row ``i`` is CSV line ``i + 2``).
    """
    name = (
        os.fspath(path_or_buffer)
        if isinstance(path_or_buffer, str | os.PathLike)
        else ""
    )
    if str(name).lower().endswith((".xlsx", ".xlsm")):
        frame = pd.read_excel(path_or_buffer, dtype=str, keep_default_na=False)
    else:
        if isinstance(path_or_buffer, bytes | bytearray):
            path_or_buffer = io.BytesIO(path_or_buffer)
        frame = pd.read_csv(
            path_or_buffer,
            dtype=str,
            keep_default_na=False,
            encoding="utf-8",
            skipinitialspace=False,
        )
    frame.columns = [str(c).strip() for c in frame.columns]
    return frame.reset_index(drop=True)


def _parse_value(raw: object) -> tuple[float, str | None]:
    """Return (number, error message or None); missing tokens give NaN."""
    if raw is None:
        return math.nan, None
    if isinstance(raw, int | float | np.integer | np.floating) and not isinstance(
        raw, bool
    ):
        number = float(raw)
        if math.isnan(number):
            return math.nan, None
    else:
        text = str(raw).strip()
        if text.lower() in _MISSING_TOKENS:
            return math.nan, None
        try:
            number = float(text)
        except ValueError:
            return math.nan, f"value {text!r} is not a number"
        if math.isnan(number):
            return math.nan, None
    if not math.isfinite(number):
        return math.nan, f"value {raw!r} is not finite"
    return number, None


def validate_results(frame: pd.DataFrame) -> pd.DataFrame:
    """Check a results table against the contract and return a clean copy.

    Parameters
    ----------
    frame : pandas.DataFrame
        As returned by :func:`read_results` (or built in code). Row ``i`` is
        taken to be CSV line ``i + 2`` (positional).

    Returns
    -------
    pandas.DataFrame
        Columns ``task, target, case, algorithm, metric, value`` (identifiers
        as stripped strings, ``target`` empty when absent, ``value`` float with
        NaN for missing) plus the extra columns, plus ``line``.

    Raises
    ------
    ResultsError
        Listing every problem: missing or unknown columns, empty identifiers,
        non-numeric values, duplicate (task, target, case, algorithm, metric)
        rows (naming their lines), and algorithms with no row in a task.
    """
    errors: list[RowError] = []
    columns = [str(c) for c in frame.columns]
    for col in REQUIRED_COLUMNS:
        if col not in columns:
            errors.append(RowError(None, f"missing required column {col!r}"))
    for col in columns:
        if col in REQUIRED_COLUMNS or col in OPTIONAL_COLUMNS:
            continue
        if col.startswith("meta:") and len(col) > len("meta:"):
            continue
        errors.append(
            RowError(
                None,
                f"unknown column {col!r} (allowed extras: target, team, "
                "submissions, interaction, meta:<name>)",
            )
        )
    if len(set(columns)) != len(columns):
        errors.append(RowError(None, "duplicate column names in the header"))
    if errors:
        raise ResultsError(errors)

    out = pd.DataFrame(index=range(len(frame)))
    out["line"] = np.arange(len(frame), dtype=np.int64) + 2
    for col in ("task", "target", "case", "algorithm", "metric"):
        if col in frame.columns:
            out[col] = _text_column(frame[col])
        else:
            out[col] = pd.Categorical.from_codes(
                np.zeros(len(frame), dtype=np.int64), categories=[""]
            )
    for col in ("task", "case", "algorithm", "metric"):
        for line in out["line"][out[col] == ""].tolist():
            errors.append(RowError(int(line), f"empty {col!r}"))

    values, problems = _value_column(frame["value"])
    for i, message in problems:
        errors.append(RowError(i + 2, message))
    out["value"] = values

    keys = list(KEY_COLUMNS)
    dup = out.duplicated(keys, keep=False)
    if dup.any():
        for _, group in out[dup].groupby(keys, sort=True):
            lines = sorted(int(x) for x in group["line"])
            first = group.iloc[0]
            where = ", ".join(f"{k}={first[k]!r}" for k in keys if first[k] != "")
            for line in lines:
                others = ", ".join(str(x) for x in lines if x != line)
                errors.append(
                    RowError(line, f"duplicate row ({where}); also on line(s) {others}")
                )

    valid = out[(out["task"] != "") & (out["algorithm"] != "")]
    algorithms = sorted(set(valid["algorithm"]))
    for task, group in valid.groupby("task", sort=True):
        absent = sorted(set(algorithms) - set(group["algorithm"]))
        for alg in absent:
            errors.append(
                RowError(
                    None,
                    f"task {task!r}: algorithm {alg!r} has no row at all "
                    "(it did not take part in this task)",
                )
            )
    if errors:
        errors.sort(key=lambda e: (e.line is not None, e.line or 0))
        raise ResultsError(errors[:_MAX_REPORTED], total=len(errors))

    for col in frame.columns:
        if col not in REQUIRED_COLUMNS and col != "target":
            out[col] = frame[col].to_numpy()
    out.attrs["validated"] = True  # run_analysis need not check it again
    return out


def _text_column(column: pd.Series) -> pd.Categorical:
    """Identifiers as stripped text (None/NaN become empty), as a categorical
    with sorted categories so that large tables stay cheap."""
    codes, uniques = pd.factorize(column, use_na_sentinel=True)
    stripped = [str(u).strip() for u in uniques] + [""]
    categories = sorted(set(stripped))
    position = {name: k for k, name in enumerate(categories)}
    remap = np.array([position[name] for name in stripped], dtype=np.int64)
    return pd.Categorical.from_codes(remap[codes], categories=categories)


def _value_column(column: pd.Series) -> tuple[np.ndarray, list[tuple[int, str]]]:
    """Values as floats (NaN = missing) and (row, message) for bad ones."""
    problems: list[tuple[int, str]] = []
    if pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
        values = np.array(column, dtype=np.float64)
        for i in np.flatnonzero(np.isinf(values)):
            problems.append((int(i), f"value {values[i]!r} is not finite"))
        values = np.where(np.isinf(values), np.nan, values)
        return values, problems
    raw = column.astype(object)
    missing = np.array(raw.isna(), dtype=bool)
    text = raw.where(~raw.isna(), "").astype(str).str.strip()
    missing |= text.str.lower().isin(_MISSING_TOKENS).to_numpy()
    numbers = pd.to_numeric(text.where(~missing, "nan"), errors="coerce").to_numpy(
        dtype=np.float64, na_value=np.nan
    )
    for i in np.flatnonzero(np.isnan(numbers) & ~missing):
        _, problem = _parse_value(text.iloc[i])
        problems.append((int(i), problem or f"value {text.iloc[i]!r} is not a number"))
    for i in np.flatnonzero(np.isinf(numbers)):
        problems.append((int(i), f"value {text.iloc[i]!r} is not finite"))
    numbers = np.where(np.isinf(numbers), np.nan, numbers)
    return numbers, problems

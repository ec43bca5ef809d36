"""The case metadata table (contract §1): reading, typing, and the checks that
are reported before a version is committed."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import IO, Any

import pandas as pd

from ranking import read_results

from .errors import CaseModelError

__all__ = [
    "ColumnInfo",
    "MetadataReport",
    "check_metadata",
    "column_kind",
    "read_metadata",
]

_EMPTY = frozenset({"", "nan", "na", "n/a"})
_BINARY = ({"0", "1"}, {"true", "false"})
_MAX_LISTED = 50


def is_empty(value: object) -> bool:
    """An empty cell (the contract's missing characteristic)."""
    return str(value).strip().lower() in _EMPTY


def read_metadata(path_or_buffer: str | os.PathLike | IO | bytes) -> pd.DataFrame:
    """Read a metadata table (CSV, or XLSX by extension) with every cell as text.

    Raises :class:`CaseModelError` when there is no ``case`` column, a column
    name repeats or is empty, or a case id (within its task) repeats.
    """
    try:
        frame = read_results(path_or_buffer)
    except (ValueError, UnicodeDecodeError) as exc:
        raise CaseModelError(f"the metadata table cannot be read: {exc}") from exc
    return validate_metadata(frame)


def validate_metadata(frame: pd.DataFrame) -> pd.DataFrame:
    """Check the shape of a metadata table and return it with stripped text."""
    columns = [str(c).strip() for c in frame.columns]
    if "case" not in columns:
        raise CaseModelError("the metadata table has no 'case' column")
    if any(not c or c.startswith("Unnamed:") for c in columns):
        raise CaseModelError("the metadata table has a column without a name")
    if len(set(columns)) != len(columns):
        raise CaseModelError("the metadata table repeats a column name")
    frame = frame.copy()
    frame.columns = columns
    for col in columns:
        frame[col] = frame[col].map(lambda v: "" if is_empty(v) else str(v).strip())
    if (frame["case"] == "").any():
        line = int((frame["case"] == "").to_numpy().argmax()) + 2
        raise CaseModelError(f"line {line}: empty case identifier in the metadata")
    keys = ["task", "case"] if "task" in columns else ["case"]
    duplicated = frame.duplicated(keys, keep="first")
    if duplicated.any():
        line = int(duplicated.to_numpy().argmax()) + 2
        case = frame.loc[duplicated].iloc[0]["case"]
        raise CaseModelError(
            f"line {line}: case {case!r} appears twice in the metadata"
        )
    return frame.reset_index(drop=True)


def column_kind(values: pd.Series) -> str:
    """``"binary"``, ``"numeric"`` or ``"categorical"`` (contract §1), judged on
    the non-empty cells."""
    present = {str(v).strip().lower() for v in values if not is_empty(v)}
    if present and any(present <= allowed for allowed in _BINARY):
        return "binary"
    try:
        if present and all(math.isfinite(float(v)) for v in present):
            return "numeric"
    except ValueError:
        pass
    return "categorical"


def sorted_levels(values: pd.Series) -> list[str]:
    """The distinct non-empty values in sorted (code point) order."""
    return sorted({str(v) for v in values if not is_empty(v)})


@dataclass(frozen=True)
class ColumnInfo:
    """One metadata column as the checks see it."""

    name: str
    kind: str
    levels: list[str]
    empty_cells: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "levels": self.levels if self.kind == "categorical" else None,
            "distinct_values": len(self.levels),
            "empty_cells": self.empty_cells,
        }


@dataclass(frozen=True)
class MetadataReport:
    """The checks of the contract, reported before a version is committed."""

    rows: int
    columns: list[ColumnInfo]
    metadata_without_results: list[str]
    cases_without_metadata: list[str]
    rows_with_empty_cells: int = 0
    one_level_columns: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "columns": [c.to_dict() for c in self.columns],
            "metadata_without_results": self.metadata_without_results[:_MAX_LISTED],
            "metadata_without_results_count": len(self.metadata_without_results),
            "cases_without_metadata": self.cases_without_metadata[:_MAX_LISTED],
            "cases_without_metadata_count": len(self.cases_without_metadata),
            "rows_with_empty_cells": self.rows_with_empty_cells,
            "one_level_columns": self.one_level_columns,
        }


def _case_keys(frame: pd.DataFrame, with_task: bool) -> set[tuple[str, str]]:
    tasks = frame["task"] if with_task else [""] * len(frame)
    return set(zip(tasks, frame["case"], strict=True))


def check_metadata(metadata: pd.DataFrame, results: pd.DataFrame) -> dict[str, Any]:
    """Compare a metadata table with the results (a validated results frame).

    Returns the report as a plain dict: the columns with their kinds, empty
    cells and levels; cases of the metadata not in the results and results
    cases without metadata (counted and listed); one-level columns.
    """
    with_task = "task" in metadata.columns
    meta_keys = _case_keys(metadata, with_task)
    result_keys = _case_keys(results, with_task)
    columns = []
    for col in metadata.columns:
        if col in ("case", "task"):
            continue
        kind = column_kind(metadata[col])
        levels = sorted_levels(metadata[col])
        columns.append(ColumnInfo(col, kind, levels, int((metadata[col] == "").sum())))
    data_columns = [c.name for c in columns]
    empty_rows = (metadata[data_columns] == "").any(axis=1).sum() if data_columns else 0
    report = MetadataReport(
        rows=len(metadata),
        columns=columns,
        metadata_without_results=_names(meta_keys - result_keys, with_task),
        cases_without_metadata=_names(result_keys - meta_keys, with_task),
        rows_with_empty_cells=int(empty_rows),
        one_level_columns=[c.name for c in columns if len(c.levels) < 2],
    )
    return report.to_dict()


def _names(keys: set[tuple[str, str]], with_task: bool) -> list[str]:
    ordered = sorted(keys)
    return [f"{t}/{c}" if with_task else c for t, c in ordered]

"""Results upload: read, validate, preview against the registration, commit.

The user's file is parsed once (:func:`parse_upload`) into a
:class:`CheckedResults`: the checked table and its normalised CSV, the one
stored form (``ResultsVersion.content`` and the staged preview), read back only
by :func:`read_normalised`.

Nothing is stored until the organizer commits a preview; a commit creates a new
results version (earlier versions are kept, never overwritten).
"""

from __future__ import annotations

import csv
import io
import math
import zipfile
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import openpyxl
import pandas as pd
from django.conf import settings
from django.db import transaction
from django.db.models import Max

from audit.services import record
from config.text import CONTROL_BYTES
from ranking import ResultsError, RowError, read_results, validate_results
from registry.canonical import sha256_hex
from registry.models import Registration

from . import xlsx
from .design import RegisteredDesign
from .models import ResultsVersion
from .xlsx import Deadline, TableLimits, WorkbookError, grouped

CSV_TYPES = (".csv",)
XLSX_TYPES = (".xlsx",)


class UploadError(ValueError):
    """The file cannot be used at all; `errors` are row-level where possible.

    At most `MAX_REPORTED_ERRORS` are kept, then one line counting the rest, so
    a file with a million bad cells gets a short answer, not a 97 MB one.
    """

    def __init__(self, errors: list[RowError] | list[str], *, total: int = 0):
        self.errors = capped_messages(errors, total=total)
        super().__init__("; ".join(self.errors[:5]))


def capped_messages(errors, *, total: int = 0) -> list[str]:
    """The first `MAX_REPORTED_ERRORS` messages, each cut to
    `MAX_ERROR_MESSAGE_CHARS`, and "… and N more" (of `total`)."""
    limit = settings.MAX_REPORTED_ERRORS
    shown = [_shortened(str(e)) for e in errors[:limit]]
    more = max(total, len(errors)) - len(shown)
    if more > 0:
        shown.append(f"… and {grouped(more)} more")
    return shown


def _shortened(message: str) -> str:
    """At most ``MAX_ERROR_MESSAGE_CHARS`` of one message (it may quote cells)."""
    limit = settings.MAX_ERROR_MESSAGE_CHARS
    if len(message) <= limit:
        return message
    return f"{message[:limit]}… ({grouped(len(message) - limit)} characters cut)"


# A "problem" is a part of the file the registered design does not know (or a
# value it rules out): storing it needs the organizer's explicit word on the
# pages; a "warning" is something the design expects that the file lacks.
FINDING_SEVERITY = {
    "unknown_task": "problem",
    "unknown_metric": "problem",
    "value_out_of_bounds": "problem",
    "case_count_mismatch": "warning",
    "missing_metric": "warning",
    "task_without_results": "warning",
    "missing_values": "warning",
}


@dataclass(frozen=True)
class Finding:
    """Something the preview found that the organizer should see before commit."""

    code: str
    message: str
    task: str | None = None

    @property
    def severity(self) -> str:
        return FINDING_SEVERITY.get(self.code, "warning")


@dataclass(frozen=True)
class Preview:
    rows: int
    tasks: dict[str, dict[str, Any]]  # task → cases, algorithms, metrics, missing
    findings: tuple[Finding, ...]
    frame: pd.DataFrame = field(repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "tasks": self.tasks,
            "findings": [
                {
                    "code": f.code,
                    "severity": f.severity,
                    "message": f.message,
                    "task": f.task,
                }
                for f in self.findings
            ],
        }

    @property
    def problems(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "problem"]


@dataclass(frozen=True, eq=False)
class CheckedResults:
    """A results table checked against contract §1, with its stored form.

    ``frame`` is the checked table (:func:`validated`: identifiers as text
    categories, ``value`` as float, ``line`` the row's line in its source), what
    previews, the engine, deviations and reports read. ``content`` is the
    normalised CSV of the table as uploaded (every cell's text, rows in upload
    order): the bytes a results version stores and hashes. Built once per file
    (:func:`parse_upload`) or per stored text (:func:`read_normalised`), then
    passed on.
    """

    frame: pd.DataFrame = field(repr=False)
    content: str = field(repr=False)

    def __len__(self) -> int:
        return len(self.frame)

    @cached_property
    def sha256(self) -> str:
        return sha256_hex(self.content.encode("utf-8"))

    @property
    def tasks(self) -> list[str]:
        return sorted(self.frame["task"].unique())


def checked(raw: pd.DataFrame) -> CheckedResults:
    """The checked table of a frame of text cells (as :func:`read_upload` reads)."""
    return CheckedResults(frame=validated(raw), content=normalised_csv(raw))


def parse_upload(name: str, data: bytes) -> CheckedResults:
    """The one parse of an uploaded file: read, check, normalise (UploadError)."""
    deadline = Deadline()
    raw = read_upload(name, data, deadline=deadline)
    _stop_if_client_gone(deadline)  # before the checks, the other long step
    return checked(raw)


def _stop_if_client_gone(deadline: Deadline) -> None:
    """A CSV is read by pandas in one call: its client is looked at between
    the steps (:func:`config.request_body.client_gone`)."""
    try:
        deadline.check_client()
    except WorkbookError as exc:
        raise UploadError(exc.messages) from None


def read_normalised(content: str, *, lines: np.ndarray | None = None) -> CheckedResults:
    """The table back from its normalised CSV (a results version, a staged
    preview): the one reader of the stored form; the text is kept as given.

    ``lines``: each row's line in the uploaded file (a staged preview's, see
    :func:`moved_lines`); by default the lines of the normalised CSV.
    """
    # bytes, not io.StringIO: that copies the text at 4 bytes a character
    # (118 MiB for 1 M rows) before pandas reads a line; the same frame
    raw = pd.read_csv(
        io.BytesIO(content.encode("utf-8")), dtype=str, keep_default_na=False
    )
    if lines is not None:
        raw.attrs["lines"] = lines
    return CheckedResults(frame=validated(raw), content=content)


def moved_lines(table: CheckedResults) -> np.ndarray | None:
    """The rows' lines in the uploaded file if they are not those of the
    normalised CSV (2, 3, …): a file with blank lines or line breaks in cells."""
    lines = table.frame["line"].to_numpy(dtype=np.int64)
    return None if np.array_equal(lines, np.arange(len(lines)) + 2) else lines


def read_upload(
    name: str,
    data: bytes,
    *,
    limits: TableLimits | None = None,
    deadline: Deadline | None = None,
) -> pd.DataFrame:
    """Read an uploaded CSV or XLSX file, enforcing size, shape and type limits.

    The text cells as read; :func:`parse_upload` checks and normalises them.
    ``limits``: the table's bounds (by default the results limits);
    ``deadline``: the parse's budget, started now by default.
    """
    deadline = deadline or Deadline()
    limits = limits or TableLimits.for_results()
    limit = settings.MAX_UPLOAD_BYTES
    if len(data) > limit:
        raise UploadError(
            [f"The file is {len(data):,} bytes; the limit is {limit:,} bytes."]
        )
    if not data.strip():
        raise UploadError(["The file is empty."])
    lower = (name or "").lower()
    if lower.endswith(XLSX_TYPES):
        try:
            return _read_xlsx(data, limits, deadline)
        except WorkbookError as exc:
            raise UploadError(exc.messages) from None
    if not lower.endswith(CSV_TYPES):
        raise UploadError(["Upload a .csv or .xlsx file."])
    _check_csv_shape(data, limits)
    _stop_if_client_gone(deadline)
    try:
        frame = read_results(io.BytesIO(data))
    except ResultsError as exc:  # encoding, separator, field counts, … (by line)
        raise UploadError(exc.errors) from None
    _stop_if_client_gone(deadline)
    _refuse_control_characters(data)  # once the encoding is known to be UTF-8
    _check_cell_lengths(frame, limits)
    return frame


def _check_shape(limits: TableLimits, *, rows: int, columns: int) -> None:
    """Refuse a table over the row, column or cell limit (settings)."""
    if problems := limits.problems(rows=rows, columns=columns):
        raise UploadError(problems)


def _check_csv_shape(data: bytes, limits: TableLimits) -> None:
    # Counted on the bytes before pandas builds anything: the header's fields
    # and the line breaks (an upper bound on rows, as quoted breaks are rare).
    first_line = data.split(b"\n", 1)[0].decode("utf-8", errors="replace")
    try:
        columns = len(next(csv.reader([first_line])))
    except (csv.Error, StopIteration):
        columns = first_line.count(",") + 1
    rows = max(0, data.rstrip(b"\r\n").count(b"\n"))
    _check_shape(limits, rows=rows, columns=columns)


def _refuse_control_characters(data: bytes) -> None:
    """A NUL or other control character in a CSV (PostgreSQL cannot store NUL;
    XML exports break on the others), found on the bytes, named by line."""
    match = CONTROL_BYTES.search(data)
    if match is not None:
        line = data.count(b"\n", 0, match.start()) + 1
        raise UploadError(
            [
                f"line {line}: the control character U+{match.group()[0]:04X} is "
                "not allowed; remove it and upload the file again."
            ]
        )


def _check_cell_lengths(frame: pd.DataFrame, limits: TableLimits) -> None:
    """Refuse cells longer than the limit, naming the first of each column."""
    lines = frame.attrs.get("lines", np.arange(len(frame), dtype=np.int64) + 2)
    problems = []
    for k, column in enumerate(frame.columns):  # by position: names may repeat
        lengths = frame.iloc[:, k].str.len().to_numpy()
        too_long = np.flatnonzero(lengths > limits.cell_chars)
        if len(too_long):
            problems.append(
                f"line {lines[too_long[0]]}, {column}: more than "
                f"{grouped(limits.cell_chars)} characters (the limit per cell)"
                + (f"; and {len(too_long) - 1} more" if len(too_long) > 1 else "")
            )
    if problems:
        raise UploadError(problems)


def _read_xlsx(data: bytes, limits: TableLimits, deadline: Deadline) -> pd.DataFrame:
    """Stream the first sheet after checking the archive's declared sizes and
    scanning its XML (:mod:`analysis.xlsx`).

    `zipfile` never inflates a member past its declared size, so a bomb is
    refused here before a byte of it is decompressed.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        declared = sum(member.file_size for member in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError):
        raise UploadError(["The .xlsx file is not a valid Excel workbook."]) from None
    limit = settings.MAX_XLSX_UNCOMPRESSED_BYTES
    if declared > limit:
        raise UploadError(
            [
                f"The workbook unpacks to {grouped(declared)} bytes; the limit is "
                f"{grouped(limit)} bytes. Upload the results as CSV or split them."
            ]
        )
    limits = limits.for_xlsx()
    try:
        xlsx.scan_parts(archive, limits, deadline)
        workbook = openpyxl.load_workbook(
            io.BytesIO(data), read_only=True, data_only=True
        )
        try:
            frame = _sheet_frame(workbook.worksheets[0], limits, deadline)
        finally:
            workbook.close()
        _refuse_unsaved_formulas(data, frame, deadline)
        return frame
    except (UploadError, WorkbookError):
        raise
    except Exception as exc:  # openpyxl raises many types for broken files
        raise UploadError([f"The workbook cannot be read: {exc}"]) from None


UNSAVED_FORMULAS_SHOWN = 5


def _refuse_unsaved_formulas(
    data: bytes, frame: pd.DataFrame, deadline: Deadline
) -> None:
    """Refuse empty cells that hold a formula: a workbook written by a program
    that does not calculate (a script) saves formulas without their results,
    which would read as missing results, silently. Only read again when some
    cell is empty."""
    if not len(frame):
        return
    empty = frame.eq("").to_numpy()
    if not empty.any():
        return
    lines = frame.attrs.get("lines", np.arange(len(frame), dtype=np.int64) + 2)
    wanted = {
        int(lines[row]): np.flatnonzero(empty[row]).tolist()
        for row in np.flatnonzero(empty.any(axis=1))
    }
    workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True)
    found = []
    try:
        for number, row in xlsx.present_rows(workbook.worksheets[0], deadline):
            for column in wanted.get(number, ()):
                formula = row[column] if column < len(row) else None
                if isinstance(formula, str) and formula.startswith("="):
                    found.append(f"line {number}, {frame.columns[column]}: {formula}")
    finally:
        workbook.close()
    if found:
        shown = found[:UNSAVED_FORMULAS_SHOWN]
        more = len(found) - len(shown)
        raise UploadError(
            [
                f"{len(found)} cell(s) hold a formula without its result (the "
                "program that wrote the workbook did not calculate it), which "
                "would read as missing results: "
                + "; ".join(shown)
                + (f"; and {more} more" if more else "")
                + ". Open and save the workbook in a spreadsheet program, or "
                "upload the results as CSV."
            ]
        )


def _sheet_frame(sheet, limits: TableLimits, deadline: Deadline) -> pd.DataFrame:
    """The sheet's rows as text cells; blank rows skipped, as a CSV's blank
    lines are (:func:`analysis.xlsx.scan_parts` has counted them already)."""
    rows = xlsx.present_rows(sheet, deadline)
    first_number, first = next(rows, (1, []))
    header = _trimmed(first) if first_number == 1 else ()
    if not header:
        raise UploadError(["The workbook's first sheet has no header in row 1."])
    width = len(header)
    _check_shape(limits, rows=0, columns=width)
    body: list[list[str]] = []
    lines: list[int] = []
    for number, row in rows:
        cells = _trimmed(row)
        if len(cells) > width:
            raise UploadError(
                [f"Row {number} has {len(cells)} cells; the header has {width}."]
            )
        texts = [_cell_text(c) for c in cells]
        if not any(text.strip() for text in texts):
            continue  # a blank row, skipped as a CSV's blank line is
        body.append(texts + [""] * (width - len(texts)))
        lines.append(number)
    frame = pd.DataFrame(body, columns=[_cell_text(c).strip() for c in header])
    if lines != list(range(2, len(lines) + 2)):
        frame.attrs["lines"] = np.asarray(lines, dtype=np.int64)  # the sheet's rows
    return frame.astype(str) if len(frame) else frame


def _trimmed(row) -> tuple:
    """The row without trailing empty cells."""
    end = len(row)
    while end and (row[end - 1] is None or row[end - 1] == ""):
        end -= 1
    return tuple(row[:end])


def _cell_text(value) -> str:
    # As pandas' reader with dtype=str: whole floats lose their ".0".
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def validated(frame: pd.DataFrame) -> pd.DataFrame:
    try:
        clean = validate_results(frame)
    except ResultsError as exc:
        raise UploadError(exc.errors, total=exc.total) from None
    _check_magnitudes(clean)
    return clean


def _check_magnitudes(frame: pd.DataFrame) -> None:
    """Refuse values so large that sums and variances overflow (1e308 did)."""
    limit = settings.MAX_RESULTS_ABS_VALUE
    huge = frame[frame["value"].abs() > limit]
    if len(huge):
        raise UploadError(
            [
                f"line {line}: value {value:g} is beyond ±{limit:g} "
                "(MAX_RESULTS_ABS_VALUE); rescale the metric."
                for line, value in zip(huge["line"], huge["value"], strict=True)
            ]
        )


def preview_results(frame: pd.DataFrame, design: RegisteredDesign) -> Preview:
    """Counts and findings of a validated results table against the design."""
    findings: list[Finding] = []
    tasks: dict[str, dict[str, Any]] = {}
    for task_name, rows in frame.groupby("task", sort=True):
        registered = design.tasks.get(task_name)
        cases = rows["case"].nunique()
        algorithms = sorted(rows["algorithm"].unique())
        metrics = sorted(rows["metric"].unique())
        present = int(rows["value"].notna().sum())
        tasks[task_name] = {
            "cases": cases,
            "algorithms": {
                alg: int(group["value"].notna().sum())
                for alg, group in rows.groupby("algorithm", sort=True)
            },
            "metrics": metrics,
            "missing_cells": expected_cells(rows, len(algorithms), len(metrics))
            - present,
            "registered_test_cases": registered.test_cases if registered else None,
        }
        if registered is None:
            findings.append(
                Finding(
                    "unknown_task",
                    f"Task {task_name!r} is not in the registered design.",
                    task_name,
                )
            )
            continue
        findings.extend(_task_findings(task_name, rows, registered, cases))
    for missing in sorted(set(design.tasks) - set(tasks)):
        findings.append(
            Finding(
                "task_without_results",
                f"Registered task {missing!r} has no results.",
                missing,
            )
        )
    return Preview(rows=len(frame), tasks=tasks, findings=tuple(findings), frame=frame)


def expected_cells(rows: pd.DataFrame, algorithms: int, metrics: int) -> int:
    """The values a task's rows should hold: each target's cases (as the
    engine ranks a target on the cases it has) x algorithms x metrics; a case
    segmented for several targets counts once per target."""
    cases = rows.groupby("target", observed=True, sort=False)["case"].nunique()
    return int(cases.sum()) * algorithms * metrics


def _task_findings(task_name, rows, registered, cases) -> list[Finding]:
    findings = []
    if registered.test_cases is not None and cases != registered.test_cases:
        findings.append(
            Finding(
                "case_count_mismatch",
                f"{cases} test cases, {registered.test_cases} registered.",
                task_name,
            )
        )
    for metric, group in rows.groupby("metric", sort=True):
        spec = registered.metrics.get(metric)
        if spec is None:
            findings.append(
                Finding(
                    "unknown_metric", f"Metric {metric!r} is not registered.", task_name
                )
            )
            continue
        low = spec.lower_bound if spec.lower_bound is not None else -math.inf
        high = spec.upper_bound if spec.upper_bound is not None else math.inf
        outside = group[(group["value"] < low) | (group["value"] > high)]
        if len(outside):
            lines = ", ".join(str(x) for x in outside["line"].head(10))
            findings.append(
                Finding(
                    "value_out_of_bounds",
                    f"{len(outside)} {metric} value(s) outside [{low:g}, {high:g}] "
                    f"(lines {lines}).",
                    task_name,
                )
            )
        # empty values and absent rows alike, of the cells the task should hold
        expected = expected_cells(rows, rows["algorithm"].nunique(), 1)
        missing = expected - int(group["value"].notna().sum())
        if missing:
            findings.append(
                Finding(
                    "missing_values",
                    f"{missing} missing {metric} value(s) of {expected}.",
                    task_name,
                )
            )
    for metric in sorted(set(registered.metrics) - set(rows["metric"])):
        findings.append(
            Finding(
                "missing_metric",
                f"Registered metric {metric!r} has no results.",
                task_name,
            )
        )
    return findings


def normalised_csv(frame: pd.DataFrame) -> str:
    """The uploaded table as CSV text (XLSX included), rows in upload order."""
    return frame.to_csv(index=False, lineterminator="\n")


class DuplicateResultsError(Exception):
    """The same file (SHA-256) is already a results version (HTTP 409)."""

    def __init__(self, version: ResultsVersion):
        self.version = version
        super().__init__(
            f"This file is identical to results version {version.number} "
            f"(SHA-256 {version.sha256[:16]}…, uploaded "
            f"{version.created:%Y-%m-%d %H:%M}); nothing was stored. To store it "
            "again as a new version, say so explicitly (new_version=true)."
        )


class IdempotencyKeyReusedError(Exception):
    """An Idempotency-Key already used for a different file (HTTP 422)."""

    def __init__(self, version: ResultsVersion):
        self.version = version
        super().__init__(
            f"This Idempotency-Key already stored results version {version.number} "
            "from a different file; use a new key for a new upload."
        )


def identical_version(
    registration: Registration, table: CheckedResults
) -> ResultsVersion | None:
    """The latest results version with exactly this content, or None."""
    return (
        registration.results_versions.filter(sha256=table.sha256)
        .order_by("-number")
        .first()
    )


MAX_IDEMPOTENCY_KEY = ResultsVersion._meta.get_field("idempotency_key").max_length


@transaction.atomic
def commit_results(
    *,
    registration: Registration,
    table: CheckedResults,
    original_name: str,
    actor,
    teams: dict[str, str] | None = None,
    idempotency_key: str = "",
    new_version: bool = False,
) -> ResultsVersion:
    """Store a new results version (numbers never reused).

    ``table`` is the checked upload (:func:`parse_upload`, or :func:`checked`
    of a frame of text cells). Retries are safe: an `idempotency_key` seen
    before returns the version it stored (`replayed` is then True on the
    returned object), and a file whose SHA-256 equals an existing version's is
    refused (DuplicateResultsError) unless `new_version` says it is meant as a
    new version.
    """
    if len(idempotency_key) > MAX_IDEMPOTENCY_KEY:
        raise UploadError(
            [f"The Idempotency-Key is longer than {MAX_IDEMPOTENCY_KEY} characters."]
        )
    # The registration row lock serialises commits: the checks below see every
    # version stored before, and two retries cannot both pass them.
    locked = Registration.objects.select_for_update().get(pk=registration.pk)
    sha256 = table.sha256
    versions = locked.results_versions
    if idempotency_key:
        earlier = versions.filter(idempotency_key=idempotency_key).first()
        if earlier is not None:
            if earlier.sha256 != sha256:
                raise IdempotencyKeyReusedError(earlier)
            earlier.replayed = True
            return earlier
    same_file = identical_version(locked, table)
    if same_file is not None and not new_version:
        raise DuplicateResultsError(same_file)
    last = versions.aggregate(n=Max("number"))["n"] or 0
    in_force = locked.versions.order_by("-number").first()
    results = ResultsVersion.objects.create(
        registration=locked,
        number=last + 1,
        registration_version=in_force,
        content=table.content,
        sha256=sha256,
        original_name=(original_name or "results.csv")[:255],
        row_count=len(table),
        uploaded_by=actor,
        teams=teams or {},
        idempotency_key=idempotency_key,
    )
    results.replayed = False
    record(actor=actor, action="results.commit", target=results, rows=len(table))
    return results

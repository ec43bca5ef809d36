"""Reading an uploaded .xlsx within a budget of memory and time.

An .xlsx is a zip of XML parts. Before openpyxl sees a byte of it, every part
is streamed through expat (:func:`scan_parts`), so a hostile file is refused
while it is still cheap:

- a DTD (``<!DOCTYPE``) anywhere is refused. Office Open XML never declares
  one, and the entities defined in one are how a 4.8 KB workbook expanded to a
  600 MB answer (issue 30). openpyxl also uses ``defusedxml`` (installed) for
  the same reason; this check does not depend on it.
- each sheet's declared ``<dimension>``, its row numbers and its cells' columns
  count toward the row, column and cell limits as they are met: a made-up
  blank row or a declared-but-empty column costs its place in the limits, not
  a millisecond of filling at read time;
- no cell (shared strings included) holds more than ``cell_chars`` characters;
- no cell, shared string or sheet name holds a control character, as the CSV
  rule has it, named by its cell (:mod:`analysis.xlsx_controls`);
- the whole parse stops after ``MAX_UPLOAD_PARSE_SECONDS``, or as soon as the
  client has closed its connection, where the server lets that be seen
  (:func:`config.request_body.client_gone`).

:func:`present_rows` then reads only the rows the sheet holds (openpyxl's own
iterator makes up every missing row between two present ones).
"""

from __future__ import annotations

import logging
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, replace
from xml.parsers import expat

from django.conf import settings
from openpyxl.utils.cell import (
    column_index_from_string,
    get_column_letter,
    range_boundaries,
)
from openpyxl.worksheet._reader import WorkSheetParser

from config.request_body import client_gone
from config.text import CONTROL

from . import xlsx_controls as controls

CHUNK = 1 << 16
CLIENT_POLL_SECONDS = 0.25  # how often a parse looks whether its client left

logger = logging.getLogger(__name__)
XML_SUFFIXES = (".xml", ".rels", ".vml")


class WorkbookError(ValueError):
    """The workbook is refused; ``messages`` say why (for UploadError)."""

    def __init__(self, *messages: str):
        self.messages = list(messages)
        super().__init__("; ".join(messages))


def grouped(number: int) -> str:
    """1234567 → "1 234 567" (the thin grouping used in messages)."""
    return f"{number:,}".replace(",", " ")


@dataclass(frozen=True)
class TableLimits:
    """The bounds of an uploaded table: data rows, columns, rows x columns and
    characters per cell. Rows and columns count blank and declared ones."""

    rows: int
    columns: int
    cells: int
    cell_chars: int

    @classmethod
    def for_results(cls) -> TableLimits:
        return cls(
            rows=settings.MAX_RESULTS_ROWS,
            columns=settings.MAX_RESULTS_COLUMNS,
            cells=settings.MAX_RESULTS_CELLS,
            cell_chars=settings.MAX_CELL_CHARS,
        )

    def for_xlsx(self) -> TableLimits:
        """These limits with at most ``MAX_XLSX_CELLS`` cells (XLSX is slow)."""
        return replace(self, cells=min(self.cells, settings.MAX_XLSX_CELLS))

    def problems(self, *, rows: int, columns: int) -> list[str]:
        """What a table of `rows` data rows and `columns` columns exceeds."""
        found = []
        if columns > self.columns:
            found.append(
                f"The table has {grouped(columns)} columns; the limit is "
                f"{grouped(self.columns)}."
            )
        if rows > self.rows:
            found.append(
                f"The table has more than {grouped(self.rows)} rows (the limit)."
            )
        if rows * columns > self.cells:
            found.append(
                f"The table has more than {grouped(self.cells)} cells (the limit)."
            )
        return found

    def check(self, *, rows: int, columns: int) -> None:
        if problems := self.problems(rows=rows, columns=columns):
            raise WorkbookError(*problems)

    def check_text(self, length: int, where: str) -> None:
        if length > self.cell_chars:
            raise WorkbookError(
                f"{where} holds more than {grouped(self.cell_chars)} characters "
                "(the limit per cell)."
            )


class ClientGoneError(WorkbookError):
    """The client closed its connection while its upload was parsed."""


class Deadline:
    """The parse's budget, checked often: ``MAX_UPLOAD_PARSE_SECONDS``, and
    the client still connected (looked at every ``CLIENT_POLL_SECONDS``)."""

    def __init__(self, seconds: float | None = None):
        self.seconds = settings.MAX_UPLOAD_PARSE_SECONDS if seconds is None else seconds
        self.started = time.monotonic()
        self.end = self.started + self.seconds
        self.next_poll = self.started + CLIENT_POLL_SECONDS

    def check(self) -> None:
        now = time.monotonic()
        if now > self.end:
            raise WorkbookError(
                f"Reading the workbook took longer than {self.seconds:g} s "
                "(MAX_UPLOAD_PARSE_SECONDS); upload the results as CSV."
            )
        if now >= self.next_poll:
            self.next_poll = now + CLIENT_POLL_SECONDS
            self.check_client()

    def check_client(self) -> None:
        """Stop if the client has closed its connection (nobody waits for
        the answer; nothing is stored)."""
        if client_gone():
            seconds = time.monotonic() - self.started
            logger.warning(
                "Upload parse stopped after %.1f s: the client closed the connection.",
                seconds,
            )
            raise ClientGoneError(
                f"The client closed the connection; reading the upload stopped "
                f"after {seconds:.1f} s and nothing was stored."
            )


def _local(name: str) -> str:
    # expat with a namespace separator reports "uri local"
    return name.rpartition(" ")[2]


def _refuse_dtd(*_args) -> None:
    raise WorkbookError(
        "The workbook declares a DTD (<!DOCTYPE …>), which Excel never writes "
        "and which can expand to gigabytes; save it again in a spreadsheet "
        "program or upload the results as CSV."
    )


def _parse(
    stream, parser, deadline: Deadline, *, until=lambda: False, on_control=None
) -> None:
    """Feed a part to expat (any DTD refused) until it ends or `until()`.

    Where expat stops at a control character XML forbids, ``on_control(found)``
    refuses it by its place (or returns to end this part); any other error
    refuses the workbook as unreadable."""
    parser.StartDoctypeDeclHandler = _refuse_dtd
    parser.EntityDeclHandler = _refuse_dtd
    tail, chunk, start = b"", b"", 0  # `start`: the chunk's first byte
    try:
        while chunk := stream.read(CHUNK):
            parser.Parse(chunk, False)
            deadline.check()
            if until():
                return
            tail, start = chunk[-16:], start + len(chunk)
        parser.Parse(b"", True)
    except expat.ExpatError as exc:
        window = tail + chunk
        position = parser.ErrorByteIndex - (start - len(tail))
        found = controls.at_error(window, position)
        if found is None or on_control is None:
            raise WorkbookError(f"The workbook cannot be read: {exc}") from None
        on_control(found)


class _SharedStrings:
    """The length of each string (``si``) of a shared strings table, and
    those that hold a control character (in ``controls``, by index)."""

    def __init__(self, limits: TableLimits, found: controls.SharedStringControls):
        self.limits = limits
        self.found = found
        self.finder = controls.ControlFinder()
        self.length = 0
        self.count = 0
        self.inside = False
        self.clean = True

    def start(self, name: str, _attrs) -> None:
        self.finder.carry = ""
        if _local(name) == "si":
            self.length = 0
            self.inside = True
            self.clean = True

    def text(self, data: str) -> None:
        if self.inside:
            self.length += len(data)
            if self.clean and (found := self.finder.find(data)):
                self.control(found)

    def control(self, found: str) -> None:
        """String ``count`` holds a control character: remembered, so its
        first cell can be named once every part is scanned."""
        self.found.add(self.count, found)
        self.clean = False

    def end(self, name: str) -> None:
        if _local(name) == "si":
            self.inside = False
            self.count += 1
            self.limits.check_text(self.length, f"Shared string {self.count}")


class _SheetShape:
    """Tracks a sheet's extent as expat meets it and refuses it at the first
    row, column, cell or character over the limits."""

    def __init__(self, limits: TableLimits, deadline: Deadline):
        self.limits = limits
        self.deadline = deadline
        self.row = 0
        self.column = 0
        self.columns = 0
        self.cells = 0
        self.in_row = 0
        self.text = 0
        self.element = ""
        self.finder = controls.ControlFinder()

    def start(self, name: str, attrs: dict[str, str]) -> None:
        tag = self.element = _local(name)
        if tag == "c":
            self._cell(attrs.get("r"))
        elif tag == "row":
            self._row(attrs.get("r"))
        elif tag == "dimension":
            self._dimension(attrs.get("ref", ""))

    def _dimension(self, ref: str) -> None:
        try:
            _, _, max_column, max_row = range_boundaries(ref)
        except (TypeError, ValueError):
            return  # openpyxl ignores what it cannot read, so do we
        if max_row is not None and max_column is not None:
            self.limits.check(rows=max_row - 1, columns=max_column)

    def _row(self, number: str | None) -> None:
        try:
            self.row = int(number) if number else self.row + 1
        except ValueError:
            raise WorkbookError(f"Row number {number[:20]!r} is not valid.") from None
        self.column = 0
        self.in_row = 0
        self.limits.check(rows=self.row - 1, columns=self.columns)

    def _cell(self, reference: str | None) -> None:
        if reference:
            try:
                self.column = column_index_from_string(reference.rstrip(DIGITS))
            except ValueError:
                raise WorkbookError(
                    f"Cell reference {reference[:20]!r} is not valid."
                ) from None
        else:
            self.column += 1
        self.text = 0
        self.finder.carry = ""
        self.cells += 1
        self.in_row += 1
        if self.in_row > self.limits.columns:  # cells repeating one column
            raise WorkbookError(
                f"Row {self.row} has more than {grouped(self.limits.columns)} "
                "cells (the column limit)."
            )
        if self.column > self.columns:
            self.columns = self.column
            self.limits.check(rows=self.row - 1, columns=self.columns)
        if self.cells % 4096 == 0:
            self.deadline.check()

    def characters(self, data: str) -> None:
        self.text += len(data)
        if self.text > self.limits.cell_chars:
            self.limits.check_text(self.text, f"Cell {self.cell}")
        if (
            self.element in CELL_TEXT
            and ("_" in data or self.finder.carry or CONTROL.search(data))
            and (found := self.finder.find(data))
        ):
            self.control(found)

    @property
    def cell(self) -> str:
        return f"{_letters(self.column)}{self.row}"

    def control(self, found: str) -> None:
        where = f"Cell {self.cell}" if self.element in CELL_TEXT else "The sheet"
        raise WorkbookError(controls.message(where, found))


CELL_TEXT = ("t", "v")  # an inline string's text, a value (formulas are not read)


DIGITS = "0123456789"


def _letters(column: int) -> str:
    return get_column_letter(min(max(column, 1), 18278))  # XFD is Excel's last


class _Part:
    """Chooses the checks of one XML part by its root element: a sheet's
    shape (:class:`_SheetShape`), a shared strings table's string lengths;
    any other part is done once its root has begun (a DTD can only come
    before it). Every sheet is checked, not only the first: openpyxl reads
    each sheet without a ``<dimension>`` through to find its size."""

    def __init__(
        self,
        parser,
        limits: TableLimits,
        deadline: Deadline,
        strings: controls.SharedStringControls,
    ):
        self.parser = parser
        self.limits = limits
        self.deadline = deadline
        self.strings = strings
        self.root = ""
        self.checks = None
        self.sheets = 0
        parser.StartElementHandler = self.start

    def start(self, name: str, attrs: dict[str, str]) -> None:
        self.root = _local(name)
        if self.root == "worksheet":
            self.checks = _SheetShape(self.limits, self.deadline)
            self.parser.StartElementHandler = self.checks.start
            self.parser.CharacterDataHandler = self.checks.characters
        elif self.root == "sst":
            self.checks = _SharedStrings(self.limits, self.strings)
            self.parser.StartElementHandler = self.checks.start
            self.parser.CharacterDataHandler = self.checks.text
            self.parser.EndElementHandler = self.checks.end
        elif self.root == "workbook":
            self.parser.StartElementHandler = self.workbook_element
        else:
            self.parser.StartElementHandler = None

    def workbook_element(self, name: str, attrs: dict[str, str]) -> None:
        """A sheet's name with a control character is refused (by position)."""
        if _local(name) == "sheet":
            self.sheets += 1
            found = controls.ControlFinder().find(attrs.get("name", ""))
            if found:
                where = f"The name of sheet {self.sheets}"
                raise WorkbookError(controls.message(where, found))

    def control(self, found: str) -> None:
        """expat stopped at a control character XML forbids."""
        if self.checks is not None:
            self.checks.control(found)  # a sheet's raises; strings remember
        elif self.root == "workbook":
            raise WorkbookError(controls.message("The list of sheets", found))
        else:
            raise WorkbookError(controls.message("The workbook", found))

    def done(self) -> bool:
        return bool(self.root) and self.root not in ("worksheet", "sst", "workbook")


def scan_parts(
    archive: zipfile.ZipFile, limits: TableLimits, deadline: Deadline
) -> None:
    """Refuse any XML part with a DTD, any sheet over the limits, shared
    strings over the cell length and control characters, before openpyxl
    reads the workbook."""
    strings = controls.SharedStringControls()
    sheets = []
    for member in archive.infolist():
        if not member.filename.lower().endswith(XML_SUFFIXES):
            continue
        parser = _parser()
        part = _Part(parser, limits, deadline, strings)
        with archive.open(member) as stream:
            _parse(stream, parser, deadline, until=part.done, on_control=part.control)
        if part.root == "worksheet":
            sheets.append(member)
    if strings:
        _refuse_shared_controls(archive, sheets, strings, deadline)


def _parser():
    parser = expat.ParserCreate(namespace_separator=" ")
    parser.buffer_text = True  # one call per text, not per line
    return parser


def _refuse_shared_controls(
    archive: zipfile.ZipFile,
    sheets: list[zipfile.ZipInfo],
    strings: controls.SharedStringControls,
    deadline: Deadline,
) -> None:
    """Refuse the shared strings with a control character, naming the first
    cell that uses one (sheets scanned again, only now, and only for this)."""
    try:
        for member in sheets:
            parser = _parser()
            finder = controls.SharedStringCells(strings)
            parser.StartElementHandler = finder.start
            parser.CharacterDataHandler = finder.text
            parser.EndElementHandler = finder.end
            with archive.open(member) as stream:
                _parse(stream, parser, deadline)
    except controls.UsedBy as used:
        found = strings.found[used.index]
        raise WorkbookError(controls.message(f"Cell {used.cell}", found)) from None
    index = min(strings.found)
    where = f"Shared string {index + 1} (no cell uses it)"
    raise WorkbookError(controls.message(where, strings.found[index]))


def present_rows(sheet, deadline: Deadline) -> Iterator[tuple[int, list]]:
    """(row number, values by column from 1) of the rows the sheet holds.

    openpyxl's ``iter_rows`` makes up every missing row between two present
    ones, as wide as the declared dimension; a blank row here costs nothing.
    This reads the read-only sheet's source with openpyxl's own cell parser,
    as ``ReadOnlyWorksheet._cells_by_row`` does (openpyxl is pinned).
    """
    book = sheet.parent
    with sheet._get_source() as source:
        parser = WorkSheetParser(
            source,
            sheet._shared_strings,
            data_only=book.data_only,
            epoch=book.epoch,
            date_formats=book._date_formats,
            timedelta_formats=book._timedelta_formats,
        )
        for number, cells in parser.parse():
            deadline.check()
            width = max((cell["column"] for cell in cells), default=0)
            values = [None] * width
            for cell in cells:
                values[cell["column"] - 1] = cell["value"]
            yield number, values

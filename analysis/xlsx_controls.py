"""Control characters in an .xlsx, refused with the cell that holds them.

The rule is the CSV upload's (:mod:`config.text`): NUL, the other C0 control
characters except tab, line feed and carriage return, and DEL are refused
(PostgreSQL cannot store NUL; XML exports break on the others). A workbook can
hold one in three ways, and each is named by its cell ("Cell B7 holds a control
character U+0001"):

- escaped, as Excel writes one: ``_x0001_`` (ST_Xstring; ``_x005F_`` escapes an
  underscore, so ``_x005F_x0001_`` is the text "_x0001_"). openpyxl keeps the
  escape as seven characters of text, where the author's spreadsheet shows a
  control character;
- the character itself, which XML 1.0 allows for DEL only;
- a character or a character reference (``&#1;``) XML 1.0 forbids: expat stops
  there, and the bytes at its error position say which character it was.

Inline strings and cached values are named by their cell as the scan meets
them; a shared string is remembered (:class:`SharedStringControls`) and, once
every part is scanned, named by the first cell that uses it
(:class:`SharedStringCells`).
"""

from __future__ import annotations

import re

from openpyxl.utils.cell import column_index_from_string, get_column_letter

from config.text import CONTROL

ESCAPE = re.compile("_x([0-9A-Fa-f]{4})_")
CHARACTER_REFERENCE = re.compile(rb"&#(?:x([0-9A-Fa-f]{1,6})|([0-9]{1,7}));")
LONGEST_ESCAPE = 7  # "_x0001_"
REMEMBERED_STRINGS = 1000  # shared strings with a control character, at most


def message(where: str, found: str) -> str:
    return (
        f"{where} holds a control character {found}; remove it and upload the "
        "file again."
    )


def _control(code: int) -> bool:
    return code < 0x80 and CONTROL.match(chr(code)) is not None


class ControlFinder:
    """The first control character of a text that expat hands over in pieces
    (an escape may be split between two)."""

    def __init__(self) -> None:
        self.carry = ""

    def reset(self) -> None:
        self.carry = ""

    def find(self, data: str) -> str | None:
        """ "U+0001", or "U+0001 (written _x0001_)"; None when clean so far."""
        if match := CONTROL.search(data):
            return f"U+{ord(match.group()):04X}"
        if "_" not in data and not self.carry:
            return None
        text = self.carry + data
        end = 0
        for match in ESCAPE.finditer(text):  # left to right, as Excel reads
            end = match.end()
            if _control(code := int(match.group(1), 16)):
                return f"U+{code:04X} (written {match.group()})"
        # an escape can only begin in the unread tail
        self.carry = text[max(end, len(text) - (LONGEST_ESCAPE - 1)) :]
        return None


def at_error(window: bytes, position: int) -> str | None:
    """The control character expat stopped at: ``position`` is its error
    byte in ``window``; None when the error is something else."""
    if not 0 <= position < len(window):
        return None
    byte = window[position]
    if byte < 0x20 and _control(byte):
        return f"U+{byte:04X}"
    match = CHARACTER_REFERENCE.match(window, position)
    if match:
        code = int(match.group(1), 16) if match.group(1) else int(match.group(2))
        if _control(code):
            return f"U+{code:04X} (written {match.group().decode()})"
    return None


class SharedStringControls:
    """Shared strings (by index) that hold a control character."""

    def __init__(self) -> None:
        self.found: dict[int, str] = {}

    def add(self, index: int, found: str) -> None:
        if len(self.found) < REMEMBERED_STRINGS:
            self.found.setdefault(index, found)

    def __bool__(self) -> bool:
        return bool(self.found)


class SharedStringCells:
    """expat handlers looking for the first cell (``<c t="s">``) whose shared
    string is one of ``strings``; they raise :class:`UsedBy` naming it."""

    def __init__(self, strings: SharedStringControls) -> None:
        self.strings = strings
        self.row = 0
        self.column = 0
        self.shared = False
        self.value: list[str] | None = None

    def start(self, name: str, attrs: dict[str, str]) -> None:
        tag = name.rpartition(" ")[2]
        if tag == "row":
            number = attrs.get("r", "")
            self.row = int(number) if number.isdigit() else self.row + 1
            self.column = 0
        elif tag == "c":
            reference = attrs.get("r", "")
            letters = reference.rstrip("0123456789")
            try:
                self.column = column_index_from_string(letters)
            except ValueError:
                self.column += 1
            self.shared = attrs.get("t") == "s"
        elif tag == "v" and self.shared:
            self.value = []

    def text(self, data: str) -> None:
        if self.value is not None:
            self.value.append(data)

    def end(self, name: str) -> None:
        if self.value is None or name.rpartition(" ")[2] != "v":
            return
        text, self.value = "".join(self.value).strip(), None
        if text.isdigit() and int(text) in self.strings.found:
            cell = f"{get_column_letter(min(self.column, 18278))}{self.row}"
            raise UsedBy(cell, int(text))


class UsedBy(Exception):  # noqa: N818 (not an error: the cell was found)
    """The cell that uses a shared string with a control character."""

    def __init__(self, cell: str, index: int):
        self.cell = cell
        self.index = index
        super().__init__(cell)

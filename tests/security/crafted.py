"""Crafted hostile files (no Django: a subprocess imports this too)."""
# ruff: noqa: E501 (OOXML boilerplate: one element per line reads best)

import io
import zipfile
from collections.abc import Iterable

_CONTENT_TYPES = """<?xml version="1.0" encoding="UTF-8"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>
<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>
</Types>"""
_RELS = """<?xml version="1.0" encoding="UTF-8"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>
</Relationships>"""
_WORKBOOK = """<?xml version="1.0" encoding="UTF-8"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">
<sheets><sheet name="results" sheetId="1" r:id="rId1"/></sheets></workbook>"""
_WORKBOOK_RELS = """<?xml version="1.0" encoding="UTF-8"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>
</Relationships>"""
SHEET_HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns='
    '"http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
    '<row r="1"><c r="A1" t="inlineStr"><is><t>task</t></is></c></row>'
    '<row r="2"><c r="A2" t="inlineStr"><is><t>'
)
SHEET_TAIL = "</t></is></c></row></sheetData></worksheet>"


def _streamed(chunks: Iterable[bytes]) -> bytes:
    """A minimal workbook whose sheet is written chunk by chunk (zip64)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("[Content_Types].xml", _CONTENT_TYPES)
        zf.writestr("_rels/.rels", _RELS)
        zf.writestr("xl/workbook.xml", _WORKBOOK)
        zf.writestr("xl/_rels/workbook.xml.rels", _WORKBOOK_RELS)
        with zf.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as sheet:
            for chunk in chunks:
                sheet.write(chunk)
    return buffer.getvalue()


def xlsx_with_one_cell(size: int) -> bytes:
    """A workbook whose sheet holds one `size`-character cell (a zip bomb)."""
    chunk = b"A" * (1 << 20)
    return _streamed(
        [SHEET_HEAD.encode(), *([chunk] * (size // len(chunk))), SHEET_TAIL.encode()]
    )


def _workbook(sheet: bytes, *, extra: dict[str, bytes] | None = None) -> bytes:
    """A minimal workbook around one sheet's XML (and any extra parts)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("_rels/.rels", _RELS)
        zf.writestr("xl/workbook.xml", _WORKBOOK)
        parts = {
            "[Content_Types].xml": _CONTENT_TYPES.encode(),
            "xl/_rels/workbook.xml.rels": _WORKBOOK_RELS.encode(),
        }
        parts |= {"xl/worksheets/sheet1.xml": sheet} | (extra or {})
        for name, data in parts.items():
            zf.writestr(name, data)
    return buffer.getvalue()


_SHEET_OPEN = (
    '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
)
HEADER = ("task", "case", "algorithm", "metric", "value")
_HEADER_ROW = "".join(
    f'<c r="{col}1" t="inlineStr"><is><t>{name}</t></is></c>'
    for col, name in zip("ABCDE", HEADER, strict=True)
)


def _data_row(number: int) -> str:
    cells = "".join(
        f'<c r="{col}{number}" t="inlineStr"><is><t>{text}</t></is></c>'
        for col, text in zip("ABCD", ("Brain", f"c{number}", "A1", "DSC"), strict=True)
    )
    return f'<row r="{number}">{cells}<c r="E{number}"><v>0.5</v></c></row>'


def xlsx_entity_bomb() -> bytes:
    """The "billion laughs" in a sheet (issue 30: 4 825 bytes → 600 MB answer):
    ten levels of ten references each, 10^9 copies of "lol" in one cell."""
    levels = ['<!ENTITY lol0 "lol">'] + [
        f'<!ENTITY lol{n} "{f"&lol{n - 1};" * 10}">' for n in range(1, 10)
    ]
    sheet = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        f"<!DOCTYPE worksheet [{''.join(levels)}]>"
        f'{_SHEET_OPEN}<sheetData><row r="1">{_HEADER_ROW}</row>'
        '<row r="2"><c r="A2" t="inlineStr"><is><t>&lol9;</t></is></c></row>'
        "</sheetData></worksheet>"
    )
    return _workbook(sheet.encode())


def xlsx_sparse(*, last_row: int, dimension: str = "") -> bytes:
    """A header, one data row and one more at row `last_row`, every row
    between them missing (issue 30: a 1.5 KB file, 18–28 min of CPU)."""
    declared = f'<dimension ref="{dimension}"/>' if dimension else ""
    sheet = (
        f'<?xml version="1.0" encoding="UTF-8"?>{_SHEET_OPEN}{declared}<sheetData>'
        f'<row r="1">{_HEADER_ROW}</row>{_data_row(2)}{_data_row(last_row)}'
        "</sheetData></worksheet>"
    )
    return _workbook(sheet.encode())


def xlsx_many_cells(*, rows: int, columns: int) -> bytes:
    """`rows` x `columns` small numeric cells, streamed (5.8 M in ~300 KB)."""
    block = (f"<row>{'<c><v>1</v></c>' * columns}</row>" * 1000).encode()
    return _streamed(
        [
            f"{_SHEET_OPEN}<sheetData>".encode(),
            *([block] * (rows // 1000)),
            b"</sheetData></worksheet>",
        ]
    )


def xlsx_long_cell(length: int) -> bytes:
    """A results sheet whose one shared string is `length` characters long."""
    strings = (
        '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
        f"<si><t>{'x' * length}</t></si></sst>"
    )
    sheet = (
        f'{_SHEET_OPEN}<sheetData><row r="1">{_HEADER_ROW}</row>'
        '<row r="2"><c r="A2" t="s"><v>0</v></c></row></sheetData></worksheet>'
    )
    relations = _WORKBOOK_RELS.replace(
        "</Relationships>",
        '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/'
        'officeDocument/2006/relationships/sharedStrings" '
        'Target="sharedStrings.xml"/></Relationships>',
    )
    return _workbook(
        sheet.encode(),
        extra={
            "xl/sharedStrings.xml": strings.encode(),
            "xl/_rels/workbook.xml.rels": relations.encode(),
            "[Content_Types].xml": _CONTENT_TYPES.replace(
                "</Types>",
                '<Override PartName="/xl/sharedStrings.xml" ContentType='
                '"application/vnd.openxmlformats-officedocument.spreadsheetml.'
                'sharedStrings+xml"/></Types>',
            ).encode(),
        },
    )

"""Attack: spreadsheets built to exhaust the parser (issue 30).

Entity expansion, made-up blank rows and declared dimensions, millions of
cells under the size limit, and giant cells: each refused while cheap, on the
results upload and the case metadata upload alike (one reader).
"""

import io
import time
import zipfile

import openpyxl
import pytest
from django.core.exceptions import ValidationError
from django.test import override_settings

from analysis import ingest, xlsx, xlsx_controls
from analysis.models import ResultsVersion
from characteristics.models import CaseMetadataVersion
from characteristics.services import read_metadata_upload
from tests.characteristics.conftest import results, tables  # noqa: F401 (fixtures)
from tests.security import crafted, memory
from tests.security.crafted import (
    _SHEET_OPEN,
    HEADER,
    xlsx_entity_bomb,
    xlsx_long_cell,
    xlsx_many_cells,
    xlsx_sparse,
)
from tests.security.test_bounded_input import upload

MB = 1 << 20
EXCEL_LAST_CELL = "A1:XFD1048576"


def cpu_seconds(call):
    """CPU time of `call` (not wall time: the machine is shared)."""
    start = time.process_time()
    result = call()
    return time.process_time() - start, result


def refusal(data: bytes, name: str = "r.xlsx") -> list[str]:
    with pytest.raises(ingest.UploadError) as caught:
        ingest.read_upload(name, data)
    return caught.value.errors


@pytest.mark.django_db
@pytest.mark.skipif(not memory.available(), reason="needs /proc (Linux)")
def test_entity_bomb_is_refused_fast_with_little_memory(organizer_api, registration):
    bomb = xlsx_entity_bomb()
    assert len(bomb) < 5000  # issue 30: 4 825 bytes → a 600 MB answer
    growth, (seconds, response) = memory.peak_growth_bytes(
        lambda: cpu_seconds(lambda: upload(organizer_api, bomb, "results.xlsx"))
    )
    assert response.status_code == 400
    [message] = response.json()["errors"]
    assert message.startswith("The workbook declares a DTD (<!DOCTYPE …>)")
    assert seconds < 1
    assert growth < 50 * MB
    assert ResultsVersion.objects.count() == 0


@pytest.mark.django_db
def test_entity_bomb_as_case_metadata_is_refused(organizer_api, results):  # noqa: F811
    response = organizer_api.post(
        f"/api/v1/results/{results.pk}/case-metadata/?commit=true",
        {"file": _named(xlsx_entity_bomb(), "meta.xlsx")},
        format="multipart",
    )
    assert response.status_code == 400
    assert "declares a DTD" in str(response.json())
    assert CaseMetadataVersion.objects.count() == 0


def _named(data: bytes, name: str):
    import io

    file = io.BytesIO(data)
    file.name = name
    return file


def test_openpyxl_itself_parses_with_defusedxml():
    # defence in depth: a part the scan missed would still not expand entities
    assert openpyxl.DEFUSEDXML is True


def test_sparse_rows_with_a_wide_dimension_are_refused_fast():
    data = xlsx_sparse(last_row=1_048_576, dimension=EXCEL_LAST_CELL)
    assert len(data) < 2000  # issue 30: 1.5 KB, 18–28 min of CPU
    seconds, errors = cpu_seconds(lambda: refusal(data))
    assert errors[0] == "The table has 16 384 columns; the limit is 100."
    assert seconds < 2


def test_blank_rows_count_toward_the_row_limit():
    seconds, errors = cpu_seconds(lambda: refusal(xlsx_sparse(last_row=3_000_000)))
    assert "The table has more than 2 000 000 rows (the limit)." in errors
    assert seconds < 2


def test_blank_rows_under_the_limits_cost_nothing_to_skip():
    seconds, frame = cpu_seconds(
        lambda: ingest.read_upload("r.xlsx", xlsx_sparse(last_row=300_000))
    )
    assert frame["case"].tolist() == ["c2", "c300000"]
    assert frame.attrs["lines"].tolist() == [2, 300_000]
    assert seconds < 2


@pytest.mark.slow
def test_millions_of_cells_under_the_size_limit_are_refused_early():
    data = xlsx_many_cells(rows=58_000, columns=100)  # 5.8 M cells
    assert len(data) < 300_000
    seconds, errors = cpu_seconds(lambda: refusal(data))
    assert errors == ["The table has more than 2 000 000 cells (the limit)."]
    assert seconds < 10  # was 275 s, after reading every row


@override_settings(CASE_METADATA_MAX_ROWS=1000)
def test_case_metadata_limits_are_checked_while_reading():
    data = xlsx_many_cells(rows=5_000, columns=3)
    with pytest.raises(ValidationError) as caught:
        read_metadata_upload("meta.xlsx", data)
    assert caught.value.messages == ["The table has more than 1 000 rows (the limit)."]


def test_cells_repeating_one_column_are_refused():
    header = "".join(
        f'<c r="A1" t="inlineStr"><is><t>t{n}</t></is></c>' for n in range(101)
    )
    sheet = f'{_SHEET_OPEN}<sheetData><row r="1">{header}</row></sheetData></worksheet>'
    errors = refusal(crafted._workbook(sheet.encode()))
    assert errors == ["Row 1 has more than 100 cells (the column limit)."]


def test_a_giant_shared_string_is_refused():
    errors = refusal(xlsx_long_cell(10_001))
    assert errors == [
        "Shared string 1 holds more than 10 000 characters (the limit per cell)."
    ]


def test_a_shared_string_at_the_limit_is_read():
    frame = ingest.read_upload("r.xlsx", xlsx_long_cell(10_000))
    assert len(frame["task"].iloc[0]) == 10_000


def test_a_giant_csv_cell_is_refused_with_its_line():
    data = (
        b"task,case,algorithm,metric,value\nA,1,x,DSC,0.5\nA,2,"
        + b"y" * 10_001
        + b",DSC,0.4\n"
    )
    assert refusal(data, "r.csv") == [
        "line 3, algorithm: more than 10 000 characters (the limit per cell)"
    ]


@override_settings(MAX_UPLOAD_PARSE_SECONDS=0)
def test_the_parse_time_budget_is_a_setting():
    errors = refusal(xlsx_sparse(last_row=3))
    assert errors == [
        "Reading the workbook took longer than 0 s (MAX_UPLOAD_PARSE_SECONDS); "
        "upload the results as CSV."
    ]


# --- control characters in cells, shared strings and sheet names --------------
# The CSV rule (config/text.py) in a workbook: a control character written as
# Excel writes it (_x0001_), as itself (DEL, the one XML allows) or as a
# character XML forbids (expat stops there) is refused with its cell.

STRINGS_TYPE = (
    '<Override PartName="/xl/sharedStrings.xml" ContentType="application/'
    'vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>'
)
STRINGS_RELATION = (
    '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/'
    'officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>'
    "</Relationships>"
)


def _inline(reference: str, text: str) -> str:
    return f'<c r="{reference}" t="inlineStr"><is><t>{text}</t></is></c>'


def _results_row(number: int, algorithm: str = "A1", cell: str = "") -> str:
    """A results row whose algorithm (column C) is `algorithm`, or whose
    algorithm cell is `cell` as given (a shared string reference)."""
    texts = zip("ABD", ("Brain", f"c{number}", "DSC"), strict=True)
    a, b, d = (_inline(f"{col}{number}", text) for col, text in texts)
    c = cell or _inline(f"C{number}", algorithm)
    return f'<row r="{number}">{a}{b}{c}{d}<c r="E{number}"><v>0.5</v></c></row>'


def xlsx_with_cells(
    *rows: str, header: str = "", strings: str = "", sheet_name: str = "results"
) -> bytes:
    """A results workbook: the header (or `header` as given), then `rows`
    (sheet XML), and a shared strings table of `strings` (<si> elements)."""
    parts = {
        "[Content_Types].xml": crafted._CONTENT_TYPES,
        "_rels/.rels": crafted._RELS,
        "xl/workbook.xml": crafted._WORKBOOK.replace("results", sheet_name),
        "xl/_rels/workbook.xml.rels": crafted._WORKBOOK_RELS,
        "xl/worksheets/sheet1.xml": _sheet(rows, header),
    }
    if strings:
        main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
        parts["xl/sharedStrings.xml"] = f'<sst xmlns="{main}">{strings}</sst>'
        parts["xl/_rels/workbook.xml.rels"] = crafted._WORKBOOK_RELS.replace(
            "</Relationships>", STRINGS_RELATION
        )
        parts["[Content_Types].xml"] = crafted._CONTENT_TYPES.replace(
            "</Types>", STRINGS_TYPE
        )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in parts.items():
            archive.writestr(name, text.encode("utf-8"))
    return buffer.getvalue()


def _sheet(rows, header: str = "") -> str:
    head = header or "".join(
        _inline(f"{col}1", name) for col, name in zip("ABCDE", HEADER, strict=True)
    )
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>{_SHEET_OPEN}<sheetData>'
        f'<row r="1">{head}</row>{"".join(rows)}</sheetData></worksheet>'
    )


def _refused_with(data: bytes) -> str:
    [message] = refusal(data)
    return message


def test_an_escaped_control_character_in_a_cell_is_refused_with_the_cell():
    data = xlsx_with_cells(
        *(_results_row(n) for n in range(2, 7)), _results_row(7, "x_x0001_y")
    )
    assert _refused_with(data) == (
        "Cell C7 holds a control character U+0001 (written _x0001_); remove it "
        "and upload the file again."
    )


def test_a_nul_written_as_excel_writes_it_is_refused():
    data = xlsx_with_cells(_results_row(2, "_x0000_"))
    assert _refused_with(data).startswith(
        "Cell C2 holds a control character U+0000 (written _x0000_)"
    )


def test_a_delete_character_in_a_cell_is_refused():
    # DEL is the one control character XML 1.0 lets a document hold as itself
    data = xlsx_with_cells(_results_row(2), _results_row(3, "A\x7f"))
    assert _refused_with(data).startswith("Cell C3 holds a control character U+007F;")


@pytest.mark.parametrize(
    ("written", "named"),
    [
        ("&#1;", "U+0001 (written &#1;)"),
        ("&#x1F;", "U+001F (written &#x1F;)"),
        ("\x00", "U+0000"),
        ("\x08", "U+0008"),
    ],
)
def test_a_character_xml_forbids_in_a_cell_is_named_by_its_cell(written, named):
    # expat stops at it; the byte where it stopped says which character it was
    data = xlsx_with_cells(_results_row(2), _results_row(3, f"A{written}"))
    assert _refused_with(data) == (
        f"Cell C3 holds a control character {named}; remove it and upload the "
        "file again."
    )


def test_a_control_character_in_a_header_cell_is_refused():
    header = "".join(
        _inline(f"{col}1", name)
        for col, name in zip("ABCDE", ("task", "ca_x0002_se", *HEADER[2:]), strict=True)
    )
    data = xlsx_with_cells(_results_row(2), header=header)
    assert _refused_with(data).startswith(
        "Cell B1 holds a control character U+0002 (written _x0002_)"
    )


def test_a_shared_string_with_a_control_character_is_named_by_its_cell():
    strings = "<si><t>A1</t></si><si><r><t>A</t></r><r><t>2_x0007_</t></r></si>"
    rows = [
        _results_row(2, cell='<c r="C2" t="s"><v>0</v></c>'),
        _results_row(3),
        _results_row(4, cell='<c r="C4" t="s"><v>1</v></c>'),
    ]
    data = xlsx_with_cells(*rows, strings=strings)
    assert _refused_with(data) == (
        "Cell C4 holds a control character U+0007 (written _x0007_); remove it "
        "and upload the file again."
    )


def test_a_shared_string_xml_forbids_is_named_by_its_cell():
    strings = "<si><t>A1</t></si><si><t>A&#x0;</t></si><si><t>A3</t></si>"
    rows = [
        _results_row(2, cell='<c r="C2" t="s"><v>2</v></c>'),
        _results_row(3, cell='<c r="C3" t="s"><v>1</v></c>'),
    ]
    data = xlsx_with_cells(*rows, strings=strings)
    assert _refused_with(data).startswith(
        "Cell C3 holds a control character U+0000 (written &#x0;)"
    )


def test_a_shared_string_no_cell_uses_is_refused_too():
    # as a CSV is refused for a control character anywhere in the file
    data = xlsx_with_cells(_results_row(2), strings="<si><t>_x001B_</t></si>")
    assert _refused_with(data).startswith(
        "Shared string 1 (no cell uses it) holds a control character U+001B"
    )


def test_a_control_character_in_a_sheet_name_is_refused():
    data = xlsx_with_cells(_results_row(2), sheet_name="res_x0003_ults")
    assert _refused_with(data).startswith(
        "The name of sheet 1 holds a control character U+0003 (written _x0003_)"
    )


def test_tab_line_breaks_and_an_escaped_underscore_are_text():
    # as in a CSV: tab, line feed, carriage return are text; _x005F_ escapes an
    # underscore, so _x005F_x0001_ is the text "_x0001_", no control character
    texts = ["a_x0009_b", "a_x000A_b", "a_x000D_b", "_x005F_x0001_", "a\tb"]
    rows = [_results_row(n, text) for n, text in enumerate(texts, start=2)]
    frame = ingest.read_upload("r.xlsx", xlsx_with_cells(*rows))
    assert frame["algorithm"].tolist() == texts


def test_an_escape_split_between_two_pieces_of_text_is_found():
    finder = xlsx_controls.ControlFinder()
    assert finder.find("x" * 9000 + "_x00") is None
    assert finder.find("1F_") == "U+001F (written _x001F_)"
    finder.reset()
    assert finder.find("_x005F_") is None
    assert finder.find("x0001_") is None  # the underscore was escaped


def test_an_escape_across_two_chunks_of_the_sheet_is_refused():
    # the scan reads a part in chunks of 64 KiB; "_x0" ends one, "001_" begins
    # the next, so expat hands the cell's text over in two pieces
    rows = [_results_row(n) for n in range(2, 60_000 // len(_results_row(99)))]
    number = len(rows) + 2
    start = _sheet([*rows, _results_row(number, "MARK")]).index("MARK")
    text = "y" * (xlsx.CHUNK - 3 - start) + "_x0001_"
    sheet = _sheet([*rows, _results_row(number, text)])
    assert sheet.index("_x0001_") + 3 == xlsx.CHUNK
    data = xlsx_with_cells(*rows, _results_row(number, text))
    assert _refused_with(data).startswith(
        f"Cell C{number} holds a control character U+0001 (written _x0001_)"
    )


@pytest.mark.django_db
def test_a_control_character_in_an_uploaded_workbook_is_a_400(
    organizer_api, registration
):
    data = xlsx_with_cells(_results_row(2), _results_row(3, "&#1;"))
    response = upload(organizer_api, data, "results.xlsx")
    assert response.status_code == 400
    assert response.json()["errors"] == [
        "Cell C3 holds a control character U+0001 (written &#1;); remove it and "
        "upload the file again."
    ]
    assert ResultsVersion.objects.count() == 0


def test_a_control_character_in_case_metadata_is_refused_with_its_cell():
    header = "".join(
        _inline(f"{col}1", name)
        for col, name in zip("AB", ("case", "scanner"), strict=True)
    )
    rows = [
        f'<row r="2">{_inline("A2", "c2")}{_inline("B2", "GE")}</row>',
        f'<row r="3">{_inline("A3", "c3")}{_inline("B3", "GE_x0000_")}</row>',
    ]
    with pytest.raises(ValidationError) as caught:
        read_metadata_upload("meta.xlsx", xlsx_with_cells(*rows, header=header))
    assert caught.value.messages == [
        "Cell B3 holds a control character U+0000 (written _x0000_); remove it "
        "and upload the file again."
    ]

"""Attack: spreadsheets built to exhaust the parser (issue 30).

Entity expansion, made-up blank rows and declared dimensions, millions of
cells under the size limit, and giant cells: each refused while cheap, on the
results upload and the case metadata upload alike (one reader).
"""

import time

import openpyxl
import pytest
from django.core.exceptions import ValidationError
from django.test import override_settings

from analysis import ingest
from analysis.models import ResultsVersion
from characteristics.models import CaseMetadataVersion
from characteristics.services import read_metadata_upload
from tests.characteristics.conftest import results, tables  # noqa: F401 (fixtures)
from tests.security import memory
from tests.security.crafted import (
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
    from tests.security.crafted import _SHEET_OPEN, _workbook

    sheet = f'{_SHEET_OPEN}<sheetData><row r="1">{header}</row></sheetData></worksheet>'
    errors = refusal(_workbook(sheet.encode()))
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

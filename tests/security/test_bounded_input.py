"""Attack: hostile uploads and documents that try to exhaust memory or output."""

import io
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings

from analysis import ingest
from analysis.models import ResultsVersion
from tests.security import memory
from tests.security.crafted import xlsx_with_one_cell

pytestmark = pytest.mark.django_db

URL = "/api/v1/registrations/miccai-2027-001/results/"
MB = 1 << 20


def upload(api, data, name):
    file = SimpleUploadedFile(name, data, content_type="application/octet-stream")
    return api.post(URL + "?commit=true", {"file": file}, format="multipart")


@pytest.mark.skipif(not memory.available(), reason="needs /proc (Linux)")
def test_xlsx_bomb_is_refused_with_little_memory(
    organizer_api, registration, xlsx_bomb
):
    growth, response = memory.peak_growth_bytes(
        lambda: upload(organizer_api, xlsx_bomb, "results.xlsx")
    )
    assert response.status_code == 400
    [message] = response.json()["errors"]
    assert message.startswith("The workbook unpacks to 220 202 ")
    assert "the limit is 104 857 600 bytes" in message
    assert growth < 200 * MB
    assert ResultsVersion.objects.count() == 0


@override_settings(MAX_XLSX_UNCOMPRESSED_BYTES=10 * MB)
def test_xlsx_uncompressed_limit_is_a_setting():
    with pytest.raises(ingest.UploadError, match="the limit is 10 485 760 bytes"):
        ingest.read_upload("r.xlsx", xlsx_with_one_cell(11 * MB))


def test_xlsx_is_read_like_csv():
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["task", "case", "algorithm", "metric", "value"])
    sheet.append(["Brain", "007", "A1", "DSC", 0.5])
    sheet.append(["Brain", "008", "A1", "DSC", 1.0])
    buffer = io.BytesIO()
    book.save(buffer)
    frame = ingest.read_upload("r.xlsx", buffer.getvalue())
    assert frame.to_dict("records") == [
        {"task": "Brain", "case": "007", "algorithm": "A1", "metric": "DSC",
         "value": "0.5"},
        {"task": "Brain", "case": "008", "algorithm": "A1", "metric": "DSC",
         "value": "1"},
    ]  # fmt: skip


@override_settings(MAX_RESULTS_ROWS=3)
def test_xlsx_row_limit_stops_reading():
    import openpyxl

    book = openpyxl.Workbook()
    for number in range(10):
        book.active.append(["task", str(number)])
    buffer = io.BytesIO()
    book.save(buffer)
    with pytest.raises(ingest.UploadError, match="more than 3 rows"):
        ingest.read_upload("r.xlsx", buffer.getvalue())


def test_csv_with_a_million_columns_gets_a_short_answer(organizer_api, registration):
    data = (
        "task,case,algorithm,metric,value,"
        + ",".join(f"x{i}" for i in range(1_000_000))
        + "\nBrain,1,A1,DSC,0.5\n"
    ).encode()
    response = upload(organizer_api, data, "results.csv")
    assert response.status_code == 400
    body = response.content
    assert len(body) < 2000
    assert response.json()["errors"] == [
        "The table has 1 000 005 columns; the limit is 100."
    ]


@override_settings(MAX_RESULTS_CELLS=50)
def test_csv_cell_limit():
    data = b"task,case,algorithm,metric,value\n" + b"Brain,1,A1,DSC,0.5\n" * 11
    with pytest.raises(ingest.UploadError, match="more than 50 cells"):
        ingest.read_upload("r.csv", data)


def test_error_list_is_capped_with_a_count(organizer_api, registration):
    rows = "".join(f"Brain,c{i},A1,DSC,bad\n" for i in range(5000))
    data = ("task,case,algorithm,metric,value\n" + rows).encode()
    response = upload(organizer_api, data, "results.csv")
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert len(errors) == 101
    assert errors[0].startswith("line 2: value 'bad' is not a number")
    assert errors[-1] == "… and 4 900 more"


def test_deeply_nested_json_import_is_a_400(organizer_api, call):
    nested = "[" * 100_000 + "]" * 100_000
    response = organizer_api.post(
        "/api/v1/challenges/import/",
        data=nested,
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "nested" in json.dumps(response.json())


def test_extreme_values_are_refused_with_their_lines():
    data = (
        b"task,case,algorithm,metric,value\n"
        b"Brain,1,A1,DSC,1e308\nBrain,1,A2,DSC,0.5\nBrain,2,A1,DSC,-1e200\n"
    )
    with pytest.raises(ingest.UploadError) as refused:
        ingest.validated(ingest.read_upload("r.csv", data))
    assert refused.value.errors == [
        "line 2: value 1e+308 is beyond ±1e+100 (MAX_RESULTS_ABS_VALUE); rescale the "
        "metric.",
        "line 4: value -1e+200 is beyond ±1e+100 (MAX_RESULTS_ABS_VALUE); rescale the "
        "metric.",
    ]

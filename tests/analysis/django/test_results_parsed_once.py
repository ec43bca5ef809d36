"""The results file is parsed once; its stored form is read back once per job.

Upload (page or API) → preview → commit → analysis → report: the uploaded file
goes through the one parser (`ingest.read_upload`) once, the stored normalised
CSV through the one reader (`ingest.read_normalised`) once per request or job,
and the stored bytes and hash are those of the table as uploaded.
"""

import hashlib
import io
import time

import pandas as pd
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings

from analysis import ingest, jobs, services, staging
from analysis.models import AnalysisRun, AnalysisStatus, ResultsVersion
from tests.analysis.django.conftest import EXPLORATORY_SCHEME, results_csv

pytestmark = pytest.mark.django_db

IDENT = "miccai-2027-001"


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path


def as_upload(data: bytes, name: str = "results.csv") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="text/csv")


def test_the_pages_parse_the_file_once_from_upload_to_commit(
    client, organizer, registration, calls
):
    client.force_login(organizer)
    upload = client.post(
        f"/results/{IDENT}/upload/", {"file": as_upload(results_csv()), "teams": ""}
    )
    assert upload.status_code == 302
    assert client.get(upload["Location"]).status_code == 200
    assert client.post(upload["Location"] + "commit/").status_code == 302
    assert ResultsVersion.objects.count() == 1
    # preview and commit each read the staged table back, once
    assert calls == {"read_upload": 1, "validated": 3, "read_normalised": 2}


def test_the_api_parses_and_checks_the_file_once_to_commit(
    organizer_api, registration, calls
):
    response = organizer_api.post(
        f"/api/v1/registrations/{IDENT}/results/?commit=true",
        {"file": as_upload(results_csv())},
        format="multipart",
    )
    assert response.status_code == 201
    assert calls == {"read_upload": 1, "validated": 1}


def test_analysis_and_report_read_the_stored_table_once(registration, organizer, calls):
    results = ingest.commit_results(
        registration=registration,
        table=ingest.parse_upload("results.csv", results_csv(n_cases=12)),
        original_name="results.csv",
        actor=organizer,
    )
    run = AnalysisRun.objects.create(
        results=results,
        scheme={"Brain": EXPLORATORY_SCHEME, "Heart": EXPLORATORY_SCHEME},
        exploratory=True,
        seed=7,
        requested_by=organizer,
    )
    calls.clear()
    services.execute_analysis(run.pk)
    run.refresh_from_db()
    assert run.status == AnalysisStatus.DONE
    assert run.report
    assert calls == {"read_normalised": 1, "validated": 1}


SCHEMES = {"Brain": EXPLORATORY_SCHEME, "Heart": EXPLORATORY_SCHEME}
CHUNKED = {"ANALYSIS_CHUNK_THRESHOLD": 1, "ANALYSIS_CHUNK_REPLICATES": 100}


@pytest.fixture
def stored(registration, organizer):
    return ingest.commit_results(
        registration=registration,
        table=ingest.parse_upload("results.csv", results_csv(n_cases=12)),
        original_name="results.csv",
        actor=organizer,
    )


@pytest.mark.parametrize("chunks", [{}, CHUNKED], ids=["whole", "chunked"])
def test_an_analysis_run_in_process_reads_the_table_once(
    stored, chair, calls, chunks, django_capture_on_commit_callbacks
):
    """No Celery: the job (and its chunks and merge) runs in this process and
    gets the table the start has read for its checks."""
    with override_settings(**chunks), django_capture_on_commit_callbacks(execute=True):
        run = services.start_analysis(results=stored, actor=chair, schemes=SCHEMES)
    run.refresh_from_db()
    assert (run.status, run.error) == (AnalysisStatus.DONE, "")
    assert run.chunks.exists() == bool(chunks)
    assert calls["read_normalised"] == 1


@pytest.mark.django_db(transaction=True)
@override_settings(JOBS_SYNCHRONOUS=False, CELERY_BROKER_URL="")
def test_an_analysis_in_a_thread_of_the_web_process_reads_the_table_once(
    stored, chair, calls
):
    run = services.start_analysis(results=stored, actor=chair, schemes=SCHEMES)
    deadline = time.monotonic() + 60
    while run.status not in (AnalysisStatus.DONE, AnalysisStatus.FAILED):
        assert time.monotonic() < deadline
        time.sleep(0.2)
        run.refresh_from_db()
    assert (run.status, run.error) == (AnalysisStatus.DONE, "")
    assert calls["read_normalised"] == 1


@override_settings(JOBS_SYNCHRONOUS=False, CELERY_BROKER_URL="redis://queue")
def test_an_analysis_sent_to_celery_carries_no_table(
    stored, chair, calls, monkeypatch, django_capture_on_commit_callbacks
):
    """A worker elsewhere gets the run's id only, and reads the table itself."""
    sent = []
    monkeypatch.setattr(jobs, "publish", lambda *message: sent.append(message) or True)
    with django_capture_on_commit_callbacks(execute=True):
        run = services.start_analysis(results=stored, actor=chair, schemes=SCHEMES)
    assert sent == [("analysis.services.execute_analysis", run.pk)]
    assert calls["read_normalised"] == 1  # the start's checks
    jobs.run_job(*sent[0])  # as the worker does
    run.refresh_from_db()
    assert run.status == AnalysisStatus.DONE
    assert calls["read_normalised"] == 2


def csv_with_blank_lines_and_quotes() -> bytes:
    return (
        b"task,case,algorithm,metric,value\r\n"
        b'Brain,"case 1, left",A1,DSC,0.930\r\n'
        b"\r\n"
        b"Brain,case 2 ,A1,DSC,\r\n"
        b'Brain,"case 1, left",A2,DSC,0.5\r\n'
        b"Brain,case 2 ,A2,DSC,1e-1\r\n"
    )


def xlsx_table() -> bytes:
    """Case ids with leading zeros, a whole float (written "1"), a blank value."""
    buffer = io.BytesIO()
    pd.DataFrame(
        {
            "task": ["Brain"] * 3,
            "case": ["007", "007", "008"],
            "algorithm": ["A1", "A2", "A1"],
            "metric": ["DSC"] * 3,
            "value": [0.93, 1.0, None],
        }
    ).to_excel(buffer, index=False)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("name", "data"),
    [("r.csv", csv_with_blank_lines_and_quotes()), ("r.xlsx", xlsx_table())],
)
def test_stored_bytes_are_the_normalised_table_as_uploaded(
    client, organizer, registration, name, data
):
    expected = ingest.normalised_csv(ingest.read_upload(name, data))
    client.force_login(organizer)
    upload = client.post(f"/results/{IDENT}/upload/", {"file": as_upload(data, name)})
    client.post(upload["Location"] + "commit/")
    version = ResultsVersion.objects.get()
    assert version.content == expected
    assert version.sha256 == hashlib.sha256(expected.encode()).hexdigest()
    table = services.results_table(version)
    assert (table.content, table.sha256, len(table)) == (
        version.content,
        version.sha256,
        version.row_count,
    )


def test_a_staged_preview_names_the_lines_of_the_uploaded_file(
    client, organizer, registration
):
    def out_of_bounds(frame):
        frame.loc[5, "value"] = "1.5"
        return frame

    lines = results_csv(n_cases=3, edit=out_of_bounds).split(b"\n")
    data = b"\n".join([*lines[:3], b"", b"", *lines[3:]])  # two blank lines
    client.force_login(organizer)
    upload = client.post(f"/results/{IDENT}/upload/", {"file": as_upload(data)})
    page = client.get(upload["Location"]).content.decode()
    assert "value(s) outside [0, 1] (lines 9)." in page  # row 6 of the table
    assert len(list(staging.staging_dir().glob("results-*.upload.lines"))) == 1
    # a value out of bounds is a problem: stored on the organizer's word
    client.post(upload["Location"] + "commit/", {"accept_problems": "on"})
    assert ResultsVersion.objects.count() == 1
    assert list(staging.staging_dir().iterdir()) == []  # the lines go too


def workbook(rows) -> bytes:
    import openpyxl

    book = openpyxl.Workbook()
    for row in rows:
        book.active.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


HEADER = ["task", "case", "algorithm", "metric", "value"]


def test_a_workbook_skips_blank_rows_as_a_csv_does():
    # Organizers leave empty rows between blocks: a CSV with blank lines was
    # read, the same sheet refused ("line 3: empty 'task'", four times a row).
    rows = [
        HEADER,
        ["Brain", "c1", "A1", "DSC", 0.9],
        [],
        ["Brain", "c1", "A2", "DSC", 0.8],
        [None, " ", None, None, None],
        ["Brain", "c2", "A1", "DSC", 0.7],
        ["Brain", "c2", "A2", "DSC", 0.6],
    ]
    table = ingest.parse_upload("r.xlsx", workbook(rows))
    csv = b"\n".join(
        b",".join(str(c if c is not None else "").encode() for c in row) for row in rows
    )
    assert table.content == ingest.parse_upload("r.csv", csv).content
    assert table.frame["line"].tolist() == [2, 4, 6, 7]


def test_a_workbook_error_after_blank_rows_names_the_sheet_row():
    rows = [
        HEADER,
        ["Brain", "c1", "A1", "DSC", 0.9],
        [],
        [],
        ["Brain", "c2", "A1", "DSC", "x"],
    ]
    with pytest.raises(ingest.UploadError) as refused:
        ingest.parse_upload("r.xlsx", workbook(rows))
    assert refused.value.errors == [
        "line 5: value 'x' is not a number; expected a number such as 0.93, or an "
        "empty cell for a missing result"
    ]


def test_a_workbook_formula_without_its_result_is_refused_not_read_as_missing():
    # A script (openpyxl, pandas) saves formulas uncalculated: the cell has no
    # value, and the result would have been stored as missing without a word.
    rows = [
        HEADER,
        ["Brain", "c1", "A1", "DSC", 0.9],
        ["Brain", "c1", "A2", "DSC", None],  # truly missing: accepted
        ["Brain", "c2", "A1", "DSC", "=1-0.25"],
        ["Brain", "c2", "A2", "DSC", 0.6],
    ]
    with pytest.raises(ingest.UploadError) as refused:
        ingest.parse_upload("r.xlsx", workbook(rows))
    (message,) = refused.value.errors
    assert message.startswith("1 cell(s) hold a formula without its result")
    assert "line 4, value: =1-0.25." in message
    rows[3][4] = 0.75
    table = ingest.parse_upload("r.xlsx", workbook(rows))
    assert table.frame["value"].isna().tolist() == [False, True, False, False]


def test_a_csv_that_is_not_utf8_names_its_line_and_the_fix():
    # Excel's plain "CSV" is Windows-1252: the page said only "The CSV is not
    # UTF-8 (byte 54)", neither the line nor how to save it.
    data = "task,case,algorithm,metric,value\nBrain,c1,Jürgen,DSC,0.9\n".encode(
        "cp1252"
    )
    with pytest.raises(ingest.UploadError) as refused:
        ingest.read_upload("r.csv", data)
    assert refused.value.errors == [
        "line 2: the file is not UTF-8 text (found byte 0xfc); expected UTF-8: "
        "save it as 'CSV UTF-8' (in a spreadsheet: Save as > CSV UTF-8)"
    ]

"""Fuzzing the results upload endpoint: every malformed CSV, XLSX or other file
gets a 400 naming what is wrong, and nothing is stored."""

import csv
import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openpyxl import Workbook

from analysis.models import ResultsVersion
from audit.models import AuditEvent
from tests.analysis.django.conftest import small_results_csv as results_csv
from tests.analysis.django.conftest import upload

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
COLUMNS = ["task", "case", "algorithm", "metric", "value", "target", "bogus", ""]
cells = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["", "nan", "inf", "-1e309", "0.5", "1,5", '"', "\n", "Brain"]),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)
tables = st.tuples(
    st.lists(st.sampled_from(COLUMNS), min_size=1, max_size=7),
    st.lists(st.lists(cells, min_size=0, max_size=8), max_size=12),
)


def as_csv(table) -> bytes:
    header, rows = table
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue().encode("utf-8", "surrogatepass")


def as_xlsx(table) -> bytes:
    header, rows = table
    book = Workbook()
    sheet = book.active
    sheet.append(header)
    for row in rows:
        sheet.append(
            [
                "".join(c for c in value if c.isprintable() or c in "\t\n")
                for value in row
            ]
        )
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


@pytest.fixture
def post(registration, organizer_api):
    def send(name: str, data: bytes):
        stored = (ResultsVersion.objects.count(), AuditEvent.objects.count())
        response = upload(organizer_api, registration.identifier, name, data)
        assert response.status_code in (201, 400), (name, data[:200], response.content)
        if response.status_code == 400:
            body = response.json()
            assert body["errors"], body
            assert all(isinstance(e, str) and e for e in body["errors"])
            assert (ResultsVersion.objects.count(), AuditEvent.objects.count()) == (
                stored
            )
        return response

    return send


def test_valid_upload_is_stored_once(post):
    assert post("results.csv", results_csv(cases=4)).status_code == 201
    assert ResultsVersion.objects.count() == 1


@FUZZ
@given(data=st.binary(max_size=3000))
def test_random_bytes_as_csv_are_refused_with_a_message(post, data):
    post("results.csv", data)


@FUZZ
@given(table=tables)
def test_malformed_csv_tables_are_refused_with_a_message(post, table):
    post("results.csv", as_csv(table))


@FUZZ
@given(table=tables)
def test_malformed_xlsx_workbooks_are_refused_with_a_message(post, table):
    post("results.xlsx", as_xlsx(table))


@FUZZ
@given(
    data=st.binary(max_size=2000),
    name=st.sampled_from(["results.xlsx", "results.json", "results.txt", "noext"]),
)
def test_random_bytes_as_other_files_are_refused(post, data, name):
    assert post(name, data).status_code == 400


def test_file_over_the_size_limit_is_refused(post, settings):
    settings.MAX_UPLOAD_BYTES = 100
    response = post("results.csv", results_csv(cases=20))
    assert response.status_code == 400
    assert "the limit is 100 bytes" in response.json()["errors"][0]

"""The case-characteristics pages and API read the stored results table at most
once per request, the fit included when it runs in the web process (no Celery):
the specification form, the checks and the fit share one table."""

import pytest
from django.urls import reverse

from characteristics.models import CaseMetadataVersion, CaseModelRun

from .conftest import SPEC, SPEC_FORM, metadata_file

pytestmark = pytest.mark.django_db


def reads(calls) -> int:
    """The stored-table reads counted so far (and start counting again)."""
    count = calls["read_normalised"]
    calls.clear()
    return count


def test_the_page_reads_the_table_once_and_only_for_the_form(
    client_in, results, metadata, calls
):
    calls.clear()
    page = reverse("characteristics:page", args=[results.pk])
    assert client_in.get(page).status_code == 200
    assert reads(calls) == 1
    metadata.delete()  # no metadata: no specification form, nothing to read
    assert client_in.get(page).status_code == 200
    assert reads(calls) == 0


def test_upload_and_commit_read_the_table_once_each(client_in, results, tables, calls):
    preview = client_in.post(
        reverse("characteristics:upload", args=[results.pk]),
        {"file": metadata_file(tables[1])},
    )
    assert preview.status_code == 200
    assert reads(calls) == 1
    committed = client_in.post(
        reverse("characteristics:commit", args=[results.pk]),
        {"content": tables[1].decode(), "name": "meta.csv"},
    )
    assert committed.status_code == 302
    assert CaseMetadataVersion.objects.count() == 1
    assert reads(calls) == 1


def test_starting_a_model_reads_the_table_once_with_its_fit(client_in, metadata, calls):
    calls.clear()
    start = reverse("characteristics:start", args=[metadata.pk])
    refused = client_in.post(start, {**SPEC_FORM, "spec-metric": ""})
    assert refused.status_code == 400
    assert reads(calls) == 1  # the form and the page it is shown on
    started = client_in.post(start, SPEC_FORM)
    run = CaseModelRun.objects.get()
    assert started.url == reverse("characteristics:run", args=[run.pk])
    assert (run.status, run.error) == ("done", "")  # fitted in this request
    assert reads(calls) == 1
    for page in ("characteristics:run", "characteristics:run-body"):
        assert client_in.get(reverse(page, args=[run.pk])).status_code == 200
    assert reads(calls) == 0


def test_the_api_start_reads_the_table_once_with_its_fit(
    organizer_api, metadata, calls
):
    calls.clear()
    response = organizer_api.post(
        f"/api/v1/case-metadata/{metadata.pk}/models/", SPEC, format="json"
    )
    assert response.status_code == 202
    assert CaseModelRun.objects.get().status == "done"
    assert reads(calls) == 1

"""The page flow: upload → preview → commit → specification → run → figures."""

import re

import pytest
from django.urls import reverse

from characteristics.models import CaseMetadataVersion, CaseModelRun
from tests.stacked_tables import assert_cells_labelled_by_headers

from .conftest import SPEC_FORM, metadata_file

pytestmark = pytest.mark.django_db


def upload_metadata(client, results, table: bytes):
    return client.post(
        reverse("characteristics:upload", args=[results.pk]),
        {"file": metadata_file(table)},
    )


def test_upload_preview_commit_and_run(client_in, results, tables):
    page = reverse("characteristics:page", args=[results.pk])
    assert client_in.get(page).status_code == 200
    preview = upload_metadata(client_in, results, tables[1])
    assert preview.status_code == 200
    assert b"Commit metadata" in preview.content
    assert CaseMetadataVersion.objects.count() == 0
    content = re.search(rb'name="content" value="([^"]*)"', preview.content).group(1)
    from html import unescape

    committed = client_in.post(
        reverse("characteristics:commit", args=[results.pk]),
        {"content": unescape(content.decode()), "name": "meta.csv"},
    )
    assert committed.status_code == 302
    version = CaseMetadataVersion.objects.get()
    started = client_in.post(
        reverse("characteristics:start", args=[version.pk]), SPEC_FORM
    )
    run = CaseModelRun.objects.get()
    assert started.status_code == 302
    assert started.url == reverse("characteristics:run", args=[run.pk])
    body = client_in.get(started.url)
    assert b"EXPLORATORY" in body.content
    assert b"raises the odds of failure" in body.content
    # the groups of the random intercepts by name and count (read "12 patient")
    assert re.search(
        r"\d+ observations ·\s+patient: \d+ groups, algorithm: \d+ groups", body.text
    )
    # the rates table stacks into labelled cards on phones
    rates = body.text.split('id="failure-rates"')[1]
    assert_cells_labelled_by_headers(rates, tables=1)
    for kind in ("global", "per-algorithm"):
        figure = client_in.get(reverse("characteristics:plot", args=[run.pk, kind]))
        assert figure["Content-Type"] == "image/png"
        assert b"".join(figure.streaming_content).startswith(b"\x89PNG")
    output = client_in.get(reverse("characteristics:output", args=[run.pk]))
    assert output.json()["models"]
    report = client_in.get(reverse("characteristics:report", args=[run.pk]))
    assert b"".join(report.streaming_content).startswith(b"%PDF")
    CaseModelRun.objects.filter(pk=run.pk).update(output=None)
    for download in ("characteristics:output", "characteristics:report"):
        assert client_in.get(reverse(download, args=[run.pk])).status_code == 404


def test_results_page_links_to_case_characteristics(client_in, results):
    page = client_in.get(
        reverse("analysis:results", args=[results.registration.identifier])
    )
    assert reverse("characteristics:page", args=[results.pk]).encode() in page.content


def test_commit_of_a_bad_table_stores_nothing(client_in, results):
    response = client_in.post(
        reverse("characteristics:commit", args=[results.pk]),
        {"content": "id,blur\n1,2\n", "name": "meta.csv"},
    )
    assert response.status_code == 400
    assert b"no &#x27;case&#x27; column" in response.content
    assert CaseMetadataVersion.objects.count() == 0


def test_upload_larger_than_the_limit_is_refused_by_its_size(
    client_in, results, tables, settings
):
    settings.MAX_UPLOAD_BYTES = 100
    response = upload_metadata(client_in, results, tables[1])
    assert response.status_code == 400
    assert b"the limit is 100 bytes" in response.content
    assert CaseMetadataVersion.objects.count() == 0

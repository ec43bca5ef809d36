"""The lists of analysis runs, case metadata and case-model runs stack into
labelled cards on phones: every cell's data-label is its column's header
(tests/stacked_tables.py)."""

import pytest
from django.urls import reverse

from analysis.models import AnalysisRun
from characteristics import services
from characteristics.models import CaseModelRun
from tests.stacked_tables import assert_cells_labelled_by_headers

from .conftest import SPEC

pytestmark = pytest.mark.django_db


def test_analysis_runs_cells_are_labelled_by_their_headers(client, organizer, results):
    AnalysisRun.objects.create(
        results=results, scheme={}, seed=1, requested_by=organizer
    )
    client.force_login(organizer)
    html = client.get(
        reverse("analysis:results", args=[results.registration.identifier])
    ).text
    assert_cells_labelled_by_headers(html)


def test_case_model_pages_cells_are_labelled_by_their_headers(
    client, organizer, results, tables
):
    frame = services.read_metadata_upload("meta.csv", tables[1])
    metadata = services.commit_metadata(
        results=results, frame=frame, original_name="meta.csv", actor=organizer
    )
    CaseModelRun.objects.create(metadata=metadata, spec=SPEC, requested_by=organizer)
    client.force_login(organizer)
    html = client.get(reverse("characteristics:page", args=[results.pk])).text
    assert_cells_labelled_by_headers(html, tables=2)

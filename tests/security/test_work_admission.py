"""Attack: flood the workers (issue 30).

Twenty analysis requests in a row had started sixteen runs, four 500s, and
grown the web process by 1.2 GB. Past the per-user or the global cap of queued
and running analyses and case-model fits, a new one is refused: 429 with
Retry-After on the API, a message on the pages; nothing is created.
"""

import pytest
from django.test import override_settings
from django.urls import reverse

from analysis.admission import BusyError
from analysis.models import AnalysisRun, AnalysisStatus
from analysis.services import start_analysis
from characteristics.models import CaseModelRun
from tests.characteristics.conftest import SPEC, metadata, results, tables  # noqa: F401
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def pending(results, user, count: int, status=AnalysisStatus.QUEUED) -> None:  # noqa: F811
    """`count` runs of `user` already waiting (as a busy worker leaves them)."""
    for n in range(count):
        AnalysisRun.objects.create(
            results=results,
            scheme={"n": n},
            seed=n,
            requested_by=user,
            status=status,
        )


@override_settings(MAX_ACTIVE_RUNS_PER_USER=2, RUN_RETRY_AFTER_SECONDS=45)
def test_analyses_past_the_user_cap_are_refused_with_retry_after(
    organizer_api,
    organizer,
    results,  # noqa: F811
):
    pending(results, organizer, 1)
    pending(results, organizer, 1, status=AnalysisStatus.RUNNING)
    response = organizer_api.post(
        f"/api/v1/results/{results.pk}/analyses/", {}, format="json"
    )
    assert response.status_code == 429
    assert response["Retry-After"] == "45"
    assert response.json()["detail"] == (
        "You already have 2 analyses or case-model fits queued or running (the "
        "limit is 2); start this one when one of them has finished (about 45 s)."
    )
    assert AnalysisRun.objects.count() == 2


@override_settings(MAX_ACTIVE_RUNS_PER_USER=2)
def test_finished_runs_do_not_count(organizer, results):  # noqa: F811
    pending(results, organizer, 5, status=AnalysisStatus.DONE)
    pending(results, organizer, 1)
    run = start_analysis(results=results, actor=organizer)
    run.refresh_from_db()
    assert run.status == AnalysisStatus.DONE  # run at once in tests


@override_settings(MAX_ACTIVE_RUNS=3)
def test_analyses_past_the_global_cap_are_refused(organizer, results):  # noqa: F811
    pending(results, UserFactory(), 3)
    with pytest.raises(BusyError, match="The registry is running 3 analyses"):
        start_analysis(results=results, actor=organizer)


@override_settings(MAX_ACTIVE_RUNS_PER_USER=1)
def test_case_model_fits_count_with_analyses(
    organizer_api,
    organizer,
    results,  # noqa: F811
    metadata,  # noqa: F811
):
    pending(results, organizer, 1)
    response = organizer_api.post(
        f"/api/v1/case-metadata/{metadata.pk}/models/", SPEC, format="json"
    )
    assert response.status_code == 429
    assert "Retry-After" in response
    assert CaseModelRun.objects.count() == 0


@override_settings(MAX_ACTIVE_RUNS_PER_USER=1)
def test_the_page_says_why_with_429(client, organizer, results):  # noqa: F811
    pending(results, organizer, 1)
    client.force_login(organizer)
    response = client.post(reverse("analysis:start", args=[results.pk]))
    assert response.status_code == 429
    assert response["Retry-After"] == "30"
    assert "You already have 1 analyses or case-model fits queued" in (
        response.content.decode()
    )
    assert AnalysisRun.objects.count() == 1

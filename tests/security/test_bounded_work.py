"""Attack: a scheme whose bootstrap would exhaust the worker."""

import copy

import pytest
from django.test import override_settings

from analysis.models import AnalysisRun
from tests.analysis.django.conftest import SCHEME, results_csv
from tests.analysis.django.test_results_api import upload
from tests.factories import ChallengeFactory, TaskFactory

pytestmark = pytest.mark.django_db

HUGE = copy.deepcopy(SCHEME) | {
    "uncertainty": {"bootstrap": 1_000_000_000, "seed": 7, "rank_ci": ["bootstrap"]}
}
MESSAGE = (
    "scheme.uncertainty.bootstrap: 1 000 000 000 bootstrap replicates; the limit "
    "is 100 000."
)


def test_scheme_with_a_billion_replicates_is_refused_when_saved(
    organizer_api, call, organizer
):
    challenge = ChallengeFactory(call=call, owner=organizer)
    task = TaskFactory(challenge=challenge, name="Brain")
    response = organizer_api.patch(
        f"/api/v1/tasks/{task.pk}/", {"scheme": HUGE}, format="json"
    )
    assert response.status_code == 400
    assert MESSAGE in str(response.json())
    task.refresh_from_db()
    assert task.scheme is None


def test_exploratory_run_with_a_billion_replicates_is_refused(
    organizer_api, registration
):
    version = upload(organizer_api, results_csv(n_cases=10), commit=True).json()
    response = organizer_api.post(
        f"/api/v1/results/{version['id']}/analyses/", {"scheme": HUGE}, format="json"
    )
    assert response.status_code == 400
    assert MESSAGE in str(response.json())
    assert AnalysisRun.objects.count() == 0


@override_settings(MAX_RUN_BOOTSTRAP_WORK=10_000)
def test_run_over_the_work_limit_is_refused_when_it_starts(
    organizer_api, registration
):
    # Registered scheme: 50 replicates x 20 cases x 4 algorithms x 1 metric,
    # for each of 2 tasks = 8 000 ... use 40 cases: 16 000, over the limit.
    version = upload(organizer_api, results_csv(n_cases=40), commit=True).json()
    response = organizer_api.post(
        f"/api/v1/results/{version['id']}/analyses/", {}, format="json"
    )
    assert response.status_code == 400
    assert "resample 16 000 ranks" in str(response.json())
    assert "the limit is 10 000" in str(response.json())
    assert AnalysisRun.objects.count() == 0

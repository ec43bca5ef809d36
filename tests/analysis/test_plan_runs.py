"""Test-set plans in the background (issue 29): the job's plan equals a plan
in one go, and a killed worker's run resumes without changing it."""

import json
from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone

from analysis.models import AnalysisStatus, PlanRun
from analysis.plan_runs import execute_plan_run, start_plan_run
from ranking.planner import (
    PreparedPlan,
    plan_blocks,
    prepare_plan,
    run_plan,
    simulate_block,
)
from registry.test_set_plans import plan_limits
from tests.factories import UserFactory
from tests.registry.helpers import proposal_with_scheme
from tests.registry.test_test_set_plans import INPUTS, PAGE_FORM, SCHEME

pytestmark = pytest.mark.django_db

BIG = {**INPUTS, "simulations": 250}  # three blocks per n


@pytest.fixture
def task(call, organizer):
    return proposal_with_scheme(call, organizer, SCHEME).tasks.get()


def _canonical(plan) -> str:
    # PostgreSQL's jsonb keeps no key order: the plan's bytes are its sorted
    # JSON, as the command line prints it.
    return json.dumps(plan, sort_keys=True)


def _one_go(task):
    return run_plan({"scheme": task.scheme, **BIG}, limits=plan_limits())


def test_background_plan_equals_the_plan_in_one_go_and_attaches(task, organizer):
    run = start_plan_run(task=task, inputs=BIG, attach=True, actor=organizer)
    execute_plan_run(run.pk)
    run.refresh_from_db()
    task.refresh_from_db()
    assert run.status == AnalysisStatus.DONE
    assert run.progress == 100
    assert _canonical(run.output) == _canonical(_one_go(task))
    assert task.test_set_plan == run.output


def died_after_blocks(run: PlanRun, prepared: PreparedPlan, count: int) -> None:
    """A worker claimed ``run``, stored its first ``count`` blocks and died
    (no heartbeat since)."""
    first = plan_blocks(prepared)[:count]
    PlanRun.objects.filter(pk=run.pk).update(
        status=AnalysisStatus.RUNNING,
        attempt=1,
        worker="elsewhere:1",
        started=timezone.now() - timedelta(minutes=10),
        heartbeat=timezone.now() - timedelta(minutes=10),
        progress=33,
        blocks={
            f"{n}:{k}": simulate_block(prepared, n, k).to_json_dict() for n, k in first
        },
    )


def test_killed_worker_resumes_the_plan_without_changing_it(task, organizer):
    run = start_plan_run(task=task, inputs=BIG, attach=False, actor=organizer)
    prepared = prepare_plan({"scheme": task.scheme, **BIG}, limits=plan_limits())
    died_after_blocks(run, prepared, 4)
    execute_plan_run(run.pk)
    run.refresh_from_db()
    assert run.status == AnalysisStatus.DONE
    assert run.attempt == 2
    assert "resumed" in run.note
    assert _canonical(run.output) == _canonical(_one_go(task))


def test_a_run_is_refused_before_queueing_when_inputs_are_bad(task, organizer):
    with pytest.raises(ValidationError):
        start_plan_run(
            task=task, inputs={**BIG, "n": [1]}, attach=False, actor=organizer
        )
    with pytest.raises(PermissionDenied):
        start_plan_run(task=task, inputs=BIG, attach=True, actor=UserFactory())
    assert not PlanRun.objects.exists()


def test_api_queues_a_plan_run_and_serves_it_when_done(
    organizer_api, task, django_capture_on_commit_callbacks
):
    import jsonschema

    from tests.registry.test_plan_api import _openapi_to_json_schema

    with django_capture_on_commit_callbacks(execute=True):
        started = organizer_api.post(
            f"/api/v1/tasks/{task.pk}/plan-runs/", BIG, format="json"
        )
    assert started.status_code == 202
    done = organizer_api.get(f"/api/v1/plan-runs/{started.json()['id']}/")
    assert done.status_code == 200
    assert done.json()["status"] == "done"
    assert json.dumps(done.json()["output"], sort_keys=True) == json.dumps(
        _one_go(task), sort_keys=True
    )
    document = organizer_api.get("/api/schema/", {"format": "json"}).json()
    schemas = _openapi_to_json_schema(document["components"]["schemas"])
    schema = {
        "$ref": "#/components/schemas/PlanRun",
        "components": {"schemas": schemas},
    }
    jsonschema.validate(started.json(), schema)
    jsonschema.validate(done.json(), schema)


def test_others_do_not_see_a_plan_run(api, task, organizer):
    run = start_plan_run(task=task, inputs=BIG, attach=False, actor=organizer)
    api.force_authenticate(UserFactory())
    assert api.get(f"/api/v1/plan-runs/{run.pk}/").status_code == 404


def test_page_starts_a_background_plan_and_shows_its_progress_then_the_plan(
    client, task, organizer, django_capture_on_commit_callbacks
):
    from django.urls import reverse

    client.force_login(organizer)
    form = {**PAGE_FORM, "simulations": "250", "attach": ""}
    url = reverse("analysis:start-plan", args=[task.challenge.pk, task.pk])
    with django_capture_on_commit_callbacks(execute=False):
        response = client.post(url, form)
    run = PlanRun.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("analysis:plan-run", args=[run.pk])
    queued = client.get(response["Location"]).text
    assert 'id="progress-bar"' in queued
    assert 'id="plan-run-waiting"' in queued
    execute_plan_run(run.pk)
    body = client.get(reverse("analysis:plan-run-body", args=[run.pk])).text
    assert 'data-test-set-plan="Brain"' in body
    assert 'id="plan-run-attached"' in body
    task.refresh_from_db()
    assert task.test_set_plan == _one_go(task)

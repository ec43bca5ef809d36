"""Test-set plans in the background (issue 29): the job's plan equals a plan
in one go, and a killed worker's run resumes without changing it."""

import json
from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone

from analysis.models import AnalysisStatus, PlanRun
from analysis.plan_runs import execute_plan_run, start_plan_run
from ranking.planner import plan_blocks, prepare_plan, run_plan, simulate_block
from registry.test_set_plans import plan_limits
from tests.factories import UserFactory
from tests.registry.helpers import proposal_with_scheme
from tests.registry.test_test_set_plans import INPUTS, SCHEME

pytestmark = pytest.mark.django_db

BIG = {**INPUTS, "simulations": 250}  # three blocks per n


@pytest.fixture
def task(call, organizer):
    return proposal_with_scheme(call, organizer, SCHEME).tasks.get()


def _one_go(task):
    return run_plan({"scheme": task.scheme, **BIG}, limits=plan_limits())


def test_background_plan_equals_the_plan_in_one_go_and_attaches(task, organizer):
    run = start_plan_run(task=task, inputs=BIG, attach=True, actor=organizer)
    execute_plan_run(run.pk)
    run.refresh_from_db()
    task.refresh_from_db()
    assert run.status == AnalysisStatus.DONE
    assert run.progress == 100
    assert json.dumps(run.output) == json.dumps(_one_go(task))
    assert task.test_set_plan == run.output


def test_killed_worker_resumes_the_plan_without_changing_it(task, organizer):
    run = start_plan_run(task=task, inputs=BIG, attach=False, actor=organizer)
    # A worker claimed it, stored the first blocks, and died (no heartbeat since).
    prepared = prepare_plan({"scheme": task.scheme, **BIG}, limits=plan_limits())
    first = plan_blocks(prepared)[:4]
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
    execute_plan_run(run.pk)
    run.refresh_from_db()
    assert run.status == AnalysisStatus.DONE
    assert run.attempt == 2
    assert "resumed" in run.note
    assert json.dumps(run.output) == json.dumps(_one_go(task))


def test_a_run_is_refused_before_queueing_when_inputs_are_bad(task, organizer):
    with pytest.raises(ValidationError):
        start_plan_run(
            task=task, inputs={**BIG, "n": [1]}, attach=False, actor=organizer
        )
    with pytest.raises(PermissionDenied):
        start_plan_run(task=task, inputs=BIG, attach=True, actor=UserFactory())
    assert not PlanRun.objects.exists()
